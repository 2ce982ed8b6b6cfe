"""Every file name a repository's object store has ever held, read from ``objects/`` itself —
what ``git log -p``, ``git show <rev>``, ``git grep PAT <rev>``, ``git cat-file -p <sha>`` may
print beyond the index, without running git (the gate never runs the repository's programs:
its config may name a fsmonitor, a textconv driver, a lazy fetch).

The whole store is read, not what is reachable from some refs: ``git show <sha>`` prints an
unreachable object as readily as a reachable one, and the stash, the reflogs, ``--all`` and
``HEAD@{n}`` all end in the store. Every tree object (loose, or in a pack whole or as a delta;
``gitformat-pack``) is parsed; a name its entries hold is reported with every path under which
some tree of the store holds that tree (each tree also counts as a root: a commit may take any
tree as its root). Anything not read exactly makes the answer None, so a caller proves nothing
from it: an unknown pack or index version, a delta whose base is missing (a thin pack), a
partial clone (``*.promisor``: git would fetch more), alternates not read, more than the bound
of objects or paths.

The store belongs to the agent, so every read is bounded: files are opened as
:func:`shellgate._plain.open_plain` opens them (a FIFO, a device, a symbolic link — git would follow it —
or an oversized file is Unread, never waited on or read to no end); an object inflates to its
declared size and no further, and a tree (declared, or built by a delta) to at most
:data:`MAX_TREE`; the trees inflated in one read total at most :data:`MAX_INFLATED`; a pack's
delta bases are kept only while a delta still needs them, at most :data:`MAX_HELD` at once.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import re
import stat
import struct
import zlib
from array import array
from collections.abc import Callable, Iterator
from pathlib import Path

from ..._plain import open_plain, read_plain

MAX_OBJECTS = 400_000   # objects in the packs (~1 us each to type) and loose files together
MAX_PATHS = 256         # distinct paths one tree is found under
MAX_TREE = 64 << 20     # bytes of one tree or delta: ~1.5 million entries in one directory
MAX_INFLATED = 1 << 30  # bytes of trees and deltas inflated or built in one read of the store
MAX_HELD = 128 << 20    # bytes of a pack's delta bases kept for the deltas still to apply
_MAX_ALTERNATES = 5     # git's own depth limit for objects/info/alternates chains
_MAX_ALTERNATES_FILE = 1 << 20
_CHUNK = 1 << 16        # compressed bytes fed to zlib at a time
_LOOSE_DIR = re.compile(r"[0-9a-f]{2}")
_TREE, _OFS, _REF = 2, 6, 7


class Unread(Exception):
    """The store is not read exactly (the module docstring)."""


class _Budget:
    """What one read of the store may still inflate (:data:`MAX_INFLATED`)."""

    def __init__(self) -> None:
        self.left = MAX_INFLATED

    def spend(self, n: int) -> None:
        self.left -= n
        if self.left < 0:
            raise Unread(f"more than {MAX_INFLATED} bytes of trees")


def store_dirs(objects: Path, depth: int = 0) -> list[Path]:
    """``objects`` and the object directories its ``info/alternates`` names, theirs in turn."""
    if depth > _MAX_ALTERNATES:
        raise Unread("alternates nested too deep")
    out = [objects]
    try:
        text = read_plain(objects / "info" / "alternates", _MAX_ALTERNATES_FILE)
    except FileNotFoundError:
        return out
    except (OSError, ValueError) as exc:   # ValueError: a NUL in a path; OSError: a FIFO, a link
        raise Unread("alternates unreadable") from exc
    for raw in text.splitlines():
        line = raw.decode("utf-8", "surrogateescape")
        if not line or line.startswith("#"):
            continue
        if line.startswith('"'):
            raise Unread("a quoted alternate")
        out.extend(store_dirs(objects / line if not line.startswith("/") else Path(line), depth + 1))
    return list(dict.fromkeys(out))   # `.` listed k times must not cost k**depth reads


def signature(objects: Path) -> str:
    """What changes when the store does: a digest of the size, mtime, ctime and inode of the
    alternates file, the pack directory and each loose directory (their names: a new file in
    one changes its mtime), and of each file in them, for every store directory. Each file
    counts, not only its directory: one rewritten in place (same name, new content) leaves the
    directory alone, and with ``touch -r`` its own mtime too — not its ctime, which no caller
    can set back. A stat a file: ~2.5 us each (git packs its loose objects past 6,700)."""
    stamps = array("q")
    for n, d in enumerate(store_dirs(objects)):
        for k, sub in enumerate(("info/alternates", "pack", *(f"{i:02x}" for i in range(256)))):
            path = f"{d}/{sub}"
            try:
                st = os.stat(path)
            except FileNotFoundError:
                continue
            stamps.extend((-1, n, k, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
            if sub == "info/alternates" or not stat.S_ISDIR(st.st_mode):
                continue
            try:
                with os.scandir(path) as it:
                    for e in it:
                        st = e.stat(follow_symlinks=False)
                        stamps.extend((st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino))
            except OSError as exc:
                raise Unread(f"{sub} unreadable") from exc
    return hashlib.sha256(stamps).hexdigest()


def trees(objects: Path, hash_size: int) -> Iterator[tuple[bytes, bytes]]:
    """(object name, content) of every tree object in the store and its alternates."""
    seen, budget = 0, _Budget()
    for d in store_dirs(objects):
        packs = _packs(d)
        total = sum(n for _, n in packs) + seen
        if total > MAX_OBJECTS:
            raise Unread(f"more than {MAX_OBJECTS} objects")
        for base, _ in packs:
            yield from _pack_trees(base, hash_size, budget)
        seen = total
        for sub in _loose_dirs(d):
            try:
                names = os.listdir(sub)
            except OSError as exc:
                raise Unread("a loose object directory unreadable") from exc
            seen += len(names)
            if seen > MAX_OBJECTS:
                raise Unread(f"more than {MAX_OBJECTS} objects")
            for name in names:
                if name.startswith("tmp_obj_"):
                    continue   # a write under way (git's temporary name): not an object yet
                content = _loose_tree(sub / name, budget)
                if content is not None:
                    yield bytes.fromhex(sub.name + name), content


def names_ever_held(objects: Path, hash_size: int, wanted: Callable[[str], bool]) -> list[str]:
    """The paths (relative to a root tree, ``/``-separated) under which a tree of the store
    holds an entry whose name ``wanted`` accepts; raises :class:`Unread`."""
    parents: dict[bytes, list[tuple[bytes, str]]] = {}
    verdict: dict[bytes, bool] = {}   # each distinct name asked once (versions repeat them)
    hits: list[tuple[bytes, str]] = []
    for sha, content in trees(objects, hash_size):
        for mode, name, child in _entries(content, hash_size):
            text = name.decode("utf-8", "surrogateescape")   # re-encoded as such by the caller
            if int(mode, 8) & 0o170000 == 0o040000:   # git reads a zero-padded 040000 as a tree too
                parents.setdefault(child, []).append((sha, text))
            ok = verdict.get(name)
            if ok is None:
                ok = verdict[name] = wanted(text)
            if ok:
                hits.append((sha, text))
    memo: dict[bytes, set[str]] = {}
    out: dict[str, None] = {}
    for sha, name in hits:
        for prefix in _paths(sha, parents, memo):
            out[f"{prefix}{name}"] = None
    return list(out)


def _paths(sha: bytes, parents: dict[bytes, list[tuple[bytes, str]]],
           memo: dict[bytes, set[str]]) -> set[str]:
    """The prefixes (``""``, ``a/``, ``a/b/``) under which some tree holds tree ``sha``. Each
    tree is a possible root. Iterative (a deep history must not exhaust the stack)."""
    stack = [sha]
    while stack:
        top = stack[-1]
        if top in memo:
            stack.pop()
            continue
        todo = [p for p, _ in parents.get(top, ()) if p not in memo]
        if todo:
            if len(stack) > 4096:
                raise Unread("trees nested too deep")
            stack.extend(todo)
            continue
        found = {""}
        for p, name in parents.get(top, ()):
            found.update(f"{pre}{name}/" for pre in memo[p])
            if len(found) > MAX_PATHS:
                raise Unread(f"a tree held under more than {MAX_PATHS} paths")
        memo[top] = found
        stack.pop()
    return memo[sha]


_ENTRY = {n: re.compile(rb"([0-7]{5,6}) ([^\0]+)\0(.{%d})" % n, re.DOTALL) for n in (20, 32)}


def _entries(content: bytes, hash_size: int) -> list[tuple[bytes, bytes, bytes]]:
    """A tree's entries as (mode, name, object name): ``MODE SP NAME NUL HASH`` each, back to
    back, each matched where the last one ended (linear: an unanchored search rescans the rest
    of a malformed tree at every position)."""
    rx, pos, found = _ENTRY[hash_size], 0, []
    while pos < len(content):
        m = rx.match(content, pos)
        if m is None:
            raise Unread("a tree not parsed")
        found.append(m.groups())
        pos = m.end()
    return found


def _loose_dirs(d: Path) -> list[Path]:
    try:
        with os.scandir(d) as it:
            return [Path(e.path) for e in it
                    if _LOOSE_DIR.fullmatch(e.name) and e.is_dir()]   # git follows a linked one
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise Unread("the object directory unreadable") from exc


def _loose_tree(path: Path, budget: _Budget) -> bytes | None:
    """A loose object's content when it is a tree (``TYPE SP SIZE NUL`` then the content,
    deflated), else None. Only the head of another object is read; a tree inflates to its
    declared size (at most :data:`MAX_TREE`) and its stream must end the file, as git wants."""
    try:
        fd, st = open_plain(path, None)
    except (OSError, ValueError) as exc:   # a FIFO, a device, a symbolic link (git follows it)
        raise Unread(f"loose object {path.name} unreadable") from exc
    try:
        z = zlib.decompressobj()
        head = z.decompress(os.pread(fd, _CHUNK, 0), 32)
        if not head.startswith(b"tree "):
            return None
        nul = head.find(b"\0")
        if nul < 6 or not head[5:nul].isdigit():
            raise Unread(f"loose object {path.name}: a malformed header")
        size = int(head[5:nul])
        if size > MAX_TREE or st.st_size > MAX_TREE + (MAX_TREE >> 3):
            raise Unread(f"loose object {path.name}: a tree over {MAX_TREE} bytes")
        got = head[nul + 1:]
        if len(got) > size:
            raise Unread("a loose tree of the wrong size")
        rest = z.unconsumed_tail + os.pread(fd, st.st_size + 1, _CHUNK)   # all, bounded above
        content = got + _inflate(z, iter((rest,)), size - len(got), budget, f"loose object {path.name}")
        if z.unused_data:
            raise Unread(f"loose object {path.name}: data after the object")
        return content
    except (OSError, zlib.error) as exc:
        raise Unread(f"loose object {path.name} unreadable") from exc
    finally:
        os.close(fd)


def _chunks(data: bytes | mmap.mmap, start: int, end: int) -> Iterator[bytes]:
    for pos in range(start, end, _CHUNK):
        yield data[pos:min(pos + _CHUNK, end)]


def _inflate(z: zlib._Decompress, chunks: Iterator[bytes], size: int, budget: _Budget,
             label: str) -> bytes:
    """Exactly ``size`` more bytes out of ``z``, fed ``chunks`` until its stream ends: one byte
    more is a bomb (a small stream inflating to gigabytes), one fewer a truncated object."""
    if size > MAX_TREE:
        raise Unread(f"{label}: an object over {MAX_TREE} bytes")
    budget.spend(size)
    out = bytearray()
    for chunk in chunks:
        out += z.decompress(chunk, size + 1 - len(out))
        if len(out) > size or z.unconsumed_tail:
            raise Unread(f"{label}: an object larger than its header says")
        if z.eof:
            break
    if not z.eof or len(out) != size:
        raise Unread(f"{label}: a truncated object")
    return bytes(out)


def _packs(d: Path) -> list[tuple[Path, int]]:
    """Each pack of the store (its path without extension) and its object count."""
    try:
        names = os.listdir(d / "pack")
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise Unread("pack directory unreadable") from exc
    if any(n.endswith(".promisor") for n in names):
        raise Unread("a partial clone (git may fetch objects)")
    out = []
    for n in sorted(names):   # git finds its packs by their .idx files, each with its .pack
        if n.endswith(".idx") and f"{n[:-4]}.pack" in names:
            base = d / "pack" / n[:-4]
            try:
                fd, _ = open_plain(f"{base}.idx", None)
                try:
                    head = os.pread(fd, 8 + 256 * 4, 0)
                finally:
                    os.close(fd)
            except (OSError, ValueError) as exc:
                raise Unread(f"{n}: not a plain file") from exc
            if len(head) < 8 + 1024 or head[:8] != b"\xfftOc\0\0\0\2":
                raise Unread(f"{n}: an index that is not version 2")
            out.append((base, struct.unpack_from(">I", head, 8 + 255 * 4)[0]))
    return out


def _pack_trees(base: Path, hash_size: int, budget: _Budget) -> Iterator[tuple[bytes, bytes]]:
    """The trees of one pack, deltas applied (each tree's type found by following its delta
    bases' headers; only trees are inflated)."""
    count, idx = _read_idx(base, hash_size)
    names_at = 8 + 1024
    offs_at = names_at + count * (hash_size + 4)
    large_at = offs_at + count * 4
    by_name: dict[bytes, int] = {}
    offsets: list[int] = []
    for i in range(count):
        (off,) = struct.unpack_from(">I", idx, offs_at + 4 * i)
        if off & 0x80000000:
            (off,) = struct.unpack_from(">Q", idx, large_at + 8 * (off & 0x7FFFFFFF))
        offsets.append(off)
        by_name[idx[names_at + i * hash_size:names_at + (i + 1) * hash_size]] = off
    try:
        fd, st = open_plain(f"{base}.pack", None)
    except (OSError, ValueError) as exc:
        raise Unread(f"{base.name}: the pack is not a plain file") from exc
    try:
        if st.st_size == 0:
            raise Unread(f"{base.name}: not a pack")
        data = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    finally:
        os.close(fd)
    try:
        if data[:4] != b"PACK" or struct.unpack_from(">I", data, 4)[0] not in (2, 3):
            raise Unread(f"{base.name}: not a version 2 or 3 pack")
        yield from _walk_pack(data, by_name, sorted(offsets), hash_size, base.name, budget)
    finally:
        data.close()


def _read_idx(base: Path, hash_size: int) -> tuple[int, bytes]:
    """A pack index's object count and bytes: no more bytes than its header, the names, CRCs,
    offsets (a large one in 8 more bytes each) and checksums of that many objects take."""
    try:
        fd, st = open_plain(f"{base}.idx", None)
        try:
            (count,) = struct.unpack(">I", os.pread(fd, 4, 8 + 255 * 4))
            if count > MAX_OBJECTS or st.st_size > 8 + 1024 + count * (hash_size + 16) + 2 * hash_size:
                raise Unread(f"{base.name}: an index larger than its objects need")
            return count, os.pread(fd, st.st_size + 1, 0)
        finally:
            os.close(fd)
    except (OSError, ValueError, struct.error) as exc:
        raise Unread(f"{base.name}: the index is not a plain file") from exc


def _walk_pack(data: mmap.mmap, by_name: dict[bytes, int], offsets: list[int], hash_size: int,
               label: str, budget: _Budget) -> Iterator[tuple[bytes, bytes]]:
    """Each tree of the pack: whole ones, then the deltas on each, depth first. A base is kept
    only until its last delta is applied (a memo of every tree held a whole history at once),
    and the bases kept at once are bounded by :data:`MAX_HELD`."""
    ends = dict(zip(offsets, [*offsets[1:], len(data) - hash_size], strict=True))
    head: dict[int, tuple[int, int, int, int]] = {}   # offset -> (type, base or -1, data start, size)
    for off in offsets:
        head[off] = _header(data, off, by_name, hash_size, label)
    kind: dict[int, int] = {}
    for off in offsets:
        chain = [off]
        while chain[-1] not in kind and head[chain[-1]][0] in (_OFS, _REF):
            chain.append(head[chain[-1]][1])
            if len(chain) > 10_000 or chain[-1] not in head:
                raise Unread(f"{label}: a delta chain not read")
        t = kind.get(chain[-1], head[chain[-1]][0])
        for o in chain:
            kind[o] = t
    name_of = {off: name for name, off in by_name.items()}
    deltas: dict[int, list[int]] = {}   # a tree's offset -> the offsets of the deltas on it
    stack: list[tuple[int, int]] = []   # (base offset or -1, offset) still to yield
    for off in reversed(offsets):
        if kind[off] == _TREE:
            t, base, _, _ = head[off]
            if t in (_OFS, _REF):
                deltas.setdefault(base, []).append(off)
            else:
                stack.append((-1, off))
    kept: dict[int, bytes] = {}   # a base's content, while deltas on it are left
    left: dict[int, int] = {}     # how many
    held = 0
    while stack:
        base, off = stack.pop()
        _, _, start, size = head[off]
        out = _inflate(zlib.decompressobj(), _chunks(data, start, ends[off]), size, budget, label)
        if base >= 0:
            src = kept[base]
            out = _apply(src, out, budget, label)
            left[base] -= 1
            if not left[base]:
                del kept[base], left[base]
                held -= len(src)
        yield name_of[off], out
        if off in deltas:
            kept[off], left[off] = out, len(deltas[off])
            held += len(out)
            if held > MAX_HELD:
                raise Unread(f"{label}: more than {MAX_HELD} bytes of delta bases at once")
            stack.extend((off, o) for o in deltas.pop(off))


def _header(data: mmap.mmap, off: int, by_name: dict[bytes, int], hash_size: int,
            label: str) -> tuple[int, int, int, int]:
    """An entry's type, its delta base's offset (-1: none), where its data starts and its
    declared (inflated) size: 4 bits in the first byte, 7 more in each following one."""
    c = data[off]
    t, size, shift = (c >> 4) & 7, c & 15, 4
    pos = off + 1
    while c & 0x80:
        c = data[pos]
        pos += 1
        size |= (c & 0x7F) << shift
        shift += 7
    if t in (1, 2, 3, 4):
        return t, -1, pos, size
    if t == _OFS:
        from .index import _varint  # the same offset encoding as the index's

        rel, pos = _varint(data, pos)
        return t, off - rel, pos, size
    if t == _REF:
        base = by_name.get(bytes(data[pos:pos + hash_size]))
        if base is None:
            raise Unread(f"{label}: a delta whose base is not in the pack")
        return t, base, pos + hash_size, size
    raise Unread(f"{label}: an object of unknown type {t}")


def _varint_le(buf: bytes, pos: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        c = buf[pos]
        pos += 1
        value |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return value, pos


def _apply(src: bytes, delta: bytes, budget: _Budget, label: str) -> bytes:
    """A git delta (``patch-delta.c``): the sizes, then copy (from ``src``) and insert ops.
    The target's size is its header's, at most :data:`MAX_TREE` (a copy op of 1 byte copies
    64 KiB: a delta of kilobytes builds gigabytes)."""
    size, pos = _varint_le(delta, 0)
    want, pos = _varint_le(delta, pos)
    if size != len(src):
        raise Unread(f"{label}: a delta for another base")
    if want > MAX_TREE:
        raise Unread(f"{label}: a delta building more than {MAX_TREE} bytes")
    budget.spend(want)
    out = bytearray()
    end = len(delta)
    while pos < end:
        op = delta[pos]
        pos += 1
        if op & 0x80:
            start = length = 0
            for bit in range(4):
                if op & (1 << bit):
                    start |= delta[pos] << (8 * bit)
                    pos += 1
            for bit in range(3):
                if op & (0x10 << bit):
                    length |= delta[pos] << (8 * bit)
                    pos += 1
            length = length or 0x10000
            if start + length > len(src):
                raise Unread(f"{label}: a delta copying past its base")
            out += src[start:start + length]
        elif op:
            out += delta[pos:pos + op]
            pos += op
        else:
            raise Unread(f"{label}: a reserved delta op")
        if len(out) > want:
            raise Unread(f"{label}: a delta of the wrong size")
    if len(out) != want:
        raise Unread(f"{label}: a delta of the wrong size")
    return bytes(out)
