"""Placeholders spliced into scripts: find and xargs paste a file name or input line into the
text of ``sh -c '… {} …'`` at run time, so data becomes code. Real find and xargs show it (a
file named ``$(touch pwned)``); shellgate must refuse every such command. The rows of
corpus/not_readonly.jsonl (class ``placeholder``) hold more forms, corpus/readonly.jsonl the
safe ones (the name passed as an argument: ``sh -c '… "$1"' _ {}``).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

SPLICED = [
    "find . -name '*touch*' -exec sh -c 'echo {}' \\;",
    "find . -name '*touch*' -execdir sh -c 'echo {}' \\;",
    "ls | xargs -I{} sh -c 'echo {}'",
    "ls | xargs -i sh -c 'echo {}'",
    "ls | xargs --replace sh -c 'echo {}'",
    "ls | xargs -I% sh -c 'echo %'",
]


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Context]:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    (ws / "$(touch pwned)").write_text("")
    return ws, Context(cwd=ws, workspace=ws, home=home)


@pytest.mark.skipif(not (shutil.which("find") and shutil.which("xargs")), reason="no find/xargs")
@pytest.mark.parametrize("cmd", SPLICED)
def test_spliced_placeholder_runs_code_and_is_refused(world: tuple[Path, Context], cmd: str) -> None:
    ws, ctx = world
    subprocess.run(["bash", "-c", cmd], cwd=ws, capture_output=True, timeout=10, check=False)
    assert (ws / "pwned").exists(), "the oracle: the file name ran as code"
    assert not analyse(cmd, ctx).readonly


@pytest.mark.parametrize("cmd", ["find . -exec sh -c 'echo \"$1\"' _ {} \\;",
                                 "ls | xargs -I{} sh -c 'echo \"$1\"' _ {}"])
def test_placeholder_as_an_argument_is_data(world: tuple[Path, Context], cmd: str) -> None:
    ws, ctx = world
    subprocess.run(["bash", "-c", cmd], cwd=ws, capture_output=True, timeout=10, check=False)
    assert not (ws / "pwned").exists()
    assert analyse(cmd, ctx).readonly, analyse(cmd, ctx).reasons
