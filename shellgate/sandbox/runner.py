"""Run one command in the restricted subprocess of the chosen tier, with the always-on hygiene.

Every tier: environment from an allowlist, a new session, stdin closed, rlimits, a wall-clock
timeout that kills the whole tree, output read from both pipes at once into head+tail buffers
with a hard cap, a short drain after exit (an escaped grandchild holding a pipe must not hang
us: anthropics-sandbox §6.4 measured a 6 s hang without it), exit code and signal reported.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass
from pathlib import Path

from . import reaper
from .bwrap import TMP, build_argv
from .env import build_env
from .guard import Guard
from .output import HeadTail
from .policy import Limits, Policy
from .policy import within as _within
from .probe import Probe, Tier, landlock_usable, probe
from .script import parse_trailer, wrap
from .seccomp import filter_bytes

TIMEOUT_EXIT = 124  # what timeout(1) and Codex report for a command killed at its deadline


class SandboxUnavailable(RuntimeError):
    """An explicitly requested tier does not work on this machine."""


@dataclass(frozen=True, slots=True)
class ExecResult:
    stdout: str
    stderr: str
    exit_code: int | None           # None: the command never started
    signal: int | None              # the signal that killed the command (timeout: SIGKILL)
    timed_out: bool
    truncated: bool                 # some output was cut (see the note inside the text)
    cwd: Path                       # the working directory after the command
    tier: str                       # "bwrap", "landlock" or "none"
    duration: float                 # seconds, wall clock
    stdout_bytes: int = 0           # bytes the command wrote, before capping
    stderr_bytes: int = 0
    violations: tuple[str, ...] = ()  # writes to protected paths that were undone
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {"stdout": self.stdout, "stderr": self.stderr, "exit_code": self.exit_code,
                "signal": self.signal, "timed_out": self.timed_out, "truncated": self.truncated,
                "cwd": str(self.cwd), "sandbox": self.tier, "duration": round(self.duration, 6),
                "stdout_bytes": self.stdout_bytes, "stderr_bytes": self.stderr_bytes,
                "violations": list(self.violations), "notes": list(self.notes)}


class Sandbox:
    """A confinement tier plus the per-session state it needs (a private tmp dir).

    ``Sandbox()`` uses the best tier that works here (probed once per process);
    ``Sandbox("none")`` is the user's explicit opt-out — hygiene only, reported as such.
    An explicit ``"bwrap"``/``"landlock"`` that does not work raises :class:`SandboxUnavailable`.
    """

    def __init__(self, tier: Tier | str | None = None) -> None:
        self._probe: Probe = probe()
        self.disabled = tier is not None and Tier(tier) is Tier.NONE
        if tier is None:
            self.tier = self._probe.tier
        else:
            self.tier = Tier(tier)
            if self.tier is Tier.BWRAP and self._probe.tier is not Tier.BWRAP:
                raise SandboxUnavailable("; ".join(self._probe.notes) or "bwrap does not work here")
            if self.tier is Tier.LANDLOCK and (why := landlock_usable()):
                raise SandboxUnavailable(why)
        self._tmp: Path | None = None
        self._cleanup: weakref.finalize | None = None
        self._lock = threading.Lock()

    @property
    def description(self) -> str:
        if self.disabled:
            return "none (disabled by the user)"
        if self.tier is Tier.NONE:
            return "none (no confinement available: " + "; ".join(self._probe.notes) + ")"
        return str(self.tier)

    def tmpdir(self) -> Path:
        """The private tmp directory of this sandbox (created on first use, removed with it)."""
        with self._lock:
            if self._tmp is None:
                self._tmp = Path(tempfile.mkdtemp(prefix="shellgate-tmp-"))
                self._cleanup = weakref.finalize(self, shutil.rmtree, str(self._tmp), True)
            return self._tmp

    def close(self) -> None:
        """Remove the private tmp directory (a later run makes a new one)."""
        with self._lock:
            if self._cleanup is not None:
                self._cleanup()
            self._tmp, self._cleanup = None, None

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(self, command: str, policy: Policy, cwd: str | Path | None = None) -> ExecResult:
        """Run ``command`` with bash under ``policy`` in ``cwd``. Never raises."""
        start = time.monotonic()
        here = Path(cwd) if cwd else policy.workspace
        try:
            return self._run(command, policy, here, start)
        except Exception as exc:  # a sandbox failure is a result, not a crash of the caller
            return ExecResult("", f"shellgate: sandbox error: {type(exc).__name__}: {exc}\n", None,
                              None, False, False, here, str(self.tier), time.monotonic() - start,
                              notes=(f"sandbox error: {exc}",))

    # -- internals -------------------------------------------------------------------------

    def _run(self, command: str, policy: Policy, cwd: Path, start: float) -> ExecResult:
        lim = policy.limits
        notes: list[str] = []
        if self.disabled:
            notes.append("sandbox disabled by the user")
        if not cwd.is_dir():
            notes.append(f"working directory {cwd} no longer exists; ran in {policy.workspace}")
            cwd = policy.workspace
        tier = self.tier
        tmp = policy.tmpdir or self.tmpdir()
        home = policy.home or Path(os.path.expanduser("~"))
        env = build_env(os.environ, home=home, tmpdir=TMP if tier is Tier.BWRAP else tmp, cwd=cwd,
                        passthrough=policy.env_passthrough, explicit=policy.env_set)
        guard = Guard(self._guarded(policy, tier))
        status_r, status_w = os.pipe()
        program = [self._probe.bash, "--noprofile", "--norc", "-c", wrap(command, status_w, lim)]
        kw = dict(stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                  env=env, close_fds=True, start_new_session=True)
        try:
            proc = self._spawn(tier, policy, program, cwd, tmp, home, env, status_w, kw)
        except Exception:
            os.close(status_r)
            raise
        finally:
            os.close(status_w)
        reaper.register(proc.pid)
        born = reaper.birth(proc.pid) if tier is not Tier.BWRAP else 0
        try:
            out, err, timed_out, over = self._pump(proc, tier, lim, start, born)
        finally:
            reaper.unregister(proc.pid)
        status = _read_all(status_r)
        violations = guard.check()

        trailer = parse_trailer(status)
        rc = proc.returncode if proc.returncode is not None else -signal.SIGKILL
        sig: int | None = None
        if timed_out:
            code, sig = TIMEOUT_EXIT, signal.SIGKILL
            notes.append(f"timed out after {lim.timeout:g} s; the whole process tree was killed")
        elif trailer is not None:
            code = trailer[0]
        elif rc < 0:
            code, sig = 128 - rc, -rc
        elif tier is Tier.BWRAP and 128 < rc <= 128 + 64:  # bwrap reports a signal as 128+N
            code, sig = rc, rc - 128
        else:
            code = rc
        if over:
            notes.append(f"output exceeded {lim.output_hard} bytes; the command was killed")
            sig = sig or signal.SIGKILL
        new_cwd = cwd
        if trailer is not None and trailer[1] != cwd:
            if trailer[1].is_dir():
                new_cwd = trailer[1]
            else:
                notes.append(f"cwd {trailer[1]} is not visible outside the sandbox; staying in {cwd}")
        return ExecResult(out.render(), err.render(), code, sig, timed_out,
                          out.truncated or err.truncated, new_cwd, str(tier),
                          time.monotonic() - start, out.total, err.total, tuple(violations),
                          tuple(notes))

    def _guarded(self, policy: Policy, tier: Tier) -> tuple[Path, ...]:
        """Protected paths no mount protects this time: all of them outside bwrap; under bwrap
        the ones that do not exist yet (or are symlinks, which can be swapped)."""
        roots = [r for r in map(str, policy.roots()) if os.path.isdir(r)]
        out: list[Path] = []
        for p in policy.readonly:
            s = str(p)
            if not any(_within(s, r) for r in roots):
                continue
            exists = os.path.lexists(s)
            if tier is Tier.BWRAP and exists and not os.path.islink(s):
                continue
            if not exists and "/.git/" in s and not os.path.exists(os.path.dirname(s)):
                continue  # a repository the command creates itself (`git init`) is its own
            out.append(p)
        return tuple(out)

    def _spawn(self, tier: Tier, policy: Policy, program: list[str], cwd: Path, tmp: Path,
               home: Path, env: dict[str, str], status_w: int, kw: dict) -> subprocess.Popen[bytes]:
        if tier is Tier.BWRAP:
            seccomp_r, seccomp_w = os.pipe()
            try:
                os.write(seccomp_w, filter_bytes(policy.network))
                os.close(seccomp_w)
                visible = [home, cwd] + [Path(d) for d in env.get("PATH", "").split(":")
                                         if d.startswith("/")]
                argv = build_argv(self._probe.bwrap or "bwrap", policy, cwd=cwd, tmpdir=tmp,
                                  seccomp_fd=seccomp_r, program=program, visible=visible)
                return subprocess.Popen(argv, cwd="/", pass_fds=(status_w, seccomp_r), **kw)
            finally:
                os.close(seccomp_r)
        reaper.enable()
        if tier is Tier.LANDLOCK:
            from .spawner import spawner_for

            writable = tuple(r for r in (*policy.roots(), tmp, Path("/dev/shm")) if r.is_dir())
            hidden = tuple(p for p in policy.masked if os.path.lexists(p))
            return spawner_for(writable, hidden, policy.network).popen(
                program, cwd=cwd, pass_fds=(status_w,), **kw)
        return subprocess.Popen(program, cwd=cwd, pass_fds=(status_w,), **kw)

    def _pump(self, proc: subprocess.Popen[bytes], tier: Tier, lim: Limits, start: float,
              born: int) -> tuple[HeadTail, HeadTail, bool, bool]:
        """Read both pipes until the command is done; enforce timeout and output cap."""
        assert proc.stdout is not None and proc.stderr is not None
        out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
        bufs = {out_fd: HeadTail(lim.output_head, lim.output_tail),
                err_fd: HeadTail(lim.output_head, lim.output_tail)}
        sel = selectors.DefaultSelector()
        for fd in bufs:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        pidfd = -1
        with contextlib.suppress(OSError, AttributeError):
            pidfd = os.pidfd_open(proc.pid)
            sel.register(pidfd, selectors.EVENT_READ)
        open_fds = set(bufs)
        deadline = start + lim.timeout
        exited = timed_out = over = False
        drain_end: float | None = None
        total = 0

        def kill_tree() -> None:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                proc.kill()
            if tier is not Tier.BWRAP:  # bwrap: the PID namespace dies with its init
                reaper.sweep(proc.pid, born)
            proc.wait()

        try:
            while True:
                now = time.monotonic()
                if not exited and proc.poll() is not None:
                    exited = True
                if exited:
                    if drain_end is None:
                        if tier is not Tier.BWRAP:  # background jobs die with the command
                            reaper.sweep(proc.pid, born)
                        drain_end = now + lim.drain
                    if not open_fds or now >= drain_end:
                        break
                    wait = drain_end - now
                else:
                    if now >= deadline:
                        timed_out = True
                        kill_tree()
                        exited = True
                        continue
                    wait = deadline - now if pidfd >= 0 else min(deadline - now, 0.02)
                for key, _ in sel.select(max(wait, 0)):
                    fd = key.fd
                    if fd == pidfd:
                        sel.unregister(pidfd)
                        proc.wait()
                        exited = True
                        continue
                    try:
                        data = os.read(fd, 65536)
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b""
                    if not data:
                        sel.unregister(fd)
                        open_fds.discard(fd)
                        continue
                    bufs[fd].feed(data)
                    total += len(data)
                    if total > lim.output_hard and not over:
                        over = True
                        kill_tree()
                        exited = True
        finally:
            sel.close()
            if pidfd >= 0:
                os.close(pidfd)
            for stream in (proc.stdout, proc.stderr):
                stream.close()
            if proc.poll() is None:  # only on an exception above
                kill_tree()
        return bufs[out_fd], bufs[err_fd], timed_out, over


def _read_all(fd: int, limit: int = 1 << 16) -> bytes:
    """Whatever the trailer wrote (non-blocking: an escaped process may hold the write end)."""
    chunks: list[bytes] = []
    try:
        os.set_blocking(fd, False)
        size = 0
        while size < limit:
            try:
                chunk = os.read(fd, 4096)
            except BlockingIOError:
                break
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)
