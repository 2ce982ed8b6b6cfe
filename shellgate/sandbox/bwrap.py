"""The bubblewrap argv for one command (the srt/Codex recipe, anchors-sandbox §7 tier A).

Order matters — later mounts cover earlier ones: read-only root, fresh /dev and /proc, a
private /tmp, then the paths under /tmp that must stay visible, the writable roots, the
protected paths re-bound read-only inside them, and last the masks. Paths that do not exist
are skipped (a missing bind source fails every call: anthropics/claude-code#39284).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from .policy import Policy
from .policy import within as _within

TMP = Path("/tmp")


def _exists(p: Path) -> bool:
    return os.path.lexists(p)


def _by_depth(paths: Iterable[Path]) -> list[Path]:
    return sorted(dict.fromkeys(paths), key=lambda p: (len(p.parts), str(p)))


def build_argv(bwrap: str, policy: Policy, *, cwd: Path, tmpdir: Path, seccomp_fd: int | None,
               program: list[str], visible: Iterable[Path] = ()) -> list[str]:
    """``visible``: paths under /tmp that must be seen read-only (HOME, cwd, PATH entries)."""
    argv = [bwrap, "--new-session", "--die-with-parent", "--unshare-pid", "--unshare-ipc"]
    if not policy.network:
        argv.append("--unshare-net")
    if os.geteuid() == 0:  # real root keeps every capability in the sandbox unless dropped
        argv += ["--cap-drop", "ALL"]
    argv += ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--bind", str(tmpdir), "/tmp"]

    writable = [p for p in policy.roots() if p.is_dir()]
    bound: list[Path] = []
    for p in _by_depth(visible):
        if _within(p, TMP) and p.exists() and not any(_within(p, b) for b in bound + writable):
            argv += ["--ro-bind", str(p), str(p)]
            bound.append(p)
    for p in _by_depth(writable):
        argv += ["--bind", str(p), str(p)]
        bound.append(p)

    def seen(p: Path) -> bool:  # still visible after /tmp was replaced
        return not _within(p, TMP) or any(_within(p, b) for b in bound)

    for p in _by_depth(policy.readonly):
        if not _exists(p) or not seen(p) or not any(_within(p, w) for w in writable):
            continue
        real = Path(os.path.realpath(p))
        if real.exists() and any(_within(real, w) for w in writable):
            argv += ["--ro-bind", str(real), str(real)]
    for p in _by_depth(policy.masked):
        if not _exists(p) or not seen(p):
            continue
        if p.is_dir() and not p.is_symlink():
            argv += ["--tmpfs", str(p), "--remount-ro", str(p)]
        elif not p.is_symlink():
            argv += ["--ro-bind", "/dev/null", str(p)]
        elif (real := Path(os.path.realpath(p))).exists() and seen(real):
            argv += (["--tmpfs", str(real), "--remount-ro", str(real)] if real.is_dir()
                     else ["--ro-bind", "/dev/null", str(real)])
    if seccomp_fd is not None:
        argv += ["--seccomp", str(seccomp_fd)]
    argv += ["--chdir", str(cwd), "--", *program]
    return argv
