"""``python -I -m shellgate.sandbox.confine [--write P]… [--hide P]… [--protect P]… [--net]
[--scratch BYTES] -- PROGRAM …``, or ``… --undo ANCHOR//REST …`` (:func:`.guard.undo_created`:
after a bwrap line)

The Landlock tier of a hook's confined line (:mod:`.enforce`): run ``PROGRAM`` restricted by
Landlock (read everywhere but the hidden paths, write only under ``--write`` roots, TCP only
with ``--net``, plus a private ``TMPDIR``) and the seccomp filter, from a restricted spawner
thread (:mod:`.spawner`).
Landlock cannot make a path inside a writable root read-only, so a process outside the
restriction stays the command's parent: it records the ``--protect`` paths before the command
and puts them back after it (:mod:`.guard`), reporting each undo on stderr — the implant threat
is code that runs later, outside the sandbox. Before that it kills whatever the command left
running (it is the reaper of the command's orphans, :mod:`.reaper`), which could write after
the check. That parent is a guardian out of the line's process group and tree (``setsid``,
double fork): the agent's timeout kills the line's group or tree, which ends only this
process, the relay — the guardian sees its pipe close, kills the command and restores all the
same. The private ``TMPDIR`` is a directory in the host's ``/tmp``: with ``--scratch`` the
guardian watches it (:mod:`.scratch`; the line sets RLIMIT_FSIZE in the command's script) and
kills the whole tree once it holds more, saying so. The relay forwards SIGINT, SIGTERM and
SIGHUP to the command, prints the guardian's report on stderr and exits with the command's
status. stdin, stdout, stderr and fd 3 (the line's cwd report) are the command's own. Any
failure to set up exits 126 with a reason and runs nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import TextIO

from .._record import record

_OPTS = {"--write": "write", "--hide": "hide", "--protect": "protect"}


@record
class _Args:
    paths: dict[str, list[Path]]
    network: bool
    scratch: int      # bytes the command's TMPDIR may hold (0: no cap)
    program: list[str]


def _parse(argv: list[str]) -> _Args:
    paths: dict[str, list[Path]] = {v: [] for v in _OPTS.values()}
    network = False
    scratch = 0
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return _Args(paths, network, scratch, argv[i + 1:])
        if arg == "--net":
            network = True
        elif arg in _OPTS and i + 1 < len(argv):
            paths[_OPTS[arg]].append(Path(argv[i + 1]))
            i += 1
        elif arg == "--scratch" and i + 1 < len(argv) and argv[i + 1].isdigit():
            scratch = int(argv[i + 1])
            i += 1
        else:
            raise ValueError(f"unknown argument {arg!r}")
        i += 1
    raise ValueError("no program after --")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--undo"]:   # after a bwrap line: what it made at missing protected paths
        from .guard import undo_created

        for violation in undo_created(tuple(argv[1:])):
            print(f"shellgate: {violation}", file=sys.stderr)
        return 0
    try:
        args = _parse(argv)
        if not args.program:
            raise ValueError("no program after --")
    except ValueError as exc:
        print(f"shellgate: not run: the sandbox could not be set up ({exc})", file=sys.stderr)
        return 126
    report_r, report_w = os.pipe()   # the guardian's report to us
    alive_r, alive_w = os.pipe()     # our life: the guardian sees EOF when we die
    first = os.fork()
    if first == 0:   # pragma: no cover - the guardian, tested by its effects
        os.close(report_r)
        os.close(alive_w)
        os.setsid()      # out of the line's process group …
        if os.fork():
            os._exit(0)  # … and out of its process tree
        try:
            _guardian(args, os.fdopen(report_w, "w", buffering=1), alive_r)
        finally:
            os._exit(0)
    os.close(report_w)
    os.close(alive_r)
    os.waitpid(first, 0)
    for fd in (0, 1, 3):   # the command has them; ours would keep the line's pipes open
        if _is_open(fd):
            os.close(fd)
    return _relay(os.fdopen(report_r))


def _relay(report: TextIO) -> int:
    """This process's part: forward the signals the line gets to the command, print the
    guardian's report, exit with the command's status."""
    child: list[int] = []
    pending: list[int] = []

    def forward(signum: int, _frame: object) -> None:
        if child:
            with contextlib.suppress(OSError):
                os.kill(child[0], signum)
        else:
            pending.append(signum)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, forward)
    code = 126
    for line in report:
        try:
            kind, value = json.loads(line)
        except ValueError:
            continue
        if kind == "pid":
            child.append(int(value))
            for signum in pending:
                forward(signum, None)
        elif kind == "exit":
            code = int(value)
        else:
            print(f"shellgate: {value}", file=sys.stderr)
    return code


def _guardian(args: _Args, report: TextIO, alive: int) -> None:
    """The command's parent, outside the line's process group and tree: a group kill or a tree
    walk by the agent ends the relay, never this. It records the protected paths, runs the
    command restricted, and when the command ends — or the relay dies first (the agent's
    timeout, an interrupt), and then it kills the command — kills whatever the command left
    running (it is the reaper of their orphans) and puts the protected paths back. While the
    command runs it watches its TMPDIR, a directory in the host's ``/tmp``, against
    ``--scratch`` (:class:`.scratch.Watch`): past it, the whole tree is killed and the report
    says so."""
    paths, network, program = args.paths, args.network, args.program
    def say(kind: str, value: object) -> None:
        with contextlib.suppress(OSError, ValueError):
            report.write(json.dumps([kind, value]) + "\n")

    stdio = [os.dup(fd) for fd in (0, 1, 2)]
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):   # the line's pipes stay open only as long as the command holds them
        os.dup2(null, fd)
    tmp = ""
    try:
        from . import reaper
        from .guard import Guard
        from .spawner import Spawner

        if not reaper.enable():
            raise OSError("cannot become the reaper of the command's orphans (PR_SET_CHILD_SUBREAPER)")
        guard = Guard(tuple(paths["protect"]), roots=tuple(paths["write"]))
        tmp = tempfile.mkdtemp(prefix="shellgate-hook-")   # the command's own TMPDIR
        spawner = Spawner((*paths["write"], Path(tmp)), tuple(paths["hide"]), network)
        fds = tuple(fd for fd in (3,) if _is_open(fd))
        child = spawner.popen(program, pass_fds=fds, stdin=stdio[0], stdout=stdio[1], stderr=stdio[2],
                              env={**os.environ, "TMPDIR": tmp})
        born = reaper.birth(child.pid)
        pidfd = os.pidfd_open(child.pid)
    except Exception as exc:  # noqa: BLE001 - nothing may run unconfined
        say("note", f"not run: the sandbox could not be set up ({exc})")
        say("exit", 126)
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
        return
    for fd in (*stdio, *fds):
        os.close(fd)
    say("pid", child.pid)
    full = _wait(pidfd, alive, tmp, args.scratch)
    if full:
        say("note", f"{full}; the command was killed")
        reaper.sweep(child.pid, born)   # the whole tree, orphans too: any of them may write
    elif full is None:   # the relay died: the line was killed, so is the command
        with contextlib.suppress(OSError):
            child.kill()
    code = child.wait()
    reaper.sweep(child.pid, born)   # what it left running would write after the check
    for violation in guard.check():
        say("note", violation)
    shutil.rmtree(tmp, ignore_errors=True)
    say("exit", code if code >= 0 else 128 - code)


def _wait(pidfd: int, alive: int, tmp: str, cap: int) -> str | None:
    """Until the command exits (""), the relay dies (None), or ``tmp`` holds more than ``cap``
    (why, :meth:`.scratch.Watch.over`; no cap: never)."""
    from .scratch import Watch

    watch = Watch(tmp, cap) if cap else None
    while True:
        now = time.monotonic()
        if watch is not None and (why := watch.over(now)):
            return why
        wait = None if watch is None else max(0.0, watch.due - now)
        ready, _, _ = select.select([pidfd, alive], [], [], wait)
        if pidfd in ready:
            return ""
        if alive in ready:
            return None


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
