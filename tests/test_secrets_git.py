"""Credentials in git configuration (corpus/secrets_git.jsonl): whole-config listings are always
leak-class reads; forms that print one value or the remote URLs are, where the configuration in
scope holds a credential. Real git is the oracle: each line is run in the same repositories and
its label must say whether the canary was printed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.bash.facts import PathClass
from shellgate.check import Gate

CASES = load("secrets_git.jsonl")
GIT = shutil.which("git")
CANARY = "ghs_CANARY0f3e"
pytestmark = pytest.mark.skipif(GIT is None, reason="no git")


def _git(env: dict[str, str], *args: str) -> None:
    subprocess.run([GIT or "git", *args], env=env, check=True, capture_output=True)


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    base = Path(os.path.realpath(tmp_path_factory.mktemp("gitsecrets")))
    home, ws = base / "home", base / "ws"
    home.mkdir()
    ws.mkdir()
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    plain, with_token = "https://github.com/o/r", f"https://x-access-token:{CANARY}@github.com/o/r"
    for name in ("clean", "token", "header", "insteadof", "include"):
        _git(env, "init", "-q", str(ws / name))
        _git(env, "-C", str(ws / name), "remote", "add", "origin", with_token if name == "token" else plain)
    _git(env, "-C", str(ws / "header"), "config", "http.https://github.com/.extraheader",
         f"AUTHORIZATION: basic {CANARY}")
    _git(env, "-C", str(ws / "insteadof"), "config", f"url.https://{CANARY}@github.com/.insteadOf",
         "https://github.com/")
    (ws / "include" / "creds.inc").write_text(f'[remote "origin"]\n\turl = {with_token}\n')
    _git(env, "-C", str(ws / "include"), "config", "include.path", "../creds.inc")
    _git(env, "init", "-q", "--bare", str(ws / "bare.git"))
    _git(env, "-C", str(ws / "bare.git"), "remote", "add", "origin", with_token)
    return home, ws, env


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['dir']}:{c['cmd']}")
def test_credential_output_is_a_leak(repos: tuple[Path, Path, dict[str, str]], case: dict) -> None:
    home, ws, env = repos
    cwd = ws / case["dir"]
    verdict = Gate(ws, mode="balanced", home=home).check(case["cmd"], cwd=cwd)
    leaks = [h for h in verdict.analysis.sensitive if h.cls is PathClass.LEAK]
    assert bool(leaks) == case["hit"], verdict.to_json()
    if case["hit"]:
        assert verdict.decision != "allow"


@pytest.mark.parametrize("case", [c for c in CASES if c.get("oracle", True)],
                         ids=lambda c: f"{c['dir']}:{c['cmd']}")
def test_label_agrees_with_git(repos: tuple[Path, Path, dict[str, str]], case: dict) -> None:
    home, ws, env = repos
    run = subprocess.run(["bash", "-c", case["cmd"]], cwd=ws / case["dir"], env=env, capture_output=True,
                         text=True, stdin=subprocess.DEVNULL)
    assert (CANARY in run.stdout) == case["leak"], run.stdout + run.stderr
    assert case["hit"] or not case["leak"], "a command that prints the canary must be a hit"
