"""shellgate in the Claude Agent SDK (``claude-agent-sdk``): ``can_use_tool`` and a hook.

Two ways in (research/ecosystem.md §1.7), both deciding exactly as ``shellgate hook
claude-code`` does (Bash through the gate, Read/Write/Edit/… through the same engine)::

    gate = ClaudeAgentGate("/path/to/repo", mode="balanced")
    options = ClaudeAgentOptions(can_use_tool=gate.can_use_tool,
                                 hooks={"PreToolUse": [gate.hook_matcher()]})

- :meth:`ClaudeAgentGate.can_use_tool` is called when Claude Code would prompt. An *ask* goes
  to ``approver`` if one is given, else it is denied with the reason. Tools shellgate does not
  judge are passed to ``approver`` too, or denied (``other_tools="deny"``, the default) /
  allowed (``other_tools="allow"``).
- :meth:`ClaudeAgentGate.pre_tool_use` is an in-process PreToolUse hook returning the same
  ``hookSpecificOutput`` as the command hook (the SDK blocks the call if it times out).

``can_use_tool`` is not told the shell's live cwd (``ToolPermissionContext`` has none), but
the PreToolUse hook of the same call is, and runs first: the gate keeps that cwd by
``tool_use_id`` and decides ``can_use_tool`` there. Without the hook installed it decides at
the workspace root — install both, or a ``cd .git`` earlier in the session makes
``echo x > hooks/pre-commit`` look like a write to ``hooks/`` of the workspace.

``claude_agent_sdk`` is imported only when a permission result or matcher is built.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from pathlib import Path
from typing import Any

from . import claude_code
from ._shell import Approver, ShellResult
from .hookio import Outcome, evaluate


class ClaudeAgentGate:
    """shellgate's decisions for a Claude Agent SDK session rooted at ``workspace``.

    ``mode`` overrides the SDK session's ``permission_mode`` mapping (as ``--mode`` does for
    the hook); ``approver`` receives a ``needs_approval`` :class:`ShellResult` and returns
    whether to allow the call once.
    """

    def __init__(self, workspace: str | Path = ".", mode: str | None = None,
                 config: str | Path | None = None, *, approver: Approver | None = None,
                 other_tools: str = "deny", permission_mode: str = "default") -> None:
        if other_tools not in ("deny", "allow", "ask"):
            raise ValueError("other_tools must be 'deny', 'allow' or 'ask'")
        self.workspace = str(Path(workspace).absolute())
        self.mode = mode
        self.config = str(config) if config is not None else None
        self.approver = approver
        self.other_tools = other_tools
        self.permission_mode = permission_mode
        self._live_cwds: OrderedDict[str, str] = OrderedDict()   # tool_use_id -> hook's cwd

    _KEPT_CWDS = 256   # calls whose hook ran and whose permission question is still to come

    def _remember_cwd(self, tool_use_id: str, cwd: object) -> None:
        if tool_use_id and isinstance(cwd, str) and cwd:
            self._live_cwds[tool_use_id] = cwd
            while len(self._live_cwds) > self._KEPT_CWDS:
                self._live_cwds.popitem(last=False)

    def decide(self, tool_name: str, tool_input: dict[str, Any], *, session_id: str = "",
               tool_use_id: str = "", cwd: str | None = None,
               permission_mode: str | None = None) -> Outcome | None:
        """The outcome for one call, as the hook computes it; None for a tool not judged."""
        payload = {"session_id": session_id, "cwd": cwd or self.workspace,
                   "permission_mode": permission_mode or self.permission_mode,
                   "hook_event_name": "PreToolUse", "tool_name": tool_name,
                   "tool_input": tool_input, "tool_use_id": tool_use_id}
        return evaluate(claude_code.SPEC, payload, self.mode, self.config)

    async def can_use_tool(self, tool_name: str, input_data: dict[str, Any], ctx: Any) -> Any:
        """``ClaudeAgentOptions(can_use_tool=…)``: PermissionResultAllow or …Deny."""
        from claude_agent_sdk import PermissionResultAllow, PermissionResultDeny

        tool_use_id = getattr(ctx, "tool_use_id", None) or ""
        cwd = self._live_cwds.pop(tool_use_id, None)
        outcome = await asyncio.to_thread(self.decide, tool_name, input_data,
                                          tool_use_id=tool_use_id, cwd=cwd)
        if outcome is None:
            if self.other_tools == "allow":
                return PermissionResultAllow()
            if self.other_tools == "deny" or self.approver is None:
                return PermissionResultDeny(message=f"shellgate: {tool_name} is not a tool "
                                                    "shellgate judges and no approver is set")
            outcome = Outcome("ask", f"{tool_name} is not a tool shellgate judges")
        if outcome.decision == "allow":
            return PermissionResultAllow()
        if outcome.decision == "ask" and self.approver is not None:
            pending = ShellResult(_summary(tool_name, input_data), "needs_approval", "ask",
                                  outcome.reason, outcome.warnings)
            try:
                yes = await asyncio.to_thread(self.approver, pending)
            except Exception as exc:  # noqa: BLE001 - an approver failure is a no
                return PermissionResultDeny(message=f"shellgate: the approver failed ({exc})")
            if yes:
                return PermissionResultAllow()
            return PermissionResultDeny(message="shellgate: the user declined this call")
        return PermissionResultDeny(message=outcome.text())

    async def pre_tool_use(self, input_data: Any, tool_use_id: str | None,
                           context: Any) -> dict[str, Any]:
        """A PreToolUse hook callback: ``{"hookSpecificOutput": …}``, or ``{}`` (no opinion)."""
        payload = dict(input_data)
        payload.setdefault("tool_use_id", tool_use_id or "")
        payload.setdefault("cwd", self.workspace)
        self._remember_cwd(str(payload["tool_use_id"]), payload["cwd"])
        outcome = await asyncio.to_thread(evaluate, claude_code.SPEC, payload, self.mode,
                                          self.config)
        if outcome is None:
            return {}
        return json.loads(claude_code.render(outcome))

    def hook_matcher(self, timeout: float | None = 30) -> Any:
        """A ``HookMatcher`` for ``ClaudeAgentOptions(hooks={"PreToolUse": [...]})``."""
        from claude_agent_sdk import HookMatcher

        return HookMatcher(matcher=claude_code.MATCHER, hooks=[self.pre_tool_use],
                           timeout=timeout)


def _summary(tool_name: str, tool_input: dict[str, Any]) -> str:
    for key in ("command", "file_path", "notebook_path", "path", "url"):
        value = tool_input.get(key)
        if isinstance(value, str) and value:
            return value if key == "command" else f"{tool_name} {value}"
    return tool_name
