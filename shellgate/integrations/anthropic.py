"""The Anthropic Messages API bash tool (``bash_20250124``), answered by shellgate.

Register ``{"type": "bash_20250124", "name": "bash"}`` (:data:`TOOL`); the model then sends
``tool_use`` blocks with ``{"command": …}`` or ``{"restart": true}``, and the client owns a
persistent shell and replies with ``tool_result`` blocks, ``is_error`` on failure
(research/ecosystem.md §4.1). :class:`BashToolHandler` is that client side::

    handler = BashToolHandler("/path/to/repo", mode="balanced")
    msg = client.messages.create(model=…, tools=[handler.tool], messages=messages, …)
    messages += [{"role": "assistant", "content": msg.content},
                 {"role": "user", "content": handler.results(msg)}]

Blocks may be SDK objects or plain dicts; the ``anthropic`` package is not imported here.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._shell import Approver, Shell

TOOL: dict[str, str] = {"type": "bash_20250124", "name": "bash"}
RESTARTED = ("the bash session has been restarted (cwd back to the workspace root, variables and "
             "functions cleared)")


def _field(block: Any, name: str) -> Any:
    return block.get(name) if isinstance(block, Mapping) else getattr(block, name, None)


class BashToolHandler:
    """Turns the model's ``bash`` ``tool_use`` blocks into ``tool_result`` blocks.

    The tool's contract is one persistent shell session, so its :class:`Shell` is persistent:
    exported and shell variables, ``source``d environments (a venv), functions and aliases
    carry over from one command to the next (``shellgate.tools.shell_state``), and
    ``restart`` drops them with the cwd.

    ``approver`` is asked (with the command, reason and warnings) when the gate says *ask*;
    without one such a command is not run and the model is told it needs approval.
    """

    tool = TOOL

    def __init__(self, workspace: str | Path = ".", mode: str | None = None,
                 config: str | Path | None = None, *, approver: Approver | None = None,
                 timeout: float | None = 120.0, shell: Shell | None = None) -> None:
        self.shell = shell or Shell(workspace, mode, config, timeout=timeout, agent="anthropic",
                                    persistent=True)
        self.approver = approver

    def __call__(self, block: Any) -> dict[str, Any]:
        return self.handle(block)

    def handle(self, block: Any) -> dict[str, Any]:
        """One ``tool_use`` block in, its ``tool_result`` block out. Never raises."""
        tool_use_id = _field(block, "id")
        try:
            name, args = _field(block, "name"), _field(block, "input")
            if name != TOOL["name"]:
                return self._result(tool_use_id, f"unknown tool {name!r}", True)
            if not isinstance(args, Mapping):
                return self._result(tool_use_id, "the bash tool input must be an object", True)
            if args.get("restart"):
                self.shell.restart()
                return self._result(tool_use_id, RESTARTED, False)
            command = args.get("command")
            if not isinstance(command, str) or not command.strip():
                return self._result(tool_use_id, "give a 'command' string, or 'restart': true",
                                    True)
            result = self.shell.run(command, approver=self.approver)
            return self._result(tool_use_id, result.text() or "(no output)", result.is_error)
        except Exception as exc:  # noqa: BLE001 - a tool error is feedback, not a crash
            return self._result(tool_use_id, f"shellgate error: {type(exc).__name__}: {exc}", True)

    def results(self, message: Any) -> list[dict[str, Any]]:
        """``tool_result`` blocks for every ``bash`` ``tool_use`` in an assistant message."""
        content = _field(message, "content") or []
        return [self.handle(b) for b in content
                if _field(b, "type") == "tool_use" and _field(b, "name") == TOOL["name"]]

    @staticmethod
    def _result(tool_use_id: Any, text: str, is_error: bool) -> dict[str, Any]:
        return {"type": "tool_result", "tool_use_id": tool_use_id, "content": text,
                "is_error": is_error}
