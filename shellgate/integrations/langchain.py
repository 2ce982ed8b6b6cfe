"""shellgate as a LangChain tool (``langchain-core``), research/ecosystem.md §4.4.

::

    from shellgate.integrations.langchain import shellgate_tool
    tools = [shellgate_tool("/path/to/repo", mode="balanced")]

The tool is named ``shell`` and takes ``{"command": str, "restart": bool}`` like LangChain v1's
``ShellToolMiddleware`` shell, so ``HumanInTheLoopMiddleware(interrupt_on={"shell": True})``
and prompts written for it keep working. Commands the gate denies, or that need approval
while no ``approver`` is set, come back as text saying so (deny is feedback: the agent loop
goes on). Like that shell it is one persistent session: variables, a ``source``d venv,
functions and aliases carry over (``restart`` drops them). ``langchain_core`` is imported only
when the tool is built.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._shell import Approver, Shell

NAME = "shell"
DESCRIPTION = (
    "Run a bash command in the project workspace, behind shellgate's permission gate and in a "
    "sandbox. The working directory and exported variables persist between calls (`cd`, "
    "`export` and `source .venv/bin/activate` work). Read-only commands "
    "run at once; others may need the user's approval or be refused with the reason. "
    "Pass restart=true to start a fresh session."
)


def shellgate_tool(workspace: str | Path = ".", mode: str | None = None,
                   config: str | Path | None = None, *, approver: Approver | None = None,
                   timeout: float | None = 120.0, name: str = NAME,
                   shell: Shell | None = None) -> Any:
    """A ``langchain_core.tools.BaseTool`` running commands through one :class:`Shell`."""
    from langchain_core.tools import BaseTool
    from pydantic import BaseModel, ConfigDict, Field

    class ShellInput(BaseModel):
        command: str = Field(default="", description="The bash command to run.")
        restart: bool = Field(default=False, description="Restart the shell session first.")

    class ShellgateTool(BaseTool):
        model_config = ConfigDict(arbitrary_types_allowed=True)
        shell: Any = None
        approver: Any = None

        def _run(self, command: str = "", restart: bool = False, **_: Any) -> str:
            if restart:
                self.shell.restart()
                if not command.strip():
                    return "the shell session has been restarted"
            if not command.strip():
                return "shellgate: give a command to run"
            return self.shell.run(command, approver=self.approver).text() or "(no output)"

    return ShellgateTool(
        name=name, description=DESCRIPTION, args_schema=ShellInput,
        shell=shell or Shell(workspace, mode, config, timeout=timeout, agent="langchain",
                             persistent=True),
        approver=approver)
