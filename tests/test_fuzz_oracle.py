"""The execution oracle sees every kind of side effect, and none where there is none.

These run real commands inside bubblewrap (and strace, for the traced kinds); they skip with a
reason when the host has neither.
"""

from __future__ import annotations

import shutil

import pytest

from shellgate.fuzz.oracle import Oracle, OracleUnavailable


@pytest.fixture(scope="module")
def oracle():
    try:
        o = Oracle(timeout=5.0, exec_allowed=lambda name: name in {"ls", "cat", "head", "git", "grep",
                                                                   "sort", "env", "wc", "find", "df", "sha256sum",
                                                                   "tar"})
    except OracleUnavailable as exc:
        pytest.skip(f"oracle unavailable on this host: {exc}")
    yield o
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


def test_helpers_only_count_for_their_own_runner(traced):
    obs = traced.run("env gzip -c README.md")   # env is no tar
    assert any(e.kind == "exec" and e.detail.endswith("/gzip") for e in obs.effects), obs.effects


def test_a_helpers_identity_does_not_cover_a_chosen_program(traced):
    obs = traced.run("tar --use-compress-program=id -tf archive.tar")
    assert any(e.kind == "exec" and e.detail.endswith("/id") for e in obs.effects), obs.effects


def test_runaway_output_files_are_capped(oracle):
    obs = oracle.run("head -c 100000000 /dev/zero > /tmp/big")
    assert obs.exit_code != 0 and any(e.detail == "created /tmp/big" for e in obs.effects)
