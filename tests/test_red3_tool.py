"""Red-team findings against shellgate as another agent's bash tool, each by its effect.

- A persistent session's restore line evaluated the carried function text after it had
  defined the carried aliases (and variables: ``POSIXLY_CORRECT`` expands aliases too), so an
  alias named like a function, or one used in a function body, turned the definition into a
  command run in front of every later command, whatever that command named.
- A carried function named like a builtin the session's machinery calls (``local``, ``builtin``,
  ``printf`` … in the dump and the EXIT trap) or like the dump function itself (``__sg_save``,
  from a forged dump) ran at the end of every later command — a plain ``ls`` the gate allowed
  as read-only in balanced mode wrote a file.
- The MCP server's legacy-era elicitation waits inside the call while other calls run: a
  concurrent read-only ``cd`` moved the session, and the yes given to ``rm -r data`` "in the
  workspace root" removed ``keep/data`` instead.

All through the real programs: bash, the sandbox tiers, the MCP SDK's client over stdio.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from _helpers import git_workspace, sandbox_or_skip
from conftest import load

from shellgate.integrations._shell import Shell
from shellgate.tools import BashTool
from shellgate.tools.shell_state import SAVE, State

LINES = load("red3_tool.jsonl")
REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(params=["bwrap", "landlock"])
def tier(request: pytest.FixtureRequest) -> str:
    sandbox_or_skip(request.param).close()
    return request.param


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return git_workspace(tmp_path / "ws", commit=("a.txt", "a\n"))


def _hits(ws: Path) -> int:
    f = ws / "hits"
    return len(f.read_text().splitlines()) if f.exists() else 0


@pytest.mark.parametrize("line", LINES, ids=[x["setup"][:40] for x in LINES])
def test_a_later_command_runs_nothing_the_session_carried_unseen(ws: Path, tier: str,
                                                                 line: dict) -> None:
    with BashTool(ws, "trust", sandbox=tier, home=ws.parent / "home", audit=False, store=False,
                  user_config=False, persistent=True) as t:
        r = t.run(line["setup"])
        assert r.ran, (r.decision, r.reason)
        if line["note"]:
            assert any(line["note"] in n for n in r.notes), r.notes
        before = _hits(ws)
        for cmd in line["later"]:
            r = t.run(cmd)
            assert r.ran, (cmd, r.decision, r.reason)
            assert _hits(ws) == before, (cmd, r.stdout, r.stderr)


def test_functions_that_shadow_no_builtin_still_carry_over(ws: Path, tier: str) -> None:
    with BashTool(ws, "trust", sandbox=tier, home=ws.parent / "home", audit=False, store=False,
                  user_config=False, persistent=True) as t:
        assert t.run("greet() { echo hi; }; shopt -s expand_aliases; alias ll='ls -d'").ran
        assert t.run("greet; ll .").stdout == "hi\n.\n"


def test_read_only_ls_after_a_local_function_writes_nothing(ws: Path, tier: str) -> None:
    """The finding as an agent meets it: balanced mode, one approved definition, then ``ls``
    is allowed as a read — and must stay one."""
    from shellgate.approval import DecisionKind

    with BashTool(ws, "balanced", sandbox=tier, home=ws.parent / "home", audit=False,
                  store=False, user_config=False, persistent=True,
                  approver=lambda p: DecisionKind.ALLOW_ONCE) as t:
        assert t.run("local() { echo x >> hits; }").ran
        before = _hits(ws)
        t.engine.set_approver(None)        # from here nothing is approved
        r = t.run("ls")
        assert r.ran and r.decision == "allow" and r.capability == "read", r
        assert _hits(ws) == before


def test_the_restore_line_reads_function_text_as_parsed(tmp_path: Path) -> None:
    """Real bash, no sandbox: the prelude built from a state whose alias is named like its
    function runs nothing (before: the alias expanded inside ``eval``)."""
    fn = "f () \n{ \n    :\n}\n"
    for variables in ((), (("POSIXLY_CORRECT", "1", False),)):
        state = State(variables=variables, functions=fn, function_names=("f",),
                      aliases=(("f", "echo x >> hits; g"),), expand_aliases=not variables)
        subprocess.run(["bash", "--norc", "--noprofile", "-c", f"{state.prelude()}; {SAVE}\ntrue"],
                       cwd=tmp_path, check=True, timeout=30)
        assert not (tmp_path / "hits").exists(), state.prelude()


# --- the MCP server: an approval holds for the question it answered -----------------------

def _shell(ws: Path) -> Shell:
    return Shell(ws, "balanced", sandbox="bwrap", home=ws.parent / "home", audit=False,
                 store=False, user_config=False)


def _dirs(ws: Path) -> None:
    (ws / "keep" / "data").mkdir(parents=True)
    (ws / "data").mkdir()


def test_an_approval_does_not_follow_a_cd_made_after_the_question(ws: Path) -> None:
    sandbox_or_skip("bwrap").close()
    _dirs(ws)
    with _shell(ws) as sh:
        question = sh.preflight("rm -r data").prompt_text()
        assert sh.run_readonly("cd keep").ran
        r = sh.run("rm -r data", approved=True, asked=question)
        assert r.status == "needs_approval" and "question changed" in r.reason, r
        assert (ws / "keep" / "data").is_dir() and (ws / "data").is_dir()
        r = sh.run("rm -r data", approved=True, asked=sh.preflight("rm -r data").prompt_text())
        assert r.ran and not (ws / "keep" / "data").exists() and (ws / "data").is_dir()


def test_mcp_legacy_elicitation_and_a_concurrent_cd(ws: Path) -> None:
    """The real SDK client, legacy era: while the user is asked about ``rm -r data`` (in the
    workspace root), a concurrent ``run_readonly_command`` does ``cd keep``; the yes must not
    remove ``keep/data``. The server runs from this tree (``-m``, PYTHONPATH), not the
    installed console script."""
    pytest.importorskip("mcp", reason="the mcp SDK is not installed")
    sandbox_or_skip("bwrap").close()
    import anyio
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp_types import ElicitResult

    _dirs(ws)
    root = ws.parent
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    env.update(HOME=str(root / "home"), XDG_CONFIG_HOME=str(root / "config"),
               XDG_STATE_HOME=str(root / "state"), PYTHONPATH=str(REPO))
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "shellgate.integrations.mcp_server", str(ws)],
                                   env=env, cwd=str(ws))
    asked: list[str] = []
    results: dict[str, object] = {}

    async def main() -> None:
        question, moved = anyio.Event(), anyio.Event()

        async def answer(context, params):
            asked.append(params.message)
            question.set()
            await moved.wait()
            return ElicitResult(action="accept", content={"approve": True})

        async with Client(params, mode="legacy", elicitation_callback=answer) as client:
            async def remove() -> None:
                results["rm"] = await client.call_tool("run_command", {"command": "rm -r data"})

            async with anyio.create_task_group() as tg:
                tg.start_soon(remove)
                await question.wait()
                r = await client.call_tool("run_readonly_command", {"command": "cd keep"})
                results["cd"] = r
                moved.set()

    anyio.run(main)
    assert not results["cd"].is_error, results["cd"]
    rm = results["rm"]
    assert rm.is_error and rm.structured_content["status"] == "needs_approval", rm
    assert len(asked) == 1 and "the workspace root" in asked[0], asked
    assert (ws / "keep" / "data").is_dir() and (ws / "data").is_dir()
