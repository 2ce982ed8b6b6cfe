"""Credentials inside config files, the follow-ups of test_cfg_secrets.py
(corpus/cfg_secrets2.jsonl).

* The files a git config includes (``[include] path = ~/.gitconfig-work``, ``[includeIf
  "gitdir:~/work/"] path = …``, a CI checkout's ``includeIf`` of a credentials file in the
  repository's config): ``cat ~/.gitconfig-work`` printed the token the content check of
  ``~/.gitconfig`` would have caught in ``~/.gitconfig`` itself.

Its lines run in test_secret_files.py (the gate's verdict, the oracle in real bash, both sandbox
tiers with a confined reader's policy), and test_cfg_secrets.py reads the files a refused line
plants in the sandbox with a ``python3 -c`` the classifier never sees the path of; here, the
bounds and odd cases of the include walk.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.usefixtures("no_leaked_sandboxes")






def _ask(cmd: str, ws: Path, home: Path) -> str:
    from shellgate.check import Gate

    return Gate(ws, mode="balanced", home=home, terminal=False).check(cmd, cwd=ws).decision


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for name in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM"):
        monkeypatch.delenv(name, raising=False)
    return ws, home


def test_includes_past_the_bound_make_the_including_file_a_secret(world: tuple[Path, Path]) -> None:
    """More included files than are followed: the file that names the rest is a secret itself
    (what it includes is not known), and the ones followed are checked."""
    ws, home = world
    (home / ".gitconfig").write_text("".join(f"[include]\n\tpath = inc{i}\n" for i in range(80)))
    for i in range(80):
        (home / f"inc{i}").write_text("[user]\n\tname = x\n")
    assert _ask("cat ~/.gitconfig", ws, home) != "allow"
    assert _ask("cat ~/inc3", ws, home) == "allow"


def test_an_include_cycle_ends_and_its_token_is_found(world: tuple[Path, Path]) -> None:
    ws, home = world
    (home / ".gitconfig").write_text("[include]\n\tpath = a.inc\n")
    (home / "a.inc").write_text("[include]\n\tpath = b.inc\n")
    (home / "b.inc").write_text("[include]\n\tpath = a.inc\n[http]\n\textraHeader = Authorization: x\n")
    assert _ask("cat ~/b.inc", ws, home) != "allow"
    assert _ask("cat ~/a.inc", ws, home) == "allow"


def test_an_included_name_with_glob_characters(world: tuple[Path, Path]) -> None:
    """The table reads its patterns as globs: a literal name with ``[``, ``*`` or braces is
    entered as a pattern that matches it (and a little more)."""
    ws, home = world
    (home / ".gitconfig").write_text("[include]\n\tpath = ~/.gitconfig-[w]{o}*\n")
    (home / ".gitconfig-[w]{o}*").write_text("[http]\n\textraHeader = Authorization: x\n")
    assert _ask("cat ~/'.gitconfig-[w]{o}*'", ws, home) != "allow"


def test_a_decision_without_includes_loads_no_git_module(tmp_path: Path) -> None:
    """The hook path stays lean: the configuration is looked at for the word ``include`` before
    the git modules are imported, so ``cat README.md`` loads none of them."""
    import subprocess
    import sys

    ws, home = tmp_path / "ws", tmp_path / "home"
    (ws / ".git").mkdir(parents=True)
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = me\n")
    code = ("import sys; from pathlib import Path; from shellgate.check import Gate; "
            f"g = Gate(Path({str(ws)!r}), mode='balanced', home=Path({str(home)!r}), terminal=False); "
            f"print(g.check('cat README.md', cwd=Path({str(ws)!r})).decision, "
            "'shellgate.bash.git.config' in sys.modules)")
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
           "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=120, check=True).stdout.split()
    assert out == ["allow", "False"], out
