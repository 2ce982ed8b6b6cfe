"""Opening a file of a repository the agent controls without letting it stall or flood the
reader: the hook reads ``.git/index`` and the object store (loose objects, pack indexes, the
alternates file), and any of them may be planted as a FIFO (an ``open`` for reading blocks
until a writer comes: the hook until its watchdog), as a symbolic link to ``/dev/zero`` (a
read to the end never ends), or as a sparse file of terabytes. One way to open them all.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


class NotPlain(OSError):
    """The path is not a regular file of at most the size asked (a FIFO, a device, a
    directory, too big)."""


def open_plain(path: Path | str, limit: int | None) -> tuple[int, os.stat_result]:
    """A descriptor of ``path`` and its status, when it is a regular file (not through a final
    symbolic link: ELOOP, an :class:`OSError`) of at most ``limit`` bytes (None: any size, for a
    caller that reads only a head or maps it). Raises :class:`FileNotFoundError` when it does
    not exist, :class:`NotPlain` or another :class:`OSError` otherwise; the caller closes the
    descriptor."""
    fd = os.open(path, _FLAGS)   # O_NONBLOCK: a FIFO opens at once, then fails the check below
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotPlain(errno.EINVAL, "not a regular file", str(path))
        if limit is not None and st.st_size > limit:
            raise NotPlain(errno.EFBIG, f"larger than {limit} bytes", str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_plain(path: Path | str, limit: int) -> bytes:
    """The whole of ``path`` when :func:`open_plain` accepts it; a file that grew past
    ``limit`` since its status was taken is refused too."""
    fd, st = open_plain(path, limit)
    try:
        data = os.read(fd, min(st.st_size, limit) + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise NotPlain(errno.EFBIG, f"larger than {limit} bytes", str(path))
    return data
