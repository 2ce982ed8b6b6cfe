"""``shellgate hook gemini``: Gemini CLI's BeforeTool hook.

Input: ``{session_id, transcript_path, cwd, hook_event_name: "BeforeTool", timestamp, tool_name,
tool_input}``; output ``{"decision": "deny", "reason": …}`` (the reason goes to the model) or
``{"decision": "allow"}`` — for an allowed shell command with
``hookSpecificOutput.tool_input.command`` set to the confined line, which Gemini merges over the
call's arguments (SPEC §9) — exit 0 (google-gemini/gemini-cli ``docs/hooks/reference.md``;
research/ecosystem.md §2.4). Gemini hooks have no "ask", and the payload carries no approval
mode, so an *ask* becomes a deny that says how to approve; the mode comes from ``--mode`` or
the shellgate config (default balanced).

Tools: ``run_shell_command`` (``command``, optional ``dir_path``), ``read_file``,
``write_file`` and ``replace`` (``file_path``), and the searches ``glob``, ``grep_search``
(formerly ``search_file_content``) and ``read_many_files``, judged by the tree they read
(``SEARCHES``).
"""

from __future__ import annotations

import json

from .hookio import GEMINI_MODES, AgentSpec, Outcome, SearchFields, ToolKind

TOOLS = {
    "run_shell_command": ToolKind.BASH,
    "read_file": ToolKind.READ,
    "write_file": ToolKind.WRITE,
    "replace": ToolKind.EDIT,
    "glob": ToolKind.SEARCH,
    "grep_search": ToolKind.SEARCH,
    "search_file_content": ToolKind.SEARCH,
    "read_many_files": ToolKind.SEARCH,
}

# The searches' fields (gemini-cli packages/core/src/tools/definitions/base-declarations.ts;
# older releases' names kept beside the current ones): glob ``{pattern, dir_path?}`` (once
# ``path``); grep_search, formerly search_file_content, ``{pattern (a regex), dir_path?,
# include?}`` (``include_pattern`` in newer releases, ``path`` in older ones);
# read_many_files ``{include: [...], exclude?}`` (once ``paths`` beside ``include``), relative
# to the project directory. Exclusions only narrow, so they are not read.
_GREP = SearchFields("grep", root=("dir_path", "path"), globs=("include", "include_pattern"))
SEARCHES = {
    "glob": SearchFields("glob", root=("dir_path", "path"), globs=("pattern",), need_glob=True),
    "grep_search": _GREP,
    "search_file_content": _GREP,
    "read_many_files": SearchFields("read", root=(), globs=("include", "paths"), need_glob=True),
}

MATCHER = "|".join(TOOLS)


def render(outcome: Outcome) -> str:
    if outcome.decision == "allow":
        if outcome.updated_input is not None:  # merged over the call's arguments (SPEC §9)
            return json.dumps({"decision": "allow", "hookSpecificOutput": {
                "hookEventName": "BeforeTool",
                "tool_input": {"command": outcome.updated_input["command"]}}}, ensure_ascii=False)
        return json.dumps({"decision": "allow"})
    return json.dumps({"decision": "deny", "reason": outcome.text()}, ensure_ascii=False)


SPEC = AgentSpec(
    name="gemini",
    event="BeforeTool",
    tools=TOOLS,
    path_keys=("file_path", "absolute_path"),
    cwd_keys=("dir_path", "directory"),
    searches=SEARCHES,
    modes=GEMINI_MODES,
    can_ask=False,
    project_env="GEMINI_PROJECT_DIR",
    render=render,
)
