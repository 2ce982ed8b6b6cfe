"""jq programs that read files their operands do not name (corpus/jq_programs.jsonl).

``import "path" as $x;`` reads any ``.json`` file (``-L`` / ``--library-path`` only moves the
search), ``include`` and ``modulemeta`` read ``.jq`` modules, a program in a file (``-f``) or only
known at run time may do either: none of them is read-only. A string or a comment that merely
spells ``import`` changes nothing. Real jq is the oracle for what prints the canary.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.check import Gate

CASES = load("jq_programs.jsonl")
JQ = shutil.which("jq")
CANARY = "CANARY-jq-51d0"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = Path(os.path.realpath(tmp_path_factory.mktemp("jq")))
    home, ws = base / "home", base / "ws"
    (home / ".secrets").mkdir(parents=True)
    (home / ".secrets" / "creds.json").write_text(f'{{"token": "{CANARY}"}}\n')
    (ws / "lib").mkdir(parents=True)
    (ws / "lib" / "m.jq").write_text("def f: 1;\n")
    (ws / "data.json").write_text('{"name": "x", "import": 1}\n')
    (ws / "plain.jq").write_text(".name\n")
    (ws / "envdump.jq").write_text("env | keys\n")
    (ws / "prog.jq").write_text(f'import "{str(home)[1:]}/.secrets/creds" as $c; $c\n')  # under -L /
    return ws, home


def _cmd(case: dict, home: Path) -> str:
    return case["cmd"].replace("$HOME", str(home))


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:60])
def test_jq_program_reads(world: tuple[Path, Path], case: dict) -> None:
    ws, home = world
    verdict = Gate(ws, mode="balanced", home=home).check(_cmd(case, home), cwd=ws)
    assert verdict.readonly == case["readonly"], verdict.to_json()


@pytest.mark.skipif(JQ is None, reason="no jq")
@pytest.mark.parametrize("case", [c for c in CASES if c.get("oracle", True)], ids=lambda c: c["cmd"][:60])
def test_leak_label_agrees_with_jq(world: tuple[Path, Path], case: dict) -> None:
    ws, home = world
    run = subprocess.run(["bash", "-c", _cmd(case, home)], cwd=ws, capture_output=True, text=True,
                         env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
                              "JQ_CANARY_TOKEN": CANARY},
                         stdin=subprocess.DEVNULL)
    assert (CANARY in run.stdout) == case["leak"], run.stdout + run.stderr
    assert not (case["leak"] and case["readonly"])
