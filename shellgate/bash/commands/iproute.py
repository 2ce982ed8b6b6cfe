"""iproute2's ``ip`` and ``ss`` (``SS`` below). ``ip``: the forms that print an object (``ip a``,
``ip -br link``, ``ip r get 1.1.1.1``, ``ip neigh show dev eth0``). Every other verb changes the
host's network (``add``, ``del``, ``set``, ``flush``, ``change`` …), writes (``route save``),
enters a namespace (``netns exec``, ``vrf exec``, ``-n``) or runs commands from a file
(``-batch``).

ip reads its words by prefix, in table order (``matches()``): ``ip link s`` is ``set`` (``set``
comes before ``show`` in ``link``'s list) while ``ip address s`` is ``show``; ``-b`` is
``-batch``, ``-br`` is ``-brief``. So no spelling is derived here: each accepted one is listed,
``sh[ow]`` standing for ``sh``, ``sho`` and ``show`` as ip's own usage writes it, and
tests/test_iproute.py runs every one (iproute2 6.1) in a fresh network namespace, compares what
it prints with the canonical spelling's and reads its netlink requests under strace: only
``RTM_GET*`` dumps, and ``link``'s empty ``RTM_NEWLINK`` probe the kernel refuses (no index, no
change, no create flag — ip asks whether the kernel knows ``RTM_NEWLINK`` at all).

Objects whose dump prints secrets are not here (``xfrm state`` prints IPsec keys), nor
``monitor`` (it runs until killed; ``monitor file`` reads a file). After a showing verb every
word is a filter (``dev``, ``table all``, ``scope global``, ``up``) and may be anything: it
cannot turn the dump into a change, and ip reads addresses as numbers only (a host name in a
filter looks nothing up: measured, unlike ``ss``). Words before it must be static and listed;
an ``xargs`` that appends words may only append filters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..facts import Effect
from .spec import Call, Command, Finding, Flag, Parsed, Takes

_COLORS = frozenset({"always", "auto", "never"})
_FAMILIES = frozenset({"inet", "inet6", "mpls", "bridge", "link"})


def _spellings(pattern: str) -> frozenset[str]:
    """``"sh[ow] lst"`` -> sh, sho, show, lst: each word and the prefixes its brackets allow."""
    out: set[str] = set()
    for word in pattern.split():
        head, _, tail = word.partition("[")
        tail = tail.rstrip("]")
        out.update(head + tail[:i] for i in range(len(tail) + 1))
    return frozenset(out)


# Global options, spelled with one dash or two: those that only change how the dump prints.
FLAGS = ("-4 -6 -0 -M -B -s[tatistics] -stats -d[etails] -h[uman-readable] -iec -j[son] -p[retty] "
         "-br[ief] -o[neline] -t[imestamp] -ts[hort] -N[umeric] -a[ll] -c[olor]")
_FLAGS = _spellings(FLAGS)
_FAMILY = _spellings("-f[amily]")
_COLOR = _spellings("-c[olor]")
_VERSION = _spellings("-V[ersion]")   # prints the version and exits before reading further
_REFUSED = {
    **dict.fromkeys(_spellings("-b[atch]"), "reads ip commands from a file and runs them"),
    **dict.fromkeys(_spellings("-n[etns]"), "runs in another network namespace"),
    **dict.fromkeys(_spellings("-r[esolve]"), "looks addresses up in DNS (network)"),
    **dict.fromkeys(_spellings("-fo[rce]"), "goes on after a failing -batch command"),
}

# object, its spellings, the verbs that only print it (no verb is the listing).
OBJECTS: dict[str, tuple[str, str]] = {name: (spelled, verbs) for name, spelled, verbs in (
        ("address", "a[ddress]", "s[how] l[ist] lst h[elp]"),
        ("addrlabel", "addrl[abel]", "s[how] l[ist] lst h[elp]"),
        ("maddress", "m[address]", "s[how] l[ist] lst h[elp]"),
        ("route", "r[oute]", "s[how] l[ist] lst g[et] h[elp]"),
        ("rule", "ru[le]", "s[how] l[ist] lst h[elp]"),
        ("neighbour", "n[eighbour] neighbor", "s[how] l[ist] lst h[elp]"),
        ("ntable", "nt[able] ntbl", "s[how] h[elp]"),
        ("link", "l[ink]", "sh[ow] l[ist] lst h[elp]"),
        ("tunnel", "t[unnel] tunl", "s[how] l[ist] lst h[elp]"),
        ("tuntap", "tunt[ap] tap", "s[how] l[ist] lst h[elp]"),
        ("mroute", "mr[oute]", "s[how] l[ist] lst h[elp]"),
        ("netns", "netn[s]", "l[ist] list-id h[elp]"),
        ("netconf", "netc[onf]", "s[how] h[elp]"),
        ("vrf", "vrf", "s[how] h[elp]"),
        ("nexthop", "nex[thop]", "s[how] l[ist] lst h[elp]"),
        ("stats", "st[ats]", "show help"),   # stats reads its verbs whole
    )}
_SPELLED = {name: (_spellings(o), _spellings(v)) for name, (o, v) in OBJECTS.items()}
_HELP = _spellings("h[elp]")
# `ip monitor` (ip reads `mo` on: `m` is maddress) and `ip netns monitor` print events
# until interrupted (measured: each still ran when `timeout 2` killed it), as `lsof -r` would.
_MONITOR = _spellings("mo[nitor]")
_FOREVER = "prints network events until interrupted (it never ends by itself)"
_NO_FILTERS = frozenset({"netns"})   # `netns list NAME`: no filter words, only the listing


def ip(call: Call) -> list[Finding]:
    """``ip [OPTIONS] OBJECT [SHOW-VERB [FILTER …]]``, ``ip [OBJECT] help``, ``ip -V``."""
    args = call.command.args

    def no(word_index: int | None, why: str) -> list[Finding]:
        span = (args[word_index] if word_index is not None else call.command.words[0]).span
        return [Finding(f"ip {why}", span, "readonly.subcommand")]

    i = 0
    while i < len(args) and args[i].text.startswith("-"):
        w = args[i]
        if not w.static:
            return no(i, "with an option known only at run time")
        if w.text == "--":
            i += 1
            break
        opt = w.text[1:] if w.text.startswith("--") else w.text
        name, eq, value = opt.partition("=")
        if name in _REFUSED:
            return no(i, f"{w.text} {_REFUSED[name]}")
        if eq and name in _COLOR and value in _COLORS:
            i += 1
        elif not eq and opt in _VERSION:
            return []
        elif not eq and opt in _FLAGS:
            i += 1
        elif not eq and opt in _FAMILY:
            if i + 1 >= len(args) or not args[i + 1].static or args[i + 1].text not in _FAMILIES:
                return no(i, f"{w.text} with a family that is not inet, inet6, mpls, bridge or link")
            i += 2
        else:
            return no(i, f"option {w.text} is not one that only changes how ip prints")
    if i >= len(args):
        return no(None, "with words appended at run time (xargs)") if call.wild_tail else []
    obj = args[i]
    if not obj.static:
        return no(i, "with an object known only at run time")
    if obj.text in _HELP:
        return []
    name = next((n for n, (spelled, _) in _SPELLED.items() if obj.text in spelled), None)
    if name is None:
        if obj.text in _MONITOR:
            return no(i, f"{obj.text} {_FOREVER}")
        return no(i, f"{obj.text}: not an object whose showing forms are read-only here")
    verbs = _SPELLED[name][1]
    rest = args[i + 1:]
    if not rest:
        return no(None, "with words appended at run time (xargs)") if call.wild_tail else []
    verb = rest[0]
    if not verb.static or verb.text not in verbs:
        if name == "netns" and verb.text == "monitor":   # (`ip route monitor` is an error)
            return no(i + 1, f"{obj.text} monitor {_FOREVER}")
        shows = ", ".join(re.sub(r"[][]", "", OBJECTS[name][1]).split()[:-1])
        return no(i + 1, f"{obj.text} {verb.text}: only {shows} print {name}")
    if name in _NO_FILTERS and (len(rest) > 1 or call.wild_tail):
        return no(i + 2 if len(rest) > 1 else None, f"{obj.text} {verb.text} takes no further words")
    return []


CUSTOM = {"ip": ip}


# ss (iproute2 6.1, getopt_long): sockets from netlink sock_diag and /proc. Its operands are
# leading `state NAME` / `exclude NAME` pairs (whole words, compared by strcmp), then a filter
# expression whose host names it resolves while parsing (measured: `ss -t dst example.com` and a
# bare `ss -t listening` ask DNS), so a filter word is read-only only when it is a keyword, an
# operator, a number, a numeric address or a :port (service names come from /etc/services), or a
# device after dev. A state name is a keyword only in a leading pair.
_SS_STATE_KEYS = frozenset({"state", "exclude", "excl"})
_SS_STATES = frozenset((
    "all", "connected", "unconnected", "synchronized", "bucket", "big", "established", "syn-sent",
    "syn-recv", "fin-wait-1", "fin-wait-2", "time-wait", "closed", "close-wait", "last-ack", "listening",
    "closing"))
_SS_WORDS = frozenset((
    "src", "dst", "sport", "dport", "dev", "fwmark", "autobound", "and", "or", "not", "(", ")", "!", "&",
    "|", "=", "==", "!=", ">", "<", ">=", "<=", "eq", "ne", "neq", "gt", "lt", "ge", "le"))
_SS_TOKEN = re.compile(r"[()!&|]|[^\s()!&|]+")
# glibc looks up without DNS only names of digits and dots, or holding a colon: `0x100` and
# `[cafe.be]` are asked of DNS (seen with a fake resolver), so a bracket must hold a colon and
# hex is a mark's value only, after `fwmark`.
_SS_NUMERIC = re.compile(
    r"(\*|[0-9]{1,3}(\.[0-9]{1,3}){0,3}|\[[0-9a-fA-F.]*:[0-9a-fA-F:.]*\]"
    r"|[0-9a-fA-F]*:[0-9a-fA-F:]*:[0-9a-fA-F:.]*)?(/[0-9]{1,3})?(:([0-9]{1,5}|[a-z][a-z0-9-]*|\*))?")
_SS_MARK = re.compile(r"(0x[0-9a-fA-F]+|[0-9]+)(/(0x[0-9a-fA-F]+|[0-9]+))?")
_SS_DEV = re.compile(r"[\w.:@-]{1,15}")


# ss asks the kernel (sock_diag) for each socket table it lists, and for a table whose diag
# module is not loaded the kernel loads it (module autoload, for any user): with no table
# chosen ss asks for DCCP and SCTP too (strace: their requests), which pulls in those protocols'
# modules. So the tables must be chosen, among the common ones, or only the summary printed.
_SS_TABLE_FLAGS = {"-t": "tcp", "-u": "udp", "-w": "raw", "-x": "unix", "-0": "packet", "-S": "sctp",
                   "-d": "dccp", "-M": "mptcp", "--tipc": "tipc", "--vsock": "vsock", "--xdp": "xdp"}
_SS_COMMON = frozenset({"tcp", "udp", "raw", "unix", "unix_dgram", "unix_stream", "unix_seqpacket",
                        "packet", "packet_raw", "packet_dgram", "netlink"})
_SS_COMMON_FAMILIES = frozenset({"unix", "netlink", "link"})


def _ss_tables(p: Parsed, call: Call) -> Iterable[Finding]:
    chosen = [(_SS_TABLE_FLAGS[o.flag.names[0]], o.word) for o in p.opts
              if o.flag.names[0] in _SS_TABLE_FLAGS]
    chosen += [(t.lower(), v) for v in p.values_of("-A") for t in v.text.split(",")]
    families = [(v.text.lower(), v) for v in p.values_of("-f")]
    families += [("inet", o.word) for o in p.opts if o.flag.names[0] in ("-4", "-6")]
    if chosen:
        odd = [(t, w) for t, w in chosen if t not in _SS_COMMON]
    elif families:
        odd = [(f, w) for f, w in families if f not in _SS_COMMON_FAMILIES]
    elif p.has("-h", "-V") or (p.has("-s") and not p.operands):   # -s alone: /proc's summary only
        return
    else:
        yield Finding("ss without -t/-u/-x/-w/-0 lists every socket table: asking the kernel for DCCP and "
                      "SCTP sockets makes it load their modules", call.command.words[0].span, "readonly.flag")
        return
    for table, w in odd:
        what = "every inet socket table (DCCP and SCTP too)" if table.startswith("inet") or table == "all" \
            else f"{table} sockets"
        yield Finding(f"ss lists {what}: the kernel loads a table's module when it is not loaded (choose -t, "
                      "-u, -x, -w or -0)", w.span, "readonly.flag")


def _ss_check(p: Parsed, call: Call) -> Iterable[Finding]:
    yield from _ss_tables(p, call)
    yield from _ss_filter(p, call)


def _ss_filter(p: Parsed, call: Call) -> Iterable[Finding]:
    words = list(p.operands)
    while (len(words) > 1 and words[0].static and words[0].text in _SS_STATE_KEYS
           and words[1].static and words[1].text in _SS_STATES):
        words = words[2:]
    after = ""
    for w in words:
        if not w.static:
            yield Finding("ss with a filter word known only at run time (a host name is looked up)",
                          w.span, "readonly.operand", Effect.NETWORK)
            continue
        for tok in _SS_TOKEN.findall(w.text):
            value = {"dev": _SS_DEV, "fwmark": _SS_MARK}.get(after)
            if not (tok in _SS_WORDS or _SS_NUMERIC.fullmatch(tok) or (value and value.fullmatch(tok))):
                yield Finding(f"ss filter word {tok!r} may be a host name: ss resolves it (DNS)", w.span,
                              "readonly.operand", Effect.NETWORK)
            after = tok
    if call.wild_tail:
        yield Finding("ss with filter words appended at run time (xargs)", call.command.words[0].span,
                      "readonly.operand", Effect.NETWORK)


SS = Command("ss", reads=False, check=_ss_check, safe=[
    Flag("-h", "--help"), Flag("-V", "--version"), Flag("-n", "--numeric"), Flag("-a", "--all"),
    Flag("-l", "--listening"), Flag("-o", "--options"), Flag("-e", "--extended"), Flag("-m", "--memory"),
    Flag("-p", "--processes"), Flag("-T", "--threads"), Flag("-i", "--info"), Flag("--tipcinfo"),
    Flag("-s", "--summary"), Flag("--tos"), Flag("--cgroup"), Flag("-b", "--bpf"),
    Flag("-Z", "--context"), Flag("-z", "--contexts"), Flag("-4", "--ipv4"), Flag("-6", "--ipv6"),
    Flag("-0", "--packet"), Flag("-t", "--tcp"), Flag("-M", "--mptcp"), Flag("-S", "--sctp"),
    Flag("-u", "--udp"), Flag("-d", "--dccp"), Flag("-w", "--raw"), Flag("-x", "--unix"), Flag("--tipc"),
    Flag("--vsock"), Flag("--xdp"), Flag("-f", "--family", takes=Takes.VALUE), Flag("-H", "--no-header"),
    Flag("-O", "--oneline"), Flag("--inet-sockopt"), Flag("-A", "--query", "--socket", takes=Takes.VALUE)],
    unsafe={Flag("-K", "--kill"): "closes the sockets it matches",
            # measured: `ss -tE` still runs when `timeout 2` kills it; `ss -t` exits at once
            Flag("-E", "--events"): "prints each socket as it closes, until interrupted (it never "
                                    "ends by itself)",
            Flag("-D", "--diag", takes=Takes.WRITE_PATH): "dumps raw socket information to a file",
            Flag("-N", "--net", takes=Takes.VALUE): "runs in another network namespace",
            Flag("-r", "--resolve"): "looks addresses up in DNS (network)",
            Flag("-F", "--filter", takes=Takes.PATH): "reads its filter from a file (a host name there is "
                                                      "looked up in DNS)"})

COMMANDS = (SS,)
