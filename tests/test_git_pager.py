"""git's pager keys (``core.pager``, ``pager.<cmd>``) run a program only when git's stdout is a
terminal: ``corpus/git_pager.jsonl`` runs each line for real on a pty that is the controlling
terminal, in a repository whose global ``core.pager`` touches a canary, and checks that what
shellgate clears (no pager finding) never started the pager. With ``Context.terminal`` false —
BashTool's runner: pipes, a session of its own — no line starts it and every line is cleared.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import CORPUS

from shellgate.approval import Engine
from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

LINES = [json.loads(x) for x in (CORPUS / "git_pager.jsonl").read_text().splitlines()
         if x.strip() and not x.startswith("//")]
pytestmark = pytest.mark.skipif(shutil.which("setsid") is None or shutil.which("git") is None,
                                reason="needs git and util-linux setsid (-c: a controlling terminal)")


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, Path, Path]:
    home, ws, canary = tmp_path / "home", tmp_path / "ws", tmp_path / "paged"
    home.mkdir()
    ws.mkdir()
    (home / ".gitconfig").write_text(f"[core]\n\tpager = touch {canary}; cat >/dev/null\n"
                                     "[user]\n\tname = t\n\temail = t@x\n")
    env = _env(home)
    for args in (["init", "-q"], ["commit", "-q", "--allow-empty", "-m", "one"]):
        subprocess.run(["git", *args], cwd=ws, env=env, check=True, capture_output=True)
    (ws / "tty-link").symlink_to("/dev/tty")
    return ws, home, canary


def _env(home: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "TERM": "xterm",
            "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"}


def _run_on_a_terminal(cmd: str, cwd: Path, home: Path) -> None:
    """``bash -c cmd`` with stdin, stdout and stderr a pty that is its controlling terminal."""
    master, slave = os.openpty()
    try:
        p = subprocess.Popen(["setsid", "-c", "bash", "-c", cmd], cwd=cwd, env=_env(home),
                             stdin=slave, stdout=slave, stderr=slave, close_fds=True)
        os.close(slave)
        slave = -1
        while True:   # drain the terminal until every holder of the slave is gone
            ready, _, _ = select.select([master], [], [], 30)
            if not ready:
                p.kill()
                break
            try:
                if not os.read(master, 65536):
                    break
            except OSError:   # EIO: the slave side is closed
                break
        p.wait(timeout=30)
    finally:
        os.close(master)
        if slave >= 0:
            os.close(slave)


def _pager_findings(cmd: str, ws: Path, home: Path, terminal: bool = True) -> list[str]:
    a = analyse(cmd, Context.here(cwd=str(ws), workspace=str(ws), home=str(home), terminal=terminal))
    return [r.message for r in a.reasons if "pager" in r.message]


def test_the_table_is_there() -> None:
    assert len(LINES) >= 20
    assert {(x["pager"], x["cleared"]) for x in LINES} == {(True, False), (False, True), (False, False)}


@pytest.mark.parametrize("line", LINES, ids=[x["cmd"] for x in LINES])
def test_cleared_means_no_pager_on_a_real_terminal(line: dict, repo) -> None:
    ws, home, canary = repo
    _run_on_a_terminal(line["cmd"], ws, home)
    assert canary.exists() is line["pager"], "the table's premise: git's own behaviour"
    cleared = not _pager_findings(line["cmd"], ws, home)
    assert cleared is line["cleared"], _pager_findings(line["cmd"], ws, home)
    assert not (cleared and canary.exists())


@pytest.mark.parametrize("line", LINES, ids=[x["cmd"] for x in LINES])
def test_without_a_terminal_no_pager_starts_and_every_line_is_cleared(line: dict, repo) -> None:
    ws, home, canary = repo
    subprocess.run(["bash", "-c", line["cmd"]], cwd=ws, env=_env(home), stdin=subprocess.DEVNULL,
                   capture_output=True, start_new_session=True, timeout=30)
    assert not canary.exists()
    assert not _pager_findings(line["cmd"], ws, home, terminal=False)


def test_the_engine_clears_pager_keys_only_when_told_there_is_no_terminal(repo) -> None:
    ws, home, _ = repo
    e = Engine(ws, "balanced", home=home, ask_as_deny=True)
    assert not e.decide_bash("git log -1").allowed()
    e.set_terminal(False)
    assert e.decide_bash("git log -1").allowed()
