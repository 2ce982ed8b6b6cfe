"""Real git is the oracle for which repository, files and environment the git checks read
(``corpus/git_setup_oracle.jsonl``): how git finds its repository (``HEAD`` as a symbolic link,
``refs`` as an executable file, a decoy ``.git`` it passes over, blanks kept in a gitdir file),
how it expands paths (``%(prefix)/``, ``~user/``), which submodules it enters, and what it reads
from its environment.

Each line's ``setup`` (a bash script, run in a fresh directory ``$W``) builds repositories
whose configuration runs ``$PROG``, a program that touches a canary file; each of its ``cmds``
is then asked of shellgate (in ``$W/<cwd>``, with the line's ``env`` in the environment) and run
by real git with the same environment: a command whose run touches the canary must not be
read-only to shellgate. ``fires``: real git touches the canary in at least one of them (a
positive control: the setup really does what the line says).
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

GIT = shutil.which("git")
LINES = load("git_setup_oracle.jsonl")
pytestmark = pytest.mark.skipif(GIT is None, reason="no git")

_SETUP = """
set -e
mkrepo() { git init -q -b main "$1"; echo a > "$1/a.txt"; git -C "$1" add a.txt; git -C "$1" commit -qm one; }
"""


def _up_to_root(path: str) -> str:
    """``../`` as many times as ``path`` is deep: ``path/<that>`` is ``/``."""
    return "../" * len(Path(path).parts[1:])


@pytest.mark.parametrize("line", LINES, ids=lambda c: c["what"])
def test_a_command_that_runs_the_program_is_not_readonly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         line: dict) -> None:
    base = Path(os.path.realpath(tmp_path))
    home, w, canary = base / "home", base / "w", base / "canary"
    home.mkdir()
    w.mkdir()
    prog = base / "prog"
    prog.write_text(f'#!/bin/sh\n: > "{canary}"\nexit 1\n')
    prog.chmod(0o755)
    user = pwd.getpwuid(os.getuid())
    prefix = os.path.dirname(os.path.dirname(os.path.realpath(GIT or "git")))
    values = {"$PROG": str(prog), "$W": str(w),
              "$TILDE_USER_ROOT": f"~{user.pw_name}/{_up_to_root(user.pw_dir)}",
              "$PREFIX_ROOT": f"%(prefix)/{_up_to_root(prefix)}"}

    def fill(text: str) -> str:
        for name, value in values.items():
            text = text.replace(name, value)
        return text

    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
           "LANG": "C", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e"}
    subprocess.run(["bash", "-c", _SETUP + fill(line["setup"])], cwd=w, env=env, check=True,
                   capture_output=True)
    env.update({k: fill(v) for k, v in line.get("env", {}).items()})
    for name in list(os.environ):   # the gate sees the environment git runs with
        monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    cwd = w / line.get("cwd", ".")
    fired, called_readonly = [], []
    for cmd in line["cmds"]:
        readonly = analyse(cmd, Context(cwd=cwd, workspace=w, home=home, terminal=False)).readonly
        canary.unlink(missing_ok=True)
        subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                       capture_output=True)
        if canary.exists():
            fired.append(cmd)
            if readonly:
                called_readonly.append(cmd)
    assert not called_readonly, f"real git ran the program; shellgate calls them read-only: {called_readonly}"
    if line.get("fires"):
        assert fired, "positive control: real git never touched the canary (the setup proves nothing)"
