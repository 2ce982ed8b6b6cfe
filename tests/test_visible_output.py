"""Every text a person reads shows control characters, never obeys them (``shellgate._visible``).

Fed by ``corpus/display_escapes.jsonl``: each command carries a terminal control sequence, a
C1 control, a bidi override or an invisible character. For each output — the console prompt,
the MCP/adapter prompt text, hook reasons, ``check`` and ``explain`` human output, the
``audit`` table, ``run``'s refusal — the escaped spelling must appear and no unprintable
character but a newline may be printed.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import load

from shellgate._visible import visible
from shellgate.approval import render_prompt
from shellgate.check import Gate
from shellgate.integrations._shell import ShellResult
from shellgate.integrations.hookio import Outcome
from shellgate.permission import Prompt

CASES = load("display_escapes.jsonl")


def clean(out: str) -> bool:
    return all(ch.isprintable() or ch == "\n" for ch in out)


def _prompt(cmd: str, _ws: Path) -> str:
    return render_prompt(Prompt(tool="bash", summary=cmd, preview=cmd, warnings=(cmd,),
                                reason=cmd, remember=(cmd,)))


def _prompt_text(cmd: str, _ws: Path) -> str:
    return ShellResult(cmd, "needs_approval", "ask", cmd, (cmd,)).prompt_text()


def _hook_reason(cmd: str, _ws: Path) -> str:
    return Outcome("deny", cmd, warnings=(cmd,), details=(cmd,), approve_hint=cmd).text()


def _check(cmd: str, ws: Path) -> str:
    from shellgate.checkcli import run_one

    buf = io.StringIO()
    run_one(cmd, mode=None, cwd=str(ws), config=None, plan=False, as_json=False, out=buf)
    return buf.getvalue()


def _explain(cmd: str, ws: Path) -> str:
    from shellgate.render import print_explain

    buf = io.StringIO()
    print_explain(Gate(ws).check(cmd), file=buf)
    return buf.getvalue()


def _audit(cmd: str, ws: Path) -> str:
    from contextlib import redirect_stdout

    from shellgate.auditcli import show_audit

    log = ws / "audit.jsonl"
    log.write_text(json.dumps({"ts": "2026-01-01T00:00:00", "event": "decision",
                               "verdict": "deny", "rule": cmd, "command": cmd}) + "\n")
    buf = io.StringIO()
    with redirect_stdout(buf):
        show_audit(str(log), lines=10, decision=None, session=None, pattern=None, as_json=False)
    return buf.getvalue().replace("\t", " ")   # (not a terminal: the tabs between cells are ours)


def _run(cmd: str, ws: Path) -> str:
    from shellgate.tools.run_cli import run_command

    out, err = io.StringIO(), io.StringIO()
    run_command(f"false {cmd}", mode="strict", cwd=str(ws), approver=None, out=out, err=err)
    return err.getvalue()


OUTPUTS: dict[str, Callable[[str, Path], str]] = {
    "prompt": _prompt, "prompt_text": _prompt_text, "hook_reason": _hook_reason,
    "check": _check, "explain": _explain, "audit": _audit,
}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["why"][:30])
def test_visible_escapes(case: dict) -> None:
    shown = visible(case["cmd"])
    assert case["shown"] in shown and clean(shown)


@pytest.mark.parametrize("output", OUTPUTS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c["why"][:30])
def test_every_output_shows_controls(case: dict, output: str, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # the audit table must not fold the command
    out = OUTPUTS[output](case["cmd"], tmp_path)
    assert clean(out), repr(out)
    assert case["shown"] in out, out


def test_run_refusal_is_escaped(tmp_path: Path) -> None:
    """``run``'s "not run" line names the command through the engine's reason."""
    out = _run("> 'x\x1b[2K'", tmp_path)
    assert "not run" in out and clean(out), repr(out)


def test_printable_text_is_unchanged() -> None:
    text = "git log --oneline | grep 'fix: é ü 日本' \\n\ttab"
    assert visible(text) == text.replace("\t", "\\t")
    assert visible("a\nb\tc\rd", multiline=True) == "a\nb\tc\\rd"
    assert visible("a\nb") == "a\\nb"


def test_piped_audit_and_approvals_keep_every_cell_whole(tmp_path: Path) -> None:
    """Piped (no terminal), ``audit`` and ``approvals list`` print one tab-separated line per
    entry with nothing cut: a long command, the full timestamp — and controls still escaped."""
    import shutil
    import subprocess

    exe = shutil.which("shellgate") or "shellgate"
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "s"), "XDG_CONFIG_HOME": str(tmp_path / "c")}
    long_cmd = "git log --oneline " + " ".join(f"--grep=word{i}" for i in range(30)) + " #\x1b[2K"
    log = tmp_path / "s" / "shellgate" / "audit.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text(json.dumps({"ts": "2026-01-01T00:00:00.123Z", "event": "decision",
                               "verdict": "allow", "rule": "chain.mode_matrix",
                               "command": long_cmd}) + "\n")
    out = subprocess.run([exe, "audit"], env=env, capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[0].split("\t") == ["time", "event", "decision", "rule", "command", "exit"]
    assert lines[1].split("\t")[:5] == ["2026-01-01T00:00:00.123Z", "decision", "allow",
                                        "chain.mode_matrix", visible(long_cmd)]
    assert clean(out.replace("\t", " ")), repr(out)
    subprocess.run([exe, "approvals", "add", long_cmd.split(" #")[0]], env=env,
                   capture_output=True, check=True)
    out = subprocess.run([exe, "approvals", "list"], env=env, capture_output=True, text=True,
                         check=True).stdout
    row = out.splitlines()[1].split("\t")
    assert row[0] == "1" and row[2] == long_cmd.split(" #")[0], out
    assert subprocess.run([exe, "approvals", "revoke", "1"], env=env, capture_output=True).returncode == 0
