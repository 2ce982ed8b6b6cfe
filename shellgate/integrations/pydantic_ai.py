"""shellgate as a pydantic-ai toolset (``pydantic-ai-slim``), research/ecosystem.md §4.5.

::

    from shellgate.integrations.pydantic_ai import shellgate_toolset
    agent = Agent(model, toolsets=[shellgate_toolset("/path/to/repo")],
                  output_type=[str, DeferredToolRequests])

One tool, ``bash(command)``. When the gate says *ask*, the tool raises ``ApprovalRequired``
(with the reason and warnings as metadata), so the run ends with ``DeferredToolRequests``;
resume it with ``DeferredToolResults(approvals={call_id: True})`` and the command runs once.
A denied command returns its reason to the model and is never run, approved or not.
``pydantic_ai`` is imported only when the toolset is built.
"""

# No ``from __future__ import annotations``: pydantic-ai reads the tool's annotations, and
# ``RunContext`` is imported inside shellgate_toolset().
from pathlib import Path
from typing import Any

from ._shell import Shell

NAME = "bash"


def shellgate_toolset(workspace: str | Path = ".", mode: str | None = None,
                      config: str | Path | None = None, *, timeout: float | None = 120.0,
                      name: str = NAME, shell: Shell | None = None) -> Any:
    """A ``pydantic_ai.FunctionToolset`` with the gated ``bash`` tool."""
    from pydantic_ai import ApprovalRequired, FunctionToolset, RunContext

    sh = shell or Shell(workspace, mode, config, timeout=timeout, agent="pydantic-ai")

    def bash(ctx: RunContext[Any], command: str) -> str:
        """Run a bash command in the project workspace, behind shellgate's permission gate and
        in a sandbox; `cd` persists between calls. Commands that need approval are put to the
        user; denied ones return the reason.

        Args:
            command: The bash command to run.
        """
        if not ctx.tool_call_approved:
            pending = sh.preflight(command)
            if pending.status == "needs_approval":
                raise ApprovalRequired(metadata={"command": command, "reason": pending.reason,
                                                 "warnings": list(pending.warnings)})
        result = sh.run(command, approved=ctx.tool_call_approved)
        return result.text() or "(no output)"

    toolset: FunctionToolset[Any] = FunctionToolset()
    toolset.add_function(bash, takes_ctx=True, name=name)
    return toolset
