"""Hard links to secrets: a second name for a secret file is the secret.

A symlink says where it leads; a hard link does not: ``ln ~/.ssh/id_rsa ws/d/hard.o`` makes
``d/hard.o`` the key itself, under a name no rule of the table knows, in a directory no sandbox
mask hides. Linux keeps no list of a file's names, so the only exact test is the other way
round: the (device, inode) of each existing secret file the anchored leak rules name
(``~/.ssh/id_*``, ``~/.aws/credentials``, ``/etc/shadow`` …, enumerated from the table itself,
``resolve._link_roots``) against that of the file met.

Cheap because a file with one name (``st_nlink == 1``) cannot be a second name of anything:
the secrets are enumerated only when a command meets a regular file with more names, once per
scan, and only secrets that have more than one name themselves are kept. Bounded: past
``MAX_ENTRIES`` directory entries the enumeration stops, and then every multiply-linked file
counts as a secret (fail closed). pnpm's node_modules and content-addressed caches are full of
hard links; they are not secrets, and stay readable: only an inode equal to a secret's is a hit.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Callable, Iterable

# Directory entries the enumeration reads at most (~1 µs each, plus one stat per secret-named
# file): a browser profile or a large ~/.gnupg fits; past it, multiply-linked files fail closed.
MAX_ENTRIES = 20_000
BOUND_NOTE = f"more than {MAX_ENTRIES} entries under the secret directories (not all could be checked)"

Key = tuple[int, int]
# Told of what an enumeration looked at: ("f", file) before its stat, ("d", directory) before
# listing it (the sandbox's Disk.note, so that a remembered line is rebuilt when either changes).
Note = Callable[[str, str], None]


class Inodes:
    """The multiply-linked secret files found: (st_dev, st_ino) -> path, and whether the
    enumeration saw every entry it meant to (``complete``)."""

    __slots__ = ("by_key", "complete")

    def __init__(self, by_key: dict[Key, str], complete: bool) -> None:
        self.by_key = by_key
        self.complete = complete

    def owner(self, st: os.stat_result) -> str | None:
        """The secret ``st`` (a regular file's stat) is another name of; ``BOUND_NOTE`` when the
        enumeration was cut short and ``st`` has more than one name; None otherwise."""
        if st.st_nlink < 2 or not stat.S_ISREG(st.st_mode):
            return None
        found = self.by_key.get((st.st_dev, st.st_ino))
        if found is None and not self.complete:
            return BOUND_NOTE
        return found


def multiply_linked(st: os.stat_result) -> bool:
    """Whether ``st`` is a regular file with more than one name (the only kind that can be a
    hard link of a secret)."""
    return st.st_nlink > 1 and stat.S_ISREG(st.st_mode)


def enumerate_secrets(files: Iterable[str], dirs: Iterable[tuple[str, int]],
                      is_secret: Callable[[str], bool], budget: int = MAX_ENTRIES, *,
                      note: Note | None = None) -> Inodes:
    """The multiply-linked files among ``files`` (literal paths, followed through symlinks: a
    dotfiles manager's ``~/.aws/credentials -> ~/dotfiles/…`` links the real file) and the
    regular files ``is_secret`` accepts below each of ``dirs`` (directory, depth: how many
    levels below it a rule reaches, -1 for any). Linked directories below are not entered (a
    loop costs nothing then); a directory given is followed. ``note`` is told of each file
    looked at (``"f"``: a new name moves its ctime) and each directory listed (``"d"``), for a
    caller that remembers the answer while the disk stays the same (the sandbox's lines)."""
    found: dict[Key, str] = {}
    for path in files:
        if note is not None:
            note("f", path)
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            continue
        if multiply_linked(st):
            found.setdefault((st.st_dev, st.st_ino), path)
    for root, depth in _outermost(tuple(dirs)):
        todo = [(root, depth)]
        while todo:
            d, left = todo.pop()
            if note is not None:
                note("d", d)
            try:
                with os.scandir(d) as it:
                    entries = list(it)
            except (OSError, ValueError):
                continue
            budget -= len(entries)
            if budget < 0:
                return Inodes(found, False)
            for e in entries:
                try:
                    if e.is_dir(follow_symlinks=False):
                        if left != 1:
                            todo.append((e.path, left - 1 if left > 0 else -1))
                        continue
                    if not is_secret(e.path):
                        continue
                    if note is not None:
                        note("f", e.path)
                    st = e.stat(follow_symlinks=True)
                except (OSError, ValueError):
                    continue
                if multiply_linked(st):
                    found.setdefault((st.st_dev, st.st_ino), e.path)
    return Inodes(found, True)


@functools.lru_cache(maxsize=32)
def _outermost(dirs: tuple[tuple[str, int], ...]) -> tuple[tuple[str, int], ...]:
    """``dirs`` shallow first without those another one's walk reaches (the same list comes
    back at every call: the rules' places, ``resolve._link_places``)."""
    done: dict[str, int] = {}
    for root, depth in sorted(dirs, key=lambda d: (len(d[0]), d[0])):
        if not _covered(root, depth, done):
            done[root] = depth
    return tuple(done.items())


def _covered(root: str, depth: int, done: dict[str, int]) -> bool:
    """Whether a directory walked already (with any depth) holds ``root`` within its reach."""
    for d, dd in done.items():
        if root == d and (dd < 0 or 0 <= depth <= dd):
            return True
        if root.startswith(d.rstrip("/") + "/") and dd < 0:
            return True
    return False


def names_of(keys: Iterable[Key] | None, roots: Iterable[str], budget: int = MAX_ENTRIES,
             note: Note | None = None) -> tuple[dict[Key, list[str]], bool]:
    """Every name below the directories ``roots`` of the files whose (st_dev, st_ino) is one
    of ``keys`` (None: of every file with more than one name): regular files met are compared
    by inode, no directory is skipped (a second name may sit in ``node_modules`` or ``.git`` as
    well as anywhere), links are not followed (a symlink names a path, which the sandbox
    confines already). At most ``budget`` entries; returns (names by key, complete): past the
    bound, other names may be missed."""
    wanted = None if keys is None else set(keys)
    found: dict[Key, list[str]] = {} if wanted is None else {k: [] for k in wanted}
    devices = None if wanted is None else {k[0] for k in wanted}
    todo = list(dict.fromkeys(roots))
    seen: set[Key] = set()
    while todo:
        d = todo.pop()
        if note is not None:
            note("d", d)
        try:
            here = os.stat(d)
            with os.scandir(d) as it:
                entries = list(it)
        except (OSError, ValueError):
            continue
        if (here.st_dev, here.st_ino) in seen:
            continue   # a root below another root
        seen.add((here.st_dev, here.st_ino))
        budget -= len(entries)
        if budget < 0:
            return found, False
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    todo.append(e.path)
                    continue
                if not e.is_file(follow_symlinks=False) or (devices is not None
                                                             and here.st_dev not in devices):
                    continue
                st = e.stat(follow_symlinks=False)
            except (OSError, ValueError):
                continue
            key = (st.st_dev, st.st_ino)
            if (wanted is None or key in wanted) and multiply_linked(st):
                found.setdefault(key, []).append(e.path)
    return found, True
