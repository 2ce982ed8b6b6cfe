"""``shellgate hook claude-code``: Claude Code's PreToolUse hook.

Input (stdin): ``{session_id, cwd, permission_mode, hook_event_name: "PreToolUse", tool_name,
tool_input, tool_use_id, …}``. Output: ``{"hookSpecificOutput": {"hookEventName": "PreToolUse",
"permissionDecision": "allow"|"ask"|"deny", "permissionDecisionReason": …}}`` on exit 0
(research/ecosystem.md §1.2–1.3). Claude sees the reason of a deny; the user sees the reason of
an allow or an ask, so both carry the warnings. An allowed Bash call also carries
``updatedInput``: the tool input with ``command`` replaced by the confined line (SPEC §9).

Bash commands go through the gate; Read/Write/Edit/MultiEdit/NotebookEdit go through the same
engine with their file path (a dangerous path asks or denies, whatever the mode); Grep and Glob
with the tree they read (``Read(…)`` rules and the sensitive-path table apply to every file the
search could read). Other tools get no answer, so Claude Code's own permission rules decide them.
"""

from __future__ import annotations

from .hookio import CLAUDE_MODES, AgentSpec, Outcome, SearchFields, ToolKind, hook_specific_output

TOOLS = {
    "Bash": ToolKind.BASH,
    "Read": ToolKind.READ,
    "Write": ToolKind.WRITE,
    "Edit": ToolKind.EDIT,
    "MultiEdit": ToolKind.EDIT,
    "NotebookEdit": ToolKind.EDIT,
    "Grep": ToolKind.SEARCH,
    "Glob": ToolKind.SEARCH,
}

# Grep ``{pattern (a regex), path?, glob?, type?, output_mode?, …}`` and Glob ``{pattern (a
# glob), path?}``: ``path`` defaults to the cwd. Grep's ``type`` only narrows what ``glob``
# allows, so it is not read (ignoring a filter can only widen the search).
SEARCHES = {
    "Grep": SearchFields("grep", root=("path",), globs=("glob",)),
    "Glob": SearchFields("glob", root=("path",), globs=("pattern",), need_glob=True),
}

# The matcher ``shellgate init claude-code`` installs: exactly the tools above.
MATCHER = "|".join(TOOLS)


def render(outcome: Outcome) -> str:
    updated = outcome.updated_input if outcome.decision == "allow" else None
    return hook_specific_output("PreToolUse", outcome.decision, outcome.text(), updated)


SPEC = AgentSpec(
    name="claude-code",
    event="PreToolUse",
    tools=TOOLS,
    path_keys=("file_path", "notebook_path"),
    searches=SEARCHES,
    modes=CLAUDE_MODES,
    can_ask=True,
    project_env="CLAUDE_PROJECT_DIR",
    # Its Bash tool runs commands on pipes, with no pty ("the Bash tool doesn't have a TTY or
    # interactive input": anthropics/claude-code#26353; a pty is an open request, #9881), so git
    # starts no pager there; a redirect to /dev/tty is still judged as a terminal.
    terminal=False,
    render=render,
)
