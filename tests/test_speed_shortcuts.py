"""The short-cuts of the in-process speed work give exactly what the general code gave.

- the harness builds ``Request`` / ``Decision`` positionally on its hot path:
  their fields must still be the ones (in the order) the call sites spell out;
- ``permission.engine._all_readonly``: when it says a command line has nothing to cover, the
  command view (the general path) must agree, on the real corpus and our own tables;
- ``Engine._finish`` gives what ``replace`` gave;
- ``targets.where``'s ``.git`` test on ``str.split("/")`` agrees with ``Path(p).parts``;
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from _helpers import commands_of
from conftest import CORPUS, CORPUS_DATA
from hypothesis import given
from hypothesis import strategies as st

from shellgate._record import fields, replace
from shellgate.approval.classifier import classify_bash
from shellgate.bash.facts import Context
from shellgate.permission import Capability, Decision, DecisionKind, Metadata, Request
from shellgate.permission import engine as perm_engine
from shellgate.permission.rules import RuleAction, RuleSet, parse_rule
from shellgate.permission.subject import parse_view


def _corpus(limit_shared: int = 3000) -> list[str]:
    """Commands of our own corpus files, then (when present) the first of the shared data."""
    seen: dict[str, None] = {}
    for f in sorted(CORPUS.glob("*.jsonl")):
        seen.update(dict.fromkeys(commands_of(f.read_text(encoding="utf-8").splitlines())))
    own = len(seen)
    if CORPUS_DATA.is_dir():
        for f in sorted(CORPUS_DATA.glob("*.jsonl")):
            with f.open(encoding="utf-8", errors="surrogateescape") as lines:
                seen.update(dict.fromkeys(commands_of(itertools.islice(lines, limit_shared))))
    assert own > 100, "our own corpus files went missing"
    return list(seen)


# -- positional constructions ------------------------------------------------------------------

@pytest.mark.parametrize(("cls", "names"), [
    (Request, ("tool_id", "tool_name", "args", "preview", "metadata", "workspace", "cwd",
               "session_id")),
    (Decision, ("kind", "reason", "rule", "source", "matched", "capability", "warnings",
                "reasons", "asked")),
])
def test_hot_path_records_keep_their_fields(cls: type, names: tuple[str, ...]) -> None:
    """approval/engine.py ``_placed`` / ``check_bash`` and
    permission/engine.py ``_finish`` construct these by position: a new or moved field must
    be added there too."""
    assert tuple(f.name for f in fields(cls)) == names
    assert all(f.init for f in fields(cls))


def test_finish_is_replace(tmp_path: Path) -> None:
    eng = perm_engine.Engine(tmp_path)
    meta = Metadata(Capability.EXEC, "k", "s", reasons=("r1",), warnings=("w1",))
    call = perm_engine.Call(eng, Request(tool_name="bash", metadata=meta), meta)
    for d in (Decision(DecisionKind.ASK, "why", "chain.x", "mode"),
              Decision(DecisionKind.DENY, "no", "chain.y", "rule", ("a",), Capability.READ,
                       ("w",), ("r",), True)):
        for problems in ((), ("store moved aside",)):
            eng.problems = lambda p=problems: list(p)  # type: ignore[method-assign]
            extra = tuple(p for p in eng.problems() if p not in d.reasons)
            want = replace(d, capability=d.capability or call.capability,
                           warnings=d.warnings or meta.warnings,
                           reasons=d.reasons or (*meta.reasons, *extra))
            assert eng._finish(call, d) == want


# -- nothing to cover ----------------------------------------------------------------------------

def test_all_readonly_agrees_with_the_view(tmp_path: Path) -> None:
    ctx = Context.here(cwd=str(tmp_path), workspace=str(tmp_path), home=str(tmp_path / "home"))
    took = 0
    for cmd in _corpus():
        meta = classify_bash(cmd, ctx).metadata
        view = parse_view(cmd, meta.script, meta.readonly_commands)
        if perm_engine._all_readonly(meta):
            took += 1
            assert not view.to_cover(), cmd  # the short-cut's answer: nothing to cover
            assert view.ok, cmd
    assert took > 100  # the short-cut is taken on the corpus


def test_covers_short_cut_matches_the_general_path(tmp_path: Path) -> None:
    """With allow rules that match everything, ``_covers`` with the short-cut and without it
    (a view built first) decide alike on every corpus command."""
    rules = RuleSet(allow=(parse_rule("Bash(*)", RuleAction.ALLOW),))
    eng = perm_engine.Engine(tmp_path, rules=rules)
    ctx = Context.here(cwd=str(tmp_path), workspace=str(tmp_path), home=str(tmp_path / "home"))
    for cmd in _corpus(500):
        meta = classify_bash(cmd, ctx).metadata
        req = Request(tool_name="bash", metadata=meta)
        fast = perm_engine.Call(eng, req, meta)
        slow = perm_engine.Call(eng, req, meta)
        assert slow.view is not None  # built first: the short-cut is not taken
        a, b = eng._covers(fast), eng._covers(slow)
        assert (a is None) == (b is None), cmd
        if a is not None and b is not None:
            assert a == b, cmd


# -- small equivalences ------------------------------------------------------------------------

_SEGMENT = st.sampled_from(["", ".", "..", ".git", "git", ".gitx", "a", "x.git", "//"])


@given(st.booleans(), st.lists(_SEGMENT, max_size=6))
def test_git_parts_on_split(absolute: bool, segs: list[str]) -> None:
    p = ("/" if absolute else "") + "/".join(segs)
    if not p:
        return
    assert (".git" in p.split("/")) == (".git" in Path(p).parts)
