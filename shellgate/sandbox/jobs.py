"""A started command as the output pump sees it, and the pump itself.

Two kinds: a :class:`ProcJob` is a process we spawned (a fresh bwrap, or bash under Landlock
or unconfined); a :class:`ServerJob` is a command forked by a pre-spawned sandbox's server.
They differ in how exit is noticed (a pidfd vs the server's report) and how the tree is
killed (PID-namespace teardown or subreaper sweep vs a sweep of the shared namespace); the
pump — timeout, output cap, drain — is the same for both.
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import signal
import subprocess
import time
from typing import TYPE_CHECKING

from . import reaper
from .output import HeadTail
from .policy import Limits
from .prespawn import SWEEP_TIMEOUT, Proc, Server

if TYPE_CHECKING:
    from .background import Background
    from .scratch import Watch


class Job:
    out_fd: int
    err_fd: int
    signal_in_code = False  # a fresh bwrap reports a signal as exit code 128+N

    @property
    def returncode(self) -> int | None:
        """``Popen.returncode`` semantics: negative for a signal; None while running."""
        raise NotImplementedError

    def exit_fd(self) -> int:
        """An fd that becomes readable when the command may have exited (-1: poll)."""
        raise NotImplementedError

    def on_exit_fd(self) -> None:
        raise NotImplementedError

    def kill_tree(self) -> None:
        """Kill the command and everything it started; afterwards ``returncode`` is set."""
        raise NotImplementedError

    def reap_background(self) -> bool:
        """After a normal exit: background processes do not outlive the command — or, where
        they may (:mod:`.background`), are adopted as jobs. True: they were, and may still
        hold the pipes (the pump then takes what is there and stops)."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError


class ProcJob(Job):
    """A process we spawned; ``namespaced``: its tree dies with it (bwrap's PID namespace).
    ``info_fd``: the read end of bwrap's ``--info-fd``, to reap its init (see :meth:`close`)."""

    def __init__(self, proc: subprocess.Popen[bytes], namespaced: bool, info_fd: int = -1) -> None:
        assert proc.stdout is not None and proc.stderr is not None
        self.proc = proc
        self.info_fd = info_fd
        self.namespaced = self.signal_in_code = namespaced
        self.out_fd, self.err_fd = proc.stdout.fileno(), proc.stderr.fileno()
        self.born = 0 if namespaced else reaper.birth(proc.pid)
        reaper.register(proc.pid)
        self._pidfd = -1
        with contextlib.suppress(OSError, AttributeError):
            self._pidfd = os.pidfd_open(proc.pid)

    @property
    def returncode(self) -> int | None:
        return self.proc.poll()

    def exit_fd(self) -> int:
        return self._pidfd

    def on_exit_fd(self) -> None:
        self.proc.wait()

    def kill_tree(self) -> None:
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            self.proc.kill()
        if not self.namespaced:  # bwrap: the PID namespace dies with its init
            reaper.sweep(self.proc.pid, self.born)
        self.proc.wait()

    def reap_background(self) -> bool:
        if not self.namespaced:
            reaper.sweep(self.proc.pid, self.born)
        return False

    def close(self) -> None:
        try:
            if self.proc.poll() is None:  # only after an exception in the pump
                self.kill_tree()
        finally:
            reaper.unregister(self.proc.pid)
            if self._pidfd >= 0:
                os.close(self._pidfd)
            for stream in (self.proc.stdout, self.proc.stderr):
                if stream is not None:
                    stream.close()
            if self.info_fd >= 0:
                self._reap_init()

    def _reap_init(self) -> None:
        try:
            raw = b""
            os.set_blocking(self.info_fd, False)
            with contextlib.suppress(OSError):
                raw = os.read(self.info_fd, 4096)  # bwrap has exited: all of it is there
        finally:
            os.close(self.info_fd)
            self.info_fd = -1
        reaper.reap_bwrap_init(raw)


class ServerJob(Job):
    """A command forked by a pre-spawned sandbox's server. Whatever goes wrong with the server
    (no report, a sweep that does not converge) ends in tearing the whole sandbox down.

    ``background``: what the command leaves running becomes jobs there (up to ``lim``'s
    bounds); ``before`` — the sandbox's processes when it started — are spared by every sweep.
    Without it, everything but the server dies when the command ends."""

    def __init__(self, server: Server, out_fd: int, err_fd: int,
                 background: Background | None = None, before: frozenset[Proc] = frozenset(),
                 lim: Limits | None = None) -> None:
        self.server = server
        self.out_fd, self.err_fd = out_fd, err_fd
        self._rc: int | None = None
        self.background, self.before, self.lim = background, before, lim
        self.jobs: tuple[int, ...] | None = None   # ids of the jobs this command left

    @property
    def returncode(self) -> int | None:
        return self._rc

    def exit_fd(self) -> int:
        return self.server.sock.fileno()

    def on_exit_fd(self) -> None:
        self._rc = self.server.exit_status(0)

    def kill_tree(self) -> None:
        if self._rc is None:
            if self.server.sweep(keep=self.before):
                self._rc = self.server.exit_status(SWEEP_TIMEOUT)
            if self._rc is None:  # a stopped or wedged server: drop the whole sandbox
                self.server.close()
                self._rc = -signal.SIGKILL
        elif not self.server.sweep(keep=self.before):
            self.server.close()

    def reap_background(self) -> bool:
        if not self.server.alive():
            self.server.close()
            return False
        if self.background is not None and self.lim is not None:
            self.jobs = self.background.adopt(self.server, self.before, self.lim.max_jobs,
                                              self.lim.job_lifetime, self.lim.scratch_size)
            if self.jobs:
                return True
        if not self.server.sweep(keep=self.before):
            self.server.close()
        return False

    def close(self) -> None:
        try:
            if self._rc is None:
                self.kill_tree()
        finally:
            fds = tuple(fd for fd in (self.out_fd, self.err_fd) if fd >= 0)
            if self.jobs and self.background is not None and self.server.alive():
                self.background.detach(self.jobs, fds)  # the jobs may still write to them
            else:
                for fd in fds:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            self.out_fd = self.err_fd = -1


def pump(job: Job, lim: Limits, start: float,
         scratch: Watch | None = None) -> tuple[HeadTail, HeadTail, bool, bool, str | None]:
    """Read both pipes until the command is done; enforce timeout, output cap and the
    scratch directory's cap (``scratch``, looked at while the command runs).
    Returns (stdout, stderr, timed out, output over the hard cap, why the scratch stopped it).
    ``poll`` rather than a selector object: no epoll fd to create and close per command."""
    bufs = {job.out_fd: HeadTail(lim.output_head, lim.output_tail),
            job.err_fd: HeadTail(lim.output_head, lim.output_tail)}
    poller = select.poll()
    for fd in bufs:
        os.set_blocking(fd, False)
        poller.register(fd, _READABLE)
    exit_fd = job.exit_fd()
    watching_exit = exit_fd >= 0
    if watching_exit:
        poller.register(exit_fd, _READABLE)
    open_fds = set(bufs)
    deadline = start + lim.timeout
    exited = timed_out = over = False
    drain_end: float | None = None
    total = 0
    stopped: str | None = None

    def kill() -> None:  # its exit is known afterwards: stop watching for it
        nonlocal watching_exit
        if watching_exit:
            poller.unregister(exit_fd)
            watching_exit = False
        job.kill_tree()

    while True:
        now = time.monotonic()
        if not exited and job.returncode is not None:
            exited = True
        if exited:
            if drain_end is None:
                if job.reap_background():  # its jobs may hold the pipes: take what is there
                    _read_ready(poller, bufs, open_fds)
                    break
                drain_end = now + lim.drain
            if not open_fds or now >= drain_end:
                break
            wait = drain_end - now
        else:
            if now >= deadline:
                timed_out = True
                kill()
                exited = True
                continue
            if scratch is not None and (stopped := scratch.over(now)):
                kill()
                exited = True
                continue
            wait = deadline - now if watching_exit else min(deadline - now, 0.02)
            if scratch is not None:
                wait = min(wait, max(0.0, scratch.due - now))
        for fd, _ in poller.poll(max(0, math.ceil(wait * 1000))):
            if fd == exit_fd and watching_exit:
                if job.returncode is None:
                    job.on_exit_fd()
                if job.returncode is not None:
                    poller.unregister(exit_fd)
                    watching_exit = False
                    exited = True
                continue
            if fd not in open_fds:
                continue
            n = _read_once(fd, poller, bufs, open_fds)
            if not n:
                continue
            total += n
            if total > lim.output_hard and not over:
                over = True
                kill()
                exited = True
    return bufs[job.out_fd], bufs[job.err_fd], timed_out, over, stopped


def _read_ready(poller: select.poll, bufs: dict[int, HeadTail], open_fds: set[int]) -> None:
    """Everything already written to the pipes, without waiting for more (the foreground has
    exited: what it wrote is there; what comes later is the background jobs')."""
    for fd in list(open_fds):
        for _ in range(16):  # a pipe's worth and more; a job writing on and on does not hold us
            if not _read_once(fd, poller, bufs, open_fds):
                break


def _read_once(fd: int, poller: select.poll, bufs: dict[int, HeadTail], open_fds: set[int]) -> int | None:
    """One read of ``fd`` into its buffer: the bytes read; 0 at end of file (the fd is then
    dropped from the poll); None when nothing is there yet."""
    try:
        data = os.read(fd, 65536)
    except BlockingIOError:
        return None
    except OSError:
        data = b""
    if not data:
        poller.unregister(fd)
        open_fds.discard(fd)
        return 0
    bufs[fd].feed(data)
    return len(data)


_READABLE = select.POLLIN | select.POLLPRI
