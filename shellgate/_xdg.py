"""Where the XDG base directories are, and so where shellgate keeps its own files: shared by the
path table (a secret under ``~/.config`` is also one where ``XDG_CONFIG_HOME`` moves it), the
audit log, the sandbox (shellgate's own state, the undo watchers' FIFOs) and every cache (the
one way a cache file is written is here too). Standard library only: the hook path imports it.

Every grant keeps the cache directory read-only (sandbox/locations.own_state), so what a hook
finds there was written by shellgate itself, outside any sandbox: the remembered probe, the
seccomp filter files, the expanded path table, the remembered confined lines, what a
repository's history holds."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

# Each base's variable and where it is when unset (relative to HOME).
XDG_BASES: tuple[tuple[str, str], ...] = (
    ("XDG_CONFIG_HOME", ".config"), ("XDG_STATE_HOME", ".local/state"),
    ("XDG_CACHE_HOME", ".cache"), ("XDG_DATA_HOME", ".local/share"),
)


def moved_xdg(environ: Mapping[str, str] | None = None) -> tuple[tuple[str, str], ...]:
    """``(default, directory)`` for each XDG base this environment moves elsewhere (an absolute
    value; a relative one is ignored, as the XDG spec says)."""
    env = os.environ if environ is None else environ
    out = []
    for var, default in XDG_BASES:
        value = env.get(var, "")
        if value.startswith("/"):
            out.append((default, os.path.normpath(value)))
    return tuple(out)


def own_dirs(home: Path | None = None,
             environ: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """shellgate's own directories (``shellgate`` under each XDG base, where ``XDG_*`` put it
    and at its default place under ``home``): its configuration, approvals, audit log, state
    and caches. What lies below them is guarded by name already (the path table's
    ``~/.config/shellgate/**`` …, the sandbox's ``own_state``)."""
    home = home or Path(os.path.expanduser("~"))
    out = [Path(directory) / "shellgate" for _default, directory in moved_xdg(environ)]
    out += [home / default / "shellgate" for _var, default in XDG_BASES]
    return tuple(dict.fromkeys(out))


def state_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/shellgate`` (``~/.local/state/shellgate``): the audit log, the undo
    watchers' FIFOs; read-only to every command too."""
    env = os.environ if env is None else env
    base = env.get("XDG_STATE_HOME") or ""
    root = Path(base) if os.path.isabs(base) else Path(os.path.expanduser("~/.local/state"))
    return root / "shellgate"


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/shellgate`` (``~/.cache/shellgate``): read-only to every command."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path(os.path.expanduser("~/.cache"))
    return root / "shellgate"


MAX_CACHE_FILE = 64 << 20   # a bigger cache file is not one shellgate wrote


def read_cache(path: Path) -> bytes:
    """A cache file shellgate wrote (``OSError`` otherwise: missing, not a regular file, a
    link, too large). The cache lies in HOME: a FIFO or a link to ``/dev/zero`` planted there
    must not stall or flood the hook that reads it."""
    from ._plain import read_plain

    return read_plain(path, MAX_CACHE_FILE)


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` atomically; a failure leaves the old file (caches are never essential)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        pass
