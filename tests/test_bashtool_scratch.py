"""A bash tool's private /tmp is scratch space (#20): under bwrap a write there is an edit like
one in the workspace, it lasts for the tool's session, never reaches the host's /tmp, and is
gone after ``close()``. Where /tmp is the host's (Landlock, a hook's command) it stays outside.

Fed from ``corpus/scratch_writes.jsonl``; every command is really run.
"""

from __future__ import annotations

import json
import subprocess
import uuid
from pathlib import Path

import pytest
from _helpers import git_workspace, sandbox_or_skip
from conftest import load

from shellgate.tools import BashTool

ROWS = load("scratch_writes.jsonl")
MODES = ("trust", "accept-edits", "balanced")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return git_workspace(tmp_path / "ws", commit=("a.txt", "b\na\n"))


def _tool(ws: Path, mode: str, tier: str) -> BashTool:
    return BashTool(ws, mode, sandbox=tier, audit=False, store=False, user_config=False,
                    home=ws.parent / "home")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("row", ROWS, ids=[r["cmd"][:40] for r in ROWS])
def test_scratch_writes_under_bwrap(ws, row, mode):
    sandbox_or_skip("bwrap").close()
    with _tool(ws, mode, "bwrap") as t:
        r = t.run(row["cmd"])
        assert r.decision == row[mode], (r.reason, r.stderr)
        if r.ran:
            assert r.exit_code == 0, r.stderr


@pytest.mark.parametrize("row", ROWS, ids=[r["cmd"][:40] for r in ROWS])
def test_under_landlock_the_hosts_tmp_is_outside(ws, row):
    sandbox_or_skip("landlock").close()
    with _tool(ws, "accept-edits", "landlock") as t:
        assert t.run(row["cmd"]).decision == "ask"


def test_scratch_lasts_for_the_session_and_ends_with_it(ws):
    sandbox_or_skip("bwrap").close()
    name = f"/tmp/scratch-{uuid.uuid4().hex}"
    t = _tool(ws, "accept-edits", "bwrap")
    try:
        assert t.run(f"echo kept > {name}").ran
        assert t.run(f"cat {name}").stdout == "kept\n"
        assert not Path(name).exists()            # the host's /tmp never saw it
        t.close()
        r = t.run(f"cat {name}")                  # a new session, a new /tmp
        assert r.ran and r.exit_code != 0
    finally:
        t.close()


@pytest.mark.parametrize("row", ROWS, ids=[r["cmd"][:40] for r in ROWS])
def test_a_hooks_command_runs_on_the_host_so_tmp_is_outside(ws, row, tmp_path):
    payload = {"session_id": "s", "cwd": str(ws), "permission_mode": "acceptEdits",
               "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": row["cmd"]}, "tool_use_id": "t"}
    p = subprocess.run(["shellgate", "hook", "claude-code"], input=json.dumps(payload), text=True,
                       capture_output=True, cwd=ws, timeout=60)
    out = json.loads(p.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == row["hook"], out
