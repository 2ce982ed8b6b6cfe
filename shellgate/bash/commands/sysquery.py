"""Which process has what open, which process runs what: ``pidof`` (sysvinit-utils 3.06),
``netstat`` (net-tools 2.10) and ``lsof`` (4.95, Linux), each run under strace
(tests/test_sysquery.py): they read /proc and print.

What they may do besides, and what asks here:

* **Name lookups.** netstat and lsof print a host name for each address and a service name for
  each port, through the Name Service Switch: ``hosts: files dns`` asks a DNS server (measured:
  ``lsof -i``, ``netstat -a``, ``netstat -r`` send queries; ``-n`` stops them). A listing is
  read-only when its host and port numbers stay numbers (``-n``/``--numeric-hosts``, ``-P``/
  ``--numeric-ports``) or the database's sources are all local (``nss.remote``: ``services: db
  files`` is). ``lsof -t`` prints PIDs only and looks nothing up (print.c: the terse pass
  prints no file). An lsof ``-i`` host name (``@example.com``) or service name (``:https``) is
  looked up while the options are read, whatever ``-n`` says.
* **Repeating.** ``lsof -r``/``+r`` and ``netstat -c`` list again and again until interrupted.
* **Other services, other files.** lsof ``+M`` asks the RPC portmapper (a TCP connection, even
  with ``-n -P``: measured); ``+m PATH`` reads PATH as a mount supplement.
* **The system log.** pidof reports a bad ``-o`` value (not a PID, not ``%PPID``, an empty
  item) and an unknown option through syslog when its stdin is no terminal (killall5.c
  ``nsyslog``): a line written to the journal. Only PIDs and ``%PPID`` pass. One report stays
  out of reach: a process that exits between pidof opening and reading its ``/proc/PID/stat``
  is logged as ``can't read from PID/stat`` (a race, fixed text).

lsof has no device cache on Linux (``-D`` is "unsupported"; ``~/.lsof_HOST`` is never read):
``-D`` is refused as unknown.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ..facts import Effect
from ..ir import Span, Word
from . import nss
from .spec import Call, Command, Finding, Flag, Parsed, Takes, is_wild, may_split

V = Takes.VALUE

# --- pidof ----------------------------------------------------------------------------------------

_OMIT_ITEM = re.compile(r"%PPID|[1-9][0-9]{0,8}")


def _pidof(p: Parsed, call: Call) -> Iterable[Finding]:
    for v in p.values_of("-o"):
        items = re.split(r"[,;:]", v.text)
        if not v.static or not all(_OMIT_ITEM.fullmatch(i) for i in items):
            yield Finding(f"pidof -o {v.text}: an item that is not a PID or %PPID is reported through "
                          "syslog when stdin is no terminal (a line written to the system log)", v.span,
                          "readonly.flag", Effect.WRITE)


# killall5.c main_pidof: getopt "qhco:d:sxzn" (glibc: permuted). glibc ends the options at `--`,
# but tests/test_double_dash.py cannot see it (`pidof --help` and `pidof -- --help` both print
# nothing and fail), so `--` is refused as an unknown option here: it costs only that spelling.
PIDOF = Command("pidof", reads=False, abbrev=False, dashdash=False, check=_pidof, safe=[
    Flag("-c"), Flag("-h"), Flag("-n"), Flag("-q"), Flag("-s"), Flag("-x"), Flag("-z"),
    Flag("-d", takes=V), Flag("-o", takes=V)])

# --- netstat --------------------------------------------------------------------------------------

_NUMERIC = ("-n", "--numeric")
_WHAT = {"hosts": "host", "services": "port"}


def _netstat(p: Parsed, call: Call) -> Iterable[Finding]:
    """Host and port names of a listing (sockets, routes, groups, masquerade); statistics
    (``-s``) and the interface table (``-i``) print none."""
    if p.has("-s", "-i") and not p.has("-M"):
        return
    word = call.command.words[0].span
    for database, own in (("hosts", "--numeric-hosts"), ("services", "--numeric-ports")):
        if p.has(*_NUMERIC, own):
            continue
        why = nss.remote(database)
        if why is not None:
            yield Finding(f"netstat without -n or {own} looks {_WHAT[database]} names up ({why}: network)",
                          word, "readonly.network", Effect.NETWORK)


NETSTAT = Command("netstat", reads=False, max_operands=0, check=_netstat, safe=[
    Flag("-r", "--route"), Flag("-i", "--interfaces"), Flag("-g", "--groups"),
    Flag("-s", "--statistics"), Flag("-M", "--masquerade"), Flag("-v", "--verbose"),
    Flag("-W", "--wide"), Flag("-n", "--numeric"), Flag("--numeric-hosts"), Flag("--numeric-ports"),
    Flag("--numeric-users"), Flag("-e", "--extend"), Flag("-p", "--programs"), Flag("-o", "--timers"),
    Flag("-l", "--listening"), Flag("-a", "--all"), Flag("-F", "--fib"), Flag("-C", "--cache"),
    Flag("-Z", "--context"), Flag("-t", "--tcp"), Flag("-u", "--udp"), Flag("-U", "--udplite"),
    Flag("-S", "--sctp"), Flag("-w", "--raw"), Flag("-x", "--unix"), Flag("-4", "--inet"),
    Flag("-6", "--inet6"), Flag("-A", "--protocol", takes=V), Flag("-V", "--version"),
    Flag("-h", "--help")],
    unsafe={Flag("-c", "--continuous"): "lists again every second until interrupted"})

# --- lsof -----------------------------------------------------------------------------------------

# lsof's own GetOpt (main.c): a word starting with `-` or `+` (not `-`, `+`, `--`, `++`) is a
# cluster of option letters; the first other word ends the options (no permutation), and every
# word after it is a name. A letter with `:` in the rules takes the rest of its cluster, else the
# next word (never `--`); for the letters below (`_OPTIONAL`) lsof gives that word back when it
# starts with `-` or `+` (and `-L`/`-o`/`-r`/`-S` keep only a leading number of an attached one).
_SWITCH = frozenset("abhlnNOPQRtUvVwXE?")
_REQUIRED = frozenset("cdDepu")     # the value is taken whatever it is
_OPTIONAL = frozenset("fFgiKLosSTxZ")
_REFUSED = {
    "r": "repeats the listing until interrupted",
    "m": "reads a mount supplement file it names (+m PATH; +m alone prints one, -m is unsupported): "
         "not on the read-only list",
    "M": "+M asks the RPC portmapper (a TCP connection)",
    "D": "-D manages a device cache, which Linux lsof does not have (unsupported)",
    "A": "-A is an AFS option Linux lsof does not have", "C": "-C is not an option of Linux lsof",
    "k": "-k is not an option of Linux lsof", "z": "-z is not an option of Linux lsof",
}
_NUMBER = re.compile(r"[0-9]+")
_V4 = r"(?:[0-9]{1,3}\.){3}[0-9]{1,3}"
_PORTS = r"[0-9]+(?:-[0-9]+)?(?:,[0-9]+(?:-[0-9]+)?)*"
# -i [46][protocol][@hostaddr][:port list]: numbers only (a host or service name is looked up).
_INET = re.compile(rf"[46]?(?:tcp|udp|udplite)?(?:@(?:{_V4}|\[[0-9A-Fa-f:.]+\]))?(?::{_PORTS})?",
                   re.IGNORECASE)


def _no(word: Word | None, call: Call, why: str, effect: Effect = Effect.EXEC,
        rule: str = "readonly.flag") -> Finding:
    span: Span = (word or call.command.words[0]).span
    return Finding(f"lsof {why}", span, rule, effect)


def lsof(call: Call) -> list[Finding]:
    """``lsof [OPTIONS] [NAMES]`` read as lsof reads it (module docstring)."""
    args: Sequence[Word] = call.command.args
    out: list[Finding] = []
    hosts = ports = True     # the last -n/+n, -P/+P decides
    terse = False
    i = 0
    while i < len(args):
        w = args[i]
        if is_wild(w) or not w.static:
            out.append(_no(w, call, f"{w.text!r} may expand to an option (known only at run time)",
                           rule="readonly.wild"))
            return out
        t = w.text
        if len(t) < 2 or t[0] not in "-+":
            break
        i += 1
        if t in ("--", "++"):
            break
        sign, k = t[0], 1
        while k < len(t):
            c = t[k]
            k += 1
            if c in _REFUSED and (c not in "MD" or (sign == "+") == (c == "M")):
                out.append(_no(w, call, f"{sign}{c}: {_REFUSED[c]}",
                               Effect.NETWORK if c == "M" else Effect.EXEC))
                return out
            if c == "M" or c in _SWITCH:   # -M: no portmapper (the default)
                hosts = hosts if c != "n" else sign == "+"
                ports = ports if c != "P" else sign == "+"
                terse = terse or c in "tvh?"   # -v, -h: print and exit, listing nothing
                continue
            if c not in _REQUIRED and c not in _OPTIONAL:
                out.append(_no(w, call, f"{sign}{c}: not an option on the read-only list",
                               rule="readonly.unknown_flag"))
                return out
            if k < len(t):                      # the rest of the cluster is the value
                value, vword, k = t[k:], w, len(t)
            elif i < len(args) and args[i].text != "--":
                value, vword = args[i].text, args[i]
                if c in _OPTIONAL and (not vword.static or is_wild(vword)):
                    out.append(_no(vword, call, f"{sign}{c} {vword.text!r}: an optional value known only "
                                   "at run time may be an option", rule="readonly.wild"))
                    return out
                if c in _OPTIONAL and value[:1] in ("-", "+"):
                    value = None                # given back: read as options next
                else:
                    i += 1
                    if may_split(vword):
                        out.append(_no(vword, call, f"{sign}{c} {vword.text!r} may split into several "
                                       "words, one of them an option", rule="readonly.wild"))
                        return out
            else:
                value, vword = None, w
            if c == "i" and value is not None and not (vword.static and _INET.fullmatch(value)):
                out.append(_no(vword, call, f"-i {value}: a host or service name (or a spec not read "
                               "here) is looked up while lsof reads its options (network)",
                               Effect.NETWORK, "readonly.network"))
            if value is not None and c in "LoS" and not _NUMBER.fullmatch(value):
                # lsof keeps a leading number and reads the rest of that word as more options
                # (`-L 1r` is -L 1 -r), or as the first name when no number leads
                out.append(_no(vword, call, f"{sign}{c} {value}: only a plain number is read here (lsof "
                               "reads what follows a number as more options)"))
                return out
    if not terse:
        word = call.command.words[0]
        for database, on, flag in (("hosts", hosts, "-n"), ("services", ports, "-P")):
            why = nss.remote(database) if on else None
            if why is not None:
                out.append(_no(word, call, f"without {flag} looks {_WHAT[database]} names up "
                               f"({why}: network)", Effect.NETWORK, "readonly.network"))
    if call.wild_tail:
        out.append(_no(None, call, "with words appended at run time (xargs)", rule="readonly.wild"))
    return out


COMMANDS = (PIDOF, NETSTAT)
CUSTOM = {"lsof": lsof}
