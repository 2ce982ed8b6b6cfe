"""The pre-spawned bwrap sandbox: what a fresh bwrap per command gave for free must still hold
when one sandbox serves many commands — reuse only for the very same view, the tree kill,
mounts that match the disk, separate sandboxes for concurrent commands, a clean lifecycle.

The shared escape/hygiene tests run against it too (tests/test_sandbox_escapes.py,
test_sandbox_worktree.py, test_bashtool.py, parametrized "bwrap" vs "bwrap-fresh").
"""

from __future__ import annotations

import contextlib
import gc
import os
import select
import shlex
import signal
import subprocess
import sys
import threading
from pathlib import Path

import psutil
import pytest
from _helpers import git_workspace, sandbox_or_skip
from _helpers import world_policy as _policy
from conftest import live_sandboxes

from shellgate.sandbox import Limits, Sandbox, jobs, runner
from shellgate.sandbox.bwrap import mount_identity

CANARY = "CANARY-prespawn-3b9e"


@pytest.fixture
def sb():
    s = sandbox_or_skip("bwrap")
    yield s
    s.close()


pytestmark = pytest.mark.usefixtures("no_leaked_sandboxes")


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    ws, home = git_workspace(tmp_path / "ws"), tmp_path / "home"
    home.mkdir()
    (home / ".netrc").write_text("machine example.invalid password old\n")
    return {"ws": ws, "home": home}


def _server_pid(sb: Sandbox, w: dict[str, Path], **kw) -> str:
    """The namespace pid of the server that ran the command."""
    r = sb.run("echo $PPID", _policy(w, **kw))
    assert r.exit_code == 0, r
    return r.stdout.strip()


def test_one_server_serves_many_commands(sb: Sandbox, world) -> None:
    assert _server_pid(sb, world) == _server_pid(sb, world)
    assert len(live_sandboxes()) == 1 and sb.prespawn_error is None
    assert sb.description == "bwrap (pre-spawned)"


def test_another_view_gets_another_server_and_the_first_is_kept(sb: Sandbox, world) -> None:
    _server_pid(sb, world)
    first = live_sandboxes()
    _server_pid(sb, world, network=True)
    assert len(live_sandboxes()) == 2
    _server_pid(sb, world)
    assert len(live_sandboxes()) == 2 and first[0] in live_sandboxes()


def test_background_jobs_die_but_the_server_stays(sb: Sandbox, world) -> None:
    before = _server_pid(sb, world)
    r = sb.run("sleep 300 & setsid sleep 301 & (setsid -f sleep 302); ps -e -o pid= | wc -l",
               _policy(world))
    assert int(r.stdout) >= 6, r        # init, server, bash, three sleeps, ps…
    r = sb.run("ps -e -o comm=", _policy(world))
    assert "sleep" not in r.stdout, r.stdout
    assert _server_pid(sb, world) == before


def test_a_replaced_protected_file_gets_a_new_sandbox(sb: Sandbox, world, monkeypatch) -> None:
    """The kernel drops a mount whose mount point is renamed over on the host (git rewrites its
    config that way): a long-lived sandbox would then see the new file unprotected."""
    cfg, netrc = world["ws"] / ".git" / "config", world["home"] / ".netrc"

    def replace_on_host() -> None:
        for path, text in ((cfg, cfg.read_text()), (netrc, f"password {CANARY}\n")):
            tmp = path.with_name(path.name + ".new")
            tmp.write_text(text)
            os.replace(tmp, path)

    attack = "cat ~/.netrc; echo '[core] hooksPath = /tmp' >> .git/config && echo WROTE"
    for checked in (False, True):   # without the identity check first: the hole is real
        if not checked:
            monkeypatch.setattr(runner, "mount_identity", lambda mounts, disk=None: ())
        else:
            monkeypatch.undo()
        sb.close()
        before = sb.run(attack, _policy(world))
        assert "WROTE" not in before.stdout and "password" not in before.stdout, before
        replace_on_host()
        after = sb.run(attack, _policy(world))
        leaked = "WROTE" in after.stdout and CANARY in after.stdout
        assert leaked is not checked, after
        assert ("hooksPath" in cfg.read_text()) is not checked
        if not checked:
            cfg.write_text(cfg.read_text().replace("[core] hooksPath = /tmp\n", ""))


def test_mount_identity_follows_inodes(world) -> None:
    cfg = world["ws"] / ".git" / "config"
    mounts = ["--ro-bind", "/", "/", "--ro-bind", str(cfg), str(cfg), "--tmpfs", str(world["home"])]
    ident = mount_identity(mounts)
    assert [p for p, _, _ in ident] == [str(cfg), str(cfg), str(world["home"])]
    cfg.write_text(cfg.read_text() + "\n")          # written in place: same inode, same mount
    assert mount_identity(mounts) == ident
    tmp = cfg.with_name("config.new")
    tmp.write_text("x")
    os.replace(tmp, cfg)                            # replaced: the mount would be gone
    assert mount_identity(mounts) != ident


def test_a_killed_server_is_replaced(sb: Sandbox, world) -> None:
    _server_pid(sb, world)
    [first] = live_sandboxes()
    count = world["ws"] / "count"
    for _ in range(4):   # it may even die before saying it started: never run a command twice
        r = sb.run("echo ran >> count; kill -9 $PPID; sleep 5; echo survived", _policy(world))
        assert "survived" not in r.stdout and r.signal == signal.SIGKILL, r
        assert count.read_text() == "ran\n"
        count.unlink()
    assert sb.run("echo back", _policy(world)).stdout == "back\n"
    [server] = live_sandboxes()
    server.proc.kill()          # from the host side too
    server.proc.wait()
    assert sb.run("echo again", _policy(world)).stdout == "again\n"
    assert server not in live_sandboxes() and first not in live_sandboxes()


def test_a_stopped_server_is_torn_down_at_the_timeout(sb: Sandbox, world, monkeypatch) -> None:
    """A command that freezes the server cannot hold the caller past its timeout."""
    monkeypatch.setattr(jobs, "SWEEP_TIMEOUT", 0.2)
    r = sb.run("kill -STOP $PPID; sleep 300", _policy(world, limits=Limits(timeout=1)))
    assert r.timed_out and r.exit_code == 124
    assert sb.run("echo fine", _policy(world)).stdout == "fine\n"


def _open_fifo(path: Path, flags: int, timeout: float = 30.0) -> int:
    """Open a FIFO end without blocking forever if the other side never comes."""
    fd = os.open(path, flags | os.O_NONBLOCK)
    if flags == os.O_RDONLY:
        assert select.select([fd], [], [], timeout)[0], f"nothing arrived on {path}"
    return fd


def test_concurrent_commands_get_separate_sandboxes(sb: Sandbox, world) -> None:
    """While one command waits, another one runs and finishes; its sweep must not touch the
    first. FIFOs order the two without sleeps."""
    ready, go = world["ws"] / "ready", world["ws"] / "go"
    os.mkfifo(ready)
    os.mkfifo(go)
    results: dict[str, object] = {}
    slow = threading.Thread(target=lambda: results.setdefault("slow", sb.run(
        "echo up > ready; read x < go; echo slow-$x", _policy(world, limits=Limits(timeout=60)))))
    slow.start()
    rfd = _open_fifo(ready, os.O_RDONLY)
    try:
        assert os.read(rfd, 16) == b"up\n"
        quick = sb.run("sleep 200 & echo quick", _policy(world))
        assert quick.stdout == "quick\n"
        assert len(live_sandboxes()) == 2
        with open(go, "w") as f:
            f.write("done\n")
    finally:
        os.close(rfd)
        slow.join(60)
    assert results["slow"].stdout == "slow-done\n", results["slow"]


def test_close_ends_every_process_of_the_sandbox(sb: Sandbox, world) -> None:
    sb.run("true", _policy(world))
    [server] = live_sandboxes()
    procs = [psutil.Process(server.proc.pid), psutil.Process(server.init_pid)]
    procs += procs[1].children(recursive=True)
    assert len(procs) >= 3   # bwrap, its init, the server
    sb.close()
    assert live_sandboxes() == []
    assert [p for p in procs if p.is_running() and p.status() != psutil.STATUS_ZOMBIE] == []
    assert sb.run("echo reopened", _policy(world)).stdout == "reopened\n"


def test_garbage_collection_closes_the_servers(world) -> None:
    s = sandbox_or_skip("bwrap")
    s.run("true", _policy(world))
    assert len(live_sandboxes()) == 1
    del s
    gc.collect()
    assert live_sandboxes() == []


_HOST = """
import os, sys
from pathlib import Path
from shellgate.sandbox import Sandbox, build_policy, prespawn
sb = Sandbox("bwrap")
r = sb.run("true", build_policy(Path(sys.argv[1])))
[server] = prespawn.live_servers()
print(server.proc.pid, server.init_pid, flush=True)
os.kill(os.getpid(), 9)
"""


def test_the_sandbox_dies_with_its_host_process(sb: Sandbox, world) -> None:
    """--die-with-parent: a host killed without any cleanup takes its sandboxes along."""
    p = subprocess.run([sys.executable, "-c", _HOST, str(world["ws"])], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == -signal.SIGKILL, p.stderr
    procs = []
    for pid in map(int, p.stdout.split()):   # bwrap and the sandbox's init
        with contextlib.suppress(psutil.NoSuchProcess):
            procs.append(psutil.Process(pid))
    gone, alive = psutil.wait_procs(procs, timeout=30)
    assert [p for p in alive if p.status() != psutil.STATUS_ZOMBIE] == []
    _reap_orphans()


def _reap_orphans() -> None:
    """bwrap processes of a host process we ran come to us if we are a subreaper (the landlock
    and none tiers make this process one): reap them, as that host could not."""
    for p in psutil.Process().children():
        if p.name() == "bwrap" and p.status() == psutil.STATUS_ZOMBIE:
            os.waitpid(p.pid, 0)


def test_a_server_that_cannot_start_means_fresh_sandboxes(sb: Sandbox, world, monkeypatch) -> None:
    monkeypatch.setattr(Sandbox, "_server_python", lambda self: "/nonexistent/python3")
    r = sb.run("echo still-runs", _policy(world))
    assert r.stdout == "still-runs\n" and r.tier == "bwrap"
    assert sb.prespawn_error and any("pre-spawned sandbox unavailable" in n for n in r.notes)
    assert sb.description.startswith("bwrap (fresh per command")
    assert live_sandboxes() == []
    r = sb.run("cat ~/.netrc; echo x >> .git/hooks/pre-commit", _policy(world))   # still confined
    assert "password" not in r.stdout and "Read-only file system" in r.stderr


def test_a_long_command_and_odd_bytes_reach_bash_intact(sb: Sandbox, world) -> None:
    blob = "x" * 100_000
    r = sb.run(f": {blob}; printf '%s|' {shlex.quote('a b')} $'\\t' é; echo ${{#PWD}}",
               _policy(world))
    assert r.stdout == f"a b|\t|é|{len(str(world['ws']))}\n", r


_FORK = """
import os, sys
from pathlib import Path
from shellgate.sandbox import Sandbox, build_policy, prespawn
sb = Sandbox("bwrap")
pol = build_policy(Path(sys.argv[1]))
parent = sb.run("echo $PPID", pol).stdout
pid = os.fork()
if pid == 0:   # the child must not use (or kill) its parent's sandbox: it starts its own
    r = sb.run("echo child", pol)
    ok = r.stdout == "child\\n" and len(prespawn.live_servers()) == 1
    sb.close()
    os._exit(0 if ok else 1)
_, status = os.waitpid(pid, 0)
again = sb.run("echo $PPID", pol).stdout
print(os.waitstatus_to_exitcode(status), parent == again, len(prespawn.live_servers()))
sb.close()
"""


def test_a_forked_child_gets_its_own_sandbox(sb: Sandbox, world) -> None:
    p = subprocess.run([sys.executable, "-c", _FORK, str(world["ws"])], capture_output=True,
                       text=True, timeout=120)
    _reap_orphans()
    assert p.stdout.split() == ["0", "True", "1"], p.stderr
