"""Red-team round 4: words the gate never saw reach a read-only program as its options.

* ``xargs R`` appends words nobody checked. A reader with no unsafe option was let through, but
  an option of it may read a file (``du --files0-from=F`` prints F's text in its error) or it
  reads ``@FILE`` as a response file (``c++filt @.env`` prints the words of .env), so a tail is
  as unseen as a wild word (``spec._wild``): refused for those readers too.
* ``ps`` and ``printenv`` print what their words name (``ps e``, ``printenv GITHUB_TOKEN``); the
  environment check read only the static words, so ``echo e | xargs ps`` printed every
  process's environment.
* ``find -files0-from F -exec R {} +``: GNU find takes the start points read from F as written
  (``-o``, ``--files0-from=.env``: a file so named must exist) and hands them to R as ``{}``.

``corpus/red4.jsonl``: each line decided in one planted workspace (its header says what is
there); a "leak" line really prints a canary, a "writes" line really changes the file, and each
read-only line runs under ``strace -f`` with no effect and prints no canary. Skipped, with the
reason, where a program is missing.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load
from test_readers_strace import EFFECT_SYSCALLS, STRACE, _effects

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

CASES = load("red4.jsonl")
_EXEC = re.compile(r'execve\("[^"]*/([^"/]+)"')


def _plant(base: Path) -> tuple[Path, Path]:
    ws, home = base / "ws", base / "home"
    ws.mkdir()
    home.mkdir()
    (ws / ".env").write_text("API_KEY=CANARY-env\n")
    (ws / "a.txt").write_text("hello\n")
    (ws / "victim").write_text("precious\n")
    (ws / "names").write_text("--files0-from=.env\n")
    (ws / "list").write_bytes(b"--files0-from=.env\0")
    (ws / "list2").write_bytes(b"-o\0victim\0")
    (ws / "plain0").write_bytes(b"a.txt\0")
    (ws / "--files0-from=.env").touch()
    (ws / "-o").touch()
    return ws, home


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    return _plant(tmp_path)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:60])
def test_verdict(case: dict, tree: tuple[Path, Path]) -> None:
    ws, home = tree
    cmd = case["cmd"]
    a = analyse(cmd, Context(cwd=ws, workspace=ws, home=home, terminal=False))
    assert a.readonly == case["readonly"], [r.message for r in a.reasons]
    if not case["readonly"]:
        words = {cmd[r.span[0]:r.span[1]] for r in a.reasons if r.span is not None}
        assert any(case["word"] in w for w in words), ([r.message for r in a.reasons], words)


def _programs(cmd: str) -> set[str]:
    """The programs a line may run: every word that names an installed program."""
    return {w for w in cmd.split() if shutil.which(w)}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:60])
def test_real_program(case: dict, tree: tuple[Path, Path]) -> None:
    """The oracle: what the line really does in the planted workspace."""
    if STRACE is None:
        pytest.skip("strace is not installed")
    words = case["cmd"].split()
    missing = [p for p in ("du", "c++filt", "tree", "ps", "printenv", "find", "xargs")
               if p in words and shutil.which(p) is None]
    if missing:
        pytest.skip(f"{missing[0]} is not installed")
    ws, home = tree
    trace = ws.parent / "trace"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LC_ALL": "C",
           "AWS_SECRET_ACCESS_KEY": "CANARY-envvar"}
    run = subprocess.run([STRACE, "-f", "-qq", "-o", str(trace), "-e", EFFECT_SYSCALLS,
                          "bash", "-c", case["cmd"]], cwd=ws, env=env, capture_output=True, text=True,
                         timeout=60, stdin=subprocess.DEVNULL)
    out = run.stdout + run.stderr
    assert ("CANARY-" in out) == bool(case.get("leak")), out
    changed = (ws / "victim").read_text() != "precious\n"
    assert changed == (case.get("writes") == "victim"), (ws / "victim").read_text()
    if case["readonly"]:
        allowed = _programs(case["cmd"]) | {"bash"}
        lines = trace.read_text().splitlines()
        effects = [e for e in _effects("\n".join(lines), "bash")
                   if not ((m := _EXEC.search(e)) and m.group(1) in allowed)]
        assert effects == [], effects
