"""The ``argv`` column of corpus/parse_constructs.jsonl against bash itself: for rows whose
commands are all ``f``, bash runs the row with ``f`` a function that records its argv, and
must make exactly the calls the table lists (so the table is bash's behaviour, not ours)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _helpers import BASH, bash_calls
from conftest import load

ROWS = [c for c in load("parse_constructs.jsonl")
        if "argv" in c and c["argv"] and all(a[:1] == ["f"] for a in c["argv"])]


def test_some_rows_are_checked() -> None:
    assert len(ROWS) >= 20


@pytest.mark.skipif(BASH is None, reason="no bash")
@pytest.mark.parametrize("case", ROWS, ids=lambda c: repr(c["cmd"])[:60])
def test_table_argv_is_what_bash_runs(tmp_path: Path, case: dict) -> None:
    assert bash_calls(case["cmd"], tmp_path) == case["argv"]


@pytest.mark.skipif(BASH is None, reason="no bash")
def test_oracle_tells_argvs_apart(tmp_path: Path) -> None:
    assert bash_calls("f 'a b'", tmp_path) == [["f", "a b"]]
    assert bash_calls("f a b", tmp_path) != [["f", "a b"]]
