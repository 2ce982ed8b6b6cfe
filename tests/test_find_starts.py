"""find's start points that bash still expands (commands/find.py ``_known_start``), against the
real bash and find.

Whenever the check lets ``find * -name zz`` through, bash (with every glob option that could
widen a match: nocaseglob, extglob, globstar, dotglob) expands the glob to no word that find
reads as its expression (a leading ``-``, or ``(``, ``)``, ``!``, ``,``), and the real find
then runs without a parse error. ``$HOME`` is read as the context's home only when that holds
no blank or glob character."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

BASH = shutil.which("bash")
OPERATORS = {"(", ")", "!", ","}

names = st.lists(st.sampled_from(["a", "b.c", "-x", "-delete", "(", ")", "!", ",", "x!", "(y", "_",
                                  "\u201cq", "b-delete"]),
                 max_size=5, unique=True)


@pytest.mark.skipif(BASH is None or shutil.which("find") is None, reason="no bash or find")
@settings(max_examples=100, deadline=None)
@given(files=names, glob=st.sampled_from(["*", "?", "*.c", "?*", "*x*", "x*", "b*", "a{b,-delete}",
                                          "\u201c*"]))
def test_accepted_glob_start_points_are_start_points(files: list[str], glob: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        here = Path(d)
        (here / "home").mkdir()
        ws = here / "ws"
        ws.mkdir()
        for name in files:
            (ws / name).write_text("")
        cmd = f"find {glob} -maxdepth 0 -name zz"
        if not analyse(cmd, Context(cwd=ws, workspace=ws, home=here / "home")).readonly:
            return
        words = subprocess.run([BASH, "-c", "shopt -s nocaseglob extglob globstar dotglob; "
                                "printf '%s\\n' $1", "_", glob], cwd=ws, capture_output=True,
                               text=True, check=True).stdout.splitlines()
        assert not [w for w in words if w.startswith("-") or w in OPERATORS], (files, glob)
        p = subprocess.run([BASH, "-c", cmd], cwd=ws, capture_output=True, text=True)
        assert "expression" not in p.stderr and "predicate" not in p.stderr, p.stderr


@pytest.mark.parametrize(("home", "readonly"), [
    ("/home/alice", True), ("/home/a b", False), ("/home/a*", False), ("/home/-x", True)])
def test_home_start_point(tmp_path: Path, home: str, readonly: bool) -> None:
    ctx = Context(cwd=tmp_path, workspace=tmp_path, home=Path(home))
    for cmd in ("find $HOME -name x", 'find "$HOME/src" -name x', "find ${HOME} -type d"):
        assert analyse(cmd, ctx).readonly is readonly, cmd


def test_a_primary_value_that_splits_is_not_data(tmp_path: Path) -> None:
    """``-name *e*`` with files ``+e`` and ``-delete`` is ``-name +e -delete`` to the real find,
    which then deletes every ``+e`` below; the gate allowed it (the value was skipped unread),
    as it allowed ``-size $(echo 1 -delete)``."""
    (tmp_path / "d").mkdir()
    for name in ("+e", "-delete", "d/+e"):
        (tmp_path / name).write_text("x")
    ctx = Context(cwd=tmp_path, workspace=tmp_path, home=tmp_path / "home")
    for cmd in ("find . -name *e*", "find . -size $(echo 1 -delete)"):
        assert not analyse(cmd, ctx).readonly, cmd
    assert analyse('find . -name "*e*"', ctx).readonly
    if BASH is not None and shutil.which("find") is not None:
        subprocess.run([BASH, "-c", "find . -name *e*"], cwd=tmp_path, capture_output=True)
        assert not (tmp_path / "d" / "+e").exists()   # what the real find did
