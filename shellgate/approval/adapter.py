"""The seam between the tool pipeline and the engine: call context, gate decision, and the
duck-typed ``permission_metadata()`` hook.

These records live here (not in ``shellgate.gate``) so that imports point one way:
``shellgate.gate`` re-exports them and builds the pipeline on top.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._record import fields, record
from ..permission import Capability, Metadata


@record
class CallContext:
    """What the agent loop knows about one call. ``cwd`` is the live working directory (a
    worktree entered during the turn), which wins over the engine's start-up workspace.
    ``inherited``: the shell state a persistent session restores in front of the command
    (``shellgate.bash.facts.Inherited``), which the decision must see."""

    cwd: str | None = None
    session_id: str | None = None
    tool_use_id: str | None = None
    agent: str | None = None
    inherited: Any = None


@record
class GateDecision:
    """``allowed`` -> execute; otherwise ``reason`` goes back to the model as an error result."""

    allowed: bool
    reason: str = ""


def context_value(ctx: Any, name: str) -> Any:
    """``ctx.name`` for a CallContext-like object or a mapping; None when absent."""
    if ctx is None:
        return None
    if type(ctx) is CallContext:  # the usual case, and no Mapping
        return getattr(ctx, name, None)
    if isinstance(ctx, Mapping):
        return ctx.get(name)
    return getattr(ctx, name, None)


def cwd_from_context(ctx: Any) -> str | None:
    cwd = context_value(ctx, "cwd")
    return str(cwd) if cwd else None


_META_FIELDS = {f.name for f in fields(Metadata)}


def extract_metadata(tool: Any) -> Metadata:
    """The capability hints a tool offers through ``permission_metadata()``, found by duck
    typing; an empty :class:`Metadata` when it offers none (or the hook misbehaves)."""
    fn = getattr(tool, "permission_metadata", None)
    if tool is None or not callable(fn):
        return Metadata()
    try:
        got = fn()
        if isinstance(got, Metadata):
            return got
        if isinstance(got, Mapping):
            kw = {k: v for k, v in got.items() if k in _META_FIELDS}
            if isinstance(kw.get("capability"), str):
                kw["capability"] = Capability(kw["capability"])
            return Metadata(**kw)
    except Exception:
        pass
    return Metadata()
