"""Run one command in the restricted subprocess of the chosen tier, with the always-on hygiene.

Every tier: environment from an allowlist, a new session, stdin closed, rlimits, a wall-clock
timeout that kills the whole tree, output read from both pipes at once into head+tail buffers
with a hard cap, a short drain after exit (an escaped grandchild holding a pipe must not hang
us: anthropics-sandbox §6.4 measured a 6 s hang without it), exit code and signal reported.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path

from .._record import record
from . import reaper
from .background import Background
from .bwrap import TMP, mount_args, mount_identity, namespace_args, own_network
from .disk import Disk
from .env import build_env
from .guard import Guard, Pins
from .jobs import Job, ProcJob, ServerJob, pump
from .policy import Limits, Policy, within_any
from .policy import within as _within
from .prespawn import STATUS_FD, Pool, Server, ServerError
from .probe import Probe, Tier, landlock_usable, probe
from .scratch import Watch
from .script import parse_trailer, wrap
from .seccomp import filter_bytes

TIMEOUT_EXIT = 124  # what timeout(1) and Codex report for a command killed at its deadline


class SandboxUnavailable(RuntimeError):
    """An explicitly requested tier does not work on this machine."""


STATE_NAME = ".shellgate-session"  # a persistent session's dump, in the private tmp directory


@record
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
    background: tuple[str, ...] = ()  # background jobs still running after it (Sandbox.jobs)

    def to_json(self) -> dict[str, object]:
        return {"stdout": self.stdout, "stderr": self.stderr, "exit_code": self.exit_code,
                "signal": self.signal, "timed_out": self.timed_out, "truncated": self.truncated,
                "cwd": str(self.cwd), "sandbox": self.tier, "duration": round(self.duration, 6),
                "stdout_bytes": self.stdout_bytes, "stderr_bytes": self.stderr_bytes,
                "violations": list(self.violations), "notes": list(self.notes),
                "background": list(self.background)}


class Sandbox:
    """A confinement tier plus the per-session state it needs (a private tmp dir).

    ``Sandbox()`` uses the best tier that works here (probed once per process);
    ``Sandbox("none")`` is the user's explicit opt-out — hygiene only, reported as such.
    An explicit ``"bwrap"``/``"landlock"`` that does not work raises :class:`SandboxUnavailable`.

    ``prespawn`` (bwrap tier only): run commands in long-lived sandboxes, one per filesystem
    view (:mod:`.prespawn`), instead of a fresh bwrap per command. Same mounts, namespaces,
    seccomp filter and tree kill; if such a sandbox cannot start here, commands run fresh and
    ``prespawn_error`` says why. Call :meth:`close` (or use ``with``) to stop them.

    ``background`` (pre-spawned sandboxes only): what a command leaves running in the
    background lives on as a job (:mod:`.background`) — bounded by ``Limits.max_jobs`` and
    ``Limits.job_lifetime``, listed by :meth:`jobs`, stopped by :meth:`close`. Elsewhere (a
    fresh bwrap, Landlock, no tier) background processes end with their command, and each
    result says so when the command asked for one.
    """

    def __init__(self, tier: Tier | str | None = None, *, prespawn: bool = True,
                 background: bool = False) -> None:
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
        self.prespawn = prespawn and self.tier is Tier.BWRAP
        self.prespawn_error: str | None = None
        self._python: str | None = None
        self._pool = Pool()
        # (a weak reference: the relay thread must not keep an abandoned sandbox alive)
        self._background = Background(weakref.WeakMethod(self.tmpdir)) if background else None
        weakref.finalize(self, self._pool.close)
        if self._background is not None:
            weakref.finalize(self, self._background.stop)

    @property
    def description(self) -> str:
        if self.disabled:
            return "none (disabled by the user)"
        if self.tier is Tier.NONE:
            return "none (no confinement available: " + "; ".join(self._probe.notes) + ")"
        if self.tier is Tier.BWRAP and self.prespawn:
            if self.prespawn_error:
                return f"bwrap (fresh per command; pre-spawn failed: {self.prespawn_error})"
            return "bwrap (pre-spawned)"
        return str(self.tier)

    def tmpdir(self) -> Path:
        """The private tmp directory of this sandbox (created on first use, removed with it)."""
        with self._lock:
            if self._tmp is None:
                self._tmp = Path(tempfile.mkdtemp(prefix="shellgate-tmp-"))
                self._cleanup = weakref.finalize(self, _remove_tmp, str(self._tmp), os.getpid())
            return self._tmp

    @property
    def confines_exec(self) -> bool:
        """Whether any program run here is kept from the network, from writes outside its roots
        and from secrets, host services included: bwrap (its own network namespace), or
        Landlock when the kernel also scopes abstract Unix sockets and signals (ABI 6; before
        it, a program could reach a host service listening on an abstract socket)."""
        if self.disabled:
            return False
        if self.tier is Tier.BWRAP:
            return True
        if self.tier is Tier.LANDLOCK:
            from .landlock import abi

            return abi() >= 6
        return False

    def scratch(self) -> tuple[str, ...]:
        """Where a command's writes stay private to this sandbox's session, as the command
        names them: ``/tmp`` under bwrap (the private tmp directory is bound there), the private
        tmp directory itself under Landlock (``$TMPDIR`` points there; the host's ``/tmp`` is
        not writable), nothing without confinement (the host's ``/tmp`` is everyone's)."""
        if self.tier is Tier.BWRAP:
            return (str(TMP),)
        if self.tier is Tier.LANDLOCK:
            return (str(self.tmpdir()),)
        return ()

    def env_for(self, policy: Policy, cwd: Path) -> dict[str, str]:
        """The environment a command run under ``policy`` in ``cwd`` starts with."""
        tmp = policy.tmpdir or self.tmpdir()
        return build_env(os.environ, home=policy.home or Path(os.path.expanduser("~")),
                         tmpdir=TMP if self.tier is Tier.BWRAP else tmp, cwd=cwd,
                         passthrough=policy.env_passthrough, explicit=policy.env_set)

    def state_file(self) -> tuple[str, Path]:
        """Where a persistent session's shell state is dumped: the path as a command names it,
        and the same file on the host (in the private tmp directory either way)."""
        host = self.tmpdir() / STATE_NAME
        return (f"{TMP}/{STATE_NAME}" if self.tier is Tier.BWRAP else str(host)), host

    def own_loopback(self) -> bool:
        """Does a command run without the network get a network namespace of its own, whose
        only interface is its loopback? (bwrap: ``--unshare-net``; the host's namespace under
        Landlock or no tier.)"""
        return self.tier is Tier.BWRAP and not self.disabled

    @property
    def keeps_jobs(self) -> bool:
        """Does a background process outlive its command here (see ``background``)?"""
        return (self._background is not None and self.prespawn and self.prespawn_error is None)

    def jobs(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(the background jobs running now, those that ended or were stopped since the last
        call — each said once)."""
        if self._background is None:
            return (), ()
        return self._background.report()

    def close(self) -> None:
        """Stop the pre-spawned sandboxes (and with them every background job) and remove the
        private tmp directory (a later run starts afresh)."""
        if self._background is not None:
            self._background.close()
        self._pool.close()
        with self._lock:
            if self._cleanup is not None:
                self._cleanup()
            self._tmp, self._cleanup = None, None

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run(self, command: str, policy: Policy, cwd: str | Path | None = None, *,
            prelude: str = "", epilogue: str = "") -> ExecResult:
        """Run ``command`` with bash under ``policy`` in ``cwd``. Never raises. ``prelude`` and
        ``epilogue``: the caller's bash around it (see ``script.wrap``)."""
        start = time.monotonic()
        here = Path(cwd) if cwd else policy.workspace
        try:
            return self._run(command, policy, here, start, (prelude, epilogue))
        except Exception as exc:  # a sandbox failure is a result, not a crash of the caller
            return ExecResult("", f"shellgate: sandbox error: {type(exc).__name__}: {exc}\n", None,
                              None, False, False, here, str(self.tier), time.monotonic() - start,
                              notes=(f"sandbox error: {exc}",))

    # -- internals -------------------------------------------------------------------------

    def _run(self, command: str, policy: Policy, cwd: Path, start: float,
             around: tuple[str, str] = ("", "")) -> ExecResult:
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
        env = self.env_for(policy, cwd)
        disk = Disk()  # one look at each path for the mounts, their identity and the guard
        guarded, mounted = self._guarded(policy, tier, disk)
        guard, pins = Guard(guarded, disk, policy.roots()), Pins(mounted, disk)
        try:
            job, status_r, server = self._start(tier, policy, command, cwd, tmp, home, env,
                                                notes, disk, around)
            try:
                try:
                    out, err, timed_out, over, full = pump(job, lim, start, _scratch(tmp, lim))
                finally:
                    job.close()
            finally:
                if server is not None:
                    self._pool.release(server)
                status = _read_all(status_r)
        finally:  # protected paths are put back even when something above failed
            violations = pins.check() + guard.check()

        trailer = parse_trailer(status)
        rc = job.returncode if job.returncode is not None else -signal.SIGKILL
        sig: int | None = None
        if timed_out:
            code, sig = TIMEOUT_EXIT, signal.SIGKILL
            notes.append(f"timed out after {lim.timeout:g} s; the whole process tree was killed")
        elif trailer is not None:
            code = trailer[0]
        elif rc < 0:
            code, sig = 128 - rc, -rc
        elif job.signal_in_code and 128 < rc <= 128 + 64:  # bwrap reports a signal as 128+N
            code, sig = rc, rc - 128
        else:
            code = rc
        if over:
            notes.append(f"output exceeded {lim.output_hard} bytes; the command was killed")
            sig = sig or signal.SIGKILL
        if full:
            notes.append(f"{full}; the command was killed")
            sig = sig or signal.SIGKILL
        new_cwd = cwd
        if trailer is not None and trailer[1] != cwd:
            if trailer[1].is_dir():
                new_cwd = trailer[1]
            else:
                notes.append(f"cwd {trailer[1]} is not visible outside the sandbox; staying in {cwd}")
        running: tuple[str, ...] = ()
        if self._background is not None:
            running, said = self._background.report()
            notes += said
        kept = isinstance(job, ServerJob) and job.background is not None
        if not kept and _backgrounds(command):
            notes.append("background processes end with the command in this sandbox "
                         f"({self.description}); none is left running")
        return ExecResult(out.render(), err.render(), code, sig, timed_out,
                          out.truncated or err.truncated, new_cwd, str(tier),
                          time.monotonic() - start, out.total, err.total, tuple(violations),
                          tuple(notes), running)

    def _guarded(self, policy: Policy, tier: Tier,
                 disk: Disk | None = None) -> tuple[tuple[Path, ...], tuple[str, ...]]:
        """Protected paths no mount protects this time — all of them outside bwrap; under bwrap
        the ones that do not exist yet (or are symlinks, which can be swapped) — and, under
        bwrap, the ones a read-only mount protects (to pin: see :class:`.guard.Pins`)."""
        disk = disk or Disk()
        roots = [r for r in map(str, policy.roots()) if disk.isdir(r)]
        out: list[Path] = []
        mounted: list[str] = []
        for p in policy.readonly:
            s = str(p)
            if not within_any(s, roots):
                continue
            exists = disk.lexists(s)
            if tier is Tier.BWRAP and exists and not disk.islink(s):
                mounted.append(s)
                continue
            if not exists and "/.git/" in s and not disk.exists(os.path.dirname(s)):
                continue  # a repository the command creates itself (`git init`) is its own
            out.append(p)
        if tier is not Tier.BWRAP:   # files outside with a name inside a root (links.py): no
            out += policy.linked     # mount keeps that name read-only, the guard restores them
        return tuple(dict.fromkeys(out)), tuple(mounted)

    def _start(self, tier: Tier, policy: Policy, command: str, cwd: Path, tmp: Path, home: Path,
               env: dict[str, str], notes: list[str], disk: Disk,
               around: tuple[str, str] = ("", "")) -> tuple[Job, int, Server | None]:
        """The running command, the read end of its status pipe, and the server it borrowed."""
        bash = self._probe.bash
        self._refuse_writable_host_programs(tier, policy)
        if tier is Tier.BWRAP:
            visible = [home, cwd, *policy.shown] + [d for d in env.get("PATH", "").split(":")
                                                    if d.startswith("/tmp/")]  # only /tmp is replaced
            mounts = mount_args(policy, tmpdir=tmp, visible=visible, disk=disk)
            if self.prespawn and self.prespawn_error is None:
                started = self._start_prespawned(policy, mounts, command, cwd, env, notes, disk,
                                                 around)
                if started is not None:
                    return started
        status_r, status_w = os.pipe()
        program = [bash, "--noprofile", "--norc", "-c",
                   wrap(command, status_w, policy.limits, prelude=around[0], epilogue=around[1])]
        kw = dict(stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                  env=env, close_fds=True, start_new_session=True)
        info_r = -1
        try:
            if tier is Tier.BWRAP:
                info_r, info_w = os.pipe()
                try:
                    proc = self._spawn_bwrap(policy, mounts, program, cwd, (status_w, info_w), kw)
                finally:
                    os.close(info_w)
            else:
                proc = self._spawn_unshared(tier, policy, program, cwd, tmp, status_w, kw)
        except Exception:
            os.close(status_r)
            if info_r >= 0:
                os.close(info_r)
            raise
        finally:
            os.close(status_w)
        return ProcJob(proc, namespaced=tier is Tier.BWRAP, info_fd=info_r), status_r, None

    def _bwrap(self) -> str:
        """The probed, trusted bwrap; never a name for PATH to resolve."""
        if not self._probe.bwrap:
            raise SandboxUnavailable("no trusted bwrap binary")
        return self._probe.bwrap

    def _refuse_writable_host_programs(self, tier: Tier, policy: Policy) -> None:
        """The programs started on the host (bwrap; bash outside bwrap) must not lie under a
        root this command may write: root-owned files pass the probe's check when the user is
        root, so a writable root at /usr/local would otherwise let a command replace them."""
        host = [self._bwrap()] if tier is Tier.BWRAP else [self._probe.bash]
        roots = [os.path.realpath(r) for r in policy.roots()]
        for prog in host:
            if within_any(os.path.realpath(prog), roots):
                raise SandboxUnavailable(f"{prog} lies under a writable root: refusing to run it")

    def _start_prespawned(self, policy: Policy, mounts: list[str], command: str, cwd: Path,
                          env: dict[str, str], notes: list[str], disk: Disk,
                          around: tuple[str, str] = ("", "")) -> tuple[Job, int, Server] | None:
        """Fork the command in a pre-spawned sandbox with exactly these mounts; None: the
        pre-spawned path is unusable here (reason kept in ``prespawn_error``; run fresh)."""
        python = self._server_python()
        if python is None:
            self.prespawn_error = "no Python interpreter visible inside the sandbox for its server"
            notes.append(f"pre-spawned sandbox unavailable: {self.prespawn_error}")
            return None
        base = namespace_args(self._bwrap(), policy) + mounts
        key = (tuple(base), mount_identity(mounts, disk), python)
        program = [self._probe.bash, "--noprofile", "--norc", "-c",
                   wrap(command, STATUS_FD, policy.limits, prelude=around[0], epilogue=around[1])]
        for _ in range(2):  # an idle server may have died since its last command: one retry
            try:
                server, new = self._pool.acquire(
                    key, lambda: Server(key, base, python, policy.network,
                                       loopback=own_network(policy)))
            except (ServerError, OSError) as exc:
                self.prespawn_error = str(exc)
                notes.append(f"pre-spawned sandbox unavailable, ran a fresh one: {exc}")
                return None
            # what runs there already (earlier commands' jobs) is spared by this one's sweeps
            before = frozenset(server.processes()) if self._background is not None else frozenset()
            try:
                out_r, err_r, status_r = server.spawn(cwd, program, env)
            except ServerError as exc:  # not accepted: nothing ran, it may run elsewhere
                self._pool.release(server)
                if new:
                    notes.append(f"pre-spawned sandbox failed, ran a fresh one: {exc}")
                    return None
                continue
            except OSError as exc:  # cwd refused inside: a fresh bwrap reports that its own way
                self._pool.release(server)
                notes.append(f"pre-spawned sandbox could not start the command ({exc}); "
                             "ran a fresh one")
                return None
            except BaseException:
                self._pool.release(server)
                raise
            return ServerJob(server, out_r, err_r, self._background, before, policy.limits), \
                status_r, server
        return None

    def _server_python(self) -> str | None:
        """An interpreter the sandbox can see: not under the replaced /tmp, not masked."""
        if self._python is None:
            self._python = ""
            masked = ("/tmp",)
            for exe, prefix in ((sys.executable, sys.base_prefix), ("/usr/bin/python3", "/usr")):
                real = os.path.realpath(exe) if exe else ""
                if real and os.access(real, os.X_OK) and not any(
                        _within(p, m) for p in (real, os.path.realpath(prefix)) for m in masked):
                    self._python = real
                    break
        return self._python or None

    def _spawn_bwrap(self, policy: Policy, mounts: list[str], program: list[str], cwd: Path,
                     fds: tuple[int, int], kw: dict) -> subprocess.Popen[bytes]:
        """``fds``: the status pipe's write end (passed through) and bwrap's info fd."""
        seccomp_r, seccomp_w = os.pipe()
        try:
            os.write(seccomp_w, filter_bytes(policy.network, loopback=own_network(policy)))
            os.close(seccomp_w)
            argv = (namespace_args(self._bwrap(), policy) + mounts
                    + ["--info-fd", str(fds[1]), "--seccomp", str(seccomp_r),
                       "--chdir", str(cwd), "--", *program])
            return subprocess.Popen(argv, cwd="/", pass_fds=(*fds, seccomp_r), **kw)
        finally:
            os.close(seccomp_r)

    def _spawn_unshared(self, tier: Tier, policy: Policy, program: list[str], cwd: Path,
                        tmp: Path, status_w: int, kw: dict) -> subprocess.Popen[bytes]:
        reaper.enable()
        if tier is Tier.LANDLOCK:
            from .spawner import spawner_for

            # The host's /dev/shm stays writable here: Python's multiprocessing locks and
            # pools (a test runner's workers) need it, and Landlock cannot put a private one in
            # its place. No cap or watch bounds it (a known limit, README; the hook's Landlock
            # line, which runs one command, has none).
            writable = tuple(r for r in (*policy.roots(), tmp, Path("/dev/shm")) if r.is_dir())
            hidden = tuple(p for p in policy.masked if os.path.lexists(p))
            return spawner_for(writable, hidden, policy.network).popen(
                program, cwd=cwd, pass_fds=(status_w,), **kw)
        return subprocess.Popen(program, cwd=cwd, pass_fds=(status_w,), **kw)


def _scratch(tmp: Path, lim: Limits) -> Watch | None:
    """The watch on the private tmp directory's total (:mod:`.scratch`), when it is capped."""
    return Watch(str(tmp), lim.scratch_size) if lim.scratch_size else None


def _backgrounds(command: str) -> bool:
    """Does ``command`` look like it starts a background job (a lone ``&``)? Only for the note
    that says it did not survive: a false hit costs a sentence."""
    return bool(_LONE_AMP.search(command))


_LONE_AMP = re.compile(r"(?<![&>|<])&(?![&>])")


def _remove_tmp(path: str, owner: int) -> None:
    """Remove a private tmp dir — only in the process that made it (a forked child that
    closes or exits must not pull it from under its parent's commands)."""
    if os.getpid() == owner:
        shutil.rmtree(path, True)


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
