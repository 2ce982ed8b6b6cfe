"""One look at the disk per path per command: the mount list, its identity and the guard list
all ask about the same ~80 paths (exists? directory? symlink? real path?).

Only valid for the command being prepared — make a new :class:`Disk` for each one. A recording
disk (``Disk(record=True)``) also keeps every answer it gave, as :attr:`Disk.seen`: what a
policy was built from, so that a hook can reuse the policy while :func:`still_true` says the
disk still gives the same answers (enforce.py's remembered lines).
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterable

# A directory listed or a file read whose inode changed this recently (ns) may change again
# within the same tick of the kernel's coarse clock without its ctime moving: such an answer
# is not remembered (the racy-git problem, solved the same way).
RACY_NS = 2_000_000_000
MAX_TEXT = 1 << 20   # a pointer or config read here bigger than this: None (git refuses most)

# (kind, path, answer): "l" lstat identity (type, device, inode) or None; "r" real path;
# "d" a directory listed, "f" a file read: (device, inode, ctime) or None.
Seen = tuple[str, str, object]


def _ident(st: os.stat_result | None) -> tuple[int, int, int] | None:
    return None if st is None else (stat.S_IFMT(st.st_mode), st.st_dev, st.st_ino)


def _changed(st: os.stat_result | None) -> tuple[int, int, int] | None:
    return None if st is None else (st.st_dev, st.st_ino, st.st_ctime_ns)


class Disk:
    __slots__ = ("_lstat", "_real", "seen", "racy")

    def __init__(self, *, record: bool = False) -> None:
        self._lstat: dict[str, os.stat_result | None] = {}
        self._real: dict[str, str] = {}
        self.seen: list[Seen] | None = [] if record else None
        self.racy = False   # some answer came from an inode changed too recently to remember

    def lstat(self, path: str) -> os.stat_result | None:
        try:
            return self._lstat[path]
        except KeyError:
            pass
        try:
            st: os.stat_result | None = os.lstat(path)
        except (OSError, ValueError):
            st = None
        self._lstat[path] = st
        if self.seen is not None:
            self.seen.append(("l", path, _ident(st)))
        return st

    def lexists(self, path: str) -> bool:
        return self.lstat(path) is not None

    def islink(self, path: str) -> bool:
        st = self.lstat(path)
        return st is not None and stat.S_ISLNK(st.st_mode)

    def stat(self, path: str) -> os.stat_result | None:
        """Following symlinks (through the real path)."""
        st = self.lstat(path)
        if st is None or not stat.S_ISLNK(st.st_mode):
            return st
        return self.lstat(self.realpath(path))

    def exists(self, path: str) -> bool:
        return self.stat(path) is not None

    def isdir(self, path: str) -> bool:
        st = self.stat(path)
        return st is not None and stat.S_ISDIR(st.st_mode)

    def isfile(self, path: str) -> bool:
        st = self.stat(path)
        return st is not None and stat.S_ISREG(st.st_mode)

    def realpath(self, path: str) -> str:
        """``os.path.realpath`` of an absolute path, resolving each directory only once."""
        try:
            return self._real[path]
        except KeyError:
            pass
        parent, name = os.path.split(path)
        if not name or parent == path:
            real = os.path.realpath(path)
        else:
            base = self.realpath(parent)
            joined = os.path.join(base, name)
            st = self.lstat(joined)
            real = os.path.realpath(joined) if st is not None and stat.S_ISLNK(st.st_mode) \
                else os.path.normpath(joined)
        self._real[path] = real
        if self.seen is not None:
            self.seen.append(("r", path, real))
        return real

    def note(self, kind: str, path: str) -> None:
        """Remember what code that does its own reading (the bash core's secret walk) looked
        at: ``"d"`` before listing a directory, ``"f"`` before reading a file (a later change
        of its entries or content moves its ctime), ``"r"`` a link resolved, ``"l"`` a path
        whose type was asked."""
        if self.seen is None:
            return
        if kind == "r":
            self.realpath(path)
            return
        if kind == "l":
            self.lstat(path)
            return
        try:
            st: os.stat_result | None = os.stat(path)
        except (OSError, ValueError):
            st = None
        if st is not None and st.st_ctime_ns > time.time_ns() - RACY_NS:
            self.racy = True
        self.seen.append((kind, path, _changed(st)))

    def closed(self, path: str) -> bool:
        """Is ``path`` shut to this user for good, so that a sandbox running as this user needs
        no mask over it? Only for a user other than root, for a path owned by someone else
        (only its owner or root may change its mode) that denies reading — a directory:
        reading and searching — while its directory can be searched (so the denial is the
        path's own). ``/etc/shadow`` and its kin for most users: five mounts fewer per line.
        Noted as a file read: a chmod, chown or ACL change moves its ctime, and a remembered
        line is rebuilt (a change of the user's groups changes the line's key)."""
        euid = os.geteuid()
        if euid == 0:
            return False
        st = self.stat(path)
        if st is None or st.st_uid == euid:
            return False
        self.note("f", path)
        try:
            if not os.access(os.path.dirname(path) or "/", os.X_OK, effective_ids=True):
                return False
            if os.access(path, os.R_OK, effective_ids=True):
                return False
            return not (stat.S_ISDIR(st.st_mode) and os.access(path, os.X_OK, effective_ids=True))
        except (OSError, ValueError):
            return False

    def listdir(self, path: str) -> list[str]:
        """The names in directory ``path`` (sorted; [] when it cannot be listed)."""
        self.note("d", path)
        try:
            return sorted(os.listdir(path or "/"))
        except OSError:
            return []

    def read_text(self, path: str) -> str | None:
        """The text of file ``path``, or None when it cannot be read."""
        self.note("f", path)
        from .._plain import read_plain

        try:   # a FIFO or a link to /dev/zero planted as a .git pointer: None, at once
            return read_plain(path, MAX_TEXT, follow=True).decode("utf-8", "replace")
        except (OSError, ValueError):
            return None


def still_true(seen: Iterable[Seen]) -> bool:
    """Does the disk give every answer of ``seen`` again? (A fresh look at each path.)"""
    disk = Disk()
    for kind, path, answer in seen:
        if kind == "l":
            now: object = _ident(disk.lstat(path))
        elif kind == "r":
            now = disk.realpath(path)
        else:
            try:
                now = _changed(os.stat(path))
            except (OSError, ValueError):
                now = None
        if now != (tuple(answer) if isinstance(answer, list) else answer):
            return False
    return True
