"""The harness: tool -> capability, the plan-exit and dangerous-path branches, the tool gate.

The vocabulary (Mode, Capability, Decision, Prompt, RuleSet …) belongs to the kernel and is
re-exported here unchanged. ``load_engine()`` builds an :class:`Engine` from the layered
config (``shellgate.config``) — the one call the CLI, hooks, MCP server and BashTool need.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..permission import (
    Capability,
    Decision,
    DecisionKind,
    Metadata,
    Mode,
    Prompt,
    Request,
    RuleSet,
    parse_mode,
)
from .adapter import CallContext, GateDecision, extract_metadata
from .classifier import classify, classify_bash, tool_name
from .dangerous import check_dangerous_path
from .engine import PLAN_DENIED, Engine
from .prompt import console_approver, render_prompt, scripted

__all__ = [
    "PLAN_DENIED", "CallContext", "announce", "Capability", "Decision", "DecisionKind", "Engine",
    "GateDecision", "Metadata", "Mode", "Prompt", "Request", "RuleSet", "check_dangerous_path",
    "classify", "classify_bash", "console_approver", "extract_metadata", "load_engine",
    "parse_mode", "render_prompt", "scripted", "tool_name",
]


_ANNOUNCED: set[str] = set()


def announce(notices: Any, stream: Any) -> None:
    """Write each of ``notices`` (rule notices, ``Engine.rule_notices``) to ``stream`` — the
    stderr of ``check``, ``run`` and ``hook``, never a hook's stdout — once per process, so a
    batch or a retry does not repeat them. Escaped for the terminal; a stream that cannot be
    written is no error (a notice never changes a decision)."""
    from .._visible import visible

    for n in notices:
        if n in _ANNOUNCED:
            continue
        _ANNOUNCED.add(n)
        try:
            print(visible(f"shellgate: notice: {n}"), file=stream)
        except (OSError, ValueError, AttributeError):
            return


def load_engine(workspace: str | Path = ".", mode: str | Mode | None = None,
                config_path: str | Path | None = None, plan: bool = False,
                approver: Any = None, *, ask_as_deny: bool = True, sandboxed: bool = True,
                audit: bool | str | Path = True, store: bool | str | Path = True,
                session_id: str | None = None, home: str | Path | None = None,
                user_config: bool = True, project_config: bool = True) -> Engine:
    """An :class:`Engine` for ``workspace`` from the config files.

    ``mode`` overrides the config's mode (default balanced). ``audit`` / ``store``: ``True``
    for the configured or default location, ``False`` for none, or a path. Raises
    ``shellgate.config.ConfigError`` (a ``ValueError``) for a bad config or mode. The
    project file only tightens unless the user trusts it (``shellgate.config``); what it asked
    for in vain is in ``engine.notices``.
    """
    from ..bash.never import disabled
    from ..config import ConfigError, load_config
    from ..permission import AuditLog, Store

    cfg = load_config(workspace, config_path, user=user_config, project=project_config)
    chosen = parse_mode(mode) if mode is not None else (cfg.mode or Mode.BALANCED)
    audit_log = None
    if audit is not False and cfg.audit_enabled:
        audit_log = AuditLog(cfg.audit_path if audit is True else audit, session_id=session_id)
    approvals = None
    if store is not False and cfg.store_enabled:
        approvals = Store(cfg.store_path if store is True else store)
    try:  # the never-table entries the user turned off: a bad name is a config error
        never_off = disabled(cfg.sections.get("never"))
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    engine = Engine(workspace, chosen, approver, approvals, rules=cfg.rules, audit=audit_log,
                    home=home, sandboxed=sandboxed, ask_as_deny=ask_as_deny,
                    session_id=session_id, filesystem_roots=cfg.filesystem_roots,
                    readonly_roots=cfg.readonly_roots, internal_dirs=cfg.internal_dirs,
                    plan_mode_exec_allowed=cfg.plan_mode_exec_allowed,
                    untrusted_allows=cfg.ignored_rules.allow, notices=cfg.notices,
                    never_off=never_off)
    engine.set_plan_mode(plan)
    from ..limits import from_sections

    try:
        engine.limits = from_sections(cfg.sections)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    return engine
