"""Debian package queries: ``dpkg-query`` and the query actions of ``dpkg`` (dpkg 1.21), run
under strace as root (tests/test_sysquery.py): they read /var/lib/dpkg and print.

* ``dpkg -l/-L/-S/-s/-p`` are not dpkg's own: dpkg execs ``dpkg-query`` (found on PATH) with
  them, so a PATH that searches a relative directory first runs the workspace's file.
* ``dpkg-query -l`` (and so ``dpkg -l``) pipes its list into ``$DPKG_PAGER``/``$PAGER`` when
  stdout is a terminal, unless ``--no-pager`` (measured on a pty: only ``-l`` pages, not ``-L``,
  ``-s``, ``-p``, ``-S``, ``-W``, ``-c``): read-only only where no pager can start.
* dpkg reads ``/etc/dpkg/dpkg.cfg.d``, ``/etc/dpkg/dpkg.cfg`` and ``~/.dpkg.cfg`` (options, one a
  line); the hooks and logs they may set (``pre-invoke``, ``status-logger``, ``log``) act on
  package changes only, which no listed action makes. dpkg-query reads none.
* Every action that changes the system (install, remove, purge, configure, unpack, selections,
  architectures, the available file, ``dpkg-deb``'s extract and build through dpkg) is refused;
  so is any option that names a program or a log. Options are spelled in full (libdpkg's
  ``myopt`` takes no abbreviation) and end at the first operand.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..facts import Effect
from .info import pager_unless
from .pathsearch import lookup
from .spec import Call, Command, Finding, Flag, Parsed, Takes

V, P = Takes.VALUE, Takes.PATH
_PAGES = pager_unless("--no-pager", lambda p: p.has("-l"))
_QUERY = [Flag("-s", "--status"), Flag("-p", "--print-avail"), Flag("-L", "--listfiles"),
          Flag("-l", "--list"), Flag("-S", "--search")]
_WHERE = [Flag("--admindir", takes=P), Flag("--root", takes=P), Flag("--no-pager")]
_HELP = [Flag("-?", "--help"), Flag("--version")]

DPKG_QUERY = Command("dpkg-query", reads=False, permute=False, abbrev=False, check=_PAGES, safe=[
    *_QUERY, *_WHERE, *_HELP, Flag("-W", "--show"), Flag("--control-list"), Flag("--control-show"),
    Flag("-c", "--control-path"), Flag("--load-avail"), Flag("-f", "--showformat", takes=V)])


def _dpkg(p: Parsed, call: Call) -> Iterable[Finding]:
    yield from _PAGES(p, call)
    if p.has("-l", "-L", "-S", "-s", "-p"):
        path, why = lookup("dpkg-query")
        if path is None or not path.startswith("/"):
            yield Finding(f"dpkg runs dpkg-query for this action, found on PATH: {why}",
                          call.command.words[0].span, "readonly.program")


_CHANGES = "changes the installed packages or dpkg's database"
_UNSAFE: dict[Flag, str | tuple[str, Effect]] = {
    **{Flag(*names): _CHANGES for names in (
        ("-i", "--install"), ("--unpack",), ("-A", "--record-avail"), ("--configure",),
        ("--triggers-only",), ("-r", "--remove"), ("-P", "--purge"), ("--set-selections",),
        ("--clear-selections",), ("--update-avail",), ("--merge-avail",), ("--clear-avail",),
        ("--forget-old-unavail",), ("--add-architecture",), ("--remove-architecture",))},
    **{Flag(*names): "runs dpkg-deb on an archive (extracting or building writes files)" for names in (
        ("-b", "--build"), ("-c", "--contents"), ("-e", "--control"), ("-I", "--info"),
        ("-f", "--field"), ("-x", "--extract"), ("-X", "--vextract"), ("--ctrl-tarfile",),
        ("--fsys-tarfile",))},
    Flag("--pre-invoke", takes=V): "sets a hook command dpkg runs",
    Flag("--post-invoke", takes=V): "sets a hook command dpkg runs",
    Flag("--status-logger", takes=V): "sends status updates to a command it runs",
    Flag("--log", takes=Takes.WRITE_PATH): "appends to a log file",
}
DPKG = Command("dpkg", reads=False, permute=False, abbrev=False, check=_dpkg, unsafe=_UNSAFE, safe=[
    *_QUERY, *_WHERE, *_HELP, Flag("--get-selections"), Flag("--print-architecture"),
    Flag("--print-foreign-architectures"), Flag("-C", "--audit"), Flag("--compare-versions")])

COMMANDS = (DPKG_QUERY, DPKG)
