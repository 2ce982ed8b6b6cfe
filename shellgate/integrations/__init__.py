"""Where shellgate meets the agents its users already run.

- Hooks: :mod:`.claude_code`, :mod:`.codex`, :mod:`.gemini` (``shellgate hook <agent>``),
  with their shared plumbing in :mod:`.hookio`; :mod:`.install` (``shellgate init``) and
  :mod:`.doctor` (``shellgate doctor``).
- MCP: :mod:`.mcp_server` (``shellgate mcp``).
- Drop-in bash tools for agent frameworks: :mod:`.anthropic`, :mod:`.openai`,
  :mod:`.claude_agent_sdk`, :mod:`.langchain`, :mod:`.pydantic_ai`. Each imports its framework
  only when used, so none of them is a dependency of shellgate.

Nothing is imported here: the hook path must stay cheap.
"""
