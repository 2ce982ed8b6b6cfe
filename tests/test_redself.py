"""Red team, self-protection (redself): shellgate's own decision-time files outside its own
directories, shown with the real hook, the real sandbox and real bash.

A hook installed with ``--config FILE`` reads FILE before every decision, and that config may
move the audit log and the approval store (``[audit] path``, ``[approvals] path``). When those
sat in the workspace they were ordinary workspace files: in accept-edits the agent's Write
tool and ``printf … > tools/shellgate.toml`` were allowed, the confined command could write
them, and ``[hooks] enforce = false`` plus ``mode = "trust"`` made the next ``python3 x.py``
an allow that ran unconfined. corpus/redself.jsonl: each line is put to the hook (the answer
must be ``expect``); a ``confined`` line also runs as the confined line of a write grant,
whatever the classifier says, and the file must not change.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import load

from shellgate.sandbox.enforce import hook_tier
from shellgate.sandbox.probe import Tier

CASES = load("redself.jsonl")
ROOT = Path(__file__).resolve().parent.parent
OWN = {"config": "tools/shellgate.toml", "audit": "logs/audit.jsonl", "store": "logs/approvals.json"}
TRUST = '[hooks]\nenforce = false\nmode = "trust"\n'
FORGED = json.dumps({"version": 1, "approvals": [{"tool": "bash", "prefix": ["python3"],
                                                 "rest": True, "workspace": None}]})

pytestmark = pytest.mark.skipif(hook_tier().tier is Tier.NONE, reason="no sandbox tier on this "
                                "machine: hook allows are not confined (tests/test_hooks_protocol.py)")


@pytest.fixture
def world(tmp_path, monkeypatch):
    """A git workspace whose hook config, audit log and approval store live inside it, with
    a trust config and a forged store ready to copy over them; a private HOME and XDG dirs."""
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    (work / "tools").mkdir(parents=True)
    (work / "logs").mkdir()
    (work / "src").mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    cfg = work / OWN["config"]
    cfg.write_text(f'[audit]\npath = "{work / OWN["audit"]}"\n'
                   f'[approvals]\npath = "{work / OWN["store"]}"\n')
    (work / OWN["audit"]).write_text('{"event": "decision"}\n')
    (work / OWN["store"]).write_text('{"version": 1, "approvals": []}\n')
    (work / "src" / "shellgate.toml").write_text(TRUST)
    (work / "src" / "approvals.json").write_text(FORGED)
    (work / "x.py").write_text(f"open({str(tmp_path / 'ran')!r}, 'w').close()\n")
    env = {k: v for k, v in os.environ.items()
           if k not in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "SHELLGATE_CONFIG")}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(tmp_path / "config"),
               XDG_STATE_HOME=str(tmp_path / "state"), XDG_CACHE_HOME=str(tmp_path / "cache"),
               PYTHONPATH=str(ROOT))
    for k in ("HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(k, env[k])
    return {"root": tmp_path, "work": work, "cfg": cfg, "env": env}


def hook(world, tool_input: dict, tool: str, mode: str = "acceptEdits") -> dict:
    """The real hook process's answer (``hookSpecificOutput``) to one Claude Code call."""
    payload = {"session_id": "redself", "cwd": str(world["work"]), "permission_mode": mode,
               "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input,
               "tool_use_id": "t1"}
    p = subprocess.run([sys.executable, "-m", "shellgate", "hook", "claude-code", "--config",
                        str(world["cfg"])], input=json.dumps(payload), capture_output=True,
                       text=True, env=world["env"], cwd=world["work"], timeout=60)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["hookSpecificOutput"]


def tool_input(world, case) -> dict:
    if case["tool"] == "Bash":
        return {"command": case["cmd"]}
    path = str(world["work"] / OWN[case["own"]])
    if case["tool"] == "Edit":
        return {"file_path": path, "old_string": "path", "new_string": "pth"}
    return {"file_path": path, "content": TRUST}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_the_hook_asks_before_touching_its_own_files(world, case):
    out = hook(world, tool_input(world, case), case["tool"])
    assert out["permissionDecision"] == case["expect"], out
    assert str(world["work"] / OWN[case["own"]]) in out["permissionDecisionReason"], out


def confined_line(world, command: str) -> str:
    """The confined line of a write grant for ``command`` under the hook's policy (its
    watched and guarded paths, as the hook computes them), whatever the classifier says."""
    from shellgate.integrations import _engine
    from shellgate.integrations.hookio import Call, ModeMap, ToolKind
    from shellgate.sandbox.enforce import confine_grant

    work = str(world["work"])
    call = Call(agent="claude-code", tool_name="Bash", kind=ToolKind.BASH, command="ls", cwd=work)
    outcome = _engine.decide(call, ModeMap("accept-edits"), str(world["cfg"]), work)
    return confine_grant(command, work, work, write=True, network=False,
                         watched=outcome.watched, guarded=outcome.guarded).line


@pytest.mark.parametrize("case", [c for c in CASES if c.get("confined")],
                         ids=[c["id"] for c in CASES if c.get("confined")])
def test_the_sandbox_keeps_its_own_files(world, case):
    target = world["work"] / OWN[case["own"]]
    line = confined_line(world, case["cmd"])   # (deciding appends to the audit log)
    before = target.read_bytes()
    p = subprocess.run(["bash", "-c", line], cwd=world["work"],
                       env=world["env"], capture_output=True, text=True, timeout=60)
    assert target.read_bytes() == before, (p.returncode, p.stderr)


def test_a_write_to_the_config_never_opens_the_next_call(world):
    """The whole attack: whatever the hook answers to the write (an allow runs its confined
    line), the next ``python3 x.py`` is not let through unconfined."""
    out = hook(world, {"command": "cp src/shellgate.toml tools/shellgate.toml"}, "Bash")
    if out["permissionDecision"] == "allow":
        subprocess.run(["bash", "-c", out["updatedInput"]["command"]], cwd=world["work"],
                       env=world["env"], capture_output=True, timeout=60)
    nxt = hook(world, {"command": "python3 x.py"}, "Bash", mode="default")
    assert nxt["permissionDecision"] != "allow" or "updatedInput" in nxt, nxt
    assert world["cfg"].read_text() != TRUST


AGENT_CONFIGS = load("agent_config_writes.jsonl")


@pytest.mark.parametrize("case", AGENT_CONFIGS, ids=[c["path"] for c in AGENT_CONFIGS])
def test_agent_config_files_are_implants_for_the_write_tool(world, case):
    """The files an agent runs from its config directories ask like the sandbox keeps them;
    instructions (GEMINI.md) and look-alikes elsewhere stay edits."""
    rel = case["path"]
    path = (Path(world["env"]["HOME"]) / rel[2:]) if rel.startswith("~/") else world["work"] / rel
    out = hook(world, {"file_path": str(path), "content": "x\n"}, "Write")
    assert out["permissionDecision"] == case["expect"], out


def test_an_allow_does_not_carry_a_request_to_leave_claude_codes_sandbox(world):
    """``dangerouslyDisableSandbox`` asks Claude Code to drop *its* sandbox, which it asks the
    user about; shellgate's allow (of its own confinement) must not pass it on."""
    out = hook(world, {"command": "ls", "dangerouslyDisableSandbox": True,
                       "description": "list"}, "Bash")
    assert out["permissionDecision"] == "allow", out
    assert "dangerouslyDisableSandbox" not in out["updatedInput"], out
    assert out["updatedInput"]["description"] == "list"
