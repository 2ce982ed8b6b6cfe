"""``shellgate mcp`` as a subprocess, driven by the official SDK's client over stdio.

Both protocol eras: ``mode="legacy"`` (initialize handshake, elicitation as a server request)
and ``mode="auto"`` (2026-07-28, elicitation through InputRequiredResult / MRTR).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import anyio
import pytest

mcp = pytest.importorskip("mcp", reason="the mcp SDK is not installed")
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402
from mcp_types import ElicitResult  # noqa: E402

EXE = shutil.which("shellgate")


def _wired() -> bool:
    return EXE is not None and subprocess.run([EXE, "mcp", "--help"], capture_output=True,
                                              timeout=60).returncode == 0


pytestmark = pytest.mark.skipif(not _wired(), reason="`shellgate mcp` is not available (console "
                                                     "script not installed or not wired)")

ANNOTATIONS = {
    "check_command": dict(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                          open_world_hint=False),
    "run_command": dict(read_only_hint=False, destructive_hint=True, idempotent_hint=False,
                        open_world_hint=True),
    "run_readonly_command": dict(read_only_hint=True, destructive_hint=False,
                                 idempotent_hint=True, open_world_hint=False),
}


@pytest.fixture()
def work(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "README.md").write_text("hello from the workspace\n")
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    (tmp_path / "home").mkdir()
    return work


def server(work: Path) -> StdioServerParameters:
    root = work.parent
    env = {k: v for k, v in os.environ.items() if k != "CLAUDE_PROJECT_DIR"}
    env.update(HOME=str(root / "home"), XDG_CONFIG_HOME=str(root / "config"),
               XDG_STATE_HOME=str(root / "state"))
    return StdioServerParameters(command=EXE, args=["mcp"], env=env, cwd=str(work))


def run(coro_fn):
    anyio.run(coro_fn)


def accept(answer: bool):
    asked: list[str] = []

    async def callback(context, params):
        asked.append(params.message)
        return ElicitResult(action="accept", content={"approve": answer})

    callback.asked = asked  # type: ignore[attr-defined]
    return callback


@pytest.mark.parametrize("era", ["legacy", "auto"])
def test_tools_list_and_readonly_refusal(work, era):
    async def main():
        async with Client(server(work), mode=era) as client:
            if era == "legacy":
                assert client.session.initialize_result is not None
                assert client.session.initialize_result.server_info.name == "shellgate"
            else:
                assert client.session.protocol_version == "2026-07-28"
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == set(ANNOTATIONS)
            for name, want in ANNOTATIONS.items():
                got = tools[name].annotations
                assert {k: getattr(got, k) for k in want} == want, name
                assert set(tools[name].input_schema["properties"]) >= {"command"}
                assert "answer" not in tools[name].input_schema["properties"]

            r = await client.call_tool("run_readonly_command", {"command": "touch x"})
            assert r.is_error
            assert r.structured_content["status"] == "denied"
            assert "not read-only" in r.structured_content["reason"]
            assert not (work / "x").exists()

            r = await client.call_tool("run_readonly_command", {"command": "cat README.md"})
            assert not r.is_error, r.content
            assert r.structured_content["exit_code"] == 0
            assert "hello from the workspace" in r.structured_content["stdout"]

            r = await client.call_tool("check_command", {"command": "rm -rf ~"})
            assert not r.is_error
            assert r.structured_content["decision"] in ("ask", "deny")
            assert r.structured_content["warnings"]
    run(main)


@pytest.mark.parametrize("era", ["legacy", "auto"])
def test_run_command_without_elicitation_needs_approval(work, era):
    async def main():
        async with Client(server(work), mode=era) as client:
            r = await client.call_tool("run_command", {"command": "touch made-by-ask"})
            assert r.is_error
            assert r.structured_content["status"] == "needs_approval"
            assert r.structured_content["decision"] == "ask"
            assert not (work / "made-by-ask").exists()
            r = await client.call_tool("run_command", {"command": "cat README.md"})
            assert not r.is_error and "hello" in r.structured_content["stdout"]
    run(main)


@pytest.mark.parametrize("era", ["legacy", "auto"])
def test_run_command_asks_through_elicitation(work, era):
    yes, no = accept(True), accept(False)

    async def main():
        async with Client(server(work), mode=era, elicitation_callback=no) as client:
            r = await client.call_tool("run_command", {"command": "touch declined"})
            assert r.is_error and r.structured_content["status"] == "declined"
        assert not (work / "declined").exists()
        async with Client(server(work), mode=era, elicitation_callback=yes) as client:
            r = await client.call_tool("run_command", {"command": "mkdir -p sub && touch approved && cd sub"})
            assert not r.is_error, r.content
            assert r.structured_content["status"] == "ran"
            # read-only commands never ask, and cd persisted
            r = await client.call_tool("run_command", {"command": "pwd"})
            assert r.structured_content["stdout"].strip() == str(work / "sub")
        assert (work / "approved").exists()
        assert len(yes.asked) == 1 and "touch approved" in yes.asked[0]
        assert len(no.asked) == 1

    run(main)


def _user_config(work: Path, text: str) -> None:
    cfg = work.parent / "config" / "shellgate" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(text)


def test_model_timeout_is_clamped_to_the_users(work):
    """``timeout_seconds`` may shorten a command, never lengthen it past ``[sandbox] timeout``."""
    _user_config(work, "[sandbox]\ntimeout = 1\n")

    async def main():
        async with Client(server(work), mode="legacy") as client:
            r = await client.call_tool("run_readonly_command",
                                       {"command": "sleep 20", "timeout_seconds": 600})
            assert r.structured_content["timed_out"] is True, r.structured_content
            assert r.structured_content["exit_code"] == 124
    run(main)


@pytest.mark.parametrize("era", ["legacy", "auto"])
def test_a_running_command_does_not_block_check_command(work, era):
    """A read-only command waits on two FIFOs: the test opens the first (so the command is
    surely running), asks ``check_command``, and only once that answered feeds the second. A
    check that waited for the run would never get there (the user's timeout ends the run, and
    the test fails). No step can hang: a FIFO end the command never opened is held open by
    the test instead, and the second is fed through a read-write descriptor (which never
    blocks and keeps the line buffered until the command reads it)."""
    _user_config(work, "[sandbox]\ntimeout = 20\n")
    up, gate = work / "up.fifo", work / "gate.fifo"
    os.mkfifo(up)
    os.mkfifo(gate)
    order: list[str] = []
    held: list[int] = []

    def wait_until_running() -> None:
        os.close(os.open(up, os.O_WRONLY))  # returns once the command (or the test) reads it

    def feed_gate() -> None:
        fd = os.open(gate, os.O_RDWR)
        os.write(fd, b"go\n")
        held.append(fd)

    async def main():
        async with Client(server(work), mode=era) as client:
            async def long_run():
                try:
                    r = await client.call_tool("run_readonly_command",
                                               {"command": "cat up.fifo; head -n 1 gate.fifo"})
                finally:  # refused or killed: let a waiter on up.fifo go
                    held.append(os.open(up, os.O_RDONLY | os.O_NONBLOCK))
                order.append("run")
                assert r.structured_content["timed_out"] is False, r.structured_content
                assert r.structured_content["stdout"] == "go\n"

            try:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(long_run)
                    await anyio.to_thread.run_sync(wait_until_running)
                    r = await client.call_tool("check_command", {"command": "rm -rf build"})
                    order.append("check")
                    assert r.structured_content["decision"] in ("ask", "deny")
                    feed_gate()
            finally:
                for fd in held:
                    os.close(fd)
        assert order == ["check", "run"]
    run(main)


@pytest.mark.parametrize("era", ["legacy", "auto"])
def test_approval_says_where_the_command_runs(work, era):
    """After a silent ``cd prod``, the question about ``rm -r data`` names prod/ and the
    workspace."""
    (work / "prod" / "data").mkdir(parents=True)
    no = accept(False)

    async def main():
        async with Client(server(work), mode=era, elicitation_callback=no) as client:
            r = await client.call_tool("run_command", {"command": "cd prod"})
            assert not r.is_error, r.content
            r = await client.call_tool("run_command", {"command": "rm -r data"})
            assert r.is_error and r.structured_content["status"] == "declined"
    run(main)
    assert len(no.asked) == 1
    text = no.asked[0]
    assert f"Working directory: {work / 'prod'} (prod/ inside the workspace)" in text, text
    assert f"Workspace: {work}" in text, text
    assert (work / "prod" / "data").is_dir()
