"""``shellgate hook codex``: the Codex CLI PreToolUse hook.

Codex sends the same shape as Claude Code (``tool_name`` "Bash" with ``tool_input.command``, or
"apply_patch" with the patch text) but honours only a *deny*: a bare ``allow`` and ``ask`` are
reported as unsupported and the command runs anyway (openai/codex ``pre_tool_use.rs``;
research/ecosystem.md §0.3, §2.3). So here:

- allow -> for a Bash call, ``permissionDecision: "allow"`` with ``updatedInput.command`` the
  confined command (SPEC §9; the rewrite Codex's ``pre_tool_use.rs`` honours — a Codex too old
  to know ``updatedInput`` reports the hook as failed and runs the original, as before); with
  no sandbox tier, ``[hooks] enforce = false`` or for apply_patch: no output, exit 0 (Codex's
  own approval policy and sandbox still apply);
- ask   -> deny, with a reason that tells the human how to approve;
- deny  -> ``{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision":
  "deny", "permissionDecisionReason": …}}``. Codex's output schema has
  ``additionalProperties: false``, so nothing else is written.
"""

from __future__ import annotations

from .hookio import CODEX_MODES, AgentSpec, Outcome, ToolKind, hook_specific_output

TOOLS = {
    "Bash": ToolKind.BASH,
    "apply_patch": ToolKind.PATCH,
}

MATCHER = "|".join(TOOLS)


def render(outcome: Outcome) -> str:
    if outcome.decision == "allow":
        if outcome.updated_input is not None:  # the confined command (SPEC §9)
            return hook_specific_output("PreToolUse", "allow", None, outcome.updated_input)
        return ""  # never a bare allow: Codex treats it as a failed hook
    return hook_specific_output("PreToolUse", "deny", outcome.text())


SPEC = AgentSpec(
    name="codex",
    event="PreToolUse",
    tools=TOOLS,
    modes=CODEX_MODES,
    can_ask=False,
    render=render,
)
