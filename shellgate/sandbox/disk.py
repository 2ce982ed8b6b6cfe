"""One look at the disk per path per command: the mount list, its identity and the guard list
all ask about the same ~80 paths (exists? directory? symlink? real path?).

Only valid for the command being prepared — make a new :class:`Disk` for each one.
"""

from __future__ import annotations

import os
import stat


class Disk:
    __slots__ = ("_lstat", "_real")

    def __init__(self) -> None:
        self._lstat: dict[str, os.stat_result | None] = {}
        self._real: dict[str, str] = {}

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
        return real
