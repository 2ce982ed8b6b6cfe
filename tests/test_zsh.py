"""Commands against real zsh: what shellgate calls read-only must not run a program zsh would
run that shellgate does not list, with zsh's defaults or with ``extendedglob``.

Commands are ``echo``/``ls`` with words drawn from zsh's expansions that bash reads otherwise
(glob qualifiers, ``=cmd``, ``$~x``, modifiers, ``^``) and their quoted spellings. Each runs as
``zsh -f -c`` (no rc files) in a directory holding one file, PATH holding only recording stubs.
The rule is ``shellgate/bash/readonly/zsh.py``; hand-written rows are in corpus/not_readonly.jsonl
(class ``dialect-zsh``) and corpus/readonly.jsonl.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

ZSH = shutil.which("zsh")
STUBS = ("touch", "ls", "id")
WORDS = ["a", "*", "*(e:'touch t':)", "?(e:'id':)", "*(+touch)", "@(a)", "!(a)", "+(a)",
         "=touch", "=id", "$~x", "$=x", "$^x", "$x:h", "$HOME:h", "^a", "'*(e:x:)'",
         "\"*(+touch)\"", "\\*(+touch)", "x=1", "'=id'", "\"$x:h\"", "-l"]


@st.composite
def commands(draw) -> str:
    name = draw(st.sampled_from(["echo", "ls"]))
    return " ".join([name, *draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=4))])


def _zsh_runs(cmd: str, tmp: Path, options: tuple[str, ...] = ()) -> list[str]:
    """The stub programs ``zsh -f [options] -c cmd`` runs in a directory holding file ``a``."""
    bin_, work, log = tmp / "bin", tmp / "work", tmp / "log"
    if not bin_.exists():
        bin_.mkdir()
        work.mkdir()
        (work / "a").write_text("")
        for name in STUBS:
            stub = bin_ / name
            stub.write_text(f'#!/bin/sh\necho {name} >> "{log}"\n')
            stub.chmod(0o755)
    log.write_text("")
    subprocess.run([ZSH or "zsh", "-f", *options, "-c", cmd], cwd=work, capture_output=True,
                   timeout=10, check=False, env={"PATH": str(bin_), "x": "*", "HOME": str(tmp)})
    return log.read_text().split()


def _verdict(cmd: str, tmp: Path) -> tuple[bool, set[str]]:
    ctx = Context(cwd=tmp, workspace=tmp, home=tmp / "home")
    a = analyse(cmd, ctx)
    return a.readonly, {c.name for c in a.script.commands if c.name}


@pytest.mark.skipif(ZSH is None, reason="no zsh")
@settings(deadline=None, max_examples=300)
@given(commands(), st.sampled_from([(), ("-o", "extendedglob")]))
def test_readonly_commands_run_nothing_else_in_zsh(tmp_path_factory: pytest.TempPathFactory,
                                                   cmd: str, options: tuple[str, ...]) -> None:
    tmp = tmp_path_factory.mktemp("zsh")
    readonly, listed = _verdict(cmd, tmp)
    if readonly:
        ran = _zsh_runs(cmd, tmp, options)
        assert set(ran) <= listed, (cmd, options, ran)


@pytest.mark.skipif(ZSH is None, reason="no zsh")
def test_oracle_zsh_runs_a_glob_qualifier(tmp_path: Path) -> None:
    cmd = "ls *(e:'touch t':)"
    assert _zsh_runs(cmd, tmp_path) == ["touch", "ls"]
    assert not _verdict(cmd, tmp_path)[0]
    assert _verdict("ls -l a", tmp_path)[0]
