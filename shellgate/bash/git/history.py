"""Whether a repository's object store ever held a secret's name, remembered across hook
processes: ``git log -p`` and ``git show`` are what agents run most, and reading every tree of
a store (:mod:`.objects`) costs a fraction of a second per thousand commits, so the answer is
kept in shellgate's cache directory (read-only to every command: a command cannot plant an
answer) keyed by the store's :func:`.objects.signature` — a new object, pack or alternate
changes it, and so does a file of the store rewritten in place — and by the pattern of names
asked about.
"""

from __future__ import annotations

import hashlib
import json
import struct
import zlib
from collections.abc import Callable
from pathlib import Path

from . import objects


def ever_held(objdir: Path, hash_size: int, pattern: str,
              wanted: Callable[[str], bool]) -> tuple[list[str] | None, str]:
    """The paths under which a tree of the store at ``objdir`` held a name ``wanted`` accepts
    (``pattern``: what identifies ``wanted`` in the cache), or None and why the store was not
    read exactly."""
    from ..._xdg import cache_dir, read_cache, write_atomic

    try:
        sig = objects.signature(objdir)
    except (objects.Unread, OSError, ValueError, MemoryError) as exc:
        return None, str(exc) or type(exc).__name__
    key = hashlib.sha256(f"{objdir}\0{hash_size}\0{pattern}".encode("utf-8", "surrogateescape"))
    path = cache_dir() / "history" / f"{key.hexdigest()[:24]}.json"
    try:
        hit = json.loads(read_cache(path))
        if hit.get("sig") == sig:
            return hit["names"], hit["why"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass
    try:
        names: list[str] | None = objects.names_ever_held(objdir, hash_size, wanted)
        why = ""
    except objects.Unread as exc:
        names, why = None, str(exc)
    except (OSError, ValueError, IndexError, KeyError, struct.error, zlib.error, MemoryError) as exc:
        names, why = None, f"{type(exc).__name__} reading the object store"
    try:
        if objects.signature(objdir) != sig:   # a gc or a fetch while it was read
            return None, "the object store changed while it was read"
    except (objects.Unread, OSError, ValueError, MemoryError) as exc:
        return None, str(exc) or type(exc).__name__
    write_atomic(path, json.dumps({"sig": sig, "names": names, "why": why}).encode())
    return names, why
