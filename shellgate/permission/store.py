"""Persisted approvals: what "allow always" remembers, as token prefixes per sub-command.

One JSON file (default ``$XDG_CONFIG_HOME/shellgate/approvals.json``)::

    {"version": 1, "approvals": [
      {"tool": "bash", "prefix": ["npm", "test"], "rest": true, "workspace": "/src/app",
       "created": "2026-11-30T05:44:00Z"},
      {"tool": "web_fetch", "key": "web_fetch:docs.python.org", "workspace": null, ...}]}

- A command approval is the exact words of one executed sub-command, or (``rest``) a listed
  program and subcommand followed by any words (:mod:`.remember` decides which). It is matched
  like an allow rule (:mod:`.subject`): word by word, never as a raw string prefix.
- ``workspace`` scopes an approval to the project it was given in (``null``: everywhere).
- Writes take a file lock (``filelock``, imported only when writing), re-read the file,
  merge without duplicates and replace it atomically (temp file + ``os.replace``), so
  concurrent writers lose nothing and readers never see half a file.
- A file that cannot be read as a store is never overwritten: it is moved aside to
  ``<name>.corrupt-<time>`` and :attr:`Store.problem` says so (the engine reports it).
- The engine never asks the store to remember a dangerous path or an unparsed command.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .._record import asdict, record

VERSION = 1
MAX_STORE_BYTES = 64 << 20   # a bigger store is unreadable (moved aside), not read into memory


def default_store_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    cfg = env.get("XDG_CONFIG_HOME") or ""
    base = Path(cfg) if cfg and os.path.isabs(cfg) else Path.home() / ".config"
    return base / "shellgate" / "approvals.json"


@record
class Approval:
    tool: str                          # rules.tool_key() of the tool
    prefix: tuple[str, ...] = ()       # command approvals: the sub-command's leading words
    rest: bool = False                 # more words may follow the prefix
    key: str = ""                      # other calls: the approval key
    workspace: str | None = None
    created: str = ""

    @property
    def identity(self) -> tuple[Any, ...]:
        return (self.tool, self.prefix, self.rest, self.key, self.workspace)

    @property
    def label(self) -> str:
        if self.prefix:
            import shlex

            return " ".join(shlex.quote(w) for w in self.prefix) + (" *" if self.rest else "")
        return self.key

    @property
    def covers(self) -> str:
        """What the entry allows, in words (``approvals list``)."""
        if not self.prefix:
            return "calls with exactly this key"
        if self.rest:
            return f"{self.label[:-2]} followed by any words"
        return "only this exact command"

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["prefix"] = list(self.prefix)
        if not self.prefix:
            del d["prefix"], d["rest"]
        else:
            del d["key"]
        return d

    @classmethod
    def from_json(cls, d: Any) -> Approval:
        if not isinstance(d, dict) or not isinstance(d.get("tool"), str) or not d["tool"]:
            raise ValueError(f"an approval needs a tool: {d!r}")
        prefix = d.get("prefix", [])
        if not isinstance(prefix, list) or not all(isinstance(w, str) for w in prefix):
            raise ValueError(f"prefix must be a list of strings: {d!r}")
        key = d.get("key", "")
        ws = d.get("workspace")
        if not isinstance(key, str) or (ws is not None and not isinstance(ws, str)):
            raise ValueError(f"bad key or workspace: {d!r}")
        if not prefix and not key:
            raise ValueError(f"an approval needs a prefix or a key: {d!r}")
        return cls(d["tool"], tuple(prefix), bool(d.get("rest", False)), key, ws,
                   str(d.get("created", "")))


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


class Store:
    """The approvals of one file. Reads are cheap (one ``stat`` when nothing changed)."""

    def __init__(self, path: str | Path | None = None, *, lock_timeout: float = 10.0) -> None:
        self.path = Path(path).expanduser() if path is not None else default_store_path()
        self.lock_timeout = lock_timeout
        self.problem: str | None = None
        self._cache: tuple[Approval, ...] = ()
        self._stamp: tuple[int, int, int] | None = None
        self._mutex = threading.Lock()

    # -- reading ----------------------------------------------------------------------------

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            st = self.path.stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def approvals(self) -> tuple[Approval, ...]:
        """Every approval in the file (reloaded when the file changed)."""
        with self._mutex:
            stamp = self._stat()
            if stamp is None:
                self._cache, self._stamp = (), None
                return ()
            if stamp != self._stamp:
                try:
                    self._cache = self._read()
                except ValueError as exc:
                    self._cache = self._quarantine(str(exc))
                self._stamp = self._stat()
            return self._cache

    def for_workspace(self, tool: str, workspace: str | None) -> tuple[Approval, ...]:
        return tuple(a for a in self.approvals()
                     if a.tool == tool and (a.workspace is None or a.workspace == workspace))

    def _read(self) -> tuple[Approval, ...]:
        """Raises ValueError when the file is not a store."""
        from .._plain import read_plain

        try:
            text = read_plain(self.path, MAX_STORE_BYTES, follow=True).decode("utf-8")
        except FileNotFoundError:
            return ()
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"cannot read: {exc}") from None
        if not text.strip():
            return ()
        data = json.loads(text)  # JSONDecodeError is a ValueError
        if not isinstance(data, dict) or not isinstance(data.get("approvals"), list):
            raise ValueError("expected {\"version\": 1, \"approvals\": [...]}")
        if data.get("version", VERSION) != VERSION:
            raise ValueError(f"unknown store version {data.get('version')!r}")
        return tuple(Approval.from_json(d) for d in data["approvals"])

    def _quarantine(self, why: str) -> tuple[Approval, ...]:
        """Move an unreadable file aside (under the lock, after a re-read in case a writer
        just fixed it) and report it. Returns what the file holds now."""
        try:
            with self._lock():
                try:
                    return self._read()
                except ValueError:
                    return self._quarantine_locked(why)
        except Exception as exc:
            self.problem = (f"approval store {self.path} is unreadable ({why}) and could not be "
                            f"moved aside ({exc}); stored approvals are ignored")
        return ()

    # -- writing ----------------------------------------------------------------------------

    def _lock(self) -> Any:
        from filelock import FileLock

        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        return FileLock(str(self.path) + ".lock", timeout=self.lock_timeout)

    def _update(self, change: Callable[[list[Approval]], list[Approval]]) -> None:
        with self._lock():
            try:
                current = list(self._read())
            except ValueError as exc:
                self._cache = self._quarantine_locked(str(exc))
                current = []
            new = change(current)
            self._write(new)
        with self._mutex:
            self._stamp = None  # re-read on next use

    def _quarantine_locked(self, why: str) -> tuple[Approval, ...]:
        aside = self.path.with_name(
            f"{self.path.name}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}")
        os.replace(self.path, aside)
        self.problem = (f"approval store {self.path} was unreadable ({why}); it was moved to "
                        f"{aside} and approvals start empty")
        return ()

    def _write(self, approvals: list[Approval]) -> None:
        import tempfile  # only when writing: keeps tempfile, shutil … off the hook's start-up

        data = {"version": VERSION, "approvals": [a.to_json() for a in approvals]}
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump(data, f, indent=1, ensure_ascii=False)
                f.write("\n")
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def add(self, approvals: Iterable[Approval]) -> int:
        """Remember approvals; returns how many were new. Raises OSError / Timeout on failure."""
        items = [a if a.created else Approval(a.tool, a.prefix, a.rest, a.key, a.workspace, now())
                 for a in approvals]
        added = 0

        def change(current: list[Approval]) -> list[Approval]:
            nonlocal added
            seen = {a.identity for a in current}
            for a in items:
                if a.identity not in seen:
                    seen.add(a.identity)
                    current.append(a)
                    added += 1
            return current

        if items:
            self._update(change)
        return added

    def remove(self, which: Callable[[Approval], bool]) -> int:
        """Forget every approval for which ``which`` is true; returns how many."""
        removed = 0

        def change(current: list[Approval]) -> list[Approval]:
            nonlocal removed
            kept = [a for a in current if not which(a)]
            removed = len(current) - len(kept)
            return kept

        if self.path.exists():
            self._update(change)
        return removed
