"""A write-grant hook line's marks (the protected paths that did not exist, ``ANCHOR//REST``)
reach its undo watcher and its own undo step exactly, whatever the workspace is called:
spaces, quotes, ``$``, newlines (corpus/watch_marks.jsonl). They are spelled once in the line
(sandbox/enforce._marks), so the watcher and the undo cannot be handed different words.

Each case runs the real line in bash and zsh: the command writes ``.envrc``, the watcher's
argv is read from /proc while the sandbox waits, then the line either ends (its own undo
removes ``.envrc`` and names it on stderr) or its process group is killed (the watcher does)."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
from pathlib import Path

import pytest
from conftest import load

from tests.test_hooks_enforce import SHELLS
from tests.test_undo_watch import BWRAP, WAIT, _read_fifo, _started, _wait_gone, _watcher_of, _world

CASES = load("watch_marks.jsonl")
needs_bwrap = pytest.mark.skipif(not BWRAP, reason="the hook tier here is not bwrap")


def _expected_marks(world: dict) -> list[str]:
    """The marks the line is built with (bwrap.unbound of the same policy, same environment)."""
    from shellgate.sandbox.bwrap import unbound
    from shellgate.sandbox.locations import grant_policy

    old = dict(os.environ)
    os.environ.clear()
    os.environ.update(world["env"])
    try:
        policy, _ = grant_policy(world["work"], write=True, network=False, home=world["home"])
        return unbound(policy)
    finally:
        os.environ.clear()
        os.environ.update(old)


def _line(world: dict) -> str:
    from tests.test_hooks_enforce import confined_line

    return confined_line(world, "echo evil > .envrc; echo ready > ready; read x < go", "write")


@needs_bwrap
@pytest.mark.parametrize("case", CASES, ids=lambda c: c["why"])
def test_marks_are_spelled_once(tmp_path: Path, case: dict) -> None:
    """Every mark's quoted word occurs once in the line (it used to be three times: the
    watcher's arguments, the existence check, the undo's arguments)."""
    world = _world(tmp_path / case["name"])
    line = _line(world)
    marks = _expected_marks(world)
    assert f"{world['work']}//.envrc" in marks
    for mark in marks:   # as a whole word: `.codex` is also the start of `.codex/config.toml`
        assert len(re.findall(f"(?<= ){re.escape(shlex.quote(mark))}(?=[ ;])", line)) == 1, mark


@needs_bwrap
@pytest.mark.parametrize("ending", ["ends", "group killed"])
@pytest.mark.parametrize("shell", SHELLS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c["why"])
def test_marks_round_trip(tmp_path: Path, case: dict, shell: str, ending: str) -> None:
    world = _world(tmp_path / case["name"])
    work = world["work"]
    line = _line(world)
    marks = _expected_marks(world)
    with _started(world, shell, line) as proc:
        assert _read_fifo(work / "ready") == b"ready\n"
        assert (work / ".envrc").exists()
        watcher = _watcher_of(proc.pid)
        argv = Path(f"/proc/{watcher}/cmdline").read_bytes().split(b"\0")[:-1]
        got = [os.fsdecode(a) for a in argv[argv.index(b"--") + 1:]]
        assert got == marks
        if ending == "ends":
            (work / "go").write_text("x\n")
            assert proc.wait(timeout=WAIT) == 0
        else:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        _wait_gone(watcher)
    assert not (work / ".envrc").exists()
    assert not (world["root"] / "pwned").exists() and not (work / "pwned").exists()


@needs_bwrap
@pytest.mark.parametrize("case", CASES, ids=lambda c: c["why"])
def test_undo_names_the_exact_path(tmp_path: Path, case: dict) -> None:
    """The line's own undo reports the path it removed, byte for byte, on stderr."""
    world = _world(tmp_path / case["name"])
    from tests.test_hooks_enforce import confined_line

    line = confined_line(world, "echo evil > .envrc", "write")
    p = subprocess.run(["bash", "-c", line], cwd=world["work"], env=world["env"],
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=WAIT)
    assert p.returncode == 0, p.stderr
    path = f"{world['work']}/.envrc"
    assert f"write to protected path {path} was removed".encode() in p.stderr
    assert not os.path.lexists(path)
