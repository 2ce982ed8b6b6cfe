"""The tool pipeline: Validator -> Preview -> Gate -> Execute.

Mechanism only, no permission reasoning: the gate is a pluggable callable
``(ctx, GateRequest) -> GateDecision``; ``None`` as gate lets everything through (the kernel's
factory default, as in the write-up). A denied call does not raise: its reason goes back to the
model as an error result and the agent loop continues. The gate sees the tool object itself,
so a harness can read capability hints off it (``permission_metadata()``) without the pipeline
knowing about them. ``shellgate.approval.Engine.as_tool_gate()`` is the gate shellgate ships.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ._record import field, record
from .approval.adapter import CallContext, GateDecision

__all__ = ["CallContext", "GateDecision", "GateRequest", "Tool", "ToolCall", "ToolGate",
           "ToolResult", "run_tool"]


@record
class ToolCall:
    """What the model proposed: ``id`` (the tool-use id), ``name`` and ``args``."""

    id: str
    name: str
    args: Mapping[str, Any] = field(default_factory=dict)


@record
class GateRequest:
    call: ToolCall
    tool: Any = None            # the tool instance: gates may duck-type it
    preview: str | None = None  # what Preview computed (a diff, the command)


ToolGate = Callable[[Any, GateRequest], GateDecision]
"""``(ctx, GateRequest) -> GateDecision``; ``None`` as a gate means allow everything."""


class Tool(Protocol):
    """A tool for :func:`run_tool`. ``validate`` and ``preview`` are optional."""

    name: str

    def execute(self, args: Mapping[str, Any], ctx: Any) -> Any: ...


@record
class ToolResult:
    """What goes back to the model. ``stage`` says where an error came from:
    ``validate``, ``preview``, ``gate`` or ``execute``."""

    call_id: str
    content: Any
    is_error: bool = False
    stage: str = "execute"


def run_tool(tool: Any, call: ToolCall, gate: ToolGate | None = None, ctx: Any = None) -> ToolResult:
    """Run one call through Validator -> Preview -> Gate -> Execute. Never raises."""
    validate = getattr(tool, "validate", None)
    if callable(validate):
        try:
            problem = validate(call.args)
        except Exception as exc:
            problem = str(exc) or type(exc).__name__
        if problem:
            return ToolResult(call.id, f"invalid arguments: {problem}", True, "validate")
    preview = None
    make_preview = getattr(tool, "preview", None)
    if callable(make_preview):
        try:
            preview = make_preview(call.args)
        except Exception as exc:
            return ToolResult(call.id, f"could not preview the call: {exc}", True, "preview")
    if gate is not None:
        try:
            decision = gate(ctx, GateRequest(call, tool, preview))
        except Exception as exc:  # a broken gate denies: fail closed
            return ToolResult(call.id, f"permission check failed: {exc}", True, "gate")
        if decision is None or not decision.allowed:
            reason = getattr(decision, "reason", "") or "denied by the permission gate"
            return ToolResult(call.id, reason, True, "gate")
    try:
        return ToolResult(call.id, tool.execute(call.args, ctx))
    except Exception as exc:
        return ToolResult(call.id, f"{type(exc).__name__}: {exc}", True, "execute")
