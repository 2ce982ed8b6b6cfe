"""The files a git config includes, followed from every config file of the repository
(corpus/red8.jsonl): a linked worktree's ``.git/worktrees/<id>/config.worktree`` and a
submodule's ``.git/modules/<name>/config`` are read by git when it runs there, includes and all.
The gate followed the includes of the cwd's own worktree only, so ``cat mcreds`` was allowed and
printed the header git sends for the submodule, and a confined python3 read it in both tiers.

Each line runs as test_secret_files.py runs its own (the verdict, real bash, both sandbox
tiers, a confined reader for the refused ones); real git is the oracle that it reads the line's
canary from that file (``oracle``: where it runs).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import test_cfg_secrets as cs
import test_secret_files as sf
from conftest import load

CASES = load("red8.jsonl")
pytestmark = pytest.mark.usefixtures("no_leaked_sandboxes")


@pytest.mark.parametrize("case", CASES, ids=sf._ids)
def test_verdict(case: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sf.test_verdict(case, tmp_path, monkeypatch)


@pytest.mark.skipif(sf.BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("case", CASES, ids=sf._ids)
def test_real_bash(case: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sf.test_real_bash(case, tmp_path, monkeypatch)


@pytest.mark.parametrize("case", [c for c in CASES if "oracle" in c], ids=sf._ids)
def test_git_reads_the_included_file(case: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Real git, run in the submodule or linked worktree, takes its configuration from the
    included file: the canary (or the plain marker) is in ``git config --list --show-origin``."""
    w = sf._world(tmp_path, case, monkeypatch)
    out = subprocess.run([sf.GIT or "git", "config", "--list", "--show-origin"], cwd=w["ws"] / case["oracle"],
                         capture_output=True, text=True, timeout=30, check=True,
                         env={**sf._ENV, "HOME": str(w["home"]), "XDG_CONFIG_HOME": str(w["cfg"])}).stdout
    marker, name = "CANARY" if case["leak"] else "PLAIN", Path(case["cmd"].split()[-1]).name
    assert any(marker in line and name in line for line in out.splitlines()), out


@pytest.mark.skipif(sf.BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("tier", ["bwrap", "landlock"])
@pytest.mark.parametrize("case", CASES, ids=sf._ids)
def test_in_the_sandbox(case: dict, tier: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sf.test_in_the_sandbox(case, tier, tmp_path, monkeypatch)


@pytest.mark.skipif(cs.PYTHON is None, reason="python3 is not on PATH")
@pytest.mark.parametrize("tier", ["bwrap", "landlock"])
@pytest.mark.parametrize("case", [c for c in CASES if c["refuse"] and "$" not in c["cmd"]], ids=sf._ids)
def test_confined_reader_sees_no_canary(case: dict, tier: str, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    cs.test_confined_reader_sees_no_canary(case, tier, tmp_path, monkeypatch)
