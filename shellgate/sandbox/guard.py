"""Protected paths checked before and restored after a command, where no mount can protect them.

bwrap re-binds existing protected paths read-only; a path that does not exist yet cannot be
bound (binding would create it on the host), and Landlock cannot protect anything inside a
writable tree at all. For those, this module records the state before the command and puts it
back afterwards — the implant threat is code that runs *later*, outside the sandbox, so undoing
the write before control returns closes it. Every undo is reported as a violation.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

_MAX_FILE = 4 * 1024 * 1024   # larger protected files are recorded by stat only (not restorable)
_MAX_ENTRIES = 2000


@dataclass(frozen=True, slots=True)
class _State:
    kind: str                    # "missing", "file", "link", "dir", "other"
    mode: int = 0
    data: bytes | None = None    # file content, or link target
    sig: tuple = ()              # (size, mtime_ns, ino) for large files / others
    children: tuple[tuple[str, _State], ...] = ()


_MISSING = _State("missing")


def _snap(path: Path, budget: list[int]) -> _State:
    try:
        st = os.lstat(path)
    except OSError:
        return _MISSING
    budget[0] -= 1
    if stat.S_ISLNK(st.st_mode):
        return _State("link", data=os.fsencode(os.readlink(path)))
    if stat.S_ISREG(st.st_mode):
        data = None
        if st.st_size <= _MAX_FILE:
            try:
                data = path.read_bytes()
            except OSError:
                data = None
        return _State("file", st.st_mode, data, (st.st_size, st.st_mtime_ns, st.st_ino))
    if stat.S_ISDIR(st.st_mode):
        kids: list[tuple[str, _State]] = []
        try:
            names = sorted(os.listdir(path))
        except OSError:
            names = []
        for n in names:
            if budget[0] <= 0:
                break
            kids.append((n, _snap(path / n, budget)))
        return _State("dir", st.st_mode, children=tuple(kids))
    return _State("other", st.st_mode, sig=(st.st_size, st.st_mtime_ns, st.st_ino))


def _same(a: _State, b: _State) -> bool:
    if a.kind != b.kind:
        return False
    if a.kind == "file":
        return a.data == b.data if a.data is not None and b.data is not None else a.sig == b.sig
    if a.kind == "dir":
        return a.children == b.children and a.mode == b.mode
    return a == b


def _remove(path: Path) -> None:
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    except OSError:
        pass


def _restore(path: Path, want: _State) -> bool:
    """Put ``want`` back at ``path``. False when it could not be restored exactly."""
    if want.kind == "missing":
        _remove(path)
        return not os.path.lexists(path)
    if want.kind == "link":
        _remove(path)
        os.symlink(os.fsdecode(want.data or b""), path)
        return True
    if want.kind == "file":
        if want.data is None:
            return False
        if os.path.islink(path) or path.is_dir():
            _remove(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".shellgate-restore")
        tmp.write_bytes(want.data)
        os.chmod(tmp, stat.S_IMODE(want.mode))
        os.replace(tmp, path)
        return True
    if want.kind == "dir":
        if os.path.lexists(path) and (os.path.islink(path) or not path.is_dir()):
            _remove(path)
        path.mkdir(parents=True, exist_ok=True)
        os.chmod(path, stat.S_IMODE(want.mode))
        ok = True
        kept = {n for n, _ in want.children}
        for n in os.listdir(path):
            if n not in kept:
                _remove(path / n)
        for n, child in want.children:
            if not _same(_snap(path / n, [_MAX_ENTRIES]), child):
                ok = _restore(path / n, child) and ok
        return ok
    return False


class Guard:
    """``Guard(paths)`` before the command, ``.check()`` after it: a list of violations."""

    def __init__(self, paths: tuple[Path, ...]) -> None:
        budget = [_MAX_ENTRIES]
        self._before = [(p, _snap(p, budget)) for p in paths]

    def check(self) -> list[str]:
        out: list[str] = []
        for path, before in self._before:
            after = _snap(path, [_MAX_ENTRIES])
            if _same(before, after):
                continue
            try:
                ok = _restore(path, before)
            except OSError:
                ok = False
            verb = "removed" if before.kind == "missing" else "restored"
            out.append(f"write to protected path {path} {'was ' + verb if ok else 'could not be undone'}")
        return out
