"""Words with run-time parts (corpus/runtime_words.jsonl): a word holding ``$(…)`` is dynamic
wherever it stands (a quoted ``"/$(…)"`` read by ``tree --fromfile``, ``git diff``, ``find
-files0-from``), and a glob that expands, in the command's cwd, to a word starting with ``-``
may become an option that reads a file (``diff *`` next to ``--from-file=.env.local``) — also a
name that an earlier command of the same line creates (``touch ./-r; diff *`` in accept-edits).
Real bash is the oracle: it says what the globs expand to and which lines print the canary."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.bash.parse.parser import parse
from shellgate.check import Gate

CASES = load("runtime_words.jsonl")
BASH = shutil.which("bash")
CANARY = "CANARY-opt-77c2"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = Path(os.path.realpath(tmp_path_factory.mktemp("runtime")))
    ws, home = base / "ws", base / "home"
    for d in (ws / "opt", ws / "plain", home):
        d.mkdir(parents=True)
    (ws / "opt" / "a.txt").write_text("a\n")
    (ws / "opt" / ".env.local").write_text(CANARY + "\n")
    (ws / "opt" / "--from-file=.env.local").write_text("x\n")
    (ws / "plain" / "a.txt").write_text("a\n")
    (ws / "plain" / "b.txt").write_text("b\n")
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text(CANARY + "\n")
    for d in ("docs", "docs2"):
        (ws / "walk" / d / "sub").mkdir(parents=True)
    (ws / "walk" / "docs" / "sub" / "key.txt").symlink_to(home / ".ssh" / "id_rsa")
    (ws / "walk" / "docs2" / "sub" / "key.txt").write_text("other\n")
    subprocess.run(["git", "init", "-q", str(ws)], check=False, capture_output=True)
    return ws, home


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['dir']}:{c['cmd']}")
def test_runtime_words(tree: tuple[Path, Path], case: dict) -> None:
    ws, home = tree
    verdict = Gate(ws, mode=case.get("mode", "balanced"), home=home).check(case["cmd"], cwd=ws / case["dir"])
    assert (verdict.decision == "allow") == case["allow"], verdict.to_json()


@pytest.mark.skipif(BASH is None, reason="no bash")
@pytest.mark.parametrize("case", [c for c in CASES if "leak" in c], ids=lambda c: f"{c['dir']}:{c['cmd']}")
def test_leak_label_agrees_with_bash(tree: tuple[Path, Path], case: dict, tmp_path: Path) -> None:
    ws, _home = tree
    here = tmp_path / case["dir"]  # a copy: the line may create files
    shutil.copytree(ws / case["dir"], here, symlinks=True)
    run = subprocess.run([BASH or "bash", "-c", case["cmd"]], cwd=here, capture_output=True,
                         text=True, stdin=subprocess.DEVNULL)
    assert (CANARY in run.stdout) == case["leak"], run.stdout + run.stderr
    assert not case["allow"] or not case["leak"]


@pytest.mark.skipif(BASH is None, reason="no bash")
@pytest.mark.parametrize("case", [c for c in CASES if "option" in c], ids=lambda c: f"{c['dir']}:{c['cmd']}")
def test_option_label_agrees_with_bash(tree: tuple[Path, Path], case: dict) -> None:
    """The glob words of the line, expanded by bash in the line's directory."""
    ws, _home = tree
    words = [w.raw for c in parse(case["cmd"]).commands for w in c.words[1:] if w.glob]
    script = "printf '%s\\n' " + " ".join(words)
    run = subprocess.run([BASH or "bash", "-c", script], cwd=ws / case["dir"], capture_output=True, text=True)
    assert any(line.startswith("-") for line in run.stdout.splitlines()) == case["option"], run.stdout
