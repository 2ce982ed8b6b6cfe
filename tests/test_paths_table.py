"""Sensitive-path table: one path at a time (check_path), driven by corpus/paths.jsonl."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import load
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.bash.facts import Context, PathClass, PathOp
from shellgate.bash.paths import resolve as paths
from shellgate.bash.paths.tables import RULES

CTX = Context(cwd=Path("/srv/ws/proj"), workspace=Path("/srv/ws/proj"), home=Path("/home/tester"))
CASES = load("paths.jsonl")


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['op']}:{c['path'][:40]}")
def test_path_class(case: dict) -> None:
    hit = paths.check_path(case["path"], PathOp(case["op"]), CTX)
    got = hit.cls.value if hit else None
    assert got == case["class"], hit
    if hit is not None:
        assert hit.op is PathOp(case["op"])
        assert not hit.pattern.startswith("internal-error"), hit


def test_corpus_is_big_enough_and_balanced() -> None:
    classes = {c["class"] for c in CASES}
    assert len(CASES) >= 60 and classes == {"leak", "implant", None}


def test_every_rule_has_a_reason() -> None:
    for rule in RULES:
        assert rule.why.strip(), rule.pattern
        assert rule.leak or rule.implant, rule.pattern


def test_span_is_passed_through() -> None:
    hit = paths.check_path("~/.netrc", PathOp.READ, CTX, span=(3, 9))
    assert hit is not None and hit.span == (3, 9) and hit.cls is PathClass.LEAK


def test_home_comes_from_the_context() -> None:
    other = Context(cwd=Path("/srv/ws"), workspace=Path("/srv/ws"), home=Path("/opt/fakehome"))
    assert paths.check_path("~/.aws/credentials", PathOp.READ, other).path == "/opt/fakehome/.aws/credentials"
    assert paths.check_path("/opt/fakehome/.netrc", PathOp.READ, other) is not None
    assert paths.check_path("/opt/elsewhere/.bashrc", PathOp.WRITE, other) is None


@settings(deadline=None)
@given(st.text(max_size=80), st.sampled_from(list(PathOp)))
def test_check_path_never_raises(text: str, op: PathOp) -> None:
    hit = paths.check_path(text, op, CTX)
    assert hit is None or not hit.pattern.startswith("internal-error"), hit


_PARTS = ["~", "..", ".", "", "*", "?", "[a-", "{a,b}", ".ssh", "id_rsa", "$HOME", "${X}", ".env", "**",
          "\\", "~x", "$(", ".git", "hooks"]


@settings(deadline=None)
@given(st.lists(st.sampled_from(_PARTS), max_size=8), st.sampled_from(list(PathOp)))
def test_check_path_never_raises_on_path_like_text(parts: list[str], op: PathOp) -> None:
    hit = paths.check_path("/".join(parts), op, CTX)
    assert hit is None or not hit.pattern.startswith("internal-error"), hit
