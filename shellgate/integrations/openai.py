"""OpenAI shell tools, executed by shellgate (research/ecosystem.md §4.2–4.3).

With the OpenAI Agents SDK (``openai-agents``)::

    gate = ShellgateShell("/path/to/repo")
    agent = Agent(name="dev", tools=[gate.shell_tool()])        # ShellTool(executor, needs_approval)

``needs_approval`` is true exactly when the gate says *ask* for one of the call's commands; the
SDK then surfaces the call in ``result.interruptions`` and, once a human approves it, calls the
executor, which runs the asked commands once. A denied command is never run, approved or not.
``local_shell_tool()`` is the same for the legacy ``LocalShellTool`` (argv lists).

With the bare Responses API, :meth:`ShellgateShell.shell_call_output` and
:meth:`ShellgateShell.local_shell_call_output` turn a ``shell_call`` / ``local_shell_call``
output item into the input item to send back.

Neither ``openai`` nor ``agents`` is imported until an SDK object is asked for.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ._shell import Approver, Shell, ShellResult

TOOL_NAME = "shell"
DENIED_EXIT = 126   # what bash reports for "found but cannot run": nothing ran


def _get(obj: Any, name: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(name, default)
    return getattr(obj, name, default)


def argv_command(argv: Sequence[str], env: Mapping[str, str] | None = None,
                 working_directory: str | None = None) -> str:
    """A ``local_shell`` argv (plus env and directory) as the bash line the gate judges."""
    line = shlex.join(list(argv))
    if env:
        line = shlex.join(["env", *(f"{k}={v}" for k, v in env.items())]) + " " + line
    if working_directory:
        line = f"cd -- {shlex.quote(working_directory)} && {line}"
    return line


class ShellgateShell:
    """shellgate behind OpenAI's ``shell`` and ``local_shell`` tools.

    ``approver`` (optional) answers asks on the spot for the bare-API helpers; with the Agents
    SDK the SDK's own approval flow is used instead.
    """

    def __init__(self, workspace: str | Path = ".", mode: str | None = None,
                 config: str | Path | None = None, *, approver: Approver | None = None,
                 timeout: float | None = 120.0, shell: Shell | None = None) -> None:
        self.shell = shell or Shell(workspace, mode, config, timeout=timeout, agent="openai")
        self.approver = approver

    # --- Agents SDK -----------------------------------------------------------------------

    def needs_approval(self, ctx: Any, action: Any, call_id: str) -> bool:
        """``ShellTool(needs_approval=…)``: true when any command would be asked about."""
        commands = _get(action, "commands") or []
        return any(self.shell.preflight(c).status == "needs_approval" for c in commands)

    def execute(self, request: Any) -> Any:
        """``ShellTool(executor=…)``: run ``request.data.action.commands`` in order.

        An *ask* runs only when the SDK recorded a human's approval for this call id; without
        one (the tool registered without ``needs_approval``) it is refused like a deny.
        """
        from agents import ShellCallOutcome, ShellCommandOutput
        from agents import ShellResult as SdkResult

        data = request.data
        action = data.action
        approved = _approved(request, data.call_id)
        timeout = action.timeout_ms / 1000 if action.timeout_ms else None
        outputs = []
        for command in action.commands:
            r = self.shell.run(command, approved=approved, timeout=timeout)
            stdout, stderr, outcome = _streams(r)
            outputs.append(ShellCommandOutput(
                stdout=_cap(stdout, action.max_output_length),
                stderr=_cap(stderr, action.max_output_length), command=command,
                outcome=ShellCallOutcome(type=outcome["type"], exit_code=outcome.get("exit_code"))))
        return SdkResult(output=outputs, max_output_length=action.max_output_length)

    def execute_local(self, request: Any) -> str:
        """``LocalShellTool(executor=…)``: one argv; the result is a JSON string."""
        action = request.data.action
        command = argv_command(action.command, action.env, action.working_directory)
        timeout = action.timeout_ms / 1000 if action.timeout_ms else None
        return _local_output(self.shell.run(command, approver=self.approver, timeout=timeout))

    def shell_tool(self, **kwargs: Any) -> Any:
        """An ``agents.ShellTool`` wired to this gate (local environment)."""
        from agents import ShellTool

        return ShellTool(executor=self.execute, needs_approval=self.needs_approval,
                         environment={"type": "local"}, **kwargs)

    def local_shell_tool(self) -> Any:
        """An ``agents.LocalShellTool`` (legacy API) wired to this gate."""
        from agents import LocalShellTool

        return LocalShellTool(executor=self.execute_local)

    # --- bare Responses API ---------------------------------------------------------------

    def shell_call_output(self, item: Any) -> dict[str, Any]:
        """A ``shell_call`` output item in, its ``shell_call_output`` input item out."""
        action = _get(item, "action")
        commands = list(_get(action, "commands") or [])
        limit = _get(action, "max_output_length")
        timeout_ms = _get(action, "timeout_ms")
        output = []
        for command in commands:
            r = self.shell.run(command, approver=self.approver,
                               timeout=timeout_ms / 1000 if timeout_ms else None)
            stdout, stderr, outcome = _streams(r)
            output.append({"stdout": _cap(stdout, limit), "stderr": _cap(stderr, limit),
                           "outcome": outcome})
        reply: dict[str, Any] = {"type": "shell_call_output", "call_id": _get(item, "call_id"),
                                 "output": output}
        if limit is not None:
            reply["max_output_length"] = limit
        return reply

    def local_shell_call_output(self, item: Any) -> dict[str, Any]:
        """A ``local_shell_call`` output item in, its ``local_shell_call_output`` item out."""
        action = _get(item, "action")
        command = argv_command(_get(action, "command") or [], _get(action, "env"),
                               _get(action, "working_directory"))
        timeout_ms = _get(action, "timeout_ms")
        r = self.shell.run(command, approver=self.approver,
                           timeout=timeout_ms / 1000 if timeout_ms else None)
        return {"type": "local_shell_call_output", "call_id": _get(item, "call_id"),
                "output": _local_output(r)}


def _approved(request: Any, call_id: str) -> bool:
    ctx = getattr(request, "ctx_wrapper", None)
    check = getattr(ctx, "is_tool_approved", None)
    return bool(check(TOOL_NAME, call_id)) if callable(check) else False


def _streams(r: ShellResult) -> tuple[str, str, dict[str, Any]]:
    """stdout, stderr and the ``outcome`` object for one command."""
    if not r.ran:
        return "", r.text() + "\n", {"type": "exit", "exit_code": DENIED_EXIT}
    if r.timed_out:
        return r.stdout, r.stderr, {"type": "timeout"}
    return r.stdout, r.stderr, {"type": "exit", "exit_code": r.exit_code or 0}


def _cap(text: str, limit: int | None) -> str:
    return text if limit is None or len(text) <= limit else text[:limit]


def _local_output(r: ShellResult) -> str:
    stdout, stderr, outcome = _streams(r)
    return json.dumps({"stdout": stdout, "stderr": stderr,
                       "exit_code": outcome.get("exit_code"),
                       "timed_out": outcome["type"] == "timeout"}, ensure_ascii=False)
