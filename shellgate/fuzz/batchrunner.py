"""The in-sandbox side of a batched oracle (:mod:`.batch`): runs one command at a time for it.

This file is never imported by shellgate: its text is handed to the system ``python3 -I -S
-c`` inside the fuzz sandbox, under the same ``strace -f`` that watches the commands, so it may
import nothing but the standard library and must not depend on the host's ``sys.path``.

Protocol, one JSON object per line on fd 0: first ``{"nonce", "env", "out", "err", "reply"}``,
then one ``{"i", "argv", "cwd", "timeout"}`` per command. Answers go to the ``reply`` fd, one
line each: ``NONCE ready PID`` once, then ``NONCE I CODE TIMED_OUT TAINTED PID`` per command
(PID: the command's first process). An
answer is only written once every process the command started is dead: this process is a child
subreaper, so whatever the command leaves behind (``&``, ``setsid``, a double fork) is
reparented here, waited for up to the timeout, then killed. Before answering it makes a traced
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
IPC_TABLES = ("/proc/sysvipc/msg", "/proc/sysvipc/sem", "/proc/sysvipc/shm")


class Deadline(Exception):
    pass


def _alarm(signum, frame):
    raise Deadline


def mark(nonce, tag):
    with contextlib.suppress(OSError):
        os.close(os.open(f"{MARK_ROOT}/{nonce}/{tag}", os.O_RDONLY))


def state():
    """What a command could leave behind for the next one outside the watched trees."""
    seen = []
    for top in PRIVATE_TREES:
        for dirpath, dirnames, filenames in os.walk(top):
            for name in sorted(dirnames + filenames):
                p = os.path.join(dirpath, name)
                try:
                    st = os.lstat(p)
                except OSError:
                    continue
                content = (st.st_size, st.st_mtime_ns) if stat.S_ISREG(st.st_mode) else ()
                seen.append((p, st.st_mode, st.st_uid, st.st_gid, st.st_rdev, content))
            if dirpath == "/dev":   # the ptys come and go with every terminal: not state
                dirnames[:] = [d for d in dirnames if d != "pts"]
    for table in IPC_TABLES:
        try:
            with open(table) as f:
                seen.append((table, len(f.read().splitlines())))
        except OSError:
            pass
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


def run_one(req, env, out, err):
    """Spawn the command and wait for it and every descendant: (exit code, timed out)."""
    try:
        os.chdir(req["cwd"])
    except OSError:
        return None, False, 0
    o = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    e = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
    actions = [(os.POSIX_SPAWN_DUP2, NULL, 0), (os.POSIX_SPAWN_DUP2, o, 1), (os.POSIX_SPAWN_DUP2, e, 2)]
    try:
        pid = os.posix_spawn(req["argv"][0], req["argv"], env, file_actions=actions, setsid=True,
                             setsigmask=(), setsigdef=(signal.SIGPIPE, signal.SIGXFSZ))
    finally:
        os.close(o)
        os.close(e)
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
        kill_all(pid)
        code = None
    return code, timed_out, pid


NULL = -1


def main():
    global NULL
    NULL = os.open("/dev/null", os.O_RDWR | os.O_CLOEXEC)
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    signal.signal(signal.SIGALRM, _alarm)
    src = os.fdopen(os.dup(0), "rb")
    for fd in (0, 1):
        os.dup2(NULL, fd)
    init = json.loads(src.readline())
    nonce, env, out, err = init["nonce"], init["env"], init["out"], init["err"]
    reply = os.dup(int(init["reply"]))   # close-on-exec: no command holds it
    os.close(int(init["reply"]))
    baseline = state()
    mark(nonce, "ready")
    os.write(reply, f"{nonce} ready {os.getpid()}\n".encode())
    for line in src:
        req = json.loads(line)
        code, timed_out, pid = run_one(req, env, out, err)
        after = state()
        tainted = after != baseline
        mark(nonce, "barrier")
        os.write(reply, f"{nonce} {int(req['i'])} {'x' if code is None else code} {int(timed_out)} "
                        f"{int(tainted)} {pid}\n".encode())
        if tainted:
            return


if __name__ == "__main__":
    sys.exit(main())
