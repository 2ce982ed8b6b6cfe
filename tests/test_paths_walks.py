"""Walks follow symlinks into secrets (corpus/paths_walks.jsonl): a recursive reader of a
directory holding a symlink that leads to a secret (a file, or a directory of credentials)
is a leak-class read, found within a bounded walk that fails closed when the bound is hit.
Real bash, grep, find and diff are the oracle for the lines with a "leak" label."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.bash.facts import PathClass
from shellgate.bash.paths import resolve as paths
from shellgate.check import Gate

CASES = load("paths_walks.jsonl")
BASH = shutil.which("bash")
CANARY = "CANARY-walk-93b0"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = Path(os.path.realpath(tmp_path_factory.mktemp("walks")))
    home, ws, elsewhere = base / "home", base / "ws", base / "elsewhere"
    for d in (home / ".ssh", home / ".aws", ws / "docs", ws / "cloud", ws / "vendor", ws / "plain",
              elsewhere / "app"):
        d.mkdir(parents=True)
    for f in (home / ".ssh" / "id_rsa", home / ".aws" / "credentials", elsewhere / "app" / ".env"):
        f.write_text(CANARY + "\n")
    (ws / "plain" / "a.md").write_text("hello\n")
    os.symlink("a.md", ws / "plain" / "b.md")
    os.symlink(home / ".ssh" / "id_rsa", ws / "docs" / "key.txt")
    os.symlink(home / ".aws", ws / "cloud" / "aws")
    os.symlink(elsewhere / "app", ws / "vendor" / "app")
    return home, ws


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"])
def test_walks_see_links_to_secrets(tree: tuple[Path, Path], case: dict) -> None:
    home, ws = tree
    verdict = Gate(ws, mode="balanced", home=home).check(case["cmd"], cwd=ws)
    leaks = [h for h in verdict.analysis.sensitive if h.cls is PathClass.LEAK]
    assert bool(leaks) == case["hit"], verdict.to_json()
    if case["hit"]:
        assert verdict.decision != "allow"


@pytest.mark.skipif(BASH is None, reason="no bash")
@pytest.mark.parametrize("case", [c for c in CASES if "leak" in c], ids=lambda c: c["cmd"])
def test_label_agrees_with_the_programs(tree: tuple[Path, Path], case: dict) -> None:
    home, ws = tree
    run = subprocess.run([BASH or "bash", "-c", case["cmd"]], cwd=ws, capture_output=True, text=True,
                         stdin=subprocess.DEVNULL, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
    assert (CANARY in run.stdout) == case["leak"], run.stdout + run.stderr
    assert case["hit"] or not case["leak"]


def test_a_walk_past_its_bound_fails_closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws = Path(os.path.realpath(tmp_path)) / "ws"
    (ws / "big").mkdir(parents=True)
    for k in range(40):
        (ws / "big" / f"f{k}.txt").write_text("x\n")
    gate = Gate(ws, mode="balanced", home=tmp_path / "home")
    assert gate.check("grep -R x big", cwd=ws).decision == "allow"
    monkeypatch.setattr(paths, "_MAX_WALK_ENTRIES", 30)
    verdict = gate.check("grep -R x big", cwd=ws)
    assert verdict.decision != "allow"
    assert any(h.pattern == paths.WALK_BOUND_PATTERN for h in verdict.analysis.sensitive), verdict.to_json()


def test_a_link_loop_ends(tmp_path: Path) -> None:
    ws = Path(os.path.realpath(tmp_path)) / "ws"
    (ws / "a").mkdir(parents=True)
    os.symlink(ws / "a", ws / "a" / "self")
    os.symlink(ws, ws / "a" / "up")
    home = Path(os.path.realpath(tmp_path)) / "home"
    assert Gate(ws, mode="balanced", home=home).check("grep -R x a", cwd=ws).decision == "allow"
