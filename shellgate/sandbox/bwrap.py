"""The bubblewrap argv for one command (the srt/Codex recipe, anchors-sandbox §7 tier A).

Order matters — later mounts cover earlier ones: read-only root, fresh /dev and /proc, a
private /tmp, then the paths under /tmp that must stay visible, the writable roots, the
directories above protected paths bound onto themselves (:func:`pinned`), the protected
paths re-bound read-only inside them, and last the masks. Paths that do not exist
are skipped (a missing bind source fails every call: anthropics/claude-code#39284).
Built with plain strings: this runs once per command.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from pathlib import Path

from .disk import Disk
from .policy import Policy, within_any
from .policy import within as _within

TMP = Path("/tmp")
_TMP = "/tmp"
_SHM = "/dev/shm"


def _by_depth(paths: Iterable[str | Path]) -> list[str]:
    return list(_sorted_by_depth(tuple(map(str, paths))))


@functools.lru_cache(maxsize=64)
def _sorted_by_depth(paths: tuple[str, ...]) -> tuple[str, ...]:
    """Unique, shallow first (the same policy lists come back command after command)."""
    return tuple(sorted(dict.fromkeys(paths), key=lambda p: (p.count("/"), p)))


def namespace_args(bwrap: str, policy: Policy) -> list[str]:
    """The binary and its namespace/privilege flags (the part that does not depend on paths)."""
    argv = [bwrap, "--new-session", "--die-with-parent", "--unshare-pid", "--unshare-ipc"]
    if own_network(policy):
        argv.append("--unshare-net")
    return argv + cap_drop()


def own_network(policy: Policy) -> bool:
    """Does the sandbox get a network namespace of its own (only a loopback, which bwrap brings
    up)? Then inet sockets inside reach nothing but each other: the seccomp filter lets them
    be made (:func:`.seccomp.build_filter`'s ``loopback``)."""
    return not policy.network


def cap_drop() -> list[str]:
    """The words that leave a sandbox no capability. Real root keeps every one unless they are
    dropped — and with CAP_SYS_TIME a ``date -s`` inside sets the host's clock (the fuzz
    oracle did, once: there are no clock namespaces for the wall clock)."""
    return ["--cap-drop", "ALL"] if os.geteuid() == 0 else []


def mount_args(policy: Policy, *, tmpdir: Path | None, visible: Iterable[str | Path] = (),
               disk: Disk | None = None, sized: bool = True) -> list[str]:
    """The filesystem view, from the state of the disk right now (missing paths are skipped).

    ``tmpdir``: the host directory seen as /tmp, or None for a fresh tmpfs (a hook's command,
    which has no session to keep files for). ``visible``: paths under /tmp that must be seen
    read-only (HOME, cwd, PATH entries). ``sized``: the bwrap takes ``--size`` (0.7+; the
    probe says), else the fresh tmpfs has the kernel's default cap, half the memory.
    """
    disk = disk or Disk()
    argv = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    # /dev/shm is scratch too, under the same cap: in bwrap's fresh /dev it was a directory of
    # a tmpfs with no size (4 MiB written there under a 1 MiB scratch_size, memory held for
    # the session). The session's scratch directory is bound there as well (its watch sees
    # both names); a fresh one gets a tmpfs of the cap.
    if tmpdir is not None:
        argv += ["--bind", str(tmpdir), _TMP, "--bind", str(tmpdir), _SHM]
    else:   # capped by the kernel: a full one answers ENOSPC (:mod:`.scratch`)
        cap = policy.limits.scratch_size
        size = ["--size", str(cap)] if cap and sized else []
        argv += size + ["--tmpfs", _TMP] + size + ["--tmpfs", _SHM]
    # Every path in one form, symlinks resolved, as the kernel resolves a mount's: a root
    # reached through a link (a cwd of /w/link) once met no protected path resolved.
    writable = _by_depth(r for w in policy.roots() if disk.isdir(r := disk.realpath(str(w))))
    bound: list[str] = []
    links: list[tuple[str, str]] = []   # (path under /tmp, the real path it leads to)
    for p in _by_depth(visible):
        if not _within(p, _TMP) or not disk.exists(p):
            continue
        if (real := disk.realpath(p)) != p:
            links.append((p, real))
        if _within(real, _TMP) and not within_any(real, bound + writable):
            argv += ["--ro-bind", real, real]
            bound.append(real)
    for p in writable:
        argv += ["--bind", p, p]
        bound.append(p)

    def seen(p: str) -> bool:  # still visible after /tmp was replaced
        return not _within(p, _TMP) or within_any(p, bound)

    for p, real in links:   # the fresh /tmp has no links: the cwd's own is made again
        if seen(real) and not seen(p):
            argv += ["--symlink", real, p]
    protected = [r for p in map(str, policy.readonly)
                 if seen(r := disk.realpath(p)) and within_any(r, writable)]
    kept = [r for r in _by_depth(protected) if disk.exists(r)]
    for d in pinned(map(str, policy.readonly), writable, kept, disk):
        argv += ["--bind", d, d]
    for r in kept:
        argv += ["--ro-bind", r, r]
    hidden: list[str] = []   # directories already replaced by an empty one
    for p in _by_depth(policy.masked):
        if not disk.lexists(p):
            continue
        target = disk.realpath(p)
        if not disk.exists(target) or not seen(target) or within_any(target, hidden):
            continue  # (inside a hidden directory it is gone already, and cannot be bound)
        if disk.closed(target):
            continue  # this user cannot open it inside either
        if disk.isdir(target):
            argv += ["--tmpfs", target, "--remount-ro", target]
            hidden.append(target)
        else:
            argv += ["--ro-bind", "/dev/null", target]
    return argv


def pinned(protected: Iterable[str], writable: list[str] | tuple[str, ...], kept: list[str],
           disk: Disk) -> list[str]:
    """The directories to bind onto themselves, shallow first: every one between a writable
    root and a protected path (missing or not, as written and as resolved), unless a
    read-only bind covers it already.

    A read-only bind protects only what it is mounted on; its parent stays writable, and a
    renamed parent carries the mount along (``mv .git g && mkdir .git && cp -a g/. .git/``
    left a fresh, writable ``.git/hooks`` where the host's git looks). Linux refuses to
    rename or remove a mount point (EBUSY), so each directory on the way is made one. A bind
    of a directory onto itself changes nothing else but that a rename or hard link across
    it fails with EXDEV, as across any mount (``mv`` copies instead). A symlink on the way
    cannot be made one (a mount follows it): the directories it leads to are pinned instead.
    """
    out: list[str] = []
    for p in protected:
        for q in dict.fromkeys((p, disk.realpath(p))):
            d = os.path.dirname(q)
            # up to the outermost root (each directory as resolved, like the roots)
            while d != "/" and within_any(r := disk.realpath(d), writable):
                out.append(r)
                d = os.path.dirname(d)
    return [d for d in _by_depth(out) if d not in writable and not within_any(d, kept)
            and disk.isdir(d)]


def unbound(policy: Policy, disk: Disk | None = None) -> list[str]:
    """The protected paths inside writable roots that no mount protects because they do not
    exist yet (a bind would create its missing target on the host: an empty ``.envrc``,
    ``.claude/settings.json`` … in the user's tree), resolved like the mounts, each written
    ``ANCHOR//REST`` for :func:`.guard.undo_created`: ANCHOR the nearest directory above it
    that exists — a root, or bound onto itself (:func:`pinned`), so that it is still the very
    same one after the command — and REST the missing part."""
    disk = disk or Disk()
    writable = [r for w in policy.roots() if disk.isdir(r := disk.realpath(str(w)))]
    out: list[str] = []
    for p in map(str, policy.readonly):
        real = disk.realpath(p)
        if disk.lexists(real) or not within_any(real, writable):
            continue
        anchor = os.path.dirname(real)
        while not disk.lexists(anchor):
            anchor = os.path.dirname(anchor)
        if within_any(anchor, writable) and disk.isdir(anchor):
            out.append(f"{anchor}//{real[len(anchor) + 1:]}")
    return list(dict.fromkeys(out))


_FIXED = frozenset(("/", "/dev", "/proc", "/dev/null", _TMP, _SHM))
_ONE_PATH = frozenset(("--tmpfs", "--remount-ro", "--dev", "--proc"))
_ONE_WORD = "--size"   # one word, a number, no path
_TWO_PATHS = frozenset(("--bind", "--ro-bind", "--symlink"))


def mount_identity(mounts: list[str], disk: Disk | None = None) -> tuple[tuple[str, int, int], ...]:
    """(path, device, inode) of every host path a mount of ``mounts`` hangs on.

    A long-lived sandbox keeps the mounts it was born with, and the kernel detaches a mount
    when its mount point is unlinked or renamed over on the host (Linux >= 3.18): a masked file
    replaced atomically (``~/.netrc`` rewritten) or a protected one (git rewrites
    ``.git/config`` through a rename) would then show the real file, writable. A changed
    identity means such a sandbox must be replaced; a fresh one per command needs no check.
    """
    disk = disk or Disk()
    out: list[tuple[str, int, int]] = []
    i = 0
    while i < len(mounts):
        flag = mounts[i]
        if flag == _ONE_WORD:
            i += 2
            continue
        n = 2 if flag in _TWO_PATHS else 1 if flag in _ONE_PATH else 0
        for p in mounts[i + 1:i + 1 + n]:
            if p not in _FIXED:
                st = disk.lstat(p)
                out.append((p, st.st_dev, st.st_ino) if st else (p, -1, -1))
        i += 1 + n
    return tuple(out)


def unseen(path: str, mounts: list[str]) -> bool:
    """Whether a sandbox built from ``mounts`` neither sees nor changes the host's ``path``
    (absolute, resolved): the last mount over it is a fresh tmpfs (the private /tmp, a mask)
    and no writable bind lies on its way (a command could rename the directories above it).
    A FIFO there is out of reach: a read-only mount still lets a FIFO be opened and written."""
    last = ""
    i = 0
    while i < len(mounts):
        flag = mounts[i]
        n = 2 if flag in _TWO_PATHS else 1 if flag in (*_ONE_PATH, _ONE_WORD) else 0
        if n and flag not in ("--remount-ro", _ONE_WORD) and _within(path, mounts[i + n]):
            if flag == "--bind":
                return False
            last = flag
        i += 1 + n
    return last == "--tmpfs"


def build_argv(bwrap: str, policy: Policy, *, cwd: Path, tmpdir: Path, seccomp_fd: int | None,
               program: list[str], visible: Iterable[Path] = ()) -> list[str]:
    """A fresh sandbox for one command: ``visible`` as in :func:`mount_args`."""
    argv = namespace_args(bwrap, policy) + mount_args(policy, tmpdir=tmpdir, visible=visible)
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    argv += ["--chdir", str(cwd), "--", *program]
    return argv
