"""The ``argv`` column of corpus/parse_constructs.jsonl against bash itself: for rows whose
commands are all ``f``, bash runs the row with ``f`` a function that records its argv, and
must make exactly the calls the table lists (so the table is bash's behaviour, not ours)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

BASH = shutil.which("bash")
ROWS = [c for c in load("parse_constructs.jsonl")
        if "argv" in c and c["argv"] and all(a[:1] == ["f"] for a in c["argv"])]


def bash_calls(src: str, tmp: Path) -> list[list[str]]:
    """Every call of ``f`` bash makes running ``src``, written to fd 9 so that the row's own
    redirections of fds 0-2 do not hide them."""
    out = tmp / "calls"
    prog = ("exec 9>" + str(out) + "; f() { printf 'f\\0' >&9; for a; do printf '%s\\0' \"$a\" >&9; "
            "done; printf '\\036' >&9; }; set -f\n" + src)
    subprocess.run([BASH, "-c", prog], cwd=tmp, capture_output=True, timeout=10, check=False,
                   env={"PATH": os.environ.get("PATH", ""), "LC_ALL": "C.UTF-8"})
    data = out.read_bytes().decode("utf-8") if out.exists() else ""
    return [rec.split("\0")[:-1] for rec in data.split("\036")[:-1]]


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
