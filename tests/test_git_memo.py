"""git's discovery is remembered within one analysis and never across two (shellgate/bash/git/memo.py).

A command with several written paths asks the same questions of the disk for each; the answers
are kept while one command is analysed. The next check sees the disk as it is then: a
``core.hooksPath`` set between two checks makes the second one ask.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from shellgate.bash.git import config as gitconfig
from shellgate.bash.git import memo
from shellgate.check import Gate


def test_a_scope_remembers_and_nothing_outside_it():
    calls = []

    def compute():
        calls.append(1)
        return len(calls)

    assert memo.get("k", compute) == 1 and memo.get("k", compute) == 2   # no scope: each time
    with memo.scope():
        assert memo.get("k", compute) == 3 and memo.get("k", compute) == 3
        with memo.scope():                                                  # a scope of its own
            assert memo.get("k", compute) == 4
        assert memo.get("k", compute) == 3
    assert memo.get("k", compute) == 5


def test_an_exception_is_not_remembered():
    def boom():
        raise gitconfig.ConfigError("unreadable")

    with memo.scope():
        for _ in range(2):
            with pytest.raises(gitconfig.ConfigError):
                memo.get("bad", boom)
        assert memo.get("bad", lambda: "read") == "read"


def _git(ws: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=ws, check=True, capture_output=True,
                   env={"PATH": "/usr/bin:/bin", "HOME": str(ws.parent / "home"),
                        "GIT_CONFIG_NOSYSTEM": "1"})


def test_a_hooks_path_set_between_two_checks_is_seen_by_the_second(tmp_path: Path):
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    _git(ws, "init", "-q")
    gate = Gate(ws, mode="accept-edits", home=home)
    cmd = "echo x > .githooks/pre-commit; echo y > notes.txt; echo z > .githooks/post-merge"
    assert "runs code later" not in (gate.check(cmd).reason or "")
    _git(ws, "config", "core.hooksPath", ".githooks")
    verdict = gate.check(cmd)
    assert verdict.decision == "ask" and "runs code later" in verdict.reason, verdict.to_json()
    _git(ws, "config", "--unset", "core.hooksPath")
    assert "runs code later" not in (gate.check(cmd).reason or "")
