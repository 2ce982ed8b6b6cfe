"""Where the gate's cwd is not the one a command runs in, and a glob operand's matches (corpus/red7.jsonl).

``find -execdir``/``-okdir`` runs its command in the directory of each file found. The gate
took the line's cwds for it: ``$PWD`` and ``$(pwd)`` there were a known clean word
(``spec.known_texts``), so ``find src -name '*.py' -execdir sh -c 'find $PWD -maxdepth 0' \\;``
was allowed, and a found directory named ``src/ -exec touch PWNED ;`` split ``$PWD`` into
find's expression, which ran touch; and a relative write was taken as one inside the
workspace, so accept-edits let ``find OUT -name f -execdir rm f \\;`` delete under OUT.
``classify.command_cwds`` now gives a command nested under ``-execdir``/``-okdir`` no known cwd.

shellcheck looks for ``.shellcheckrc`` from each script's real directory. For a glob operand the
gate took the pattern's directory, so ``shellcheck -a *.sh`` matching a link ``run.sh`` whose
target sits beside an rc with ``external-sources=true`` read no rc of concern, and shellcheck
followed the script's ``source`` to the key and printed it. The links in a glob's directory
now add their targets' directories to the rc search.

Each row: the verdict in balanced and accept-edits mode (Gate, and the Claude Code hook), the
word a refusal names, and the row run for real by bash in a scratch base, where ``harm``
happens exactly when the row is refused.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.check import Gate
from shellgate.integrations import claude_code
from shellgate.integrations.hookio import evaluate

ROWS = load("red7.jsonl")
BASH = shutil.which("bash")
MODES = (("balanced", "balanced", "default"), ("accept", "accept-edits", "acceptEdits"))


def _ids(row: dict) -> str:
    return f"{row['kind']}:{row['cmd'][:60]}"


def _base(tmp_path: Path, row: dict) -> tuple[Path, Path, Path, str]:
    """The scratch base with the row's tree and links: (ws, home, base, command)."""
    base = tmp_path / "b"
    for sub in ("ws", "home", "out"):
        (base / sub).mkdir(parents=True)
    for rel, text in row.get("tree", {}).items():
        path = base / rel
        if rel.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace("@BASE@", str(base)))
    for rel, target in row.get("links", {}).items():
        (base / rel).symlink_to(target)
    return base / "ws", base / "home", base, row["cmd"].replace("@BASE@", str(base))


def _names_word(cmd: str, row: dict, reasons) -> bool:
    spans = [cmd[r.span[0]:r.span[1]] for r in reasons if r.span]
    # a nested script's spans are the whole word it came from (`sh -c '…'`)
    return any(s == row["word"] or (row["word"] in s and s != cmd) for s in spans)


@pytest.mark.parametrize("row", ROWS, ids=_ids)
def test_gate(row: dict, tmp_path: Path) -> None:
    ws, home, _, cmd = _base(tmp_path, row)
    for key, mode, _ in MODES:
        v = Gate(ws, mode=mode, home=home, terminal=False).check(cmd, cwd=ws)
        assert (v.decision == "allow") == row[key], (mode, v.to_json())
        if not row[key]:
            assert _names_word(cmd, row, v.analysis.reasons), (mode, v.to_json())


@pytest.mark.parametrize("row", ROWS, ids=_ids)
def test_hook(row: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws, home, _, cmd = _base(tmp_path, row)
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    monkeypatch.setenv("HOME", str(home))
    for var, sub in (("XDG_CONFIG_HOME", ".config"), ("XDG_STATE_HOME", ".local/state"),
                     ("XDG_CACHE_HOME", ".cache")):
        monkeypatch.setenv(var, str(home / sub))
    for key, _, permission in MODES:
        payload = {"session_id": f"red7-{key}", "transcript_path": "/nonexistent", "cwd": str(ws),
                   "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": "t",
                   "tool_input": {"command": cmd}, "permission_mode": permission}
        out = evaluate(claude_code.SPEC, json.dumps(payload))
        assert out is not None
        assert (out.decision == "allow") == row[key], (key, out)


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("row", [r for r in ROWS if "noeffect" not in r], ids=_ids)
def test_effect(row: dict, tmp_path: Path) -> None:
    """The oracle: real bash (and find, sh, rm, shellcheck) in the scratch base does the row's
    harm exactly when the gate refuses the row."""
    if row["kind"] == "shellcheck" and shutil.which("shellcheck") is None:
        pytest.skip("shellcheck is not installed")
    ws, home, base, cmd = _base(tmp_path, row)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "PWD": str(ws)}
    res = subprocess.run([BASH, "-c", cmd], cwd=ws, env=env, capture_output=True, text=True,
                         timeout=60, stdin=subprocess.DEVNULL)
    harm = row["harm"]
    if "created" in harm:
        done = (base / harm["created"]).exists()
    elif "deleted" in harm:
        done = not (base / harm["deleted"]).exists()
    else:
        done = harm["stdout"] in res.stdout
    assert done == (not row["accept"]), (res.stdout, res.stderr)
