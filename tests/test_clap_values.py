"""clap's reading of option values (corpus/clap_values.jsonl), with the real rg and fd.

getopt gives a value-taking option the next word whatever it is; clap gives it only a word that
does not start with ``-`` (unless the option allows hyphen values), and clap 2 lets a later
override (``--no-encoding``) excuse the value then missing. So ``rg -E -uu always
--no-encoding`` is ``rg -uu always``: it searched ``.env`` while the table read ``-uu`` as the
encoding (a fuzz finding). Each line is decided, then run in a scratch directory with a canary
``.env``: a read-only line must not print it.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest
from conftest import load

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

CASES = load("clap_values.jsonl")
CANARY = "always CANARY-clap"


@pytest.mark.parametrize("case", CASES, ids=[c["cmd"] for c in CASES])
def test_clap_values(case, tmp_path):
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    (ws / ".env").write_text(f"SECRET={CANARY}\n")
    (ws / "notes.txt").write_text("always here\n")
    a = analyse(case["cmd"], Context.here(str(ws), str(ws), str(home)))
    assert a.readonly is case["readonly"], a.reasons
    if not case["readonly"]:
        word = next(r for r in a.reasons if r.span is not None)
        assert case["cmd"][word.span[0]:word.span[1]] == case["word"], a.reasons
    program = case["cmd"].split()[0]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed: the verdict was checked, not the real run")
    p = subprocess.run(["bash", "-c", case["cmd"]], cwd=ws, capture_output=True,
                       text=True, timeout=30, env={"PATH": "/usr/bin:/bin", "HOME": str(home)})
    if case["readonly"]:
        assert "CANARY" not in p.stdout + p.stderr, p.stdout
    elif "effect" in case:
        version = subprocess.run([program, "--version"], capture_output=True, text=True).stdout
        if version.startswith(case["effect"]):
            assert "CANARY" in p.stdout, (version, p.stdout, p.stderr)
