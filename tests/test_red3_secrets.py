"""Red-team findings: a secret's content printed by a command allowed in balanced mode.

``corpus/red3_secrets.jsonl``: each line is decided by the gate in a scratch workspace and HOME
holding canaries (``test_verdict``), and run by real bash in the same kind of tree with canary
values in the environment (``test_real_bash``, the oracle: the label says whether a canary is
printed). The findings:

* brace expansion composes a variable name the source never spells whole
  (``echo $O{PENAI_API_KEY,}`` is ``echo $OPENAI_API_KEY $O``; ``envsecrets._word_names``);
* ``printenv``/``declare -p`` operands made at run time, by an expansion, braces or a glob
  (``printenv "$@"`` with no parameters prints everything; ``envsecrets._named``);
* the words of a ``for``/``select`` list and of ``case`` belonged to no command, so no scanner
  saw them (``for x in $GITHUB_TOKEN; do echo $x; done``; ``Script.loose_words``);
* ``git grep --untracked`` searches every untracked file no ignore file names, not only with
  ``--no-exclude-standard`` (``roles.git_tree_spec``);
* credential files the leak table did not list: a workspace ``secrets/`` directory (Docker
  Compose file secrets), ``~/.config/composer/auth.json``, ``~/.cache/huggingface/token`` …
  (lines with "ws"/"home": files written there for the line).

Skipped, with the reason, where bash or git is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.bash.facts import PathClass
from shellgate.check import Gate

CASES = load("red3_secrets.jsonl")
BASH = shutil.which("bash")
GIT = shutil.which("git")
HOME_FILES = {
    ".ssh/id_rsa": "CANARY-ssh\n", ".aws/credentials": "[default]\naws_secret_access_key = CANARY-aws\n",
    ".config/gh/hosts.yml": "github.com:\n    oauth_token: CANARY-gh\n",
    ".netrc": "machine example.com login me password CANARY-netrc\n",
    ".git-credentials": "https://me:CANARY-gitcred@github.com\n",
    ".docker/config.json": '{"auths": {"x": {"auth": "CANARY-docker"}}}\n',
    ".kube/config": "users:\n- user:\n    token: CANARY-kube\n",
}
SECRETS = {"OPENAI_API_KEY": "sk-CANARYoa1", "AWS_SECRET_ACCESS_KEY": "CANARYaws/Kx+9z",
           "GITHUB_TOKEN": "ghp_CANARYgh1"}
_ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}


def _ids(case: dict) -> str:
    return f"{case.get('world', 'plain')}:{case['cmd'][:60]!r}"


def _world(base: Path, case: dict) -> tuple[Path, Path]:
    """The scratch workspace and HOME of the module docstring."""
    if GIT is None:
        pytest.skip("git is not installed")
    ws, home = base / "ws", base / "home"
    for rel, text in HOME_FILES.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(text)
    ws.mkdir()
    env = {**_ENV, "HOME": str(home)}
    subprocess.run([GIT, "init", "-q", str(ws)], check=True, env=env)
    (ws / "README.md").write_text("hello\n")
    (ws / "src").mkdir()
    (ws / "src" / "app.py").write_text("print('hello')\n")
    if case.get("world") == "ignored":
        (ws / ".gitignore").write_text(".env\nsecrets/\n")
    subprocess.run([GIT, "add", "-A"], cwd=ws, check=True, env=env)
    subprocess.run([GIT, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"], cwd=ws,
                   check=True, env=env)
    (ws / ".env").write_text("DB_PASSWORD=CANARY-env\n")
    (ws / "secrets").mkdir()
    (ws / "secrets" / "api.key").write_text("CANARY-secretsdir\n")
    for name in case.get("files", ()):
        (ws / name).touch()
    for root, key in ((ws, "ws"), (home, "home")):
        for rel, text in case.get(key, {}).items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text)
    return ws, home


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_verdict(case: dict, tmp_path: Path) -> None:
    ws, home = _world(Path(os.path.realpath(tmp_path)), case)
    verdict = Gate(ws, mode="balanced", home=home, terminal=False).check(case["cmd"], cwd=ws)
    a = verdict.analysis
    if not case["refuse"]:
        assert verdict.decision == "allow", verdict.to_json()
        return
    assert verdict.decision != "allow", verdict.to_json()
    leaks = [h for h in a.sensitive if h.cls is PathClass.LEAK]
    assert leaks, verdict.to_json()
    spans = [case["cmd"][r.span[0]:r.span[1]] for r in a.reasons if r.span is not None]
    assert any(case["word"] in s for s in spans), ([r.message for r in a.reasons], spans)


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_real_bash(case: dict, tmp_path: Path) -> None:
    """The oracle: whether real bash prints a canary (stdout or stderr)."""
    ws, home = _world(tmp_path, case)
    run = subprocess.run([BASH, "-c", case["cmd"]], cwd=ws, env={**_ENV, "HOME": str(home), **SECRETS},
                         capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=30)
    out = run.stdout + run.stderr
    assert ("CANARY" in out) == case["leak"], out[-2000:]
