"""``find D … | xargs R …`` is read-only when the names xargs appends are proved plain file
names below D and no secret lies there (``shellgate/bash/paths/xargsnames.py``; #17). Each row of
``corpus/xargs_names.jsonl`` builds its tree, checks the verdict, and runs the read-only ones
for real: they must print no canary and change nothing.
"""

from __future__ import annotations

import os
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
    """``files`` (``name->target``: a symlink); with ``row["tracked"]`` they are added to the
    index, and ``row["index_only"]`` names are index entries with no file (``--cacheinfo``)."""
    row = row or {}
    ws = git_workspace(tmp / "ws")
    home = tmp / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(CANARY + "\n")
    for f in files:
        name, _, target = f.partition("->")
        p = ws / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if target:
            p.symlink_to(str(home) + target[1:] if target.startswith("~") else target)
        else:
            p.write_text(f"def main(): pass  # {name}\n")
    if row.get("tracked"):
        subprocess.run(["git", "-C", str(ws), "add", "-A", "--", *[f.partition("->")[0] for f in files]],
                       check=True)
    for name in row.get("index_only", ()):
        blob = subprocess.run(["git", "-C", str(ws), "hash-object", "-w", "--stdin"], input=b"x\n",
                              capture_output=True, check=True).stdout.decode().strip()
        subprocess.run(["git", "-C", str(ws), "update-index", "--add", "--cacheinfo",
                        f"100644,{blob},{name}"], check=True)
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
