"""Background jobs that outlive their call, inside a pre-spawned sandbox (issue #20).

``python3 -m http.server 8765 &`` in one call and ``curl http://127.0.0.1:8765/`` in the next
must meet: both run in the same pre-spawned sandbox (one network namespace, one /tmp), and
what the first call left running is not swept when it ends. Instead, once its bash has
exited, every process of the sandbox that was not there before the call is *adopted*:

- a **job** is one such process whose parent is the sandbox's init (it was orphaned when bash
  exited), with the processes below it; at most ``Limits.max_jobs`` jobs live at once (the
  newest beyond that are killed, and the call says so), each for at most
  ``Limits.job_lifetime`` seconds; memory and the other rlimits are the call's, inherited;
- the call's stdout/stderr pipes, which a job may still hold, are read up to what is there
  when bash exits (so the call returns at once) and then handed to one relay thread that
  appends whatever comes later to ``/tmp/shellgate-jobs/<n>.log`` inside the sandbox (capped;
  opened by the host once, ``O_EXCL|O_NOFOLLOW`` under its own private tmp directory);
- :meth:`Background.report` lists the jobs still running (pid as ``ps`` inside shows it,
  command line, log) and, once each, the ones that ended or were stopped — nothing is silent;
- :meth:`Background.close` (``Sandbox.close``, ``BashTool.close``) stops them all: the pool's
  sandboxes are torn down with their PID namespaces.
- the scratch ``/tmp`` they write to is the host directory of the session, capped by
  ``[sandbox] scratch_size`` (:mod:`.scratch`): while any job runs, the relay looks at it (a
  :class:`.scratch.Watch` at a slower pace than a call's, :data:`JOB_EVERY`, :data:`JOB_SHARE`:
  a server may run for an hour) and stops every job once it holds more than the cap, bytes or
  entries, and more than when the jobs were adopted. Which job wrote cannot be told, so all
  go; each is said to have been stopped, and why. A single file stays bounded by the
  RLIMIT_FSIZE the jobs inherit.

A timeout (or output overflow) of a later call still kills everything *that* call started —
the sweep spares only the processes that were there before it began (so a process an older job
forks during that call dies with it too).
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
from collections.abc import Callable
from pathlib import Path

from .prespawn import Proc, Server
from .scratch import Watch

LOG_DIR = "shellgate-jobs"    # under the sandbox's /tmp
LOG_CAP = 16 << 20            # bytes kept per log; later output is read and dropped
JOB_EVERY = 0.5               # seconds between two looks at the scratch while jobs run
JOB_SHARE = 20                # a look that took t seconds is followed by one after 20 t at least


class _Job:
    __slots__ = ("id", "server", "top", "members", "command", "log", "deadline")

    def __init__(self, id: int, server: Server, top: Proc, members: frozenset[Proc],
                 command: str, log: str, deadline: float) -> None:
        self.id, self.server, self.top, self.members = id, server, top, members
        self.command, self.log, self.deadline = command, log, deadline

    def describe(self) -> str:
        where = f"; output in {self.log}" if self.log else ""
        return f"job {self.id}: pid {self.top[0]}: {self.command}{where}"


class Background:
    """The background jobs of one ``Sandbox``'s pre-spawned sandboxes."""

    def __init__(self, tmpdir: Callable[[], Callable[[], Path] | None]) -> None:
        self._tmpdir = tmpdir
        self._lock = threading.Lock()
        self._jobs: list[_Job] = []
        self._said: list[str] = []          # ended or stopped, not reported yet
        self._next = 1
        self._logs: dict[int, list] = {}    # pipe read end -> [log fd or -1, bytes written]
        self._wake_r = self._wake_w = -1
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._watch: Watch | None = None     # the scratch, while jobs run (relay thread)

    # -- one call -------------------------------------------------------------------------

    def adopt(self, server: Server, before: frozenset[Proc], max_jobs: int,
              lifetime: float, scratch: int | None = None) -> tuple[int, ...] | None:
        """After a call's bash exited: make jobs of what it left running. Returns the ids of
        its jobs (None: it left nothing, the call's pipes are the call's alone). ``scratch``:
        the cap of the scratch directory they may fill (``Limits.scratch_size``)."""
        now = server.processes()
        new = {p: ppid for p, ppid in now.items() if p not in before}
        if not new:
            return None
        by_pid = {p[0]: p for p in new}
        tops: dict[Proc, set[Proc]] = {}
        for p in sorted(new, key=lambda q: q[1]):  # oldest first: the limit drops the newest
            q, seen = p, 0
            while new.get(q) != 1 and new.get(q) in by_pid and seen < 64:
                q, seen = by_pid[new[q]], seen + 1
            if new.get(q) == 1:   # orphaned by the call's bash: a job (else an older job's)
                tops.setdefault(q, set()).add(p)
        if not tops:
            return None
        ids: list[int] = []
        doomed: list[Proc] = []
        with self._lock:
            self._expire_locked()
            self._reap_locked()
            room = max_jobs - len(self._jobs)
            for top, members in tops.items():
                if room <= 0:
                    doomed += members
                    self._said.append(f"stopped pid {top[0]} ({server.cmdline(top[0])}): at most "
                                      f"{max_jobs} background jobs may run at once")
                    continue
                room -= 1
                job = _Job(self._next, server, top, frozenset(members),
                           server.cmdline(top[0]) or "?", "", time.monotonic() + lifetime)
                self._next += 1
                self._jobs.append(job)
                ids.append(job.id)
            if ids:
                self._watch_scratch(scratch)
                self._ensure_thread()  # for the lifetime limit, the scratch, and the logs
        if doomed:
            self._kill(server, doomed)
        return tuple(ids) or None

    def detach(self, ids: tuple[int, ...], fds: tuple[int, ...]) -> None:
        """Take over a call's pipe read ends (its jobs may still write): relay them to a log."""
        log = self._open_log(ids[0])
        with self._lock:
            for j in self._jobs:
                if j.id in ids and log >= 0:
                    j.log = f"/tmp/{LOG_DIR}/{ids[0]}.log"
            shared = [log, 0]
            for fd in fds:
                os.set_blocking(fd, False)
                self._logs[fd] = shared
            self._ensure_thread()
        self._wake()

    def report(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(the jobs still running, what ended or was stopped since the last report)."""
        with self._lock:
            self._expire_locked()
            self._reap_locked()
            said, self._said = tuple(self._said), []
            for j in self._jobs:  # adopted maybe before its exec: show what it runs now
                j.command = j.server.cmdline(j.top[0]) or j.command
            return tuple(j.describe() for j in self._jobs), said

    def close(self, why: str = "the sandbox was closed") -> None:
        """Forget every job (the caller tears the sandboxes down), stop the relay."""
        with self._lock:
            for j in self._jobs:
                self._said.append(f"stopped job {j.id} (pid {j.top[0]}: {j.command}): {why}")
            self._jobs = []
            thread = self._thread
        self.stop()
        if thread is not None and thread is not threading.current_thread():
            thread.join(5.0)

    def stop(self) -> None:
        """Stop the relay thread (without waiting for it); its pipes and logs are closed."""
        self._wake(stop=True)

    def running(self) -> int:
        with self._lock:
            return len(self._jobs)

    # -- internals ------------------------------------------------------------------------

    def _alive(self, job: _Job) -> bool:
        if not job.server.alive():
            return False
        now = job.server.processes()
        return any(p in now for p in job.members)

    def _reap_locked(self) -> None:
        keep: list[_Job] = []
        for j in self._jobs:
            if self._alive(j):
                keep.append(j)
            elif not j.server.alive():
                self._said.append(f"job {j.id} (pid {j.top[0]}: {j.command}) was stopped: "
                                  "its sandbox was closed")
            else:
                self._said.append(f"job {j.id} (pid {j.top[0]}: {j.command}) has ended")
        self._jobs = keep

    def _expire_locked(self) -> None:
        now = time.monotonic()
        for j in [j for j in self._jobs if j.deadline <= now]:
            self._jobs.remove(j)
            self._kill(j.server, j.members)
            self._said.append(f"stopped job {j.id} (pid {j.top[0]}: {j.command}): it ran for "
                              "its whole lifetime limit")

    def _watch_scratch(self, cap: int | None) -> None:
        """Look at the scratch from now on (its total now is the jobs' start: :class:`Watch`)."""
        tmpdir = self._tmpdir()
        if not cap or tmpdir is None:
            self._watch = None
            return
        with contextlib.suppress(OSError):
            self._watch = Watch(str(tmpdir()), cap, every=JOB_EVERY, share=JOB_SHARE)

    def _scratch(self) -> None:
        """Stop every job once the scratch holds more than its cap (when a look is due; the
        walk runs outside the lock, which the next call's :meth:`report` takes)."""
        with self._lock:
            if not self._jobs:
                self._watch = None
            watch = self._watch
        if watch is None or not (why := watch.over(time.monotonic())):
            return
        with self._lock:
            if self._watch is not watch:   # closed, or new jobs meanwhile: their own look
                return
            for j in self._jobs:
                self._kill(j.server, j.members)
                self._said.append(f"stopped job {j.id} (pid {j.top[0]}: {j.command}): {why}")
            self._jobs, self._watch = [], None

    @staticmethod
    def _kill(server: Server, members: frozenset[Proc] | list[Proc]) -> None:
        """Kill ``members`` and everything below them (twice: a fork may race the first)."""
        doomed = set(members)
        for _ in range(2):
            procs = server.processes()
            while below := {p for p, ppid in procs.items()
                            if p not in doomed and ppid in {d[0] for d in doomed}}:
                doomed |= below
            server.kill(doomed)

    def _open_log(self, n: int) -> int:
        """An append-only log under the private tmp dir, or -1 (output then dropped). The
        directory is the commands' to change: no path is followed, no file reused."""
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
        tmpdir = self._tmpdir()
        try:
            if tmpdir is None:
                return -1
            top = os.open(tmpdir(), flags)
        except OSError:
            return -1
        try:
            with contextlib.suppress(FileExistsError):
                os.mkdir(LOG_DIR, 0o700, dir_fd=top)
            d = os.open(LOG_DIR, flags, dir_fd=top)
            try:
                return os.open(f"{n}.log", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                               | os.O_APPEND | os.O_CLOEXEC, 0o600, dir_fd=d)
            finally:
                os.close(d)
        except OSError:
            return -1
        finally:
            os.close(top)

    def _wake(self, stop: bool = False) -> None:
        with self._lock:
            w = self._wake_w
            if stop:
                self._stopping = True
        if w >= 0:
            with contextlib.suppress(OSError):
                os.write(w, b"x")

    def _ensure_thread(self) -> None:
        if self._thread is not None:  # (it clears this under the lock when it ends)
            return
        self._wake_r, self._wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self._stopping = False
        self._thread = threading.Thread(target=self._relay, name="shellgate-jobs", daemon=True)
        self._thread.start()

    def _relay(self) -> None:
        """Copy the detached pipes to their logs; stop jobs at their lifetime limit. Ends when
        no job and no pipe is left (or at :meth:`close`)."""
        while True:
            with self._lock:
                if self._stopping or not (self._logs or self._jobs):
                    self._close_logs_locked()
                    os.close(self._wake_r)
                    os.close(self._wake_w)
                    self._wake_r = self._wake_w = -1
                    self._thread = None
                    return
                fds = list(self._logs)
                deadlines = [j.deadline for j in self._jobs]
                if self._watch is not None:
                    deadlines.append(self._watch.due)
            wait = min(deadlines) - time.monotonic() if deadlines else 60.0
            ready = select.select([self._wake_r, *fds], [], [], max(0.0, min(wait, 60.0)))[0]
            if self._wake_r in ready:
                with contextlib.suppress(OSError):
                    os.read(self._wake_r, 4096)
            for fd in ready:
                if fd != self._wake_r:
                    self._copy(fd)
            self._scratch()
            with self._lock:
                self._expire_locked()
                if not self._logs:
                    self._reap_locked()  # (what ended is said at the next report)

    def _copy(self, fd: int) -> None:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        with self._lock:
            entry = self._logs.get(fd)
            if entry is None:
                return
            if not data:
                del self._logs[fd]
                os.close(fd)
                if entry[0] >= 0 and entry not in self._logs.values():
                    os.close(entry[0])
                    entry[0] = -1
                return
            if entry[0] >= 0 and entry[1] < LOG_CAP:
                with contextlib.suppress(OSError):
                    entry[1] += os.write(entry[0], data[:LOG_CAP - entry[1]])

    def _close_logs_locked(self) -> None:
        logs = set()
        for fd, entry in self._logs.items():
            with contextlib.suppress(OSError):
                os.close(fd)
            if entry[0] >= 0:
                logs.add(entry[0])
                entry[0] = -1
        for fd in logs:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._logs.clear()
