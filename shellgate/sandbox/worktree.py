"""Git worktree layout, read from the files git writes (no `git` process per command).

A linked worktree (`git worktree add`) has a ``.git`` *file* ``gitdir: <common>/worktrees/<name>``
and that gitdir holds a ``commondir`` file pointing back at the main ``.git``. Objects and refs
live in the common dir, outside the worktree — which is why a sandbox that only makes the
worktree writable breaks ``git commit`` there (anthropics/claude-code#33615, openai/codex#19786).
"""

from __future__ import annotations

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
    anthropics/claude-code#80278): every hooks directory and config file git would honour.
    ``packed-refs`` stays read-only when the common dir itself is not writable (commands that
    rewrite it, like deleting a packed branch, then fail instead of silently escaping).
    """
    c = layout.common
    writable = [layout.gitdir] if layout.linked else []
    writable += [c / "objects", c / "refs", c / "logs", c / "worktrees"] if layout.linked else []
    # commondir re-points git at another repository (and its config) for every later command.
    protected = [c / "hooks", c / "config", c / "config.worktree", c / "commondir", c / "info"]
    protected += [layout.gitdir / "config.worktree", layout.gitdir / "commondir"] if layout.linked else []
    for sub, names in (("worktrees", ("config.worktree",)), ("modules", ("hooks", "config"))):
        entries = [c / sub / n for n in (disk or Disk()).listdir(str(c / sub))]
        protected += [e / n for e in entries[:256] for n in names]
    return tuple(writable), tuple(dict.fromkeys(protected))
