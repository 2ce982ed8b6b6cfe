"""``find D … | xargs R …`` is read-only when the names xargs appends are proved plain file
names below D and no secret lies there (``shellgate/bash/paths/xargsnames.py``; #17). Each row of
``corpus/xargs_names.jsonl`` builds its tree, checks the verdict, and runs the read-only ones
for real: they must print no canary and change nothing. A row with an ``effect`` was a false
approval: it is run for real too, and must do what the row says (print the canary, create a
file, connect somewhere, take a name for something else than a file) — the oracle that the
refusal is needed.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from _helpers import git_workspace
from conftest import load

from shellgate import Gate

ROWS = load("xargs_names.jsonl")
CANARY = "CANARY-xargs-9d41"


def _tree(tmp: Path, files: list[str], row: dict | None = None) -> tuple[Path, Path]:
    """``files`` (``name->target``: a symlink; ``~/name``: a file of the fake HOME holding the
    canary; ``row["contents"]`` gives some files their text, ``row["executable"]`` makes these
    scripts that print the canary); with ``row["tracked"]`` they are added to the index,
    ``row["index_only"]`` names are index entries with no file (``--cacheinfo``), and
    ``row["forge_index"]`` ``[old, new]`` renames an entry in ``.git/index`` itself (git checks
    names it adds, not names it reads)."""
    row = row or {}
    ws = git_workspace(tmp / "ws")
    home = tmp / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(CANARY + "\n")
    for f in files:
        name, _, target = f.partition("->")
        p = home / name[2:] if name.startswith("~/") else ws / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if target:
            p.symlink_to(str(home) + target[1:] if target.startswith("~") else target)
        elif name.startswith("~/"):
            p.write_text(CANARY + "\n")
        else:
            p.write_text(row.get("contents", {}).get(name, f"def main(): pass  # {name}\n"))
    for name in row.get("executable", ()):
        (ws / name).write_text(f"#!/bin/sh\necho {CANARY}\n")
        (ws / name).chmod(0o755)
    if row.get("tracked"):
        subprocess.run(["git", "-C", str(ws), "add", "-A", "--", *[f.partition("->")[0] for f in files]],
                       check=True)
    for name in row.get("index_only", ()):
        blob = subprocess.run(["git", "-C", str(ws), "hash-object", "-w", "--stdin"], input=b"x\n",
                              capture_output=True, check=True).stdout.decode().strip()
        subprocess.run(["git", "-C", str(ws), "update-index", "--add", "--cacheinfo",
                        f"100644,{blob},{name}"], check=True)
    if "forge_index" in row:
        old, new = (n.encode() + b"\0" for n in row["forge_index"])
        index = ws / ".git" / "index"
        data = index.read_bytes()[:-20]
        assert len(old) == len(new) and old in data
        data = data.replace(old, new)
        index.write_bytes(data + hashlib.sha1(data).digest())
    return ws, home


@pytest.mark.parametrize("row", ROWS, ids=[r["cmd"][:50] for r in ROWS])
def test_xargs_names(row, tmp_path):
    ws, home = _tree(tmp_path, row["files"], row)
    v = Gate(ws, mode="balanced", home=home).check(row["cmd"], cwd=ws)
    assert v.analysis.readonly is row["readonly"], v.reason
    if not row["readonly"]:
        return
    if shutil.which(row["cmd"].split()[0]) is None:
        pytest.skip(f"{row['cmd'].split()[0]} is not installed: the verdict was checked, not the real run")
    before = sorted((str(p), p.stat().st_mtime_ns) for p in ws.rglob("*") if ".git" not in p.parts)
    p = subprocess.run(["bash", "-c", row["cmd"]], cwd=ws, capture_output=True, text=True, timeout=30,
                       env={**os.environ, "HOME": str(home)})
    assert CANARY not in p.stdout + p.stderr
    assert p.returncode == 0, p.stderr
    after = sorted((str(p), p.stat().st_mtime_ns) for p in ws.rglob("*") if ".git" not in p.parts)
    assert before == after


@pytest.mark.parametrize("row", [r for r in ROWS if "accept_edits" in r], ids=lambda r: r["cmd"][:50])
def test_a_write_of_the_line_below_the_start_point_voids_the_proof(row, tmp_path):
    """The walk sees the tree when the gate decides; a write of the same line may add a name
    first. accept-edits allows the write and credits each read-only command on its own, so the
    proof must not survive such a write (it did: the first row was allowed)."""
    ws, home = _tree(tmp_path, row["files"])
    v = Gate(ws, mode="accept-edits", home=home).check(row["cmd"], cwd=ws)
    assert v.decision == row["accept_edits"], v.reason


EFFECT_ROWS = [r for r in ROWS if "effect" in r]


@pytest.mark.parametrize("row", EFFECT_ROWS, ids=[r["cmd"][:50] for r in EFFECT_ROWS])
def test_a_false_approval_has_its_effect_for_real_and_is_refused(row, tmp_path):
    """Each row was allowed in balanced mode. The real programs show why it must not be:
    ``canary`` — the line prints the fake HOME's key (or the environment's canary);
    ``creates NAME`` — it makes a file; ``connects`` — a program connects to an inet address
    (strace); ``not_opened NAME`` — the command xargs runs takes the name NAME for something
    else than a file and never opens it (strace). ``needs``: the programs the line runs
    (default: its first word); without one of them only the verdict is checked. Then the gate
    must not call the line read-only."""
    ws, home = _tree(tmp_path, row["files"], row)
    missing = [p for p in row.get("needs", [row["cmd"].split()[0]]) if shutil.which(p) is None]
    effect = row["effect"]
    strace = effect == "connects" or effect.startswith("not_opened ")
    if missing or (strace and shutil.which("strace") is None):
        pytest.skip(f"{missing or 'strace'} not installed: the verdict was checked, not the effect")
    env = {**os.environ, "HOME": str(home), "SHELLGATE_TEST_CANARY": CANARY}
    argv = ["bash", "-c", row["cmd"]]
    if strace:
        argv = ["strace", "-f", "-qq", "-e", "trace=connect,%file", "-o", str(tmp_path / "trace"), *argv]
    p = subprocess.run(argv, cwd=ws, capture_output=True, text=True, timeout=30, env=env)
    if effect == "canary":
        assert CANARY in p.stdout + p.stderr, p.stdout + p.stderr
    elif effect.startswith("creates "):
        assert (ws / effect.split(" ", 1)[1]).exists(), p.stdout + p.stderr
    elif effect == "connects":
        assert "sa_family=AF_INET" in (tmp_path / "trace").read_text()
    else:
        name = effect.split(" ", 1)[1]
        trace = (tmp_path / "trace").read_text()
        assert f'"{name}"' in trace   # given it as an argument (execve) …
        assert not re.search(rf'open\w*\([^)]*"(?:[^"]*/)?{re.escape(name)}"', trace)   # … never opened
    v = Gate(ws, mode="balanced", home=home).check(row["cmd"], cwd=ws)
    assert not v.analysis.readonly and v.decision != "allow", v.reason
