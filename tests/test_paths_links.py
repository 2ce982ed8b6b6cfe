"""`..` after a symlink, on a real tree (corpus/paths_links.jsonl): the kernel follows a link and
then goes up from where it points, so ``awl/../credentials`` with ``awl -> ~/.aws/cli`` reads
``~/.aws/credentials`` although its normalised text is ``./credentials``. Bash's ``cd`` is the
exception (logical by default): a real bash says where each ``cd`` lands."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.bash.facts import Context, PathOp
from shellgate.bash.parse.parser import parse
from shellgate.bash.paths import resolve as paths
from shellgate.bash.readonly.classify import candidate_cwds
from shellgate.check import Gate

CASES = load("paths_links.jsonl")
BASH = shutil.which("bash")


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = Path(os.path.realpath(tmp_path_factory.mktemp("links")))
    home, ws = base / "home", base / "ws"
    for d in (home / ".aws" / "cli", home / ".ssh" / "sub", home / "proj" / "sub", ws / "src"):
        d.mkdir(parents=True)
    for f in (home / ".aws" / "credentials", home / ".ssh" / "id_rsa", ws / "README", ws / "credentials",
              ws / "notes", ws / "src" / "main.py"):
        f.write_text("x\n")
    for name, target in (("awl", home / ".aws" / "cli"), ("deep", home / "proj" / "sub"),
                         ("sshsub", home / ".ssh" / "sub")):
        os.symlink(target, ws / name)
    return home, ws


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.get('mode', '')}:{c['cwd']}:{c['cmd']}")
def test_dotdot_after_a_link(tree: tuple[Path, Path], case: dict) -> None:
    home, ws = tree
    cwd = ws / case["cwd"]
    if case.get("tool") == "read":
        hit = paths.check_path(case["cmd"], PathOp.READ, Context(cwd, ws, home))
        assert (hit is None) == case["allow"], hit
        return
    verdict = Gate(ws, mode=case.get("mode", "balanced"), home=home).check(case["cmd"], cwd=cwd).to_json()
    assert (verdict["decision"] == "allow") == case["allow"], verdict


@pytest.mark.skipif(BASH is None, reason="no bash")
@pytest.mark.parametrize("case", [c for c in CASES if "cd" in c], ids=lambda c: c["cd"])
def test_candidate_cwds_hold_where_bash_cd_lands(tree: tuple[Path, Path], case: dict) -> None:
    """Bash's $PWD after the cd (logical) and the kernel's cwd (physical) are both covered: the
    scan resolves every candidate, so its physical cwd is the realpath of one of them."""
    home, ws = tree
    cwd = ws / case["cwd"]
    out = subprocess.run([BASH, "-c", case["cd"] + ' && printf "%s\\n" "$PWD" "$(pwd -P)"'], cwd=cwd,
                         capture_output=True, text=True, timeout=10, check=True,
                         env={"PATH": os.environ.get("PATH", ""), "PWD": str(cwd), "HOME": str(home)})
    logical, physical = out.stdout.splitlines()
    cwds = candidate_cwds(parse(case["cmd"]), Context(cwd, ws, home))
    assert cwds is not None
    assert logical in {str(c) for c in cwds}, cwds
    assert physical in {os.path.realpath(c) for c in cwds}, cwds


def test_corpus_covers_both_sides() -> None:
    assert sum(1 for c in CASES if c["allow"]) >= 8 and sum(1 for c in CASES if not c["allow"]) >= 20
    assert sum(1 for c in CASES if "cd" in c) >= 10
