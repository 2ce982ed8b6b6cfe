"""Tree copies and moves that land implant files (corpus/tree_copy_implants.jsonl), with real bash.

``cp -r tpl/. .`` or ``mv tpl t2`` writes ``./.envrc`` or ``t2/.claude/settings.json`` when the
source tree holds one: each name a tree puts below its destination is judged as its own write
(shellgate/bash/paths/landing.py). Each line is judged in accept-edits (where shellgate may run
with no sandbox behind it), then run by bash in a fresh world: a refused line must create the
implant file it names (the effect the verdict stops), an allowed one must create none.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context
from shellgate.check import Gate

CASES = load("tree_copy_implants.jsonl")
BASH = shutil.which("bash")
GIT = shutil.which("git")
_IMPLANT_NAMES = (".envrc", "settings.json", "config")


def _world(base: Path) -> tuple[Path, Path]:
    """(home, ws) of the world the corpus header describes."""
    home, ws = base / "home", base / "ws"
    for d in (home, ws / "tpl" / ".claude", ws / "tpl" / "src", ws / "plain" / "lib", ws / "dd", ws / "sub"):
        d.mkdir(parents=True)
    for f, text in (("tpl/.envrc", "echo planted\n"), ("tpl/.claude/settings.json", "{}\n"),
                    ("tpl/src/a.py", "x = 1\n"), ("plain/a.py", "y = 2\n"), ("plain/lib/b.py", "z = 3\n"),
                    ("sub/f", "f\n")):
        (ws / f).write_text(text)
    if GIT:
        subprocess.run([GIT, "init", "-q", str(ws)], check=True)
        subprocess.run([GIT, "init", "-q", str(ws / "sub")], check=True)
    return home, ws


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    return _world(Path(os.path.realpath(tmp_path)))


def _files(ws: Path) -> set[str]:
    return {os.path.relpath(os.path.join(r, n), ws) for r, _, fs in os.walk(ws) for n in fs}


@pytest.mark.skipif(GIT is None, reason="git is not installed (the world is a repository)")
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_verdict_in_accept_edits(world, case: dict) -> None:
    home, ws = world
    verdict = Gate(ws, mode="accept-edits", home=home).check(case["cmd"]).to_json()
    assert (verdict["decision"] == "allow") == case["allow"], verdict


@pytest.mark.skipif(GIT is None, reason="git is not installed (the world is a repository)")
@pytest.mark.parametrize("case", [c for c in CASES if not c["allow"]], ids=[c["id"] for c in CASES
                                                                          if not c["allow"]])
def test_refusal_names_the_landed_write(world, case: dict) -> None:
    """The refusal is a sensitive write below the destination, reported at a word of the line."""
    home, ws = world
    result = analyse(case["cmd"], Context(ws, ws, home))
    writes = [h for h in result.sensitive if h.op.value == "write" and h.span is not None]
    assert writes, result.sensitive
    assert all(0 <= h.span[0] < h.span[1] <= len(case["cmd"]) for h in writes)


@pytest.mark.skipif(BASH is None or GIT is None, reason="bash or git is not installed")
@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_effect_with_real_bash(world, case: dict) -> None:
    home, ws = world
    before = _files(ws)
    subprocess.run([BASH, "-c", case["cmd"]], cwd=ws, capture_output=True, timeout=30, check=False,
                   env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "PWD": str(ws)})
    new = _files(ws) - before
    if case["allow"]:
        assert not {p for p in new if p.rsplit("/", 1)[-1] in _IMPLANT_NAMES}, new
    else:
        assert case["lands"] in new, f"{case['lands']} was not created: {sorted(new)[:20]}"


def test_past_the_bound_fails_closed(world) -> None:
    """A tree with more entries than the walk reads may hold anything: the write asks."""
    from shellgate.bash.paths import landing

    home, ws = world
    big = ws / "big"
    big.mkdir()
    for i in range(landing.MAX_ENTRIES + 1):
        (big / f"f{i}").touch()
    verdict = Gate(ws, mode="accept-edits", home=home).check("cp -r big big2").to_json()
    assert verdict["decision"] != "allow", verdict
    assert any("not all of the names" in s["pattern"] for s in verdict["sensitive"]), verdict


def test_corpus_covers_both_sides() -> None:
    assert sum(1 for c in CASES if c["allow"]) >= 6 and sum(1 for c in CASES if not c["allow"]) >= 12
