"""An adapter's approval holds for the question the user answered, as the MCP server's does.

pydantic-ai defers an *ask* (``ApprovalRequired`` → ``DeferredToolRequests``) and resumes it
after the response's other calls ran, so ``cd keep`` next to ``rm -r data`` made the yes given
in the workspace root remove ``keep/data``; the OpenAI Agents SDK approves a ``shell_call``'s
whole command list at once, and the second command ran after the first one's ``cd``. Both now
keep what they asked (pydantic-ai also in the approval's metadata) and hand it to
``Shell.run(..., asked=…)``, which runs nothing when the question changed.

The real frameworks (pydantic-ai's ``FunctionModel``, the Agents SDK's ``ScriptedModel`` and
``Runner``) drive the adapters; every command runs under real bash in the bwrap sandbox.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from _helpers import git_workspace, sandbox_or_skip
from conftest import load

from shellgate.integrations._shell import Shell

LINES = load("adapters_bind.jsonl")


@pytest.fixture()
def ws(tmp_path: Path) -> Path:
    sandbox_or_skip("bwrap").close()
    (tmp_path / "home").mkdir()
    work = git_workspace(tmp_path / "ws", commit=("a.txt", "a\n"))
    for d in ("data", "keep/data"):
        (work / d).mkdir(parents=True)
        (work / d / "f").write_text(f"{d}\n")
    return work


@pytest.fixture()
def shell(ws: Path, request: pytest.FixtureRequest) -> Shell:
    sh = Shell(ws, "balanced", sandbox="bwrap", home=ws.parent / "home", audit=False,
               store=False, user_config=False)
    request.addfinalizer(sh.close)
    return sh


# --- pydantic-ai -----------------------------------------------------------------------------

def _pydantic_agent(shell: Shell, commands: list[str]) -> Any:
    """An agent whose model calls ``bash`` once per command in one response, then reports."""
    from pydantic_ai import Agent, DeferredToolRequests
    from pydantic_ai.messages import ModelResponse, TextPart, ToolCallPart, ToolReturnPart
    from pydantic_ai.models.function import FunctionModel

    from shellgate.integrations.pydantic_ai import shellgate_toolset

    def model(messages: list[Any], info: Any) -> ModelResponse:
        returns = [p for m in messages for p in getattr(m, "parts", [])
                   if isinstance(p, ToolReturnPart)]
        if not returns:
            return ModelResponse(parts=[ToolCallPart("bash", {"command": c}, tool_call_id=f"c{i}")
                                        for i, c in enumerate(commands)])
        return ModelResponse(parts=[TextPart(" | ".join(str(r.content) for r in returns))])

    return Agent(FunctionModel(model), toolsets=[shellgate_toolset(shell.workspace, shell=shell)],
                 output_type=[str, DeferredToolRequests])


def _pydantic(shell: Shell, line: dict[str, Any]) -> bool:
    """Run the line's response, approve every deferred call once; True if it was re-asked."""
    pytest.importorskip("pydantic_ai", reason="pydantic-ai-slim is not installed")
    from pydantic_ai import DeferredToolRequests, DeferredToolResults, ToolApproved

    agent = _pydantic_agent(shell, line["calls"])
    first = agent.run_sync("go")
    assert isinstance(first.output, DeferredToolRequests), first.output
    approvals: dict[str, Any] = {}
    for call in first.output.approvals:
        meta = first.output.metadata[call.tool_call_id]
        assert meta["cwd"] == shell.workspace and "the workspace root" in meta["question"]
        approvals[call.tool_call_id] = (ToolApproved(override_args={"command": line["override"]})
                                        if "override" in line else True)
    second = agent.run_sync(message_history=first.all_messages(),
                            deferred_tool_results=DeferredToolResults(approvals=approvals))
    if not isinstance(second.output, DeferredToolRequests):
        return False
    [again] = second.output.approvals
    meta = second.output.metadata[again.tool_call_id]
    assert "the question changed" in meta["reason"] and meta["question"] != ""
    return True


# --- OpenAI Agents SDK ------------------------------------------------------------------------

def _openai(shell: Shell, line: dict[str, Any]) -> bool:
    """One ``shell_call`` with the line's commands, approved; True if a command was refused."""
    agents = pytest.importorskip("agents", reason="openai-agents is not installed")
    from agents.testing import ScriptedModel, assistant_message
    from openai.types.responses import ResponseFunctionShellToolCall
    from openai.types.responses.response_function_shell_tool_call import Action

    from shellgate.integrations.openai import DENIED_EXIT, ShellgateShell

    agents.set_tracing_disabled(True)
    gate = ShellgateShell(shell.workspace, shell=shell)
    call = ResponseFunctionShellToolCall(
        id="sh_c1", call_id="c1", type="shell_call", status="completed",
        action=Action(commands=line["calls"], timeout_ms=20_000, max_output_length=4000))
    model = ScriptedModel([[call], [assistant_message("done")]])
    agent = agents.Agent(name="dev", model=model, tools=[gate.shell_tool()])

    async def main() -> Any:
        first = await agents.Runner.run(agent, "go")
        [pending] = first.interruptions
        assert "the workspace root" in gate.question("c1")
        state = first.to_state()
        state.approve(pending)
        return await agents.Runner.run(agent, state)

    assert asyncio.run(main()).final_output == "done"
    [reply] = [c.input[-1] for c in model.calls[1:]]
    outcomes = [o["outcome"].get("exit_code") for o in reply["output"]]
    refused = [o["stderr"] for o in reply["output"] if o["outcome"].get("exit_code") == DENIED_EXIT]
    if refused:
        assert "the question changed" in refused[0], refused
        assert all("earlier command" in r for r in refused[1:]), refused
    assert len(outcomes) == len(line["calls"])
    return bool(refused)


@pytest.mark.parametrize("line", LINES, ids=[f"{x['adapter']}:{'; '.join(x['calls'])}"
                                             f"{'>' + x['override'] if 'override' in x else ''}"
                                             for x in LINES])
def test_an_approval_holds_for_the_question_asked(ws: Path, shell: Shell,
                                                   line: dict[str, Any]) -> None:
    reasked = {"pydantic_ai": _pydantic, "openai": _openai}[line["adapter"]](shell, line)
    assert reasked is line["reasked"]
    for path in line["gone"]:
        assert not (ws / path).exists(), path
    for path in line["kept"]:
        assert (ws / path / "f").is_file(), path
    for path in line.get("absent", ()):
        assert not (ws / path).exists(), path


def test_pydantic_ai_resume_elsewhere_uses_the_question_handed_back(ws: Path, shell: Shell,
                                                                     request: Any) -> None:
    """A resume by another toolset (another process) knows the question only from the
    metadata the application hands back; without it the call is asked again, unrun, and
    when it disagrees with the question this toolset put last it is asked again too."""
    pytest.importorskip("pydantic_ai", reason="pydantic-ai-slim is not installed")
    from pydantic_ai import DeferredToolRequests, DeferredToolResults

    first = _pydantic_agent(shell, ["cd keep", "rm -r data"]).run_sync("go")
    assert isinstance(first.output, DeferredToolRequests)
    history, meta = first.all_messages(), first.output.metadata
    other = Shell(ws, "balanced", sandbox="bwrap", home=ws.parent / "home", audit=False,
                  store=False, user_config=False)
    request.addfinalizer(other.close)

    def resume(metadata: dict[str, Any] | None, agent: Any = None) -> Any:
        agent = agent or _pydantic_agent(other, [])   # a fresh toolset: nothing recorded
        return agent.run_sync(message_history=history, deferred_tool_results=DeferredToolResults(
            approvals={"c1": True}, metadata=metadata or {})).output

    assert other.run_readonly("cd keep").ran      # the session the other process has
    assert isinstance(resume(None), DeferredToolRequests)
    again = resume({"c1": meta["c1"]})
    assert isinstance(again, DeferredToolRequests)
    assert "the question changed" in again.metadata["c1"]["reason"]
    assert (ws / "keep" / "data").is_dir() and (ws / "data").is_dir()
    other.restart()                                  # back at the root: the question asked
    reasking = _pydantic_agent(other, [])
    assert isinstance(resume(None, reasking), DeferredToolRequests)   # it put its own question
    assert isinstance(resume({"c1": {**meta["c1"], "question": "yes?"}}, reasking),
                      DeferredToolRequests)           # two questions: which one was answered?
    assert (ws / "data").is_dir()
    assert not isinstance(resume({"c1": meta["c1"]}), DeferredToolRequests)
    assert not (ws / "data").exists() and (ws / "keep" / "data").is_dir()


def test_a_changed_question_says_what_changed(ws: Path, shell: Shell) -> None:
    """The refusal names the line of the question that is new: the directory after a cd."""
    question = shell.preflight("rm -r data").prompt_text()
    assert shell.run_readonly("cd keep").ran
    r = shell.run("rm -r data", approved=True, asked=question)
    assert r.status == "needs_approval" and (ws / "keep" / "data").is_dir()
    assert f"'Working directory: {ws / 'keep'} (keep/ inside the workspace)'" in r.reason, r
    assert r.extra["question"] == shell.preflight("rm -r data").prompt_text()
