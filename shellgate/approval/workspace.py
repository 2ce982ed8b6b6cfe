"""Which workspace a call runs in: the live cwd's git worktree, when it belongs to the same
repository as the start-up workspace.

The write-up's ``CwdFromContext``: a worktree entered during the turn wins over the cwd at
start-up, so path checks, audit and the dangerous-path check line up with where the tool
really runs. A live cwd that is *not* a worktree of the same repository (``cd /etc``) never
widens the workspace: it only becomes the cwd that relative paths resolve against.
"""

from __future__ import annotations

import os
from functools import lru_cache

from .._plain import read_plain
from .._record import record

_MAX_POINTER = 1 << 20   # a .git file or commondir bigger than this: git refuses it too


@record
class GitDirs:
    top: str      # the worktree's top-level directory
    common: str   # the repository's common git dir (shared by all its worktrees)


def _read_gitfile(path: str) -> str | None:
    try:
        first = read_plain(path, _MAX_POINTER, follow=True).decode("utf-8").partition("\n")[0]
    except (OSError, UnicodeDecodeError):
        return None
    first = first.strip()
    return first[len("gitdir:"):].strip() if first.startswith("gitdir:") else None


@lru_cache(maxsize=256)
def git_dirs(path: str) -> GitDirs | None:
    """The git worktree holding ``path`` (walking up), or None. Reads files, runs no git."""
    p = os.path.abspath(path)
    for _ in range(256):
        dotgit = os.path.join(p, ".git")
        if os.path.isdir(dotgit):
            return GitDirs(p, os.path.realpath(dotgit))
        if os.path.isfile(dotgit):
            gitdir = _read_gitfile(dotgit)
            if gitdir is None:
                return None
            gitdir = os.path.realpath(os.path.join(p, gitdir))
            common = gitdir
            try:
                text = read_plain(os.path.join(gitdir, "commondir"), _MAX_POINTER, follow=True)
                common = os.path.realpath(os.path.join(gitdir, text.decode("utf-8").strip()))
            except (OSError, UnicodeDecodeError):
                pass
            return GitDirs(p, common)
        parent = os.path.dirname(p)
        if parent == p:
            return None
        p = parent
    return None


def resolve(boot: str, live_cwd: str | None) -> tuple[str, str]:
    """``(workspace, cwd)`` for a call whose context carries ``live_cwd``."""
    if not live_cwd:
        return boot, boot
    if live_cwd == boot and boot[:1] == "/" and os.path.normpath(boot) == boot:
        return boot, boot  # what the lines below give: the same worktree as at start-up
    live = os.path.normpath(os.path.abspath(os.path.join(boot, os.path.expanduser(live_cwd))))
    here, start = git_dirs(live), git_dirs(boot)
    if here is not None and start is not None and here.common == start.common \
            and here.top != start.top:
        return here.top, live
    return boot, live
