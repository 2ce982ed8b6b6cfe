"""When the sandbox refused a command, the result says so in words (#20): the read-only bind
of ``.git/config`` ("Device or resource busy"), the read-only root, the network that is off.
Fed from ``corpus/refusal_notes.jsonl``; every command really runs under bwrap."""

from __future__ import annotations

import pytest
from _helpers import git_workspace, sandbox_or_skip
from conftest import load

from shellgate.approval import scripted
from shellgate.tools import BashTool

ROWS = load("refusal_notes.jsonl")


@pytest.mark.parametrize("row", ROWS, ids=[r["cmd"][:40] for r in ROWS])
def test_a_refusal_is_explained(row, tmp_path):
    sandbox_or_skip("bwrap").close()
    ws = git_workspace(tmp_path / "ws")
    with BashTool(ws, "trust", sandbox="bwrap", audit=False, store=False, user_config=False,
                  home=tmp_path / "home", approver=scripted("allow_once")) as t:
        r = t.run(row["cmd"])
    assert r.ran, r.reason
    refusals = [n for n in r.notes if "sandbox" in n and ("read-only" in n or "network" in n)]
    if row["note"] is None:
        assert refusals == [], r.notes
    else:
        assert r.exit_code != 0
        assert any(row["note"] in n for n in refusals), (r.notes, r.stderr)
