"""Writes through a hard link reach every name of the file (shellgate/bash/paths/resolve.py
``_Links.owner``): corpus/hardlinks_write.jsonl decided by the gate in accept-edits mode in a
planted HOME and workspace, and run for real by bash there. A line whose real run changes a
file outside the workspace or a git hook (its bytes, its mode, or a new name for it) must ask
with a reason that names the word; the reason's text is checked too."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.bash.facts import Context, PathClass, PathOp
from shellgate.bash.paths import resolve
from shellgate.check import Gate

CASES = load("hardlinks_write.jsonl")


def _setup(tmp: Path, case: dict) -> dict[str, Path]:
    ws, home, other, store = tmp / "ws", tmp / "home", tmp / "other", tmp / "store"
    for d in (home / ".ssh", ws / ".git/hooks", ws / "d", ws / "lib", other, store):
        d.mkdir(parents=True)
    (home / ".bashrc").write_text("echo rc\n")
    (home / ".profile").write_text("echo profile\n")
    (home / ".ssh/id_rsa").write_text("CANARY-ssh\n")
    (ws / "a.txt").write_text("hello\n")
    (ws / ".git/hooks/pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (other / "x.txt").write_text("other\n")
    (store / "index.js").write_text("module.exports = 0\n")
    os.link(store / "index.js", ws / "lib/index.js")
    for name, target in case.get("hard", {}).items():
        src = home / target[2:] if target.startswith("~/") else tmp / target[3:] \
            if target.startswith("../") else ws / target
        os.link(src, ws / name)
    return {"ws": ws, "home": home, "other": other, "store": store}


def _watched(w: dict[str, Path]) -> dict[str, tuple[bytes, int, int]]:
    """Every file of HOME, ../other, the store and the git hooks: (bytes, mode, names)."""
    out = {}
    for top in (w["home"], w["other"], w["store"], w["ws"] / ".git/hooks"):
        for p in top.rglob("*"):
            if p.is_file():
                st = p.stat()
                out[str(p)] = (p.read_bytes(), st.st_mode, st.st_nlink)
    return out


def _changed(before: dict, after: dict) -> bool:
    """Bytes or mode changed, or a file got another name (a name dropped changes nothing)."""
    return any(after.get(k) is None or after[k][:2] != v[:2] or after[k][2] > v[2] for k, v in before.items())


def _says(case: dict, w: dict[str, Path]) -> str:
    return case["says"].replace("~", str(w["home"])).replace("@", str(w["ws"]))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:60])
def test_verdict(case: dict, tmp_path: Path) -> None:
    w = _setup(tmp_path, case)
    v = Gate(w["ws"], mode="accept-edits", home=w["home"]).check(case["cmd"], cwd=str(w["ws"]))
    messages = [r.message for r in v.analysis.reasons]
    assert v.decision == case["decision"], (v.reason, messages)
    if "says" in case:
        assert any(_says(case, w) in m for m in messages), messages


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:60])
def test_real_effect(case: dict, tmp_path: Path) -> None:
    """The oracle: the line really changes a file outside the workspace (or the hook) exactly
    when the corpus says so, and each such line is asked about with a sensitive reason."""
    program = case["cmd"].split()[0]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    w = _setup(tmp_path, case)
    before = _watched(w)
    out = subprocess.run(["bash", "-c", case["cmd"]], cwd=w["ws"], capture_output=True, text=True, timeout=30,
                         env={"PATH": os.environ["PATH"], "HOME": str(w["home"]), "LC_ALL": "C"})
    assert _changed(before, _watched(w)) == case["changes"], out.stderr[-400:]
    if case["changes"]:  # asked, with a reason test_verdict checks
        assert case["decision"] == "ask" and "says" in case, case


def test_write_tools_see_the_link(tmp_path: Path) -> None:
    """The Write/Edit tools' check (``check_path``) is the same: an implant hit naming both."""
    w = _setup(tmp_path, {"hard": {"notes.txt": "~/.bashrc"}})
    ctx = Context(cwd=w["ws"], workspace=w["ws"], home=w["home"])
    hit = resolve.check_path(str(w["ws"] / "notes.txt"), PathOp.WRITE, ctx)
    assert hit is not None and hit.cls is PathClass.IMPLANT, hit
    assert hit.pattern.startswith(f"{w['ws']}/notes.txt is a hard link of {w['home']}/.bashrc"), hit
    assert resolve.check_path(str(w["ws"] / "notes.txt"), PathOp.READ, ctx) is None
    assert resolve.check_path(str(w["ws"] / "a.txt"), PathOp.WRITE, ctx) is None
