"""``shellgate explain`` names the allow rule that would cover an ask (#17), and the rule it
names really lets the command through. Fed from ``corpus/covering_rules.jsonl``."""

from __future__ import annotations

import subprocess

import pytest
from _helpers import git_workspace
from conftest import load

from shellgate import Gate

ROWS = load("covering_rules.jsonl")


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    return git_workspace(tmp_path_factory.mktemp("ws") / "ws")


@pytest.mark.parametrize("row", ROWS, ids=[r["cmd"] for r in ROWS])
def test_explain_names_the_rule_that_covers_an_ask(row, ws, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    v = Gate(ws, mode="balanced", home=home).check(row["cmd"], cwd=ws)
    assert list(v.covering_rules()) == row["rules"], v.reason
    p = subprocess.run(["shellgate", "explain", "--mode", "balanced", "--cwd", str(ws), row["cmd"]],
                       capture_output=True, text=True, timeout=60)
    assert ("to allow it:" in p.stdout) is bool(row["rules"]), p.stdout
    for r in row["rules"]:
        assert repr(r) in p.stdout
    if row["rules"]:   # the suggestion works: with those rules the command is allowed
        cfg = tmp_path / "sg.toml"
        cfg.write_text("[permissions]\nallow = [" + ", ".join(f"'{r}'" for r in row["rules"]) + "]\n")
        assert Gate(ws, mode="balanced", config=cfg, home=home).check(row["cmd"], cwd=ws).allowed
