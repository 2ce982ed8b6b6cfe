"""``shellgate mcp``: shellgate as an MCP server (stdio), on the official ``mcp`` SDK v2.

Three tools (research/ecosystem.md §3, §7):

- ``check_command`` — the gate's verdict on a command, nothing runs. Read-only, closed world.
- ``run_command`` — gate, then run in the sandbox. When the gate says *ask*, the user is asked
  through the SDK's resolver (``Annotated[…, Resolve(fn)]``), which works in both protocol
  eras: a ``2026-07-28`` connection gets an ``InputRequiredResult`` (MRTR) and retries with the
  answer; an older connection gets a classic ``elicitation/create`` request. A client without
  form elicitation gets a structured "needs approval" error instead, and nothing runs.
  Destructive, open world.
- ``run_readonly_command`` — runs only what the gate classifies as read-only, and refuses
  anything else *without running it*. Annotated ``readOnlyHint: true`` so that clients that
  trust the hint (Claude Code in plan mode, Codex, Gemini ``toolAnnotations`` rules) may
  auto-run it; the enforcement is here, server-side, not in the client.

The model cannot change the policy through this server: there is no tool to approve, add
rules or switch modes (the anti-pattern of research/ecosystem.md §3.4).

The SDK renamed ``FastMCP`` to ``MCPServer`` in v2 (``mcp.server.fastmcp`` is gone); this
module imports ``mcp`` only when a server is built.
"""

# No ``from __future__ import annotations``: the SDK reads the tools' annotations at
# registration, and they name classes local to build_server().
from typing import TYPE_CHECKING, Annotated, Any

from ._shell import Asked, Shell, ShellResult

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

SERVER_NAME = "shellgate"
INSTRUCTIONS = (
    "shellgate runs bash commands for you behind a permission gate. Use run_readonly_command "
    "for commands that only read (ls, cat, grep, git status/diff/log, …): it never asks and "
    "refuses anything else without running it. Use run_command for everything else: it may "
    "ask the user, and it refuses what the policy denies, with the reason. check_command tells "
    "what the gate would decide without running anything. `cd` persists between calls."
)


def _annotations() -> dict[str, Any]:
    from mcp_types import ToolAnnotations

    return {
        "check_command": ToolAnnotations(title="Check a bash command (runs nothing)",
                                         read_only_hint=True, destructive_hint=False,
                                         idempotent_hint=True, open_world_hint=False),
        "run_command": ToolAnnotations(title="Run a bash command (gated, sandboxed)",
                                       read_only_hint=False, destructive_hint=True,
                                       idempotent_hint=False, open_world_hint=True),
        "run_readonly_command": ToolAnnotations(title="Run a read-only bash command",
                                                read_only_hint=True, destructive_hint=False,
                                                idempotent_hint=True, open_world_hint=False),
    }


def _error(result: ShellResult) -> Any:
    """A refused or failed call: ``isError`` with the reason as text and the fields as JSON."""
    from mcp_types import CallToolResult, TextContent

    return CallToolResult(content=[TextContent(type="text", text=result.text())],
                          structured_content=result.to_json(), is_error=True)


def _reply(result: ShellResult) -> Any:
    """The structured result of a command that ran; a refusal is an ``isError`` result (the
    SDK passes a ``CallToolResult`` through unchanged, so the tools keep a dict schema)."""
    if result.status != "ran":
        return _error(result)
    return result.to_json()


def build_server(shell: Shell | None = None, *, workspace: str | None = None,
                 mode: str | None = None, config: str | None = None) -> "MCPServer":
    """An ``MCPServer`` whose tools share one :class:`Shell` (so ``cd`` persists)."""
    from mcp.server.mcpserver import (
        AcceptedElicitation,
        Context,
        Elicit,
        ElicitationResult,
        MCPServer,
        Resolve,
    )
    from pydantic import BaseModel, Field

    from .. import __version__

    shell = shell or Shell(workspace or _default_workspace(), mode=mode, config=config,
                           agent="mcp")
    notes = _annotations()
    server = MCPServer(SERVER_NAME, version=__version__, instructions=INSTRUCTIONS)

    class Approval(BaseModel):
        approve: bool = Field(description="Run this command once")

    def can_elicit(ctx: Context) -> bool:
        caps = ctx.client_capabilities
        form = caps.elicitation if caps is not None else None
        return form is not None and (form.form is not None or form.url is None)

    asked: Asked[str] = Asked()

    def approval(command: str, ctx: Context) -> Elicit[Approval] | ShellResult:
        """Resolver: the gate's verdict, or a question to the user when it says *ask* (kept
        for the call, whose run holds the answer to exactly that question)."""
        pending = shell.preflight(command)
        if pending.status != "needs_approval" or not can_elicit(ctx):
            return pending
        question = pending.prompt_text()
        asked.put(_call_id(ctx), question)
        return Elicit(question, Approval)

    @server.tool(description="Decide a bash command without running it: allow, ask or deny, "
                             "with the reasons, warnings and sensitive paths.",
                 annotations=notes["check_command"])
    def check_command(command: str) -> dict[str, Any]:
        return shell.check(command).to_json()

    @server.tool(description="Run a bash command through shellgate's permission gate, in a "
                             "sandbox. Commands that need approval are put to the user; denied "
                             "commands are refused with the reason.",
                 annotations=notes["run_command"])
    def run_command(command: str,
                    answer: Annotated[ElicitationResult[Approval], Resolve(approval)],
                    ctx: Context, timeout_seconds: float | None = None) -> dict[str, Any]:
        question = asked.take(_call_id(ctx))
        if not isinstance(answer, AcceptedElicitation):
            return _error(shell.declined(command, f"the user {answer.action}d the request"))
        data = answer.data
        if isinstance(data, Approval) and not data.approve:
            return _error(shell.declined(command, "the user did not approve it"))
        if isinstance(data, ShellResult) and data.status == "error":
            return _error(data)
        # Allowed, approved, or unanswerable: the BashTool decides again (and audits); an ask
        # nobody approved comes back as a structured "needs approval" and nothing runs. A yes
        # holds for the question it answered: a concurrent call's `cd` meanwhile voids it
        # (the legacy era's elicitation/create waits inside this call; other calls run).
        approved = isinstance(data, Approval)
        return _reply(shell.run(command, approved=approved, asked=question if approved else None,
                                timeout=timeout_seconds, tool_use_id=_call_id(ctx))
                      if question is not None or not approved else
                      shell.declined(command, "the question the user answered is not known"))

    @server.tool(description="Run a bash command only if shellgate classifies it as read-only "
                             "(it never asks); anything else is refused without running.",
                 annotations=notes["run_readonly_command"])
    def run_readonly_command(command: str, ctx: Context,
                             timeout_seconds: float | None = None) -> dict[str, Any]:
        return _reply(shell.run_readonly(command, timeout=timeout_seconds,
                                         tool_use_id=_call_id(ctx)))

    return server


def _call_id(ctx: Any) -> str:
    try:
        return f"mcp-{ctx.request_id}"
    except Exception:  # noqa: BLE001 - outside a request (direct call_tool)
        return ""


def _default_workspace() -> str:
    import os

    from .hookio import find_workspace

    return find_workspace(os.getcwd(), "CLAUDE_PROJECT_DIR")


def main(workspace: str | None = None, mode: str | None = None,
         config: str | None = None) -> int:
    """``shellgate mcp``: serve on stdio until the client closes the connection."""
    build_server(workspace=workspace, mode=mode, config=config).run("stdio")
    return 0


if __name__ == "__main__":  # python -m shellgate.integrations.mcp_server [WORKSPACE]
    import sys

    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else None))
