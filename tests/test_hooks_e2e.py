"""Real hook payloads piped through the installed ``shellgate`` console script.

Each line of corpus/hooks_payloads.jsonl is what Claude Code, Codex or Gemini CLI sends on
stdin; the test checks the exact answer each agent expects (shape, decision, exit code 0),
that every decision reaches the audit log with the agent's session and tool-use ids, and that
broken input is denied — never exit 1, never an empty allow.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from _helpers import EXE, agent_project, hook_env, needs_console_script

from tests.conftest import load

CASES = load("hooks_payloads.jsonl")
pytestmark = needs_console_script


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A git workspace, a fake HOME with secrets and rc files, private config and state dirs."""
    root = tmp_path_factory.mktemp("hooks")
    work, home = agent_project(root, "src", "hello\n", "-----BEGIN FAKE KEY-----\n")
    (home / ".bashrc").write_text("# rc\n")
    (home / ".profile").write_text("# profile\n")
    env = hook_env(root, home)
    return {"work": str(work), "home": str(home), "env": env,
            "audit": root / "state" / "shellgate" / "audit.jsonl"}


def hook(world, agent: str, stdin: str, args: list[str] = ()) -> subprocess.CompletedProcess:
    return subprocess.run([EXE, "hook", agent, *args], input=stdin, capture_output=True,
                          text=True, env=world["env"], cwd=world["work"], timeout=60)


def fill(world, payload: dict) -> str:
    text = json.dumps(payload)
    return text.replace("$WORK", world["work"]).replace("$HOME", world["home"])


def decision_of(agent: str, stdout: str) -> tuple[str, str]:
    """(decision, reason) from an answer, asserting the agent's exact output shape. An allow
    of a Bash call carries the confined command (SPEC §9): Claude Code and Codex in
    ``updatedInput``, Gemini in ``hookSpecificOutput.tool_input``."""
    if not stdout.strip():
        assert agent in ("claude-code", "codex"), "gemini always answers"
        return "none", ""
    obj = json.loads(stdout)
    if agent == "gemini":
        if obj.get("decision") == "allow" and "hookSpecificOutput" in obj:
            assert set(obj) == {"decision", "hookSpecificOutput"}
            hso = obj["hookSpecificOutput"]
            assert hso["hookEventName"] == "BeforeTool" and set(hso["tool_input"]) == {"command"}
            assert "bwrap" in hso["tool_input"]["command"] or "confine" in hso["tool_input"]["command"]
            return "allow", ""
        assert obj in ({"decision": "allow"},) or (
            set(obj) == {"decision", "reason"} and obj["decision"] == "deny")
        return obj["decision"], obj.get("reason", "")
    assert set(obj) == {"hookSpecificOutput"}
    hso = obj["hookSpecificOutput"]
    assert hso["hookEventName"] == "PreToolUse"
    if "updatedInput" in hso:
        assert hso["permissionDecision"] == "allow" and "command" in hso["updatedInput"]
    if agent == "codex":
        if hso["permissionDecision"] == "allow":  # only ever with the rewrite, never bare
            assert set(hso) == {"hookEventName", "permissionDecision", "updatedInput"}
            return "allow", ""
        assert hso["permissionDecision"] == "deny", "Codex must never get a bare allow or ask"
    assert set(hso) - {"updatedInput"} == {"hookEventName", "permissionDecision",
                                           "permissionDecisionReason"}
    reason = hso["permissionDecisionReason"]
    assert reason.startswith("shellgate: ") and len(reason) <= 2000
    return hso["permissionDecision"], reason


@pytest.fixture(scope="module")
def answers(world):
    """Every corpus payload through the console script, a few processes at a time (each is an
    independent hook call, as the agents make them)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=4) as pool:
        procs = pool.map(lambda c: hook(world, c["agent"], fill(world, c["payload"]), c["args"]),
                         CASES)
        return dict(zip(map(id, CASES), procs, strict=True))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['agent']}:{c['cmd'][:40]}")
def test_payload(answers, case):
    proc = answers[id(case)]
    assert proc.returncode == 0, proc.stderr
    decision, reason = decision_of(case["agent"], proc.stdout)
    assert decision == case["expect"], (case["note"], reason)
    if "reason_contains" in case:
        assert case["reason_contains"] in reason, reason


def test_decisions_are_audited_with_agent_ids(world):
    case = next(c for c in CASES if c["agent"] == "claude-code" and c["cmd"] == "rm -rf ~")
    payload = dict(case["payload"], session_id="sess-audit", tool_use_id="toolu_audit")
    assert hook(world, "claude-code", fill(world, payload)).returncode == 0
    lines = [json.loads(s) for s in world["audit"].read_text().splitlines()]
    mine = [x for x in lines if x.get("tool_use_id") == "toolu_audit"]
    assert mine, lines[-3:]
    assert mine[-1]["session_id"] == "sess-audit"
    assert mine[-1]["command"] == "rm -rf ~" and mine[-1]["verdict"] == case["expect"]


# (more shapes of broken input run in-process in test_hooks_protocol.py)
BROKEN = ["", "not json at all", '{"hook_event_name": "PreToolUse", "tool_name": "Bash"}',
          "\udcff"]


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_broken_input_is_denied(world, agent):
    for stdin in BROKEN:
        proc = subprocess.run([EXE, "hook", agent], input=stdin.encode("utf-8", "surrogateescape"),
                              capture_output=True, env=world["env"], cwd=world["work"], timeout=60)
        assert proc.returncode == 0, (stdin, proc.stderr)
        decision, _ = decision_of(agent, proc.stdout.decode())
        assert decision == "deny", stdin


@pytest.mark.parametrize("agent", ["claude-code", "codex", "gemini"])
def test_bad_config_is_denied(world, agent, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('mode = "yolo"\n')
    case = next(c for c in CASES if c["agent"] == agent)
    proc = hook(world, agent, fill(world, case["payload"]), ["--config", str(bad)])
    assert proc.returncode == 0, proc.stderr
    decision, reason = decision_of(agent, proc.stdout)
    assert decision == "deny" and "config" in reason


def test_bad_flag_is_denied(world):
    case = CASES[0]
    proc = hook(world, case["agent"], fill(world, case["payload"]), ["--frobnicate"])
    assert proc.returncode == 0
    assert decision_of(case["agent"], proc.stdout)[0] == "deny"
