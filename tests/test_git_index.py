"""``bash/git/index.py`` reads the names ``git ls-files`` prints straight from ``.git/index``:
checked against the real git for every index version, extended flags, names longer than the
12-bit length field, a SHA-256 repository, extensions; what it cannot read exactly is None
(split and sparse indexes, corrupt or truncated files), and no input makes it raise."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.bash.git.index import _parse, names

ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x",
       "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x"}
FILES = ["a.txt", "src/x.py", "src/y y.py", "-rf", "dir/sub/deep/z", "é.txt", "b\tc"]


def _git(repo: Path, *args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True,
                          env={**ENV, "HOME": str(repo.parent)}, **kw)


def _repo(tmp: Path, *init: str) -> Path:
    r = tmp / "r"
    subprocess.run(["git", "init", "-q", *init, str(r)], check=True, env={**ENV, "HOME": str(tmp)})
    for n in FILES:
        (r / n).parent.mkdir(parents=True, exist_ok=True)
        (r / n).write_text(n)
    _git(r, "add", "--", ".")
    blob = _git(r, "hash-object", "-w", "a.txt", text=True).stdout.strip()
    _git(r, "update-index", "--add", "--cacheinfo", f"100644,{blob},{'/'.join(['x' * 200] * 22)}")
    return r


def _ls_files(r: Path) -> list[bytes]:
    return _git(r, "ls-files", "-z").stdout.split(b"\0")[:-1]


@pytest.mark.parametrize("version", [2, 3, 4])
def test_names_are_what_ls_files_prints(tmp_path: Path, version: int) -> None:
    r = _repo(tmp_path)
    _git(r, "commit", "-qm", "one")               # a TREE extension
    _git(r, "update-index", f"--index-version={version}")
    if version >= 3:
        _git(r, "update-index", "--skip-worktree", "a.txt")   # an extended-flags word
    got = names(r / ".git")
    assert got == _ls_files(r) and max(map(len, got)) > 0xFFF


def test_a_sha256_repository(tmp_path: Path) -> None:
    r = _repo(tmp_path, "--object-format=sha256")
    assert names(r / ".git", hash_size=32) == _ls_files(r)
    assert names(r / ".git", hash_size=20) is None


def test_no_index_is_no_names(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path / "e")], check=True, env=ENV)
    assert names(tmp_path / "e" / ".git") == []


@pytest.mark.parametrize("how", ["split", "sparse", "limit", "truncated", "link", "fifo"])
def test_what_is_not_read_exactly_is_none(tmp_path: Path, how: str) -> None:
    r = _repo(tmp_path)
    idx = r / ".git" / "index"
    limit = 10_000
    if how == "split":
        _git(r, "update-index", "--split-index")
    elif how == "sparse":
        _git(r, "commit", "-qm", "one")
        _git(r, "sparse-checkout", "init", "--cone", "--sparse-index")
        _git(r, "sparse-checkout", "set", "src")
    elif how == "limit":
        limit = 3
    elif how == "truncated":
        idx.write_bytes(idx.read_bytes()[:-30])
    elif how == "link":
        idx.rename(r / "real-index")
        idx.symlink_to(r / "real-index")
    elif how == "fifo":
        idx.unlink()
        os.mkfifo(idx)
    assert names(r / ".git", limit=limit) is None


def test_an_index_past_the_bound_is_refused_from_its_header(tmp_path: Path, monkeypatch) -> None:
    """An index of more entries than the bound is refused after its 12-byte header: its body
    (here 32 MiB) is never read, so a big repository costs the hook path nothing."""
    import struct

    gitdir = tmp_path / ".git"
    gitdir.mkdir()
    with open(gitdir / "index", "wb") as f:
        f.write(struct.pack(">4sII", b"DIRC", 2, 10_001))
        f.truncate(32 << 20)
    sizes: list[int] = []
    real_read = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: sizes.append(n) or real_read(fd, n))
    assert names(gitdir) is None
    assert sizes == []
    monkeypatch.undo()
    assert names(gitdir, limit=10_001) is None        # within the bound: read, then refused


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400), st.sampled_from([20, 32]))
def test_parse_never_raises_beyond_its_own_errors(data: bytes, hash_size: int) -> None:
    import struct

    try:
        got = _parse(b"DIRC" + data, hash_size, 10_000)
    except (struct.error, IndexError, ValueError):   # what names() turns into None
        return
    assert got is None or all(isinstance(n, bytes) and n for n in got)
