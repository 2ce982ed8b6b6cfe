"""The execution oracle sees every kind of side effect, and none where there is none.

These run real commands inside bubblewrap (and strace, for the traced kinds); they skip with a
reason when the host has neither.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from shellgate.fuzz.oracle import Oracle, OracleUnavailable

# The read-only list these tests use (the real one comes from the classifier's tables).
LISTED = frozenset({"ls", "cat", "head", "git", "grep", "sort", "env", "wc", "find", "df", "sha256sum",
                    "tar", "tee", "7z"})


@pytest.fixture(scope="module", params=["batch", "single"])
def oracle(request):
    """Both ways a command is started: through the batch sandbox (one bwrap and strace for
    many runs, the default) and in a single-use sandbox (the fallback): each sees the same."""
    try:
        o = Oracle(timeout=5.0, exec_allowed=LISTED.__contains__, batch=request.param == "batch")
    except OracleUnavailable as exc:
        pytest.skip(f"oracle unavailable on this host: {exc}")
    yield o
    if request.param == "batch" and o.traced:
        assert o.batch_starts >= 1 and o.batch_fallbacks == 0, (o.batch_starts, o.batch_broken)
    o.close()


@pytest.fixture(scope="module")
def traced(oracle):
    if not oracle.traced:
        pytest.skip("strace missing or not permitted: traced effect kinds cannot be observed")
    return oracle


def kinds(obs):
    return {e.kind for e in obs.effects}


@pytest.mark.parametrize("cmd", [
    "ls -la",
    "cat README.md",
    "head -n 2 data.txt | sort | wc -l",
    "git status",
    "git log --oneline",
    "git diff",
    "find . -name '*.py'",
    "ls ~ /tmp",
    "cat README.md > /dev/null 2>&1",
])
def test_readonly_command_shows_no_effect(traced, cmd):
    obs = traced.run(cmd)
    assert obs.exit_code == 0, obs.stderr
    assert obs.effects == (), obs.effects


@pytest.mark.parametrize("cmd, detail", [
    ("touch x", "created ws/x"),
    ("echo hi >> README.md", "modified ws/README.md"),
    ("sort -o out.txt data.txt", "created ws/out.txt"),
    ("mkdir newdir", "created ws/newdir"),
    ("echo x > /tmp/f", "created /tmp/f"),
    ("echo x > ~/.bashrc", "modified ~/.bashrc"),
    ("chmod 600 README.md", "chmod/chown ws/README.md"),
    ("git add -A", "modified ws/.git/index"),
])
def test_write_detected(oracle, cmd, detail):
    obs = oracle.run(cmd)
    assert ("write", detail) in {(e.kind, e.detail) for e in obs.effects}, obs.effects


def test_write_outside_the_world_is_an_attempt(traced):
    obs = traced.run("sort -o /etc/shellgate-fuzz-x data.txt")
    assert any(e.kind == "write" and "/etc/shellgate-fuzz-x" in e.detail for e in obs.effects), obs.effects


@pytest.mark.parametrize("cmd, detail", [
    ("rm data.txt", "deleted ws/data.txt"),
    ("find . -name notes.log -delete", "deleted ws/notes.log"),
    ("mv README.md README2.md", "deleted ws/README.md"),
])
def test_delete_detected(oracle, cmd, detail):
    obs = oracle.run(cmd)
    assert ("delete", detail) in {(e.kind, e.detail) for e in obs.effects}, obs.effects


def test_world_is_restored_after_a_change(oracle):
    oracle.run("rm README.md")
    obs = oracle.run("cat README.md")
    assert obs.exit_code == 0 and obs.effects == ()


@pytest.mark.parametrize("cmd, secret", [
    ("cat ~/.ssh/id_rsa", "~/.ssh/id_rsa"),
    ("head -c 3 ~/.aws/credentials", "~/.aws/credentials"),
    ("grep -r API_KEY .", "ws/.env"),
    ("wc -l < .env", "ws/.env"),
    ("cat .env > /dev/null", "ws/.env"),
    ("sha256sum ~/.netrc", "~/.netrc"),
])
def test_secret_read_detected(traced, cmd, secret):
    obs = traced.run(cmd)
    assert ("secret-read", f"read {secret}") in {(e.kind, e.detail) for e in obs.effects}, obs.effects


@pytest.mark.parametrize("cmd", ["df .env", "wc -c < .env", "ls -l ~/.ssh/id_rsa", "test -r .env"])
def test_opening_or_stating_a_secret_without_reading_it_is_no_effect(traced, cmd):
    obs = traced.run(cmd)
    assert obs.effects == (), obs.effects


def test_secret_printed_detected_without_trace(oracle):
    obs = oracle.run("cat .env")
    assert ("secret-read", "printed the canary of ws/.env") in {(e.kind, e.detail) for e in obs.effects}


def test_connect_detected(traced):
    port = 7
    py = shutil.which("python3", path="/usr/bin:/bin") or "python3"
    obs = traced.run(f"{py} -c 'import socket; socket.socket().connect((\"127.0.0.1\", {port}))'")
    assert any(e.kind == "connect" and f"127.0.0.1:{port}" in e.detail for e in obs.effects), obs.effects


def test_bash_dev_tcp_connect_detected(traced):
    obs = traced.run("echo x > /dev/tcp/127.0.0.1/9")
    assert any(e.kind == "connect" and "127.0.0.1:9" in e.detail for e in obs.effects), obs.effects


def test_unlisted_exec_detected(traced):
    obs = traced.run("env sh -c true")   # env is listed (for this oracle), sh is not
    assert ("exec", "executed /usr/bin/sh") in {(e.kind, e.detail) for e in obs.effects} or \
        ("exec", "executed /bin/sh") in {(e.kind, e.detail) for e in obs.effects}, obs.effects
    assert not any("env" in e.detail for e in obs.effects)


def test_listed_exec_is_not_an_effect(traced):
    obs = traced.run("env ls")
    assert obs.effects == () and any(p.endswith("/ls") for p in obs.execs)


def test_program_outside_system_dirs_is_an_exec(traced):
    obs = traced.run("cp /usr/bin/ls /tmp/ls && /tmp/ls")
    assert ("exec", "executed /tmp/ls") in {(e.kind, e.detail) for e in obs.effects}


def test_timeout_kills_the_tree(oracle):
    oracle_timeout = oracle.timeout
    oracle.timeout = 0.5
    try:
        obs = oracle.run("sleep 30 & sleep 30")
    finally:
        oracle.timeout = oracle_timeout
    assert obs.timed_out and obs.exit_code is None
    assert obs.duration < 30  # killed, not waited for (a bound, not a timing assertion)


def test_a_programs_own_helpers_are_not_execs(traced):
    obs = traced.run("tar -czf /tmp/a.tgz README.md; tar -tzf /tmp/a.tgz")
    # tar running gzip is tar's job; the write to /tmp is the only effect.
    assert {e.kind for e in obs.effects} == {"write"}, obs.effects
    assert any(p.endswith("/gzip") for p in obs.execs)


@pytest.mark.skipif(not os.path.isdir("/usr/lib/p7zip") or shutil.which("7z") is None,
                    reason="Debian's p7zip (a /usr/bin/7z script running /usr/lib/p7zip/7z) is not installed")
def test_a_program_running_its_own_binary_is_not_an_exec(traced):
    obs = traced.run("7z a -bso0 /tmp/a.7z README.md >/dev/null; 7z l /tmp/a.7z")
    assert {e.kind for e in obs.effects} == {"write"}, obs.effects   # the archive in /tmp only
    assert any(p == "/usr/lib/p7zip/7z" for p in obs.execs)


def test_helpers_only_count_for_their_own_runner(traced):
    obs = traced.run("env gzip -c README.md")   # env is no tar
    assert any(e.kind == "exec" and e.detail.endswith("/gzip") for e in obs.effects), obs.effects


def test_a_helpers_identity_does_not_cover_a_chosen_program(traced):
    obs = traced.run("tar --use-compress-program=id -tf archive.tar")
    assert any(e.kind == "exec" and e.detail.endswith("/id") for e in obs.effects), obs.effects


def test_runaway_output_files_are_capped(oracle):
    before = oracle.batch_fallbacks
    obs = oracle.run("head -c 100000000 /dev/zero > /tmp/big")
    assert obs.exit_code != 0 and any(e.detail == "created /tmp/big" for e in obs.effects)
    # Its trace (every read of /dev/zero, 4 KiB of data per line) passes the file-size limit
    # too, which ends strace: a batch breaks on it and the command runs again alone.
    assert oracle.batch_fallbacks - before <= 1
    oracle.batch_fallbacks = before


@pytest.mark.parametrize("damage", [
    "rm -rf src docs; echo x > README.md; mkdir -p new/deep; touch new/deep/f",
    "mv data.txt data2; ln -s ~/.ssh/id_rsa data.txt; chmod 000 notes.log",
    "rm -rf ~/.ssh; mkdir /tmp/d; chmod 000 /tmp/d; echo y >> ~/.bashrc",
    "chmod 000 src; git add -A 2>/dev/null; git commit -qm x 2>/dev/null; true",
])
def test_world_is_restored_exactly_after_damage(traced, damage):
    before = {p: e for p, e in _contents(traced).items()}
    traced.run(damage)
    assert _contents(traced) == before
    obs = traced.run("git status --porcelain; ls -la; cat ~/.bashrc")
    assert obs.effects == () and obs.exit_code == 0, obs.effects


def _contents(o):
    """Every path of the world with its mode and bytes (read with O_NOATIME: the oracle sees
    a canary read by its atime, and this test is not a command)."""
    out = {}
    for top in (o.workspace, o.home, o.live.tmp):
        for dirpath, dirs, files in os.walk(top):
            for n in dirs + files:
                p = os.path.join(dirpath, n)
                st = os.lstat(p)
                data = os.readlink(p) if os.path.islink(p) else (
                    _read_noatime(p) if os.path.isfile(p) else b"")
                if p.endswith("/.git/index"):   # its stat cache must change: files got new inodes
                    data = b""
                out[p] = (st.st_mode, data)
    return out


def _read_noatime(path):
    fd = os.open(path, os.O_RDONLY | os.O_NOATIME)
    try:
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read()
    finally:
        os.close(fd)


def test_utf8_locale_reads_as_on_the_host(traced):
    """The sandbox's /usr/lib/locale may be the host's locales plus an archive of them (one
    file to open instead of 24 per program): C.UTF-8 is still what programs get."""
    obs = traced.run("printf 'caf\\303\\251\\n' | grep -o . | wc -l; ls /usr/lib/locale")
    assert obs.effects == () and obs.exit_code == 0, (obs.effects, obs.stderr)
    lines = obs.stdout.split()
    assert lines[0] == "4", obs.stdout   # é is one character: the UTF-8 locale loaded
    if traced._locales is not None:
        assert "locale-archive" in lines and "C.utf8" in lines
        obs = traced.run("sort -o /usr/lib/locale/x data.txt")
        assert obs.exit_code != 0 and {e.kind for e in obs.effects} == {"write"}, obs.effects


def test_writing_to_the_captured_stdout_is_no_effect(traced):
    obs = traced.run("echo hi | tee /dev/stdout /dev/stderr")
    assert obs.effects == () and "hi" in obs.stdout


@pytest.mark.parametrize("cmd", ["tee /dev/stdout < data.txt | cat", "echo hi | tee /proc/self/fd/1 | wc -l",
                                 "tee /dev/stdout </dev/null | df > /dev/null"])
def test_reopening_a_pipe_is_no_effect(traced, cmd):
    """/dev/stdout that is a pipe reopens the pipe (strace names it pipe:[N]): no file."""
    obs = traced.run(cmd)
    assert obs.effects == (), obs.effects


def test_vfork_children_inherit_their_runner():
    # locale -m reads gzipped charmaps through a vfork'ed gzip: that is locale's own job.
    from shellgate.fuzz import trace
    from shellgate.fuzz.oracle import Oracle as O

    log = "\n".join([
        '10 execve("/bin/bash", ["bash"], 0x1 /* 1 var */) = 0',
        '10 clone(child_stack=NULL, flags=SIGCHLD) = 11',
        '11 execve("/usr/bin/locale", ["locale", "-m"], 0x1 /* 1 var */) = 0',
        '11 clone3({flags=CLONE_VM|CLONE_VFORK, exit_signal=SIGCHLD}, 88 <unfinished ...>',
        '12 execve("/usr/bin/gzip", ["gzip", "-dc"], 0x1 /* 1 var */) = 0',
        '11 <... clone3 resumed>) = 12',
    ])
    o = O.__new__(O)
    o.exec_allowed = {"locale"}.__contains__
    o._canary_paths = {}
    o._linked = {}
    o.private = o.base = Path("/nonexistent")
    o.live = type("L", (), {"watched": ()})()
    effects, execs = O._trace_effects(o, trace.parse(log))
    assert effects == [] and execs == ("/usr/bin/locale", "/usr/bin/gzip")


def test_commands_in_the_oracle_hold_no_capability(oracle):
    """As root, a generated ``date -s 2020-01-01`` set the host's clock once (there is no
    clock namespace for the wall clock): the oracle's commands run with every capability
    dropped, whoever runs the fuzzer."""
    obs = oracle.run("grep -E '^Cap(Eff|Prm|Inh|Amb):' /proc/self/status")
    caps = dict(line.split(":\t") for line in obs.stdout.splitlines())
    assert set(caps) == {"CapPrm", "CapEff", "CapInh", "CapAmb"}, obs.stdout
    assert all(int(v, 16) == 0 for v in caps.values()), caps   # (bwrap locks NOROOT: no exec regains one)


def test_help_harvesting_holds_no_capability():
    from shellgate.fuzz.flags import _run
    from shellgate.fuzz.oracle import sandbox_binary

    try:
        bwrap = sandbox_binary()
    except OracleUnavailable as exc:
        pytest.skip(f"no bwrap: {exc}")
    out = _run(["grep", "^CapEff:", "/proc/self/status"], bwrap)
    assert out.split() == ["CapEff:", "0000000000000000"], out


@pytest.mark.parametrize("cmd", ["git describe --always --broken",
                                 "git rev-parse --show-superproject-working-tree"])
def test_git_running_its_own_binary_is_not_an_exec(traced, cmd):
    """git re-runs ``$(git --exec-path)/git`` for plumbing: that is git, not a new program
    (a 10-minute campaign reported both as findings)."""
    obs = traced.run(cmd)
    assert obs.effects == (), obs.effects


def test_git_core_programs_run_by_anyone_else_are_execs(traced):
    """Only git itself re-running git is exempt: bash running git-core's helpers, or git-core's
    git directly, is an exec like any program outside the system directories."""
    import subprocess

    exec_path = subprocess.run(["git", "--exec-path"], capture_output=True, text=True).stdout.strip()
    obs = traced.run(f"{exec_path}/git-sh-i18n--envsubst --help; {exec_path}/git --version")
    assert [e.detail for e in obs.effects if e.kind == "exec"] == [
        f"executed {exec_path}/git-sh-i18n--envsubst", f"executed {exec_path}/git"], obs.effects
