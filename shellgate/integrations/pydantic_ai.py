"""shellgate as a pydantic-ai toolset (``pydantic-ai-slim``), research/ecosystem.md §4.5.

::

    from shellgate.integrations.pydantic_ai import shellgate_toolset
    agent = Agent(model, toolsets=[shellgate_toolset("/path/to/repo")],
                  output_type=[str, DeferredToolRequests])

One tool, ``bash(command)``. When the gate says *ask*, the tool raises ``ApprovalRequired``
(metadata: the command, the cwd it would run in, the question to show, the reason and
warnings), so the run ends with ``DeferredToolRequests``; resume it with
``DeferredToolResults(approvals={call_id: True})`` and the command runs once — if it would
still be asked exactly that question. A ``cd`` run meanwhile by a sibling call of the same
response (or ``ToolApproved(override_args=…)``) changes the question: nothing runs and the
call is deferred again with the new one. Resuming in another process, hand the metadata back
(``DeferredToolResults(metadata=…)``); without the question, or with one that is not
the one this toolset put, the call is asked again.
A denied command returns its reason to the model and is never run, approved or not.
``pydantic_ai`` is imported only when the toolset is built.
"""

# No ``from __future__ import annotations``: pydantic-ai reads the tool's annotations, and
# ``RunContext`` is imported inside shellgate_toolset().
from pathlib import Path
from typing import Any

from ._shell import Asked, Shell, ShellResult

NAME = "bash"


def shellgate_toolset(workspace: str | Path = ".", mode: str | None = None,
                      config: str | Path | None = None, *, timeout: float | None = 120.0,
                      name: str = NAME, shell: Shell | None = None) -> Any:
    """A ``pydantic_ai.FunctionToolset`` with the gated ``bash`` tool."""
    from pydantic_ai import ApprovalRequired, FunctionToolset, RunContext

    sh = shell or Shell(workspace, mode, config, timeout=timeout, agent="pydantic-ai")
    asked: Asked[str] = Asked()

    def defer(pending: ShellResult, question: str, call_id: str) -> Any:
        """Put ``question`` to the user: kept by call id (what the yes will answer) and
        carried in the metadata, for the application to show and hand back on resume."""
        asked.put(call_id, question)
        return ApprovalRequired(metadata={
            "command": pending.command, "cwd": pending.cwd, "question": question,
            "reason": pending.reason, "warnings": list(pending.warnings)})

    def bash(ctx: RunContext[Any], command: str) -> str:
        """Run a bash command in the project workspace, behind shellgate's permission gate and
        in a sandbox; `cd` persists between calls. Commands that need approval are put to the
        user; denied ones return the reason.

        Args:
            command: The bash command to run.
        """
        call_id = ctx.tool_call_id or ""
        if not ctx.tool_call_approved:
            pending = sh.preflight(command)
            if pending.status == "needs_approval":
                raise defer(pending, pending.prompt_text(), call_id)
            return sh.run(command).text() or "(no output)"
        # Resumed after a yes: it holds for the question put, at the cwd it named — sibling
        # calls of the same response (a `cd`) may have run since, or the args been overridden.
        # The question is ours, or handed back by the application (a resume elsewhere); when
        # the two disagree it is not known which one the yes answered.
        known = {q for q in (asked.take(call_id), _handed_back(ctx.tool_call_metadata)) if q}
        question = known.pop() if len(known) == 1 else None
        if question is None:
            pending = sh.preflight(command)
            if pending.status != "needs_approval":
                return sh.run(command).text() or "(no output)"
            raise defer(pending, pending.prompt_text(), call_id)
        result = sh.run(command, approved=True, asked=question)
        if result.status == "needs_approval" and "question" in result.extra:
            raise defer(result, result.extra["question"], call_id)
        return result.text() or "(no output)"

    toolset: FunctionToolset[Any] = FunctionToolset()
    toolset.add_function(bash, takes_ctx=True, name=name)
    return toolset


def _handed_back(metadata: Any) -> str | None:
    """The question from ``DeferredToolResults.metadata`` (the application handing back what
    it showed, e.g. when resuming in another process); None when it carries none."""
    question = metadata.get("question") if isinstance(metadata, dict) else None
    return question if isinstance(question, str) else None
