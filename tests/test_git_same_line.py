"""git's read forms after a write of the same line (corpus/git_same_line.jsonl).

The configuration check reads the repository as it is before the line runs; a plain write
earlier in the line (allowed in accept-edits) may plant a config file, an included file or a
whole bare repository that the git command then obeys. Such a git command is not read-only;
writes elsewhere leave it so. Real bash and git are the oracle: each line runs in a copy of the
workspace, and a line that touches the canary must not have been allowed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.check import Gate

CASES = load("git_same_line.jsonl")
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="no git")


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict:
    base = Path(os.path.realpath(tmp_path_factory.mktemp("gitsameline")))
    home, ws = base / "home", base / "ws"
    home.mkdir()
    prog = base / "prog"
    prog.write_text('#!/bin/sh\n: > "$SG_CANARY"\nexit 0\n')
    prog.chmod(0o755)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x"}

    def git(*args: str, cwd: Path = base) -> None:
        subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)

    git("init", "-q", "-b", "main", str(ws))
    (ws / "a.txt").write_text("a\n")
    git("add", "a.txt", cwd=ws)
    git("commit", "-qm", "one", cwd=ws)
    (ws / "a.txt").write_text("a changed\n")
    (ws / "inc.cfg").write_text("")
    git("config", "include.path", "../inc.cfg", cwd=ws)
    git("clone", "-q", "--bare", str(ws), str(ws / "vendor" / "lib"))
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ws, env=env, check=True, capture_output=True,
                          text=True).stdout.strip()
    return {"base": base, "home": home, "ws": ws, "env": env, "prog": str(prog), "head": head}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:60])
def test_git_after_a_write_of_the_same_line(world: dict, case: dict, tmp_path: Path) -> None:
    cmd = (case["cmd"].replace("$PROG", world["prog"]).replace("$HEAD", world["head"])
           .replace("$OBJECTS", str(world["ws"] / ".git" / "objects")))
    verdict = Gate(world["ws"], mode="accept-edits", home=world["home"]).check(cmd)
    assert (verdict.decision == "allow") == case["allow"], verdict.to_json()
    copy = tmp_path / "ws"  # the same repositories, in a place the line may change
    shutil.copytree(world["ws"], copy, symlinks=True)
    canary = tmp_path / "canary"
    subprocess.run(["bash", "-c", cmd], cwd=copy, env={**world["env"], "SG_CANARY": str(canary)},
                   capture_output=True, stdin=subprocess.DEVNULL, check=False)
    assert canary.exists() == case["fires"], "the fires label disagrees with real git"
    assert not (canary.exists() and verdict.decision == "allow")
