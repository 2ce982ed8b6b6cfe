"""Readers that printed a secret the gate never saw: tar's option lines in a ``-T`` list, rg's
walk (non-hidden secrets, and hidden ones a glob, type or ignore file whitelists), and links in
the directories a walk skips (``node_modules``, ``.venv``, ``.git``) for readers that follow
them. Each case of corpus/archive_walk_leaks.jsonl is decided in a fresh workspace and HOME,
and then run for real by bash there: a refused "leak" case must print the canary (the refusal
is about a real leak), and an allowed case must print none and, under ``strace -f``, run no
other program, write nothing and connect nowhere (tests/test_readers_strace.py's ``_effects``).
A case is skipped, with the reason, when its program is missing."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest
from conftest import load
from test_readers_strace import STRACE, traced_effects

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

CASES = load("archive_walk_leaks.jsonl")
CANARY = "CANARY-"


def _ids(case: dict) -> str:
    return case["cmd"][:60]


def _place(base: Path, home: Path, name: str) -> Path:
    return home / name[2:] if name.startswith("~/") else base / name


def _setup(tmp: Path, case: dict) -> tuple[Path, Path]:
    """A workspace (with a.txt and x.tar holding it) and a HOME holding an SSH key and AWS
    credentials, then the case's own files and links."""
    ws, home = tmp / "ws", tmp / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".aws").mkdir()
    (home / ".ssh" / "id_rsa").write_text("CANARY-ssh-key\n")
    (home / ".aws" / "credentials").write_text("[default]\naws_secret_access_key=CANARY-aws\n")
    ws.mkdir()
    (ws / "a.txt").write_text("hello\n")
    with tarfile.open(ws / "x.tar", "w") as t:
        t.add(ws / "a.txt", arcname="a.txt")
    for name, text in case.get("files", {}).items():
        path = _place(ws, home, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace("~/", f"{home}/"))
    for name, target in case.get("links", {}).items():
        path = ws / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(_place(ws, home, target) if target.startswith("~/") else target)
    return ws, home


def _program(case: dict) -> str:
    return case["cmd"].split("|")[-1].split()[0]


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_verdict(case: dict, tmp_path: Path) -> None:
    ws, home = _setup(tmp_path, case)
    a = analyse(case["cmd"], Context(cwd=ws, workspace=ws, home=home))
    assert a.readonly == case["readonly"], [r.message for r in a.reasons]
    if not case["readonly"]:
        assert a.reasons and all(r.message for r in a.reasons)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_real_program(case: dict, tmp_path: Path) -> None:
    """The oracle: what the command really prints, and (allowed) really does."""
    program = _program(case)
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    ws, home = _setup(tmp_path, case)
    env = {**os.environ, "HOME": str(home), "RIPGREP_CONFIG_PATH": ""}
    run = subprocess.run(["bash", "-c", case["cmd"]], cwd=ws, env=env, capture_output=True, text=True,
                         timeout=30, stdin=subprocess.DEVNULL)
    printed = run.stdout + run.stderr
    if case.get("leak"):
        assert CANARY in printed, printed
    elif case["readonly"]:
        assert CANARY not in printed, printed
        if STRACE is None:
            pytest.skip("strace is not installed")
        argv = [str(shutil.which(program)), *_argv(case["cmd"])]
        assert traced_effects(argv, program, tmp_path / "trace", cwd=ws, env=env) == []


def _argv(cmd: str) -> list[str]:
    return shlex.split(cmd)[1:]
