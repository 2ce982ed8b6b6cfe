"""What a confined hook line protects must stay protected when the agent kills the line or the
command leaves something running (shellgate/sandbox/watch.py, confine.py).

* bwrap tier: a protected path that did not exist (``.envrc`` here) is removed by the line's
  last step; the agent's timeout or interrupt kills the line first — its process group
  (Codex), or just its shell — and the watcher armed before bwrap undoes all the same, once
  the sandbox has ended. A line that runs to its end leaves no watcher behind.
* Landlock tier: the helper checks the protected paths after the command; a process the
  command left running (``setsid``, detached) used to write after that check.

Every wait is on an event (a FIFO the command opens, a pidfd of the watcher), never a sleep.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_hooks_enforce import SHELLS, _landlock_or_skip, _tier, confined_line, make_world

BWRAP = _tier() == "bwrap"
WAIT = 60.0   # an upper bound for an event that comes at once: a failure, not a pace


def _read_fifo(path: Path | int) -> bytes:
    """What a writer of the FIFO ``path`` (or of its read end already open) wrote, once it has
    opened and closed it (a line that failed before writing fails the test after WAIT instead
    of hanging it)."""
    # Linux: not readable until a writer came
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK) if isinstance(path, Path) else path
    try:
        chunks = []
        while True:
            ready, _, _ = select.select([fd], [], [], WAIT)
            assert ready, f"nothing came through {path}"
            chunk = os.read(fd, 4096)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
    finally:
        os.close(fd)


def _watcher_of(shell_pid: int) -> int:
    """The pid of the watcher armed for the line run by ``shell_pid`` (its `arm SHELL` words)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(b"sandbox/watch.py" in a for a in argv) and b"arm" in argv \
                and argv[argv.index(b"arm") + 1] == str(shell_pid).encode():
            return int(entry)
    raise AssertionError(f"no watcher for shell {shell_pid}")


def _wait_gone(pid: int) -> None:
    fd = os.pidfd_open(pid)
    try:
        ready, _, _ = select.select([fd], [], [], WAIT)
        assert ready, f"watcher {pid} still running"
    finally:
        os.close(fd)


@contextlib.contextmanager
def _started(world: dict, shell: str, line: str) -> Iterator[subprocess.Popen]:
    """``line`` run by ``shell`` in a session of its own; whatever of it is left at the end
    is killed and reaped."""
    proc = subprocess.Popen([shell, "-c", line], cwd=world["work"], env=world["env"],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _world(tmp_path: Path) -> dict:
    world = make_world(tmp_path)
    (world["work"] / ".envrc").unlink()   # a protected path that does not exist: not bindable
    os.mkfifo(world["work"] / "ready")
    os.mkfifo(world["work"] / "go")
    return world


needs_bwrap = pytest.mark.skipif(not BWRAP, reason="the hook tier here is not bwrap")


def _without_pidfd(line: str) -> str:
    """``line`` with its watcher started where ``os.pidfd_open`` fails as on Linux before 5.3
    (ENOSYS): it must look at the processes instead."""
    import shlex

    watch = shlex.quote(str(Path(__file__).resolve().parent.parent / "shellgate" / "sandbox" / "watch.py"))
    prelude = ("import errno, os, runpy\n"
               "def no(pid, flags=0): raise OSError(errno.ENOSYS, 'pidfd_open')\n"
               f"os.pidfd_open = no\nrunpy.run_path({watch!r}, run_name='__main__')")
    assert f" {watch} arm " in line
    return line.replace(f" {watch} arm ", f" -c {shlex.quote(prelude)} arm ", 1)


@needs_bwrap
@pytest.mark.parametrize("pidfd", [True, False], ids=["pidfd", "no-pidfd"])
@pytest.mark.parametrize("shell", SHELLS)
def test_group_killed_after_the_write_is_undone(tmp_path: Path, shell: str, pidfd: bool) -> None:
    """This process is made a subreaper first, as a BashTool user is: the killed sandbox's init
    is then re-parented here and stays a zombie nobody waits for, which must count as ended."""
    from shellgate.sandbox import reaper

    reaper.enable()
    world = _world(tmp_path)
    line = confined_line(world, "echo 'eval evil' > .envrc; echo ready > ready; read x < go", "write")
    if not pidfd:
        line = _without_pidfd(line)
    with _started(world, shell, line) as proc:
        assert _read_fifo(world["work"] / "ready") == b"ready\n"
        assert (world["work"] / ".envrc").exists()
        watcher = _watcher_of(proc.pid)
        os.killpg(proc.pid, signal.SIGKILL)   # the agent's timeout: the whole group
        proc.wait()
        _wait_gone(watcher)
    assert not (world["work"] / ".envrc").exists()


@needs_bwrap
@pytest.mark.parametrize("shell", SHELLS)
def test_shell_killed_undo_waits_for_the_sandbox(tmp_path: Path, shell: str) -> None:
    """Only the line's shell dies. Whether the sandbox dies with it (bwrap's --die-with-parent
    when bash execs bwrap from the substitution) or goes on (zsh forks it from a subshell that
    lives on), the undo comes after its end: a write made after the shell died is undone too."""
    world = _world(tmp_path)
    cmd = "echo one > .envrc; echo ready > ready; read x < go; echo two > .envrc"
    line = confined_line(world, cmd, "write")
    with _started(world, shell, line) as proc:
        assert _read_fifo(world["work"] / "ready") == b"ready\n"
        watcher = _watcher_of(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        try:   # a sandbox still running takes its go and writes again; a dead one is no reader
            fd = os.open(world["work"] / "go", os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            fd = -1
        if fd >= 0:
            os.write(fd, b"x\n")
            os.close(fd)
        _wait_gone(watcher)
    assert not (world["work"] / ".envrc").exists()


@needs_bwrap
@pytest.mark.parametrize("shell", SHELLS)
def test_line_that_ends_dismisses_its_watcher(tmp_path: Path, shell: str) -> None:
    """The line's last step tells the watcher it is done: an `.envrc` the user writes after
    the line, in the same shell, is theirs (a watcher left waiting would remove it)."""
    world = _world(tmp_path)
    line = confined_line(world, "echo ready > ready; read x < go", "write")
    script = line + "; echo '# mine' > .envrc; echo again > ready; read y < go"
    with _started(world, shell, script) as proc:
        assert _read_fifo(world["work"] / "ready") == b"ready\n"
        watcher = _watcher_of(proc.pid)
        (world["work"] / "go").write_text("x\n")
        assert _read_fifo(world["work"] / "ready") == b"again\n"
        _wait_gone(watcher)
        (world["work"] / "go").write_text("y\n")
        assert proc.wait(timeout=WAIT) == 0
    assert (world["work"] / ".envrc").read_text() == "# mine\n"


@pytest.mark.parametrize("shell", SHELLS)
def test_landlock_kills_what_the_command_left_running(tmp_path: Path, shell: str) -> None:
    """The detached process holds `ready` open for writing until it ends: EOF there means it
    ended, killed before its write or after it."""
    _landlock_or_skip()
    world = _world(tmp_path)
    hooks = world["work"] / ".git" / "hooks"
    cmd = ("exec 3>ready; (setsid sh -c 'while [ -e /proc/\"$0\" ]; do sleep 0.05; done; "
           "echo evil > .envrc; echo hook > .git/hooks/pre-commit' \"$PPID\" >&3 &) ; "
           "exec 3>&-; true")
    line = confined_line(world, cmd, "write", tier="landlock")
    # The reader is there before the line starts, and the line itself opens `ready` before it
    # starts the detached process, which inherits that writer: a writer always comes, and EOF
    # means the detached process ended. (When the detached shell opened `ready` itself, the
    # guardian on a loaded machine could kill it before the open: no writer ever came, and
    # the reader waited for nothing — "nothing came through".)
    reader = os.open(world["work"] / "ready", os.O_RDONLY | os.O_NONBLOCK)
    with _started(world, shell, line) as proc:
        _read_fifo(reader)
        assert proc.wait(timeout=WAIT) == 0
    assert not (world["work"] / ".envrc").exists()
    assert not (hooks / "pre-commit").exists()


def _guardian_of(shell_pid: int, work: Path) -> int:
    """The Landlock helper's guardian for the line run by ``shell_pid``: the helper process for
    this workspace that is not in the line's session (the relay is)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            sid = os.getsid(int(entry))
        except OSError:
            continue
        if b"shellgate.sandbox.confine" in argv and str(work).encode() in argv and sid != shell_pid:
            return int(entry)
    raise AssertionError(f"no guardian for shell {shell_pid}")


@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("kill", ["group", "shell"])
def test_landlock_line_killed_is_restored(tmp_path: Path, shell: str, kill: str) -> None:
    """The agent kills the line after the command rewrote a hook and made an `.envrc`: its
    group (the guardian, out of the line's group and tree, kills the command), or only its
    shell (the command ends on its own). Both are put back either way."""
    _landlock_or_skip()
    world = _world(tmp_path)
    hook = world["work"] / ".git" / "hooks" / "pre-commit"
    hook.write_text("#!/bin/sh\nexit 0\n")
    cmd = "echo evil > .git/hooks/pre-commit; echo x > .envrc; echo ready > ready; read x < go"
    line = confined_line(world, cmd, "write", tier="landlock")
    with _started(world, shell, line) as proc:
        assert _read_fifo(world["work"] / "ready") == b"ready\n"
        assert hook.read_text() == "evil\n"
        guardian = _guardian_of(proc.pid, world["work"])
        if kill == "group":
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        else:   # the relay lives on, and so does the command: it ends, then the check runs
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            (world["work"] / "go").write_text("x\n")
        _wait_gone(guardian)
    assert hook.read_text() == "#!/bin/sh\nexit 0\n"
    assert not (world["work"] / ".envrc").exists()


def _watch_dirs_of(watcher: int) -> list[Path]:
    """The directories the watcher ``watcher`` was armed with (``arm SHELL DIR… --``)."""
    argv = Path(f"/proc/{watcher}/cmdline").read_bytes().split(b"\0")
    start = argv.index(b"arm") + 2
    return [Path(os.fsdecode(a)) for a in argv[start:argv.index(b"--")]]


def _private_dirs(bases: list[Path]) -> set[Path]:
    return {p for b in bases if b.is_dir() for p in b.glob("shellgate-watch-*")}


@needs_bwrap
def test_a_killed_watchers_directory_is_swept_at_the_next_start(tmp_path: Path) -> None:
    """SIGKILL leaves a watcher no ``finally``: its FIFO's directory stayed in the state
    directory for good, one more per killed watcher. The next line's watcher removes it (no
    process holds its lock any more), and leaves a live watcher's alone."""
    world = _world(tmp_path)
    line = confined_line(world, "echo ready > ready; read x < go", "write")
    with _started(world, "bash", line) as proc:
        assert _read_fifo(world["work"] / "ready") == b"ready\n"
        watcher = _watcher_of(proc.pid)
        bases = _watch_dirs_of(watcher)
        (killed,) = _private_dirs(bases)
        os.kill(watcher, signal.SIGKILL)
        _wait_gone(watcher)
        (world["work"] / "go").write_text("x\n")
        assert proc.wait(timeout=WAIT) == 0
    assert killed.is_dir()   # nothing of the killed watcher removed it

    # A live watcher (its line waits on `go`) beside the next line, which runs to its end.
    with _started(world, "bash", line) as live:
        assert _read_fifo(world["work"] / "ready") == b"ready\n"
        alive = _watcher_of(live.pid)
        (kept,) = _private_dirs(bases) - {killed}
        done = subprocess.run(["bash", "-c", confined_line(world, "true", "write")],
                              cwd=world["work"], env=world["env"], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=WAIT)
        assert done.returncode == 0, done.stderr
        assert not killed.exists()
        assert kept.is_dir() and _gone_not(alive)
        (world["work"] / "go").write_text("x\n")
        assert live.wait(timeout=WAIT) == 0
        _wait_gone(alive)
    assert not kept.exists()   # a watcher that stands down removes its own


def _gone_not(pid: int) -> bool:
    """Whether ``pid`` still runs (not a zombie)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in (b"Z", b"X")
