"""A network form of git gets the network only when the repository's own configuration runs no
program (corpus/git_network.jsonl).

``git fetch`` in a repository whose config names ``core.sshCommand``, ``remote.<name>.uploadpack``,
an ``ext::`` URL, a credential helper, ``core.fsmonitor`` (pull checks out) … — or a bare
repository committed into the workspace with hooks of its own — would run that program with the
network on. Such a call is asked about in every mode (trust included, never remembered), and the
reason names the key. Real repositories, a local server; real git is the oracle: where running
the command touches the canary, shellgate must have asked.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.check import Gate

GIT = shutil.which("git")
CASES = load("git_network.jsonl")
pytestmark = pytest.mark.skipif(GIT is None, reason="no git")

_PROGS = {
    "$PROG": '#!/bin/sh\n: > "$SG_CANARY"\nexit 0\n',
    "$UPLOAD": '#!/bin/sh\n: > "$SG_CANARY"\nexec git upload-pack "$@"\n',
    "$RECEIVE": '#!/bin/sh\n: > "$SG_CANARY"\nexec git receive-pack "$@"\n',
    "$SSH": '#!/bin/sh\n: > "$SG_CANARY"\nfor a; do last=$a; done\nexec sh -c "$last"\n',
}


def _world(base: Path) -> dict:
    home, bin_, ws, server = base / "home", base / "bin", base / "ws", base / "server.git"
    home.mkdir()
    bin_.mkdir()
    values = {"$SERVER": str(server)}
    for name, text in _PROGS.items():
        path = bin_ / name[1:].lower()
        path.write_text(text)
        path.chmod(0o755)
        values[name] = str(path)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
           "SG_CANARY": str(base / "canary"), "GIT_TERMINAL_PROMPT": "0", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.invalid"}

    def git(*args: str, cwd: Path = base) -> None:
        subprocess.run([GIT or "git", *args], cwd=cwd, env=env, check=True, capture_output=True)

    seed = base / "seed"
    git("init", "-q", "-b", "main", str(seed))
    (seed / ".gitattributes").write_text("*.txt filter=flt\n")
    (seed / "a.txt").write_text("one\n")
    git("add", ".", cwd=seed)
    git("commit", "-qm", "one", cwd=seed)
    git("clone", "-q", "--bare", str(seed), str(server))
    git("clone", "-q", f"file://{server}", str(ws))
    git("clone", "-q", "--bare", f"file://{server}", str(ws / "vendor" / "lib"))
    (seed / "a.txt").write_text("two\n")            # the server moves on: fetch and pull have work
    git("commit", "-qam", "two", cwd=seed)
    git("push", "-q", str(server), "main", cwd=seed)
    return {"base": base, "home": home, "ws": ws, "env": env, "values": values, "git": git}


@pytest.fixture
def world(tmp_path: Path) -> dict:
    return _world(Path(os.path.realpath(tmp_path)))


def _fill(world: dict, text: str) -> str:
    for name, value in world["values"].items():
        text = text.replace(name, value)
    return text


def _setup(world: dict, case: dict) -> None:
    repo = world["ws"] / ("vendor/lib" if case["repo"] == "lib" else ".git")
    target = world["home"] / ".gitconfig" if case.get("where") == "global" else repo / "config"
    for key, value in case["set"]:
        world["git"]("config", "-f", str(target), _fill(world, key), _fill(world, value))
    if case.get("hook"):
        hook = repo / "hooks" / case["hook"]
        hook.write_text(_PROGS["$PROG"])
        hook.chmod(0o755)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['cmd']} {c.get('hook') or c['set'][-1:]}"[:80])
def test_network_grant_only_without_program_keys(world: dict, case: dict) -> None:
    _setup(world, case)
    for mode in ("trust", "accept-edits", "balanced"):
        verdict = Gate(world["ws"], mode=mode, home=world["home"]).check(case["cmd"], cwd=world["ws"])
        if case["ask"]:
            assert verdict.decision == "ask", (mode, verdict.to_json())
            assert case["key"].lower() in verdict.reason.lower(), (mode, verdict.reason)
            assert verdict.rule == "approval.dangerous_path", verdict.rule   # never remembered
        elif mode == "trust":
            assert verdict.decision == "allow" and verdict.grant == "network", verdict.to_json()
    run = subprocess.run(["bash", "-c", case["cmd"]], cwd=world["ws"], env=world["env"], capture_output=True,
                         text=True, stdin=subprocess.DEVNULL)
    ran = (world["base"] / "canary").exists()
    if ran:
        assert case["ask"] or case.get("trusted"), f"real git ran the program: {run.stderr}"
    assert ran == bool(case.get("fires")), f"the fires label disagrees with real git: {run.stderr}"
