"""Credential files a command could read although they hold secrets (corpus/secret_files.jsonl).

The path table (shellgate/bash/paths/tables.py) listed some of these files as implants only —
``~/.m2/settings.xml``, ``~/.gradle/gradle.properties``, ``~/.yarnrc.yml``, ``pip.conf``: a write
was refused, a read allowed — and did not list others at all (``~/.bundle/config``, NuGet.Config,
``~/.azure/…`` beyond two file names, Helm, Vercel, Netlify, Jupyter's runtime keys, the VS Code
secret store …). And a directory an implant-only entry names (``.devcontainer/**``,
``~/.config/pip/**``) was not searched for the secrets below it, nor checked for being a hard link of
one, so ``grep -r x .devcontainer`` read ``.devcontainer/.env``. Three tests per line:

* ``test_verdict``: the gate's answer (a refusal names the word, as a leak-class read);
* ``test_real_bash``: the oracle, real bash prints the canary (or, for an allowed line, no canary);
* ``test_in_the_sandbox``: the line run in the real sandbox with the hook's policy for a confined
  read (``grant_policy``): no canary, and an allowed line prints what it prints outside.

Skipped, with the reason, where bash, git or a sandbox tier is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from _helpers import sandbox_or_skip
from conftest import load

from shellgate.bash.facts import PathClass
from shellgate.check import Gate

# Every corpus of secret files runs through the same three checks below: the credential stores,
# credentials inside config files (cfg_secrets, cfg_secrets2) and red6's lines that hid one.
CASES = [*load("secret_files.jsonl"), *load("cfg_secrets.jsonl"), *load("cfg_secrets2.jsonl"),
         *(c for c in load("red6.jsonl") if "kind" not in c)]
BASH = shutil.which("bash")
GIT = shutil.which("git")
_ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
pytestmark = pytest.mark.usefixtures("no_leaked_sandboxes")


def _ids(case: dict) -> str:
    return f"{'refuse' if case['refuse'] else 'allow'}:{case['cmd'][:60]!r}"


def _world(base: Path, case: dict, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """The scratch workspace and HOME, XDG_CONFIG_HOME and XDG_DATA_HOME moved out of HOME (as
    the environment the gate runs in says), and the line's files written there."""
    if GIT is None:
        pytest.skip("git is not installed")
    w = {"ws": base / "ws", "home": base / "home", "cfg": base / "xdg-config", "data": base / "xdg-data"}
    for d in w.values():
        d.mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(w["cfg"]))
    monkeypatch.setenv("XDG_DATA_HOME", str(w["data"]))
    env = {**_ENV, "HOME": str(w["home"])}
    subprocess.run([GIT, "init", "-q", str(w["ws"])], check=True, env=env)
    (w["ws"] / "README.md").write_text("hello\n")
    (w["ws"] / "src").mkdir()
    (w["ws"] / "src" / "app.py").write_text("print('hello')\n")
    for key in ("home", "ws", "cfg", "data"):
        for rel, text in case.get(key, {}).items():
            (w[key] / rel).parent.mkdir(parents=True, exist_ok=True)
            (w[key] / rel).write_text(text)
    for rel, target in case.get("hardlinks", {}).items():
        (w["ws"] / rel).parent.mkdir(parents=True, exist_ok=True)
        os.link(w["home"] / target, w["ws"] / rel)
    return w


def _fill(text: str, w: dict[str, Path]) -> str:
    return text.replace("$CFG", str(w["cfg"])).replace("$DATA", str(w["data"]))


def _bash(cmd: str, w: dict[str, Path]) -> str:
    run = subprocess.run([BASH or "bash", "-c", cmd], cwd=w["ws"], capture_output=True, text=True,
                         env={**_ENV, "HOME": str(w["home"]), "XDG_CONFIG_HOME": str(w["cfg"]),
                              "XDG_DATA_HOME": str(w["data"])}, stdin=subprocess.DEVNULL, timeout=30)
    return run.stdout + run.stderr


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_verdict(case: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    w = _world(Path(os.path.realpath(tmp_path)), case, monkeypatch)
    cmd = _fill(case["cmd"], w)
    verdict = Gate(w["ws"], mode="balanced", home=w["home"], terminal=False).check(cmd, cwd=w["ws"])
    if not case["refuse"]:
        assert verdict.decision == "allow", verdict.to_json()
        return
    a = verdict.analysis
    assert verdict.decision != "allow", verdict.to_json()
    assert [h for h in a.sensitive if h.cls is PathClass.LEAK], verdict.to_json()
    spans = [cmd[r.span[0]:r.span[1]] for r in a.reasons if r.span is not None]
    assert any(_fill(case["word"], w) in s for s in spans), ([r.message for r in a.reasons], spans)


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("case", [c for c in CASES if c["leak"] is not None], ids=_ids)
def test_real_bash(case: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracle: real bash prints the canary of a refused line (stdout or stderr)."""
    w = _world(tmp_path, case, monkeypatch)
    out = _bash(_fill(case["cmd"], w), w)
    assert ("CANARY" in out) == case["leak"], out[-2000:]


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("tier", ["bwrap", "landlock"])
@pytest.mark.parametrize("case", [c for c in CASES if c["leak"] is not None], ids=_ids)
def test_in_the_sandbox(case: dict, tier: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same line in the real sandbox, with the policy of a hook's confined read: a secret
    file is hidden there too (the sandbox's masks come from the same table), and the nearby
    files an allowed line reads are not."""
    from shellgate.sandbox.locations import grant_policy

    if "sandbox" in case:
        pytest.skip(f"a known limit of the sandbox: {case['sandbox']}")
    w = _world(Path(os.path.realpath(tmp_path)), case, monkeypatch)
    cmd = _fill(case["cmd"], w)
    sb = sandbox_or_skip(tier)
    try:
        policy, _notes = grant_policy(w["ws"], write=False, network=False, home=w["home"])
        res = sb.run(cmd, policy)
    finally:
        sb.close()
    inside = res.stdout + res.stderr
    assert "CANARY" not in inside, inside[-2000:]
    if not case["refuse"]:
        outside = _bash(cmd, w)
        assert [ln for ln in outside.splitlines() if "PLAIN-" in ln] \
            == [ln for ln in inside.splitlines() if "PLAIN-" in ln], (outside, inside)


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize("tier", ["bwrap", "landlock"])
@pytest.mark.parametrize("cmd", ["ps -eo args", "ps axww", "pgrep -af ."])
def test_other_command_lines_are_not_seen_in_the_sandbox(cmd: str, tier: str, tmp_path: Path) -> None:
    """The classifier allows listing processes, and outside a sandbox the list holds every
    process's command line (``mysql -pPASSWORD``, ``curl -H 'Authorization: …'`` of another
    session). Inside, bwrap's pid namespace shows the sandbox's own processes only, and the
    Landlock tier grants no ``/proc/<pid>`` (landlock.proc_grants); the positive control is the
    same command run outside."""
    from shellgate.sandbox import build_policy

    # A builtin read keeps bash (and its argv) alive; Popen returns once the exec is done.
    victim = subprocess.Popen([BASH or "bash", "-c", "read -r _", "mysql -pCANARY-argv"],
                              stdin=subprocess.PIPE)
    try:
        (tmp_path / "ws").mkdir()
        (tmp_path / "home").mkdir()
        outside = subprocess.run([BASH or "bash", "-c", cmd], capture_output=True, text=True, timeout=30)
        sb = sandbox_or_skip(tier)
        try:
            res = sb.run(cmd, build_policy(tmp_path / "ws", home=tmp_path / "home"))
        finally:
            sb.close()
    finally:
        victim.kill()
        victim.wait()
    assert "CANARY-argv" in outside.stdout
    assert "CANARY" not in res.stdout + res.stderr, res.stdout
