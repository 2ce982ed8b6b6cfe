"""Red team 3, writes outside the workspace (corpus/red3_writes.jsonl), shown with the real bash.

Each line is judged by the gate in accept-edits (where a plain edit of the workspace runs
unasked, and where shellgate may run with no sandbox behind it: ``[hooks] enforce = false``),
then run by bash in a fresh scratch world: a line that is not allowed must change a file outside
the workspace when run (the effect the verdict stops, so the line proves something), an
allowed one must change nothing there (it really is a plain edit).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.check import Gate

CASES = load("red3_writes.jsonl")
BASH = shutil.which("bash")
GIT = shutil.which("git")


def _world(base: Path) -> tuple[Path, Path]:
    """(home, ws) of the world the corpus header describes."""
    home, outside, ws = base / "home", base / "outside", base / "ws"
    for d in (home, outside, ws / "d", ws / "g", ws / "e" / "d", ws / "h", ws / "k"):
        d.mkdir(parents=True)
    (home / ".bashrc").write_text("orig\n")
    (outside / "f").write_text("old\n")
    for f, text in (("f", "hi\n"), ("d/file", "new\n"), ("k/.keep", "")):
        (ws / f).write_text(text)
    for name, target in (("rc", home / ".bashrc"), ("outdir", outside), ("d/inner", home / ".bashrc"),
                         ("g/f", outside / "f"), ("e/d/file", home / ".bashrc"), ("h/file", outside / "f")):
        os.symlink(target, ws / name)
    if GIT:
        subprocess.run([GIT, "init", "-q", str(ws)], check=True)
    return home, ws


def _outside(base: Path) -> dict[str, tuple[str, int, str]]:
    """Every path under ``base`` but the workspace: (kind, mtime, content or link target)."""
    out: dict[str, tuple[str, int, str]] = {}
    for root, dirs, files in os.walk(base):
        if Path(root) == base:
            dirs[:] = [d for d in dirs if d != "ws"]
        for name in dirs + files:
            p = Path(root, name)
            st = p.lstat()
            if p.is_symlink():
                out[str(p)] = ("link", 0, os.readlink(p))
            elif p.is_dir():
                out[str(p)] = ("dir", 0, "")
            else:
                out[str(p)] = ("file", st.st_mtime_ns, p.read_text())
    return out


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path, Path]:
    base = Path(os.path.realpath(tmp_path))
    home, ws = _world(base)
    return base, home, ws


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_verdict_in_accept_edits(world, case: dict) -> None:
    _, home, ws = world
    verdict = Gate(ws, mode="accept-edits", home=home).check(case["cmd"]).to_json()
    assert (verdict["decision"] == "allow") == case["allow"], verdict


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_effect_with_real_bash(world, case: dict) -> None:
    base, home, ws = world
    before = _outside(base)
    subprocess.run([BASH, "-c", case["cmd"]], cwd=ws, capture_output=True, timeout=30, check=False,
                   env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "PWD": str(ws)})
    after = _outside(base)
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    if case["allow"]:
        assert not changed, f"an allowed line changed {changed}"
    else:
        assert changed, "the line changes nothing outside the workspace: it proves nothing"


def test_corpus_covers_both_sides() -> None:
    assert sum(1 for c in CASES if c["allow"]) >= 6 and sum(1 for c in CASES if not c["allow"]) >= 15
