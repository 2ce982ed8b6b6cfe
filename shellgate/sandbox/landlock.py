"""Landlock via ctypes: the filesystem/TCP/scope restrictions of the no-namespace tier.

Landlock is an allow-list that needs no privileges and no namespaces (it works in unprivileged
containers where bwrap cannot). Its limits shape the rest of the tier: rights granted on a
directory hold for everything below it, so it cannot protect ``.git/hooks`` inside a writable
workspace (guard.py restores those instead), and a read-deny can only be built by granting
read on every *sibling* along the path to the hidden one (names stay listable). TCP rules
(ABI ≥ 4) miss UDP, and no rule covers ``connect()`` to a socket file before ABI 9, so without
the network seccomp refuses every socket as well.
"""

from __future__ import annotations

import ctypes
import os
import platform
from collections.abc import Iterable
from pathlib import Path

_NR = {"x86_64": (444, 445, 446), "aarch64": (444, 445, 446)}
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX, SCOPE_SIGNAL = 1 << 0, 1 << 1

READ = EXECUTE | READ_FILE | READ_DIR
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty")

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("fs", ctypes.c_uint64), ("net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _nr() -> tuple[int, int, int] | None:
    return _NR.get(platform.machine().lower())


_ABI: int | None = None


def abi() -> int:
    """The kernel's Landlock ABI version (0: unsupported or disabled). Probed once."""
    global _ABI
    if _ABI is None:
        nr = _nr()
        v = _libc.syscall(nr[0], None, ctypes.c_size_t(0), _CREATE_RULESET_VERSION) if nr else -1
        _ABI = int(v) if v > 0 else 0
    return _ABI


def fs_rights(version: int) -> int:
    rights = (1 << 13) - 1
    if version >= 2:
        rights |= REFER
    if version >= 3:
        rights |= TRUNCATE
    if version >= 5:
        rights |= IOCTL_DEV
    return rights


PROC = Path("/proc")


def proc_grants() -> list[tuple[Path, int]]:
    """Read rights on /proc minus the per-process directories.

    Landlock does not stop a sandboxed process from reading ``/proc/<pid>/environ`` of any
    process of the same user (measured: the agent's own API keys). Hiding the numeric entries
    closes that; ``/proc/self/fd/N`` still works for pipes (they are not path-checked), so
    ``/dev/stdout`` and ``<(…)`` keep working; tools that read their own ``/proc/self/*`` or
    list processes (ps) do not, in this tier only.
    """
    out: list[tuple[Path, int]] = []
    try:
        names = os.listdir(PROC)
    except OSError:
        return out
    for n in names:
        p = PROC / n
        if not n.isdigit() and not os.path.islink(p):
            out.append((p, READ))
    return out


def _within(p: Path, root: Path) -> bool:
    return p == root or root in p.parents


def plan_rules(grants: Iterable[tuple[Path, int]], hidden: Iterable[Path]) -> list[tuple[Path, int]]:
    """Rules granting ``grants`` except below ``hidden`` paths.

    A grant whose tree contains a hidden path is split: the directory itself keeps only
    READ_DIR (so it can be listed and walked) and each child gets the grant, recursively,
    skipping the hidden ones. Symlinks are followed by the kernel when the rule is added, so a
    child whose real path reaches a hidden path is skipped too.

    Each child costs set lookups, not a pass over ``hidden``: a split directory can hold tens of
    thousands of entries (a HOME below a crowded ``/tmp``), and with ~200 hidden paths the pass
    took 68 s for 20,000 siblings. A child that is no symlink is its own real path (its
    directory's is already real): no ``realpath`` for it.
    """
    hide = {Path(os.path.realpath(h)) for h in hidden}
    above = {d for h in hide for d in h.parents}   # the directories that must be split
    out: list[tuple[Path, int]] = []

    def emit(path: Path, real: Path, rights: int, depth: int) -> None:
        if real in hide or not hide.isdisjoint(real.parents):
            return
        if real not in above:
            out.append((real, rights))
            return
        if (depth and path != real) or depth > 16:  # a symlink into a tree that hides something: skip
            return
        out.append((real, rights & READ_DIR))
        try:
            with os.scandir(real) as it:
                children = sorted((e.name, e.is_symlink()) for e in it)
        except OSError:
            return
        for name, link in children:
            child = real / name
            emit(child, Path(os.path.realpath(child)) if link else child, rights, depth + 1)

    for path, rights in grants:
        emit(Path(path), Path(os.path.realpath(path)), rights, 0)
    return out


def restrict_thread(writable: Iterable[Path], hidden: Iterable[Path], *, network: bool) -> int:
    """Restrict the *calling thread*: read everywhere but ``hidden``, write only in ``writable``,
    no TCP unless ``network``, no abstract-socket/signal reach outside. Returns the ABI used.

    Needs no_new_privs set first (seccomp.install sets it; this sets it too). Raises OSError.
    """
    version = abi()
    nr = _nr()
    if not version or nr is None:
        raise OSError(38, "Landlock is not supported by this kernel")
    all_fs = fs_rights(version)
    attr = _RulesetAttr(all_fs, 0, 0)
    size = 8
    if version >= 4:
        attr.net = 0 if network else (NET_BIND_TCP | NET_CONNECT_TCP)
        size = 16
    if version >= 6:
        attr.scoped = SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL
        size = 24
    fd = _libc.syscall(nr[0], ctypes.byref(attr), ctypes.c_size_t(size), 0)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    dev = all_fs & (READ_FILE | WRITE_FILE | TRUNCATE | IOCTL_DEV)
    grants = [(Path("/"), READ)] + [(Path(w), all_fs) for w in writable]
    grants += [(Path(d), dev) for d in DEVICES]
    try:
        for path, rights in plan_rules(grants, (*hidden, PROC)) + proc_grants():
            try:
                pfd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except OSError:
                continue  # gone, or not ours to open: nothing to grant
            try:
                if not os.path.isdir(path):
                    rights &= FILE_RIGHTS
                if not rights:
                    continue
                rule = _PathBeneath(rights & all_fs, pfd)
                if _libc.syscall(nr[1], int(fd), _RULE_PATH_BENEATH, ctypes.byref(rule), 0) != 0:
                    raise OSError(ctypes.get_errno(), f"landlock_add_rule({path}) failed")
            finally:
                os.close(pfd)
        if _libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
            raise OSError(ctypes.get_errno(), "prctl(NO_NEW_PRIVS) failed")
        if _libc.syscall(nr[2], int(fd), 0) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(fd)
    return version
