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
  walk never takes more than about a tenth of the time).

The workspace has no total bound: it is the user's own directory on the user's disk, like
any build's output.
"""

from __future__ import annotations

import os
import stat
import time

EVERY = 0.1     # seconds between two looks at a small scratch directory
SHARE = 10      # a walk that took t seconds is followed by one after SHARE * t at least


def usage(root: str) -> int:
    """Bytes the tree at ``root`` holds: a file's data (its size, or the blocks it uses when
    fewer: a sparse file), the blocks of everything else; a hard link within it counted once
    per name (too much, never too little). A file's own metadata blocks are not counted: a
    file stopped at the cap by RLIMIT_FSIZE is not over it."""
    total = 0
    stack = [root]
    while stack:
        top = stack.pop()
        try:
            it = os.scandir(top)
        except OSError:
            continue
        with it:
            for entry in it:
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                used = st.st_blocks * 512
                if stat.S_ISREG(st.st_mode):
                    used = min(used, st.st_size)
                elif stat.S_ISDIR(st.st_mode):
                    stack.append(entry.path)
                total += used
    return total


class Watch:
    """The total of a host-backed scratch directory, looked at while a command runs.

    A command is stopped when the directory holds more than the cap *and* more than when it
    started: one that frees space (``rm /tmp/big``) or only reads must run in a scratch
    left over its cap (by a background job, or an overshoot) — else nothing could empty it."""

    def __init__(self, root: str, cap: int) -> None:
        self.root, self.cap = root, cap
        start = time.monotonic()
        self.before = usage(root)
        self.due = start + max(EVERY, SHARE * (time.monotonic() - start))

    def over(self, now: float) -> str | None:
        """When a look is due: the reason the command must stop, if the directory holds more
        than the cap and more than before the command; else None."""
        if now < self.due:
            return None
        used = usage(self.root)
        took = time.monotonic() - now
        self.due = now + max(EVERY, SHARE * took)
        if used > self.cap and used > self.before:
            return (f"the scratch /tmp held {used} bytes, over its cap of {self.cap} "
                    "([sandbox] scratch_size); the command was killed")
        return None
