"""``shellgate audit`` and ``shellgate approvals``: read the audit log, list/revoke approvals.

The audit log is streamed (a bounded deque keeps the last lines), so a large log costs no
memory; unreadable lines are counted and reported, never fatal.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from .permission.audit import default_audit_path
from .permission.store import Store

_STYLE = {"allow": "green", "ask": "yellow", "deny": "red"}


def _entries(path: Path) -> tuple[Iterable[dict[str, Any]], list[int]]:
    bad = [0]

    def gen() -> Iterable[dict[str, Any]]:
        with path.open(encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    obj = json.loads(line)
                except ValueError:
                    bad[0] += 1
                    continue
                if isinstance(obj, dict):
                    yield obj

    return gen(), bad


def show_audit(path: str | None, *, lines: int, decision: str | None, session: str | None,
               pattern: str | None, as_json: bool) -> int:
    p = Path(path) if path else default_audit_path()
    console = Console(highlight=False, soft_wrap=True)
    if not p.exists():
        console.print(f"no audit log at {p}")
        return 0
    entries, bad = _entries(p)

    def keep(e: dict[str, Any]) -> bool:
        return ((decision is None or e.get("verdict") == decision)
                and (session is None or e.get("session_id") == session)
                and (pattern is None or pattern in str(e.get("command", ""))))

    last = deque((e for e in entries if keep(e)), maxlen=max(lines, 0))
    if as_json:
        for e in last:
            print(json.dumps(e, ensure_ascii=False))
        return 0
    table = Table("time", "event", "decision", "rule", "command", "exit", box=None)
    for e in last:
        verdict = str(e.get("verdict") or "")
        table.add_row(str(e.get("ts", ""))[:19], str(e.get("event", "")),
                      f"[{_STYLE.get(verdict, 'default')}]{verdict}[/]", str(e.get("rule", "") or ""),
                      str(e.get("command", ""))[:80],
                      "" if e.get("exit_code") is None else str(e.get("exit_code")))
    console.print(table)
    if bad[0]:
        console.print(f"[yellow]{bad[0]} unreadable line(s) skipped in {p}[/]")
    return 0


def list_approvals(store: str | None, *, as_json: bool) -> int:
    s = Store(store)
    items = s.approvals()
    if as_json:
        print(json.dumps({"store": str(s.path), "problem": s.problem,
                          "approvals": [a.to_json() for a in items]}))
        return 0
    console = Console(highlight=False, soft_wrap=True)
    if s.problem:
        console.print(f"[red]{s.problem}[/]")
    if not items:
        console.print(f"no stored approvals in {s.path}")
        return 0
    table = Table("#", "tool", "approval", "workspace", "since", box=None)
    for i, a in enumerate(items, 1):
        table.add_row(str(i), a.tool, a.label, a.workspace or "(any)", a.created)
    console.print(table)
    return 0


def revoke_approvals(store: str | None, which: Iterable[str], *, as_json: bool) -> int:
    """Remove by 1-based number, by label, or everything with ``all``. Unknown selectors are an
    error (exit 2) and nothing is removed."""
    s = Store(store)
    items = s.approvals()
    wanted = list(which)
    chosen: set[tuple[Any, ...]] = set()
    for w in wanted:
        if w == "all":
            chosen.update(a.identity for a in items)
        elif w.isdigit() and 1 <= int(w) <= len(items):
            chosen.add(items[int(w) - 1].identity)
        else:
            hits = [a.identity for a in items if a.label == w]
            if not hits:
                print(f"no approval matches {w!r} (see `shellgate approvals list`)")
                return 2
            chosen.update(hits)
    removed = s.remove(lambda a: a.identity in chosen)
    if as_json:
        print(json.dumps({"store": str(s.path), "removed": removed}))
    else:
        print(f"removed {removed} approval(s) from {s.path}")
    return 0
