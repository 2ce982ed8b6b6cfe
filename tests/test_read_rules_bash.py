"""A policy's ``Read(…)`` deny and ask rules stop bash commands that read what they name — by
name, glob, link, ``cd`` or a walk of a directory above (``corpus/read_rules_bash.jsonl``).

Before, only the file tools and searches met them: with ``deny = ["Read(~/private/**)"]``,
``cat ~/private/notes.txt`` and ``grep -r x ~`` were allowed in every mode (only the secret
table's own entries were found in a bash command).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shellgate.approval import Engine
from shellgate.permission import DecisionKind, RuleSet

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "read_rules_bash.jsonl"
LINES = [json.loads(x) for x in CORPUS.read_text().splitlines() if x.strip() and not x.startswith("//")]


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("rr")
    home, ws = root / "home", root / "ws"
    (home / "private" / "sub").mkdir(parents=True)
    (home / "private" / "notes.txt").write_text("s\n")
    (home / "private" / "sub" / "deep.txt").write_text("s\n")
    (home / "other.txt").write_text("o\n")
    for d in ("vault", "src", "docs"):
        (ws / d).mkdir(parents=True)
    (ws / "vault" / "db.txt").write_text("pw\n")
    (ws / "src" / "a.py").write_text("x = 1\n")
    (ws / "docs" / "readme.md").write_text("# r\n")
    (ws / "id.key").write_text("k\n")
    (ws / "link-to-private").symlink_to(home / "private" / "notes.txt")
    return ws, home


@pytest.mark.parametrize("line", LINES, ids=[f"{i}:{x['cmd']}" for i, x in enumerate(LINES)])
def test_read_rule_meets_the_commands_reads(line, tree, monkeypatch) -> None:
    ws, home = tree
    monkeypatch.setenv("HOME", str(home))
    rules = RuleSet.parse(**line["rules"])
    e = Engine(ws, "trust", home=home, rules=rules, ask_as_deny=False)
    d = e.decide_bash(line["cmd"])
    assert d.kind is DecisionKind(line["expect"]), (d.kind, d.rule, d.reason)
    if line["expect"] == "deny" and line["rules"]:
        assert d.rule == "chain.deny_rule", (d.rule, d.reason)
    if line["expect"] == "ask" and line["rules"]:
        # the harness's sensitive-path step may ask first: it says a rule named the path
        assert d.rule == "chain.ask_rule" or "read rule of the policy" in d.reason, d.reason
