"""Search tools through the real hook: Claude Code's Grep and Glob, Gemini CLI's glob,
grep_search (formerly search_file_content) and read_many_files.

A search reads every file under its root that its glob lets through, so a ``Read(…)`` deny or
ask rule applies when its pattern meets that tree, and the sensitive-path table applies as it
does to a recursive ``grep`` (corpus/hooks_search.jsonl). Each line is piped as JSON into the
installed ``shellgate hook <agent>``, as the agents do; a line with ``bash`` also runs that
command through the Bash tool and expects the same decision.
"""

from __future__ import annotations

import json
import subprocess

import pytest
from _helpers import EXE, agent_project, hook_env, needs_console_script

from tests.conftest import load
from tests.test_hooks_e2e import decision_of

CASES = load("hooks_search.jsonl")
pytestmark = needs_console_script


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """``work`` (clean), ``dirty`` (a .env and a link to the SSH key), a fake HOME, and three
    configs: denying ``Read(~/.ssh/**)``, asking for ``Read(./docs/**)``, denying
    ``Read(./.env)``."""
    root = tmp_path_factory.mktemp("search")
    work, home = agent_project(root, "src", "hello\n", "-----BEGIN FAKE KEY-----\n")
    (work / "src" / "app.py").write_text("# TODO\n")
    (work / "docs").mkdir()
    (work / "docs" / "guide.md").write_text("guide\n")
    dirty = root / "dirty"
    (dirty / "src").mkdir(parents=True)
    (dirty / "src" / "app.py").write_text("# TODO\n")
    (dirty / ".env").write_text("TOKEN=canary\n")
    (dirty / "links").mkdir()
    (dirty / "links" / "key.md").symlink_to(home / ".ssh" / "id_rsa")
    subprocess.run(["git", "init", "-q", str(dirty)], check=True)
    deny, ask, env_rule = root / "deny.toml", root / "ask.toml", root / "env.toml"
    deny.write_text('[permissions]\ndeny = ["Read(~/.ssh/**)"]\n')
    ask.write_text('[permissions]\nask = ["Read(./docs/**)"]\n')
    env_rule.write_text('[permissions]\ndeny = ["Read(./.env)"]\n')
    env = hook_env(root, home)
    names = {"$WORK": str(work), "$DIRTY": str(dirty), "$HOME": str(home),
             "$DENY_SSH": str(deny), "$ASK_DOCS": str(ask), "$DENY_ENV": str(env_rule)}
    return {"env": env, "names": names, "work": str(work)}


def fill(world, text: str) -> str:
    for name, value in world["names"].items():
        text = text.replace(name, value)
    return text


def hook(world, case: dict, payload: dict) -> subprocess.CompletedProcess:
    args = [fill(world, a) for a in case["args"]]
    return subprocess.run([EXE, "hook", case["agent"], *args], input=fill(world, json.dumps(payload)),
                          capture_output=True, text=True, env=world["env"], cwd=world["work"],
                          timeout=60)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['agent']}:{c['tool']}:{c['note'][:40]}")
def test_search(world, case):
    proc = hook(world, case, case["payload"])
    assert proc.returncode == 0, proc.stderr
    decision, reason = decision_of(case["agent"], proc.stdout)
    assert decision == case["expect"], (case["note"], reason)
    if "reason_contains" in case:
        assert case["reason_contains"] in reason, reason
    assert "Traceback" not in proc.stderr


BASH_TWINS = [c for c in CASES if "bash" in c]


@pytest.mark.parametrize("case", BASH_TWINS, ids=lambda c: c["bash"])
def test_bash_spelling_decides_alike(world, case):
    """``grep -r x DIR`` and a Grep of DIR are one read, decided by one table."""
    payload = {**case["payload"], "tool_name": "Bash", "tool_input": {"command": case["bash"]}}
    proc = hook(world, case, payload)
    decision, reason = decision_of(case["agent"], proc.stdout)
    assert decision == case["expect"], (case["bash"], reason)
