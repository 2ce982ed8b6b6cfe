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
"""

from __future__ import annotations

import mmap
import os
import re
import stat
import struct
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

MAX_OBJECTS = 400_000   # objects in the packs (~1 us each to type) and loose files together
MAX_PATHS = 256         # distinct paths one tree is found under
_MAX_ALTERNATES = 5     # git's own depth limit for objects/info/alternates chains
_LOOSE_DIR = re.compile(r"[0-9a-f]{2}")
_TREE, _OFS, _REF = 2, 6, 7


class Unread(Exception):
    """The store is not read exactly (the module docstring)."""


def store_dirs(objects: Path, depth: int = 0) -> list[Path]:
    """``objects`` and the object directories its ``info/alternates`` names, theirs in turn."""
    if depth > _MAX_ALTERNATES:
        raise Unread("alternates nested too deep")
    out = [objects]
    try:
        text = (objects / "info" / "alternates").read_bytes()
    except FileNotFoundError:
        return out
    except (OSError, ValueError) as exc:   # ValueError: a NUL in a path
        raise Unread("alternates unreadable") from exc
    for raw in text.splitlines():
        line = raw.decode("utf-8", "surrogateescape")
        if not line or line.startswith("#"):
            continue
        if line.startswith('"'):
            raise Unread("a quoted alternate")
        out.extend(store_dirs(objects / line if not line.startswith("/") else Path(line), depth + 1))
    return list(dict.fromkeys(out))   # `.` listed k times must not cost k**depth reads


def signature(objects: Path) -> list[list[object]]:
    """What changes when the store does: each pack and loose directory's name, size, mtime and
    inode, and the alternates file, for every store directory (a new loose object changes its
    directory's mtime; packs are never written in place)."""
    sig: list[list[object]] = []
    for d in store_dirs(objects):
        for sub in ("info/alternates", "pack", *(f"{i:02x}" for i in range(256))):
            try:
                st = os.stat(d / sub)
            except FileNotFoundError:
                continue
            sig.append([str(d / sub), st.st_size, st.st_mtime_ns, st.st_ino])
        try:
            with os.scandir(d / "pack") as it:
                for e in it:
                    st = e.stat(follow_symlinks=False)
                    sig.append([e.path, st.st_size, st.st_mtime_ns, st.st_ino])
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise Unread("pack directory unreadable") from exc
    return sig


def trees(objects: Path, hash_size: int) -> Iterator[tuple[bytes, bytes]]:
    """(object name, content) of every tree object in the store and its alternates."""
    seen = 0
    for d in store_dirs(objects):
        packs = _packs(d)
        total = sum(n for _, n in packs) + seen
        if total > MAX_OBJECTS:
            raise Unread(f"more than {MAX_OBJECTS} objects")
        for base, _ in packs:
            yield from _pack_trees(base, hash_size)
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
                content = _loose_tree(sub / name)
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


def _loose_tree(path: Path) -> bytes | None:
    """A loose object's content when it is a tree (``TYPE SP SIZE NUL`` then the content,
    deflated), else None."""
    try:
        data = path.read_bytes()
        z = zlib.decompressobj()
        head = z.decompress(data, 32)
        if not head.startswith(b"tree "):
            return None
        body = head + z.decompress(z.unconsumed_tail)
    except (OSError, zlib.error) as exc:
        raise Unread(f"loose object {path.name} unreadable") from exc
    nul = body.index(b"\0")
    content = body[nul + 1:]
    if int(body[5:nul]) != len(content):
        raise Unread("a loose tree of the wrong size")
    return content


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
            with open(f"{base}.idx", "rb") as f:
                head = f.read(8 + 256 * 4)
            if len(head) < 8 + 1024 or head[:8] != b"\xfftOc\0\0\0\2":
                raise Unread(f"{n}: an index that is not version 2")
            out.append((base, struct.unpack_from(">I", head, 8 + 255 * 4)[0]))
    return out


def _pack_trees(base: Path, hash_size: int) -> Iterator[tuple[bytes, bytes]]:
    """The trees of one pack, deltas applied (each tree's type found by following its delta
    bases' headers; only trees are inflated)."""
    idx = Path(f"{base}.idx").read_bytes()
    count = struct.unpack_from(">I", idx, 8 + 255 * 4)[0]
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
    with open(f"{base}.pack", "rb") as f:
        if os.fstat(f.fileno()).st_size == 0 or not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise Unread(f"{base.name}: not a pack")
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    try:
        if data[:4] != b"PACK" or struct.unpack_from(">I", data, 4)[0] not in (2, 3):
            raise Unread(f"{base.name}: not a version 2 or 3 pack")
        yield from _walk_pack(data, by_name, sorted(offsets), hash_size, base.name)
    finally:
        data.close()


def _walk_pack(data: mmap.mmap, by_name: dict[bytes, int], offsets: list[int], hash_size: int,
               label: str) -> Iterator[tuple[bytes, bytes]]:
    ends = dict(zip(offsets, [*offsets[1:], len(data) - hash_size], strict=True))
    head: dict[int, tuple[int, int, int]] = {}   # offset -> (type, base offset or -1, data start)
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
    content: dict[int, bytes] = {}
    name_of = {off: name for name, off in by_name.items()}
    for off in offsets:
        if kind[off] == _TREE:
            yield name_of[off], _content(data, off, head, ends, content, label)


def _header(data: mmap.mmap, off: int, by_name: dict[bytes, int], hash_size: int,
            label: str) -> tuple[int, int, int]:
    c = data[off]
    t = (c >> 4) & 7
    pos = off + 1
    while c & 0x80:
        c = data[pos]
        pos += 1
    if t in (1, 2, 3, 4):
        return t, -1, pos
    if t == _OFS:
        from .index import _varint  # the same offset encoding as the index's

        rel, pos = _varint(data, pos)
        return t, off - rel, pos
    if t == _REF:
        base = by_name.get(bytes(data[pos:pos + hash_size]))
        if base is None:
            raise Unread(f"{label}: a delta whose base is not in the pack")
        return t, base, pos + hash_size
    raise Unread(f"{label}: an object of unknown type {t}")


def _content(data: mmap.mmap, off: int, head: dict[int, tuple[int, int, int]], ends: dict[int, int],
             memo: dict[int, bytes], label: str) -> bytes:
    chain = [off]
    while chain[-1] not in memo and head[chain[-1]][0] in (_OFS, _REF):
        chain.append(head[chain[-1]][1])
    out = memo.get(chain[-1])
    if out is None:
        out = _inflate(data, head[chain[-1]][2], ends[chain[-1]], label)
        memo[chain[-1]] = out
    for o in reversed(chain[:-1]):
        out = memo[o] = _apply(out, _inflate(data, head[o][2], ends[o], label), label)
    return out


def _inflate(data: mmap.mmap, start: int, end: int, label: str) -> bytes:
    try:
        z = zlib.decompressobj()
        out = z.decompress(data[start:end])
    except zlib.error as exc:
        raise Unread(f"{label}: an object not inflated") from exc
    if not z.eof:
        raise Unread(f"{label}: a truncated object")
    return out


def _varint_le(buf: bytes, pos: int) -> tuple[int, int]:
    value, shift = 0, 0
    while True:
        c = buf[pos]
        pos += 1
        value |= (c & 0x7F) << shift
        shift += 7
        if not c & 0x80:
            return value, pos


def _apply(src: bytes, delta: bytes, label: str) -> bytes:
    """A git delta (``patch-delta.c``): the sizes, then copy (from ``src``) and insert ops."""
    size, pos = _varint_le(delta, 0)
    want, pos = _varint_le(delta, pos)
    if size != len(src):
        raise Unread(f"{label}: a delta for another base")
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
    if len(out) != want:
        raise Unread(f"{label}: a delta of the wrong size")
    return bytes(out)
