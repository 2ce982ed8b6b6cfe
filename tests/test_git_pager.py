"""git's pager keys (``core.pager``, ``pager.<cmd>``) run a program only when git's stdout is a
terminal: ``corpus/git_pager.jsonl`` runs each line for real on a pty that is the controlling
terminal, in a repository whose global ``core.pager`` touches a canary, and checks that what
shellgate clears (no pager finding) never started the pager; and again with the streams on pipes
and the pty only as the session's controlling terminal (``Context.terminal`` false: BashTool,
Claude Code's Bash tool), where only what reaches ``/dev/tty`` pages.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
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


def _run_on_pipes(cmd: str, cwd: Path, home: Path) -> None:
    """``cmd`` with stdin /dev/null and stdout, stderr pipes, in a session whose controlling
    terminal is a pty (as Claude Code's Bash tool runs it: no pty on its streams, but
    ``/dev/tty`` may open one)."""
    master, slave = os.openpty()
    try:
        subprocess.run(["setsid", "-c", "bash", "-c", 'exec </dev/null; eval "$0"', cmd], cwd=cwd,
                       env=_env(home), stdin=slave, capture_output=True, timeout=30, close_fds=True)
    finally:
        os.close(slave)
        os.close(master)


@pytest.mark.parametrize("line", LINES, ids=[x["cmd"] for x in LINES])
def test_on_pipes_only_dev_tty_pages_and_cleared_means_it_did_not(line: dict, repo) -> None:
    """``Context.terminal`` false (BashTool; a Claude Code hook): what the command's streams
    inherit is no terminal, but a redirect to ``/dev/tty`` still is one."""
    ws, home, canary = repo
    _run_on_pipes(line["cmd"], ws, home)
    assert canary.exists() is line["pipes_pager"], "the table's premise: git's own behaviour"
    cleared = not _pager_findings(line["cmd"], ws, home, terminal=False)
    assert cleared is line["pipes_cleared"], _pager_findings(line["cmd"], ws, home, terminal=False)
    assert not (cleared and canary.exists())


def test_the_engine_clears_pager_keys_only_when_told_there_is_no_terminal(repo) -> None:
    ws, home, _ = repo
    e = Engine(ws, "balanced", home=home, ask_as_deny=True)
    assert not e.decide_bash("git log -1").allowed()
    e.set_terminal(False)
    assert e.decide_bash("git log -1").allowed()


ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("agent,cmd,allowed", [
    ("claude-code", "git log -1", True),          # its Bash tool has no pty: no pager starts
    ("claude-code", "git log -1 >/dev/tty", False),
    ("codex", "git log -1", False),               # Codex may run a command on a pty
    ("codex", "git --no-pager log -1", True),
])
def test_a_hook_knows_whether_its_agent_gives_a_terminal(agent, cmd, allowed, repo, tmp_path) -> None:
    """Real hook payloads through ``python -m shellgate hook`` of this checkout, in the repo
    whose global ``core.pager`` runs a program."""
    ws, home, _ = repo
    payload = {"session_id": "s", "cwd": str(ws), "permission_mode": "default",
               "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "t1",
               "tool_input": {"command": cmd}}
    env = {**_env(home), "PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "XDG_STATE_HOME": str(tmp_path / "state")}
    p = subprocess.run([sys.executable, "-m", "shellgate", "hook", agent], input=json.dumps(payload),
                       capture_output=True, text=True, env=env, cwd=ws, timeout=60)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)["hookSpecificOutput"] if p.stdout.strip() else {}
    assert (out.get("permissionDecision") == "allow") is allowed, p.stdout
