"""The execution oracle: run one command in a throwaway world and report what it did.

A command the gate would auto-allow is executed by ``bash -c`` (or the shell of the campaign's
:mod:`dialect <.dialects>`, with its ``sh``/``awk`` first on PATH) inside bubblewrap (read-only
root, no network, own PID namespace, the real HOME masked, the fixture's template and any
other world beside it hidden, the host's locales with an archive of them as /usr/lib/locale
where the host has none: :func:`.fixture.locale_archive`) with only the fixture's workspace,
fake HOME and scratch /tmp writable. Effects are observed from outside:

- ``write`` / ``delete``: a snapshot diff of the writable trees (ctime catches every content or
  metadata change); attempts to write elsewhere (refused by the read-only root) from the trace;
- ``secret-read``: bytes came out of a canary file — its atime moved (:mod:`.atime`; a seccomp
  filter refuses ``O_NOATIME``), or, where that cannot be set up, a traced read/mmap/sendfile/…
  of it under any of its names — or a canary token is in the output;
- ``connect``: any connect/send to an inet or unix socket address (trace; the network namespace
  is empty, so the attempt is what can be seen — an in-namespace listener would add nothing);
- ``exec``: a program executed that is not on the read-only list (trace).

Runs share one sandbox start per batch (:mod:`.batch`: the same bwrap, the same strace filter,
a runner inside that starts one command at a time); a batch that breaks reruns the command in
a single-use sandbox, which is also the only way without strace or a system python3
(``Oracle(batch=False)``).

Without strace only the snapshot, output and atime effects are observed (``Oracle.traced`` is
false; ``Oracle.reads_seen`` says how reads are: "atime", "trace" or "output only").
Without bubblewrap the oracle refuses to run anything: fuzzed commands are hostile by design.
"""

from __future__ import annotations

import contextlib
import os
import resource
import select
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .._record import field, record
from ..sandbox.bwrap import cap_drop
from . import atime, fixture, trace
from .batch import BatchBroken, BatchSandbox
from .dialects import DIALECTS, Dialect
from .programs import exec_allowed as default_exec_allowed
from .programs import helper_allowed, self_exec

SYSTEM_BIN_DIRS = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")
SANDBOX_PATH = ":".join(SYSTEM_BIN_DIRS)

# Opens/unix sockets that libc and bash make on their own; never an effect.
_IGNORED_WRITE_PATHS = ("/dev/null", "/dev/tty", "/dev/zero", "/dev/full", "/dev/stdout",
                        "/dev/stderr", "/dev/stdin")
_IGNORED_WRITE_PREFIXES = ("/dev/fd/", "/proc/self/fd/", "/dev/pts/", "/proc/self/task/")
_IGNORED_UNIX_SOCKETS = ("/var/run/nscd/socket", "/run/nscd/socket", "/run/systemd/userdb/",
                         "/run/systemd/journal/")

KINDS = ("write", "delete", "secret-read", "connect", "exec")
OUTPUT_CAP = 1 << 20          # bytes of stdout/stderr kept and searched for canaries
TRACE_CAP = 16 << 20          # bytes of one run's trace parsed
# The oracle's own files in its private directory (outputs and traces of runs).
_PRIVATE_FILES = ("cmd.out", "cmd.err", "cmd.trace", "probe.trace")
# A batch's stdout and stderr files, beside the world (not in the sandbox's view: the runner
# gets them as fds); a command reaches them only through its own /dev/stdout, /dev/stderr.
_BATCH_OUTPUTS = ("batch.out", "batch.err")
FILE_SIZE_LIMIT = 64 << 20    # RLIMIT_FSIZE for the command: no runaway output files


class OracleUnavailable(RuntimeError):
    """The host cannot run the oracle safely (no bubblewrap, or bubblewrap cannot start)."""


def sandbox_binary() -> str:
    """The bwrap every fuzzer run goes through: only a trusted one (root-owned system file, never
    one found on PATH: :mod:`shellgate.sandbox.trusted`), else :class:`OracleUnavailable`."""
    from ..sandbox.probe import find_bwrap

    found, refused = find_bwrap()
    if not found:
        why = f" ({'; '.join(refused)})" if refused else ""
        raise OracleUnavailable("bubblewrap (bwrap) not found in a trusted place: refusing to run "
                                f"anything outside a sandbox{why}")
    return found[0].path


def preflight() -> str:
    """The bwrap, once it is shown to start here: checked before the fuzzer runs anything (the
    ``--help`` harvest included), so that nothing ever runs unconfined. Else
    :class:`OracleUnavailable`."""
    bwrap = sandbox_binary()
    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-net",
            "--unshare-pid", "--die-with-parent", "--clearenv", "--", "/bin/true"]
    try:
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=20)
    except (OSError, subprocess.SubprocessError) as exc:
        raise OracleUnavailable(f"bubblewrap cannot start: {exc}") from exc
    if p.returncode != 0:
        raise OracleUnavailable("bubblewrap cannot start: "
                                + p.stderr.decode(errors="replace").strip()[:300])
    return bwrap


@record
class Effect:
    """One observed side effect. ``kind`` is one of :data:`KINDS`."""

    kind: str
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "detail": self.detail}


@record
class Observation:
    command: str
    effects: tuple[Effect, ...]
    exit_code: int | None
    timed_out: bool
    duration: float
    stdout: str = ""
    stderr: str = ""
    execs: tuple[str, ...] = field(default=())   # every program path executed (trace)

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset(e.kind for e in self.effects)


# A snapshot entry: (type, mode, uid, gid, size, mtime_ns, ctime_ns, ino, link target).
Entry = tuple[str, int, int, int, int, int, int, int, str]


def snapshot(roots: Iterable[Path]) -> dict[str, Entry]:
    """Every path under ``roots``, and the roots, with what is needed to see that it changed
    (a ``chmod`` of the workspace itself is a write)."""
    out: dict[str, Entry] = {}
    stack = [str(r) for r in roots]
    for top in stack:
        with contextlib.suppress(OSError):
            st = os.lstat(top)
            out[top] = ("d" if os.path.isdir(top) else "?", st.st_mode, st.st_uid, st.st_gid,
                        st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, "")
    while stack:
        top = stack.pop()
        try:
            it = os.scandir(top)
        except OSError:
            continue
        with it:
            for e in it:
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                if e.is_symlink():
                    kind, target = "l", os.readlink(e.path)
                elif e.is_dir(follow_symlinks=False):
                    kind, target = "d", ""
                    stack.append(e.path)
                else:
                    kind, target = "f", ""
                out[e.path] = (kind, st.st_mode, st.st_uid, st.st_gid, st.st_size,
                               st.st_mtime_ns, st.st_ctime_ns, st.st_ino, target)
    return out


def diff(before: dict[str, Entry], after: dict[str, Entry], shown: Callable[[str], str]) -> list[Effect]:
    """Effects between two snapshots. Directories count only when created, deleted or
    re-permissioned: their mtime moves whenever a temporary file comes and goes."""
    effects: list[Effect] = []
    for path in sorted(after.keys() - before.keys()):
        effects.append(Effect("write", f"created {shown(path)}"))
    for path in sorted(before.keys() - after.keys()):
        effects.append(Effect("delete", f"deleted {shown(path)}"))
    for path in sorted(before.keys() & after.keys()):
        b, a = before[path], after[path]
        if b == a:
            continue
        if b[0] != a[0]:
            effects.append(Effect("write", f"replaced {shown(path)}"))
        elif a[0] == "d":
            if b[1:4] != a[1:4]:
                effects.append(Effect("write", f"chmod/chown {shown(path)}"))
        elif b[1:4] != a[1:4] and b[4:6] == a[4:6]:
            effects.append(Effect("write", f"chmod/chown {shown(path)}"))
        else:
            effects.append(Effect("write", f"modified {shown(path)}"))
    return effects


@contextlib.contextmanager
def _child_limits():
    """Lower our own soft limits while spawning, so the child inherits them.

    Cheaper than ``preexec_fn`` (which rules out vfork and costs a fork of this process); the
    hard limits stay, and ours are restored at once."""
    saved = []
    for res, soft in ((resource.RLIMIT_FSIZE, FILE_SIZE_LIMIT), (resource.RLIMIT_CORE, 0)):
        try:
            old = resource.getrlimit(res)
            new = soft if old[1] == resource.RLIM_INFINITY else min(soft, old[1])
            resource.setrlimit(res, (new, old[1]))
            saved.append((res, old))
        except (ValueError, OSError):
            pass
    try:
        yield
    finally:
        for res, old in saved:
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(res, old)


class Oracle:
    """A reusable sandboxed world. Not thread-safe; use one per worker process.

    ``exec_allowed(basename)`` says whether running a program of that name is expected of a
    read-only command; the default asks the read-only classifier's tables.
    """

    def __init__(self, root: str | Path | None = None, timeout: float = 5.0,
                 exec_allowed: Callable[[str], bool] | None = None,
                 token_seed: str | None = None, use_strace: bool = True,
                 dialect: Dialect | None = None, batch: bool = True) -> None:
        self.bwrap = sandbox_binary()
        self.dialect = dialect or DIALECTS["bash"]
        if missing := self.dialect.missing():
            raise OracleUnavailable(f"the {self.dialect.name} dialect needs {', '.join(missing)}")
        self.strace = _strace() if use_strace else None
        self.timeout = timeout
        self.exec_allowed = exec_allowed or default_exec_allowed
        base = Path(root) if root else Path(tempfile.mkdtemp(prefix="shellgate-fuzz-", dir=_base_dir()))
        base.mkdir(parents=True, exist_ok=True)
        self._owned = root is None
        self.base = base.resolve()
        self.template = fixture.Layout(self.base / "template")
        self.live = fixture.Layout(self.base / "live")
        self.private = self.base / "run"
        self.private.mkdir(exist_ok=True)
        self._shell = [shutil.which(self.dialect.shell[0]) or "", *self.dialect.shell[1:]]
        self.links = self.base / "dialect-bin"   # bound read-only: no command can re-point it
        self.links.mkdir(exist_ok=True)
        self._linked: dict[str, str] = {}         # link path -> the program it runs
        for name, prog in self.dialect.links.items():
            target = shutil.which(prog) or ""
            with contextlib.suppress(FileNotFoundError):
                (self.links / name).unlink()
            (self.links / name).symlink_to(target)
            self._linked[str(self.links / name)] = target
        self.canaries = fixture.build_template(self.template, token_seed)
        # Canaries as seen in the live world (same relative place, same token).
        self.live_canaries = tuple(
            fixture.Canary(self.live.root / c.path.relative_to(self.template.root), c.token)
            for c in self.canaries)
        self._canary_paths = {str(c.path): c for c in self.live_canaries}
        self._real_home = self._home_to_mask()
        self._mask = self._dir_to_mask()
        self._locales = _locales(self.base / "locales")
        # Canary reads seen by their atime (.atime) rather than by tracing every read: decided
        # by the probe, which falls back to the trace when this host's mounts or arch say no.
        self._seccomp = atime.seccomp_filter()
        self._watch: atime.CanaryWatch | None = None
        self.rebuilds = 0
        self.restores = 0
        self._rebuild()
        self._probe()
        # One sandbox start for many runs (.batch); needs the trace (a file per process) and a
        # trusted python3 for the runner.
        self._batch: BatchSandbox | None = None
        self._batch_tools: str | None = _batch_tools() if batch and self.strace else None
        self.batch_starts = 0
        self.batch_fallbacks = 0   # runs redone in a single-use sandbox after a batch broke
        self.batch_broken = ""     # why the last batch broke
        self.reads_between_runs = 0   # canary reads no command made (re-armed, not reported)

    # -- world ------------------------------------------------------------------------------

    @property
    def workspace(self) -> Path:
        return self.live.workspace

    @property
    def home(self) -> Path:
        return self.live.home

    @property
    def traced(self) -> bool:
        return self.strace is not None

    @property
    def reads_by_atime(self) -> bool:
        """Canary reads are seen by their atime (else by tracing reads, or not at all)."""
        return self._watch is not None

    @property
    def reads_seen(self) -> str:
        return "atime" if self._watch else "trace" if self.strace else "output only"

    def _rebuild(self) -> None:
        fixture.copy_world(self.template, self.live)
        self._rearm_all()
        self.rebuilds += 1

    def _rearm(self, indexes: list[int]) -> None:
        """Arm these canaries again in place; their baseline entries follow (arming moves the
        ctime). A canary that is no longer the file at its path (the world changed since the
        baseline was taken) gets the full treatment."""
        assert self._watch is not None
        self._watch.rearm(indexes)
        for i in indexes:
            path = self._watch.paths[i]
            try:
                st = os.lstat(path)
            except OSError:
                self._rearm_all()
                return
            old = self._baseline.get(path)
            if old is None or old[7] != st.st_ino or not stat.S_ISREG(st.st_mode):
                self._rearm_all()
                return
            self._baseline[path] = ("f", st.st_mode, st.st_uid, st.st_gid, st.st_size,
                                    st.st_mtime_ns, st.st_ctime_ns, st.st_ino, "")

    def _rearm_all(self) -> None:
        """Arm every canary (it may be a new file) and take the baseline: arming moves ctimes."""
        if self._watch is not None:
            self._watch.arm()
        self._baseline = snapshot(self.live.watched)

    def _restore(self, after: dict[str, Entry]) -> None:
        """Put back only what changed (copying from the template); a full rebuild if that fails.

        Cheaper than a rebuild for the usual one-file change. Restored workspace files get new
        inodes, so git's index is settled again afterwards."""
        base = self._baseline
        changed = [p for p in after.keys() | base.keys() if after.get(p) != base.get(p)
                   and not (p in after and p in base and after[p][0] == base[p][0] == "d"
                            and after[p][1:4] == base[p][1:4])]
        live, tmpl = str(self.live.root), str(self.template.root)
        try:
            for path in sorted(changed, key=len, reverse=True):   # children before parents
                if path in after and (path not in base or after[path][0] != base[path][0]):
                    _remove(path)
            for path in sorted(changed, key=len):                 # parents before children
                if path not in base:
                    continue
                src = tmpl + path[len(live):]
                kind = base[path][0]
                if kind == "d":
                    os.makedirs(path, exist_ok=True)
                    shutil.copystat(src, path)
                    continue
                if os.path.lexists(path):
                    _remove(path)
                if kind == "l":
                    os.symlink(os.readlink(src), path)
                else:
                    shutil.copy2(src, path)
            # Directories whose entries came and went: their times as in the template too, so
            # that the next command's ``ls -la`` reads what it would in a fresh world.
            drifted = {p for p in after.keys() & base.keys()
                       if after[p][0] == base[p][0] == "d" and after[p][5] != base[p][5]}
            parents = {os.path.dirname(p) for p in changed} | drifted
            for d in sorted(parents & base.keys(), key=len, reverse=True):
                st = os.stat(tmpl + d[len(live):], follow_symlinks=False)
                os.utime(d, ns=(st.st_atime_ns, st.st_mtime_ns), follow_symlinks=False)
        except OSError:
            self._rebuild()
            return
        if any(p.startswith(str(self.live.workspace) + "/") for p in changed):
            fixture.settle_git(self.live.workspace, self.live.home)
        self._rearm_all()
        self.restores += 1

    def _shown(self, path: str) -> str:
        """A path as a user reads it: ``~/…`` for the fake home, ``ws/…`` for the workspace."""
        for prefix, label in ((str(self.live.workspace), "ws"), (str(self.live.home), "~"),
                              (str(self.live.tmp), "/tmp")):
            if path == prefix or path.startswith(prefix + "/"):
                return label + path[len(prefix):]
        return path

    @staticmethod
    def _home_to_mask() -> str | None:
        home = os.path.realpath(os.path.expanduser("~"))
        return home if home not in ("/", "") and os.path.isdir(home) else None

    def _dir_to_mask(self) -> str:
        """What the sandbox sees as an empty read-only directory, but for the live world bound
        into it: the template (it holds the same canary tokens, on a read-only mount where a
        read moves no atime) and, when nothing the sandbox runs lives there, the other worlds
        beside this one (another worker's canaries)."""
        parent = self.base.parent
        needed = [*SYSTEM_BIN_DIRS, self._shell[0], *self._linked.values(), _strace() or "",
                  _batch_tools() or ""]
        if str(parent) != "/" and not any(n == str(parent) or n.startswith(str(parent) + "/")
                                          for n in needed if n):
            return str(parent)
        return str(self.base)

    # -- sandbox ----------------------------------------------------------------------------

    def _bwrap_argv(self, cwd: Path, seccomp: int | None = None) -> list[str]:
        """The sandbox's words; ``seccomp``: an fd holding :func:`.atime.seccomp_filter`."""
        argv = [self.bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                "--tmpfs", "/dev/shm", "--tmpfs", "/run"]
        if self._locales is not None:
            argv += ["--ro-bind", str(self._locales), str(fixture.SYSTEM_LOCALES)]
        if self._real_home and not str(self.base).startswith(self._real_home + "/"):
            argv += ["--tmpfs", self._real_home]
        argv += ["--tmpfs", self._mask]
        argv += ["--bind", str(self.live.tmp), "/tmp"]
        for d in (self.live.workspace, self.live.home):
            argv += ["--bind", str(d), str(d)]
        argv += ["--bind", str(self.private), str(self.private),
                 "--ro-bind", str(self.links), str(self.links), "--remount-ro", self._mask]
        if seccomp is not None:
            argv += ["--seccomp", str(seccomp)]
        argv += ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                 *cap_drop(), "--die-with-parent", "--new-session", "--clearenv"]
        for name, value in self._env().items():
            argv += ["--setenv", name, value]
        return [*argv, "--chdir", str(cwd)]

    def _env(self) -> dict[str, str]:
        """The whole environment of a command (a batch's runner passes exactly this on).

        ``SHELL`` is what bash would set it to (the user's login shell): without it bash asks
        the passwd database at every start (nsswitch.conf, /etc/passwd and two nscd connects:
        four traced calls, eight ptrace stops, in every command)."""
        return {"PATH": f"{self.links}:{SANDBOX_PATH}", "HOME": str(self.live.home),
                "USER": "fuzz", "LOGNAME": "fuzz", "LANG": "C.UTF-8", "TERM": "dumb",
                "TMPDIR": "/tmp", "PAGER": "cat", "GIT_CONFIG_NOSYSTEM": "1",
                "SHELL": _login_shell()}

    def _probe(self) -> None:
        try:
            p = subprocess.run([*self._bwrap_argv(self.live.workspace), "--", "/bin/true"],
                               capture_output=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise OracleUnavailable(f"bubblewrap cannot start: {exc}") from exc
        if p.returncode != 0:
            raise OracleUnavailable("bubblewrap cannot start: "
                                    + p.stderr.decode(errors="replace").strip()[:300])
        self._watch = self._probe_atime()
        if self.strace:
            out = str(self.private / "probe.trace")
            with self._filter() as fd:
                p = subprocess.run([*self._bwrap_argv(self.live.workspace, fd), "--",
                                    *trace.strace_argv(self.strace, out, reads=not self._watch),
                                    "/bin/true"], capture_output=True, timeout=20,
                                   pass_fds=_fds(fd))
            if p.returncode != 0:
                self.strace = None  # e.g. ptrace forbidden: run untraced, say so
        if snapshot(self.live.watched) != self._baseline:
            self._rebuild()
        else:
            self._rearm_all()

    def _probe_atime(self) -> atime.CanaryWatch | None:
        """A watch on the canaries when reading each one in the sandbox (twice, re-armed in
        between) moves its atime and an ``O_NOATIME`` read is refused there; else None, and
        reads are traced as before (:mod:`.atime`)."""
        if self._seccomp is None or not self.live_canaries:
            return None
        watch = atime.CanaryWatch(c.path for c in self.live_canaries)
        paths = watch.paths
        script = ('cat -- "$@" >/dev/null || exit 3; dd if="$1" of=/dev/null iflag=noatime '
                  'status=none 2>/dev/null && echo noatime-read; echo done')
        try:
            watch.arm()
            for _ in range(2):
                with atime.filter_fd(self._seccomp) as fd:
                    p = subprocess.run([*self._bwrap_argv(self.live.workspace, fd), "--",
                                        "/bin/sh", "-c", script, "probe", *paths],
                                       capture_output=True, timeout=20, pass_fds=(fd,))
                if p.returncode != 0 or p.stdout.split() != [b"done"] or len(watch.read()) != len(paths):
                    watch.close()
                    return None
                watch.rearm(range(len(paths)))
        except (OSError, subprocess.TimeoutExpired):
            watch.close()
            return None
        return watch

    def _filter(self) -> contextlib.AbstractContextManager[int | None]:
        """The seccomp filter's fd for one sandbox start, when reads are seen by atime."""
        if self._watch is not None and self._seccomp is not None:
            return atime.filter_fd(self._seccomp)
        return contextlib.nullcontext(None)

    # -- running ----------------------------------------------------------------------------

    def run(self, command: str, cwd: str | Path | None = None) -> Observation:
        """Execute ``command`` once in the live world and return every effect seen.

        The world is restored afterwards when the command changed it. Never raises for what
        the command does; raises :class:`OracleUnavailable` only if the sandbox itself broke.
        """
        workdir = Path(cwd) if cwd else self.live.workspace
        if self._watch is not None and (early := self._watch.read()):
            # Read since the last run, so not by this command: by the caller's own process
            # or anyone else on the host. Only what is read while the command runs is its own.
            self.reads_between_runs += len(early)
            self._rearm(early)
        if self._batch_tools is not None:
            try:
                return self._run_batched(command, workdir)
            except BatchBroken as exc:
                self.batch_fallbacks += 1   # the batch is closed; this run starts afresh
                self.batch_broken = str(exc)
                self._reset_after_broken_batch()
        return self._run_single(command, workdir)

    def _run_batched(self, command: str, workdir: Path) -> Observation:
        if self._batch is None or not self._batch.alive:
            try:
                with _child_limits(), self._filter() as fd:
                    self._batch = BatchSandbox(
                        self._bwrap_argv(self.live.workspace, fd) + ["--"], self.strace or "",
                        self._batch_tools, self.private, self._env(),
                        *(self.base / n for n in _BATCH_OUTPUTS), self.base / "batch.log", TRACE_CAP,
                        subprocess.Popen, pass_fds=_fds(fd), reads=not self._watch)
            except BatchBroken:
                self._batch_tools = None   # this host cannot batch: single-use sandboxes from now on
                raise
            self.batch_starts += 1
        ended = self._batch.run([*self._shell, command], str(workdir), self.timeout)
        removed = [Effect("delete", f"removed the oracle's trace of a process ({pid})")
                   for pid in ended.missing]
        return self._observe(command, ended.code, ended.timed_out, ended.duration,
                             ended.stdout, ended.stderr,
                             ended.trace, removed)

    def _reset_after_broken_batch(self) -> None:
        """A batch broke mid-command: whatever that command did to the world is undone before
        it runs again in a single-use sandbox."""
        self._batch = None
        if snapshot(self.live.watched) != self._baseline:
            self._rebuild()
        elif self._watch is not None and self._watch.read():
            self._rearm_all()

    def _run_single(self, command: str, workdir: Path) -> Observation:
        """One bwrap and one strace for this command alone."""
        tpath = self.private / "cmd.trace"
        opath, epath = self.private / "cmd.out", self.private / "cmd.err"
        for p in (tpath, opath, epath):
            with contextlib.suppress(FileNotFoundError):
                p.unlink()
        start = time.monotonic()
        timed_out = False
        with open(opath, "wb") as out, open(epath, "wb") as err:
            try:
                with _child_limits(), self._filter() as fd:
                    argv = self._bwrap_argv(workdir, fd) + ["--"]
                    if self.strace:
                        argv += trace.strace_argv(self.strace, str(tpath), reads=not self._watch)
                    argv += [*self._shell, command]
                    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                            start_new_session=True, pass_fds=_fds(fd))
            except (OSError, ValueError) as exc:
                raise OracleUnavailable(f"cannot start the sandbox: {exc}") from exc
            code: int | None = _wait(proc, self.timeout)
            if code is None:
                timed_out = True
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                code = None
                proc.wait()
        duration = time.monotonic() - start
        text = _head(tpath, TRACE_CAP) if self.strace and tpath.exists() else None
        # The private directory is writable in the sandbox (strace writes there): a command
        # that removed its own trace hid what it did, which is an effect in itself.
        removed = [Effect("delete", "removed the oracle's trace")] if self.strace and text is None else []
        return self._observe(command, code, timed_out, duration, _head(opath), _head(epath), text,
                             removed)

    def _observe(self, command: str, code: int | None, timed_out: bool, duration: float,
                 stdout: str, stderr: str, trace_text: str | None,
                 effects: list[Effect]) -> Observation:
        """Every effect of a finished run (output, trace, snapshot diff, and ``effects`` seen
        already); the world restored."""
        after = snapshot(self.live.watched)
        dirty = after != self._baseline
        if dirty:
            effects += diff(self._baseline, after, self._shown)
        read = self._watch.read() if self._watch is not None else []
        for i in read:
            effects.append(Effect("secret-read", f"read {self._shown(self._watch.paths[i])}"))  # type: ignore[union-attr]
        for c in self.live_canaries:
            if c.token in stdout or c.token in stderr:
                effects.append(Effect("secret-read", f"printed the canary of {self._shown(str(c.path))}"))
        execs: tuple[str, ...] = ()
        if trace_text is not None:
            traced, execs = self._trace_effects(trace.parse(trace_text), self._aliases(after))
            effects += traced
        self._clear_private()
        if dirty:
            self._restore(after)   # re-arms every canary
        elif read:
            self._rearm(read)
        return Observation(command, tuple(_dedup(effects)), code, timed_out, duration,
                           stdout[:4000], stderr[:4000], execs)

    def _aliases(self, after: dict[str, Entry]) -> dict[str, fixture.Canary]:
        """The canaries under every name they have after a command (a hard link made by it is
        the same file): what traced reads are matched against. Not needed with atime."""
        if self._watch is not None or not self.strace:
            return self._canary_paths
        inode = {self._baseline[p][7]: c for p, c in self._canary_paths.items() if p in self._baseline}
        out = dict(self._canary_paths)
        for path, e in after.items():
            if e[0] == "f" and e[7] in inode:
                out.setdefault(path, inode[e[7]])
        return out

    def _trace_effects(self, calls: list[trace.Call],
                       canaries: dict[str, fixture.Canary] | None = None,
                       ) -> tuple[list[Effect], tuple[str, ...]]:
        effects: list[Effect] = []
        execs: list[str] = []
        first_exec = True
        watched = tuple(str(p) + "/" for p in self.live.watched) + ("/tmp/",)
        program: dict[int, str] = {}   # pid -> the program it is running (inherited on fork)
        # A vfork child runs (and execs) before its parent's clone returns, so parents are
        # collected first; a child's program is its parent's until it execs.
        parent = {c.ret: c.pid for c in calls
                  if c.name in ("clone", "clone3", "fork", "vfork") and c.ret is not None and c.ret > 0}

        def running(pid: int) -> str:
            if pid not in program and pid in parent:
                program[pid] = running(parent[pid]) if parent[pid] != pid else ""
            return program.get(pid, "")

        private = ({str(self.private / n) for n in _PRIVATE_FILES}
                   | {str(self.base / n) for n in _BATCH_OUTPUTS})
        # Every canary path starts with this: a read whose text lacks it reads none of them.
        canaries = self._canary_paths if canaries is None else canaries
        canary_root = os.path.commonpath(list(canaries)) if canaries else ""
        for call in calls:
            name = call.name
            if name in ("clone", "clone3", "fork", "vfork"):
                if call.ret is not None and call.ret > 0 and call.ret not in program:
                    program[call.ret] = running(call.pid)
                continue
            if name in ("execve", "execveat"):
                if call.ret != 0:
                    continue
                path = trace.path_arg(call) or "?"
                path = self._linked.get(path, path)   # the dialect's sh/awk is what it runs
                runner = running(call.pid)
                base = os.path.basename(path)
                helper = helper_allowed(runner, base)
                program[call.pid] = runner if helper else base
                if first_exec:  # strace starting our own shell
                    first_exec = False
                    continue
                execs.append(path)
                ok = (os.path.dirname(path) in SYSTEM_BIN_DIRS and (helper or self.exec_allowed(base))
                      or self_exec(runner, path))
                if not ok:
                    effects.append(Effect("exec", f"executed {path}"))
            elif name in ("open", "openat", "openat2", "creat"):
                ok = call.ret is not None and call.ret >= 0
                # What the fd is (-y): a file's real path, or pipe:[N]/socket:[N] when a name
                # like /dev/stdout reopened one of the command's own pipes — not a file written.
                path = (call.ret_path if ok and call.ret_path and call.ret_path.startswith("/")
                        else trace.path_arg(call))
                if path is None:
                    continue
                if trace.opens_for_write(call) and _outside(path, watched) and path not in private:
                    effects.append(Effect("write", f"opened for writing {path}"
                                          + (f" ({call.errno})" if call.errno else "")))
            elif name in trace.READS:
                if call.ret is None or call.ret == 0 or (call.ret < 0 and name != "mmap") or call.errno:
                    continue
                if not canary_root or canary_root not in call.args:   # most reads: a library
                    continue
                for path in trace.fd_paths(call):
                    canary = canaries.get(path)
                    if canary is not None:
                        effects.append(Effect("secret-read", f"read {self._shown(str(canary.path))}"))
            elif name in ("connect", "sendto", "sendmsg", "bind"):
                addr = trace.sockaddr(call)
                if addr is None:
                    continue
                family, where = addr
                if family == "AF_UNIX" and (where.startswith(_IGNORED_UNIX_SOCKETS) or name == "bind"):
                    continue
                if family in ("AF_INET", "AF_INET6", "AF_UNIX"):
                    effects.append(Effect("connect", f"{name} {family} {where}"))
            else:
                path = trace.path_arg(call)
                if path is None or not path.startswith("/") or not _outside(path, watched):
                    continue
                kind = "delete" if name in ("unlink", "unlinkat", "rmdir") else "write"
                if name.startswith("rename"):
                    kind = "delete"
                effects.append(Effect(kind, f"{name} {path}" + (f" ({call.errno})" if call.errno else "")))
        return effects, tuple(execs)

    # -- lifetime ---------------------------------------------------------------------------

    def _clear_private(self) -> None:
        """Remove what a command left in the oracle's private directory (its writes there
        are effects already): the next command must not see it."""
        try:
            extra = [n for n in os.listdir(self.private) if n not in _PRIVATE_FILES]
        except OSError:
            return
        for name in extra:
            _remove(str(self.private / name))

    def close(self) -> None:
        if self._batch is not None:
            self._batch.close()
            self._batch = None
        if self._watch is not None:
            self._watch.close()
        if self._owned:
            fixture.remove_tree(self.base)

    def __enter__(self) -> Oracle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def describe(self) -> dict[str, Any]:
        return {"sandbox": "bwrap", "traced": self.traced, "reads": self.reads_seen,
                "timeout": self.timeout,
                "dialect": self.dialect.name,
                "workspace": str(self.workspace), "home": str(self.home)}


def _wait(proc: subprocess.Popen[bytes], timeout: float) -> int | None:
    """The exit status, or None once ``timeout`` passed. ``Popen.wait(timeout)`` polls with
    sleeps that grow to 50 ms, which was most of an execution's cost; a pidfd wakes at the exit."""
    try:
        fd = os.pidfd_open(proc.pid)
    except OSError:  # a kernel without pidfds: the polling wait
        try:
            return proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
    try:
        if not select.select([fd], [], [], timeout)[0]:
            return None
    finally:
        os.close(fd)
    return proc.wait()


def _login_shell() -> str:
    """The shell bash names in ``$SHELL`` when it is not set: the passwd entry's."""
    import pwd

    try:
        return pwd.getpwuid(os.getuid()).pw_shell or "/bin/sh"
    except KeyError:
        return "/bin/sh"


def _fds(fd: int | None) -> tuple[int, ...]:
    return () if fd is None else (fd,)


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        fixture.remove_tree(Path(path))
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def _outside(path: str, watched: tuple[str, ...]) -> bool:
    if path in _IGNORED_WRITE_PATHS or path.startswith(_IGNORED_WRITE_PREFIXES):
        return False
    return not (path + "/").startswith(watched)


def _head(path: Path, cap: int = OUTPUT_CAP) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(cap).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _dedup(effects: list[Effect]) -> list[Effect]:
    seen: set[Effect] = set()
    out = []
    for e in effects:
        if e not in seen:
            seen.add(e)
            out.append(e)
    return out


def _strace() -> str | None:
    """strace from the system directories: it reports what a command did, so one planted on
    PATH could hide effects."""
    from ..sandbox.trusted import find_program

    found, _ = find_program("strace")
    return found[0].path if found else None


def _locales(dest: Path) -> Path | None:
    """The system's locales with an archive (:func:`.fixture.locale_archive`), built by a
    trusted ``localedef``; None: the sandbox sees the system's own."""
    from ..sandbox.trusted import find_program

    found, _ = find_program("localedef")
    if not found:
        return None
    try:
        return fixture.locale_archive(dest, found[0].path)
    except (OSError, subprocess.SubprocessError):
        return None


def _batch_tools() -> str | None:
    """The system python3 that runs the batch runner, trusted like strace; None: no
    batching, one sandbox per run."""
    from ..sandbox.trusted import find_program

    python, _ = find_program("python3")
    return python[0].path if python else None


def _base_dir() -> str:
    """Not under /tmp: the sandbox mounts the scratch dir over /tmp, and the world's paths
    must be the same inside and outside."""
    for d in (os.environ.get("SHELLGATE_FUZZ_DIR"), "/var/tmp", os.path.expanduser("~/.cache")):
        if d and os.path.isdir(d) and os.access(d, os.W_OK) and not d.startswith("/tmp"):
            return d
    raise OracleUnavailable("no writable directory outside /tmp for the fuzz world "
                            "(set SHELLGATE_FUZZ_DIR)")
