"""The sensitive-path table follows the XDG variables: an entry under ``~/.config`` (gh's
token, shellgate's own rules and approvals) or ``~/.local/state`` (the audit log) also names the
same file where ``XDG_CONFIG_HOME``/``XDG_STATE_HOME`` move that base, for the classifier and for
the sandbox's masks. Before, ``cat ~/cfg/gh/hosts.yml`` was read-only with
``XDG_CONFIG_HOME=~/cfg``, and shellgate's relocated approvals were writable in accept-edits."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from shellgate._xdg import moved_xdg
from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "xdg_moved.jsonl"
ROWS = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    h = tmp_path / "home"
    for rel, text in (("cfg/shellgate/rules.toml", "x = 1\n"), ("cfg/gh/hosts.yml", "oauth_token: gho_x\n"),
                      ("cfg/notes.txt", "n\n"), ("st/shellgate/audit.jsonl", "{}\n"),
                      ("cfg/shellgate/approvals.json", "{}\n")):
        (h / rel).parent.mkdir(parents=True, exist_ok=True)
        (h / rel).write_text(text)
    (tmp_path / "ws").mkdir()
    return h


@pytest.mark.parametrize("row", ROWS, ids=[f"{r['cmd']}|moved={r['moved']}" for r in ROWS])
def test_table_follows_moved_bases(row: dict, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for var, rel in (("XDG_CONFIG_HOME", "cfg"), ("XDG_STATE_HOME", "st")):
        if row["moved"]:
            monkeypatch.setenv(var, str(home / rel))
        else:
            monkeypatch.delenv(var, raising=False)
    ws = home.parent / "ws"
    a = analyse(row["cmd"], Context(cwd=ws, workspace=ws, home=home))
    sensitive = [r for r in a.reasons if r.rule == "readonly.sensitive"]
    assert bool(sensitive) is row["asks"], (row["why"], a.reasons)
    assert a.readonly is not row["asks"]


def test_relative_values_move_nothing() -> None:
    """The XDG spec ignores a relative value; so does the table (a relative base would name a
    different directory in every cwd)."""
    assert moved_xdg({"XDG_CONFIG_HOME": "cfg", "XDG_STATE_HOME": "/s/"}) == ((".local/state", "/s"),)


def test_sandbox_hides_the_moved_token(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The confined line a hook hands out cannot read gh's token where XDG_CONFIG_HOME put it,
    while a plain file beside it stays readable."""
    from shellgate.sandbox import locations
    from shellgate.sandbox.enforce import confine, hook_tier

    if str(hook_tier().tier) == "none":
        pytest.skip("no sandbox tier on this machine: nothing is confined")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "cfg"))
    ws = home.parent / "ws"
    policy, _ = locations.grant_policy(ws, write=False, network=False)
    for path, readable in ((home / "cfg/gh/hosts.yml", False), (home / "cfg/notes.txt", True)):
        line = confine(f"cat {path}", policy, cwd=ws).line
        p = subprocess.run(["bash", "-c", line], capture_output=True, cwd=ws, timeout=60)
        assert (p.returncode == 0) is readable, p.stderr
        assert b"gho_x" not in p.stdout
