"""What one sandboxed command may do: the mechanism's input, with no notion of modes or tools.

The permission layer decides *whether* a command runs; it then hands the sandbox a
:class:`Policy` saying *how* (which paths are writable, which are hidden, whether the network
is reachable, how long and how much output). The sandbox never imports the permission layer.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from .._record import field, record

KiB = 1024
MiB = 1024 * KiB
GiB = 1024 * MiB


def within(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> bool:
    """``path`` is ``root`` or lies below it (absolute, normalised paths; string-fast)."""
    p, r = os.fspath(path), os.fspath(root)
    return p == r or p.startswith(r if r.endswith("/") else r + "/")


def within_any(path: str, roots: tuple[str, ...] | list[str]) -> bool:
    """:func:`within` for several roots at once (two C-level calls; this runs per path per
    command)."""
    return path in roots or path.startswith(_prefixes(tuple(roots)))


@functools.lru_cache(maxsize=256)
def _prefixes(roots: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(r if r.endswith("/") else r + "/" for r in roots)


@record
class Limits:
    """Time, output and resource bounds that hold in every tier."""

    timeout: float = 120.0            # seconds of wall time before the whole tree is killed
    output_head: int = 64 * KiB       # bytes kept from the start of each stream
    output_tail: int = 64 * KiB       # bytes kept from the end of each stream
    output_hard: int = 64 * MiB       # bytes read (both streams) before the tree is killed
    drain: float = 0.5                # seconds to keep reading pipes after the command exited
    core: int | None = 0              # rlimits set with `ulimit` before the command; None = inherit
    file_size: int | None = None      # bytes (RLIMIT_FSIZE)
    open_files: int | None = None     # RLIMIT_NOFILE
    cpu: int | None = None            # seconds of CPU (RLIMIT_CPU)
    address_space: int | None = None  # bytes (RLIMIT_AS)
    max_jobs: int = 8                 # background jobs alive at once (pre-spawned bwrap only)
    job_lifetime: float = 3600.0      # seconds a background job may live before it is stopped
    scratch_size: int | None = GiB    # bytes the private /tmp may hold (None: no cap; scratch.py)

    @property
    def file_cap(self) -> int | None:
        """RLIMIT_FSIZE for the command: ``file_size`` when set, else ``scratch_size`` — no
        single file may be larger than the scratch space may hold, in the workspace either
        (:mod:`.scratch`)."""
        return self.file_size if self.file_size is not None else self.scratch_size


def limit_setting(key: str, value: object) -> int | None:
    """A ``[sandbox]`` integer limit (``scratch_size``, ``open_files`` …) as :class:`Limits`
    holds it: a non-negative integer, 0 meaning none (None) — except for the output caps,
    where 0 is 0. The one reading of these keys, for the bash tool and the hooks alike.
    Raises ValueError naming the key."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"[sandbox] {key} must be a non-negative integer")
    return value if value or key.startswith("output") else None


@record
class Policy:
    """Paths are absolute. ``writable`` roots are bound read-write; ``readonly`` paths lie inside
    them and are re-bound read-only (or watched and restored where the tier cannot); ``masked``
    paths are hidden (empty dir / ``/dev/null``). Paths that do not exist are skipped by the
    tiers, so a policy can list every candidate without checking."""

    workspace: Path
    writable: tuple[Path, ...] = ()
    readonly: tuple[Path, ...] = ()
    masked: tuple[Path, ...] = ()
    network: bool = False
    home: Path | None = None                        # HOME for the command (None: the real one)
    tmpdir: Path | None = None                      # private tmp (None: the sandbox's own)
    env_passthrough: tuple[str, ...] = ()           # extra variable names to inherit
    env_set: tuple[tuple[str, str], ...] = ()       # variables set explicitly (not filtered)
    limits: Limits = field(default_factory=Limits)
    write: bool = True                              # False: nothing is writable (a read grant)
    linked: tuple[Path, ...] = ()                   # protected files outside the roots with a
    #   name inside them (links.py): bwrap binds those names; Landlock guards these files
    shown: tuple[Path, ...] = ()                    # read-only places the command must see
    #   (the copies of a hidden git config, gitview.py): bwrap binds them into its /tmp
    explain: tuple[tuple[Path, str], ...] = ()      # why a hidden file git reads has no copy

    def roots(self) -> tuple[Path, ...]:
        """Every writable root, the workspace first, without duplicates (none for a read
        grant)."""
        if not self.write:
            return ()
        seen: dict[Path, None] = {self.workspace: None}
        seen.update((p, None) for p in self.writable)
        return tuple(seen)
