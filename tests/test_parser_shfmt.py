"""Differential test: on a sample of real commands, the commands we find match those in
shfmt's AST (mvdan/sh, via ``shfmt -ln bash --to-json``). Skipped without shfmt or the
corpus data."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter

import pytest
from conftest import CORPUS_DATA

from shellgate.bash.ir import CommandKind, Script, Via
from shellgate.bash.parse.parser import parse

SHFMT = shutil.which("shfmt")
SAMPLE_PER_CORPUS = 80
_UNWRAPPED = {Via.WRAPPER, Via.SHELL_C, Via.XARGS, Via.FIND_EXEC}
_PLAIN = frozenset("\\'\"$`*?[{~")

pytestmark = [
    pytest.mark.skipif(SHFMT is None, reason="shfmt (PyPI shfmt-py) is not installed"),
    pytest.mark.skipif(not CORPUS_DATA.is_dir(), reason=f"no corpus data at {CORPUS_DATA}"),
]


def sample() -> list[str]:
    out: list[str] = []
    for f in sorted(CORPUS_DATA.glob("*.jsonl")):
        cmds = [json.loads(s)["cmd"] for s in f.read_text(encoding="utf-8").splitlines() if s.strip()]
        step = max(1, len(cmds) // SAMPLE_PER_CORPUS)
        out.extend(c for c in cmds[::step][:SAMPLE_PER_CORPUS] if isinstance(c, str))
    return out


def shfmt_names(cmd: str) -> Counter[str] | None:
    """Command names in shfmt's AST, or None when shfmt rejects the command."""
    r = subprocess.run([SHFMT, "-ln", "bash", "--to-json"], input=cmd.encode(), capture_output=True,
                       timeout=20)
    if r.returncode != 0:
        return None
    names: Counter[str] = Counter()

    def first_word(args: list) -> str:
        parts = args[0].get("Parts", [])
        if len(parts) == 1 and parts[0].get("Type") == "Lit" \
                and not _PLAIN & set(parts[0]["Value"]):
            return parts[0]["Value"]
        return "?"

    def walk(n: object) -> None:
        if isinstance(n, dict):
            t = n.get("Type")
            if t == "CallExpr":
                names[first_word(n["Args"]) if n.get("Args") else ""] += 1
            elif t == "DeclClause":
                names[n["Variant"]["Value"]] += 1
            elif t == "LetClause":
                names["let"] += 1
            elif t == "TestClause":
                names["[["] += 1
            elif t == "ArithmCmd":
                names["(("] += 1
            elif t == "FuncDecl":
                names[n["Name"]["Value"] + "()"] += 1
            elif t == "CStyleLoop":
                names["(("] += 1
            elif t is None and "Redirs" in n and not n.get("Cmd"):
                names[""] += 1  # a statement of redirections only (`> f`, `$(< f)`)
            for v in n.values():
                walk(v)
        elif isinstance(n, list):
            for v in n:
                walk(v)

    walk(json.loads(r.stdout))
    return names


def our_names(script: Script) -> Counter[str]:
    names: Counter[str] = Counter()
    for c in script.commands:
        if _UNWRAPPED & set(c.via):
            continue
        if c.kind is CommandKind.FUNCDEF:
            names[c.words[0].text + "()"] += 1
        elif c.kind is not CommandKind.SIMPLE:
            names[c.name or "?"] += 1
        elif not c.words:
            names[""] += 1
        else:
            raw = c.words[0].raw
            names[raw if not _PLAIN & set(raw) else "?"] += 1
    return names


def test_commands_match_shfmt() -> None:
    checked, mismatches = 0, []
    for cmd in sample():
        theirs = shfmt_names(cmd)
        if theirs is None:
            continue
        script = parse(cmd)
        if script.error is not None:
            mismatches.append((cmd, f"we fail: {script.error.reason}"))
            continue
        checked += 1
        ours = our_names(script)
        if ours != theirs:
            mismatches.append((cmd, f"ours-theirs={ours - theirs} theirs-ours={theirs - ours}"))
    assert checked >= 200
    assert not mismatches, "\n".join(f"{c[:120]!r}: {why}" for c, why in mismatches[:20])
