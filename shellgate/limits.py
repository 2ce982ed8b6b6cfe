"""Bounds on one decision: a size limit and a deadline (``[limits]`` in the config).

An agent that waits too long for a hook, or a hook that dies, lets the tool call through on
most agents (research/ecosystem.md §0.4). So every front end — the hooks, ``shellgate serve``,
``Gate.check`` (``check``, ``check --jsonl``, MCP) and the BashTool — answers within a bound,
whatever the input:

- a command longer than ``max_command`` characters is not analysed at all: it is put to the
  user (ask) where someone can answer, denied elsewhere, at once;
- the analysis of a command runs under ``deadline`` seconds: past it the call is answered the
  same way, with a reason, and the analysis is abandoned (see :func:`bounded`).

The analysis is linear in the command length (``bench/limits_speed.py`` shows the curve), so
the deadline is a last line of defence, not the normal path. Standard library only: this is
imported on the hook path.

Config (user or ``--config`` file only: a project file cannot loosen it)::

    [limits]
    max_command = 1048576   # characters
    deadline = 5.0          # seconds, per analysis
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from ._record import record

T = TypeVar("T")

DEFAULT_MAX_COMMAND = 1 << 20   # characters; the parser itself refuses (asks) above 256 KiB
DEFAULT_DEADLINE = 5.0          # seconds; `shellgate init` gives the agents 30 s
HOOK_WATCHDOG = 10.0            # seconds; the hook process answers deny and exits by then
_KEYS = frozenset({"max_command", "deadline"})


@record
class DecisionLimits:
    """The size limit (characters) and the analysis deadline (seconds) of one front end."""

    max_command: int = DEFAULT_MAX_COMMAND
    deadline: float = DEFAULT_DEADLINE

    def size_problem(self, command: Any) -> str | None:
        """Why ``command`` is not analysed at all, or ``None`` when it may be."""
        if isinstance(command, str) and len(command) > self.max_command:
            return (f"the command is {len(command)} characters long, over the limit of "
                    f"{self.max_command} ([limits] max_command); it was not analysed")
        return None

    def late(self) -> str:
        """The reason given when the analysis missed the deadline."""
        return (f"the analysis did not finish within {self.deadline:g} s ([limits] deadline); "
                "the command was not judged")


DEFAULT = DecisionLimits()


def from_sections(sections: Mapping[str, Any]) -> DecisionLimits:
    """The ``[limits]`` table of a config (``Config.sections``); ValueError on a bad value."""
    table = sections.get("limits")
    if table is None:
        return DEFAULT
    if not isinstance(table, Mapping):
        raise ValueError("[limits] is not a table")
    unknown = set(table) - _KEYS
    if unknown:
        raise ValueError(f"[limits]: unknown key(s) {', '.join(sorted(unknown))}")
    size = table.get("max_command", DEFAULT_MAX_COMMAND)
    deadline = table.get("deadline", DEFAULT_DEADLINE)
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError("[limits] max_command must be a positive integer (characters)")
    if isinstance(deadline, bool) or not isinstance(deadline, int | float) or not (
            0 < deadline <= 3600):
        raise ValueError("[limits] deadline must be a number of seconds in (0, 3600]")
    return DecisionLimits(size, float(deadline))


def bounded(fn: Callable[[], T], seconds: float) -> tuple[bool, T | None]:
    """``(True, fn())`` when ``fn`` returns within ``seconds``, else ``(False, None)``.

    ``fn`` runs in a daemon thread; an exception it raises is raised here. A late ``fn`` is
    abandoned, not killed: Python cannot stop a thread safely (an exception injected into it
    could leave a shared cache half-built), and the analysis is linear under the size limit,
    so it ends on its own. A process that must stop now (the hook) exits with ``os._exit``,
    which ends the thread with it.

    The thread is kept for the next call once ``fn`` returned in time (starting one costs more
    than many an analysis on a loaded machine: ``shellgate fuzz`` and ``check --jsonl`` make
    thousands of calls); a late one finishes ``fn`` and ends.
    """
    with _idle_lock:
        worker = _idle.pop() if _idle else None
    if worker is None:
        worker = _Worker()
    box: list[Any] = []
    done = threading.Event()
    worker.jobs.put((fn, box, done))
    if not done.wait(seconds):
        worker.jobs.put(None)   # it ends once the late fn returns
        return False, None
    with _idle_lock:
        _idle.append(worker)
    ok, value = box[0]
    if not ok:
        raise value
    return True, value


class _Worker:
    """A daemon thread that runs :func:`bounded`'s calls one at a time, until told to end."""

    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        threading.Thread(target=self._loop, name="shellgate-bounded", daemon=True).start()

    def _loop(self) -> None:
        while (job := self.jobs.get()) is not None:
            fn, box, done = job
            try:
                box.append((True, fn()))
            except BaseException as exc:  # noqa: BLE001 - handed to the caller's thread
                box.append((False, exc))
            finally:
                done.set()
            del job, fn, box, done   # nothing of a finished call is kept alive


_idle: list[_Worker] = []     # threads waiting for a call
_idle_lock = threading.Lock()


def _forget_threads() -> None:
    """In a forked child the idle threads are gone (only the forking thread is copied)."""
    global _idle_lock
    _idle.clear()
    _idle_lock = threading.Lock()


os.register_at_fork(after_in_child=_forget_threads)


class Watchdog:
    """A hard stop for a one-shot process (the hook): unless :meth:`claim` is called first,
    after ``seconds`` ``on_expiry`` runs (it writes a deny) and the process exits at once.

    Whatever hangs — an analysis, a lock on the approval store, a slow disk — the agent gets a
    deny before its own timeout, instead of a timed-out hook it would treat as a pass.
    """

    def __init__(self, seconds: float, on_expiry: Callable[[], None], code: int = 0) -> None:
        self._lock = threading.Lock()
        self._answered = False
        self._on_expiry = on_expiry
        self._code = code
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def claim(self) -> bool:
        """The caller is about to answer: True when it may (the watchdog has not fired)."""
        with self._lock:
            if self._answered:
                return False
            self._answered = True
        self._timer.cancel()
        return True

    def _fire(self) -> None:
        import os

        with self._lock:
            if self._answered:
                return
            self._answered = True
        try:
            self._on_expiry()
        finally:
            os._exit(self._code)
