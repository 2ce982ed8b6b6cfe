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
* ``--admindir DIR``/``--root DIR`` choose the database read, and the database names the files
  printed: ``info/PKG.list`` (``-L``, ``-S``), ``info/PKG.FILE`` (``--control-show``),
  ``status`` (quoted in a parse error). A crafted tree whose ``info/x.list`` links to
  ``~/.ssh/id_rsa`` makes ``dpkg-query --admindir=tree -L x`` print the key (measured), and
  the sensitive-path scanner sees only ``tree``. Read-only only for the system's own database
  (``/var/lib/dpkg``, root ``/``). ``~/.dpkg.cfg`` may say the same (``admindir DIR``): dpkg
  reads it and hands the directory to dpkg-query in ``DPKG_ADMINDIR`` (measured: ``dpkg -L x``
  printed the key), so dpkg is read-only only while that file holds no option.
* Every action that changes the system (install, remove, purge, configure, unpack, selections,
  architectures, the available file, ``dpkg-deb``'s extract and build through dpkg) is refused;
  so is any option that names a program or a log. Options are spelled in full (libdpkg's
  ``myopt`` takes no abbreviation) and end at the first operand.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from ..facts import Effect
from .info import pager_unless
from .pathsearch import lookup
from .spec import Call, Command, Finding, Flag, Parsed, Takes
from .targets import expand_home

V, P = Takes.VALUE, Takes.PATH
_PAGER = pager_unless("--no-pager", lambda p: p.has("-l"))
# The system's database, the only one read-only here (root-owned: its lists are dpkg's own).
_SYSTEM = {"--admindir": "/var/lib/dpkg", "--root": "/"}
_USER_CFG = ".dpkg.cfg"
_MAX_CFG = 1 << 16


def _database(p: Parsed, call: Call) -> Iterable[Finding]:
    """``--admindir``/``--root`` other than the system's: the files the crafted database
    names (``info/x.list`` a link to a key) are printed."""
    for o in p.opts:
        system = next((v for k, v in _SYSTEM.items() if k in o.flag.names), None)
        if system is None:
            continue
        for v in o.values:
            path = os.path.normpath(expand_home(v.text, call.ctx)) if v.static else None
            if path is None or path != system:
                yield Finding(f"{call.command.name} {o.spelled} {v.text}: a package database other than "
                              f"the system's ({system}) names the files printed (a crafted one links them "
                              "to any file, a secret too)", v.span, "readonly.operand")


def _PAGES(p: Parsed, call: Call) -> Iterable[Finding]:
    yield from _PAGER(p, call)
    yield from _database(p, call)


def _user_cfg(call: Call) -> str | None:
    """Why ``~/.dpkg.cfg`` may change what dpkg does (any option line: ``admindir``, ``root``),
    or None when it is missing or holds only blank and comment lines."""
    path = os.path.join(str(call.ctx.home), _USER_CFG)
    from ..._plain import read_head

    try:
        data = read_head(path, _MAX_CFG + 1)   # a FIFO: NotPlain, "could not be read now"
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        return f"{path} could not be read now"
    if len(data) > _MAX_CFG:
        return f"{path} is too large to read here"
    for line in data.splitlines():
        line = line.strip()
        if line and not line.startswith(b"#"):
            return f"{path} sets {line.split()[0].decode('utf-8', 'replace')!r}"
    return None
_QUERY = [Flag("-s", "--status"), Flag("-p", "--print-avail"), Flag("-L", "--listfiles"),
          Flag("-l", "--list"), Flag("-S", "--search")]
_WHERE = [Flag("--admindir", takes=P), Flag("--root", takes=P), Flag("--no-pager")]
_HELP = [Flag("-?", "--help"), Flag("--version")]

DPKG_QUERY = Command("dpkg-query", reads=False, permute=False, abbrev=False, check=_PAGES, safe=[
    *_QUERY, *_WHERE, *_HELP, Flag("-W", "--show"), Flag("--control-list"), Flag("--control-show"),
    Flag("-c", "--control-path"), Flag("--load-avail"), Flag("-f", "--showformat", takes=V)])


def _dpkg(p: Parsed, call: Call) -> Iterable[Finding]:
    yield from _PAGES(p, call)
    why = _user_cfg(call)
    if why is not None:
        yield Finding(f"dpkg reads options from ~/{_USER_CFG} ({why}: admindir or root there make it "
                      "print files a crafted database names)", call.command.words[0].span, "readonly.config")
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
