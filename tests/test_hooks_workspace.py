"""The workspace a hook decides in is anchored to the agent's session (issue 16 item 3): a
later ``cd`` the agent reports as its cwd, or a directory the model names, never moves it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

EXE = shutil.which("shellgate")


@pytest.fixture
def world(tmp_path):
    work, other = tmp_path / "work", tmp_path / "other"
    work.mkdir()
    other.mkdir()
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    env = {k: v for k, v in os.environ.items() if k not in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR")}
    env.update(HOME=str(tmp_path / "home"), XDG_STATE_HOME=str(tmp_path / "state"),
               XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_CACHE_HOME=str(tmp_path / "cache"))
    return {"work": work, "other": other, "env": env}


def claude(world, cwd, cmd, session="sess-1", extra_env=None):
    payload = {"session_id": session, "cwd": str(cwd), "permission_mode": "acceptEdits",
               "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": cmd}, "tool_use_id": "t"}
    proc = subprocess.run([EXE, "hook", "claude-code"], input=json.dumps(payload), text=True,
                          capture_output=True, env={**world["env"], **(extra_env or {})},
                          cwd=str(cwd), timeout=60)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"]


def test_a_later_cd_does_not_move_the_workspace(world):
    assert claude(world, world["work"], "touch a.txt") == "allow"          # anchors sess-1
    assert claude(world, world["other"], "touch b.txt") == "ask"           # outside it now
    assert claude(world, world["other"], "touch b.txt", session="sess-2") == "allow"  # its own


def test_the_project_dir_variable_wins(world):
    env = {"CLAUDE_PROJECT_DIR": str(world["other"])}
    assert claude(world, world["work"], "touch a.txt", extra_env=env) == "ask"
    assert claude(world, world["other"], "touch b.txt", extra_env=env) == "allow"


def test_root_is_never_an_editable_workspace(world):
    assert claude(world, "/", "rm usr/lib/os-release", session="sess-root") == "ask"
