"""``cat FILE`` through Bash and a Read of FILE decide alike (corpus/read_parity.jsonl).

They used to differ: the Read tool's path went through the kernel's outside-the-roots step,
which asked for any path outside the workspace, while a read-only bash command lists no read
paths and was judged by the sensitive-path table alone (``cat /etc/passwd`` allowed, Read of
/etc/passwd asked). Now reads are the table's to judge for both (``BOUNDED_OPS``) and writes
outside the workspace ask for both. Each line runs through the installed ``shellgate hook
claude-code`` twice, once per tool, with real payloads.
"""

from __future__ import annotations

import json
import shlex
import subprocess

import pytest
from _helpers import EXE, agent_project, hook_env, needs_console_script

from tests.conftest import load
from tests.test_hooks_e2e import decision_of

CASES = load("read_parity.jsonl")
pytestmark = needs_console_script


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("parity")
    work, home = agent_project(root, "src", "hello\n", "-----BEGIN FAKE KEY-----\n")
    outside = root / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("notes\n")
    (outside / ".env").write_text("TOKEN=canary\n")
    env = hook_env(root, home)
    return {"env": env, "work": str(work),
            "names": {"$WORK": str(work), "$OUTSIDE": str(outside), "$HOME": str(home)}}


def ask_hook(world, tool: str, tool_input: dict, mode: str) -> tuple[str, str]:
    payload = {"session_id": "", "cwd": world["work"], "permission_mode": mode,
               "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": tool_input,
               "tool_use_id": "toolu_p"}
    proc = subprocess.run([EXE, "hook", "claude-code"], input=json.dumps(payload),
                          capture_output=True, text=True, env=world["env"], cwd=world["work"],
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    return decision_of("claude-code", proc.stdout)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['op']}:{c['path']}")
def test_file_tool_and_bash_agree(world, case):
    path = case["path"]
    for name, value in world["names"].items():
        path = path.replace(name, value)
    if case["op"] == "read":
        mode, tool, tool_input, command = "default", "Read", {"file_path": path}, "cat"
    else:
        mode, tool, tool_input, command = "acceptEdits", "Write", {"file_path": path,
                                                                    "content": "x\n"}, "touch"
    by_tool = ask_hook(world, tool, tool_input, mode)
    by_bash = ask_hook(world, "Bash", {"command": f"{command} {shlex.quote(path)}"}, mode)
    assert by_tool[0] == by_bash[0] == case["expect"], (case["note"], by_tool, by_bash)
