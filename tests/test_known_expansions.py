"""Words whose expansions the gate knows, and loop headers read from the parse.

``$PWD``, ``${PWD}``, ``$(pwd)``, backquoted pwd and ``$HOME`` have values the gate knows (each
candidate cwd, the context's home): a word made only of them and literal text is one known word
(``spec.known_texts``) when those values are clean absolute paths, so ``find $PWD -type d`` or
``tree -dfi "$(pwd)"`` is no wilder than ``find . -type d``; the path scanner resolves
``$(pwd)`` exactly, like ``$PWD``. A loop assigns the name of its header as the parser read it
(``Script.loop_names``), not any ``for NAME`` in the text: ``rg "test for CLI" f`` assigns
nothing. The table is corpus/known_expansions.jsonl; allowed rows also run under strace.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load
from test_readers_strace import _CHANGE, _NSCD, _WRITE, EFFECT_SYSCALLS, STRACE

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

ROWS = load("known_expansions.jsonl")
ALLOWED = [r for r in ROWS if r["ro"]]
REFUSED = [r for r in ROWS if not r["ro"]]


def _scratch(base: Path) -> Context:
    ws, home = base / "ws", base / "home"
    (ws / "src").mkdir(parents=True)
    (home / "proj").mkdir(parents=True)
    (ws / "a.txt").write_text("hello\n")
    (ws / "src" / "x.py").write_text("# a test for CLI using mocks\n")
    return Context(cwd=ws, workspace=ws, home=home)


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> Context:
    return _scratch(tmp_path_factory.mktemp("known"))


def _ids(row: dict) -> str:
    return row["cmd"][:60]


@pytest.mark.parametrize("row", ALLOWED, ids=_ids)
def test_allowed(row: dict, ctx: Context) -> None:
    a = analyse(row["cmd"], ctx)
    assert a.readonly, [r.message for r in a.reasons]


@pytest.mark.parametrize("row", REFUSED, ids=_ids)
def test_refused_names_the_word(row: dict, ctx: Context) -> None:
    a = analyse(row["cmd"], ctx)
    assert not a.readonly
    spans = [row["cmd"][r.span[0]:r.span[1]] for r in a.reasons if r.span]
    # a nested script's spans are the whole word it came from (`bash -c '…'`)
    assert any(s == row["word"] or (row["word"] in s and s != row["cmd"]) for s in spans), \
        [(r.message, s) for r, s in zip(a.reasons, spans, strict=False)]


def _foreign(trace: str, allowed: set[str]) -> list[str]:
    """Effects beyond reading in ``trace``: an exec of a program not in ``allowed``, a write
    (but /dev/null), a change of the tree, an inet or unix connect."""
    out = []
    for line in trace.splitlines():
        m = re.search(r' execve\("([^"]*)"', line)
        foreign = m is not None and os.path.basename(m.group(1)) not in allowed
        writes = (" openat(" in line and _WRITE.search(line) and '"/dev/null"' not in line
                  and '"/dev/tty"' not in line)
        connects = " connect(" in line and ("AF_INET" in line or "AF_UNIX" in line) \
            and not _NSCD.search(line)
        if foreign or writes or connects or _CHANGE.match(line):
            out.append(line)
    return out


@pytest.mark.skipif(STRACE is None, reason="strace is not installed")
@pytest.mark.parametrize("row", ALLOWED, ids=_ids)
def test_allowed_only_reads(row: dict, tmp_path: Path) -> None:
    missing = [p for p in row["execs"] if shutil.which(p) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")
    c = _scratch(tmp_path)
    trace = tmp_path / "trace"
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(c.home),
           "XDG_CONFIG_HOME": str(c.home / ".config"), "PWD": str(c.cwd)}
    subprocess.run([STRACE, "-f", "-qq", "-o", str(trace), "-e", EFFECT_SYSCALLS,
                    "bash", "-c", row["cmd"]], cwd=c.cwd, env=env, capture_output=True,
                   timeout=30, stdin=subprocess.DEVNULL)
    lines = trace.read_text().splitlines()[1:]  # the first is strace's own exec of bash
    assert _foreign("\n".join(lines), {"bash", *row["execs"]}) == []


def test_unclean_cwd_splits_into_an_action(tmp_path: Path) -> None:
    """Why a cwd with a blank keeps ``$PWD`` unknown: unquoted, it splits, and find reads the
    second half as its expression. Run for real, ``find $PWD -name none`` in ``w -delete``
    deletes what lies in ``w``."""
    victim = tmp_path / "w"
    victim.mkdir()
    (victim / "kept").write_text("x")
    cwd = tmp_path / "w -delete"
    cwd.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    ctx = Context(cwd=cwd, workspace=cwd, home=home)
    cmd = "find $PWD -name none"
    a = analyse(cmd, ctx)
    assert not a.readonly
    assert any(r.span and cmd[r.span[0]:r.span[1]] == "$PWD" for r in a.reasons)
    subprocess.run(["bash", "-c", cmd], cwd=cwd, env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                                                       "HOME": str(home), "PWD": str(cwd)},
                   capture_output=True, timeout=30)
    assert not (victim / "kept").exists()


def test_loop_header_changes_the_command_run(tmp_path: Path) -> None:
    """Why an upper-case loop name is refused: the loop body runs with it set, and PATH picks
    another ``ls`` (here none)."""
    r = subprocess.run(["bash", "-c", "for PATH in /nonexistent; do ls; done"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 127, r.stderr
    r = subprocess.run(["bash", "-c", "echo 'for PATH in /nonexistent' | grep -c PATH"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=30)
    assert r.stdout.strip() == "1"
