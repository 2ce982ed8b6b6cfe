"""The audit log: JSON Lines, one line per decision and per execution.

Many processes append to one file at once (every hook call is a process). Each line is
written with a single ``write(2)`` on an ``O_APPEND`` descriptor while holding an exclusive
``flock`` on that file, so lines never interleave or get lost, whatever their length. The
lock is the stdlib's ``fcntl`` (no third-party import on the hook path). Every string is passed
through :func:`.redact.redact` first. Writing the audit log never raises: a failure is counted
in :attr:`AuditLog.errors` and the decision goes on.

Fields (SPEC §4, names after Claude Code's ``tool_decision`` event): ``ts`` (RFC 3339, UTC),
``seq`` (per writer), ``pid``, ``event`` (``decision`` | ``execution``), ``session_id``,
``tool_use_id``, ``tool``, ``cwd``, ``workspace``, ``command``, ``mode``, ``plan``,
``decision``, ``verdict``, ``source``, ``rule``, ``matched``, ``capability``, ``reasons``,
``warnings``, ``sensitive_paths``, ``exit_code``, ``duration_ms``, ``version``.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .redact import redact

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: O_APPEND alone
    fcntl = None  # type: ignore[assignment]


def default_audit_path(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_STATE_HOME/shellgate/audit.jsonl``, ``~/.local/state/shellgate/`` when unset."""
    from .._xdg import state_dir

    return state_dir(env) / "audit.jsonl"


def _scrub(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {str(k): _scrub(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_scrub(v) for v in value]
    if value is None or isinstance(value, (bool, int, float)):
        return value
    return redact(str(value))


class AuditLog:
    """Appends audit lines to ``path`` (default :func:`default_audit_path`)."""

    def __init__(self, path: str | Path | None = None, *, session_id: str | None = None) -> None:
        self.path = Path(path).expanduser() if path is not None else default_audit_path()
        self.session_id = session_id
        self.errors = 0
        self.last_error: str | None = None
        self._seq = 0
        self._lock = threading.Lock()

    def record(self, entry: Mapping[str, Any]) -> bool:
        """Append one line. Returns False (and counts the error) when it could not be written."""
        try:
            with self._lock:
                self._seq += 1
                seq = self._seq
            from .. import __version__

            line = {"ts": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
                    "seq": seq, "pid": os.getpid(), "session_id": self.session_id,
                    "version": __version__}
            line.update(_scrub(dict(entry)))
            if line.get("session_id") is None:
                line["session_id"] = self.session_id
            data = (json.dumps(line, ensure_ascii=False, separators=(",", ":"), default=str)
                    + "\n").encode("utf-8", "replace")
            self._append(data)
            return True
        except Exception as exc:  # the log must never take a decision down with it
            self.errors += 1
            self.last_error = f"{type(exc).__name__}: {exc}"
            return False

    def _append(self, data: bytes) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # O_NONBLOCK: a FIFO planted as the log would block this open until a reader came (the
        # hook until its watchdog); without a reader it fails at once, with one it is refused
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK
                     | getattr(os, "O_CLOEXEC", 0), 0o600)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(f"{self.path} is not a regular file")
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            view = memoryview(data)
            while view:  # a regular file takes it in one write; loop only for safety
                n = os.write(fd, view)
                view = view[n:]
        finally:
            os.close(fd)  # closing releases the flock

    def execution(self, *, command: str, exit_code: int | None, duration_ms: float | None,
                  cwd: str | None = None, tool_use_id: str | None = None,
                  session_id: str | None = None, **extra: Any) -> bool:
        """One line per execution (BashTool / MCP ``run_command``)."""
        return self.record({"event": "execution", "command": command, "exit_code": exit_code,
                            "duration_ms": None if duration_ms is None else round(duration_ms, 3),
                            "cwd": cwd, "tool_use_id": tool_use_id, "session_id": session_id,
                            **extra})


def read_audit(path: str | Path | None = None) -> list[dict[str, Any]]:
    """Every parseable line of an audit log (for ``shellgate audit``); bad lines skipped."""
    p = Path(path) if path is not None else default_audit_path()
    out: list[dict[str, Any]] = []
    try:
        with p.open(encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    continue
    except OSError:
        return []
    return out
