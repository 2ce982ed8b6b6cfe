"""The bubblewrap argv for one command (the srt/Codex recipe, anchors-sandbox §7 tier A).

Order matters — later mounts cover earlier ones: read-only root, fresh /dev and /proc, a
private /tmp, then the paths under /tmp that must stay visible, the writable roots, the
protected paths re-bound read-only inside them, and last the masks. Paths that do not exist
are skipped (a missing bind source fails every call: anthropics/claude-code#39284).
Built with plain strings: this runs once per command.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from .policy import Policy
from .policy import within as _within

TMP = Path("/tmp")
_TMP = "/tmp"


def _by_depth(paths: Iterable[str]) -> list[str]:
    return sorted(dict.fromkeys(paths), key=lambda p: (p.count("/"), p))


def build_argv(bwrap: str, policy: Policy, *, cwd: Path, tmpdir: Path, seccomp_fd: int | None,
               program: list[str], visible: Iterable[Path] = ()) -> list[str]:
    """``visible``: paths under /tmp that must be seen read-only (HOME, cwd, PATH entries)."""
    argv = [bwrap, "--new-session", "--die-with-parent", "--unshare-pid", "--unshare-ipc"]
    if not policy.network:
        argv.append("--unshare-net")
    if os.geteuid() == 0:  # real root keeps every capability in the sandbox unless dropped
        argv += ["--cap-drop", "ALL"]
    argv += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", str(tmpdir), _TMP]

    writable = [w for w in map(str, policy.roots()) if os.path.isdir(w)]
    bound: list[str] = []
    for p in _by_depth(map(str, visible)):
        if _within(p, _TMP) and os.path.exists(p) and not any(_within(p, b) for b in bound + writable):
            argv += ["--ro-bind", p, p]
            bound.append(p)
    for p in _by_depth(writable):
        argv += ["--bind", p, p]
        bound.append(p)

    def seen(p: str) -> bool:  # still visible after /tmp was replaced
        return not _within(p, _TMP) or any(_within(p, b) for b in bound)

    for p in _by_depth(map(str, policy.readonly)):
        if not os.path.lexists(p) or not seen(p) or not any(_within(p, w) for w in writable):
            continue
        real = os.path.realpath(p)
        if os.path.exists(real) and any(_within(real, w) for w in writable):
            argv += ["--ro-bind", real, real]
    for p in _by_depth(map(str, policy.masked)):
        if not os.path.lexists(p) or not seen(p):
            continue
        target = os.path.realpath(p) if os.path.islink(p) else p
        if not os.path.exists(target) or not seen(target):
            continue
        if os.path.isdir(target):
            argv += ["--tmpfs", target, "--remount-ro", target]
        else:
            argv += ["--ro-bind", "/dev/null", target]
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    argv += ["--chdir", str(cwd), "--", *program]
    return argv
