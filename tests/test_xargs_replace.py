"""xargs ``-I``/``-i``/``--replace``, ``-d '\\n'`` and ``--`` in front of a reader whose input a
producer's names proof covers (``paths/xargsnames.py``; #17). The rows of
``corpus/xargs_replace.jsonl`` go through ``tests/test_xargs_names.py``'s checks (verdict, real
run, effect); the GNU xargs behaviour the rules rest on is measured here.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import test_xargs_names as base
from conftest import load

from shellgate import Gate

ROWS = load("xargs_replace.jsonl")
EFFECT_ROWS = [r for r in ROWS if "effect" in r]
XARGS = shutil.which("xargs")


@pytest.mark.parametrize("row", ROWS, ids=[r["cmd"][:60] for r in ROWS])
def test_xargs_replace(row, tmp_path):
    base.test_xargs_names(row, tmp_path)


@pytest.mark.parametrize("row", EFFECT_ROWS, ids=[r["cmd"][:60] for r in EFFECT_ROWS])
def test_xargs_replace_effect(row, tmp_path):
    base.test_a_false_approval_has_its_effect_for_real_and_is_refused(row, tmp_path)


def _xargs(args: list[str], stdin: str, cwd: Path | None = None) -> str:
    if XARGS is None:
        pytest.skip("xargs is not installed")
    p = subprocess.run([XARGS, *args], input=stdin, capture_output=True, text=True, cwd=cwd, timeout=30)
    return p.stdout


@pytest.mark.parametrize(("opts", "out"), [
    (["-I", "{}"], "[a b]\n[c]\n"),                 # one line per command, leading blanks stripped
    (["-d", "\\n", "-I", "{}"], "[  a b]\n[\tc]\n"),  # -d: each line as it is
    (["-0", "-d", "\\n", "-I", "{}"], "[  a b]\n[\tc]\n"),   # the last of -0/-d holds
])
def test_gnu_xargs_replace_splits_lines(opts, out):
    assert _xargs([*opts, "printf", "[%s]\\n", "{}"], "  a b\n\tc\n") == out


@pytest.mark.parametrize(("opts", "replaced"), [
    (["-I", "{}", "-n", "1"], True), (["-n", "2", "-I", "{}"], True), (["-L", "2", "-I", "{}"], True),
    (["-I", "{}", "-n", "2"], False), (["-I", "{}", "-L", "1"], False), (["-i", "--max-lines=1"], False),
])
def test_gnu_xargs_drops_replace_after_a_count(opts, replaced):
    """GNU xargs: a later -L or -n N (N > 1) cancels -I, and the input is appended (the gate
    refuses those orders: BSD xargs keeps -I); an earlier one is cancelled by -I."""
    out = _xargs([*opts, "echo", "X", "{}"], "a\nb\n")
    if XARGS and "GNU" not in subprocess.run([XARGS, "--version"], capture_output=True, text=True).stdout:
        pytest.skip("not GNU xargs")
    assert (out == "X a\nX b\n") is replaced, out
    assert ("{}" in out) is not replaced


def test_replace_dropped_opens_the_literal_word(tmp_path):
    """strace: with ``-I {} -L 2`` cat opens ``{}`` itself and then each appended name."""
    if shutil.which("strace") is None or XARGS is None:
        pytest.skip("strace or xargs is not installed")
    (tmp_path / "a").write_text("x\n")
    trace = tmp_path / "trace"
    subprocess.run(["strace", "-f", "-qq", "-e", "trace=openat", "-o", str(trace), XARGS, "-I", "{}",
                    "-L", "2", "cat", "{}"], input="a\n", capture_output=True, text=True, cwd=tmp_path,
                   timeout=30)
    text = trace.read_text()
    assert '"{}"' in text and '"a"' in text


@pytest.mark.parametrize("cmd", [
    "find src -type f | xargs -I {} -L 2 cat {}",
    "find src -type f | xargs -I{} -n 2 cat {}",
    "find src -type f | xargs --replace --max-lines cat {}",
])
def test_the_count_after_replace_is_named(cmd, tmp_path):
    ws, home = base._tree(tmp_path, ["src/a.py"])
    v = Gate(ws, mode="balanced", home=home).check(cmd, cwd=ws)
    assert not v.analysis.readonly
    word = next(w for w in ("-L", "-n", "--max-lines") if f" {w} " in cmd)
    assert any(r.span is not None and cmd[r.span[0]:r.span[1]] == word and "after -I" in r.message
               for r in v.analysis.reasons), v.analysis.reasons
