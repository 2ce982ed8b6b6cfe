"""A stored approval covers a line only where the person approved it: every directory the line
may run in inside the approved workspace, and nothing on the line changing how the approved
words resolve (shellgate/permission/scope.py). Table-driven from corpus/approval_scope.jsonl
against the real engine; one case through the real hook process; the effect each refused case
would have had shown with the real bash."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _helpers import hook_env

from shellgate.approval import CallContext, Engine
from shellgate.permission import Approval, DecisionKind, Store
from tests.conftest import load

CASES = load("approval_scope.jsonl")
EXE = str(Path(sys.executable).with_name("shellgate"))


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    ws, home = tmp_path / "ws", tmp_path / "home"
    (ws / "sub").mkdir(parents=True)
    home.mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    return {"ws": ws, "home": home, "store": tmp_path / "approvals.json", "root": tmp_path}


def stored(world: dict[str, Path], case: dict) -> Store:
    store = Store(world["store"])
    where = str(world["ws"]) if case["for"] == "ws" else None
    store.add([Approval("bash", tuple(p.removesuffix(" *").split()), p.endswith(" *"),
                        workspace=where) for p in case["approve"]])
    return store


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['for']}:{c['command']}")
def test_stored_approval_scope(world, case):
    e = Engine(world["ws"], "balanced", store=stored(world, case), home=world["home"],
               ask_as_deny=False)
    d = e.decide_bash(case["command"], CallContext(cwd=str(world["ws"] / case.get("cwd", ""))))
    covered = d.kind is DecisionKind.ALLOW and d.rule == "chain.stored_approval"
    assert covered is case["covered"], d.reason
    if not case["covered"]:
        assert d.kind is not DecisionKind.ALLOW, d.reason
        assert case.get("why", "") in d.reason


def test_through_the_hook_process(world):
    """`cd /tmp; make test` with `make test` remembered for W: the real hook asks."""
    if not os.access(EXE, os.X_OK):
        pytest.skip("no shellgate script")
    env = hook_env(world["root"], world["home"])
    store = Path(env["XDG_CONFIG_HOME"]) / "shellgate" / "approvals.json"
    store.parent.mkdir(parents=True)
    Store(store).add([Approval("bash", ("make", "test"), False, workspace=str(world["ws"]))])

    def decide(command: str) -> dict:
        payload = {"session_id": "s", "cwd": str(world["ws"]), "permission_mode": "default",
                   "hook_event_name": "PreToolUse", "tool_name": "Bash",
                   "tool_input": {"command": command}, "tool_use_id": "t"}
        p = subprocess.run([EXE, "hook", "claude-code"], input=json.dumps(payload).encode(),
                           capture_output=True, env=env, cwd=world["ws"], timeout=120)
        assert p.returncode == 0, p.stderr
        return json.loads(p.stdout)["hookSpecificOutput"]

    assert "stored approval make test" in decide("make test")["permissionDecisionReason"]
    out = decide("cd /tmp; make test")
    assert out["permissionDecision"] == "ask"
    assert "may run in /tmp" in out["permissionDecisionReason"]


@pytest.mark.parametrize("line", ["cd ../other; make test", "PATH=.:$PATH; git fetch origin",
                                  "((PATH=0)); git fetch origin",
                                  "git() { ./x; }; git fetch origin"])
def test_what_the_refused_lines_would_run(world, line):
    """The effect with the real bash: each line runs something other than the approved words
    in W (a Makefile outside W, a `git` file of the workspace)."""
    for prog in ("bash", "make"):
        if shutil.which(prog) is None:
            pytest.skip(f"{prog} is not installed")
    ws, other = world["ws"], world["root"] / "other"
    other.mkdir()
    marker = world["root"] / "ran"
    touch = shutil.which("touch")   # by path: the lines change PATH
    (other / "Makefile").write_text(f"test:\n\t{touch} {marker}\n")
    (ws / "0").mkdir()
    for d in (ws, ws / "0"):
        (d / "git").write_text(f"#!/bin/sh\n{touch} {marker}\n")
        (d / "git").chmod(0o755)
    (ws / "x").write_text(f"#!/bin/sh\n{touch} {marker}\n")
    (ws / "x").chmod(0o755)
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(world["home"])}
    subprocess.run(["bash", "-c", line], cwd=ws, env=env, capture_output=True, timeout=60)
    assert marker.exists()
