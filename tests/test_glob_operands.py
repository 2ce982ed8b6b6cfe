"""The option-free glob proof (``spec.glob_operands``) against the real shells.

Whenever the proof says a glob gives operands only, bash (with every glob option that could
widen a match switched on: nocaseglob, extglob, globstar, dotglob) and zsh (nonomatch, also
with extendedglob) must expand it, in that directory, to no word starting with ``-``. The
scripts are constant: the glob is data (``$1`` unquoted, ``$~1`` in zsh), never code.
Table cases: corpus/runtime_words.jsonl (tests/test_runtime_words.py)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.bash.commands.spec import glob_operands
from shellgate.bash.ir import Word

BASH = shutil.which("bash")
ZSH = shutil.which("zsh")
SHELLS = [s for s in (
    [BASH, "-c", "shopt -s nocaseglob extglob globstar dotglob; printf '%s\\n' $1", "_"] if BASH else None,
    [ZSH, "-fc", "setopt nonomatch; printf '%s\\n' $~1", "_"] if ZSH else None,
    [ZSH, "-fc", "setopt nonomatch extendedglob; printf '%s\\n' $~1", "_"] if ZSH else None,
) if s is not None]

names = st.lists(st.text("aB-.x~^#", min_size=1, max_size=4), max_size=6, unique=True)
globs = st.text("aB-.x*?/~^#", min_size=1, max_size=6).filter(lambda g: g[0] in "*?")


def _word(text: str) -> Word:
    return Word(text=text, raw=text, span=(0, len(text)), static=True, glob=True)


@pytest.mark.skipif(not SHELLS, reason="no bash or zsh")
@settings(max_examples=150, deadline=None)
@given(files=names, glob=globs)
def test_proved_globs_expand_to_no_option(files: list[str], glob: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        here = Path(d)
        for name in files:
            if name not in (".", ".."):
                (here / name).write_text("")
        if not glob_operands(_word(glob), (here,), ()):
            return
        for argv in SHELLS:
            run = subprocess.run([*argv, glob], cwd=here, capture_output=True, text=True,
                                 stdin=subprocess.DEVNULL)
            words = run.stdout.splitlines()
            assert not any(w.startswith("-") for w in words), (argv[0], files, glob, words)


@pytest.mark.parametrize("text, cwds, writes, proved", [
    ("*.py", "empty", (), True),
    ("*.py", None, (), False),            # the cwd is unknown
    ("*.py", "missing", (), False),       # unreadable or missing: fail closed
    ("*.py", "empty", None, False),       # the line writes something unknown
    ("*.py", "empty", ("{d}/-r",), False),  # the line creates a name like an option there
    ("*.py", "empty", ("{d}/sub/-r",), True),  # below a directory: not a cwd entry
    ("[ab]*", "empty", (), False),        # classes are not proved
    ("**/x", "empty", (), False),         # globstar, zsh: `**/-r` is `-r`
    ("*~x", "empty", (), False),          # zsh extendedglob exclusion
    ("*(.)", "empty", (), False),         # qualifiers, extglob
])
def test_glob_operands_table(tmp_path: Path, text: str, cwds: str | None, writes: tuple[str, ...] | None,
                             proved: bool) -> None:
    d = tmp_path / "d"
    d.mkdir()
    where = None if cwds is None else (d if cwds == "empty" else tmp_path / "nope",)
    w = None if writes is None else tuple(p.format(d=d) for p in writes)
    assert glob_operands(_word(text), where, w) is proved


def test_quoted_part_is_not_proved(tmp_path: Path) -> None:
    word = Word(text="*.py", raw="*'.py'", span=(0, 6), static=True, glob=True, quoted=True)
    assert not glob_operands(word, (tmp_path,), ())


def test_a_dash_name_that_matches_refutes(tmp_path: Path) -> None:
    (tmp_path / "-R.PY").write_text("")
    assert not glob_operands(_word("*.py"), (tmp_path,), ())  # nocaseglob may be on
    assert glob_operands(_word("a*"), (tmp_path,), ())


@pytest.mark.skipif(not SHELLS, reason="no bash or zsh")
@settings(max_examples=100, deadline=None)
@given(files=st.lists(st.text("aB-@.x", min_size=1, max_size=4), max_size=6, unique=True),
       glob=st.text("aB@.x*?", min_size=1, max_size=5).filter(lambda g: g[0] in "*?"))
def test_proved_globs_give_a_response_file_reader_no_at_word(files: list[str], glob: str) -> None:
    """``leads="-@"`` (``strings``, which reads ``@FILE`` as more arguments): what the real
    shells make of a proved glob starts with neither."""
    with tempfile.TemporaryDirectory() as d:
        here = Path(d)
        for name in files:
            if name not in (".", ".."):
                (here / name).write_text("")
        if not glob_operands(_word(glob), (here,), (), "-@"):
            return
        for argv in SHELLS:
            run = subprocess.run([*argv, glob], cwd=here, capture_output=True, text=True,
                                 stdin=subprocess.DEVNULL)
            words = run.stdout.splitlines()
            assert not any(w[:1] in ("-", "@") for w in words), (argv[0], files, glob, words)


def test_an_at_name_that_matches_refutes_for_response_files(tmp_path: Path) -> None:
    (tmp_path / "@a").write_text("")
    assert glob_operands(_word("*"), (tmp_path,), ())            # an operand, for most programs
    assert not glob_operands(_word("*"), (tmp_path,), (), "-@")  # more arguments, for strings
    assert not glob_operands(_word("*"), (tmp_path,), (f"{tmp_path}/@b",), "-@")
    assert not glob_operands(_word("@*"), (tmp_path / "nope",), (), "-@")
