"""Codex apply_patch, read as Codex reads it (shellgate/integrations/codex_patch.py).

The table is corpus/codex_patches.jsonl. Where the real Codex is installed (``codex`` on PATH,
or ``SHELLGATE_CODEX`` naming it), each patch is also applied by it — ``codex
--codex-run-as-apply-patch`` inside bubblewrap, only a scratch workspace writable — and every
file it changed must be among the paths shellgate found.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from shellgate.integrations.codex_patch import Mode, PatchError, parse, written_paths
from shellgate.integrations.hookio import HookInputError, patch_paths

CASES = load("codex_patches.jsonl")
CODEX = os.environ.get("SHELLGATE_CODEX") or shutil.which("codex")
BWRAP = shutil.which("bwrap", path="/usr/bin:/bin")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["name"])
def test_table(case: dict) -> None:
    if "paths" in case:
        assert written_paths(case["patch"]) == tuple(case["paths"])
        assert patch_paths(case["patch"]) == tuple(case["paths"])
    else:
        with pytest.raises(PatchError, match=None) as err:
            written_paths(case["patch"])
        assert case["error"] in str(err.value)
        with pytest.raises(HookInputError):
            patch_paths(case["patch"])


def test_strict_mode_refuses_the_heredoc_wrapper() -> None:
    wrapped = "<<'EOF'\n*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\nEOF\n"
    assert written_paths(wrapped, Mode.LENIENT) == ("a",)
    with pytest.raises(PatchError, match="first line"):
        parse(wrapped, Mode.STRICT)


def test_hunks_carry_their_line() -> None:
    hunks = parse("*** Begin Patch\n*** Add File: a\n+x\n+y\n *** Update File: b\n"
                  "*** Move to: c\n@@\n-1\n+2\n*** End Patch")
    assert [(h.op, h.path, h.line, h.move_to) for h in hunks] == [
        ("add", "a", 2, None), ("update", "b", 5, "c")]


# -- the real Codex as the oracle ----------------------------------------------------------

def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes()
            for p in root.rglob("*") if p.is_file() and not p.is_symlink()}


def _codex_apply(patch: str, ws: Path) -> subprocess.CompletedProcess:
    """The real Codex applies ``patch`` in ``ws``: read-only root, no network, ``ws`` writable."""
    argv = [BWRAP, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--bind", str(ws), str(ws), "--unshare-all", "--die-with-parent",
            "--chdir", str(ws), "--", CODEX, "--codex-run-as-apply-patch", patch]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60,
                          env={"PATH": os.environ["PATH"], "HOME": str(ws)})


@pytest.mark.skipif(not CODEX or not BWRAP, reason="the real Codex (or bwrap) is not installed")
@pytest.mark.parametrize("case", [c for c in CASES if "\ud800" not in c["patch"]],
                         ids=lambda c: c["name"])
def test_codex_writes_only_what_shellgate_found(case: dict, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    for rel, text in case.get("files", {}).items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text)
    before = _snapshot(ws)
    proc = _codex_apply(case["patch"], ws)
    after = _snapshot(ws)
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    if "paths" in case:
        found = {os.path.normpath(p) for p in case["paths"]}
        assert changed <= found, (changed, proc.stdout, proc.stderr)
        if proc.returncode == 0:
            assert changed == found, (proc.stdout, proc.stderr)
    elif not case.get("stricter"):
        assert proc.returncode != 0 and not changed, (changed, proc.stdout)
    else:  # shellgate refuses what Codex applies: a deny, never a miss
        assert proc.returncode == 0, proc.stderr


# -- generated patches against the real Codex ----------------------------------------------

PAD = st.sampled_from(["", "", " ", "  ", "\t", "\u00a0", "\x1f"])
PATHS = st.sampled_from(["a.txt", "b.txt", "n1.txt", "d/n2.txt"])


@st.composite
def _line(draw: st.DrawFn) -> str:
    """A line of some patch: a header, a marker or body text, maybe padded."""
    kind = draw(st.sampled_from(["add", "delete", "update", "move", "begin", "end", "eof",
                                 "@@", "@@ ctx", "+", "-", " ", "", "stray"]))
    head = {"add": "*** Add File: ", "delete": "*** Delete File: ", "update": "*** Update File: ",
            "move": "*** Move to: "}
    if kind in head:
        return draw(PAD) + head[kind] + draw(PATHS) + draw(PAD)
    text = {"begin": "*** Begin Patch", "end": "*** End Patch", "eof": "*** End of File",
            "+": "+new", "-": "-a", " ": " a", "stray": "x"}.get(kind, kind)
    return draw(PAD) + text if kind in ("begin", "end", "eof") else text


@st.composite
def _hunk_lines(draw: st.DrawFn) -> list[str]:
    """One well-formed hunk (add, delete, or update with a move and chunks), headers padded."""
    op = draw(st.sampled_from(["Add", "Delete", "Update"]))
    out = [f"{draw(PAD)}*** {op} File: {draw(PATHS)}{draw(PAD)}"]
    if op == "Add":
        out += ["+line"] * draw(st.integers(0, 2))
    elif op == "Update":
        if draw(st.booleans()):
            out.append(f"{draw(PAD)}*** Move to: {draw(PATHS)}")
        for k in range(draw(st.integers(1, 2))):
            out += [""] * draw(st.integers(0, 1)) + (["@@"] if k or draw(st.booleans()) else [])
            out += draw(st.sampled_from([["-a", "+new"], [" a", "+new"], ["-a"]]))
            out += ["*** End of File"] if draw(st.booleans()) else []
    return out


@st.composite
def _patch(draw: st.DrawFn) -> str:
    """A patch of well-formed hunks, or of arbitrary lines."""
    if draw(st.booleans()):
        body = [x for h in draw(st.lists(_hunk_lines(), min_size=1, max_size=3)) for x in h]
    else:
        body = draw(st.lists(_line(), min_size=1, max_size=8))
    return "\n".join([draw(PAD) + "*** Begin Patch", *body, "*** End Patch" + draw(PAD)]) + "\n"


@pytest.mark.skipif(not CODEX or not BWRAP, reason="the real Codex (or bwrap) is not installed")
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(patch=_patch())
def test_generated_patches_never_write_unseen_files(patch: str, tmp_path_factory) -> None:
    ws = tmp_path_factory.mktemp("gen")
    for rel in ("a.txt", "b.txt"):
        (ws / rel).write_text("a\n")
    try:
        found: set[str] | None = {os.path.normpath(p) for p in written_paths(patch)}
    except PatchError:
        found = None  # a deny: nothing can be missed
    before = _snapshot(ws)
    proc = _codex_apply(patch, ws)
    after = _snapshot(ws)
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    if found is not None:
        assert changed <= found, (patch, changed, proc.stdout, proc.stderr)
