"""Credentials a config file hid from the content checks (corpus/red6.jsonl).

``paths/content.py`` read a project's ``.npmrc``/``.yarnrc``/``.yarnrc.yml`` by a regex over
Python's lines: a key named for a credential, a separator, a value. npm's ini parser reads more
lines as a token than that: a key it trims with JavaScript's ``trim()`` (a form feed, a vertical
tab or U+2028 before the ``=``), a quoted key it JSON-decodes (``"…:_auth\\u0054oken"``), an
unquoted key it cuts at ``#`` or ``;``, an array key (``_authToken[]``), a key with ``${X?}``
in it. ``cat .npmrc`` printed each, and npm sent it as ``Bearer`` to the registry. Now a line
is read only when its shape is plain (printable ASCII, no backslash, a key of plain
characters); any other line holds a credential, and so does a credential word anywhere but in
a ``KEY=${VAR}`` line.

``gitconfig.credential_entry`` looked at keys and URLs: a ``credential.helper`` shell snippet
that echoes the password (``!f() { echo password=…; }; f``, which git ran and sent as Basic
auth) and an Authorization header split by a backslash-newline were not credentials, so
``cat ~/.gitconfig`` printed them. A helper now keeps its secret elsewhere only when it is a
helper's name with plain arguments, or a git-credential-* or known CLI's command.

Each line runs as test_secret_files.py runs its own (the verdict naming the word, real bash
printing the canary of a refused line), and the oracle of its row shows that the program reads
the hidden text as a credential: ``npm config list`` holds the key as a protected token,
``git credential fill`` prints the password.

A command's own check read a glob operand's text as the name the program gets:
``sysctl kernel.domainname*`` passed sysctl's check (no ``=`` in the word) and bash expanded it
to a file ``kernel.domainname=…`` of the cwd, which sysctl wrote to the kernel. A check that does
not read globs (``Command.globs``) now sees a glob word as one known only at run time (the
``kind: glob`` rows, run in a UTS namespace of their own).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
import test_secret_files as sf
from conftest import load

from shellgate.bash.git.config import Entry, credential_entry
from shellgate.bash.paths.content import CHECKS
from shellgate.check import Gate

ALL = load("red6.jsonl")
CASES = [c for c in ALL if "kind" not in c]
GLOBS = [c for c in ALL if c.get("kind") == "glob"]
NPM = shutil.which("npm")
GIT = shutil.which("git")
pytestmark = pytest.mark.usefixtures("no_leaked_sandboxes")





def _env(home: Path) -> dict[str, str]:
    return {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8",
            "GIT_TERMINAL_PROMPT": "0", "npm_config_update_notifier": "false"}


@pytest.mark.parametrize("case", [c for c in CASES if c.get("oracle") == "npm"], ids=sf._ids)
def test_npm_reads_the_token(case: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """npm holds the hidden key as its token (shown ``(protected)``; against a registry it sent
    ``Authorization: Bearer CANARY…``)."""
    if NPM is None:
        pytest.skip("npm is not installed")
    w = sf._world(tmp_path, case, monkeypatch)
    rel = next(iter(case["ws"]))
    out = subprocess.run([NPM, "config", "list"], cwd=w["ws"] / Path(rel).parent, env=_env(w["home"]),
                         capture_output=True, text=True, timeout=120).stdout
    assert "//registry.npmjs.org/:_authToken = (protected)" in out, out


@pytest.mark.parametrize("case", [c for c in CASES if c.get("oracle") == "git"], ids=sf._ids)
def test_git_sends_the_password(case: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """git runs the helper and takes the password it prints from the config's own text."""
    if GIT is None:
        pytest.skip("git is not installed")
    w = sf._world(tmp_path, case, monkeypatch)
    res = subprocess.run([GIT, "credential", "fill"], cwd=w["ws"], env=_env(w["home"]),
                         input="protocol=https\nhost=example.com\n\n", capture_output=True, text=True,
                         timeout=60)
    assert "password=CANARY" in res.stdout, (res.stdout, res.stderr)


@pytest.mark.parametrize(("text", "holds"), [
    ("//r.example/:_authToken\f=x\n", True),
    ("//r.example/:_authToken\u2028=x\n", True),
    ('"//r.example/:_auth\\u0054oken"=x\n', True),
    ("//r.example/:_authToken#c=x\n", True),
    ("//r.example/:_authToken[]=x\n", True),
    ("//r.example/:_auth${X?}Token=x\n", True),
    ("//r.example/:_authToken=${NPM_TOKEN}\n", False),
    ("//r.example/:_authToken=${NPM_TOKEN?}\n", True),
    ("registry=https://r.example/\r\nsave-exact=true\r\n", False),
    ("cache=${HOME}/.npm\n", False),
    ("npmAuthToken\n", True),
    ("? npmAuthToken\n: x\n", True),
    ("x: !!binary eA==\n", True),
    ("- PLAIN\n-\n---\n...\n", False),
])
def test_npm_check(text: str, holds: bool, tmp_path: Path) -> None:
    f = tmp_path / ".npmrc"
    f.write_text(text, newline="")
    assert CHECKS["npm-config"](str(f)) is holds


@pytest.mark.parametrize(("value", "holds"), [
    ("store", False), ("store --file ~/.git-credentials", False), ("cache --timeout=3600", False),
    ("libsecret", False), ("manager-core", False), ("", False),
    ("/usr/share/doc/git/contrib/credential/libsecret/git-credential-libsecret", False),
    ("!/usr/bin/gh auth git-credential", False), ("!glab auth git-credential", False),
    ("!aws codecommit credential-helper $@", False),
    ("!f() { echo password=x; }; f", True), ("!echo username=u password=x", True),
    ("!/usr/bin/gh api x", True), ("/bin/cat /etc/hostname", True), ("store --password x", True),
    ("!sed -e s/protocol.https/pqssword.x/ -e y/q./a=/", True),
])
def test_credential_helper(value: str, holds: bool) -> None:
    assert credential_entry(Entry("credential", None, "helper", value)) is holds
    assert credential_entry(Entry("credential", "https://example.com", "helper", value)) is holds


UNSHARE = shutil.which("unshare")
SYSCTL = shutil.which("sysctl") or next(
    (p for p in ("/usr/sbin/sysctl", "/sbin/sysctl") if os.path.exists(p)), None)


def _ws(tmp_path: Path, case: dict) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    for rel, text in case["files"].items():
        (ws / rel).write_text(text)
    return ws


@pytest.mark.parametrize("case", GLOBS, ids=sf._ids)
def test_glob_verdict(case: dict, tmp_path: Path) -> None:
    ws = _ws(tmp_path, case)
    for mode in ("balanced", "accept-edits"):
        verdict = Gate(ws, mode=mode, home=tmp_path, terminal=False).check(case["cmd"], cwd=ws)
        if not case["refuse"]:
            assert verdict.decision == "allow", verdict.to_json()
            continue
        assert verdict.decision != "allow", verdict.to_json()
        spans = [case["cmd"][r.span[0]:r.span[1]] for r in verdict.analysis.reasons if r.span]
        assert case["word"] in spans, verdict.to_json()


@pytest.mark.parametrize("case", GLOBS, ids=sf._ids)
def test_glob_effect(case: dict, tmp_path: Path) -> None:
    """The oracle: in a UTS namespace of its own, real bash and sysctl set the domain name
    from the file's name for a refused line, and leave it for an allowed one."""
    if UNSHARE is None or SYSCTL is None or sf.BASH is None:
        pytest.skip("unshare, sysctl or bash is not installed")
    ws = _ws(tmp_path, case)
    script = (f'PATH="{os.path.dirname(SYSCTL)}:$PATH"; {case["cmd"]} >/dev/null 2>&1; '
              "cat /proc/sys/kernel/domainname")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path)}
    res = subprocess.run([UNSHARE, "-u", sf.BASH, "-c", script], cwd=ws, capture_output=True, text=True,
                         timeout=60, env=env)
    if res.returncode != 0 and "unshare" in res.stderr:
        pytest.skip(f"no UTS namespace here: {res.stderr.strip()}")
    assert ("CANARY-glob" in res.stdout) == case["refuse"], (res.stdout, res.stderr)
