"""Kernel tunables, I/O and CPU statistics and PCI devices, read from /proc and /sys: procps
``sysctl`` (4.0.2), sysstat's ``iostat``, ``mpstat`` and ``pidstat`` (12.6) and pciutils'
``lspci`` (3.9), added for #17.

Each read-only form was run under ``strace -f`` in a scratch HOME and cwd
(tests/test_kernelstats.py, corpus/kernelstats.jsonl): it executes only itself, opens nothing
to write, makes or removes nothing and connects nowhere. What asks, and why:

* ``sysctl`` writes a setting given as ``NAME=VALUE`` (with or without ``-w``) and loads files
  of them (``-p``/``-f``/``--load``, ``--system``). A name is read under /proc/sys with its dots
  and slashes swapped, so ``..`` cannot climb out of it (measured: "separators should not be
  repeated"); a name known only at run time may hold ``=``.
* ``pidstat -e PROGRAM ARGS`` runs PROGRAM to watch it. sysstat reads its own argv (no getopt):
  ``+f DIR`` is an option there, a bundle holds switches only, and ``--`` is no end of options.
* ``lspci -q``/``-qq``/``-Q`` ask the PCI ID database over DNS and keep the answers in
  ``~/.pciids-cache``; ``-M`` (bus mapping) and ``-H`` (direct port access) poke the
  hardware, ``-xxx`` reads the whole config space, which lspci(8) calls dangerous (some
  devices crash); ``-A`` picks an access method (direct port access among them) and ``-O``
  sets its parameters (paths, the cache file).

Repeating reports (``iostat 2``, ``mpstat 1``) run until interrupted as ``vmstat 1`` does.
"""

from __future__ import annotations

from collections.abc import Iterable

from .spec import Call, Command, Finding, Flag, Parsed, Takes

V, P = Takes.VALUE, Takes.PATH
_WRITES = "writes kernel settings"

# --- sysctl -------------------------------------------------------------------------------------


def _sysctl(p: Parsed, call: Call) -> Iterable[Finding]:
    """A name is a path below /proc/sys; only procps 4's own check ("not under /proc/sys") keeps
    ``kernel/../../../home/u/.ssh/id_rsa`` inside, so a name with ``/`` or ``..`` is not on the
    list whatever the installed procps does (dotted names need neither)."""
    for w in p.operands:
        if not w.static or "=" in w.text:
            yield Finding(f"sysctl {w.text}: NAME=VALUE writes a kernel setting (a name known only at "
                          "run time may hold one)", w.span, "readonly.operand")
        elif "/" in w.text or ".." in w.text:
            yield Finding(f"sysctl {w.text}: a name with / or .. is a path that may leave /proc/sys "
                          "(not on the read-only list)", w.span, "readonly.operand")


SYSCTL = Command("sysctl", reads=False, check=_sysctl, safe=[
    Flag("-a", "--all"), Flag("-A"), Flag("-X"), Flag("--deprecated"), Flag("-b", "--binary"),
    Flag("-e", "--ignore"), Flag("-N", "--names"), Flag("-n", "--values"), Flag("-q", "--quiet"),
    Flag("-r", "--pattern", takes=V), Flag("-o"), Flag("-x"), Flag("-d"), Flag("-h", "--help"),
    Flag("-V", "--version")],
    unsafe={Flag("-w", "--write"): _WRITES, Flag("-p", "--load", takes=P, optional=True): _WRITES,
            Flag("-f", takes=P, optional=True): _WRITES,
            Flag("--system"): "writes kernel settings from every sysctl.d file",
            Flag("--dry-run"): "is a form of writing settings (not on the read-only list)"})

# --- sysstat ------------------------------------------------------------------------------------

_DEC = Flag("--dec", takes=V)
_JSON = Flag("-o", takes=V)


def _plus_options(p: Parsed, call: Call) -> Iterable[Finding]:
    for w in p.operands:
        if not w.static or w.text.startswith("+"):
            yield Finding(f"{call.command.name} {w.text}: sysstat reads a word starting with + as an "
                          "option (+f DIR reads statistics from DIR); not on the read-only list",
                          w.span, "readonly.operand")


# iostat: [DEVICE…|ALL] [interval [count]]; -p's device list is taken when the next word does
# not start with a digit.
IOSTAT = Command("iostat", reads=False, abbrev=False, dashdash=False, check=_plus_options, safe=[
    *(Flag(f"-{c}") for c in "cdhkmNstVxyzH"), Flag("-f", takes=P), Flag("-j", takes=V),
    Flag("-g", takes=V), Flag("-p", takes=V, peek=r"[^0-9-].*"), Flag("--compact"), _DEC,
    Flag("--human"), Flag("--pretty"), _JSON])
MPSTAT = Command("mpstat", reads=False, abbrev=False, dashdash=False, max_operands=2,
                 check=_plus_options, safe=[
    *(Flag(f"-{c}") for c in "AnTuV"), Flag("-I", takes=V), Flag("-N", takes=V), Flag("-P", takes=V),
    _DEC, _JSON])
PIDSTAT = Command("pidstat", reads=False, abbrev=False, dashdash=False, max_operands=2,
                  check=_plus_options, safe=[
    *(Flag(f"-{c}") for c in "dHhIlRrstuVvw"), Flag("-C", takes=V), Flag("-G", takes=V),
    Flag("-p", takes=V), Flag("-T", takes=V), Flag("-U", takes=V, peek=r"[^0-9-].*"), _DEC,
    Flag("--human")],
    unsafe={Flag("-e"): "runs the program that follows to watch it"})

# --- lspci --------------------------------------------------------------------------------------


def _lspci(p: Parsed, call: Call) -> Iterable[Finding]:
    hex_dumps = [o for o in p.opts if o.flag.names[0] == "-x"]
    if len(hex_dumps) > 2:
        yield Finding("lspci -xxx reads the whole config space, which lspci(8) calls dangerous (some "
                      "devices crash)", hex_dumps[2].word.span, "readonly.flag")


_DNS = "asks the PCI ID database over DNS (network) and keeps the answers in ~/.pciids-cache"
LSPCI = Command("lspci", reads=False, abbrev=False, max_operands=0, check=_lspci, safe=[
    *(Flag(f"-{c}") for c in "mtvkxbDPnG"), Flag("-s", takes=V), Flag("-d", takes=V),
    Flag("-i", takes=P), Flag("-p", takes=P), Flag("-F", takes=P)],
    unsafe={Flag("-q"): _DNS, Flag("-Q"): _DNS,
            Flag("-M"): "enables bus mapping (probes the hardware; lspci(8): dangerous)",
            Flag("-H", takes=V): "uses direct hardware access (I/O ports)",
            Flag("-A", takes=V): "picks a PCI access method (direct port access among them)",
            Flag("-O", takes=V): "sets access parameters (paths, the ID cache file)"})

COMMANDS = (SYSCTL, IOSTAT, MPSTAT, PIDSTAT, LSPCI)
