"""The path names in a repository's index, read from ``.git/index`` itself — what
``git ls-files`` prints (relative to the cwd), without running git.

The format (``gitformat-index``): a ``DIRC`` header with version 2, 3 or 4 and an entry count,
then the entries (stat data, the object name, 16-bit flags, a 16-bit extended-flags word in
version 3+ when flagged, the NUL-terminated path; padded to 8 bytes in 2 and 3,
prefix-compressed in 4), then extensions. Anything not read exactly is None, so a caller proves
nothing from it: an unknown version, an object name size other than the repository's, a bad
length, more than ``limit`` entries, a ``link`` (split index: more entries live elsewhere) or
``sdir`` (sparse index: a directory entry ``ls-files`` would expand) extension, or any other
required (lower-case) extension.
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from . import config

_STAT = 40          # ctime, mtime (sec, nsec), dev, ino, mode, uid, gid, size: 10 x 32 bits
_MODE = 24          # where the mode lies among them
GITLINK = 0o160000  # the mode of a submodule's entry
_EXTENDED = 0x4000  # flags: a second 16-bit flags word follows (version 3+)
_MAX_BYTES = 64 << 20
# Entries read, by path: (path, mtime, size, inode, hash size, limit) and what was read.
_cache: dict[str, tuple[tuple[str, int, int, int, int, int], list[tuple[bytes, int]] | None]] = {}


def tracked(cwd: Path, limit: int = 10_000) -> tuple[Path, list[bytes] | None] | None:
    """The work tree of ``cwd``'s repository and the names its index tracks. None: no
    repository (git prints nothing there). Names None: a repository whose index is not read
    exactly (no work tree, a config or gitdir file not read, :func:`names` None) — a caller
    proves nothing from it."""
    from . import config

    try:
        repo = config.discover(cwd)
    except config.ConfigError:
        return cwd, None
    if repo is None:
        return None
    if repo.worktree is None:
        return repo.gitdir, None
    size = hash_size(repo)
    if size is None:
        return repo.worktree, None
    return repo.worktree, names(repo.gitdir, size, limit)


def hash_size(repo: config.Repo) -> int | None:
    """The size of the repository's object names (``extensions.objectFormat``); None when its
    config cannot be read."""
    from . import config

    try:
        entries = config.read_config(repo.commondir / "config")
    except config.ConfigError:
        return None
    if entries is None:
        return None
    fmt = [e.value for e in entries if e.section == "extensions" and e.key == "objectformat"]
    return 32 if bool(fmt) and (fmt[-1] or "").lower() == "sha256" else 20


def names(gitdir: Path, hash_size: int = 20, limit: int = 10_000) -> list[bytes] | None:
    """The index's path names, in index order (a conflicted path once per stage); None when
    the index cannot be read exactly (the module docstring). No index: an empty list."""
    found = entries(gitdir, hash_size, limit)
    return None if found is None else [name for name, _mode in found]


def gitlinks(gitdir: Path, hash_size: int = 20, limit: int = 10_000) -> list[bytes] | None:
    """The paths the index records as gitlinks (mode 160000: submodules, absorbed or not);
    None when the index cannot be read exactly."""
    found = entries(gitdir, hash_size, limit)
    return None if found is None else [name for name, mode in found if mode == GITLINK]


def entries(gitdir: Path, hash_size: int = 20, limit: int = 10_000) -> list[tuple[bytes, int]] | None:
    """The index's entries as (path name, mode), in index order; None when the index cannot be
    read exactly. No index: an empty list."""
    from ..._plain import open_plain

    path = gitdir / "index"
    try:
        fd, st = open_plain(path, _MAX_BYTES)
    except FileNotFoundError:
        return []
    except OSError:   # a FIFO, a link, a device, too big
        return None
    try:
        sig = (str(path), st.st_mtime_ns, st.st_size, st.st_ino, hash_size, limit)
        if (hit := _cache.get(sig[0])) is not None and hit[0] == sig:
            return hit[1]   # every git command reads it (its gitlinks): once per change
        # The header first: an index of more than ``limit`` entries is refused before its
        # megabytes are read (a decision on the hook path must stay cheap in a big repository).
        if not _header_ok(os.pread(fd, 12, 0), limit):
            return None
        data = os.read(fd, st.st_size + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    try:
        found = _parse(data, hash_size, limit)
    except (struct.error, IndexError, ValueError):
        found = None
    if len(_cache) > 64:
        _cache.clear()
    _cache[sig[0]] = (sig, found)
    return found


def _header_ok(head: bytes, limit: int) -> bool:
    """A ``DIRC`` signature, a version this reader knows, at most ``limit`` entries."""
    if len(head) < 12:
        return False
    sig, version, count = struct.unpack_from(">4sII", head, 0)
    return sig == b"DIRC" and version in (2, 3, 4) and count <= limit


def _parse(data: bytes, hash_size: int, limit: int) -> list[tuple[bytes, int]] | None:
    if not _header_ok(data[:12], limit):
        return None
    version, count = struct.unpack_from(">II", data, 4)
    end = len(data) - hash_size    # the trailing checksum
    pos, out, prev = 12, [], b""
    for _ in range(count):
        pos_mode = pos + _MODE
        fixed = pos + _STAT + hash_size
        (flags,) = struct.unpack_from(">H", data, fixed)
        head = fixed + 2
        if flags & _EXTENDED:
            if version < 3:
                return None
            head += 2
        if version == 4:
            strip, head = _varint(data, head)
            nul = data.index(b"\0", head)
            if strip > len(prev):
                return None
            name = prev[:len(prev) - strip] + data[head:nul]
            pos = nul + 1
        else:
            nul = data.index(b"\0", head)
            name = data[head:nul]
            pos = pos + ((head - pos + len(name) + 8) & ~7)   # 1 to 8 NULs of padding
            if data[nul:pos].strip(b"\0"):
                return None
        if not name or (flags & 0xFFF) != min(len(name), 0xFFF) or pos > end:
            return None
        (mode,) = struct.unpack_from(">I", data, pos_mode)
        out.append((name, mode))
        prev = name
    while pos < end:   # extensions: a 4-byte signature and a 32-bit size each
        ext, size = struct.unpack_from(">4sI", data, pos)
        if ext in (b"link", b"sdir") or not ext[:1].isupper():
            return None
        pos += 8 + size
    return out if pos == end else None


def _varint(data: bytes, i: int) -> tuple[int, int]:
    """git's offset encoding (``varint.c``): 7 bits a byte, each continuation adding one."""
    c = data[i]
    value = c & 0x7F
    while c & 0x80:
        i += 1
        c = data[i]
        value = ((value + 1) << 7) | (c & 0x7F)
    return value, i + 1
