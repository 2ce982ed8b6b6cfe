"""``shellgate init``: the hook lands in each agent's settings file, once, with a diff."""

from __future__ import annotations

import json

import pytest

from shellgate.integrations import install
from shellgate.integrations.install import InstallError

CMD = "/opt/bin/shellgate hook {agent}"


def read(path):
    return json.loads(path.read_text())


@pytest.mark.parametrize("agent,rel,event,matcher,timeout", [
    ("claude-code", ".claude/settings.json", "PreToolUse",
     "Bash|Read|Write|Edit|MultiEdit|NotebookEdit|Grep|Glob", 30),
    ("codex", ".codex/hooks.json", "PreToolUse", "^(Bash|apply_patch)$", 30),  # < 0.124
    ("gemini", ".gemini/settings.json", "BeforeTool",
     "run_shell_command|read_file|write_file|replace|glob|grep_search|search_file_content|"
     "read_many_files", 30_000),
])
def test_fresh_install_shape(tmp_path, agent, rel, event, matcher, timeout):
    p = install.init(agent, "user", home=tmp_path, command=CMD.format(agent=agent),
                     version=(0, 123, 0) if agent == "codex" else None, compile=False)
    path = tmp_path / rel
    assert p.path == path and p.changed and p.before is None
    assert p.diff.startswith("--- /dev/null")
    data = read(path)
    assert list(data) == ["hooks"] and list(data["hooks"]) == [event]
    [group] = data["hooks"][event]
    assert group["matcher"] == matcher
    [handler] = group["hooks"]
    assert handler["type"] == "command"
    assert handler["command"] == CMD.format(agent=agent)
    assert handler["timeout"] == timeout


@pytest.mark.parametrize("agent", install.AGENTS)
def test_idempotent(tmp_path, agent):
    first = install.init(agent, "project", project=tmp_path, command=CMD.format(agent=agent))
    before = first.path.read_bytes()
    again = install.init(agent, "project", project=tmp_path, command=CMD.format(agent=agent))
    assert not again.changed and again.diff == ""
    assert first.path.read_bytes() == before
    assert not first.path.with_name(first.path.name + ".shellgate.bak").exists()
    assert len(install.find_handlers(install.read_settings(first.path), agent)) == 1


def test_keeps_other_settings_and_hooks_and_indent(tmp_path):
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    original = {
        "permissions": {"allow": ["Bash(npm test *)"], "deny": ["Read(./.env)"]},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "/usr/local/bin/other-guard"}]}],
            "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "fmt"}]}]},
        "model": "opus",
    }
    path.write_text(json.dumps(original, indent=4))
    p = install.init("claude-code", "user", home=tmp_path, command=CMD.format(agent="claude-code"))
    data = read(path)
    assert data["permissions"] == original["permissions"] and data["model"] == "opus"
    assert data["hooks"]["PostToolUse"] == original["hooks"]["PostToolUse"]
    groups = data["hooks"]["PreToolUse"]
    assert groups[0] == original["hooks"]["PreToolUse"][0]
    assert len(groups) == 2
    assert '\n    "permissions"' in path.read_text()          # 4-space indent kept
    backup = path.with_name("settings.json.shellgate.bak")
    assert json.loads(backup.read_text()) == original
    assert "+" in p.diff and "other-guard" not in "".join(
        line for line in p.diff.splitlines() if line.startswith(("+", "-")))


def test_updates_an_old_shellgate_hook_in_place(tmp_path):
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "shellgate hook claude-code",
                                       "timeout": 5, "custom": 1}]},
        {"matcher": "Bash", "hooks": [{"type": "command", "command": "shellgate hook claude-code"}]},
    ]}}))
    p = install.init("claude-code", "user", home=tmp_path, command=CMD.format(agent="claude-code"),
                     mode="strict")
    [(matcher, handler)] = install.find_handlers(read(path), "claude-code")
    assert matcher.startswith("Bash|Read")
    assert handler == {"type": "command", "command": CMD.format(agent="claude-code"),
                       "timeout": 30, "custom": 1, "onFailure": "block"}
    assert p.changed


def test_mode_and_config_in_command(tmp_path):
    cmd = install.hook_command("codex", executable="/x y/shellgate", mode="strict",
                               config="/etc/sg.toml")
    assert cmd == "'/x y/shellgate' hook codex --mode strict --config /etc/sg.toml"
    assert install.is_shellgate_handler({"command": cmd}, "codex")
    assert not install.is_shellgate_handler({"command": cmd}, "gemini")
    assert not install.is_shellgate_handler({"command": "notshellgate hook codex"})


def test_dry_run_writes_nothing(tmp_path):
    p = install.init("gemini", "user", home=tmp_path, dry_run=True, command="shellgate hook gemini")
    assert p.changed and "+" in p.diff
    assert not p.path.exists()
    assert "would update" in install.render(p, dry_run=True)


# (JSONC — comments, trailing commas — is read and rewritten: tests/test_init_jsonc.py)
@pytest.mark.parametrize("text", ["[1, 2]", '{"hooks": []}',
                                  '{"hooks": {"PreToolUse": {}}}'])
def test_refuses_files_it_cannot_edit_safely(tmp_path, text):
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(InstallError):
        install.init("claude-code", "user", home=tmp_path)
    assert path.read_text() == text


def test_scopes_and_codex_home(tmp_path):
    assert install.settings_path("claude-code", "local", project=tmp_path) == \
        tmp_path / ".claude" / "settings.local.json"
    assert install.settings_path("codex", "user", environ={"CODEX_HOME": "/ch"}) == \
        install.Path("/ch/config.toml")
    assert install.settings_path("gemini", "project", project=tmp_path) == \
        tmp_path / ".gemini" / "settings.json"
    with pytest.raises(InstallError):
        install.settings_path("codex", "local", project=tmp_path)
    with pytest.raises(InstallError):
        install.settings_path("cursor", "user")


def test_file_mode_is_kept(tmp_path):
    path = tmp_path / ".gemini" / "settings.json"
    path.parent.mkdir()
    path.write_text("{}")
    path.chmod(0o600)
    install.init("gemini", "user", home=tmp_path, command="shellgate hook gemini")
    assert path.stat().st_mode & 0o777 == 0o600
    assert not list(path.parent.glob(".settings.json.*.tmp"))
