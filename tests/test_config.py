"""Config loading: TOML, XDG user file + project .shellgate/config.toml + --config, layering,
and clear errors for bad files; load_engine builds an engine from it."""

from __future__ import annotations

import pytest

from shellgate.approval import load_engine
from shellgate.config import ConfigError, load_config, parse_file, project_config_path, user_config_path
from shellgate.permission import DecisionKind, Mode


@pytest.fixture
def env(tmp_path, monkeypatch):
    xdg = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    ws = tmp_path / "ws"
    (ws / ".shellgate").mkdir(parents=True)
    (xdg / "shellgate").mkdir(parents=True)
    return xdg / "shellgate" / "config.toml", ws / ".shellgate" / "config.toml", ws


def test_paths(env, tmp_path):
    user, project, ws = env
    assert user_config_path() == user and project_config_path(ws) == project


def test_no_files_is_the_default(env):
    cfg = load_config(env[2])
    assert cfg.mode is None and not cfg.rules and cfg.sources == ()


def test_layers_add_rules_and_later_mode_wins(env, tmp_path):
    user, project, ws = env
    user.write_text('mode = "strict"\ntrust_project_config = true\n'
                    '[permissions]\ndeny = ["Bash(rm *)"]\n')
    project.write_text('mode = "accept-edits"\n[permissions]\nallow = ["Bash(npm test *)"]\n'
                       'additional_directories = ["../docs"]\n')
    explicit = tmp_path / "extra.toml"
    explicit.write_text('[permissions]\nask = ["Bash(git push *)"]\n')
    cfg = load_config(ws, explicit)
    assert cfg.mode is Mode.AUTO
    assert [r.text for r in cfg.rules.deny] == ["Bash(rm *)"]
    assert [r.text for r in cfg.rules.allow] == ["Bash(npm test *)"]
    assert [r.text for r in cfg.rules.ask] == ["Bash(git push *)"]
    assert cfg.filesystem_roots == (str(tmp_path / "docs"),)
    assert cfg.sources == (str(user), str(project), str(explicit))


def test_project_rule_anchors_are_relative_to_the_project(env):
    _, project, ws = env
    project.write_text('[permissions]\ndeny = ["Read(/secrets/**)"]\n')
    assert load_config(ws).rules.deny[0].base == str(ws)


@pytest.mark.parametrize("text, message", [
    ('mode = "yolo"\n', "unknown mode 'yolo'"),
    ("mode = 3\n", "mode must be a non-empty string"),
    ('mdoe = "trust"\n', "unknown setting 'mdoe'"),
    ("[permisions]\nallow = []\n", "unknown setting 'permisions'"),
    ("[permissions]\nalow = []\n", "unknown key 'alow' in [permissions]"),
    ('[permissions]\nallow = [\n  "Bash(ok *)",\n  "Bash(broken",\n]\n', ":4: rule 'Bash(broken'"),
    ('[permissions]\nadditional_directories = "x"\n', "must be a list of directory names"),
    ("[permissions]\nplan_mode_exec_allowed = 1\n", "must be true or false"),
    ("[audit]\nenabled = 'yes'\n", "must be true or false"),
    ("[audit]\nfile = 'x'\n", "unknown key 'file' in [audit]"),
    ("permissions = 1\n", "[permissions] must be a table"),
    ("[permissions\n", "not valid TOML"),
])
def test_bad_config_is_a_clear_error(env, text, message):
    _, project, ws = env
    project.write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(ws)
    assert message in str(err.value) and str(project) in str(err.value)


def test_error_names_the_line_of_an_unknown_key(env):
    _, project, ws = env
    project.write_text('mode = "trust"\n\n[permissions]\nallow = []\ndenny = []\n')
    with pytest.raises(ConfigError, match=rf"{project}:5: unknown key 'denny'"):
        load_config(ws)


def test_missing_explicit_config_is_an_error(env, tmp_path):
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(env[2], tmp_path / "nope.toml")


def test_sections_of_other_components_are_kept(env, tmp_path):
    _, project, ws = env
    explicit = tmp_path / "extra.toml"
    explicit.write_text('[sandbox]\ntier = "bwrap"\n')
    assert load_config(ws, explicit).sections == {"sandbox": {"tier": "bwrap"}}
    # from the untrusted project file: ignored, and said so
    project.write_text('[sandbox]\ntier = "none"\n')
    cfg = load_config(ws)
    assert cfg.sections == {} and "[sandbox]" in cfg.notices[0]


def test_sections_merge_key_by_key(env, tmp_path):
    user, _, ws = env
    user.write_text('[sandbox]\ntier = "bwrap"\n[sandbox.env]\nA = "1"\n')
    explicit = tmp_path / "extra.toml"
    explicit.write_text('[sandbox]\ntimeout = 5\n[sandbox.env]\nB = "2"\n')
    assert load_config(ws, explicit).sections == {
        "sandbox": {"tier": "bwrap", "timeout": 5, "env": {"A": "1", "B": "2"}}}


def test_explicit_plan_mode_exec_allowed_wins(env, tmp_path):
    user, _, ws = env
    user.write_text("[permissions]\nplan_mode_exec_allowed = true\n")
    assert load_config(ws).plan_mode_exec_allowed is True
    explicit = tmp_path / "extra.toml"
    explicit.write_text("[permissions]\nplan_mode_exec_allowed = false\n")
    assert load_config(ws, explicit).plan_mode_exec_allowed is False


def test_claude_spelling_of_additional_directories(tmp_path):
    f = tmp_path / "c.toml"
    f.write_text('[permissions]\nadditionalDirectories = ["/opt/data"]\n')
    assert parse_file(f).filesystem_roots == ("/opt/data",)


def test_load_engine_uses_config_and_mode_override(env, tmp_path):
    user, project, ws = env
    user.write_text("trust_project_config = true\n")
    project.write_text('mode = "strict"\n[permissions]\nallow = ["Bash(npm test *)"]\n'
                       f'[audit]\npath = "{tmp_path}/audit.jsonl"\n'
                       f'[approvals]\npath = "{tmp_path}/approvals.json"\n')
    e = load_engine(ws, ask_as_deny=False, home=tmp_path / "home")
    assert e.mode is Mode.STRICT
    assert e.decide_bash("npm test").rule == "chain.allow_rule"
    assert e.decide_bash("make").verdict == "deny"
    assert e.audit.path == tmp_path / "audit.jsonl" and e.store.path == tmp_path / "approvals.json"
    assert (tmp_path / "audit.jsonl").read_text().count("\n") == 2
    e2 = load_engine(ws, "balanced", ask_as_deny=False, audit=False, store=False, plan=True)
    assert e2.mode is Mode.BALANCED and e2.audit is None and e2.store is None and e2.plan_mode()
    assert e2.decide_bash("make").rule == "chain.plan_mode"


def test_load_engine_defaults_to_xdg_audit(env, tmp_path):
    e = load_engine(env[2])
    assert e.audit.path == tmp_path / "state" / "shellgate" / "audit.jsonl"
    assert e.store.path == tmp_path / "xdg" / "shellgate" / "approvals.json"
    assert e.mode is Mode.BALANCED
    d = e.decide_bash("make")
    assert d.kind is DecisionKind.DENY and "needs approval" in d.reason


def test_load_engine_bad_mode(env):
    with pytest.raises(ValueError, match="unknown mode"):
        load_engine(env[2], "sideways")


def test_audit_can_be_disabled_in_config(env):
    user, project, ws = env
    project.write_text("[audit]\nenabled = false\n[approvals]\nenabled = false\n")
    e = load_engine(ws)
    assert e.audit is not None and e.store is not None and len(e.notices) == 2
    user.write_text("[audit]\nenabled = false\n[approvals]\nenabled = false\n")
    e = load_engine(ws)
    assert e.audit is None and e.store is None
