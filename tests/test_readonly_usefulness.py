"""Usefulness floor on real agent commands (skipped when ../shared/corpus-data is absent).

The reading commands agents run most (grep, sed -n, nl, find, cat, head, tail, ls, wc, git
log/status/diff/show …), without redirections or substitutions, must nearly all be read-only:
a classifier that refuses them is sound but useless.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import CORPUS_DATA

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

_READING = re.compile(r"^(grep|nl|ls|find|head|tail|wc|cat|rg|jq|tree|diff|sed -n|"
                      r"git (log|status|diff|show))\b")


def _reading_commands(limit: int) -> list[str]:
    path = CORPUS_DATA / "agent-mini-swe-agent-gemini-3-pro.jsonl"
    if not path.is_file():
        pytest.skip(f"agent corpus not found at {path}")
    out = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            cmd = json.loads(line)["cmd"]
            if _READING.match(cmd) and not re.search(r"[<>\n`]|\$\(|-delete|-exec", cmd):
                out.append(cmd)
            if len(out) >= limit:
                break
    return out


def test_common_agent_reads_are_readonly(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    ctx = Context(cwd=ws, workspace=ws, home=home)
    cmds = _reading_commands(1500)
    assert len(cmds) > 500
    refused = [c for c in cmds if not analyse(c, ctx).readonly]
    share = 1 - len(refused) / len(cmds)
    assert share >= 0.97, (share, refused[:10])
