"""Audit log: one JSONL line per decision, the SPEC §4 fields, redaction, default location, and
many concurrent writer processes losing no line."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest
from conftest import load

from shellgate.permission import (
    AuditLog,
    Capability,
    DecisionKind,
    Engine,
    Metadata,
    Request,
    RuleSet,
    default_audit_path,
    read_audit,
    redact,
)

FIELDS = {"ts", "seq", "session_id", "tool_use_id", "cwd", "command", "mode", "decision", "source",
          "rule", "reasons", "warnings", "sensitive_paths", "exit_code", "duration_ms"}


def lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_one_line_per_decision_with_every_field(tmp_path):
    log = tmp_path / "audit.jsonl"
    e = Engine(tmp_path, "strict", audit=log, session_id="sess-1",
               rules=RuleSet.parse(deny=["Bash(rm *)"]))
    e.decide(Request(tool_id="toolu_01", tool_name="bash", metadata=Metadata(
        Capability.EXEC, key="k", command="rm -rf x", warnings=("deletes files recursively",),
        sensitive=("~/.ssh/id_rsa",))))
    e.decide(Request(tool_id="toolu_02", tool_name="read", metadata=Metadata(Capability.READ)))
    got = lines(log)
    assert len(got) == 2
    first = got[0]
    assert set(first) >= FIELDS
    assert first["session_id"] == "sess-1" and first["tool_use_id"] == "toolu_01"
    assert first["command"] == "rm -rf x" and first["mode"] == "strict"
    assert (first["decision"], first["verdict"], first["source"], first["rule"]) == \
        ("deny", "deny", "rule", "chain.deny_rule")
    assert first["matched"] == ["Bash(rm *)"]
    assert first["warnings"] == ["deletes files recursively"]
    assert first["sensitive_paths"] == ["~/.ssh/id_rsa"]
    assert first["cwd"] == str(tmp_path) and first["exit_code"] is None
    assert first["duration_ms"] >= 0 and first["event"] == "decision"
    assert first["ts"].endswith("Z")
    assert [g["seq"] for g in got] == [1, 2]
    assert got[1]["decision"] == "allow" and got[1]["rule"] == "chain.mode_matrix"


def test_request_session_wins_and_execution_lines(tmp_path):
    log = AuditLog(tmp_path / "a.jsonl", session_id="boot")
    e = Engine(tmp_path, audit=log)
    e.decide(Request(tool_name="x", session_id="live", metadata=Metadata(Capability.READ)))
    log.execution(command="ls", exit_code=0, duration_ms=12.3456, cwd=str(tmp_path))
    a, b = lines(tmp_path / "a.jsonl")
    assert a["session_id"] == "live" and b["session_id"] == "boot"
    assert (b["event"], b["exit_code"], b["duration_ms"]) == ("execution", 0, 12.346)


def test_asked_decisions_are_recorded_with_the_user_answer(tmp_path):
    e = Engine(tmp_path, audit=tmp_path / "a.jsonl", approver=lambda p: DecisionKind.ALLOW_ONCE)
    e.decide(Request(tool_name="t", metadata=Metadata(Capability.EXEC, key="k")))
    (line,) = lines(tmp_path / "a.jsonl")
    assert (line["decision"], line["source"], line["asked"]) == ("allow_once", "user", True)


@pytest.mark.parametrize("secret, shown, hidden", [
    ("curl https://bob:hunter2@example.com/x", "bob:***@example.com", "hunter2"),
    ("curl -H 'Authorization: Bearer abc.def.ghi123' https://api", "Authorization: ***", "abc.def"),
    ("aws s3 ls # AKIAIOSFODNN7EXAMPLE", "AKIA***", "IOSFODNN7EXAMPLE"),
    ("export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG", "AWS_SECRET_ACCESS_KEY=***", "wJalr"),
    ("mysql -u root -pHunter2 db", "-p***", "Hunter2"),
    ("git clone https://ghp_abcdefghijklmnopqrstuvwx@github.com/a/b", "ghp_***", "abcdefghijkl"),
    ("curl 'https://x/api?token=abc123&page=2'", "token=***&page=2", "abc123"),
    ("psql --password s3cret -h db", "--password ***", "s3cret"),
    ("curl -u admin:letmein https://x", "admin:***", "letmein"),
    ("echo sk-ant-api03-abcdefghijklmnop", "sk-ant-***", "abcdefghijklmnop"),
])
def test_secrets_are_redacted(tmp_path, secret, shown, hidden):
    assert hidden not in redact(secret) and shown in redact(secret)
    log = AuditLog(tmp_path / "a.jsonl")
    log.record({"command": secret, "reasons": [secret]})
    text = (tmp_path / "a.jsonl").read_text()
    assert hidden not in text and shown in json.loads(text)["command"]


@pytest.mark.parametrize("harmless", ["mkdir -p build", "ls -la", "git log -p", "mysql -p db",
                                      "grep -r password src/"])
def test_redaction_leaves_harmless_commands_alone(harmless):
    assert redact(harmless) == harmless


def test_default_path_follows_xdg(tmp_path, monkeypatch):
    assert default_audit_path({"XDG_STATE_HOME": str(tmp_path)}) == tmp_path / "shellgate/audit.jsonl"
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_audit_path({}) == tmp_path / "home/.local/state/shellgate/audit.jsonl"
    assert default_audit_path({"XDG_STATE_HOME": "relative"}) == \
        tmp_path / "home/.local/state/shellgate/audit.jsonl"


def test_unwritable_log_never_breaks_a_decision(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    log = AuditLog(blocker / "sub" / "audit.jsonl")
    e = Engine(tmp_path, "trust", audit=log)
    d = e.decide(Request(tool_name="t", metadata=Metadata(Capability.EXEC)))
    assert d.allowed() and log.errors == 1 and any("audit log" in p for p in e.problems())


def test_file_is_private(tmp_path):
    log = AuditLog(tmp_path / "a.jsonl")
    log.record({"x": 1})
    assert (tmp_path / "a.jsonl").stat().st_mode & 0o077 == 0


WRITER = textwrap.dedent("""
    import sys
    from shellgate.permission import AuditLog
    path, name, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    log = AuditLog(path, session_id=name)
    pad = "x" * 6000   # longer than PIPE_BUF: atomicity must not depend on small writes
    for i in range(n):
        assert log.record({"event": "decision", "command": f"{name}:{i}:{pad}", "i": i})
""")


def test_concurrent_writers_lose_no_line(tmp_path):
    path = tmp_path / "audit.jsonl"
    procs, n = 8, 200
    running = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), f"w{k}", str(n)])
               for k in range(procs)]
    try:
        codes = [p.wait(timeout=120) for p in running]
    finally:
        for p in running:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert codes == [0] * procs
    raw = path.read_bytes().split(b"\n")
    assert raw[-1] == b"" and len(raw) - 1 == procs * n
    entries = [json.loads(x) for x in raw[:-1]]   # every line parses
    for k in range(procs):
        mine = [e for e in entries if e["session_id"] == f"w{k}"]
        assert sorted(e["i"] for e in mine) == list(range(n))
        assert [e["seq"] for e in mine] == list(range(1, n + 1))   # appended in order
        assert all(e["command"].startswith(f"w{k}:{e['i']}:x") and len(e["command"]) > 6000
                   for e in mine)
    assert len(read_audit(path)) == procs * n


def test_on_audit_callback_gets_every_entry_and_cannot_break_decisions(tmp_path):
    seen = []
    e = Engine(tmp_path, "trust", on_audit=seen.append)
    e.decide(Request(tool_name="t", metadata=Metadata(Capability.EXEC)))
    assert len(seen) == 1 and seen[0]["decision"] == "allow" and seen[0]["rule"] == "chain.mode_matrix"

    def broken(entry):
        raise RuntimeError("sink down")

    assert Engine(tmp_path, "trust", on_audit=broken).decide(
        Request(tool_name="t", metadata=Metadata(Capability.EXEC))).allowed()


REDACT = load("redact.jsonl")


@pytest.mark.parametrize("case", [c for c in REDACT if not c.get("keep")], ids=lambda c: c["why"])
def test_redaction_corpus_leaks_nothing(case, tmp_path):
    """Every secret of corpus/redact.jsonl is gone from redact() and from the audit line."""
    got = redact(case["text"])
    assert not [s for s in case["secrets"] if s in got], got
    log = AuditLog(tmp_path / "a.jsonl")
    log.record({"command": case["text"]})
    text = (tmp_path / "a.jsonl").read_text()
    assert not [s for s in case["secrets"] if s in text or json.dumps(s)[1:-1] in text], text


@pytest.mark.parametrize("case", [c for c in REDACT if c.get("keep")], ids=lambda c: c["why"])
def test_redaction_corpus_keeps_ordinary_commands_readable(case):
    assert redact(case["text"]) == case["text"]


def test_redaction_corpus_is_large_enough():
    assert sum(not c.get("keep") for c in REDACT) >= 40 and sum(bool(c.get("keep")) for c in REDACT) >= 10


@pytest.mark.parametrize("name, secret", [
    ("DB_PASS", True), ("GITHUB_PAT", True), ("X-Api-Key", True), ("_authToken", True),
    ("AccountKey", True), ("sig", True), ("PRIVATE-TOKEN", True), ("PATH", False),
    ("PWD", False), ("author", False), ("pattern", False), ("keyboard", False), ("sv", False),
])
def test_secret_name(name, secret):
    from shellgate.permission.redact import secret_name

    assert secret_name(name) is secret


@pytest.mark.parametrize("flag, secret", [("--password", True), ("--api-key", True),
                                          ("--key", False), ("--auth", False), ("-p", False)])
def test_secret_flag_names_need_a_whole_word(flag, secret):
    from shellgate.permission.redact import secret_name

    assert secret_name(flag, flag=True) is secret


@pytest.mark.parametrize("text", ["a=" * 5000 + "x", "docker login " * 2000, "-u a:" * 2000,
                                  "config set " + "--a " * 2000, "a." * 20000 + " x://y"])
def test_redaction_of_adversarial_lines_is_bounded_and_never_fails(text):
    assert redact(text) != "<redaction failed>"


def test_nested_assignments_past_the_limit_are_hidden():
    assert redact("a=b=c=d=e=f=password=g") == "a=b=c=d=e=***"
    assert redact("a=b=c=d=e=f=g") == "a=b=c=d=e=f=g"
    assert redact("x --from-literal=password=kubePw123") == "x --from-literal=password=***"
