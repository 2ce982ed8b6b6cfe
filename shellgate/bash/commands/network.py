"""Network clients: never read-only; NETWORK when they only talk, EXEC when they also write
local files or run local programs.

The engine puts network and exec in the same column of its matrix, so this split is about
honest labelling: ``curl -s URL | jq`` is "talks to the network", ``curl -o ~/.bashrc URL``
is not just that. Unknown flags fall back to EXEC (positive lists here too).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..facts import Effect
from .spec import Call, Command, Finding, Flag, Parsed, Takes, read_args

V = Takes.VALUE
W = Takes.WRITE_PATH
G = Takes.PROGRAM

CURL = Command(
    "curl", reads=False, effect=Effect.NETWORK,
    safe=[
        Flag("-s", "--silent"), Flag("-S", "--show-error"), Flag("-L", "--location"),
        Flag("-f", "--fail"), Flag("--fail-with-body"), Flag("-I", "--head"), Flag("-i", "--include"),
        Flag("-v", "--verbose"), Flag("-H", "--header", takes=V), Flag("-X", "--request", takes=V),
        Flag("-d", "--data", takes=V), Flag("--data-raw", takes=V), Flag("--data-binary", takes=V),
        Flag("--data-urlencode", takes=V), Flag("--json", takes=V), Flag("-A", "--user-agent", takes=V),
        Flag("-e", "--referer", takes=V), Flag("-m", "--max-time", takes=V),
        Flag("--connect-timeout", takes=V), Flag("--retry", takes=V), Flag("--retry-delay", takes=V),
        Flag("--retry-max-time", takes=V), Flag("-k", "--insecure"), Flag("-w", "--write-out", takes=V),
        Flag("-G", "--get"), Flag("--compressed"), Flag("-u", "--user", takes=V),
        Flag("-b", "--cookie", takes=V), Flag("--url", takes=V), Flag("-N", "--no-buffer"),
        Flag("-4", "--ipv4"), Flag("-6", "--ipv6"), Flag("--http1.1"), Flag("--http2"),
        Flag("-x", "--proxy", takes=V), Flag("--noproxy", takes=V), Flag("-F", "--form", takes=V),
        Flag("-#", "--progress-bar"), Flag("--max-redirs", takes=V), Flag("-h", "--help"),
        Flag("-V", "--version"), Flag("--ssl-no-revoke"), Flag("--location-trusted"),
    ],
    unsafe={
        Flag("-o", "--output", takes=W): "writes the download to a file",
        Flag("-O", "--remote-name"): "writes the download to a file",
        Flag("--remote-name-all"): "writes downloads to files",
        Flag("-J", "--remote-header-name"): "writes the download to a server-named file",
        Flag("--output-dir", takes=W): "writes downloads into a directory",
        Flag("-K", "--config", takes=Takes.PATH): "reads options from a file",
        Flag("-c", "--cookie-jar", takes=W): "writes cookies to a file",
        Flag("-D", "--dump-header", takes=W): "writes headers to a file",
        Flag("--trace", takes=W): "writes a trace file",
        Flag("--trace-ascii", takes=W): "writes a trace file",
        Flag("--libcurl", takes=W): "writes a C source file",
        Flag("--stderr", takes=W): "writes stderr to a file",
        Flag("-T", "--upload-file", takes=Takes.PATH): "uploads a local file",
        Flag("--create-dirs"): "creates directories",
        Flag("--etag-save", takes=W): "writes a file",
        Flag("--hsts", takes=W): "writes an HSTS cache file",
        Flag("--alt-svc", takes=W): "writes an alt-svc cache file",
    },
)


def _wget(p: Parsed, call: Call) -> Iterable[Finding]:
    to_stdout = any(v.text == "-" for v in p.values_of("-O", "--output-document"))
    if not to_stdout and not p.has("--spider", "-h", "--help", "-V", "--version"):
        return [Finding("wget writes the download to a file", call.command.span, "readonly.write")]
    return []


WGET = Command("wget", reads=False, effect=Effect.NETWORK, check=_wget, safe=[
    Flag("-q", "--quiet"), Flag("-O", "--output-document", takes=V), Flag("-S", "--server-response"),
    Flag("--spider"), Flag("-T", "--timeout", takes=V), Flag("-t", "--tries", takes=V),
    Flag("--header", takes=V), Flag("-U", "--user-agent", takes=V), Flag("--no-check-certificate"),
    Flag("-n", takes=V), Flag("--no-verbose"), Flag("--max-redirect", takes=V), Flag("-h", "--help"),
    Flag("-V", "--version")])

SSH = Command("ssh", reads=False, effect=Effect.NETWORK, permute=False, safe=[
    *(Flag(f"-{c}") for c in "46AaCfGgKkMNnqsTtVvXxY"), Flag("-l", takes=V), Flag("-p", takes=V),
    Flag("-i", takes=Takes.PATH), Flag("-b", takes=V), Flag("-c", takes=V), Flag("-m", takes=V),
    Flag("-E", takes=W), Flag("-e", takes=V), Flag("-Q", takes=V), Flag("-B", takes=V)],
    unsafe={
        Flag("-o", takes=V): "sets ssh options (ProxyCommand, LocalCommand run local programs)",
        Flag("-F", takes=Takes.PATH): "reads an ssh config file (it may run local programs)",
        Flag("-J", takes=V): "jumps through other hosts",
        Flag("-L", takes=V): "forwards ports", Flag("-R", takes=V): "forwards ports",
        Flag("-D", takes=V): "opens a SOCKS proxy", Flag("-w", takes=V): "forwards a tunnel device",
        Flag("-S", takes=V): "uses a control socket", Flag("-O", takes=V): "controls a master process",
        Flag("-W", takes=V): "forwards stdio",
    })

PINGS = tuple(Command(n, free=True, effect=Effect.NETWORK, reads=False)
              for n in ("ping", "ping6", "dig", "host", "nslookup", "traceroute", "whois", "telnet"))


def _nc(p: Parsed, call: Call) -> Iterable[Finding]:
    for w in call.command.args:
        t = w.text
        if t.startswith("--") and ("exec" in t or "sh-exec" in t or "lua" in t):
            return [Finding(f"nc {t} runs a program for the connection", w.span, "readonly.flag")]
        if t.startswith("-") and not t.startswith("--") and ("e" in t[1:] or "c" in t[1:]):
            return [Finding(f"nc {t} may run a program for the connection", w.span, "readonly.flag")]
    return []


NCS = tuple(Command(n, free=True, effect=Effect.NETWORK, check=_nc, reads=False)
            for n in ("nc", "ncat", "netcat"))

COMMANDS = (CURL, WGET, SSH, *PINGS, *NCS)

# Forms that print a text and exit before any transfer: strace shows no socket and no file
# written, even with a ~/.wgetrc naming a log file and an output document. curl is not here:
# it reads ~/.curlrc first even for --help, and a `stderr = FILE` line there writes FILE.
OFFLINE_FORMS: dict[str, frozenset[str]] = {"wget": frozenset({"-h", "--help", "-V", "--version"})}


def offline(call: Call) -> bool:
    """Is this network client's call one of its ``OFFLINE_FORMS`` (the flag alone)?"""
    args = call.command.args
    forms = OFFLINE_FORMS.get(call.command.name or "")
    return (forms is not None and len(args) == 1 and args[0].static and not args[0].glob
            and args[0].text in forms and not call.wild_tail)


LOOPBACK_HOSTS = frozenset(("127.0.0.1", "localhost", "::1"))
_URLS = {"curl": ("--url",), "wget": ()}          # flags whose value is a URL, besides operands
_PROXIES = {"curl": ("-x", "--proxy"), "wget": ()}


def loopback_only(cmd: Command, call: Call) -> bool:
    """Is every target of this curl/wget a loopback literal (``127.0.0.1``, ``localhost``,
    ``::1``/``[::1]``, any scheme, port and path; written out, nothing expanded at run time),
    with no proxy given? Only then may a caller whose commands have a loopback of their own
    (``Context.loopback``) take it for no network access."""
    if cmd.name not in _URLS:
        return False
    p = read_args(cmd, call.command.args, wild_tail=call.wild_tail, cwds=call.cwds,
                  line_writes=call.line_writes)
    if p.has(*_PROXIES[cmd.name]) or any(f.rule == "readonly.unknown_flag" for f in p.findings):
        return False  # (a refused flag such as -o is judged on its own: not a target)
    urls = [*p.operands, *p.values_of(*_URLS[cmd.name])]
    return bool(urls) and not call.wild_tail and all(w.static and _loopback_url(w.text) for w in urls)


def _loopback_url(text: str) -> bool:
    if any(c in text for c in "{}\\ \t\n") or ("[" in text and "[::1]" not in text):
        return False  # curl's URL globs ({a,b}, [1-3]) could name other hosts
    from urllib.parse import urlsplit  # (only a bash tool with its own loopback asks)

    try:
        host = urlsplit(text if "://" in text else "//" + text).hostname
    except ValueError:
        return False
    return host in LOOPBACK_HOSTS
