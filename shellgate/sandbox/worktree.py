"""Git worktree layout, read from the files git writes (no `git` process per command).

A linked worktree (`git worktree add`) has a ``.git`` *file* ``gitdir: <common>/worktrees/<name>``
and that gitdir holds a ``commondir`` file pointing back at the main ``.git``. Objects and refs
live in the common dir, outside the worktree — which is why a sandbox that only makes the
worktree writable breaks ``git commit`` there (anthropics/claude-code#33615, openai/codex#19786).
"""

from __future__ import annotations

import os
from pathlib import Path

from .._record import record
from .disk import Disk


@record
class GitLayout:
    top: Path      # the worktree's top directory (holds `.git`)
    gitdir: Path   # `top/.git`, or `<common>/worktrees/<name>` for a linked worktree
    common: Path   # the repository's shared git dir (== gitdir for the main worktree)

    @property
    def linked(self) -> bool:
        return self.gitdir != self.common


def _read_pointer(path: Path, prefix: str = "", disk: Disk | None = None) -> str | None:
    text = (disk or Disk()).read_text(str(path))
    if text is None:
        return None
    text = text.strip()
    if prefix:
        return text[len(prefix):].strip() if text.startswith(prefix) else None
    return text or None


def find_layout(path: Path, disk: Disk | None = None) -> GitLayout | None:
    """The worktree holding ``path`` (walking up), or None outside any git worktree."""
    disk = disk or Disk()
    path = Path(path).absolute()
    for top in (path, *path.parents):
        dotgit = top / ".git"
        if disk.isdir(str(dotgit)):
            return GitLayout(top, dotgit, dotgit)
        if not disk.isfile(str(dotgit)):
            continue
        target = _read_pointer(dotgit, "gitdir:", disk)
        if not target:
            return None
        gitdir = Path(disk.realpath(str(top / target)))
        common_rel = _read_pointer(gitdir / "commondir", disk=disk)
        common = Path(disk.realpath(str(gitdir / common_rel))) if common_rel else gitdir
        return GitLayout(top, gitdir, common)
    return None


def active_workspace(cwd: Path, base: Path) -> Path:
    """The workspace for a command run in ``cwd`` when the session started in ``base``.

    A worktree of the *same repository* as ``base`` that holds ``cwd`` becomes the workspace
    (the agent entered a worktree it created). Any other place — an unrelated repository, a
    plain directory — keeps ``base``: walking into a directory must not make it writable.
    """
    here = find_layout(cwd)
    if here is None:
        return base
    home = find_layout(base)
    if home is None or here.common != home.common or here.top == home.top:
        return base
    if _within(base, here.top):  # base is a subdirectory of that very worktree
        return base
    return here.top


def _within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def git_paths(layout: GitLayout, disk: Disk | None = None) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
    """(writable, protected) paths git needs for commits in ``layout``.

    Writable: the worktree's own gitdir and the common dir's object/ref stores and the other
    worktrees' gitdirs. Protected (read-only, never hidden — read-denying them breaks git,
    anthropics/claude-code#80278): every file git reads to find the configuration and hooks
    it runs, in the common dir and in every git dir below its ``modules/`` (submodules, nested
    ones too): :data:`_GIT_DIR`, each worktree's :data:`_PER_WORKTREE` files, and the ``.git``
    file of each linked worktree and submodule checkout (``gitdir: …``: rewritten, it points
    git at a directory the command made — a ``git status`` in the superproject runs one in
    every submodule, with that directory's ``core.fsmonitor``).
    ``packed-refs`` stays read-only when the common dir itself is not writable (commands that
    rewrite it, like deleting a packed branch, then fail instead of silently escaping).
    """
    disk = disk or Disk()
    c = layout.common
    writable = [layout.gitdir] if layout.linked else []
    writable += [c / "objects", c / "refs", c / "logs", c / "worktrees"] if layout.linked else []
    protected = [layout.top / ".git"] if layout.linked else []
    protected += [layout.gitdir / n for n in _PER_WORKTREE] if layout.linked else []
    for gitdir in (c, *_modules(c, disk)):
        protected += [gitdir / n for n in _GIT_DIR]
        if gitdir != c and (checkout := _module_checkout(gitdir, disk)) is not None:
            protected.append(checkout / ".git")
        for name in disk.listdir(str(gitdir / "worktrees"))[:_MAX_GIT_DIRS]:
            admin = gitdir / "worktrees" / name
            protected += [admin / n for n in _PER_WORKTREE]
            if dotgit := _read_pointer(admin / "gitdir", disk=disk):   # that worktree's .git file
                protected.append(Path(os.path.normpath(admin / dotgit)))
    return tuple(writable), tuple(dict.fromkeys(protected))


# What a git dir holds that makes git run something: hooks, configuration, the pointer to
# another repository's (``commondir``, honoured in any git dir), and ``info/`` (attributes
# naming the filter and diff drivers the configuration defines).
_GIT_DIR = ("hooks", "config", "config.worktree", "commondir", "info")
# A linked worktree's own (gitrepository-layout(5)): ``commondir`` re-points git at another
# repository's configuration and hooks for every later command there, ``config.worktree`` is
# configuration. (``gitdir`` only leads back to the worktree, read by ``git worktree prune``;
# ``HEAD``, ``index`` and ``logs`` name commits, and run nothing.)
_PER_WORKTREE = ("commondir", "config.worktree")
_MAX_GIT_DIRS = 256   # worktrees, and submodule git dirs, looked at per repository


def _modules(common: Path, disk: Disk) -> list[Path]:
    """The submodules' git dirs under ``common/modules``, nested ones too (a name may hold
    slashes: a git dir is a directory with a ``HEAD``), as git's own walk finds them."""
    out: list[Path] = []
    todo = [common / "modules"]
    while todo and len(out) < _MAX_GIT_DIRS:
        d = todo.pop()
        names = disk.listdir(str(d))
        if d != common / "modules" and "HEAD" in names:
            out.append(d)
            todo.append(d / "modules")
            continue
        todo += [d / n for n in names if disk.isdir(str(d / n)) and not disk.islink(str(d / n))]
    return out


def _module_checkout(gitdir: Path, disk: Disk) -> Path | None:
    """The checkout of a submodule's git dir: its ``core.worktree`` (git writes it, relative
    to the git dir), or None."""
    from ..bash.git.config import ConfigError, parse_config

    text = disk.read_text(str(gitdir / "config"))
    try:
        entries = parse_config(text) if text else ()
    except ConfigError:
        return None
    found = [e.value for e in entries if (e.section, e.subsection, e.key) == ("core", None, "worktree")]
    return Path(os.path.normpath(gitdir / found[-1])) if found and found[-1] else None
