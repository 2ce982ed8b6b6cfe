"""The fork server that runs *inside* a pre-spawned bwrap sandbox (stdlib only, no shellgate).

Started once per sandbox as ``python -I -S -c <this file's source> CTL_FD``; it then turns
each request on the control socket into one ``posix_spawn`` of bash (vfork + exec: the cost
does not grow with this process) and reports the exit status. It holds no privilege the
commands lack — it lives under the same mounts, namespaces and seccomp filter — so it is
not a trust boundary; the host does the tree kill and checks everything it reports.

Protocol (SOCK_SEQPACKET, one message per datagram, text fields NUL-separated):

- server -> host ``R<pid>`` once ready (``pid`` in the sandbox's PID namespace);
- host -> server ``cwd NUL program NUL argc NUL argv... NUL env...`` plus SCM_RIGHTS
  ``[stdout, stderr, status]`` (write ends; become fds 1, 2 and 3 of the command);
- server -> host ``A`` (accepted: the command may run from now on — it may even kill the
  server before the next message), then ``X<wait status>`` once it has exited;
  ``E<errno> NUL <message>`` when it was not started: instead of ``A`` (bad request, cwd not
  reachable) or after it (exec failed).

The server makes itself non-dumpable, so commands (same uid) cannot read its memory, fds or
environment through /proc; they can kill it, which tears the whole sandbox down (it is the
namespace's main process), and the host then starts a new one.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import socket
import sys

STATUS_FD = 3            # the fd the command's cwd/status trailer writes to
_MAX_REQUEST = 1 << 20   # bytes; the host refuses larger requests (bash -c caps at 128 KiB)
_PR_SET_DUMPABLE = 4


def _undumpable() -> None:
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    except Exception:  # without ctypes the commands could read our (minimal) env: harmless
        pass


def _parse(msg: bytes) -> tuple[bytes, bytes, list[bytes], dict[bytes, bytes]]:
    fields = msg.split(b"\0")
    cwd, program, argc = fields[0], fields[1], int(fields[2])
    argv = fields[3:3 + argc]
    env: dict[bytes, bytes] = {}
    for item in fields[3 + argc:]:
        key, sep, value = item.partition(b"=")
        if sep and key:
            env[key] = value
    return cwd, program, argv, env


def serve(ctl: socket.socket) -> None:
    opened = os.open("/dev/null", os.O_RDWR | os.O_CLOEXEC)
    devnull = fcntl.fcntl(opened, fcntl.F_DUPFD_CLOEXEC, 10)  # not one of 0..3 itself
    os.close(opened)
    for fd in (0, 1, 2, STATUS_FD):  # occupied, so received fds never land on 0..3
        os.dup2(devnull, fd, inheritable=False)
    fd_space = socket.CMSG_SPACE(3 * 4)
    ctl.send(b"R%d" % os.getpid())
    while True:
        try:
            msg, anc, flags, _ = ctl.recvmsg(_MAX_REQUEST, fd_space, socket.MSG_CMSG_CLOEXEC)
        except OSError:
            return
        if not msg:
            return  # the host closed the socket: shut down (the sandbox goes with us)
        fds: list[int] = []
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds += [int.from_bytes(data[i:i + 4], sys.byteorder)
                        for i in range(0, len(data) - len(data) % 4, 4)]
        try:
            if len(fds) != 3 or flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC):
                raise OSError(22, "malformed request")
            cwd, program, argv, env = _parse(msg)
            os.chdir(cwd)
        except (OSError, ValueError, IndexError) as exc:
            _refuse(ctl, fds, exc)
            continue
        # From here on the command may run (and may kill us before we say more): the host
        # must never run a request twice once it has seen this.
        ctl.send(b"A")
        try:
            pid = _spawn(program, argv, env, [devnull, *fds])
        except (OSError, ValueError) as exc:
            _refuse(ctl, fds, exc)
            continue
        finally:
            os.chdir("/")
        for fd in fds:
            os.close(fd)
        _, status = os.waitpid(pid, 0)
        ctl.send(b"X%d" % status)


_DEFAULTED = (signal.SIGPIPE, signal.SIGXFSZ)  # Python ignores these; exec would keep that


def _spawn(program: bytes, argv: list[bytes], env: dict[bytes, bytes], fds: list[int]) -> int:
    """``program`` with ``fds`` as its 0..3, in a new session, default signal dispositions.
    posix_spawn (vfork + exec: cost independent of this process); fork where the C library
    lacks POSIX_SPAWN_SETSID."""
    try:
        return os.posix_spawn(program, argv, env, file_actions=[
            (os.POSIX_SPAWN_DUP2, fd, target) for target, fd in enumerate(fds)],
            setsid=True, setsigmask=(), setsigdef=_DEFAULTED)
    except NotImplementedError:
        pass
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child execs or exits
        try:
            os.setsid()
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
            for sig in _DEFAULTED:
                signal.signal(sig, signal.SIG_DFL)
            os.execve(program, argv, env)
        finally:
            os._exit(127)
    return pid


def _refuse(ctl: socket.socket, fds: list[int], exc: BaseException) -> None:
    for fd in fds:
        os.close(fd)
    errno = getattr(exc, "errno", None) or 22
    ctl.send(b"E%d\0%s" % (errno, str(exc).encode("utf-8", "replace")))


def main(argv: list[str]) -> None:
    _undumpable()
    given = int(argv[1])
    # a non-inheritable copy above the fds serve() takes over (0..3)
    ctl = socket.socket(fileno=fcntl.fcntl(given, fcntl.F_DUPFD_CLOEXEC, 10))
    for name in os.listdir("/proc/self/fd"):  # nothing else of bwrap's may reach a command
        if int(name) > 2 and int(name) != ctl.fileno():
            with contextlib.suppress(OSError):
                os.close(int(name))
    with contextlib.suppress(BrokenPipeError, ConnectionResetError):
        serve(ctl)


if __name__ == "__main__":
    main(sys.argv)
