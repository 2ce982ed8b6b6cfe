"""``shellgate doctor``: finds installed hooks, catches a hook that would silently not run,
and self-tests the real hook command."""

from __future__ import annotations

import json
import shlex
import shutil
import sys

import pytest

from shellgate.integrations import doctor, install

EXE = shutil.which("shellgate")


@pytest.fixture()
def env(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    (tmp_path / "home").mkdir()
    (tmp_path / "proj").mkdir()
    return tmp_path


def test_not_installed_is_info(env):
    checks, commands = doctor.hook_checks("claude-code", home=env / "home", project=env / "proj")
    assert commands == []
    [c] = checks
    assert (c.ok, c.level) == (False, "info") and "shellgate init claude-code" in c.detail
    assert doctor.Report(tuple(checks)).ok


def test_broken_hook_path_fails(env):
    install.init("codex", "user", home=env / "home", command="/nonexistent/shellgate hook codex")
    checks, commands = doctor.hook_checks("codex", home=env / "home", project=env / "proj",
                                          environ={})
    assert commands == []
    [c] = checks
    assert not c.ok and c.level == "error" and "silently disabled" in c.detail
    assert not doctor.Report(tuple(checks)).ok


def test_narrow_matcher_warns(env):
    path = install.settings_path("claude-code", "project", project=env / "proj")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": f"{sys.executable} -m shellgate hook claude-code"}]}]}}))
    checks, commands = doctor.hook_checks("claude-code", home=env / "home", project=env / "proj")
    [c] = checks
    assert (c.ok, c.level) == (False, "warn") and "Read" in c.detail
    assert commands == [f"{sys.executable} -m shellgate hook claude-code"]


@pytest.mark.parametrize("matcher,missing", [
    ("Bash|Read|Write|Edit|MultiEdit|NotebookEdit|Grep|Glob", []), ("*", []), ("", []),
    (".*", []), ("Bash|Read", ["Write", "Edit", "MultiEdit", "NotebookEdit", "Grep", "Glob"]),
    ("Bash,Read,Write,Edit,MultiEdit,NotebookEdit,Grep,Glob", []),
    ("(Bash|Read|Write|.*Edit|Grep|Glob)", []),
    # an install from before the search tools: doctor names what it misses (run init again)
    ("Bash|Read|Write|Edit|MultiEdit|NotebookEdit", ["Grep", "Glob"]),
])
def test_matcher_coverage(matcher, missing):
    tools = install.agent_hook("claude-code").matcher.split("|")
    assert doctor._covers(matcher, tools) == missing


@pytest.mark.parametrize("agent,stdout,code,want", [
    ("claude-code", '{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
                    '"permissionDecision": "ask", "permissionDecisionReason": "x"}}', 0, "ask"),
    ("codex", "", 0, "allow"),
    ("codex", "", 2, "deny"),
    ("gemini", '{"decision": "deny", "reason": "x"}', 0, "deny"),
])
def test_answer_decision(agent, stdout, code, want):
    assert doctor.answer_decision(agent, stdout, code) == want


@pytest.mark.parametrize("agent,stdout,code", [
    ("claude-code", "", 1),                                            # exit 1 fails open
    ("claude-code", '{"decision": "approve"}', 0),                     # deprecated shape
    ("codex", '{"hookSpecificOutput": {"hookEventName": "PreToolUse", '
              '"permissionDecision": "allow"}}', 0),                   # bare allow fails open
    ("gemini", "allowed", 0),
])
def test_answer_decision_rejects_shapes_agents_ignore(agent, stdout, code):
    with pytest.raises((ValueError, KeyError)):
        doctor.answer_decision(agent, stdout, code)


@pytest.mark.skipif(EXE is None, reason="the shellgate console script is not installed")
def test_self_test_of_installed_hook(env):
    command = install.hook_command("gemini", executable=EXE)
    install.init("gemini", "user", home=env / "home", command=command)
    checks, commands = doctor.hook_checks("gemini", home=env / "home", project=env / "proj")
    assert commands == [command] and checks[0].ok
    results = doctor.self_test("gemini", command)
    by = {c.name.split(": ", 1)[1]: c for c in results}
    assert by["malformed input"].ok and by["malformed input"].detail == "deny"
    assert by["a destructive command (rm -rf /)"].ok
    assert not (env / "state" / "shellgate" / "audit.jsonl").exists()  # a throwaway log


def test_self_test_catches_a_hook_that_fails_open(env):
    # a "hook" that exits 1 on everything: every agent would run the command anyway
    results = doctor.self_test("claude-code", shlex.join([sys.executable, "-c",
                                                          "import sys; sys.exit(1)"]))
    assert [c.ok for c in results] == [False, False, False]
    assert all("exit code 1" in c.detail for c in results)
    assert not doctor.Report(tuple(results)).ok


def test_bad_config_fails(env):
    bad = env / "bad.toml"
    bad.write_text("mode = 'yolo'\n")
    [c] = doctor.config_checks(str(env / "proj"), str(bad))
    assert not c.ok and c.level == "error"
    report = doctor.run(env / "proj", config=str(bad), home=env / "home", agents=(),
                        self_tests=False)
    assert not report.ok and "FAIL" in report.render()
    assert json.loads(json.dumps(report.to_json()))["ok"] is False


@pytest.mark.parametrize("section, shown, ok", [
    ('tier = "landlock"', 'run, BashTool and the MCP server use landlock', True),
    ("enabled = false", "execute commands unconfined", False),
    ('tier = "none"', "execute commands unconfined", False),
    ('tier = "auto"', None, True),
])
def test_doctor_shows_the_configured_tier(env, section, shown, ok):
    """doctor reports the tier the user's [sandbox] section makes run/BashTool/MCP use, beside
    the probed one — not the probe alone."""
    from shellgate.sandbox.probe import landlock_usable, probe

    if str(probe().tier) != "bwrap":
        pytest.skip("needs bwrap as the probed tier, to differ from the configured one")
    if "landlock" in section and landlock_usable():
        pytest.skip(f"Landlock does not work here: {landlock_usable()}")
    cfg = env / "cfg.toml"
    cfg.write_text(f"[sandbox]\n{section}\n")
    checks = doctor.sandbox_checks(str(env / "proj"), str(cfg))
    assert checks[0].detail.startswith("tier bwrap")
    extra = [c for c in checks[1:] if not c.detail.startswith("trusted ")]
    if shown is None:
        assert extra == []
    else:
        [c] = extra
        assert shown in c.detail and c.ok is ok


from conftest import load  # noqa: E402

NOTICES = load("rule_notices.jsonl")


@pytest.mark.parametrize("row", NOTICES, ids=lambda r: r["rule"])
def test_rules_that_can_never_match_are_named(row):
    from shellgate.approval.classifier import rule_notices
    from shellgate.permission.rules import parse_rule

    got = rule_notices([parse_rule(row["rule"], "allow", source="cfg.toml", line=3)])
    if row["notice"] is None:
        assert got == []
    else:
        [n] = got
        assert row["notice"] in n and n.startswith("cfg.toml:3: allow rule ")


def test_doctor_lists_them(env):
    cfg = env / "cfg.toml"
    cfg.write_text('[permissions]\nallow = ["Bash(rm -rf)"]\ndeny = ["Foo(x)"]\n')
    checks = doctor.config_checks(str(env / "proj"), str(cfg))
    warned = [c.detail for c in checks if c.name == "rules"]
    assert len(warned) == 2 and all(c.level == "warn" for c in checks if c.name == "rules")
