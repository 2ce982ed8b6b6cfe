"""The hooks' one call into the engine: a :class:`~.hookio.Call` in, an :class:`~.hookio.Outcome` out.

Bash commands and file paths go through the same ``approval.Engine`` (built from the layered
config by ``load_engine``), so rules, stored approvals, the dangerous-path branch, plan mode
and the audit log behave exactly as for ``shellgate check`` and the BashTool. Each decision
is audited with the agent's ``session_id`` and ``tool_use_id``.

In a hook the *agent* runs the command, under its own sandbox settings, so the engine is told
``sandboxed=True``: ``bypassPermissions`` -> trust lets commands through as the user asked,
while hard denies, deny rules and dangerous paths still stop them (research/ecosystem.md §8).
"""

from __future__ import annotations

from typing import Any

from .hookio import Call, ModeMap, Outcome, ToolKind

MAX_DETAILS = 3
_RANK = {"allow": 0, "ask": 1, "deny": 2}

# The engine's tool names for what each agent's file tools do.
FILE_TOOL = {ToolKind.READ: "read", ToolKind.WRITE: "write", ToolKind.EDIT: "edit",
             ToolKind.PATCH: "edit"}


def decide(call: Call, mode: ModeMap, config: str | None, workspace: str) -> Outcome:
    from ..approval import CallContext, Request, load_engine

    engine = load_engine(workspace, mode.mode, config, plan=mode.plan, ask_as_deny=False,
                         sandboxed=True, session_id=call.session_id or None)
    engine.set_terminal(call.terminal)
    ctx = CallContext(cwd=call.cwd or workspace, session_id=call.session_id or None,
                      tool_use_id=call.tool_use_id or None, agent=call.agent)
    notices = engine.rule_notices
    if call.kind is ToolKind.BASH:
        request = Request(tool_id=call.tool_use_id, tool_name="bash",
                          args={"command": call.command or ""})
        here = call.cwd or workspace
        return _outcome(engine.decide(request, ctx), notices, engine.rules.watched(here),
                        engine.rules.guarded(here))
    if call.kind is ToolKind.SEARCH:  # the classifier reads the tree the globs allow
        request = Request(tool_id=call.tool_use_id, tool_name=call.engine_tool or "grep",
                          args={"path": call.paths[0], "search": list(call.globs)})
        return _outcome(engine.decide(request, ctx), notices)
    tool = FILE_TOOL[call.kind]
    outcomes = [_outcome(engine.decide(Request(tool_id=call.tool_use_id, tool_name=tool,
                                               args={"file_path": path}), ctx), notices)
                for path in call.paths]
    return max(outcomes, key=lambda o: _RANK.get(o.decision, 2))


def _outcome(d: Any, notices: tuple[str, ...] = (), watched: tuple[str, ...] = (),
             guarded: tuple[str, ...] = ()) -> Outcome:
    details = tuple(d.reasons[:MAX_DETAILS]) if d.verdict != "allow" else ()
    return Outcome(d.verdict, d.reason, tuple(d.warnings), details, d.rule,
                   str(d.capability or ""), notices=notices, watched=watched, guarded=guarded)
