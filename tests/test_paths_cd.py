"""Paths reached through a ``cd`` (corpus/paths_cd.jsonl) are sensitive hits like any other.

The path scan resolves relative words against the context's cwd; the read-only check scans
again from every directory a ``cd`` may lead to. What that second scan finds is a sensitive hit
of the analysis — so ``cd ~/.aws && cat credentials`` is a forced prompt in every mode (trust
included, never remembered), not a plain exec. Real bash is the oracle for what prints a secret.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.check import Gate

CASES = load("paths_cd.jsonl")
CANARY = "CANARY-cd-3b1f"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = Path(os.path.realpath(tmp_path_factory.mktemp("pathscd")))
    home, ws = base / "home", base / "ws"
    for rel in (".aws/credentials", ".config/gh/hosts.yml"):
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(f"{CANARY}\n")
    (ws / "docs").mkdir(parents=True)
    (ws / "docs" / "guide.md").write_text("guide\n")
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    return ws, home


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"])
def test_a_path_behind_a_cd_is_a_sensitive_hit(world: tuple[Path, Path], case: dict) -> None:
    ws, home = world
    verdict = Gate(ws, mode="trust", home=home).check(case["cmd"])
    classes = {h.cls.value for h in verdict.analysis.sensitive}
    if case["hit"] is None:
        assert not classes and verdict.decision == "allow", verdict.to_json()
    else:
        assert case["hit"] in classes, verdict.to_json()
        assert verdict.decision == "ask" and verdict.rule == "approval.dangerous_path", verdict.to_json()


@pytest.mark.parametrize("case", [c for c in CASES if c["hit"] != "implant"], ids=lambda c: c["cmd"])
def test_leak_label_agrees_with_bash(world: tuple[Path, Path], case: dict) -> None:
    ws, home = world
    run = subprocess.run(["bash", "-c", case["cmd"]], cwd=ws, capture_output=True, text=True,
                         env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home)},
                         stdin=subprocess.DEVNULL)
    assert (CANARY in run.stdout) == case["leak"], run.stdout + run.stderr
    assert case["hit"] or not case["leak"]
