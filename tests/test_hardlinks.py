"""A hard link of a secret is the secret (shellgate/bash/paths/hardlinks.py): corpus/hardlinks.jsonl
decided in a planted HOME and workspace and run for real by bash there. A refused "leak" line
must really print a canary (the refusal is about a real leak); an allowed line must print none.
The pnpm-like tree (hard links of non-secret files in a store) stays read-only, and the
enumeration's bound fails closed for multiply-linked files only."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context
from shellgate.bash.paths import hardlinks, resolve

CASES = load("hardlinks.jsonl")
CANARY = "CANARY-"


def _setup(tmp: Path, case: dict) -> tuple[Path, Path]:
    ws, home, store = tmp / "ws", tmp / "home", tmp / "store"
    for d in (home / ".ssh", home / ".aws", ws / "lib", ws / "node_modules/.pnpm/left-pad", store):
        d.mkdir(parents=True)
    (home / ".ssh/id_rsa").write_text("CANARY-ssh-BEGIN\n")
    (home / ".aws/credentials").write_text("[default]\naws_secret_access_key=CANARY-aws\n")
    (home / ".netrc").write_text("machine x login u password CANARY-netrc\n")
    (ws / "a.txt").write_text("hello\n")
    (ws / ".env").write_text("TOKEN=CANARY-env\n")
    for i, name in enumerate(("index.js", "util.js", "left-pad.js")):
        (store / name).write_text(f"module.exports = {i}\n")
        os.link(store / name, ws / "lib" / name)
        os.link(store / name, ws / "node_modules/.pnpm/left-pad" / name)
    for name, target in case.get("hard", {}).items():
        path = ws / name
        path.parent.mkdir(parents=True, exist_ok=True)
        os.link(home / target[2:] if target.startswith("~/") else ws / target, path)
    return ws, home


def _ctx(ws: Path, home: Path) -> Context:
    return Context(cwd=ws, workspace=ws, home=home)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:60])
def test_verdict(case: dict, tmp_path: Path) -> None:
    ws, home = _setup(tmp_path, case)
    a = analyse(case["cmd"], _ctx(ws, home))
    assert a.readonly == case["readonly"], [r.message for r in a.reasons]
    if case.get("hard") and not case["readonly"]:
        assert any("is a hard link of" in r.message for r in a.reasons), [r.message for r in a.reasons]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:60])
def test_real_program(case: dict, tmp_path: Path) -> None:
    """The oracle: a leak line prints a canary, an allowed one none."""
    program = case["cmd"].split()[0]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    ws, home = _setup(tmp_path, case)
    out = subprocess.run(["bash", "-c", case["cmd"]], cwd=ws, capture_output=True, text=True, timeout=30,
                         env={"PATH": os.environ["PATH"], "HOME": str(home), "LC_ALL": "C"})
    assert (CANARY in out.stdout) == case["leak"], out.stdout[-400:]
    if not case["leak"]:
        assert case["readonly"]


def test_pnpm_tree_stays_readonly(tmp_path: Path) -> None:
    """Hundreds of multiply-linked non-secret files: every read stays read-only, and the secret
    inodes are enumerated once for the whole scan."""
    ws, home = _setup(tmp_path, {})
    store = tmp_path / "store"
    for i in range(300):
        (store / f"m{i}.js").write_text("x\n")
        os.link(store / f"m{i}.js", ws / "lib" / f"m{i}.js")
    a = analyse("cat " + " ".join(f"lib/m{i}.js" for i in range(300)) + " && grep -R x lib", _ctx(ws, home))
    assert a.readonly, [r.message for r in a.reasons]


def test_bound_fails_closed_for_linked_files_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the enumeration's bound a multiply-linked file may be a secret not seen: refused;
    a file with one name cannot be a hard link of anything and stays read-only."""
    ws, home = _setup(tmp_path, {})
    for i in range(50):
        (home / ".ssh" / f"k{i}.pub").write_text("pub\n")
    monkeypatch.setattr(hardlinks, "MAX_ENTRIES", 10)
    monkeypatch.setattr(hardlinks.enumerate_secrets, "__defaults__", (10,))
    a = analyse("cat lib/index.js", _ctx(ws, home))
    assert not a.readonly and "more than one name" in a.sensitive[0].pattern
    assert analyse("cat a.txt", _ctx(ws, home)).readonly


def test_sandbox_walk_masks_the_link(tmp_path: Path) -> None:
    """The sandbox's workspace walk (``leaks_below``, its masks) finds the link too."""
    ws, home = _setup(tmp_path, {"hard": {"d/hard.o": "~/.ssh/id_rsa", "d/copy": ".env"}})
    found, complete = resolve.leaks_below(str(ws), str(home))
    assert complete and {str(ws / "d/hard.o"), str(ws / "d/copy"), str(ws / ".env")} <= set(found), found
    assert not any("/lib/" in p for p in found)
