"""The terminal approver on a real pseudo-terminal: ``shellgate run`` asks, and the answer counts.

Each test starts ``python -m shellgate run -- CMD`` as the session leader of a new pty
(``pty.fork``), reads what it prints there, types the answers after each ``> `` and checks the
effect on a throwaway workspace. The approver opens ``os.ctermid()`` the way it would under a
person's terminal: a text-mode ``"r+"`` open raised ``io.UnsupportedOperation`` there, so the
gate used to say "no terminal to ask on" and never asked.
"""

from __future__ import annotations

import os
import pty
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs pty.fork")


def drive(argv: list[str], answers: list[str], cwd: Path, env: dict[str, str]) -> tuple[str, int]:
    """Run ``argv`` on a new pty; type one answer after each ``> `` prompt, then ^D (end of
    file) to any further one. Returns (everything the terminal showed, exit code)."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: never return into pytest
        try:
            os.chdir(cwd)
            os.execve(sys.executable, [sys.executable, "-m", "shellgate", *argv], env)
        finally:
            os._exit(127)
    out, pending = b"", list(answers)
    seen = 0
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        out += data
        while out.count(b"> ", seen) > 0:
            seen = out.index(b"> ", seen) + 2
            # answers used up: end-of-file (^D), so an unexpected prompt denies, never hangs
            os.write(fd, pending.pop(0).encode() + b"\n" if pending else b"\x04")
    os.close(fd)
    _, status = os.waitpid(pid, 0)
    return out.decode("utf-8", "replace"), os.waitstatus_to_exitcode(status)


@pytest.fixture
def place(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A workspace and an environment whose HOME, config, approvals and audit are private."""
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("canary-key\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "SHELLGATE"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_STATE_HOME=str(home / ".state"), XDG_DATA_HOME=str(home / ".data"),
               XDG_CACHE_HOME=str(home / ".cache"), NO_COLOR="1", TERM="dumb")
    return ws, env


def test_allow_once_runs_it(place: tuple[Path, dict[str, str]]) -> None:
    ws, env = place
    out, code = drive(["run", "--", "touch x"], ["y"], ws, env)
    assert "[y] allow once  [a] always allow  [n] deny" in out, out
    assert "no terminal" not in out
    assert code == 0 and (ws / "x").exists(), out


def test_deny_does_not_run_it(place: tuple[Path, dict[str, str]]) -> None:
    ws, env = place
    out, code = drive(["run", "--", "touch x"], ["n"], ws, env)
    assert code == 4 and not (ws / "x").exists(), out
    assert "denied by the user" in out


def test_always_is_remembered(place: tuple[Path, dict[str, str]]) -> None:
    ws, env = place
    out, code = drive(["run", "--", "touch x"], ["a"], ws, env)
    assert code == 0 and (ws / "x").exists(), out
    (ws / "x").unlink()
    out, code = drive(["run", "--", "touch x"], [], ws, env)  # no prompt: the store allows it
    assert "> " not in out and code == 0 and (ws / "x").exists(), out


def test_unknown_answers_then_eof_deny(place: tuple[Path, dict[str, str]]) -> None:
    ws, env = place
    out, code = drive(["run", "--", "touch x"], ["maybe", "s", "nope"], ws, env)
    assert code == 4 and not (ws / "x").exists(), out
    assert out.count("answer y/a/n") == 3, out  # "s" (this session) is not offered by run


def test_dangerous_path_offers_once_or_deny(place: tuple[Path, dict[str, str]]) -> None:
    ws, env = place
    out, code = drive(["run", "--", "cat ~/.ssh/id_rsa"], ["a", "y"], ws, env)
    assert "[y] allow once  [n] deny" in out and "always allow" not in out, out
    assert "answer y/n" in out  # "a" was refused, "y" taken
    assert "not run" not in out and code != 4, out  # it ran (the sandbox may still mask the key)
    out, code = drive(["run", "--", "cat ~/.ssh/id_rsa"], ["n"], ws, env)  # nothing remembered
    assert "> " in out and code == 4, out


def test_control_sequences_are_shown_not_obeyed(place: tuple[Path, dict[str, str]]) -> None:
    ws, env = place
    (ws / "src").mkdir()
    cmd = "rm -rf src #\x1b[1A\x1b[2K\rls -la"
    out, code = drive(["run", "--", cmd], ["n"], ws, env)
    assert "\x1b" not in out and "\r\x1b" not in out, repr(out)
    # the command is shown whole, its \r and escapes in plain sight
    assert "rm -rf src #\\x1b[1A\\x1b[2K\\rls -la" in out, out
    assert code == 4 and (ws / "src").is_dir()
