"""``shellgate audit`` and ``shellgate approvals``: read the audit log, list/add/revoke approvals.

The audit log is streamed (a bounded deque keeps the last lines), so a large log costs no
memory; unreadable lines are counted and reported, never fatal.

``approvals add`` stores what an "always" answer would have stored, written as a rule:
``Bash(npm test *)`` or just ``npm test *``. The pattern is parsed by the rules module (the
same grammar and word splitting as ``[permissions]``), and must be a token prefix — literal
words, optionally ending in a standalone ``*``. Refused: anything else (``ls*``, ``git *
--force``, a bare ``*`` or ``Bash``), path and domain rules (they are rules, not approvals),
and a word that names a sensitive path or a directory holding some (``cat ~/.ssh/id_rsa``,
``rm -rf ~``). A stored ``cat *`` still never covers ``cat ~/.ssh/id_rsa``: the dangerous-path
prompt comes before stored approvals.
"""

from __future__ import annotations

import json
import os
import re
from collections import deque
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ._visible import visible
from .permission.audit import default_audit_path
from .permission.store import Approval, Store

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
    rows = []
    for e in last:
        rows.append([str(e.get("ts", "")), str(e.get("event", "")), str(e.get("verdict") or ""),
                     str(e.get("rule", "") or ""), str(e.get("command", "")),
                     "" if e.get("exit_code") is None else str(e.get("exit_code"))])
    _print_rows(console, ("time", "event", "decision", "rule", "command", "exit"), rows,
                short={0: 19, 4: 80}, styled=2)
    if bad[0]:
        console.print(f"[yellow]{bad[0]} unreadable line(s) skipped in {p}[/]")
    return 0


def list_approvals(store: str | None, *, as_json: bool) -> int:
    s = Store(store)
    items = s.approvals()
    if as_json:
        print(json.dumps({"store": str(s.path), "problem": s.problem,
                          "approvals": [{**a.to_json(), "covers": a.covers} for a in items]}))
        return 0
    console = Console(highlight=False, soft_wrap=True)
    if s.problem:
        console.print(f"[red]{s.problem}[/]")
    if not items:
        console.print(f"no stored approvals in {s.path}")
        return 0
    _print_rows(console, ("#", "tool", "approval", "covers", "workspace", "since"),
                [[str(i), a.tool, a.label, a.covers, a.workspace or "(any)", a.created]
                 for i, a in enumerate(items, 1)])
    return 0


def _print_rows(console: Console, headers: tuple[str, ...], rows: list[list[str]], *,
                short: dict[int, int] | None = None, styled: int | None = None) -> None:
    """A table on a terminal (cells in ``short`` cut to that width); anywhere else — a pipe,
    a file — one tab-separated line per row, every cell whole, so that ``grep`` and ``cut``
    see what was logged. Every cell goes through :func:`visible` either way: a logged
    command is data, never markup or terminal control."""
    if not console.is_terminal:
        for row in [list(headers), *rows]:
            print("\t".join(visible(c) for c in row))   # (visible shows a tab as \\t)
        return
    table = Table(*headers, box=None)
    for row in rows:
        cells = [Text(visible(c[:short[i]] if short and i in short else c))
                 for i, c in enumerate(row)]
        if styled is not None:
            cells[styled].stylize(_STYLE.get(row[styled], "default"))
        table.add_row(*cells)
    console.print(table)


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


# -- approvals add --------------------------------------------------------------------------

_RULE_LIKE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*\(")   # `Tool(…`: parsed as a rule


def parse_approval(pattern: str, *, tool: str = "Bash", workspace: str | None = None,
                   home: str | None = None) -> Approval:
    """``Bash(npm test *)`` / ``npm test *`` -> the :class:`Approval` it stands for.

    Raises ``ValueError`` saying why a pattern cannot be stored (see the module docstring).
    """
    from .permission.rules import RuleError, parse_rule, tool_key

    text = pattern.strip()
    try:
        as_rule = bool(_RULE_LIKE.match(text)) or tool_key(text) == tool_key(tool)
        rule = parse_rule(text if as_rule else f"{tool}({text})", source="approvals add")
    except RuleError as exc:
        raise ValueError(exc.message) from None
    if rule.path_op is not None or rule.domain is not None:
        raise ValueError(f"{rule.text} is a path or domain rule, not a command approval: add it "
                         "to [permissions] in your config instead")
    if rule.command is None:
        raise ValueError(f"{rule.text} would allow every {rule.tool} call; an approval names "
                         "the command, e.g. Bash(npm test *)")
    got = rule.command.prefix()
    if got is None:
        raise ValueError(f"{rule.specifier!r} is not a token prefix: an approval is literal words, "
                         "optionally followed by a standalone * (wildcards inside or between "
                         "words need an allow rule)")
    words, rest = got
    scope = os.path.normpath(os.path.abspath(os.path.expanduser(workspace))) if workspace else None
    try:
        hits = _sensitive_words(words, scope or os.getcwd(), home)
    except Exception as exc:  # the scanner failed: refuse rather than store unchecked
        raise ValueError(f"cannot check {rule.specifier!r} for sensitive paths: "
                         f"{type(exc).__name__}: {exc}") from None
    if hits:
        raise ValueError(f"{rule.specifier!r} names a sensitive path or a directory holding "
                         f"some ({hits}); commands touching them are asked each time, never "
                         "remembered")
    return Approval(tool_key(rule.tool), words, rest, workspace=scope)


def _sensitive_words(words: Iterable[str], cwd: str, home: str | None) -> str:
    """Describe the sensitive paths the words name (also as ``--opt=PATH`` / ``@PATH``), or a
    directory that holds some (``~``, ``/``), as the dangerous-path branch would see them."""
    from .approval.dangerous import relevant
    from .bash.facts import Context
    from .bash.paths.resolve import Role, hits_for_text

    ctx = Context.here(cwd=cwd, workspace=cwd, home=home)
    hits = []
    for w in words:
        for piece in {w, w.split("=", 1)[-1], w.lstrip("@")}:
            if piece:
                hits += hits_for_text(piece, Role.WRITE, ctx, None, dynamic=False, glob=False,
                                      braces=False, tree=True)
    return ", ".join(dict.fromkeys(h.path for h in relevant(hits)))


def add_approval(store: str | None, tool: str, pattern: str, workspace: str | None,
                 as_json: bool) -> int:
    """``shellgate approvals add PATTERN``: 0 when stored (or already there), 2 when the
    pattern is refused, 1 when the store cannot be written."""
    s = Store(store)
    try:
        if workspace is not None and not Path(workspace).expanduser().is_dir():
            raise ValueError(f"workspace {workspace} is not a directory")
        approval = parse_approval(pattern, tool=tool or "Bash", workspace=workspace)
    except ValueError as exc:
        return _answer(as_json, 2, f"refused: {exc}", store=str(s.path), error=str(exc))
    try:
        added = s.add([approval])
    except Exception as exc:  # OSError, a lock timeout
        return _answer(as_json, 1, f"cannot write {s.path}: {exc}", store=str(s.path),
                       error=f"{type(exc).__name__}: {exc}")
    where = approval.workspace or "every workspace"
    msg = (f"{'added' if added else 'already stored'}: {approval.tool} {approval.label} "
           f"({where}) in {s.path}")
    return _answer(as_json, 0, msg, store=str(s.path), added=added, approval=approval.to_json())


def _answer(as_json: bool, code: int, message: str, **data: Any) -> int:
    print(json.dumps(data) if as_json else message)
    return code
