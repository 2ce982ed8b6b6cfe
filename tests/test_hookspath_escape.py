"""The directory ``core.hooksPath`` names is an implant path, in every layer (corpus/hookspath_escapes.jsonl).

A repository with ``core.hooksPath = .husky`` (or any directory) runs the hooks there on the
user's next ``git commit`` — and ``post-index-change`` on a plain ``git status``. Each line
plants one: the classifier must ask (a forced prompt, trust mode included); the trust-mode
sandbox (bwrap, pre-spawned and fresh, and Landlock) must leave the directory as it was (a
hook's confined write-grant line too: tests/test_hooks_enforce.py); and then, checked from the
host, ``git status`` and ``git commit`` run nothing planted. Plain bash is the positive control:
there the canary appears.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from _helpers import hooks_state, hookspath_world, host_git
from _helpers import sandbox_or_skip as _sandbox
from conftest import load

from shellgate.check import Gate
from shellgate.sandbox import build_policy

CASES = load("hookspath_escapes.jsonl")
TIERS = ["bwrap", "bwrap-fresh", "landlock"]
pytestmark = pytest.mark.usefixtures("no_leaked_sandboxes")


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['hooks_path']}:{c['cmd'][:40]}")
def test_the_classifier_asks_in_every_mode(tmp_path: Path, case: dict) -> None:
    world = hookspath_world(tmp_path, case)
    for mode in ("trust", "accept-edits"):
        verdict = Gate(world["ws"], mode=mode, home=world["home"]).check(world["cmd"])
        assert verdict.decision == "ask" and "runs code later" in verdict.reason, verdict.to_json()


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['hooks_path']}:{c['cmd'][:40]}")
def test_the_trust_sandbox_keeps_the_hooks_directory(tmp_path: Path, case: dict, tier: str) -> None:
    world = hookspath_world(tmp_path, case)
    sb = _sandbox(tier)
    try:
        before = hooks_state(world, case)
        sb.run(world["cmd"], build_policy(world["ws"], home=world["home"]))
    finally:
        sb.close()
    assert hooks_state(world, case) == before
    host_git(world)
    assert not world["canary"].exists(), f"{tier}: the host's next git ran a planted hook"


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['hooks_path']}:{c['cmd'][:40]}")
def test_unconfined_the_planted_hook_runs(tmp_path: Path, case: dict) -> None:
    """The positive control: without confinement the same command plants a hook git runs."""
    world = hookspath_world(tmp_path, case)
    subprocess.run(["bash", "-c", world["cmd"]], cwd=world["ws"], capture_output=True,
                   stdin=subprocess.DEVNULL, check=True)
    host_git(world)
    assert world["canary"].exists()
