"""The in-sandbox side of a batched oracle (:mod:`.batch`): runs one command at a time for it.

This file is never imported by shellgate: its text is handed to the system ``python3 -I -S
-c`` inside the fuzz sandbox, under the same ``strace -f`` that watches the commands, so it may
import nothing but the standard library and must not depend on the host's ``sys.path``.

Protocol, one JSON object per line on fd 0: first ``{"nonce", "env", "out", "err", "reply"}``
(``out``, ``err``: inherited fds of the files that take each command's stdout and stderr,
truncated before each command; ``reply``: the fd answers go to),
then one ``{"i", "argv", "cwd", "timeout"}`` per command. Answers go to the ``reply`` fd, one
line each: ``NONCE ready PID`` once, then ``NONCE I CODE TIMED_OUT TAINTED PID`` per command
(PID: the command's first process). An
answer is only written once every process the command started is dead: this process is a child
subreaper, so whatever the command leaves behind (``&``, ``setsid``, a double fork) is
reparented here, waited for up to the timeout, then sent SIGTERM and given ``GRACE``
seconds to exit (as an agent's timeout would), then killed. Before answering it makes a traced
call (the *barrier*: an ``open`` of a path that cannot exist), which strace handles only after
the exits it saw before, so every trace file of the command's processes is closed by then.
``TAINTED`` says the command changed something outside the oracle's watched trees that a later
command could see (a file in the sandbox's own /dev, /dev/shm or /run, a System V IPC object):
the oracle then retires this sandbox.
"""

import contextlib
import ctypes
import json
import os
import signal
import stat
import sys

PR_SET_CHILD_SUBREAPER = 36
MARK_ROOT = "/proc/shellgate-batch"
PRIVATE_TREES = ("/dev", "/run")      # the sandbox's own writable tmpfs (/dev/shm is under /dev)


class Deadline(Exception):
    pass


def _alarm(signum, frame):
    raise Deadline


def mark(nonce, tag):
    with contextlib.suppress(OSError):
        os.close(os.open(f"{MARK_ROOT}/{nonce}/{tag}", os.O_RDONLY))


def tree():
    """Every path of the sandbox's own writable trees, found once at the start (walking opens
    each directory, and every open is a traced call: two ptrace stops)."""
    paths = []
    for top in PRIVATE_TREES:
        paths.append(top)
        for dirpath, dirnames, filenames in os.walk(top):
            if dirpath == "/dev":   # the ptys come and go with every terminal: not state
                dirnames[:] = [d for d in dirnames if d != "pts"]
            paths += [os.path.join(dirpath, n) for n in sorted(dirnames + filenames)]
    return paths


# msgctl(MSG_INFO), shmctl(SHM_INFO), semctl(SEM_INFO): how many objects of each kind exist
# (msginfo.msgpool, msgmap, msgtql; shm_info.used_ids; seminfo.semusz, semaem) and the highest
# index in use (the return value).
_IPC_INFO = (("msgctl", 12, (0, 1, 6)), ("shmctl", 14, (0,)), ("semctl", 19, (7, 9)))


def ipc_objects(libc):
    out = []
    for name, cmd, fields in _IPC_INFO:
        buf = (ctypes.c_int * 32)()
        args = (0, 0, cmd, buf) if name == "semctl" else (0, cmd, buf)
        out.append((getattr(libc, name)(*args), tuple(buf[i] for i in fields)))
    return out


def state(paths, libc):
    """What a command could leave behind for the next one outside the watched trees, read
    without a traced call: every path :func:`tree` found (lstat), each directory's times (an
    entry made, removed or renamed in it moves them, and its ctime cannot be set back) and the
    System V IPC objects of the sandbox's namespace."""
    seen = []
    for p in paths:
        try:
            st = os.lstat(p)
        except OSError:
            seen.append((p, None))
            continue
        if stat.S_ISREG(st.st_mode):
            content = (st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        elif stat.S_ISDIR(st.st_mode) and p != "/dev/pts":
            content = (st.st_mtime_ns, st.st_ctime_ns)
        else:
            content = ()
        seen.append((p, st.st_mode, st.st_uid, st.st_gid, st.st_rdev, st.st_nlink, content))
    seen.append(("ipc", ipc_objects(libc)))
    return seen


def children():
    me = os.getpid()
    try:
        with open(f"/proc/{me}/task/{me}/children") as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def kill_all(first):
    """SIGKILL everything left, level by level (a killed parent's children come to us)."""
    with contextlib.suppress(OSError):
        os.killpg(first, signal.SIGKILL)
    while True:
        for pid in children():
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return


def ended_within(first, grace):
    """SIGTERM the command's group, then wait up to ``grace`` seconds for every descendant:
    whether all of them exited. An agent's timeout terminates the same way, and a program's
    cleanup then runs (sort removes its temporary files: a SIGKILL at once left them behind,
    a false finding)."""
    with contextlib.suppress(OSError):
        os.killpg(first, signal.SIGTERM)
    try:
        try:
            signal.setitimer(signal.ITIMER_REAL, grace)
            while True:
                os.waitpid(-1, 0)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except ChildProcessError:
        return True
    except Deadline:
        return False


def run_one(req, env, out, err):
    """Spawn the command and wait for it and every descendant: (exit code, timed out)."""
    try:
        os.chdir(req["cwd"])
    except OSError:
        return None, False, 0
    for fd in (out, err):   # no open per command (each would be a traced call)
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
    # fork + exec, not posix_spawn: under strace -f a command started by a vfork-style spawn
    # ran 1-4 ms longer (median round trip of true / ls -la / git status: 7.4 / 11.3 / 16.0 ms
    # spawned, 6.3 / 9.2 / 12.0 ms forked; 100 interleaved rounds, load 2.1).
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            for fd, to in ((NULL, 0), (out, 1), (err, 2)):
                os.dup2(fd, to)
            for sig in (signal.SIGPIPE, signal.SIGXFSZ):   # Python ignores them
                signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, ())
            os.execve(req["argv"][0], req["argv"], env)
        finally:
            os._exit(127)
    code, timed_out = None, False
    signal.setitimer(signal.ITIMER_REAL, max(0.001, float(req["timeout"])))
    try:
        try:
            while True:
                got, status = os.waitpid(-1, 0)
                if got == pid:
                    code = os.waitstatus_to_exitcode(status)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except ChildProcessError:
        pass
    except Deadline:
        timed_out = True
    if timed_out:
        if not ended_within(pid, GRACE):
            kill_all(pid)
        code = None
    return code, timed_out, pid


NULL = -1
GRACE = 0.5   # seconds a timed-out command has between SIGTERM and SIGKILL


def main():
    global NULL
    NULL = os.open("/dev/null", os.O_RDWR | os.O_CLOEXEC)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    signal.signal(signal.SIGALRM, _alarm)
    src = os.fdopen(os.dup(0), "rb")
    for fd in (0, 1):
        os.dup2(NULL, fd)
    init = json.loads(src.readline())
    nonce, env = init["nonce"], init["env"]
    out, err, reply = (os.dup(int(init[k])) for k in ("out", "err", "reply"))
    for k in ("out", "err", "reply"):   # the copies are close-on-exec: no command holds them
        os.close(int(init[k]))
    paths = tree()
    baseline = state(paths, libc)
    mark(nonce, "ready")
    os.write(reply, f"{nonce} ready {os.getpid()}\n".encode())
    for line in src:
        req = json.loads(line)
        code, timed_out, pid = run_one(req, env, out, err)
        tainted = state(paths, libc) != baseline
        mark(nonce, "barrier")
        os.write(reply, f"{nonce} {int(req['i'])} {'x' if code is None else code} {int(timed_out)} "
                        f"{int(tainted)} {pid}\n".encode())
        if tainted:
            return


if __name__ == "__main__":
    sys.exit(main())
