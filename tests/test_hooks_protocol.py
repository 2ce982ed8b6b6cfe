"""The hook protocol layer: payload parsing, mode mapping, each agent's output, failing closed.

The decision itself is injected here (``decider=``) so that every output shape and every
error path can be reached on purpose; tests/test_hooks_e2e.py runs the real engine through the
installed console script.
"""

from __future__ import annotations

import io
import json

import pytest

from shellgate.integrations import claude_code, codex, gemini, hookio
from shellgate.integrations.hookio import Call, ModeMap, Outcome, ToolKind

AGENTS = {"claude-code": claude_code, "codex": codex, "gemini": gemini}


def payload(agent: str, tool: str | None = None, **tool_input) -> str:
    event = "BeforeTool" if agent == "gemini" else "PreToolUse"
    tool = tool or ("run_shell_command" if agent == "gemini" else "Bash")
    body = {"session_id": "s1", "transcript_path": "/tmp/t.jsonl", "cwd": "/tmp",
            "hook_event_name": event, "tool_name": tool,
            "tool_input": tool_input or {"command": "ls"}, "tool_use_id": "toolu_1"}
    if agent != "gemini":
        body["permission_mode"] = "default"
    return json.dumps(body)


def fixed(decision: str, **kw):
    seen: list[tuple[Call, ModeMap]] = []

    def decider(call, mode, config, workspace):
        seen.append((call, mode))
        return Outcome(decision, f"because {decision}", **kw)

    decider.seen = seen  # type: ignore[attr-defined]
    return decider


# --- output shapes -----------------------------------------------------------------------

@pytest.mark.parametrize("decision", ["allow", "ask", "deny"])
def test_claude_code_output_shape(decision):
    out, code = hookio.run(claude_code.SPEC, payload("claude-code"), decider=fixed(
        decision, warnings=("deletes files recursively",)))
    assert code == 0
    obj = json.loads(out)
    assert list(obj) == ["hookSpecificOutput"]
    hso = obj["hookSpecificOutput"]
    confined = {"updatedInput"} if decision == "allow" and hookio_confines() else set()
    assert set(hso) == {"hookEventName", "permissionDecision", "permissionDecisionReason"} | confined
    assert hso["hookEventName"] == "PreToolUse"
    assert hso["permissionDecision"] == decision
    assert hso["permissionDecisionReason"].startswith("shellgate: because")
    assert "deletes files recursively" in hso["permissionDecisionReason"]


def hookio_confines() -> bool:
    """Whether an allowed Bash call comes back confined here (a sandbox tier works)."""
    from shellgate.sandbox.enforce import hook_tier
    from shellgate.sandbox.probe import Tier

    return hook_tier().tier is not Tier.NONE


@pytest.fixture
def no_enforce(tmp_path):
    cfg = tmp_path / "config.toml"
    cfg.write_text("[hooks]\nenforce = false\n")
    return str(cfg)


def test_codex_allow_prints_nothing_without_enforcement(no_enforce):
    assert hookio.run(codex.SPEC, payload("codex"), decider=fixed("allow"),
                      config=no_enforce) == ("", 0)


def test_codex_allow_is_the_confined_command():
    if not hookio_confines():
        pytest.skip("no sandbox tier on this machine: allows are not rewritten")
    out, code = hookio.run(codex.SPEC, payload("codex"), decider=fixed("allow"))
    hso = json.loads(out)["hookSpecificOutput"]
    # the shape Codex's PreToolUse parser accepts for a rewrite (pre_tool_use.rs tests)
    assert code == 0 and set(hso) == {"hookEventName", "permissionDecision", "updatedInput"}
    assert hso["permissionDecision"] == "allow" and set(hso["updatedInput"]) == {"command"}


@pytest.mark.parametrize("decision", ["ask", "deny"])
def test_codex_ask_and_deny_are_deny(decision):
    out, code = hookio.run(codex.SPEC, payload("codex"), decider=fixed(decision))
    assert code == 0
    obj = json.loads(out)
    # Codex's output schema: additionalProperties false at both levels
    assert set(obj) == {"hookSpecificOutput"}
    assert obj["hookSpecificOutput"] == {
        "hookEventName": "PreToolUse", "permissionDecision": "deny",
        "permissionDecisionReason": obj["hookSpecificOutput"]["permissionDecisionReason"]}
    reason = obj["hookSpecificOutput"]["permissionDecisionReason"]
    assert ("shellgate run -- ls" in reason) == (decision == "ask")


def test_gemini_shapes(no_enforce):
    out, code = hookio.run(gemini.SPEC, payload("gemini"), decider=fixed("allow"), config=no_enforce)
    assert (json.loads(out), code) == ({"decision": "allow"}, 0)
    if hookio_confines():
        out, _ = hookio.run(gemini.SPEC, payload("gemini"), decider=fixed("allow"))
        obj = json.loads(out)
        assert obj["decision"] == "allow" and obj["hookSpecificOutput"]["hookEventName"] == "BeforeTool"
        assert set(obj["hookSpecificOutput"]["tool_input"]) == {"command"}
    for decision in ("ask", "deny"):
        out, code = hookio.run(gemini.SPEC, payload("gemini"), decider=fixed(decision))
        obj = json.loads(out)
        assert code == 0 and set(obj) == {"decision", "reason"} and obj["decision"] == "deny"
        assert ("--mode" in obj["reason"]) == (decision == "ask")


def test_reason_is_capped():
    out, _ = hookio.run(claude_code.SPEC, payload("claude-code"),
                        decider=fixed("deny", details=("x" * 50_000,)))
    reason = json.loads(out)["hookSpecificOutput"]["permissionDecisionReason"]
    assert len(reason) <= hookio.MAX_REASON


# --- fail closed -------------------------------------------------------------------------

BAD_INPUTS = [
    "", "not json", "[]", "null", '{"hook_event_name": "PreToolUse"}',
    '{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}',
    '{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": "ls"}',
    '{"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": 7}}',
    '{"hook_event_name": "PreToolUse", "tool_name": "Read", "tool_input": {}}',
    "[" * 100_000,
]


@pytest.mark.parametrize("agent", AGENTS)
@pytest.mark.parametrize("text", BAD_INPUTS, ids=range(len(BAD_INPUTS)))
def test_bad_input_denies(agent, text):
    spec = AGENTS[agent].SPEC
    text = text.replace("PreToolUse", spec.event) if agent == "gemini" else text
    if agent == "gemini":
        text = text.replace('"Bash"', '"run_shell_command"').replace('"Read"', '"read_file"')
    if agent == "codex" and '"Read"' in text:
        pytest.skip("Codex has no file-reading tool")
    out, code = hookio.run(spec, text, decider=fixed("allow"))
    assert code == 0
    assert_denied(agent, out)


@pytest.mark.parametrize("agent", AGENTS)
def test_internal_error_denies(agent):
    def boom(*a):
        raise RuntimeError("kaboom")

    out, code = hookio.run(AGENTS[agent].SPEC, payload(agent), decider=boom)
    assert code == 0
    assert "kaboom" in assert_denied(agent, out)


@pytest.mark.parametrize("agent", AGENTS)
def test_engine_returning_nonsense_denies(agent):
    out, code = hookio.run(AGENTS[agent].SPEC, payload(agent), decider=fixed("maybe"))
    assert code == 0
    assert_denied(agent, out)


def assert_denied(agent: str, out: str) -> str:
    obj = json.loads(out)
    if agent == "gemini":
        assert obj["decision"] == "deny"
        return obj["reason"]
    assert obj["hookSpecificOutput"]["permissionDecision"] == "deny"
    return obj["hookSpecificOutput"]["permissionDecisionReason"]


def test_other_tools_get_no_opinion():
    out = hookio.run(claude_code.SPEC, payload("claude-code", "WebFetch", url="https://x"),
                     decider=fixed("deny"))
    assert out == ("", 0)


# --- payload -> call ---------------------------------------------------------------------

def test_claude_file_tools():
    d = fixed("allow")
    for tool, key, kind in [("Read", "file_path", ToolKind.READ),
                            ("Write", "file_path", ToolKind.WRITE),
                            ("Edit", "file_path", ToolKind.EDIT),
                            ("MultiEdit", "file_path", ToolKind.EDIT),
                            ("NotebookEdit", "notebook_path", ToolKind.EDIT)]:
        hookio.run(claude_code.SPEC, payload("claude-code", tool, **{key: "/x/y"}), decider=d)
        call = d.seen[-1][0]
        assert (call.kind, call.paths, call.tool_name) == (kind, ("/x/y",), tool)
        assert (call.session_id, call.tool_use_id) == ("s1", "toolu_1")


def test_codex_apply_patch_paths():
    patch = ("*** Begin Patch\n*** Update File: src/a.py\n@@\n-x\n+y\n"
             "*** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n*** Delete File: old.txt\n"
             "*** Update File: b.py\n*** Move to: c.py\n@@\n-1\n+2\n*** End Patch\n")
    d = fixed("allow")
    hookio.run(codex.SPEC, payload("codex", "apply_patch", command=patch), decider=d)
    call = d.seen[-1][0]
    assert call.kind is ToolKind.PATCH
    assert call.paths == ("src/a.py", ".git/hooks/pre-commit", "old.txt", "b.py", "c.py")


def test_gemini_dir_path_joins_cwd():
    d = fixed("allow")
    hookio.run(gemini.SPEC, payload("gemini", command="ls", dir_path="sub"), decider=d)
    assert d.seen[-1][0].cwd == "/tmp/sub"


# --- modes -------------------------------------------------------------------------------

@pytest.mark.parametrize("agent_mode,expected", [
    ("default", ModeMap("balanced")),
    ("auto", ModeMap("balanced")),
    ("plan", ModeMap("balanced", plan=True)),
    ("acceptEdits", ModeMap("accept-edits")),
    ("dontAsk", ModeMap("strict", no_ask=True)),
    ("bypassPermissions", ModeMap("trust")),
    ("somethingNew", ModeMap(None)),
    (None, ModeMap(None)),
])
def test_claude_mode_mapping(agent_mode, expected):
    assert hookio.resolve_mode(claude_code.SPEC, agent_mode, None) == expected


def test_override_keeps_plan_and_no_ask():
    assert hookio.resolve_mode(claude_code.SPEC, "plan", "trust") == ModeMap("trust", plan=True)
    assert hookio.resolve_mode(claude_code.SPEC, "dontAsk", "trust") == ModeMap("trust", no_ask=True)
    assert hookio.resolve_mode(gemini.SPEC, None, "strict") == ModeMap("strict")


def test_dont_ask_turns_ask_into_deny():
    text = payload("claude-code").replace('"default"', '"dontAsk"')
    obj = json.loads(hookio.run(claude_code.SPEC, text, decider=fixed("ask"))[0])
    assert obj["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_mode_override_reaches_the_engine():
    d = fixed("allow")
    hookio.run(claude_code.SPEC, payload("claude-code"), mode_override="strict", decider=d)
    assert d.seen[-1][1] == ModeMap("strict")


# --- command line ------------------------------------------------------------------------

def test_cli_main_bad_flag_denies():
    out = io.StringIO()
    code = hookio.cli_main("claude-code", ["--bogus"], stdin=io.StringIO(payload("claude-code")),
                           stdout=out, stderr=io.StringIO())
    assert code == 0
    assert json.loads(out.getvalue())["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_cli_main_bad_mode_denies():
    out = io.StringIO()
    code = hookio.cli_main("gemini", ["--mode", "yolo"], stdin=io.StringIO(payload("gemini")),
                           stdout=out, stderr=io.StringIO())
    assert code == 0 and json.loads(out.getvalue())["decision"] == "deny"


def test_cli_main_unknown_agent_exits_2_with_reason():
    err = io.StringIO()
    code = hookio.cli_main("cursor", [], stdin=io.StringIO("{}"), stdout=io.StringIO(), stderr=err)
    assert code == 2 and "shellgate" in err.getvalue()


def test_parse_args():
    assert hookio.parse_args([]) == (None, None)
    assert hookio.parse_args(["--mode=accept-edits", "--config", "/c.toml"]) == ("auto", "/c.toml")
    for bad in (["--mode"], ["-x"], ["--config="]):
        with pytest.raises(ValueError):
            hookio.parse_args(bad)


def test_find_workspace(tmp_path):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "repo" / "a" / "b").mkdir(parents=True)
    sub = str(tmp_path / "repo" / "a" / "b")
    assert hookio.find_workspace(sub, environ={}) == str(tmp_path / "repo")
    assert hookio.find_workspace(sub, "CLAUDE_PROJECT_DIR",
                                 environ={"CLAUDE_PROJECT_DIR": "/p"}) == "/p"
    assert hookio.find_workspace(str(tmp_path), environ={}) == str(tmp_path)


# --- config ------------------------------------------------------------------------------

@pytest.fixture(autouse=True)
def xdg(tmp_path, monkeypatch):
    """No test here reads the developer's own shellgate config."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path


def test_config_hooks_mode(xdg):
    cfg = xdg / "sg.toml"
    cfg.write_text('mode = "strict"\n[hooks]\nmode = "accept-edits"\n[hooks.gemini]\nmode = "trust"\n')
    assert hookio.config_mode(str(cfg), str(xdg), "gemini") == "trust"
    assert hookio.config_mode(str(cfg), str(xdg), "claude-code") == "auto"
    cfg.write_text('mode = "strict"\n')   # the top-level mode does not override the agent's
    assert hookio.config_mode(str(cfg), str(xdg), "claude-code") is None


def test_config_hooks_mode_reaches_the_engine_and_bad_mode_denies(xdg):
    cfg = xdg / "sg.toml"
    cfg.write_text('[hooks]\nmode = "strict"\n')
    d = fixed("allow")
    hookio.run(claude_code.SPEC, payload("claude-code"), config=str(cfg), decider=d)
    assert d.seen[-1][1] == ModeMap("strict")
    cfg.write_text('[hooks]\nmode = "yolo"\n')
    out, code = hookio.run(claude_code.SPEC, payload("claude-code"), config=str(cfg), decider=d)
    assert code == 0 and "yolo" in assert_denied("claude-code", out)


def test_cli_main_unwritable_stdout_exits_2():
    class Closed(io.StringIO):
        def write(self, s):
            raise BrokenPipeError("closed")

    err = io.StringIO()
    code = hookio.cli_main("gemini", ["--mode", "nonsense"], stdin=io.StringIO(payload("gemini")),
                           stdout=Closed(), stderr=err)
    assert code == 2 and "blocked" in err.getvalue()
