"""The session's workspace anchor (hookio.session_workspace) when it exists but cannot be read.

The anchor keeps an agent session's workspace where its first hook call found it, so that a
later ``cd ~`` (the agent reports its live cwd) does not make HOME the workspace. An anchor
that cannot be read — not a regular file, or the process out of descriptors — used to count
as no anchor: the reported cwd became the workspace, and accept-edits let edits there through.
Now the hook takes that cwd but grants no edit in it without asking, and says why on stderr.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from shellgate.integrations import claude_code
from shellgate.integrations.hookio import evaluate


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    home, ws = tmp_path / "home", tmp_path / "home" / "proj"
    ws.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    for var, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_STATE_HOME", ".local/state"),
                     ("XDG_CACHE_HOME", ".cache")):
        monkeypatch.setenv(var, str(home / sub))
    monkeypatch.setenv("HOME", str(home))
    anchor = home / ".local/state/shellgate/sessions" / f"claude-code-{b'sess'.hex()}"
    return {"home": home, "ws": ws, "anchor": anchor}


def _hook(cwd: Path, command: str) -> tuple[str, tuple[str, ...]]:
    payload = {"session_id": "sess", "transcript_path": "/nonexistent", "cwd": str(cwd),
               "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "t",
               "tool_input": {"command": command}, "permission_mode": "acceptEdits"}
    out = evaluate(claude_code.SPEC, json.dumps(payload))
    assert out is not None
    return out.decision, out.notices


def _unreadable(anchor: Path, kind: str) -> None:
    anchor.unlink()
    if kind == "fifo":
        os.mkfifo(anchor)
    elif kind == "dir":
        anchor.mkdir()
    elif kind == "link":
        anchor.symlink_to("/dev/zero")
    else:
        anchor.write_bytes(b"\xff\xfe not utf-8")


@pytest.mark.parametrize("kind", ["fifo", "dir", "link", "bytes"])
def test_an_unreadable_anchor_grants_no_edit(world: dict[str, Path], kind: str) -> None:
    decision, notices = _hook(world["ws"], "echo x > notes.txt")
    assert decision == "allow" and notices == ()
    assert world["anchor"].read_text() == str(world["ws"])
    _unreadable(world["anchor"], kind)
    # the agent moved to HOME: with the anchor unread, HOME would be this session's workspace
    decision, notices = _hook(world["home"], "echo x > notes.txt")
    assert decision == "ask"
    assert any("workspace anchor" in n and "cannot be read" in n for n in notices), notices
    decision, _ = _hook(world["home"], "cat proj/.git/HEAD")   # reads still go through
    assert decision == "allow"


def test_a_readable_anchor_keeps_the_first_workspace(world: dict[str, Path]) -> None:
    assert _hook(world["ws"], "echo x > notes.txt") == ("allow", ())
    decision, notices = _hook(world["home"], "echo x > notes.txt")   # outside the workspace
    assert decision == "ask" and notices == ()
