"""Sandbox holes closed in the sandbox itself (corpus/sandbox_caps.jsonl), each run for real
under every tier this machine has.

``guard``: Landlock cannot keep ``.git/hooks`` read-only inside a writable workspace (a right on
a directory holds for everything below it; ``link(2)`` needs only MAKE_REG on the new name's
directory, and REFER, which the workspace has, across directories), so the guard restores the
hook after the command. It used to put back a new inode: a hook the user hard-links from
``~/githooks`` kept the command's bytes under that other name, run by every repository that
links it. Now the bytes go back into the very inode, and a name the command gave the hook
(``ln .git/hooks/pre-commit h``) is cut off from it.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
from _helpers import sandbox_or_skip
from conftest import load

from shellgate.sandbox import build_policy

ROWS = load("sandbox_caps.jsonl")
GUARD = [r for r in ROWS if r["kind"] == "guard"]
HOOK = "#!/bin/sh\nexit 0\n"
TIERS = ["bwrap", "bwrap-fresh", "landlock"]


def _linked_hook_world(tmp: Path) -> tuple[Path, Path, Path]:
    """(workspace, home, the user's shared hook): ``ws/.git/hooks/pre-commit`` is a hard link
    of ``home/githooks/pre-commit``."""
    ws, home = tmp / "ws", tmp / "home"
    (home / "githooks").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(ws)], check=True)
    for k, v in (("user.email", "t@example.invalid"), ("user.name", "t")):
        subprocess.run(["git", "-C", str(ws), "config", k, v], check=True)
    shared = home / "githooks" / "pre-commit"
    shared.write_text(HOOK)
    shared.chmod(0o755)
    os.link(shared, ws / ".git" / "hooks" / "pre-commit")
    (ws / "a").write_text("a\n")
    return ws, home, shared


def _names_of(root: Path, ino: int) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if p.is_file() and not p.is_symlink() and p.stat().st_ino == ino)


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("row", GUARD, ids=[r["why"] for r in GUARD])
def test_a_hooks_other_names_keep_its_bytes(tmp_path, tier, row):
    sb = sandbox_or_skip(tier)
    ws, home, shared = _linked_hook_world(tmp_path)
    hook = ws / ".git" / "hooks" / "pre-commit"
    try:
        r = sb.run(row["cmd"], build_policy(ws, home=home), ws)
    finally:
        sb.close()
    assert r.exit_code is not None, r.stderr
    assert shared.read_text() == HOOK, (r.violations, r.stderr)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o755
    assert hook.read_text() == HOOK
    assert _names_of(ws, hook.stat().st_ino) == [".git/hooks/pre-commit"], r.violations
    assert not (home / "pwned").exists()


def test_a_written_hook_keeps_the_users_hard_link(tmp_path):
    """Written through its own name and put back, the hook is still the user's shared file."""
    sb = sandbox_or_skip("landlock")
    ws, home, shared = _linked_hook_world(tmp_path)
    try:
        r = sb.run("echo 'touch $HOME/pwned' >> .git/hooks/pre-commit",
                   build_policy(ws, home=home), ws)
    finally:
        sb.close()
    assert r.violations
    assert os.path.samefile(shared, ws / ".git" / "hooks" / "pre-commit")
