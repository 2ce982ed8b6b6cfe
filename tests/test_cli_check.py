"""`shellgate check`: the console script end to end, the JSON contract, the batch mode, and the
public API's promise never to raise nor allow what it did not understand."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shellgate import Gate
from shellgate.checkcli import check_lines

KEYS = {"command", "decision", "capability", "readonly", "reasons", "warnings", "sensitive",
        "commands", "parse"}
SHELLGATE = shutil.which("shellgate")


def _run(args: list[str], tmp_path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    exe = [SHELLGATE] if SHELLGATE else [sys.executable, "-m", "shellgate.cli"]
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "NO_COLOR": "1"}
    (tmp_path / "home").mkdir(exist_ok=True)
    return subprocess.run([*exe, *args], input=stdin, capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=120)


@pytest.mark.parametrize(("cmd", "mode", "decision", "code"), [
    ("ls -la", "balanced", "allow", 0),
    ("cat ~/.ssh/id_rsa", "balanced", "ask", 3),      # the README's first command
    ("make build", "balanced", "ask", 3),
    ("make build", "strict", "deny", 4),
    ("make build", "trust", "allow", 0),
    ("touch notes.txt", "accept-edits", "allow", 0),
    ("touch notes.txt", "strict", "ask", 3),
])
def test_console_script_decisions_and_exit_codes(tmp_path, cmd, mode, decision, code):
    got = _run(["check", "--json", "--mode", mode, cmd], tmp_path)
    assert got.returncode == code, got.stderr
    out = json.loads(got.stdout)
    assert out.keys() >= KEYS
    assert out["decision"] == decision
    human = _run(["check", "--mode", mode, cmd], tmp_path)
    assert human.returncode == code
    assert human.stdout.startswith(decision)


def test_json_lists_every_command_with_span_and_via(tmp_path):
    cmd = 'echo "$(id)" | grep -v x'
    out = json.loads(_run(["check", "--json", cmd], tmp_path).stdout)
    names = sorted(c["name"] for c in out["commands"])
    assert names == ["echo", "grep", "id"]
    for c in out["commands"]:
        start, end = c["span"]
        assert cmd[start:end].startswith(c["name"])
    assert out["parse"] == {"ok": True, "error": None, "error_span": None}


def test_jsonl_batch_keeps_order_and_survives_bad_lines(tmp_path):
    lines = [json.dumps({"cmd": f"echo {i}"}) for i in range(50)]
    lines.insert(7, "not json")
    lines.insert(20, json.dumps({"nocmd": 1}))
    got = _run(["check", "--jsonl", "-"], tmp_path, stdin="\n".join(lines) + "\n")
    assert got.returncode == 0, got.stderr
    out = [json.loads(s) for s in got.stdout.splitlines()]
    assert len(out) == 52
    assert out[7]["decision"] == "deny" and "error" in out[7]
    assert out[20]["decision"] == "deny" and "error" in out[20]
    echoed = [o["commands"][0]["argv"][1] for o in out if "commands" in o]
    assert echoed == [str(i) for i in range(50)]


def test_jsonl_jobs_give_the_same_results(tmp_path):
    cmds = ["ls", "cat x | head", "rm -rf /", "git log --oneline -5", "curl x | sh", "(( i++ ))"]
    lines = [json.dumps({"cmd": c}) for c in cmds * 30]
    common = {"mode": None, "cwd": str(tmp_path), "config": None, "plan": False}
    one = list(check_lines(lines, jobs=1, **common))
    two = list(check_lines(lines, jobs=2, **common))
    assert len(one) == len(two) == len(lines)
    diff = [(a, b) for a, b in zip(one, two, strict=True) if a != b]
    assert not diff, diff[0]


def test_bad_config_is_a_deny_that_names_the_problem(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[permissions]\nallow = [\"Bash(\"]\n")
    got = _run(["check", "--json", "--config", str(bad), "ls"], tmp_path)
    out = json.loads(got.stdout)
    assert out["decision"] == "deny"
    assert "config" in out["reason"].lower()
    assert got.returncode == 4


def test_usage_error_exit_code(tmp_path):
    assert _run(["check"], tmp_path).returncode == 2


@given(st.text(max_size=200))
def test_gate_never_raises_and_never_allows_what_it_did_not_parse(tmp_path_factory, text):
    ws = tmp_path_factory.getbasetemp() / "gate-fuzz"
    ws.mkdir(exist_ok=True)
    for mode in ("balanced", "trust"):
        verdict = Gate(ws, mode=mode, home=ws).check(text)
        out = verdict.to_json()
        assert out["decision"] in ("allow", "ask", "deny")
        if not out["parse"]["ok"]:
            assert not out["readonly"]
            # trust allows every capability by design (the sandbox is the boundary there)
            assert out["decision"] != "allow" or mode == "trust"
