"""``[[ ]]`` runs code: the expansions inside it (``<(…)``, ``>(…)``, ``$(…)``, backticks, a
subscript ``a[$(…)]`` that an arithmetic or ``-v`` operand evaluates, in patterns and ``=~``
regexes, in lists, functions, substitutions …) must all be seen.

The fuzz campaign (seed 20261208) found ``[[ <(touch pwned) ]]`` judged read-only: the lexer
read ``<`` as the string-comparison operator and ``(touch pwned)`` as grouping, where bash
reads a process substitution and runs it. Each attack line of ``corpus/fuzz_cond.jsonl`` is run
for real by the shells it names (the oracle: ``./pwned`` appears) and must not be read-only,
with a reason whose span covers the word that runs code; each ``readonly`` line stays
read-only.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

CASES = load("fuzz_cond.jsonl")
ATTACKS = [c for c in CASES if c["kind"] == "attack"]
HARMLESS = [c for c in CASES if c["kind"] == "readonly"]
MARKER = "pwned"


def _ids(case: dict) -> str:
    return case["cmd"][:60]


def _scratch(tmp_path: Path) -> Path:
    """The world every line is judged and run in: a file ``x`` and a directory ``dir``."""
    ws = tmp_path / "ws"
    ws.mkdir(parents=True)
    (ws / "dir").mkdir()
    (ws / "x").write_text("")
    return ws


def _creates_marker(shell: str, cmd: str, tmp_path: Path) -> bool:
    ws = _scratch(tmp_path / shell)
    subprocess.run([shell, "-c", cmd], cwd=ws, capture_output=True, timeout=30, check=False,
                   env={"PATH": "/usr/bin:/bin", "HOME": str(ws), "a": ""})
    return (ws / MARKER).exists()


@pytest.mark.parametrize("case", ATTACKS, ids=_ids)
def test_attack_is_refused(case: dict, tmp_path: Path) -> None:
    cmd = case["cmd"]
    ws = _scratch(tmp_path / "judge")
    a = analyse(cmd, Context(cwd=ws, workspace=ws, home=ws))
    assert not a.readonly, f"read-only, yet {case['runs']} run code in it"
    assert a.effect.value != "read"
    # the refusal names the word that runs code: its span covers (part of) `touch pwned`
    s, e = cmd.index("touch"), cmd.index(MARKER) + len(MARKER)
    spans = [r.span for r in a.reasons if r.span is not None]
    assert any(rs < e and s < re_ for rs, re_ in spans), [(r.message, r.span) for r in a.reasons]


@pytest.mark.parametrize("case", ATTACKS, ids=_ids)
@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_oracle_shell_runs_it(case: dict, shell: str, tmp_path: Path) -> None:
    """The corpus says which shells really run the code; keep that true."""
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed: cannot check the corpus against it")
    assert _creates_marker(shell, case["cmd"], tmp_path) == (shell in case["runs"])


@pytest.mark.parametrize("case", HARMLESS, ids=_ids)
def test_harmless_stays_readonly(case: dict, tmp_path: Path) -> None:
    ws = _scratch(tmp_path)
    a = analyse(case["cmd"], Context(cwd=ws, workspace=ws, home=ws))
    assert a.readonly, [r.message for r in a.reasons]
    assert a.reasons == ()
