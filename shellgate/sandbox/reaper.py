"""Killing a whole process tree without a PID namespace (the landlock and none tiers).

`killpg` misses `setsid` children and a descendant walk misses orphans (anchors-sandbox §6.4).
With PR_SET_CHILD_SUBREAPER on this process, every orphan of a command is re-parented to us
instead of init, so a walk of *our* descendants finds it. Caveat (documented): the attribute is
process-wide; orphans of other children of an embedding application are re-parented to it too,
and a concurrent command's orphans cannot be told apart from ours.

One pass over /proc/*/stat per round gives parent and start time (in clock ticks since boot —
exact, unlike wall-clock times) of every process.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import select
import signal
import threading
import time

PR_SET_CHILD_SUBREAPER = 36
_lock = threading.Lock()
_enabled: bool | None = None
_active: set[int] = set()  # main pids of commands running now (any tier)


def enable() -> bool:
    """Make this process the reaper of its descendants' orphans (once). False if refused."""
    global _enabled
    with _lock:
        if _enabled is None:
            libc = ctypes.CDLL(None, use_errno=True)
            _enabled = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
        return _enabled


def enabled() -> bool:
    """Whether this process is a subreaper (orphans of our descendants become our children)."""
    return bool(_enabled)


def reap_bwrap_init(info: bytes, timeout: float = 5.0) -> None:
    """Reap a finished bwrap's init process, given what bwrap wrote to its ``--info-fd``.

    bwrap's init outlives bwrap by a moment (it is killed through --die-with-parent); when
    this process is a subreaper it is re-parented to us and would stay a zombie for good.
    """
    if not enabled():
        return
    try:
        fd = os.pidfd_open(int(json.loads(info)["child-pid"]))
    except (ValueError, KeyError, TypeError, OSError):
        return
    try:
        select.select([fd], [], [], timeout)   # readable once it has exited
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitid(os.P_PIDFD, fd, os.WEXITED | os.WNOHANG)
    finally:
        os.close(fd)


def register(pid: int) -> None:
    with _lock:
        _active.add(pid)


def unregister(pid: int) -> None:
    with _lock:
        _active.discard(pid)


def _stat(pid: int | str) -> tuple[str, int, int] | None:
    """(state, ppid, start ticks) of ``pid`` from /proc, or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    fields = raw[raw.rfind(b")") + 2:].split()  # after "pid (comm) "
    try:
        return fields[0].decode(), int(fields[1]), int(fields[19])
    except (IndexError, ValueError):
        return None


def birth(pid: int) -> int:
    """``pid``'s start time in clock ticks since boot (a zombie still has one; if it is gone
    altogether, now — so no older process can be mistaken for the command's)."""
    st = _stat(pid)
    if st:
        return st[2]
    return int(time.clock_gettime(time.CLOCK_BOOTTIME) * os.sysconf("SC_CLK_TCK"))


def _last_pid() -> int:
    try:
        with open("/proc/sys/kernel/ns_last_pid", "rb") as f:
            return int(f.read())
    except (OSError, ValueError):
        return -1


def _table(root: int) -> dict[int, tuple[str, int, int]]:
    """Processes that may be the command's: those with a pid above ``root`` — pids are handed
    out in increasing order — unless the pid counter wrapped since (then every process)."""
    floor = root if _last_pid() >= root else 0
    out: dict[int, tuple[str, int, int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and int(name) >= floor and (st := _stat(name)) is not None:
            out[int(name)] = st
    return out


def _descendants(roots: set[int], children: dict[int, list[int]]) -> set[int]:
    seen, todo = set(roots), list(roots)
    while todo:
        for c in children.get(todo.pop(), ()):
            if c not in seen:
                seen.add(c)
                todo.append(c)
    return seen


def _candidates(root: int, since: int, table: dict[int, tuple[str, int, int]]) -> set[int]:
    """The command's processes: ``root``'s tree, plus the trees of our children born at
    ``since`` or later that belong to no other running command (orphans re-parented to us)."""
    me = os.getpid()
    children: dict[int, list[int]] = {}
    for pid, (_, ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    with _lock:
        others = set(_active) - {root}
    foreign = _descendants(others, children) if others else set()
    orphans = {c for c in children.get(me, ()) if table[c][2] >= since and c not in foreign}
    return _descendants({root} | orphans, children) - foreign - {me}


def sweep(root: int, since: int, *, deadline: float = 2.0) -> int:
    """SIGKILL every process of the command rooted at ``root`` and reap the ones that are ours.

    Rounds repeat until a scan finds nothing alive, so children forked while we kill are caught.
    Returns the number of processes killed (``root`` excluded).
    """
    killed: set[int] = set()
    seen: set[int] = set()
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        table = _table(root)
        found = _candidates(root, since, table)
        seen |= found
        alive = [p for p in found if p in table and table[p][0] not in "ZX"]
        if not alive:
            break
        for pid in alive:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            killed.add(pid)
        _reap(seen - {root}, min(end, time.monotonic() + 0.5))
    _reap(seen - {root}, end)  # zombies too: killpg's victims are re-parented to us
    return len(killed - {root})


def _reap(pids: set[int], until: float) -> None:
    """waitpid the zombies that are (or become, by re-parenting) our children."""
    pending = set(pids)
    me = os.getpid()
    while pending:
        for pid in list(pending):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                st = _stat(pid)
                if st is None or st[1] not in pids and st[1] != me:
                    pending.discard(pid)  # gone, or someone else's to reap
                continue
            if done == pid:
                pending.discard(pid)
        if not pending or time.monotonic() >= until:
            return
        time.sleep(0.002)
