"""Pre-spawned bwrap sandboxes: start bwrap once per filesystem view, fork each command inside.

A fresh bwrap costs 5–13 ms per command (namespaces, ~40 mounts, an init process); bash -c
itself costs 2–3 ms. Here one long-lived sandbox per *view* (the exact mount list, network
on/off) runs :mod:`.forkserver`; a command is then one ``posix_spawn`` of bash inside it plus
a round trip on a socketpair, its stdout/stderr/status pipes created here and passed over
SCM_RIGHTS.

What a fresh sandbox gave for free is rebuilt explicitly:

- *The tree dies with the command.* The PID namespace now outlives commands, so after each
  command (and on timeout or output overflow) the host kills every process of the namespace
  except its init and the server, listing them through the sandbox's own ``/proc`` (reached as
  ``/proc/<init>/root/proc``, exact, no host-wide scan) and signalling each through a
  ``/proc/<pid>`` directory fd (``pidfd_send_signal``: no pid-reuse race). If that does not
  converge, or the server stops answering, the whole sandbox is torn down.
- *The mounts match the disk.* The key of a sandbox is its mount list (built from the disk
  state per command, as for a fresh one) plus the inode of every mount point; a path created,
  removed or replaced on the host since gives a new key, hence a new sandbox.
- *One command at a time per sandbox*: concurrent commands get their own sandboxes (a sweep
  must not hit a neighbour).
- *Per command as before*: a new session (``posix_spawn`` with setsid), stdin /dev/null, the
  allowlisted environment built here, rlimits by ``ulimit`` in the script, the same seccomp
  filter (installed by bwrap on the server, inherited by every command).
- *Never run twice*: the server acknowledges a request before starting it; a request that
  was not acknowledged is retried on a new sandbox, one that was is never sent again (the
  command may kill the server before it can say more).

Left shared between the commands of one sandbox, as /tmp already was for a session: the
sandbox's own /dev tmpfs and SysV IPC namespace; and ``ps`` inside shows the init and the
server. The server is not dumpable (its memory, fds and environment are out of reach through
/proc) and holds nothing the commands lack.

Lifecycle: started lazily, replaced when dead, closed with the owning ``Sandbox`` (or
``BashTool.close``), on garbage collection and at exit. bwrap is launched from one long-lived
thread: ``--die-with-parent`` is a parent-*thread* death signal, and a caller's short-lived
worker thread would take the sandbox down with it.
"""

from __future__ import annotations

import array
import atexit
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from . import forkserver
from .seccomp import filter_bytes

STATUS_FD = forkserver.STATUS_FD
START_TIMEOUT = 30.0          # seconds for bwrap + the server's interpreter to come up
REPLY_TIMEOUT = 10.0          # seconds for the server to acknowledge a request
SWEEP_TIMEOUT = 2.0           # seconds for killed processes to die before the sandbox is dropped
_SERVER_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C"}
_MAX_REQUEST = 1 << 20

Key = tuple[object, ...]
Proc = tuple[int, int]   # a tenant: (pid in the sandbox, start time in clock ticks)


class ServerError(RuntimeError):
    """The sandbox could not be started or stopped answering (the caller falls back or retries)."""


_source: str | None = None


def _server_source() -> str:
    global _source
    if _source is None:
        _source = Path(forkserver.__file__).read_text(encoding="utf-8")
    return _source


_launcher_lock = threading.Lock()
_launcher: tuple[int, ThreadPoolExecutor] | None = None


def _launch(argv: list[str], **kw: object) -> subprocess.Popen[bytes]:
    """Popen on the long-lived launcher thread (see the module docstring)."""
    global _launcher
    with _launcher_lock:
        if _launcher is None or _launcher[0] != os.getpid():  # a forked child has no thread
            _launcher = (os.getpid(), ThreadPoolExecutor(1, thread_name_prefix="shellgate-launcher"))
        pool = _launcher[1]
    return pool.submit(subprocess.Popen, argv, **kw).result()


# -- every server alive in this process: closed at exit, listed for leak checks -------------

_live_lock = threading.Lock()
_live: set[Server] = set()


def live_servers() -> list[Server]:
    with _live_lock:
        return [s for s in _live if s.owner == os.getpid()]


@atexit.register
def close_all() -> None:
    for s in live_servers():
        s.close()


def _recv(sock: socket.socket, deadline: float) -> bytes | None:
    """One message, or None on EOF; ServerError when ``deadline`` passes first."""
    left = max(deadline - time.monotonic(), 0.0)
    if not select.select([sock], [], [], left)[0]:
        raise ServerError("the sandbox server did not answer in time")
    try:
        return sock.recv(4096) or None
    except OSError:
        return None


def _close_all(fds: tuple[int, ...]) -> None:
    for fd in fds:
        with contextlib.suppress(OSError):
            os.close(fd)


class Server:
    """One bwrap sandbox running the fork server. Not thread-safe: the pool hands it to one
    command at a time."""

    def __init__(self, key: Key, base_argv: list[str], python: str, network: bool,
                 loopback: bool = False) -> None:
        self.key = key
        self.owner = os.getpid()
        self.dead = False
        self.proc: subprocess.Popen[bytes] | None = None
        self._init_fd = self._proc_fd = -1
        self._fd_lock = threading.Lock()  # the /proc fd is closed while others may use it
        self._keep: set[str] = set()
        self.init_pid = self.ns_pid = 0
        self.sock, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        info_r, info_w = os.pipe()
        sec_r, sec_w = os.pipe()
        src_r, src_w = os.pipe()
        try:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, _MAX_REQUEST + 4096)
            seccomp = filter_bytes(network, loopback)
            for w, data in ((sec_w, seccomp), (src_w, _server_source().encode())):
                os.write(w, data)  # both well under a pipe's 64 KiB: never blocks
                os.close(w)
            sec_w = src_w = -1
            # the server's source comes through a pipe: no path that must be visible inside
            boot = f"import os; exec(os.read({src_r}, 1 << 20))"
            argv = base_argv + ["--info-fd", str(info_w), "--seccomp", str(sec_r), "--chdir", "/",
                                "--", python, "-I", "-S", "-c", boot, str(child.fileno())]
            self.proc = _launch(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, env=_SERVER_ENV, cwd="/",
                                pass_fds=(child.fileno(), info_w, sec_r, src_r),
                                start_new_session=True)
            with _live_lock:
                _live.add(self)
        except BaseException:
            self.sock.close()
            raise
        finally:
            child.close()
            for fd in (info_w, sec_r, sec_w, src_r, src_w):
                if fd >= 0:
                    os.close(fd)
        try:
            self._handshake(info_r)
        except BaseException:
            self.close()
            raise
        finally:
            os.close(info_r)

    def _handshake(self, info_r: int) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        deadline = time.monotonic() + START_TIMEOUT
        info = b""
        while True:  # bwrap writes {"child-pid": <init>} and closes its end
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([info_r], [], [], left)[0]:
                raise ServerError("bwrap did not report its sandbox in time")
            chunk = os.read(info_r, 4096)
            if not chunk:
                break
            info += chunk
        with contextlib.suppress(ValueError, KeyError, TypeError, OSError):
            self.init_pid = int(json.loads(info)["child-pid"])
            self._init_fd = os.pidfd_open(self.init_pid)  # close() kills and reaps it
        try:
            reply = _recv(self.sock, deadline)
        except ServerError:
            reply = None
        if not reply or not reply.startswith(b"R"):
            raise ServerError(self._why())
        if self._init_fd < 0:
            raise ServerError(f"unexpected sandbox info {info[:200]!r}")
        try:
            self.ns_pid = int(reply[1:])
        except ValueError as exc:
            raise ServerError(f"unexpected server greeting {reply[:200]!r}") from exc
        init = self.init_pid
        self._keep = {"1", str(self.ns_pid)}
        self._proc_fd = os.open(f"/proc/{init}/root/proc", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        if self.tenants():
            raise ServerError("the new sandbox already holds unexpected processes")

    def _why(self) -> str:
        """bwrap's or the server's complaint, once it has exited."""
        assert self.proc is not None and self.proc.stderr is not None
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=1.0)
        err = b""
        with contextlib.suppress(OSError):
            os.set_blocking(self.proc.stderr.fileno(), False)
            err = self.proc.stderr.read(65536) or b""
        lines = err.decode("utf-8", "replace").strip().splitlines()
        return f"the sandbox server did not start: {lines[-1] if lines else f'exit {self.proc.returncode}'}"

    # -- state --------------------------------------------------------------------------------

    def alive(self) -> bool:
        return (not self.dead and self.owner == os.getpid() and self.proc is not None
                and self.proc.poll() is None)

    def tenants(self) -> list[str]:
        """Namespace pids of the sandbox's processes other than its init and the server."""
        with self._fd_lock:
            if self._proc_fd < 0:
                return []
            try:
                return [n for n in os.listdir(self._proc_fd) if n.isdigit() and n not in self._keep]
            except OSError:
                return []

    def processes(self) -> dict[Proc, int]:
        """The live tenants (zombies left out) as ``(pid, start time)`` -> parent pid; the
        start time (``/proc/<pid>/stat`` field 22) tells a process from a later one that got
        its pid."""
        out: dict[Proc, int] = {}
        for n in self.tenants():
            stat = self._stat(n)
            if stat is not None and stat[0] not in ("Z", "X"):
                out[(int(n), stat[2])] = stat[1]
        return out

    def cmdline(self, pid: int, limit: int = 200) -> str:
        """What a tenant runs, as ``ps`` shows it ("" once it is gone)."""
        with self._fd_lock:
            if self._proc_fd < 0:
                return ""
            try:
                fd = os.open(f"{pid}/cmdline", os.O_RDONLY | os.O_CLOEXEC, dir_fd=self._proc_fd)
            except OSError:
                return ""
        try:
            raw = os.read(fd, 4096)
        except OSError:
            raw = b""
        finally:
            os.close(fd)
        text = raw.rstrip(b"\0").replace(b"\0", b" ").decode("utf-8", "replace")
        return text if len(text) <= limit else text[:limit - 1] + "…"

    # -- one command --------------------------------------------------------------------------

    def spawn(self, cwd: Path, program: list[str], env: dict[str, str]) -> tuple[int, int, int]:
        """Start ``program`` in ``cwd``: the read ends (stdout, stderr, status). Once accepted
        the command may run (the server may even die at once): it must never be sent again;
        :meth:`exit_status` reports how it ended.

        ServerError: the request was not accepted (nothing ran; another server may retry it).
        OSError: refused (cwd not reachable inside; nothing ran).
        """
        fields = [os.fsencode(cwd), os.fsencode(program[0]), str(len(program)).encode()]
        fields += [os.fsencode(a) for a in program]
        fields += [os.fsencode(k) + b"=" + os.fsencode(v) for k, v in env.items()]
        msg = b"\0".join(fields)
        if len(msg) > _MAX_REQUEST:
            raise ServerError("request too large for the sandbox server")
        pipes = [os.pipe() for _ in range(3)]
        reads = tuple(r for r, _ in pipes)
        try:
            try:
                self.sock.sendmsg([msg], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                           array.array("i", [w for _, w in pipes]))])
            finally:
                for _, w in pipes:
                    os.close(w)
            reply = _recv(self.sock, time.monotonic() + REPLY_TIMEOUT)
        except (OSError, ServerError) as exc:
            reply, why = None, str(exc)
        else:
            why = f"reply {reply!r}"
        if reply == b"A":
            return reads[0], reads[1], reads[2]
        _close_all(reads)
        if reply and reply.startswith(b"E"):
            code, _, text = reply[1:].partition(b"\0")
            raise OSError(int(code) if code.isdigit() else 22, text.decode("utf-8", "replace"))
        self.dead = True  # gone, or wedged (then killed with it): the request never runs
        raise ServerError(f"the sandbox server is gone ({why})")

    def exit_status(self, timeout: float) -> int | None:
        """The command's ``Popen.returncode``-style status once the server reports it; None if
        nothing came within ``timeout``. A failed exec is reported as 126, as bash does."""
        try:
            reply = _recv(self.sock, time.monotonic() + timeout)
        except ServerError:
            return None
        if reply and reply.startswith(b"X") and reply[1:].isdigit():
            return os.waitstatus_to_exitcode(int(reply[1:]))
        if reply and reply.startswith(b"E"):
            return 126
        self.dead = True  # it died (maybe killed by the command): report the command killed
        return -signal.SIGKILL

    def sweep(self, timeout: float = SWEEP_TIMEOUT, keep: Collection[Proc] = ()) -> bool:
        """SIGKILL every process of the sandbox but its init, the server and ``keep`` (the
        background jobs of earlier commands, as ``(pid, start time)``) with what they started;
        True once none is left alive. A process the command starts while the sweep runs dies
        too. False: they would not die — the caller must tear the sandbox down."""
        end = time.monotonic() + timeout
        pause = 0.0005
        while True:
            procs = self.processes()
            spared = {p for p in keep if p in procs}
            while below := {p for p, ppid in procs.items()
                            if p not in spared and ppid in {q[0] for q in spared}}:
                spared |= below
            alive = [p for p in procs if p not in spared]
            if not alive:
                return True
            for p in alive:
                self._kill(str(p[0]))
            if time.monotonic() >= end:
                return False
            time.sleep(pause)  # SIGKILL is asynchronous; dying takes microseconds to a few ms
            pause = min(pause * 2, 0.01)

    def kill(self, procs: Collection[Proc]) -> None:
        """SIGKILL these tenants (those still the same process)."""
        now = self.processes()
        for p in procs:
            if p in now:
                self._kill(str(p[0]))

    def _stat(self, n: str) -> tuple[str, int, int] | None:
        """(state, parent pid, start time) of tenant ``n``; None once it is gone."""
        with self._fd_lock:
            if self._proc_fd < 0:
                return None
            try:
                fd = os.open(f"{n}/stat", os.O_RDONLY | os.O_CLOEXEC, dir_fd=self._proc_fd)
            except OSError:
                return None
        try:
            raw = os.read(fd, 1024)
        except OSError:
            return None
        finally:
            os.close(fd)
        fields = raw[raw.rfind(b")") + 2:].split()
        try:  # after the comm: state ppid pgrp session tty tpgid flags … starttime (field 22)
            return fields[0].decode(), int(fields[1]), int(fields[19])
        except (IndexError, ValueError):
            return None

    def _state(self, n: str) -> str:
        stat = self._stat(n)
        return stat[0] if stat else ""

    def _kill(self, n: str) -> None:
        with self._fd_lock:
            if self._proc_fd < 0:
                return
            try:
                fd = os.open(n, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=self._proc_fd)
            except OSError:
                return
        try:
            signal.pidfd_send_signal(fd, signal.SIGKILL)
        except OSError:
            pass
        finally:
            os.close(fd)

    # -- teardown -----------------------------------------------------------------------------

    def close(self) -> None:
        """Kill the whole sandbox (its init, hence the PID namespace) and reap bwrap. Idempotent."""
        self.dead = True
        with _live_lock:
            _live.discard(self)
        with contextlib.suppress(OSError):
            self.sock.close()
        if self.owner != os.getpid():  # a forked child must not touch its parent's sandboxes
            return
        killed = False
        if self._init_fd >= 0:  # bwrap then reaps its init and exits by itself
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(self._init_fd, signal.SIGKILL)
                killed = True
        if self.proc is not None:
            try:
                self.proc.wait(timeout=2.0 if killed else 0)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    self.proc.kill()  # --die-with-parent takes the init along
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(timeout=5.0)
            if self.proc.stderr is not None:
                self.proc.stderr.close()
        if self._init_fd >= 0:
            # readable once init has exited, i.e. once every process of the namespace is gone
            select.select([self._init_fd], [], [], 5.0)
            with contextlib.suppress(ChildProcessError, OSError):  # our child if we are a subreaper
                os.waitid(os.P_PIDFD, self._init_fd, os.WEXITED | os.WNOHANG)
            os.close(self._init_fd)
            self._init_fd = -1
        with self._fd_lock:
            if self._proc_fd >= 0:
                os.close(self._proc_fd)
                self._proc_fd = -1


class Pool:
    """Idle servers by key (LRU); a server is lent to one command at a time."""

    def __init__(self, max_idle: int = 4) -> None:
        self._lock = threading.Lock()
        self._idle: OrderedDict[Key, list[Server]] = OrderedDict()
        self._busy: set[Server] = set()
        self._max = max_idle

    def acquire(self, key: Key, make: Callable[[], Server]) -> tuple[Server, bool]:
        """An idle live server for ``key``, else ``make()``'s; and whether it is new."""
        found: Server | None = None
        doomed: list[Server] = []
        with self._lock:
            servers = self._idle.get(key, [])
            while servers and found is None:
                s = servers.pop()
                if s.alive():
                    found = s
                else:
                    doomed.append(s)
            if not servers:
                self._idle.pop(key, None)
            if found is not None:
                self._busy.add(found)
        for s in doomed:
            s.close()
        if found is not None:
            return found, False
        s = make()
        with self._lock:
            self._busy.add(s)
        return s, True

    def release(self, server: Server) -> None:
        doomed: list[Server] = []
        with self._lock:
            self._busy.discard(server)
            if server.alive():
                self._idle.setdefault(server.key, []).append(server)
                self._idle.move_to_end(server.key)
            else:
                doomed.append(server)
            while sum(map(len, self._idle.values())) > self._max:
                key, servers = next(iter(self._idle.items()))
                doomed.append(servers.pop(0))
                if not servers:
                    del self._idle[key]
        for s in doomed:
            s.close()

    def close(self) -> None:
        """Close every idle server now and every busy one when its command is done."""
        with self._lock:
            idle = [s for servers in self._idle.values() for s in servers]
            self._idle.clear()
            for s in self._busy:
                s.dead = True  # release() closes it
        for s in idle:
            s.close()

    def __len__(self) -> int:
        with self._lock:
            return sum(map(len, self._idle.values())) + len(self._busy)
