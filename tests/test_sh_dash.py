"""``sh -c`` scripts against real dash: ``sh`` is often dash, so a script shellgate calls
read-only must also be read-only the way dash reads it.

Scripts are generated from bash-only constructs (``$'…'``, ``[[ ]]``, ``(( ))``, ``&>``, ``<<<``,
process substitution, arrays, ``function``) mixed with quotes that such a construct could shift
and commands that must not run. Each runs under dash in an empty directory with PATH holding
only recording stubs; a stub call of a program shellgate does not list, or a file appearing, is
an effect. Hand-written rows are in corpus/not_readonly.jsonl and corpus/readonly.jsonl.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

DASH = shutil.which("dash")
STUBS = ("touch", "id", "rm", "b", "c", "o", "x", "y")
PARTS = ["echo hi", "echo $'a\\'b'", "$'\\'", "'", "\\'", "\n", "; ", " ", "touch t", "id",
         "[[ a > b ]]", "[[ x && id ]]", "((id > c))", "echo x &>o", "cat <<<w", "cat <(id)",
         "a=(1 2)", "function g { id; }", "echo", "\"", "#", "|& cat"]


@st.composite
def scripts(draw) -> str:
    return "".join(draw(st.lists(st.sampled_from(PARTS), min_size=1, max_size=7)))


def _dash_effects(script: str, tmp: Path) -> tuple[list[str], list[str]]:
    """(programs dash ran from the stub PATH, files it created) running ``script`` in ``tmp``."""
    bin_, work, log = tmp / "bin", tmp / "work", tmp / "log"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    log.write_text("")
    if not bin_.exists():
        bin_.mkdir()
        for name in STUBS:
            stub = bin_ / name
            stub.write_text(f'#!/bin/sh\necho {name} >> "{log}"\n')
            stub.chmod(0o755)
    subprocess.run([DASH or "dash", "-c", script], cwd=work, capture_output=True, timeout=10,
                   check=False, env={"PATH": str(bin_)})
    return log.read_text().split(), sorted(os.listdir(work))


def _verdict(script: str, tmp: Path) -> tuple[bool, set[str]]:
    """Whether ``sh -c SCRIPT`` is read-only, and the command names shellgate lists."""
    ctx = Context(cwd=tmp, workspace=tmp, home=tmp / "home")
    a = analyse("sh -c " + shlex.quote(script), ctx)
    return a.readonly, {c.name for c in a.script.commands if c.name}


@pytest.mark.skipif(DASH is None, reason="no dash")
@settings(deadline=None, max_examples=400)
@given(scripts())
def test_readonly_under_bash_is_readonly_under_dash(tmp_path_factory: pytest.TempPathFactory,
                                                     script: str) -> None:
    tmp = tmp_path_factory.mktemp("dash")
    readonly, listed = _verdict(script, tmp)
    if readonly:
        ran, files = _dash_effects(script, tmp)
        assert set(ran) <= listed and files == [], (script, ran, files)


# bash: one echo of a quoted string; dash: `$` and '\', then `touch t` on a line of its own
HIDDEN = "echo $'\\'\ntouch t\n\\''"


@pytest.mark.skipif(DASH is None, reason="no dash")
def test_oracle_dash_runs_what_bash_quotes(tmp_path: Path) -> None:
    ran, files = _dash_effects(HIDDEN, tmp_path)
    assert ran == ["touch"]
    bash = subprocess.run([shutil.which("bash") or "bash", "-c", HIDDEN], capture_output=True,
                          text=True, check=False, env={"PATH": str(tmp_path / "bin")})
    assert bash.stdout == "'\ntouch t\n'\n"
    assert not _verdict(HIDDEN, tmp_path)[0]
    assert _verdict("echo hi; ls -l", tmp_path)[0]
