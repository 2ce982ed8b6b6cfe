"""``tshark -r FILE …``: reading a capture file and printing packets, fields or statistics.

Measured with ``strace -f`` (TShark 4.0.17, Debian 12), scratch HOME and XDG_CONFIG_HOME, a
four-packet pcap written with Python's struct:

* ``tshark -n -r a.pcap`` with ``-q -z STAT`` (every family allowed below), ``-Y``/``-R``/``-2``,
  ``-T fields|json -e … -E …``, ``-V -x``, ``-t ad -P -l -c 2``, bundled ``-nqr a.pcap``,
  ``--vers``/``--col`` (getopt_long: long options abbreviate, short ones bundle): it executes
  only itself, opens nothing for writing, creates no file or directory (not even
  ``~/.config/wireshark``), and opens no socket but the C library's nscd probe. It reads
  ``IOR.txt`` in the cwd if present (GIOP dissector data, not code).
* The extcap programs (system ``/usr/lib/x86_64-linux-gnu/wireshark/extcap``, personal
  ``~/.local/lib/wireshark/extcap``) are not run by ``-r``; they are run (with sockets:
  androiddump asks adb on localhost) by ``-D``, by ``-G`` with no report and by ``-z help``,
  and a capture (``-i``, ``-L`` …) runs them or dumpcap. Those are refused.
* Lua runs at every start: the system ``/usr/share/wireshark/init.lua``, then the personal
  ``init.lua`` and every ``*.lua`` in the personal plug-in dirs. A planted
  ``~/.config/wireshark/init.lua``, ``~/.config/wireshark/plugins/x.lua``,
  ``~/.local/lib/wireshark/plugins/x.lua`` and (when ``~/.config/wireshark`` is missing) the
  legacy ``~/.wireshark/init.lua`` and ``~/.wireshark/plugins/x.lua`` all ran under
  ``tshark -n -r a.pcap``, as root and as uid 65534 alike (``run_user_scripts_when_superuser``
  is true in the shipped init.lua; "superuser" there means setuid, not uid 0).
* The personal config dir also holds ``preferences`` (key files, name resolution: network),
  ``pkcs11_libs`` (shared objects to load), ``maxmind_db_paths`` (runs mmdbresolve) and
  profiles. So tshark is read-only only while none of the personal Wireshark directories
  exists (checked at decision time in the Context's home, failing closed when a lookup
  errs), no ``WIRESHARK_*_DIR`` variable re-points them, and no write of the same line lands
  in or above one of them.

Options are a positive list; ``-z`` only the statistic families measured above; ``-N`` without
``n``/``N`` (DNS, external resolver).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..facts import Effect
from .spec import Call, Command, Finding, Flag, Parsed, Takes, within

V, P, W = Takes.VALUE, Takes.PATH, Takes.WRITE_PATH

_ENV = ("WIRESHARK_CONFIG_DIR", "WIRESHARK_DATA_DIR", "WIRESHARK_PLUGIN_DIR", "WIRESHARK_EXTCAP_DIR",
        "WIRESHARK_RUN_FROM_BUILD_DIRECTORY")
# -z families whose output was measured (printing only); a form is FAMILY or FAMILY,…
_STATS = ("io,phs", "io,stat,", "conv,eth", "conv,ip", "conv,ipv6", "conv,tcp", "conv,udp",
          "endpoints,eth", "endpoints,ip", "endpoints,ipv6", "endpoints,tcp", "endpoints,udp",
          "follow,tcp,", "follow,udp,", "follow,http,", "follow,tls,", "http,tree", "http_req,tree",
          "http_srv,tree", "expert", "dns,tree", "ptype,tree", "ip_hosts,tree", "plen,tree")


def personal_dirs(home: Path) -> list[Path]:
    """The personal Wireshark directories tshark reads code and settings from."""
    dirs = [home / ".config" / "wireshark", home / ".wireshark", home / ".local" / "lib" / "wireshark"]
    xdg = os.environ.get("XDG_CONFIG_HOME")
    if xdg:
        dirs.append(Path(xdg) / "wireshark")
    return dirs


def _present(d: Path) -> str | None:
    """Why ``d`` may hold something tshark runs, or None when it surely does not exist."""
    try:
        os.lstat(d)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        return f"{d} could not be inspected ({type(exc).__name__})"
    return f"{d} exists (tshark runs its init.lua and Lua plug-ins, and reads its preferences)"


def _stat_ok(text: str) -> bool:
    return any(text == s or (s.endswith(",") and text.startswith(s)) or
               (not s.endswith(",") and text.startswith(s + ",")) for s in _STATS)


def _check(p: Parsed, call: Call) -> Iterable[Finding]:
    span = call.command.words[0].span
    if not p.has("-r") and not p.has("-v", "-h"):
        yield Finding("tshark without -r FILE captures live from an interface (network, runs dumpcap "
                      "and extcap programs)", span, "readonly.flag", Effect.NETWORK)
    for w in p.values_of("-z"):
        if not w.static or not _stat_ok(w.text):
            yield Finding(f"tshark -z {w.text}: not a statistic checked to only print (-z help runs "
                          "extcap programs)", w.span, "readonly.flag")
    for w in p.values_of("-N"):
        if not w.static or "n" in w.text or "N" in w.text:
            yield Finding(f"tshark -N {w.text} resolves network names (DNS: network)", w.span,
                          "readonly.flag", Effect.NETWORK)
    for name in _ENV:
        if os.environ.get(name):
            yield Finding(f"{name} is set: tshark loads code or settings from there", span,
                          "readonly.program")
    dirs = personal_dirs(call.ctx.home)
    for d in dirs:
        why = _present(d)
        if why is not None:
            yield Finding(f"tshark: {why}", span, "readonly.program")
    writes = call.line_writes
    if writes is None:
        yield Finding("tshark: a write of this line whose target is not known may plant a Lua plug-in",
                      span, "readonly.program")
        return
    for wpath in writes:
        for d in dirs:
            if within(wpath, str(d)) or within(str(d), wpath):
                yield Finding(f"tshark: this line writes {wpath}, where tshark loads Lua code from "
                              f"({d})", span, "readonly.program")


_CAPTURE = "captures live from an interface (network; runs dumpcap and extcap programs)"
# --read-file, --display-filter and --read-filter are in TShark 4.0's --help but not in its
# option table: "unrecognized option", and the usage it prints lists the interfaces, running
# every extcap program (the fuzz campaign found `tshark --read-file=x`, seed 20261215). Only the
# letters are declared; the long spellings are unknown, so refused.
TSHARK = Command("tshark", max_operands=0, reads=False, check=_check,
                 extra_operand="reads an operand as a capture filter (only -r FILE is checked)", safe=[
    Flag("-r", takes=P), Flag("-n"), Flag("-q"), Flag("-Q"), Flag("-z", takes=V),
    Flag("-Y", takes=V), Flag("-R", takes=V), Flag("-2"),
    Flag("-T", takes=V), Flag("-e", takes=V), Flag("-E", takes=V), Flag("-V"), Flag("-x"),
    Flag("-c", takes=V), Flag("-t", takes=V), Flag("-P", "--print"), Flag("-S", takes=V), Flag("-l"),
    Flag("-N", takes=V), Flag("-d", takes=V), Flag("-O", takes=V), Flag("-j", takes=V),
    Flag("-J", takes=V), Flag("-u", takes=V), Flag("--color"), Flag("--no-duplicate-keys"),
    Flag("-v", "--version"), Flag("-h", "--help")],
    unsafe={
    Flag("-w", takes=W): "writes a capture file",
    Flag("-i", "--interface", takes=V): _CAPTURE, Flag("-D", "--list-interfaces"): _CAPTURE,
    Flag("-L", "--list-data-link-types"): _CAPTURE, Flag("-f", takes=V): _CAPTURE,
    Flag("-k"): _CAPTURE, Flag("-I", "--monitor-mode"): _CAPTURE,
    Flag("-p", "--no-promiscuous-mode"): _CAPTURE,
    Flag("-s", "--snapshot-length", takes=V): _CAPTURE, Flag("-y", "--linktype", takes=V): _CAPTURE,
    Flag("-B", "--buffer-size", takes=V): _CAPTURE, Flag("--list-time-stamp-types"): _CAPTURE,
    Flag("--time-stamp-type", takes=V): _CAPTURE,
    Flag("-X", takes=V): "runs Lua (-X lua_script:FILE) or changes extensions",
    Flag("-o", takes=V): "sets a preference (preferences name key files, resolvers and more)",
    Flag("-K", takes=P): "reads a Kerberos keytab (a secret)",
    Flag("-H", takes=P): "reads a hosts file (not checked)",
    Flag("--export-objects", takes=V): "writes the exported objects to a directory",
    Flag("-b", "--ring-buffer", takes=V): "writes ring-buffer capture files",
    Flag("-a", "--autostop", takes=V): "is a capture option (not checked)",
    Flag("-F", takes=V): "sets the format of a written capture file",
    Flag("-W", takes=V): "writes extra information to a capture file",
    Flag("-G", takes=V): "prints glossaries (with no report it runs the extcap programs)",
    Flag("-C", takes=V): "selects a personal configuration profile (not checked)",
    Flag("-g"): "makes written files group-readable",
    Flag("-M", takes=V): "is a capture-file writing option",
    Flag("-U", takes=V): "exports PDUs to a capture file",
    Flag("--capture-comment", takes=V): "adds a comment to a written capture file",
    Flag("--temp-dir", takes=V): "sets where temporary capture files are written",
    Flag("--elastic-mapping-filter", takes=V): "is not checked",
    Flag("--enable-protocol", takes=V): "is not checked",
    Flag("--disable-protocol", takes=V): "is not checked",
    Flag("--enable-heuristic", takes=V): "is not checked",
    Flag("--disable-heuristic", takes=V): "is not checked",
    Flag("--update-interval", takes=V): _CAPTURE,
    Flag("--export-tls-session-keys", takes=W): "writes TLS session keys to a file",
    Flag("--log-file", takes=W): "writes a log file",
    Flag("--hexdump", takes=V): "is not checked",
    **{Flag(f"--log-{n}", takes=V): "is not checked"
       for n in ("debug", "domains", "fatal", "level", "noisy")},
    })

COMMANDS = (TSHARK,)
