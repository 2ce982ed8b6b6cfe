"""What git's discovery found on disk, remembered for the rest of one analysis.

A command with several written paths asks :func:`.config.implant_location` for each, and each
asks the same questions of the disk: which repository holds the workspace, where are its config
files and hooks directory, what is each location's real path. The disk does not change while a
command is analysed, so :func:`shellgate.bash.analysis.analyse` opens a :func:`scope` and the
answers are kept until it closes; outside a scope nothing is kept (a later check sees the disk
as it is then).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Hashable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

_MEMO: contextvars.ContextVar[dict[Hashable, Any] | None] = contextvars.ContextVar(
    "shellgate_git_memo", default=None)


@contextlib.contextmanager
def scope() -> Iterator[None]:
    """Remember answers until the block ends (one analysis)."""
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def get(key: Hashable, compute: Callable[[], T]) -> T:
    """``compute()``, or what it returned for ``key`` earlier in this scope (an exception is
    not remembered: it is raised again by the next call)."""
    memo = _MEMO.get()
    if memo is None:
        return compute()
    try:
        return memo[key]  # type: ignore[no-any-return]
    except KeyError:
        value = memo[key] = compute()
        return value
