"""The never table: catastrophes denied in every mode, before any rule, approval or answer.

Fed by ``corpus/never.jsonl``. Each command is decided in all four modes with an allow rule
covering every command (``Bash``), a stored approval of it and an approver that answers
"always": a "never" line must still be a deny from ``chain.never`` (its entry named) and the
approver must not even be asked; a null line must not be decided by the table. Then the
switch: ``[never] off = [...]`` in the user's config turns one entry off, an unknown name is a
config error, and a project file cannot turn anything off. Last, the hints: a hook that
cannot ask never suggests running a destructive or outside-workspace command.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import load

from shellgate.approval import CallContext, load_engine, scripted
from shellgate.bash.never import NAMES, NEVER
from shellgate.check import Gate
from shellgate.permission import Approval, Store

CASES = load("never.jsonl")
MODES = ("strict", "balanced", "accept-edits", "trust")


@pytest.fixture
def place(tmp_path: Path) -> dict[str, Path]:
    ws, home = tmp_path / "work" / "proj", tmp_path / "home"
    (ws / "src" / "deep").mkdir(parents=True)
    home.mkdir()
    cfg = tmp_path / "allow-all.toml"
    cfg.write_text('[permissions]\nallow = ["Bash"]\n')
    return {"ws": ws, "home": home, "cfg": cfg, "store": tmp_path / "approvals.json"}


def _engine(place: dict[str, Path], mode: str, approver: object, config: Path | None = None):
    return load_engine(place["ws"], mode, str(config or place["cfg"]), approver=approver,
                       home=place["home"], audit=False, store=place["store"],
                       user_config=False)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['cmd'][:40]}@{c.get('cwd', '.')}")
def test_never_table(place: dict[str, Path], case: dict, mode: str) -> None:
    Store(place["store"]).add([Approval("bash", (case["cmd"].split()[0],), rest=True,
                                        workspace=str(place["ws"]))])
    asked = scripted("allow_always")
    engine = _engine(place, mode, asked)
    cwd = place["ws"] / case.get("cwd", ".")
    d = engine.decide_bash(case["cmd"], CallContext(cwd=str(cwd.resolve())))
    if case["never"] is None:
        assert d.rule != "chain.never", d.reason
        return
    assert (d.verdict, d.rule, d.matched) == ("deny", "chain.never", (case["never"],)), d
    assert asked.prompts == [], "nothing may be asked about a never-table command"
    assert "never allowed" in d.reason


def test_every_entry_has_a_corpus_line() -> None:
    assert {c["never"] for c in CASES} - {None} == NAMES == {e.name for e in NEVER}


def test_an_entry_can_be_switched_off(place: dict[str, Path], tmp_path: Path) -> None:
    cfg = tmp_path / "off.toml"
    cfg.write_text('[permissions]\nallow = ["Bash"]\n\n[never]\noff = ["rm-home"]\n')
    engine = _engine(place, "trust", None, cfg)
    off = engine.decide_bash("rm -rf ~")
    # still asked: it removes HOME's secrets and rc files (a dangerous path, outside the workspace)
    assert off.rule == "approval.dangerous_path", off
    assert engine.decide_bash("rm -rf /").rule == "chain.never"  # the others stay on


@pytest.mark.parametrize("section", ['off = ["rm-hom"]', 'off = "rm-home"', 'of = []'])
def test_a_bad_switch_is_a_config_error(place: dict[str, Path], tmp_path: Path,
                                        section: str) -> None:
    cfg = tmp_path / "bad.toml"
    cfg.write_text(f"[never]\n{section}\n")
    v = Gate(place["ws"], "trust", config=cfg, home=place["home"]).check("ls")
    assert (v.decision, v.rule) == ("deny", "config.error") and "[never]" in v.reason


def test_a_project_file_cannot_switch_one_off(place: dict[str, Path]) -> None:
    (place["ws"] / ".shellgate").mkdir()
    (place["ws"] / ".shellgate" / "config.toml").write_text('[never]\noff = ["rm-home"]\n')
    engine = load_engine(place["ws"], "trust", home=place["home"], audit=False, store=False)
    assert engine.decide_bash("rm -rf ~").rule == "chain.never"


# -- hints: nothing invites running a destructive or outside-workspace command ---------------

def _codex(ws: Path, command: str) -> str:
    from shellgate.integrations import codex
    from shellgate.integrations.hookio import evaluate

    payload = {"session_id": "s", "turn_id": "t", "transcript_path": None, "cwd": str(ws),
               "hook_event_name": "PreToolUse", "model": "m", "permission_mode": "default",
               "tool_name": "Bash", "tool_use_id": "c", "tool_input": {"command": command}}
    out = evaluate(codex.SPEC, json.dumps(payload))
    assert out is not None and out.decision == "deny"
    return out.text()


@pytest.mark.parametrize("command", ["rm -rf ~/old-project", "rm -rf build", "rm -rf /",
                                     "mv notes.txt ~/", "cat ~/.ssh/id_rsa"])
def test_no_hint_invites_a_dangerous_command(place: dict[str, Path], command: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(place["home"]))
    text = _codex(place["ws"], command)
    assert "shellgate run" not in text and "always" not in text, text


def test_a_plain_ask_gets_a_hint_that_works(place: dict[str, Path],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(place["home"]))
    # (Codex's default is accept-edits: an in-workspace write runs; a program asks)
    assert "`shellgate run -- 'make test'`" in _codex(place["ws"], "make test")
    long = "make " + "x" * 200
    text = _codex(place["ws"], long)
    assert "`shellgate run -- '<the command>'`" in text, text  # never a cut command
    assert "shellgate run -- 'make" not in text
