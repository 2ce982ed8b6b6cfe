"""The fast path (``_fast.py``) and bashlex give identical scripts: on a sample of the real
corpus, on our own table, and on generated bash-ish input."""

from __future__ import annotations

import json

import pytest
from _helpers import corpus_commands, parsed_in
from conftest import CORPUS_DATA, load
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.bash.ir import Script
from shellgate.bash.parse import _fast, walk

STRIDE = 25   # every 25th corpus command (~2,200); bench/parse_speed.py --check runs them all


def both(src: str) -> tuple[Script, ...]:
    """(every fast path on, bashlex alone)."""
    return parsed_in(src, "plain", "bashlex")


@pytest.mark.skipif(not CORPUS_DATA.is_dir(), reason=f"no corpus data at {CORPUS_DATA}")
def test_fast_path_matches_bashlex_on_corpus() -> None:
    diffs, used = [], 0
    for src in corpus_commands(STRIDE):
        fast, slow = both(src)
        if fast != slow:
            diffs.append(src)
        used += _fast.nodes(src) is not None
    assert not diffs, diffs[:5]
    assert used > 1000  # the fast path is actually taken on most real commands


@pytest.mark.parametrize("case", load("parse_constructs.jsonl"), ids=lambda c: repr(c["cmd"])[:50])
def test_fast_path_matches_bashlex_on_table(case: dict) -> None:
    fast, slow = both(case["cmd"])
    assert fast == slow


_ATOMS = ["a", "b", "x=1", "2", ">", ">>", "<", "2>&1", ">&2", "&>", "<<<", "|", "|&", "&&",
          "||", ";", "&", "\n", " ", "'q'", '"$(c)"', "$x", "<<EOF\nEOF\n", "#c\n", "{", "}",
          "(", ")", "!", "if", "then", "fi", "time", "\\\n", "f"]


@settings(deadline=None)
@given(st.lists(st.sampled_from(_ATOMS), max_size=25).map(" ".join))
def test_fast_path_matches_bashlex_generated(src: str) -> None:
    fast, slow = both(src)
    assert fast == slow


def test_shipped_bashlex_tables_are_current() -> None:
    """_bashlex_tables.json equals what this bashlex builds itself (else regenerate it)."""
    from shellgate.bash.parse import _bashlex

    fresh = json.loads(_bashlex.build_tables())
    shipped = json.loads(_bashlex.TABLES.read_text(encoding="utf-8"))
    assert fresh == shipped


def test_bashlex_loaded_from_tables_parses_like_bashlex() -> None:
    bashlex = walk._bashlex()
    tree = bashlex.parse("if a; then b | c; fi")[0]
    assert tree.kind == "compound" and tree.list[0].kind == "if"
