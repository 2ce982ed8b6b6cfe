"""Restricted spawner threads: Landlock + seccomp applied to one thread, inherited by its children.

Landlock, seccomp and no_new_privs are per-thread when applied without TSYNC; a child forked
from that thread inherits them. Spawning from a dedicated, restricted thread avoids a
``preexec_fn`` (which forces CPython's slow fork path, +5 ms) and a Python exec helper (+35 ms):
anchors-sandbox §6.2 measured +0.4–0.8 ms. Restrictions cannot be lifted, so there is one
thread per distinct policy (kept in a small LRU cache); only ``Popen`` runs on it.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from . import landlock, seccomp

Key = tuple[tuple[Path, ...], tuple[Path, ...], bool, int]   # ..., the owning process id


class Spawner:
    def __init__(self, writable: tuple[Path, ...], hidden: tuple[Path, ...], network: bool) -> None:
        self._error: BaseException | None = None
        self._args = (writable, hidden, network)
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="shellgate-spawner",
                                        initializer=self._restrict)
        self._pool.submit(lambda: None).result()
        if self._error is not None:
            self._pool.shutdown(wait=False)
            raise self._error

    def _restrict(self) -> None:
        writable, hidden, network = self._args
        try:
            program = seccomp.filter_bytes(network)  # assemble before restricting
            landlock.restrict_thread(writable, hidden, network=network)
            seccomp.install(program)
        except BaseException as exc:  # reported to the constructor, never raised on the thread
            self._error = exc

    def popen(self, *args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        return self._pool.submit(subprocess.Popen, *args, **kwargs).result()

    def close(self) -> None:
        self._pool.shutdown(wait=False)


_lock = threading.Lock()
_cache: OrderedDict[Key, Spawner] = OrderedDict()
_MAX = 8


def spawner_for(writable: tuple[Path, ...], hidden: tuple[Path, ...], network: bool) -> Spawner:
    """The cached spawner for this restriction set (built on first use; raises OSError)."""
    key: Key = (writable, hidden, network, os.getpid())  # a forked child has none of our threads
    with _lock:
        sp = _cache.get(key)
        if sp is not None:
            _cache.move_to_end(key)
            return sp
    sp = Spawner(writable, hidden, network)
    with _lock:
        _cache[key] = sp
        while len(_cache) > _MAX:
            _cache.popitem(last=False)[1].close()
    return sp
