"""Destructive-command warnings, driven by corpus/warn.jsonl and corpus/nowarn.jsonl."""

from __future__ import annotations

import pytest
from conftest import load

from shellgate.bash.parse.parser import parse
from shellgate.bash.warnings.destructive import warnings

WARN = load("warn.jsonl")
NOWARN = load("nowarn.jsonl")


@pytest.mark.parametrize("case", WARN, ids=lambda c: c["cmd"][:50])
def test_warns(case: dict) -> None:
    script = parse(case["cmd"])
    got = warnings(script)
    want = case["warn"] if isinstance(case["warn"], list) else [case["warn"]]
    messages = [r.message for r in got]
    for phrase in want:
        assert any(phrase in m for m in messages), (phrase, messages, script.error)
    for r in got:
        assert r.rule.startswith("warn.") and r.rule != "warn.internal", r
        assert r.span is not None and 0 <= r.span[0] < r.span[1] <= len(case["cmd"]), r


@pytest.mark.parametrize("case", NOWARN, ids=lambda c: c["cmd"][:50])
def test_does_not_warn(case: dict) -> None:
    script = parse(case["cmd"])
    assert script.ok, script.error
    assert warnings(script) == (), warnings(script)


def test_corpus_sizes() -> None:
    assert len(WARN) >= 120 and len(NOWARN) >= 80
