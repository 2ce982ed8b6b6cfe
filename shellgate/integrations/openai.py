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

from ._shell import Approver, Asked, Shell, ShellResult

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
        self._asked: Asked[tuple[tuple[str, ...], tuple[str | None, ...]]] = Asked()

    # --- Agents SDK -----------------------------------------------------------------------

    def needs_approval(self, ctx: Any, action: Any, call_id: str) -> bool:
        """``ShellTool(needs_approval=…)``: true when any command would be asked about. What
        each command would be asked (at the cwd of this moment) is kept for the call id: the
        SDK's approval answers that, and :meth:`execute` holds each command to it."""
        commands = tuple(_get(action, "commands") or [])
        pending = [self.shell.preflight(c) for c in commands]
        questions = tuple(p.prompt_text() if p.status == "needs_approval" else None
                          for p in pending)
        if any(q is not None for q in questions):
            self._asked.put(call_id, (commands, questions))
            return True
        return False

    def question(self, call_id: str) -> str:
        """What a pending call asks, for an approval UI: each command's question, in order
        (the SDK's ``ToolApprovalItem`` shows only the commands, not where they would run)."""
        record = self._asked.peek(call_id)
        return "\n\n".join(q for q in record[1] if q) if record else ""

    def execute(self, request: Any) -> Any:
        """``ShellTool(executor=…)``: run ``request.data.action.commands`` in order.

        An *ask* runs only when the SDK recorded a human's approval for this call id and the
        command would still be asked what :meth:`needs_approval` asked — one approval for
        ``["cd keep", "rm -r data"]`` was asked about ``rm -r data`` where the call began, so
        after the ``cd`` it is refused, and so is every command after it. Without an approval
        (the tool registered without ``needs_approval``) an ask is refused like a deny.
        """
        from agents import ShellCallOutcome, ShellCommandOutput
        from agents import ShellResult as SdkResult

        data = request.data
        action = data.action
        timeout = action.timeout_ms / 1000 if action.timeout_ms else None
        outputs = []
        for command, r in zip(action.commands, self._run_all(
                data.call_id, list(action.commands), _approved(request, data.call_id), timeout),
                strict=True):
            stdout, stderr, outcome = _streams(r)
            outputs.append(ShellCommandOutput(
                stdout=_cap(stdout, action.max_output_length),
                stderr=_cap(stderr, action.max_output_length), command=command,
                outcome=ShellCallOutcome(type=outcome["type"], exit_code=outcome.get("exit_code"))))
        return SdkResult(output=outputs, max_output_length=action.max_output_length)

    def _run_all(self, call_id: str, commands: list[str], approved: bool,
                 timeout: float | None) -> list[ShellResult]:
        """One approved call's commands, each bound to its own question (a command not asked
        about then gets no approval now); after a refusal the rest do not run, since the
        user approved the sequence, not what is left of it."""
        record = self._asked.take(call_id) if approved else None
        if record is not None and record[0] != tuple(commands):
            record = None   # not the commands asked about
        questions = record[1] if record is not None else (None,) * len(commands)
        results: list[ShellResult] = []
        for command, question in zip(commands, questions, strict=True):
            if results and approved and not results[-1].ran:
                results.append(self.shell.declined(
                    command, "not run: an earlier command of this approved call was refused"))
                continue
            r = self.shell.run(command, approved=question is not None, asked=question,
                               timeout=timeout)
            if approved and question is None and r.status == "needs_approval":
                r = self.shell.declined(command, "the approval does not cover this command: "
                                        "it was not asked about when the user said yes; "
                                        f"nothing ran: {r.reason}")
            results.append(r)
        return results

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
