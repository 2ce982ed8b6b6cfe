"""``python -I -m shellgate.sandbox.confine [--write P]… [--hide P]… [--protect P]… [--net]
-- PROGRAM …``, or ``… --undo ANCHOR//REST …`` (:func:`.guard.undo_created`: after a bwrap line)

The Landlock tier of a hook's confined line (:mod:`.enforce`): run ``PROGRAM`` restricted by
Landlock (read everywhere but the hidden paths, write only under ``--write`` roots, TCP only
with ``--net``, plus a private ``TMPDIR``) and the seccomp filter, from a restricted spawner
thread (:mod:`.spawner`).
Landlock cannot make a path inside a writable root read-only, so this process stays outside
the restriction as the command's parent: it records the ``--protect`` paths before the command
and puts them back after it (:mod:`.guard`), reporting each undo on stderr — the implant threat
is code that runs later, outside the sandbox. Before that it kills whatever the command left
running (it is the reaper of the command's orphans, :mod:`.reaper`), which could write after
the check. stdin, stdout, stderr and fd 3 (the line's cwd
report) are the command's own. Any failure to set up exits 126 with a reason and runs nothing.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

_OPTS = {"--write": "write", "--hide": "hide", "--protect": "protect"}


def _parse(argv: list[str]) -> tuple[dict[str, list[Path]], bool, list[str]]:
    paths: dict[str, list[Path]] = {v: [] for v in _OPTS.values()}
    network = False
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return paths, network, argv[i + 1:]
        if arg == "--net":
            network = True
        elif arg in _OPTS and i + 1 < len(argv):
            paths[_OPTS[arg]].append(Path(argv[i + 1]))
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
        paths, network, program = _parse(argv)
        if not program:
            raise ValueError("no program after --")
        from . import reaper
        from .guard import Guard
        from .spawner import Spawner

        if not reaper.enable():
            raise OSError("cannot become the reaper of the command's orphans (PR_SET_CHILD_SUBREAPER)")
        guard = Guard(tuple(paths["protect"]), roots=tuple(paths["write"]))
        tmp = tempfile.mkdtemp(prefix="shellgate-hook-")   # the command's own TMPDIR
        spawner = Spawner((*paths["write"], Path(tmp)), tuple(paths["hide"]), network)
        fds = tuple(fd for fd in (3,) if _is_open(fd))
        child = spawner.popen(program, pass_fds=fds, env={**os.environ, "TMPDIR": tmp})
        born = reaper.birth(child.pid)
    except Exception as exc:  # noqa: BLE001 - nothing may run unconfined
        print(f"shellgate: not run: the sandbox could not be set up ({exc})", file=sys.stderr)
        return 126
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda n, _f: child.send_signal(n))
    code = child.wait()
    # What the command left running (`(setsid sh -c '…; echo … > .envrc' &)`) would write after
    # the check: it ends first. As our orphans, they are found however they detached.
    reaper.sweep(child.pid, born)
    for fd in fds:
        os.close(fd)   # the report fd belongs to the command: the line reads it to its end
    for violation in guard.check():
        print(f"shellgate: {violation}", file=sys.stderr)
    shutil.rmtree(tmp, ignore_errors=True)
    return code if code >= 0 else 128 - code


def _is_open(fd: int) -> bool:
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
