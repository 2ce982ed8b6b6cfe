"""``shellgate run [--mode M] [--cwd DIR] [--timeout S] [--json] -- CMD``.

Decide, then run in the sandbox. An ask is put to the user on the terminal; without a terminal
an ask means "not run", with the reason. Exit code: the command's own (124 on timeout), or —
when it did not run — 3 for ask and 4 for deny (as ``shellgate check``), 2 for a usage/config
error. ``--json`` prints the :class:`~shellgate.tools.BashResult` object instead of the output.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from typing import IO, Any

EXIT_USAGE, EXIT_ASK, EXIT_DENY = 2, 3, 4


def terminal_approver() -> Callable[[Any], Any] | None:
    """A prompt on the controlling terminal, or None when there is none (CI, pipes, hooks).
    One command per process, so no "for this session" answer: Allow once / Always / Deny."""
    from ..approval.prompt import console_approver, has_terminal

    return console_approver(session=False) if has_terminal() else None


def run_command(cmd: str, mode: str | None = None, cwd: str | None = None,
                timeout: float | None = None, json_out: bool = False, config: str | None = None,
                *, approver: Callable[[Any], Any] | None | bool = True,
                out: IO[str] | None = None, err: IO[str] | None = None) -> int:
    """Run ``cmd`` as ``shellgate run`` does; prints, and returns the process exit code.

    ``approver=True`` (the default) asks on the terminal if there is one; ``None``/``False``
    never asks; a callable answers prompts itself (tests).
    """
    out = out or sys.stdout
    err = err or sys.stderr
    from .._visible import visible
    from ..sandbox import SandboxUnavailable
    from .bash_tool import BashTool

    chosen = terminal_approver() if approver is True else (approver or None)
    try:
        # one command per process: a fresh bwrap is cheaper than starting a pre-spawned one
        tool = BashTool(cwd or os.getcwd(), mode, approver=chosen, config=config,
                        timeout=timeout, prespawn=False)
    except (ValueError, SandboxUnavailable, OSError) as exc:
        print(f"shellgate: {exc}", file=err)
        return EXIT_USAGE
    from ..approval import announce

    announce(tool.engine.rule_notices, err)
    try:
        result = tool.run(cmd)
    finally:
        tool.close()
    if json_out:
        print(json.dumps(result.to_json(), ensure_ascii=False), file=out)
    else:
        out.write(result.stdout)
        out.flush()
        err.write(result.stderr)
        if not result.ran:
            why = "needs approval" if result.decision == "ask" else "denied"
            hint = (" (no terminal to ask on: run it from a terminal, or approve it ahead with "
                    "`shellgate approvals add`)") if result.decision == "ask" and chosen is None \
                else ""
            print(visible(f"shellgate: not run, {why}{hint}: {result.reason}"), file=err)
        for line in (*(f"warning: {w}" for w in result.warnings), *result.violations,
                     *result.notes):
            print(visible(f"shellgate: {line}"), file=err)
        err.flush()
    if not result.ran:
        return EXIT_ASK if result.decision == "ask" else EXIT_DENY
    if result.exit_code is None:
        return 1
    return result.exit_code if 0 <= result.exit_code <= 255 else 1
