"""shellgate's cache directory and the one way files are written into it.

Every grant keeps the directory read-only (locations.own_state), so what a hook finds there
was written by shellgate itself, outside any sandbox: the remembered probe, the seccomp filter
files, the expanded path table, the remembered confined lines.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/shellgate`` (``~/.cache/shellgate``): read-only to every command."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path(os.path.expanduser("~/.cache"))
    return root / "shellgate"


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` atomically; a failure leaves the old file (caches are never essential)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        pass
