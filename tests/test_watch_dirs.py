"""Where a write-grant hook line's undo watcher keeps its FIFO (sandbox/enforce._watch_dirs,
sandbox/bwrap.unseen): a directory the host user can write and the sandbox can neither see
nor change — ``$XDG_RUNTIME_DIR``, shellgate's state directory (masked in the sandbox), then
``$TMPDIR`` and ``/tmp``. A read-only /tmp used to stop every write-grant line (126); with no
such directory at all the line still runs nothing (126, saying why)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_hooks_enforce import SHELLS, confined_line
from tests.test_undo_watch import BWRAP, WAIT, _read_fifo, _wait_gone, _watcher_of, _world

needs_bwrap = pytest.mark.skipif(not BWRAP, reason="the hook tier here is not bwrap")


def _dirs_of(line: str) -> list[str]:
    """The directories a line offers its watcher (the words between ``arm "$$"`` and ``--``)."""
    m = re.search(r' arm "\$\$" (.*?) --\)', line, re.S)
    assert m, "no watcher in the line"
    return shlex.split(m.group(1))


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A directory off /tmp (the sandbox sees it read-only; /tmp can be made read-only)."""
    d = Path(tempfile.mkdtemp(prefix="sg-watch-", dir="/var/tmp"))
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


@needs_bwrap
def test_offered_dirs_are_out_of_the_sandboxes_reach(outside_tmp: Path) -> None:
    """A FIFO in each offered directory is not there inside the sandbox; one in a directory the
    sandbox sees read-only is opened and written from inside all the same (why the state
    directory is masked, and why $XDG_RUNTIME_DIR or $TMPDIR anywhere else is passed over)."""
    world = _world(outside_tmp / "w")
    seen = outside_tmp / "seen"
    seen.mkdir()
    world["env"].update(XDG_RUNTIME_DIR=str(world["work"] / "run"), TMPDIR=str(seen))
    (world["work"] / "run").mkdir()
    line = confined_line(world, "true", "write")
    dirs = _dirs_of(line)
    state = os.path.realpath(world["root"] / "state" / "shellgate" / "watch")
    assert dirs == [state, "/tmp"]   # not the workspace's run/, not the visible $TMPDIR
    fifos = [Path(d, f"probe-{os.getpid()}") for d in [*dirs, str(seen), str(world["work"] / "run")]]
    for f in fifos:
        os.mkfifo(f)
    try:
        probe = "; ".join(f"if [ -p {shlex.quote(str(f))} ]; then echo {i}; fi"
                          for i, f in enumerate(fifos))
        p = subprocess.run(["bash", "-c", confined_line(world, probe, "write")], cwd=world["work"],
                           env=world["env"], stdin=subprocess.DEVNULL, capture_output=True, timeout=WAIT)
        assert p.returncode == 0, p.stderr
        assert p.stdout.split() == [b"2", b"3"]   # only the visible $TMPDIR and the workspace's
        rfd = os.open(fifos[2], os.O_RDONLY | os.O_NONBLOCK)
        try:
            write = f"echo from-inside > {shlex.quote(str(fifos[2]))}"
            p = subprocess.run(["bash", "-c", confined_line(world, write, "write")], cwd=world["work"],
                               env=world["env"], stdin=subprocess.DEVNULL, capture_output=True,
                               timeout=WAIT)
            assert p.returncode == 0, p.stderr
            assert os.read(rfd, 100) == b"from-inside\n"   # read-only mount, FIFO still written
        finally:
            os.close(rfd)
    finally:
        for f in fifos:
            f.unlink()


def _unshare_or_skip() -> None:
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare(1) to give a line a read-only /tmp")
    ok = subprocess.run(["unshare", "-m", "--propagation", "private", "mount", "-t", "tmpfs",
                         "-o", "ro", "tmpfs", "/tmp"], capture_output=True)
    if ok.returncode != 0:
        pytest.skip(f"no mount namespace here: {ok.stderr.decode(errors='replace').strip()}")


def _run_ro(world: dict, shell: str, line: str, ro: list[Path]) -> subprocess.Popen:
    """``line`` run by ``shell`` where /tmp and each of ``ro`` is an empty read-only tmpfs (a
    mount namespace of its own; the shell is the Popen's pid, in a session of its own)."""
    mounts = " && ".join(f"mount -t tmpfs -o ro tmpfs {shlex.quote(str(d))}" for d in ["/tmp", *ro])
    return subprocess.Popen(["unshare", "-m", "--propagation", "private", "sh", "-c",
                             mounts + ' && exec "$0" -c "$1"', shell, line],
                            cwd=world["work"], env=world["env"], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)


@needs_bwrap
@pytest.mark.parametrize("ending", ["ends", "group killed"])
@pytest.mark.parametrize("shell", SHELLS)
def test_read_only_tmp_uses_the_state_directory(outside_tmp: Path, shell: str, ending: str) -> None:
    """/tmp read-only and no $XDG_RUNTIME_DIR: the line runs, its watcher's FIFO sits in
    shellgate's state directory, and a `.envrc` the command made is undone either way."""
    _unshare_or_skip()
    world = _world(outside_tmp / "w")
    world["env"].pop("XDG_RUNTIME_DIR", None)
    world["env"].pop("TMPDIR", None)
    work = world["work"]
    line = confined_line(world, "echo evil > .envrc; echo ready > ready; read x < go", "write")
    state = world["root"] / "state" / "shellgate" / "watch"
    proc = _run_ro(world, shell, line, [])
    try:
        assert _read_fifo(work / "ready") == b"ready\n"
        assert [p.name[:16] for p in state.iterdir()] == ["shellgate-watch-"]
        watcher = _watcher_of(proc.pid)
        if ending == "ends":
            (work / "go").write_text("x\n")
            assert proc.wait(timeout=WAIT) == 0
        else:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        _wait_gone(watcher)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        assert proc.stderr is not None
        proc.stderr.close()
    assert not (work / ".envrc").exists()
    assert list(state.iterdir()) == []   # the watcher took its directory along


@needs_bwrap
@pytest.mark.parametrize("shell", SHELLS)
def test_no_private_directory_runs_nothing(outside_tmp: Path, shell: str) -> None:
    """/tmp and the state directory both read-only: 126, the reason on stderr, no command."""
    _unshare_or_skip()
    world = _world(outside_tmp / "w")
    world["env"].pop("XDG_RUNTIME_DIR", None)
    world["env"].pop("TMPDIR", None)
    line = confined_line(world, "touch ran", "write")
    proc = _run_ro(world, shell, line, [world["root"] / "state" / "shellgate" / "watch"])
    _, err = proc.communicate(timeout=WAIT)
    assert proc.returncode == 126
    assert b"shellgate: not run: the undo watcher could not be set up (no directory for its FIFO" in err
    assert b"Read-only file system" in err
    assert not (world["work"] / "ran").exists()
