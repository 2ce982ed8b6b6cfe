"""Secret-named environment variables and whole-environment dumps are leak-class reads
(corpus/secrets_env.jsonl). Real bash (and procps ps) is the oracle: each line is run with canary
values in the environment, and the label must say whether the canary was printed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.bash.facts import PathClass
from shellgate.bash.paths.envsecrets import SECRET_ENV_NAMES, expanded_names, secret_pattern
from shellgate.check import Gate

CASES = load("secrets_env.jsonl")
BASH = shutil.which("bash")
CANARY = "CANARY7d41"
SECRETS = {"OPENAI_API_KEY": CANARY + "a", "AWS_SECRET_ACCESS_KEY": CANARY + "b",
           "GITHUB_TOKEN": CANARY + "c"}


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = Path(os.path.realpath(tmp_path_factory.mktemp("envsecrets")))
    (base / "ws").mkdir()
    (base / "home").mkdir()
    return base / "ws", base / "home"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:50])
def test_secret_environment_is_a_leak(ws: tuple[Path, Path], case: dict) -> None:
    root, home = ws
    verdict = Gate(root, mode="balanced", home=home).check(case["cmd"], cwd=root)
    leaks = [h for h in verdict.analysis.sensitive if h.cls is PathClass.LEAK]
    if case["leak"]:
        assert leaks and verdict.decision != "allow", verdict.to_json()
    else:
        assert not leaks, leaks
        assert (verdict.decision == "allow") == case.get("allow", True), verdict.to_json()


@pytest.mark.skipif(BASH is None or shutil.which("ps") is None, reason="no bash or ps")
@pytest.mark.parametrize("case", [c for c in CASES if c.get("oracle", True)], ids=lambda c: c["cmd"][:50])
def test_label_agrees_with_bash(ws: tuple[Path, Path], case: dict) -> None:
    root, home = ws
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), **SECRETS}
    run = subprocess.run([BASH, "-c", case["cmd"]], cwd=root, env=env, capture_output=True, text=True,
                         stdin=subprocess.DEVNULL)
    assert (CANARY in run.stdout) == case["leak"], run.stdout[-2000:]


@pytest.mark.parametrize(("raw", "names"), [
    ("$A", ["A"]), ("${B:-x}", ["B"]), ("${#C}", ["C"]), ("'$D'", []), ('"$E"', ["E"]),
    ("\\$F", []), ("$'$G'", []), ('"$(echo $H)"', ["H"]), ("x${I}y$J", ["I", "J"]),
])
def test_expanded_names(raw: str, names: list[str]) -> None:
    assert list(expanded_names(raw)) == names


@pytest.mark.parametrize(("name", "secret"), [
    ("OPENAI_API_KEY", True), ("GITHUB_TOKEN", True), ("AWS_ACCESS_KEY_ID", True), ("DB_PASSWORD", True),
    ("GITLAB_PAT", True), ("DATABASE_URL", True), ("github_token", True), ("MYSQL_PWD", True),
    ("SMTP_PASS", True), ("DB_PW", True), ("SLACK_WEBHOOK_URL", True),
    ("HOME", False), ("PATH", False), ("VIRTUAL_ENV", False), ("TERM", False), ("PWD", False),
    ("OLDPWD", False), ("BYPASS", False), ("NO_BYPASS", False),
])
def test_secret_names(name: str, secret: bool) -> None:
    assert (secret_pattern(name) is not None) == secret, SECRET_ENV_NAMES
