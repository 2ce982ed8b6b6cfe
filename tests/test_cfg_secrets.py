"""Credentials inside ordinary config files (corpus/cfg_secrets.jsonl).

The path table named HOME's ``.npmrc``, ``.yarnrc(.yml)``, ``.bundle/config``,
``.docker/config.json`` and ``.cargo/credentials`` only, so ``cat .npmrc`` printed a project's
``_authToken`` — and the sandbox showed it to a confined reader. ``~/.gitconfig`` and
``~/.config/git/config`` were implants only: ``cat ~/.gitconfig`` printed an
``http.extraHeader`` bearer token or a token in a ``url.<base>.insteadOf``. The project's docker
and cargo files are secrets by name now; the config files a tool reads at every run are secrets
where their text holds a credential (``paths/content.py``), not otherwise: git, npm, Yarn and
Bundler need them, in the sandbox too.

The lines run as test_secret_files.py runs its own (the gate's verdict, the oracle in real bash,
the line in both sandbox tiers with a confined reader's policy); plus the content check's
fail-closed cases a corpus cannot plant (a FIFO, a file past the bound), and the sandbox's
masks for the files themselves, read by a ``python3 -c`` that is no shell word the classifier
saw.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import test_secret_files as sf
from _helpers import sandbox_or_skip
from conftest import load

from shellgate.bash.paths.content import CHECKS
from shellgate.check import Gate

# The lines are decided, run by bash and run in both tiers by test_secret_files.py; here, the
# files a refused line plants are read by a confined program (cfg_secrets2's too).
CASES = [*load("cfg_secrets.jsonl"), *load("cfg_secrets2.jsonl")]
PYTHON = shutil.which("python3")
pytestmark = pytest.mark.usefixtures("no_leaked_sandboxes")





@pytest.mark.skipif(PYTHON is None, reason="python3 is not on PATH")
@pytest.mark.parametrize("tier", ["bwrap", "landlock"])
@pytest.mark.parametrize("case", [c for c in CASES if c["refuse"] and "$" not in c["cmd"]], ids=sf._ids)
def test_confined_reader_sees_no_canary(case: dict, tier: str, tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file a refused line plants, read in the sandbox by a program the classifier never
    sees the path of (the hook lets ``python3 -c`` run confined): the mask, not the verdict."""
    from shellgate.sandbox.locations import grant_policy

    w = sf._world(Path(os.path.realpath(tmp_path)), case, monkeypatch)
    planted = [w[k] / rel for k in ("home", "ws", "cfg") for rel in case.get(k, {})]
    sb = sandbox_or_skip(tier)
    try:
        policy, _notes = grant_policy(w["ws"], write=False, network=False, home=w["home"])
        for f in planted:
            res = sb.run(f"python3 -c 'import sys; print(open(sys.argv[1]).read())' '{f}'", policy)
            assert "CANARY" not in res.stdout + res.stderr, (f, res.stdout[-500:])
    finally:
        sb.close()


@pytest.mark.parametrize("when", sorted(CHECKS))
def test_content_check_fails_closed(when: str, tmp_path: Path) -> None:
    """What cannot be read as plain UTF-8 text within the bound holds a credential, for every
    check; a missing file holds none."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    big = tmp_path / "big"
    big.write_text("# x\n" * (1 << 19))
    binary = tmp_path / "bin"
    binary.write_bytes(b"# \xff\n")
    check = CHECKS[when]
    for odd in (fifo, big, binary, tmp_path):
        assert check(str(odd)), odd
    assert not check(str(tmp_path / "missing"))


@pytest.mark.parametrize(("when", "text", "holds"), [
    ("npm-config", "//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n", False),
    ("npm-config", "npmAuthToken: \"${NPM_TOKEN}\"\n", False),
    ("npm-config", "npmAuthToken: \"${NPM_TOKEN}x\"\n", True),
    ("npm-config", "registry=https://r.example/\nsave-exact=true\n", False),
    ("npm-config", "registry=https://u:p@r.example/\n", True),
    ("npm-config", "//r.example/:_password=cGFzcw==\n", True),
    ("npm-config", "npmScopes:\n  acme:\n    npmAuthIdent: \"u:p\"\n", True),
    ("npm-config", "# _authToken=npm_abc\n", True),
    ("bundle-config", "---\nBUNDLE_PATH: \"vendor/bundle\"\nBUNDLE_DEPLOYMENT: \"true\"\n", False),
    ("bundle-config", "---\nBUNDLE_GEMS__EXAMPLE__COM: \"u:p\"\n", True),
    ("git-config", "[user]\n\tname = me\n[remote \"o\"]\n\turl = git@github.com:o/r\n", False),
    ("git-config", "[remote \"o\"]\n\turl = ssh://git@github.com/o/r\n", False),
    ("git-config", "[credential]\n\thelper = store\n", False),
    ("git-config", "[http]\n\tcookieFile = ~/.cookies\n", True),
])
def test_content_checks(when: str, text: str, holds: bool, tmp_path: Path) -> None:
    """Each check's reading of a few texts: an environment reference is no token; a key named
    for a credential with any other value is one."""
    f = tmp_path / "f"
    f.write_text(text)
    assert CHECKS[when](str(f)) is holds


def test_a_fifo_gitconfig_is_asked_about(tmp_path: Path) -> None:
    """A FIFO at ~/.gitconfig: the decision does not wait for a writer, and fails closed."""
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    os.mkfifo(home / ".gitconfig")
    verdict = Gate(ws, mode="balanced", home=home, terminal=False).check("cat ~/.gitconfig", cwd=ws)
    assert verdict.decision != "allow", verdict.to_json()
