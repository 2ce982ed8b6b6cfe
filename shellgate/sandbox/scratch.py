"""The bound on a command's scratch space: what the private ``/tmp`` may hold
(``Limits.scratch_size``, ``[sandbox] scratch_size``), so that ``yes | head -c 100G >
/tmp/big`` fills neither the host's disk nor its memory.

Where the sandbox makes its ``/tmp`` itself (a hook's bwrap line: a fresh tmpfs), the kernel
bounds it: ``bwrap --size N --tmpfs /tmp``, and a write past it fails with ENOSPC ("No space
left on device"). Where the scratch is a host directory that outlives the command (a
BashTool's: bound at ``/tmp`` under bwrap, its ``$TMPDIR`` under Landlock; the session's files
live on across commands and views, so it cannot be a tmpfs of one sandbox), no
unprivileged kernel bound on a directory's total exists — quotas and loop mounts need root,
and RLIMIT_FSIZE bounds one file, not the total. So two bounds hold together there:

- RLIMIT_FSIZE at the cap (:attr:`.policy.Limits.file_cap`, set by ``ulimit -f``): a single
  file stops at once, with SIGXFSZ ("File size limit exceeded") or EFBIG ("File too large")
  for a program that ignores it. The same limit holds for files in the workspace (one
  process-wide limit; ``file_size`` sets another);
- :class:`Watch`: while the command runs, the runner measures the directory (the blocks its
  entries use) and kills the whole tree once it holds more than the cap, with a note saying
  so. Many files each under the cap overshoot by at most what is written between two looks
  (at least every :data:`EVERY` seconds; a larger tree is looked at less often, so that the
  walk never takes more than about a tenth of the time). It counts the entries too, against
  one per :data:`PAGE` bytes of the cap (:func:`entry_cap`, as many as a tmpfs of that size
  has inodes by default): empty files use no data block, and a million of them would take
  the host disk's inodes (every later file anywhere on it then fails with ENOSPC) while the
  bytes stay far under the cap.

The workspace has no total bound: it is the user's own directory on the user's disk, like
any build's output.
"""

from __future__ import annotations

import os
import stat
import time

EVERY = 0.1     # seconds between two looks at a small scratch directory
SHARE = 10      # a walk that took t seconds is followed by one after SHARE * t at least
PAGE = 4096     # bytes of the cap per entry the directory may hold (entry_cap)


def entry_cap(cap: int) -> int:
    """The entries (files, directories, links …) a scratch of ``cap`` bytes may hold: one per
    :data:`PAGE`, as a tmpfs of that size gets inodes by default (1 GiB: 262,144)."""
    return max(1, cap // PAGE)


def usage(root: str) -> tuple[int, int]:
    """(bytes, entries) the tree at ``root`` holds. Bytes: the blocks every entry uses, as a
    tmpfs of the cap counts its pages (a sparse file: only those written). Never the smaller
    of a file's size and its blocks: blocks allocated past the end (``fallocate
    --keep-size``, which RLIMIT_FSIZE does not stop) leave the size at 0, and 16 MiB of them
    took the host's disk under a 1 MiB cap unseen. A hard link within it is counted once per
    name (too much, never too little). Entries: every name below ``root``."""
    total = entries = 0
    stack = [root]
    while stack:
        top = stack.pop()
        try:
            it = os.scandir(top)
        except OSError:
            continue
        with it:
            for entry in it:
                entries += 1
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISDIR(st.st_mode):
                    stack.append(entry.path)
                total += st.st_blocks * 512
    return total, entries


class Watch:
    """The total of a host-backed scratch directory, looked at while a command runs.

    A command is stopped when the directory holds more than the cap *and* more than when it
    started (bytes, or entries against :func:`entry_cap`): one that frees space
    (``rm /tmp/big``) or only reads must run in a scratch left over its cap (by a background
    job, or an overshoot) — else nothing could empty it. ``every`` and ``share``: the pace of
    the looks (:data:`EVERY`, :data:`SHARE`)."""

    def __init__(self, root: str, cap: int, *, every: float = EVERY, share: float = SHARE) -> None:
        self.root, self.cap, self.entries = root, cap, entry_cap(cap)
        self.every, self.share = every, share
        start = time.monotonic()
        self.before = usage(root)
        self.due = start + max(every, share * (time.monotonic() - start))

    def over(self, now: float) -> str | None:
        """When a look is due: the reason the command must stop, if the directory holds more
        than the cap and more than before the command; else None."""
        if now < self.due:
            return None
        used, entries = usage(self.root)
        took = time.monotonic() - now
        self.due = now + max(self.every, self.share * took)
        if used > self.cap and used > self.before[0]:
            return (f"the scratch /tmp held {used} bytes, over its cap of {self.cap} "
                    "([sandbox] scratch_size)")
        if entries > self.entries and entries > self.before[1]:
            return (f"the scratch /tmp held {entries} files and directories, over its cap of "
                    f"{self.entries} (one per {PAGE} bytes of [sandbox] scratch_size)")
        return None
