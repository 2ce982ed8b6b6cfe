"""Rules that can never match are named when a command loads the config, not only by doctor.

``check``, ``explain``, ``run`` and ``hook`` print ``classifier.rule_notices`` once, on stderr;
a hook's stdout stays exactly the agent's JSON answer (corpus/rule_notices.jsonl, one config
per line, through the installed console script).
"""

from __future__ import annotations

import json
import subprocess

import pytest
from _helpers import EXE, hook_env, needs_console_script

from tests.conftest import load

CASES = load("rule_notices.jsonl")
pytestmark = needs_console_script


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("notices")
    work = root / "work"
    work.mkdir()
    (work / "README.md").write_text("hi\n")
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    env = hook_env(root, root / "home")
    return {"root": root, "work": work, "env": env}


def config_with(world, rule: str, name: str) -> str:
    path = world["root"] / f"{name}.toml"
    path.write_text(f"[permissions]\nallow = [{json.dumps(rule)}]\n")
    return str(path)


def shellgate(world, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run([EXE, *args], input=stdin, capture_output=True, text=True,
                          env=world["env"], cwd=world["work"], timeout=120)


def notices(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("shellgate: notice: ")]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["rule"])
def test_check_and_hook_name_the_rule(world, case):
    cfg = config_with(world, case["rule"], f"c{CASES.index(case)}")
    want = case["notice"]
    check = shellgate(world, "check", "--json", "--config", cfg, "ls")
    assert check.returncode == 0, check.stderr
    json.loads(check.stdout)                                 # stdout: the answer only
    payload = {"session_id": "", "cwd": str(world["work"]), "permission_mode": "default",
               "hook_event_name": "PreToolUse", "tool_name": "Read",
               "tool_input": {"file_path": "README.md"}, "tool_use_id": "toolu_n"}
    hook = shellgate(world, "hook", "claude-code", "--config", cfg, stdin=json.dumps(payload))
    assert hook.returncode == 0, hook.stderr
    answer = json.loads(hook.stdout)                         # one JSON object, nothing else
    assert answer["hookSpecificOutput"]["permissionDecision"] in ("allow", "ask")
    for proc in (check, hook):
        got = notices(proc.stderr)
        if want is None:
            assert got == [], got
        else:
            assert len(got) == 1 and want in got[0] and case["rule"] in got[0], got
            assert f"{cfg}:2" in got[0]                      # the file and line of the rule


def test_a_batch_names_each_rule_once(world):
    cfg = config_with(world, "Bash(rm -rf)", "batch")
    lines = "".join(json.dumps({"cmd": c}) + "\n" for c in ("ls", "pwd", "rm -rf x", "echo"))
    proc = shellgate(world, "check", "--jsonl", "-", "--jobs", "2", "--config", cfg, stdin=lines)
    assert proc.returncode == 0, proc.stderr
    assert len(proc.stdout.splitlines()) == 4
    assert len(notices(proc.stderr)) == 1, proc.stderr


def test_explain_and_run_name_the_rule(world):
    cfg = config_with(world, "Foo(x)", "run")
    explain = shellgate(world, "explain", "--config", cfg, "ls")
    assert len(notices(explain.stderr)) == 1 and "Foo(x)" in explain.stderr
    run = shellgate(world, "run", "--config", cfg, "--", "echo ran")
    assert [n for n in notices(run.stderr) if "Foo(x)" in n] and len(notices(run.stderr)) == 1
    assert "Foo(x)" not in run.stdout                        # the command's output is its own


def test_a_clean_config_says_nothing(world):
    cfg = config_with(world, "Bash(npm test *)", "clean")
    proc = shellgate(world, "check", "--config", cfg, "ls")
    assert notices(proc.stderr) == []
