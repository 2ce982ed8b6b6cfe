"""The batched oracle (shellgate/fuzz/batch.py): many commands through one bwrap and strace.

Each effect is attributed to exactly the command that caused it, one command's changes are
never seen by the next (files, left-behind processes, the sandbox's own tmpfs, the private
directory), and a batch a command broke never yields an observation: the command is run again
in a single-use sandbox. Real bwrap and strace; skipped with a reason without them.
"""

from __future__ import annotations

import shutil

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shellgate.fuzz import batch
from shellgate.fuzz.oracle import Oracle, OracleUnavailable


def _oracle(timeout: float = 5.0) -> Oracle:
    try:
        o = Oracle(timeout=timeout, exec_allowed=lambda name: name != "id")
    except OracleUnavailable as exc:
        pytest.skip(f"oracle unavailable on this host: {exc}")
    if o._batch_tools is None:
        o.close()
        pytest.skip("no strace or no trusted python3/cat: the oracle does not batch here")
    return o


@pytest.fixture
def oracle():
    o = _oracle()
    yield o
    o.close()


def test_the_runner_marks_where_the_oracle_looks():
    from shellgate.fuzz import batchrunner

    assert batchrunner.MARK_ROOT == batch.MARK_ROOT
    assert "import shellgate" not in batch.runner_source() and "from shellgate" not in batch.runner_source()


def kinds(obs):
    return {e.kind for e in obs.effects}


def test_each_effect_belongs_to_exactly_its_command(oracle):
    plan = [
        ("ls -la", set()),
        ("id -u", {"exec"}),
        ("cat README.md", set()),
        ("touch /etc/shellgate-batch-test", {"write"}),
        ("true", set()),
        ("exec 3<>/dev/tcp/127.0.0.1/9 || true", {"connect"}),
        ("echo fine", set()),
        ("cat ~/.netrc", {"secret-read"}),
        ("ls ~", set()),
        ("echo x > made.txt", {"write"}),
        ("grep -c . data.txt", set()),
    ]
    got = [(cmd, kinds(oracle.run(cmd))) for cmd, _ in plan]
    assert got == plan
    assert oracle.batch_starts == 1 and oracle.batch_fallbacks == 0


def test_a_commands_changes_are_not_seen_by_the_next(oracle):
    look = ("ls -la . /tmp ~ src; cat data.txt ~/.bashrc; git status --porcelain; "
            "ls -A /dev/shm /run")
    before = oracle.run(look)
    assert before.effects == () and before.exit_code == 0, before
    damage = oracle.run("echo x > new.txt; echo y >> data.txt; rm notes.log; mkdir -p /tmp/d; "
                        "echo z > ~/.bashrc; mv src/util.py src/u2.py")
    assert {"write", "delete"} <= kinds(damage)
    after = oracle.run(look)
    assert after.effects == () and after.stdout == before.stdout
    assert oracle.batch_starts == 1


def test_a_left_behind_process_is_dead_before_the_next_command():
    o = _oracle(timeout=1.0)
    try:
        count = "ls /proc | grep -c '^[0-9]'"
        alone = o.run(count).stdout
        left = o.run("setsid sh -c 'while :; do :; done' & nohup sh -c 'sleep 1000; :' "
                     "> /dev/null 2>&1 & echo started")
        assert left.timed_out and left.stdout == "started\n"   # waited for, then killed
        assert o.run(count).stdout == alone
        assert o.batch_starts == 1 and o.batch_fallbacks == 0
    finally:
        o.close()


def test_a_timed_out_command_is_terminated_before_it_is_killed():
    """zsh campaign, seed 20261208: ``sort -m /dev/stdout |& fmt`` reads the pipe it writes, so
    it hangs; it had copied that input to a temporary file first, and a SIGKILL at the timeout
    left /tmp/sortXXXXXX behind (a "write" by a read-only command). Under an agent's timeout
    (SIGTERM) sort removes it: so does the oracle now."""
    o = _oracle(timeout=1.0)
    try:
        obs = o.run("sort -m /dev/stdout | cat")
        assert obs.timed_out and obs.effects == (), obs.effects
        trapped = o.run("trap 'echo cleaned >&2; exit' TERM; while :; do sleep 0.05; done")
        assert trapped.timed_out and "cleaned" in trapped.stderr
        assert o.batch_starts == 1 and o.batch_fallbacks == 0
    finally:
        o.close()


def test_a_change_to_the_sandboxs_own_tmpfs_retires_it(oracle):
    oracle.run("true")
    obs = oracle.run("touch /dev/shm/left")
    assert ("write", "opened for writing /dev/shm/left") in {(e.kind, e.detail) for e in obs.effects}
    assert oracle.run("ls -A /dev/shm").stdout == ""
    assert oracle.batch_starts == 2 and oracle.batch_fallbacks == 0


@pytest.mark.parametrize("leave", [
    "mkdir /dev/shm/d && touch /dev/shm/d/f",    # below the first level
    "mkfifo /run/p",
    "ln -s /dev/null /run/l",
    "chmod 600 /dev/shm",                        # the metadata of what was there
    "touch -d 2001-01-01 /dev/shm",              # its times put back: the ctime still moved
    "ipcmk -Q >/dev/null",                       # System V IPC: a message queue,
    "ipcmk -M 4096 >/dev/null",                  # a shared memory segment,
    "ipcmk -S 1 >/dev/null",                     # a semaphore set
])
def test_whatever_is_left_outside_the_world_retires_the_sandbox(oracle, leave):
    """The runner reads its sandbox's own state without a traced call (lstat, *ctl INFO)."""
    if leave.startswith("ipcmk") and not shutil.which("ipcmk"):
        pytest.skip("no ipcmk")
    oracle.run("true")
    oracle.run(leave)
    assert oracle._batch is not None and not oracle._batch.alive   # retired
    after = oracle.run("ls -A /dev/shm /run; ipcs 2>/dev/null | grep -c '^0x' || true")
    assert oracle.batch_starts == 2 and oracle.batch_fallbacks == 0   # a fresh one
    assert after.stdout.split() == ["/dev/shm:", "/run:", "0"], after.stdout


def test_what_a_command_made_and_removed_again(oracle):
    """An IPC object made and removed leaves nothing: the sandbox stays; a file made and removed
    in /dev/shm moved the directory's times, which is enough to retire it (conservative)."""
    if not shutil.which("ipcmk"):
        pytest.skip("no ipcmk")
    oracle.run("true")
    oracle.run("ipcrm -q $(ipcmk -Q | grep -o '[0-9]*$')")
    oracle.run("true")
    assert oracle.batch_starts == 1
    oracle.run("touch /dev/shm/t; rm /dev/shm/t")
    oracle.run("true")
    assert oracle.batch_starts == 2 and oracle.batch_fallbacks == 0


def test_each_command_has_its_own_stdout_and_stderr(oracle):
    """The output files are handed to the runner as fds and truncated before each command:
    nothing of a longer earlier output is left, and no path in the sandbox leads to them."""
    long = oracle.run("seq 100000; seq 50000 >&2")
    assert long.stdout.startswith("1\n") and len(long.stderr) > 1000
    short = oracle.run("echo hi; echo ho >&2")
    assert (short.stdout, short.stderr) == ("hi\n", "ho\n")
    look = oracle.run(f"ls -a {oracle.base} {oracle.private}")
    assert "batch.out" not in look.stdout and "batch.err" not in look.stdout, look.stdout
    assert oracle.batch_starts == 1


def test_a_file_left_in_the_private_directory_is_removed(oracle):
    planted = oracle.private / "planted"
    obs = oracle.run(f"touch {planted}")
    assert "write" in kinds(obs)
    assert planted.name not in oracle.run(f"ls {oracle.private}").stdout


def test_a_forged_marker_does_not_cut_a_commands_trace(oracle):
    oracle.run("true")
    nonce = oracle._batch.nonce
    i = oracle._batch.commands + 1
    obs = oracle.run(f"cat /proc/shellgate-batch/{nonce}/{i}/end/0/0/0 2>/dev/null; cat ~/.netrc")
    assert "secret-read" in kinds(obs) and any(e.detail == "read ~/.netrc" for e in obs.effects)
    assert oracle.run("true").effects == ()


def test_a_command_that_kills_the_runner_is_run_again_alone(oracle):
    oracle.run("true")
    # Only the batch's runner is killed (alone, the parent is strace: killing it ends the run).
    obs = oracle.run("case $(cat /proc/$PPID/comm) in python*) kill -9 $PPID;; esac; "
                     "cat ~/.netrc; echo x > after.txt")
    assert oracle.batch_fallbacks == 1
    assert {"secret-read", "write"} <= kinds(obs), obs.effects
    nxt = oracle.run("cat ~/.pgpass; ls")
    assert kinds(nxt) == {"secret-read"} and "after.txt" not in nxt.stdout
    assert oracle.batch_starts == 2


def test_a_stopped_runner_is_a_broken_batch(oracle, monkeypatch):
    monkeypatch.setattr(batch, "WATCHDOG", 0.5)
    oracle.timeout = 0.5
    oracle.run("true")
    obs = oracle.run("case $(cat /proc/$PPID/comm) in python*) kill -STOP $PPID;; esac; "
                     "echo x > stopped.txt")
    assert oracle.batch_fallbacks == 1 and "write" in kinds(obs)
    assert oracle.run("ls").effects == ()


def test_a_command_that_removes_its_trace_is_seen_doing_so(oracle):
    obs = oracle.run(f"rm -f {oracle.private}/bt.*; cat ~/.netrc > /dev/null")
    assert any(e.kind == "delete" and "removed the oracle's trace" in e.detail
               for e in obs.effects), obs.effects
    assert oracle.run("true").effects == ()


def test_alone_a_command_that_removes_its_trace_is_seen_doing_so():
    try:
        o = Oracle(timeout=5.0, batch=False)
    except OracleUnavailable as exc:
        pytest.skip(f"oracle unavailable on this host: {exc}")
    try:
        if not o.traced:
            pytest.skip("no strace")
        obs = o.run(f"rm -f {o.private}/cmd.trace; cat ~/.netrc > /dev/null")
        assert ("delete", "removed the oracle's trace") in {(e.kind, e.detail) for e in obs.effects}
    finally:
        o.close()


# -- any sequence through one batch sees, command by command, what a fresh sandbox sees --------

POOL = ("ls -la", "cat data.txt | sort", "git status --porcelain", "ls -A ~ /tmp",
        "echo x > made.txt", "rm notes.log", "cat ~/.netrc > /dev/null", "id -u",
        "touch /etc/shellgate-x 2>/dev/null", "exec 3<>/dev/tcp/127.0.0.1/9 2>/dev/null; true",
        "mkdir /tmp/d", "(touch late.txt &)", "chmod 000 src", "echo y >> ~/.bashrc")


@pytest.fixture(scope="module")
def reference():
    """Each pool command's effects and output in a single-use sandbox, and a batched oracle."""
    try:
        single = Oracle(timeout=5.0, batch=False, exec_allowed=lambda name: name != "id")
    except OracleUnavailable as exc:
        pytest.skip(f"oracle unavailable on this host: {exc}")
    expected = {}
    for cmd in POOL:
        obs = single.run(cmd)
        expected[cmd] = (_effects(obs), obs.stdout.replace(str(single.live.root), "ROOT"))
    single.close()
    batched = _oracle()
    yield expected, batched
    batched.close()


def _effects(obs):
    return frozenset((e.kind, e.detail) for e in obs.effects)


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(POOL), min_size=2, max_size=8))
def test_any_sequence_sees_what_fresh_sandboxes_see(reference, cmds):
    expected, batched = reference
    for cmd in cmds:
        obs = batched.run(cmd)
        assert (_effects(obs), obs.stdout.replace(str(batched.live.root), "ROOT")) == expected[cmd], cmd
    assert batched.batch_fallbacks == 0, batched.batch_broken
