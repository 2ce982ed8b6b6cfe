"""/proc magic links (corpus/paths_proc.jsonl): a path through /proc/<pid>/{cwd,root,exe,fd/N,
map_files/X} is resolved the kernel's way for the command's own cwd and root, and fails closed
otherwise. The kernel is the oracle: lines with a "leak" label are run under real bash."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.bash.facts import Context, PathOp
from shellgate.bash.paths import resolve as paths
from shellgate.check import Gate

CASES = load("paths_proc.jsonl")
BASH = shutil.which("bash")
CANARY = "CANARY-proc-5e1a"
pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="no /proc")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = Path(os.path.realpath(tmp_path_factory.mktemp("proc")))
    home, ws = base / "home", base / "ws"
    for d in (home / ".ssh", home / ".aws", ws / "sub"):
        d.mkdir(parents=True)
    for f in (home / ".ssh" / "id_rsa", home / ".aws" / "credentials"):
        f.write_text(CANARY + "\n")
    for f in (ws / "README", ws / "notes"):
        f.write_text("plain\n")
    return home, ws


def _cmd(case: dict, home: Path) -> str:
    return case["cmd"].replace("/HOME/", f"{home}/")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"])
def test_magic_links(tree: tuple[Path, Path], case: dict) -> None:
    home, ws = tree
    verdict = Gate(ws, mode="balanced", home=home).check(_cmd(case, home), cwd=ws / "sub")
    assert bool(verdict.analysis.sensitive) == case["hit"], verdict.to_json()
    if case["hit"]:
        assert verdict.decision != "allow"


@pytest.mark.skipif(BASH is None, reason="no bash")
@pytest.mark.parametrize("case", [c for c in CASES if "leak" in c], ids=lambda c: c["cmd"])
def test_label_agrees_with_the_kernel(tree: tuple[Path, Path], case: dict) -> None:
    home, ws = tree
    run = subprocess.run([BASH or "bash", "-c", _cmd(case, home)], cwd=ws / "sub", capture_output=True,
                         text=True, stdin=subprocess.DEVNULL)
    assert (CANARY in run.stdout) == case["leak"], run.stdout + run.stderr
    assert case["hit"] or not case["leak"]


@pytest.mark.parametrize(("path", "op"), [("/proc/self/fd/7", PathOp.READ), ("/proc/2/cwd/x", PathOp.WRITE),
                                          ("/proc/self/task/1/root/etc/passwd", PathOp.WRITE)])
def test_file_tools_fail_closed(tree: tuple[Path, Path], path: str, op: PathOp) -> None:
    home, ws = tree
    assert paths.check_path(path, op, Context(ws, ws, home)) is not None
