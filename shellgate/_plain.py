"""Opening a file the agent may have planted without letting it stall or flood the reader.

Every file the gate reads at decision time — a repository's ``.git/index``, config and object
store, the shellgate and git configs in HOME, ignore files, a jq program, the approval store —
lies where the agent can write, so any of them may be a FIFO (an ``open`` for reading blocks
until a writer comes: the decision until its watchdog, the thread forever), a symbolic link to
``/dev/zero`` (a read to the end never ends) or a sparse file of terabytes. One way to open
them all: ``O_NONBLOCK`` (a FIFO opens at once), then the descriptor must be a regular file of
at most the size asked. A FIFO opened that way reads as empty, so "not a regular file" is an
error of its own (:class:`NotPlain`), never the same as a missing or empty file.

``follow``: whether a final symbolic link is followed. A repository's own files are read
without (git does not follow a loose object's link the same way, and a link is the agent's);
config files are legitimately links (``~/.gitconfig`` kept by a dotfile manager), so those are
followed, and the file reached is held to the same checks.
Standard library only: this is imported on the hook path.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC


class NotPlain(OSError):
    """The path is not a regular file of at most the size asked (a FIFO, a device, a
    directory, too big)."""


def open_plain(path: Path | str, limit: int | None, *,
               follow: bool = False) -> tuple[int, os.stat_result]:
    """A descriptor of ``path`` and its status, when it is a regular file of at most ``limit``
    bytes (None: any size, for a caller that reads only a head or maps it). Without ``follow``
    a final symbolic link is refused (ELOOP, an :class:`OSError`). Raises
    :class:`FileNotFoundError` when it does not exist, :class:`NotPlain` or another
    :class:`OSError` otherwise; the caller closes the descriptor."""
    # O_NONBLOCK: a FIFO opens at once, then fails the check below
    fd = os.open(path, _FLAGS if follow else _FLAGS | os.O_NOFOLLOW)
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


def read_plain(path: Path | str, limit: int, *, follow: bool = False) -> bytes:
    """The whole of ``path`` when :func:`open_plain` accepts it; a file that grew past
    ``limit`` since its status was taken is refused too."""
    fd, st = open_plain(path, limit, follow=follow)
    try:
        data = _read_upto(fd, min(st.st_size, limit) + 1)
    finally:
        os.close(fd)
    if len(data) > limit:
        raise NotPlain(errno.EFBIG, f"larger than {limit} bytes", str(path))
    return data


def read_head(path: Path | str, size: int, *, follow: bool = True) -> bytes:
    """At most the first ``size`` bytes of ``path``, a regular file of any length (for a
    caller that looks at a head, or reads one byte past its own cap to tell "too large")."""
    fd, _ = open_plain(path, None, follow=follow)
    try:
        return _read_upto(fd, size)
    finally:
        os.close(fd)


def _read_upto(fd: int, size: int) -> bytes:
    """``size`` bytes, or fewer at the end of the file (a read may return less than asked)."""
    parts: list[bytes] = []
    left = size
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 24))
        if not chunk:
            break
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)
