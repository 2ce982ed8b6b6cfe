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
import time
from pathlib import Path

from .._record import record
from .disk import Disk

_MAX_FILE = 4 * 1024 * 1024   # larger protected files are recorded by stat only (not restorable)
_MAX_ENTRIES = 2000


@record
class _State:
    kind: str                    # "missing", "file", "link", "dir", "other"
    mode: int = 0
    data: bytes | None = None    # file content, or link target
    sig: tuple = ()              # (size, mtime_ns, ino) for large files / others
    children: tuple[tuple[str, _State], ...] = ()
    links: int = 0               # a file's names (st_nlink): one more is a new name for it


_MISSING = _State("missing")


def _snap(path: str | Path, budget: list[int]) -> _State:
    path = os.fspath(path)  # plain strings: this runs for every entry, twice per command
    try:
        st = os.lstat(path)
    except OSError:
        return _MISSING
    budget[0] -= 1
    if stat.S_ISLNK(st.st_mode):
        return _State("link", data=os.fsencode(os.readlink(path)))
    if stat.S_ISREG(st.st_mode):
        data = _content(path, st) if st.st_size <= _MAX_FILE else None
        return _State("file", st.st_mode, data, (st.st_size, st.st_mtime_ns, st.st_ino),
                      links=st.st_nlink)
    if stat.S_ISDIR(st.st_mode):
        kids: list[tuple[str, _State]] = []
        try:
            names = sorted(os.listdir(path))
        except OSError:
            names = []
        for n in names:
            if budget[0] <= 0:
                break
            kids.append((n, _snap(f"{path}/{n}", budget)))
        return _State("dir", st.st_mode, children=tuple(kids))
    return _State("other", st.st_mode, sig=(st.st_size, st.st_mtime_ns, st.st_ino))


# Content of protected files by path, with the stat that vouches for it. Every command looks
# at the same hooks and configs twice (before and after); re-reading them is most of what a
# guard costs. A cached copy is only trusted for a file whose ctime was already well in the
# past when it was read: any later change (write, truncate, chmod, rename onto it) sets ctime
# to "now", which then differs — even with coarse timestamps, and ctime cannot be set back
# from userspace. A file changed within the last second is always read.
_CACHE: dict[str, tuple[tuple[int, ...], bytes]] = {}
_SETTLED_NS = 1_000_000_000


def _content(key: str, st: os.stat_result) -> bytes | None:
    sig = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_mode)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] == sig:
        return hit[1]
    try:
        fd = os.open(key, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if os.fstat(fd).st_ino != st.st_ino:
            return None  # replaced between the two looks
        data = _read_fd(fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    if st.st_ctime_ns < time.time_ns() - _SETTLED_NS:
        if len(_CACHE) > 4096:
            _CACHE.clear()
        _CACHE[key] = (sig, data)
    return data


def _same(a: _State, b: _State, *, links: bool = True) -> bool:
    """Whether ``b`` (after the command) is still ``a`` (before it). A file that gained a name
    is not (unless ``links`` is false): ``ln .git/hooks/pre-commit h`` left a workspace name
    for the hook's inode."""
    if a.kind != b.kind:
        return False
    if a.kind == "file":   # the mode too: `chmod 644` through a hard link of a key exposes it
        same = a.data == b.data if a.data is not None and b.data is not None else a.sig == b.sig
        return same and stat.S_IMODE(a.mode) == stat.S_IMODE(b.mode) and (
            not links or b.links <= a.links)
    if a.kind == "dir":
        return a.mode == b.mode and len(a.children) == len(b.children) and all(
            n == m and _same(x, y) for (n, x), (m, y) in zip(a.children, b.children, strict=True))
    return a == b


def _remove(path: Path) -> None:
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    except OSError:
        pass


def _rewrite(path: Path, want: _State) -> int | None:
    """Put ``want``'s bytes and mode back into the very inode ``path`` had before the command,
    when it still has it: the names of the file outside the writable roots are that inode too
    (a hook the user hard-links from ``~/githooks`` into each repository), and a restore that
    only replaced ``path`` left the command's bytes under all of them. The inode's name count
    afterwards, or None when ``path`` is another file now (replaced, not written through)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_ino != want.sig[2]:
            return None
        return _rewrite_fd(fd, want)
    finally:
        os.close(fd)


def _rewrite_fd(fd: int, want: _State) -> int | None:
    """:func:`_rewrite` through ``fd``, a file open for reading (a mode without write
    permission is lifted for the write): the name count after, or None."""
    try:
        os.fchmod(fd, stat.S_IMODE(want.mode) | stat.S_IWUSR)
        wfd = os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | os.O_TRUNC | os.O_CLOEXEC)
        try:   # (the same inode: a /proc/self/fd link reopens what fd holds, not a path)
            data = memoryview(want.data or b"")
            while data:
                data = data[os.write(wfd, data):]
        finally:
            os.close(wfd)
        os.fchmod(fd, stat.S_IMODE(want.mode))
        return os.fstat(fd).st_nlink
    except OSError:
        return None


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
        links = _rewrite(path, want)
        if links is not None and links <= want.links:
            return True
        # Another inode stands there, or the command gave this one a new name: a fresh file
        # (every name the inode had keeps the bytes put back above, but is no longer this file).
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
            if not _same(child, _snap(path / n, [_MAX_ENTRIES])):
                ok = _restore(path / n, child) and ok
        return ok
    return False


class Guard:
    """``Guard(paths)`` before the command, ``.check()`` after it: a list of violations.

    A restore never follows a path that changed shape during the command: if a directory on
    the way is now a symlink or another directory's real path, writing the old content there
    could land anywhere the command chose (as us, unconfined). With the writable ``roots``
    known, such a directory is first made a plain one again (:func:`_straighten`): the link or
    file the command put in its place is removed, never followed — left there, it led the
    host's next git to a ``.git`` of the command's making.
    """

    def __init__(self, paths: tuple[Path, ...], disk: Disk | None = None,
                 roots: tuple[Path, ...] = ()) -> None:
        """``disk``: this command's lstat cache — paths it saw missing need no second look."""
        budget = [_MAX_ENTRIES]
        disk = disk or Disk()
        self._before = [(p, _MISSING if not disk.lexists(str(p)) else _snap(p, budget),
                         disk.realpath(str(p.parent)), _way(p, roots, disk)) for p in paths]
        self._held = [h for p, state, _, _ in self._before for h in _hold(p, state)]

    def check(self) -> list[str]:
        out: list[str] = []
        try:
            for path, before, parent, way in self._before:
                after = _snap(path, [_MAX_ENTRIES])
                if _same(before, after):
                    continue
                ok = _restore_under(path, before, parent, way)
                verb = "removed" if before.kind == "missing" else "restored"
                out.append(f"write to protected path {path} "
                           f"{'was ' + verb if ok else 'could not be undone'}")
            for path, fd, want in self._held:
                if _same(want, _snap_fd(fd, [1]), links=False):
                    continue
                ok = _rewrite_fd(fd, want) is not None
                out.append(f"write to the file that was protected path {path} (its other names: "
                           f"hard links) {'was restored' if ok else 'could not be undone'}")
        finally:
            for _, fd, _ in self._held:
                os.close(fd)
            self._held = []
        return out


def _hold(path: Path, state: _State) -> list[tuple[Path, int, _State]]:
    """An open file for each protected file with other names (``st_nlink > 1``), ``path`` a
    directory's children included: the command may move another file onto the protected name
    and write the old inode through a name it made (``ln``) or one the user had — a hook the
    user hard-links from ``~/githooks``, outside every writable root. The path's check sees
    its bytes at the path; this one sees the inode's, wherever it is named."""
    if state.kind == "dir":
        return [h for n, child in state.children for h in _hold(path / n, child)]
    if state.kind != "file" or state.links <= 1 or state.data is None:
        return []
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return []
    if os.fstat(fd).st_ino != state.sig[2]:
        os.close(fd)
        return []
    return [(path, fd, state)]


# The directories between a writable root and a protected path, root first, each with what
# stood there before the command: (type, device, inode), or None where nothing did.
Way = tuple[tuple[str, tuple[int, int, int] | None], ...]


def _ident(st: os.stat_result | None) -> tuple[int, int, int] | None:
    return None if st is None else (stat.S_IFMT(st.st_mode), st.st_dev, st.st_ino)


def _way(path: Path, roots: tuple[Path, ...], disk: Disk) -> Way:
    top = max((str(r) for r in roots if r in path.parents), key=len, default=None)
    if top is None:
        return ()
    return tuple((str(d), _ident(disk.lstat(str(d)))) for d in reversed(path.parents)
                 if len(str(d)) > len(top))


def _straighten(way: Way) -> None:
    """Each directory of ``way`` that was a plain one and is now a link or a file (the command
    moved the directory away and put that in its place) is removed and made again, empty;
    the first that was no directory before and is a link or a file now is removed, and
    nothing below it can stand then. What did not change is left as it is; a link is
    removed, never followed."""
    for d, was in way:
        try:
            st: os.stat_result | None = os.lstat(d)
        except FileNotFoundError:
            st = None
        now = _ident(st)
        if now == was or (st is not None and stat.S_ISDIR(st.st_mode)):
            continue
        if st is not None:
            os.unlink(d)
        if was is None or was[0] != stat.S_IFDIR:
            return
        os.mkdir(d, 0o755)


def _restore_under(path: Path, want: _State, parent_real: str, way: Way = ()) -> bool:
    """:func:`_restore`, only if ``path``'s directory still resolves where it did before
    (after :func:`_straighten` of ``way``, when it did not)."""
    try:
        if os.path.realpath(path.parent) != parent_real and way:
            _straighten(way)
        if os.path.realpath(path.parent) != parent_real:
            return want.kind == "missing" and not os.path.lexists(path)
        return _restore(path, want)
    except OSError:
        return False


def undo_created(marked: tuple[str, ...]) -> list[str]:
    """Remove what a command made at protected paths where nothing stood (a missing one cannot
    be bound read-only: bwrap would create it), as the hook's line does after its sandbox:
    violations, one per path undone. Each path is written ``ANCHOR//REST`` — ANCHOR the
    directory nearest to it that existed when the line was built (bound onto itself there, so
    still the very same one), REST what did not, and may now (:func:`_straighten`)."""
    out: list[str] = []
    for mark in marked:
        anchor, sep, rest = mark.partition("//")
        if not (sep and anchor and rest) or os.path.isabs(rest):
            continue
        path = Path(anchor, rest)
        if not os.path.lexists(path) and os.path.realpath(path.parent) == str(path.parent):
            continue
        way = tuple((str(d), None) for d in reversed(path.parents) if len(str(d)) > len(anchor))
        ok = _restore_under(path, _MISSING, str(path.parent), way)
        out.append(f"write to protected path {path} {'was removed' if ok else 'could not be undone'}")
    return out


class Pins:
    """Read-only-mounted protected paths, held open for the command's duration.

    A mount cannot be renamed or removed from inside the sandbox, but the directory *above* it
    can: ``mv .git x && mkdir .git && echo … > .git/config`` leaves a fresh, unprotected
    config where git will read it. Holding each protected path open costs a few syscalls;
    afterwards a path that no longer leads to the same inode is rebuilt from the held
    original (which the mount kept unmodified) and reported.
    """

    def __init__(self, paths: tuple[str, ...], disk: Disk | None = None) -> None:
        disk = disk or Disk()
        self._held: list[tuple[Path, int, int, int, str]] = []
        for p in paths:
            try:
                fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
            except OSError:
                continue
            st = os.fstat(fd)
            self._held.append((Path(p), fd, st.st_dev, st.st_ino, disk.realpath(os.path.dirname(p))))

    def check(self) -> list[str]:
        """Violations (empty when every path still leads to its original); closes the fds."""
        out: list[str] = []
        try:
            for path, fd, dev, ino, parent in self._held:
                try:
                    st = os.lstat(path)
                    if (st.st_dev, st.st_ino) == (dev, ino):
                        continue
                except OSError:
                    pass
                ok = _restore_under(path, _snap_fd(fd, [_MAX_ENTRIES]), parent)
                out.append(f"protected path {path} was replaced by moving a directory above it; "
                           + ("the original was put back" if ok else "could not be undone"))
        finally:
            self.close()
        return out

    def close(self) -> None:
        for _, fd, *_ in self._held:
            os.close(fd)
        self._held = []


def _snap_fd(fd: int, budget: list[int]) -> _State:
    """:func:`_snap` of an open file or directory (wherever it has been moved to)."""
    st = os.fstat(fd)
    budget[0] -= 1
    if stat.S_ISREG(st.st_mode):
        data = _read_fd(fd) if st.st_size <= _MAX_FILE else None
        return _State("file", st.st_mode, data, (st.st_size, st.st_mtime_ns, st.st_ino),
                      links=st.st_nlink)
    if not stat.S_ISDIR(st.st_mode):
        return _State("other", st.st_mode, sig=(st.st_size, st.st_mtime_ns, st.st_ino))
    kids: list[tuple[str, _State]] = []
    for name in sorted(os.listdir(fd)):
        if budget[0] <= 0:
            break
        try:
            cst = os.stat(name, dir_fd=fd, follow_symlinks=False)
            if stat.S_ISLNK(cst.st_mode):
                budget[0] -= 1
                kids.append((name, _State("link", data=os.fsencode(os.readlink(name, dir_fd=fd)))))
                continue
            child = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                            dir_fd=fd)
        except OSError:
            continue
        try:
            kids.append((name, _snap_fd(child, budget)))
        finally:
            os.close(child)
    return _State("dir", st.st_mode, children=tuple(kids))


def _read_fd(fd: int) -> bytes:
    chunks: list[bytes] = []
    offset = 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)
