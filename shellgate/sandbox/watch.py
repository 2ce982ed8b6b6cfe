"""The watcher behind a bwrap line's undo: the removal of what a command made at protected
paths that did not exist (:func:`.enforce._undo_step`, :func:`.guard.undo_created`) must
happen even when the agent kills the line before it reaches that step.

The agent's timeout or an interrupt kills the line's process group (Codex) or its process tree
(Claude Code); the step after bwrap then never runs, and an ``.envrc`` or
``.claude/settings.json`` the command wrote stays for a later, unconfined program to run. So,
before bwrap starts, the line runs::

    python -I -S …/shellgate/sandbox/watch.py arm SHELL_PID DIR… -- ANCHOR//REST…   # "DIR TOKEN"

which leaves a detached process (its own session, re-parented away from the line: neither a
group kill nor a walk of the line's descendants reaches it) holding a FIFO ``DIR/f`` and a
pidfd of the line's shell. bwrap reports its sandbox's init there (``--info-fd``); the line's
last step writes TOKEN there. The watcher stands down when TOKEN arrives. When the shell dies
first, or the sandbox ends and no TOKEN follows within :data:`GRACE` seconds, it waits for the
sandbox's init to be gone (a PID namespace ends with its init, so nothing inside can write any
more) and undoes, like the line's own step would have. TOKEN is never in a command line or
environment, and DIR is made (0700) in the first of the DIRs given where it can be: each one
the sandbox neither sees nor changes (``$XDG_RUNTIME_DIR``, shellgate's state directory, the
host's ``/tmp``: :func:`.enforce._watch_dirs`) — a FIFO on a read-only mount can still be
opened and written.

A watcher killed with SIGKILL cannot remove its directory; the next ``arm`` removes every one
whose watcher is gone (:func:`sweep`: each holds an ``flock`` on ``DIR/lock`` while it lives).

Run as a file, not as a module of the package: only ``os``, ``select``, ``time`` and ``fcntl`` are
imported on the way (``-S``: no site; ~10 ms, where the package's imports would add 25 ms and
``contextlib`` alone 3 ms); the undo imports :mod:`.guard` from the package this file belongs
to. The line waits for ``arm``'s output to end: the pipe is moved off fd 1 before the
forks, so that it ends when ``arm`` has written, not when the detached process has run.
"""

from __future__ import annotations

import fcntl
import os
import select
import sys
import time

GRACE = 2.0       # seconds the line's own step has, after the sandbox ended, to say it is done
NO_START = 10.0   # seconds to wait for bwrap's report once the shell died without one
POLL = 0.25       # seconds between looks at a process no pidfd watches (Linux before 5.3)


class _Process:
    """A process whose end is awaited: by its pidfd, or by looking (no pidfd_open)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        try:
            self.fd: int | None = os.pidfd_open(pid)
        except OSError:
            self.fd = None

    def ended(self, ready: list[int]) -> bool:
        return self.fd in ready if self.fd is not None else _gone(self.pid)

    def wait(self) -> None:
        """Until it has ended."""
        while not self.ended(select.select([] if self.fd is None else [self.fd], [], [],
                                           POLL if self.fd is None else None)[0]):
            pass


def _child_pid(report: bytes) -> int | None:
    """The ``"child-pid": N`` of bwrap's ``--info-fd`` report (JSON; no json import)."""
    key = report.find(b'"child-pid"')
    if key < 0:
        return None
    rest = report[key + 11:].lstrip(b" \t\n\r")
    if not rest.startswith(b":"):
        return None
    digits = rest[1:].lstrip(b" \t\n\r")
    end = next((k for k, c in enumerate(digits) if not 48 <= c <= 57), len(digits))
    return int(digits[:end]) if 0 < end < len(digits) else None


def _stat(pid: int) -> tuple[bytes, int] | None:
    """(state, parent) of ``pid`` from /proc, or None when it is gone. ``reaper._stat`` reads
    the same line; importing it would import the package (this file runs without it)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        fields = stat[stat.rindex(b")") + 2:].split()
        return fields[0], int(fields[1])
    except (OSError, ValueError, IndexError):
        return None


def _ppid(pid: int) -> int:
    """The parent of ``pid`` (-1 when it is gone)."""
    st = _stat(pid)
    return -1 if st is None else st[1]


def _gone(pid: int) -> bool:
    """Whether ``pid`` has exited: no entry, or a zombie nobody reaped yet (an orphan whose
    new parent, a subreaper, may never wait for it)."""
    st = _stat(pid)
    return st is None or st[0] in (b"Z", b"X")


PREFIX = "shellgate-watch-"
LOCK = "lock"   # DIR/lock: held (flock) by the watcher for as long as it lives


def _private(dirs: list[str], name: str) -> tuple[str, str, int]:
    """``(DIR, DIR/f, lock)``: a new directory ``name`` (mode 0700) holding the FIFO, in the
    first of ``dirs`` where it can be made, and the open, locked ``DIR/lock`` (:func:`sweep`).
    The lock file gets its name only once it is locked: a sweep never finds it unlocked while
    its watcher is being set up. OSError saying why in each directory, when none."""
    why = []
    for base in dirs:
        where = os.path.join(base, name)
        try:
            os.mkdir(where, 0o700)
        except OSError as exc:
            why.append(f"{base}: {exc.strerror}")
            continue
        lock = -1
        try:
            lock = os.open(f"{where}/.{LOCK}", os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC,
                           0o600)
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.rename(f"{where}/.{LOCK}", f"{where}/{LOCK}")
            os.mkfifo(f"{where}/f", 0o600)
            return where, f"{where}/f", lock
        except OSError as exc:
            why.append(f"{base}: {exc.strerror}")
            if lock >= 0:
                os.close(lock)
            _remove(where)
    raise OSError(0, "no directory for its FIFO that the sandbox cannot reach ("
                  + ("; ".join(why) or "none") + ")")


def _remove(where: str) -> None:
    """Remove a watcher's directory and what it may hold (nothing else: it is ours, 0700)."""
    for name in ("f", LOCK, f".{LOCK}"):
        try:
            os.unlink(f"{where}/{name}")
        except OSError:
            continue
    try:
        os.rmdir(where)
    except OSError:
        return   # (no contextlib here: see the module's docstring)


def sweep(dirs: list[str]) -> list[str]:
    """Remove the directories that watchers killed with SIGKILL left in ``dirs`` (their
    ``finally`` never ran): each one of ours whose ``lock`` no process holds any more. A
    watcher's lock is an ``flock`` on its open file, which ends with the last process holding
    it: no pid is guessed, and a pid the kernel reused says nothing here. A directory without
    a ``lock`` (a watcher being set up, or one of a shellgate before locks) is left alone.
    The directories removed."""
    out = []
    uid = os.geteuid()
    for base in dirs:
        try:
            names = [n for n in os.listdir(base) if n.startswith(PREFIX)]
        except OSError:
            continue
        for name in names:
            where = os.path.join(base, name)
            try:
                st = os.lstat(where)
                if st.st_uid != uid or st.st_mode & 0o170000 != 0o040000:   # a directory
                    continue
                fd = os.open(f"{where}/{LOCK}", os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue   # its watcher lives
            try:
                _remove(where)   # under the lock: another sweep skips it meanwhile
                out.append(where)
            finally:
                os.close(fd)
    return out


def arm(shell: int, dirs: list[str], marks: list[str]) -> int:
    """Set up the FIFO and the detached watcher, print ``DIR TOKEN`` and return."""
    token = os.urandom(16).hex()
    sweep(dirs)
    where, fifo, _lock = _private(dirs, f"{PREFIX}{token[:16]}")   # held by the watcher
    # Read end, non-blocking: no writer has come yet, so it never reads as hung up until one has.
    rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    watched = _Process(shell)
    out = os.dup(1)   # closed in the child: the line's pipe stays with this process alone
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null, fd)
    child = os.fork()
    if child == 0:   # pragma: no cover - runs in the detached process (tested by its effect)
        try:
            os.close(out)   # before the second fork: the detached process never holds it
            os.setsid()
            if os.fork():
                os._exit(0)
            os.dup2(null, 2)
            _watch(watched, rfd, fifo, token.encode(), marks)
        finally:
            _remove(where)
            os._exit(0)
    os.waitpid(child, 0)   # the watcher is in a session of its own now: the line may go on
    os.write(out, f"{where} {token}".encode("utf-8", "surrogateescape"))
    return 0


def _watch(shell: _Process, rfd: int, fifo: str, token: bytes, marks: list[str]) -> None:
    """Wait until the line says it is done (return), or until it cannot any more and the
    sandbox is gone (undo, then return)."""
    seen = b""
    init: _Process | None = None
    shell_dead = sandbox_done = False
    deadline: tuple[str, float] | None = None   # (what is awaited, until when)
    while not (shell_dead and (sandbox_done or init is not None)):
        alive = [p for p in (None if shell_dead else shell, init) if p is not None]
        waits = [rfd] + [p.fd for p in alive if p.fd is not None]
        state = "start" if shell_dead else "done" if sandbox_done else ""
        if not state:
            deadline = None
        elif deadline is None or deadline[0] != state:
            deadline = (state, time.monotonic() + (NO_START if shell_dead else GRACE))
        timeout = None if deadline is None else max(0.0, deadline[1] - time.monotonic())
        if any(p.fd is None for p in alive):
            timeout = POLL if timeout is None else min(timeout, POLL)
        ready, _, _ = select.select(waits, [], [], timeout)
        if not ready and deadline is not None and time.monotonic() >= deadline[1]:
            break   # the line's step never came after its sandbox, or no sandbox came
        if rfd in ready:
            data = os.read(rfd, 65536)
            if not data:   # every writer left: reopen, so that the next one is seen
                os.close(rfd)
                rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            seen = (seen + data)[-65536:]
            if token in seen:
                return
            if init is None and not sandbox_done and (pid := _child_pid(seen)) is not None:
                sandbox_done = _gone(pid)   # it ended before we read of it
                if not sandbox_done:
                    init = _init(pid, None if shell_dead else shell.pid)
        if not shell_dead and shell.ended(ready):
            shell_dead = True
        if init is not None and init.ended(ready):
            init, sandbox_done = None, True
    if init is not None:   # the shell is gone while its sandbox still runs: wait for its end
        init.wait()
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    from shellgate.sandbox.guard import undo_created

    undo_created(tuple(marks))


def _init(pid: int, shell: int | None) -> _Process | None:
    """The sandbox's init, when ``pid`` is a child of the bwrap the line's shell started (its
    parent's parent; any parent once that shell is dead): nothing else written to the FIFO is
    believed."""
    parent = _ppid(pid)
    if parent == -1 or (shell is not None and _ppid(parent) != shell):
        return None
    return _Process(pid)


def main(argv: list[str]) -> int:
    """``arm SHELL_PID DIR… -- ANCHOR//REST…``: the FIFO's directory goes in the first DIR
    it can be made in (:func:`.enforce._watch_dirs`)."""
    if len(argv) < 2 or argv[0] != "arm" or not argv[1].isdigit() or "--" not in argv:
        print("usage: watch arm SHELL_PID DIR… -- ANCHOR//REST…", file=sys.stderr)
        return 2
    cut = argv.index("--")
    try:
        return arm(int(argv[1]), argv[2:cut], argv[cut + 1:])
    except OSError as exc:
        why = exc.strerror or exc
        print(f"shellgate: not run: the undo watcher could not be set up ({why})", file=sys.stderr)
        return 126


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
