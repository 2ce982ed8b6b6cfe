"""The object-store reader (``shellgate.bash.git.objects``) on stores the agent made hostile
(``corpus/objects_bounds.jsonl``): it runs in the hook on every ``git log -p``, so a FIFO
planted as a loose object, a pack index or the alternates file must not block it, a link to
``/dev/zero`` or a zlib bomb must not fill memory, a delta must not build gigabytes, and a
long delta chain must not be held whole. Each store is built for real, and read in a child
process with a timeout and a 512 MiB address-space limit (a reverted fix shows as a timeout or
a MemoryError there, never as a hung or swapping test run); the reader must end in Unread,
and ``git log -p`` be asked about. A file of the store rewritten in place must not let a
remembered answer through (``shellgate.bash.git.history``)."""

from __future__ import annotations

import hashlib
import os
import shutil
import struct
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import ROOT, load

from shellgate.check import Gate

CASES = load("objects_bounds.jsonl")
GIT = shutil.which("git") or "git"
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="no git")
_AS_LIMIT = 512 << 20
_MIB = 1 << 20

_CHILD = r"""
import resource, sys
from pathlib import Path
resource.setrlimit(resource.RLIMIT_AS, (int(sys.argv[3]),) * 2)
from shellgate.bash.git import objects
from shellgate.check import Gate
repo, home = Path(sys.argv[1]), Path(sys.argv[2])
try:
    n = sum(1 for _ in objects.trees(repo / ".git" / "objects", 20))
    print("reader: read", n, flush=True)
except objects.Unread as exc:
    print("reader: Unread", exc, flush=True)
except BaseException as exc:
    print("reader:", type(exc).__name__, exc, flush=True)
v = Gate(repo, mode="balanced", home=home).check("git log -p", cwd=repo)
print("gate:", v.decision, *[h["pattern"] for h in v.to_json()["sensitive"]], flush=True)
"""


def _env(home: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@e"}


def _git(repo: Path, *args: str, inp: bytes | None = None) -> bytes:
    return subprocess.run([GIT, *args], cwd=repo, env=_env(repo.parent), input=inp, capture_output=True,
                          check=True).stdout


# --- what a hostile store is made of -------------------------------------------------------------

def _bomb(prefix: bytes, mib: int) -> bytes:
    """A zlib stream of ``prefix`` then ``mib`` MiB of zeros, about 1 KiB a MiB: one deflate
    block of a MiB of zeros after a full flush, repeated (built in milliseconds)."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    zeros = bytes(_MIB)
    head = c.compress(prefix) + c.flush(zlib.Z_FULL_FLUSH)
    block = c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH)
    assert c.compress(zeros) + c.flush(zlib.Z_FULL_FLUSH) == block
    adler = zlib.adler32(prefix)
    for _ in range(mib):
        adler = zlib.adler32(zeros, adler)
    return b"\x78\xda" + head + block * mib + c.flush() + adler.to_bytes(4, "big")


def _tree(size: int, tag: bytes) -> bytes:
    """A valid tree of exactly ``size`` bytes: one entry whose name fills it (not a secret's)."""
    return b"100644 " + b"n" * (size - 28) + b"\0" + hashlib.sha1(tag).digest()


def _entry_header(kind: int, size: int) -> bytes:
    out, c, size = bytearray(), (kind << 4) | (size & 15), size >> 4
    while size:
        out.append(c | 0x80)
        c, size = size & 0x7F, size >> 7
    out.append(c)
    return bytes(out)


def _ofs(rel: int) -> bytes:
    out = [rel & 0x7F]
    rel >>= 7
    while rel:
        rel -= 1
        out.insert(0, 0x80 | (rel & 0x7F))
        rel >>= 7
    return bytes(out)


def _varint_le(n: int) -> bytes:
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def _delta(src_size: int, target: int, ops: bytes) -> bytes:
    return _varint_le(src_size) + _varint_le(target) + ops


def _copy(length: int) -> bytes:
    """A copy op from offset 0 of ``length`` (< 2**24) bytes."""
    return bytes([0x80 | 0x10 | 0x20 | 0x40]) + length.to_bytes(3, "little")


# (declared size, zlib data, index of the delta base or None): a whole tree when no base
_Entry = tuple[int, bytes, int | None]


def _write_pack(objects: Path, entries: list[_Entry]) -> Path:
    """A version 2 pack and its index (object names made up: the reader takes them as given)."""
    body, offs = bytearray(b"PACK" + struct.pack(">II", 2, len(entries))), []
    for size, data, base in entries:
        offs.append(len(body))
        body += _entry_header(2 if base is None else 6, size)
        if base is not None:
            body += _ofs(offs[-1] - offs[base])
        body += data
    body += hashlib.sha1(body).digest()
    names = [hashlib.sha1(b"object %d" % i).digest() for i in range(len(entries))]
    order = sorted(range(len(entries)), key=names.__getitem__)
    fan = [sum(1 for n in names if n[0] <= b) for b in range(256)]
    idx = (b"\xfftOc" + struct.pack(">I", 2) + struct.pack(">256I", *fan) + b"".join(names[i] for i in order)
           + bytes(4 * len(entries)) + b"".join(struct.pack(">I", offs[i]) for i in order) + body[-20:])
    idx += hashlib.sha1(idx).digest()
    (objects / "pack").mkdir(exist_ok=True)
    base = objects / "pack" / f"pack-{hashlib.sha1(body).hexdigest()}"
    Path(f"{base}.pack").write_bytes(body)
    Path(f"{base}.idx").write_bytes(idx)
    return base


def _small_pack(objects: Path) -> Path:
    content = _tree(64, b"small")
    return _write_pack(objects, [(len(content), zlib.compress(content), None)])


def _loose_path(objects: Path, name: str = "ab" + "c" * 38) -> Path:
    (objects / name[:2]).mkdir(exist_ok=True)
    return objects / name[:2] / name[2:]


def _swap(path: Path, make: Callable[[Path], None]) -> None:
    path.unlink()
    make(path)


def _chain(n: int) -> list[_Entry]:
    """A tree of 1 MiB and ``n`` deltas each on the one before (a new 20-byte tail each)."""
    first = _tree(_MIB, b"0")
    out: list[_Entry] = [(_MIB, zlib.compress(first), None)]
    for i in range(1, n + 1):
        d = _delta(_MIB, _MIB, _copy(_MIB - 20) + b"\x14" + hashlib.sha1(b"%d" % i).digest())
        out.append((len(d), zlib.compress(d), i - 1))
    return out


def _comb(n: int) -> list[_Entry]:
    """A spine of ``n`` deltas of 1 MiB, each with a second delta on it placed after the next
    spine delta: depth first, every spine tree waits for its second delta."""
    entries = _chain(1)
    prev = 1
    for i in range(2, n + 1):
        d = _delta(_MIB, _MIB, _copy(_MIB - 20) + b"\x14" + hashlib.sha1(b"s%d" % i).digest())
        entries.append((len(d), zlib.compress(d), prev))
        leaf = _delta(_MIB, _MIB, _copy(_MIB - 20) + b"\x14" + hashlib.sha1(b"l%d" % i).digest())
        entries.append((len(leaf), zlib.compress(leaf), prev))
        prev = len(entries) - 2
    return entries


def _on_64k(target: int) -> list[_Entry]:
    """A tree of 64 KiB and a delta on it declaring ``target`` bytes and copying it 16,384 times."""
    delta = _delta(65536, target, b"\x80" * 16384)
    return [(65536, zlib.compress(_tree(65536, b"b")), None), (len(delta), zlib.compress(delta), 0)]


def _symlink_loose(repo: Path, objects: Path) -> None:
    """A tree naming ``.env``, written by real git in another repository, linked in at its name
    (git follows the link: ``git cat-file -p`` prints the tree)."""
    other = repo.parent / "other"
    _git(repo.parent, "init", "-q", str(other))
    blob = _git(other, "hash-object", "-w", "--stdin", inp=b"API_KEY=x\n").strip().decode()
    tree = _git(other, "mktree", inp=f"100644 blob {blob}\t.env\n".encode()).strip().decode()
    _loose_path(objects, tree).symlink_to(other / ".git/objects" / tree[:2] / tree[2:])
    assert b".env" in _git(repo, "cat-file", "-p", tree)


_BUILD: dict[str, Callable[[Path, Path], object]] = {
    "plain": lambda repo, objects: None,
    "fifo_loose": lambda repo, objects: os.mkfifo(_loose_path(objects)),
    "fifo_idx": lambda repo, objects: _swap(Path(f"{_small_pack(objects)}.idx"), os.mkfifo),
    "fifo_pack": lambda repo, objects: _swap(Path(f"{_small_pack(objects)}.pack"), os.mkfifo),
    "fifo_alternates": lambda repo, objects: ((objects / "info").mkdir(exist_ok=True),
                                              os.mkfifo(objects / "info" / "alternates")),
    "devzero_loose": lambda repo, objects: _loose_path(objects).symlink_to("/dev/zero"),
    "devzero_idx": lambda repo, objects: _swap(Path(f"{_small_pack(objects)}.idx"),
                                               lambda p: p.symlink_to("/dev/zero")),
    "sparse_idx": lambda repo, objects: os.truncate(f"{_small_pack(objects)}.idx", 8 << 30),
    "symlink_loose": _symlink_loose,
    "bomb_loose": lambda repo, objects: _loose_path(objects).write_bytes(_bomb(b"tree 64\0", 1024)),
    "bomb_loose_declared": lambda repo, objects: _loose_path(objects).write_bytes(
        _bomb(b"tree 4294967296\0", 1024)),
    "bomb_pack": lambda repo, objects: _write_pack(objects, [(64, _bomb(b"", 1024), None)]),
    # one copy op of one byte copies the 64 KiB base: 16 KiB of delta build 1 GiB
    "delta_huge_target": lambda repo, objects: _write_pack(objects, _on_64k(1 << 40)),
    "delta_overrun": lambda repo, objects: _write_pack(objects, _on_64k(65536)),
    "delta_chain": lambda repo, objects: _write_pack(objects, _chain(600)),
    "delta_comb": lambda repo, objects: _write_pack(objects, _comb(160)),
}


def test_every_recipe_is_in_the_corpus() -> None:
    assert sorted(c["recipe"] for c in CASES) == sorted(_BUILD)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["recipe"])
def test_a_hostile_store_is_unread_and_asked_about(tmp_path: Path, case: dict) -> None:
    repo = tmp_path / "r"
    _git(tmp_path, "init", "-q", str(repo))
    (repo / "x.md").write_text("x\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "x")
    _BUILD[case["recipe"]](repo, repo / ".git" / "objects")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        run = subprocess.run([sys.executable, "-c", _CHILD, str(repo), str(tmp_path), str(_AS_LIMIT)],
                             env=env, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as exc:   # run() has killed and reaped the child
        pytest.fail(f"the reader did not end: {exc.stdout!r}")
    lines = dict(line.split(": ", 1) for line in run.stdout.splitlines() if ": " in line)
    reader, gate = lines.get("reader", run.stderr[-2000:]), lines.get("gate", run.stderr[-2000:])
    assert reader.startswith(case["reader"]) and case["why"] in reader, (reader, gate)
    assert gate.startswith(case["verdict"]), (reader, gate)


def test_a_loose_object_rewritten_in_place_is_not_answered_from_memory(tmp_path: Path) -> None:
    """The remembered answer is keyed by the store's signature. A loose tree rewritten in place
    to name ``.env`` — same path, same size, its mtime put back, so neither its directory nor
    its size, mtime or inode changes — is read by git (``git log -p`` prints the secret); the
    next check must not say 'allow' from memory."""
    canary = "CANARY-rewritten-7d1e"
    repo = tmp_path / "r"
    _git(tmp_path, "init", "-q", str(repo))
    (repo / "x.md").write_text(f"API_KEY={canary}\n")
    _git(repo, "add", "-A")
    _git(repo, "-c", "core.looseCompression=0", "commit", "-qm", "x")
    assert Gate(repo, mode="balanced", home=tmp_path).check("git log -p", cwd=repo).decision == "allow"
    tree = _git(repo, "rev-parse", "HEAD^{tree}").strip().decode()
    blob = bytes.fromhex(_git(repo, "rev-parse", "HEAD:x.md").strip().decode())
    path = repo / ".git/objects" / tree[:2] / tree[2:]
    before = path.stat()
    content = b"100644 .env\0" + blob   # as long as "100644 x.md\0" + blob
    new = zlib.compress(b"tree %d\0" % len(content) + content, 0)
    assert len(new) == before.st_size
    os.chmod(path, 0o644)
    with open(path, "r+b") as f:   # in place: the same inode, no new directory entry
        f.write(new)
    os.chmod(path, before.st_mode & 0o777)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    same = ("st_ino", "st_size", "st_mtime_ns")
    assert [getattr(after, a) for a in same] == [getattr(before, a) for a in same]
    assert canary.encode() in _git(repo, "log", "-p") and b".env" in _git(repo, "log", "-p")
    verdict = Gate(repo, mode="balanced", home=tmp_path).check("git log -p", cwd=repo)
    assert verdict.decision == "ask", verdict.to_json()
