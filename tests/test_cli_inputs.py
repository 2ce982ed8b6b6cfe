"""Bad or empty input gets a clear refusal (issue 16 item 7), from the CLI and the Python API.

The CLI table is ``corpus/cli_inputs.jsonl``: each line runs ``shellgate`` for real. Then the
API: ``Gate`` and ``BashTool`` refuse a workspace that does not exist, ``BashTool`` a timeout
that is not positive, and an empty command is never allowed, whatever the mode.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import load

from shellgate import BashTool, Gate

CASES = load("cli_inputs.jsonl")


@pytest.mark.parametrize("case", CASES, ids=lambda c: " ".join(c["args"])[:50])
def test_cli_refuses_clearly(tmp_path: Path, case: dict) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "NO_COLOR": "1", "COLUMNS": "200"}
    got = subprocess.run([sys.executable, "-m", "shellgate", *case["args"]],
                         input=case.get("stdin"), capture_output=True, text=True, env=env,
                         cwd=tmp_path, check=False)
    out = got.stdout + got.stderr
    assert got.returncode == case["code"], out
    assert case["says"] in " ".join(out.split()), out
    assert "not" not in case or case["not"] not in out, out


@pytest.mark.parametrize("mode", ["strict", "balanced", "accept-edits", "trust"])
@pytest.mark.parametrize("cmd", ["", " ", "\n\t "])
def test_an_empty_command_is_never_allowed(tmp_path: Path, mode: str, cmd: str) -> None:
    v = Gate(tmp_path, mode).check(cmd)
    assert (v.decision, v.rule) == ("deny", "approval.empty_command"), v.reason
    assert json.loads(json.dumps(v.to_json()))["decision"] == "deny"


def test_gate_refuses_a_missing_workspace(tmp_path: Path) -> None:
    v = Gate(tmp_path / "missing").check("ls")
    assert v.decision == "deny" and "not an existing directory" in v.reason


@pytest.mark.parametrize("kwargs", [{"timeout": 0}, {"timeout": -1}])
def test_bashtool_refuses_bad_arguments(tmp_path: Path, kwargs: dict) -> None:
    with pytest.raises(ValueError, match="positive"):
        BashTool(tmp_path, sandbox=False, **kwargs)


def test_bashtool_refuses_a_missing_workspace(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not an existing directory"):
        BashTool(tmp_path / "missing", sandbox=False)


def test_bashtool_run_refuses_a_bad_timeout(tmp_path: Path) -> None:
    tool = BashTool(tmp_path, "trust", sandbox=False, audit=False, store=False)
    try:
        r = tool.run("true", timeout=-1)
    finally:
        tool.close()
    assert not r.ran and "positive" in r.reason
