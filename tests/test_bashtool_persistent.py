"""``BashTool(persistent=True)`` and the Anthropic adapter: one shell session, as the Anthropic
bash tool's contract says — in the real sandbox, in a throwaway git workspace.

What carries over (exports, shell variables, a venv's activation, functions, aliases), what does
not (secret-looking variables; everything after ``restart``/``close``), how the gate judges a
later command with what it carries, and what a forged or corrupt dump does (a fresh session and
a note, never a command run unseen)."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from _helpers import git_workspace, sandbox_or_skip

from shellgate.approval import DecisionKind
from shellgate.tools import BashTool

PY = shlex.quote(sys.executable)


@pytest.fixture(params=["bwrap", "landlock"])
def tier(request: pytest.FixtureRequest) -> str:
    sandbox_or_skip(request.param).close()
    return request.param


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    return git_workspace(tmp_path / "ws", commit=("a.txt", "a\n"))


def _tool(ws: Path, tier: str, mode: str = "trust", **kw) -> BashTool:
    return BashTool(ws, mode, sandbox=tier, home=ws.parent / "home", audit=False, store=False,
                    user_config=False, persistent=True, **kw)


def _out(t: BashTool, cmd: str) -> str:
    r = t.run(cmd)
    assert r.ran, (cmd, r.decision, r.reason)
    return r.stdout


def test_variables_functions_and_aliases_carry_over(ws: Path, tier: str) -> None:
    with _tool(ws, tier) as t:
        _out(t, "export FOO='a b'; count=3; greet() { echo \"hi $1\"; }; "
                "shopt -s expand_aliases; alias ll='ls -d'")
        assert _out(t, 'echo "$FOO|$count"; greet you; ll .') == "a b|3\nhi you\n.\n"
        assert _out(t, "bash -c 'echo ${FOO:-unset}'") == "a b\n"     # exported: a child sees it
        assert _out(t, "bash -c 'echo ${count:-unset}'") == "unset\n"  # a shell variable: not
        _out(t, "unset FOO; unset -f greet")
        assert _out(t, 'echo "${FOO-gone}"; type -t greet || echo nofunc') == "gone\nnofunc\n"


def test_a_venv_activation_carries_over(ws: Path, tier: str) -> None:
    with _tool(ws, tier, timeout=300) as t:
        _out(t, f"{PY} -m venv --without-pip .venv")
        _out(t, "source .venv/bin/activate")
        assert _out(t, "python -c 'import sys; print(sys.prefix)'").strip() == str(ws / ".venv")
        assert _out(t, 'echo "$VIRTUAL_ENV"').strip() == str(ws / ".venv")
        _out(t, "deactivate")
        assert _out(t, 'echo "${VIRTUAL_ENV-none}"') == "none\n"


def test_a_secret_looking_export_does_not_reach_the_next_command(ws: Path, tier: str) -> None:
    with _tool(ws, tier, approver=lambda p: DecisionKind.ALLOW_ONCE) as t:
        r = t.run("export OPENAI_API_KEY=sk-test-1; export OK=1")
        assert r.ran and any("OPENAI_API_KEY" in n for n in r.notes), r.notes
        assert _out(t, 'echo "[${OPENAI_API_KEY-}] $OK"') == "[] 1\n"


def test_restart_and_close_clear_the_session(ws: Path, tier: str) -> None:
    t = _tool(ws, tier)
    _out(t, "export FOO=1; f() { :; }")
    assert t.inherited is not None and t.inherited.functions == ("f",)
    t.close()
    assert t.inherited is None
    assert _out(t, 'echo "${FOO-none}"; type f >/dev/null 2>&1 || echo nof') == "none\nnof\n"
    t.close()


def test_not_persistent_by_default(ws: Path, tier: str) -> None:
    with BashTool(ws, "trust", sandbox=tier, home=ws.parent / "home", audit=False, store=False,
                  user_config=False) as t:
        assert t.run("export FOO=1").ran
        assert t.run('echo "${FOO-none}"').stdout == "none\n"


def test_a_timed_out_command_leaves_the_state_as_it_was(ws: Path, tier: str) -> None:
    with _tool(ws, tier) as t:
        _out(t, "export KEEP=1")
        r = t.run("export LOST=1; kill -9 $$", timeout=20)
        assert r.ran
        assert _out(t, 'echo "$KEEP ${LOST-none}"') == "1 none\n"


@pytest.mark.parametrize("setup, later", [
    ("export PAGER='sh -c id'", "git log -1"),
    ("export GIT_EXTERNAL_DIFF=./x", "git diff"),
    ("ls() { echo hijacked; }", "ls"),
    ("IFS=:", "ls"),
    ("shopt -s expand_aliases; alias cat='rm -f'", "cat a.txt"),
    ("mkdir -p bin && cp /bin/true bin/ls && export PATH=$PWD/bin:$PATH", "ls"),
])
def test_what_the_session_carries_makes_a_later_command_ask(ws: Path, tier: str, setup: str,
                                                            later: str) -> None:
    """In balanced mode the later command is read-only in a fresh shell (allowed); after the
    (approved) setup it asks, because of what the session carries."""
    with _tool(ws, tier, "balanced") as fresh:
        assert fresh.run(later).decision == "allow"
    with _tool(ws, tier, "balanced", approver=lambda p: DecisionKind.ALLOW_ONCE) as t:
        assert t.run(setup).ran
        t.engine.set_approver(None)
        r = t.run(later)
        assert (r.decision, r.ran) == ("ask", False), (r.decision, r.reason)
        assert (ws / "a.txt").exists()


def test_a_venv_on_the_path_keeps_read_only_commands_allowed(ws: Path, tier: str) -> None:
    with _tool(ws, tier, "balanced", approver=lambda p: DecisionKind.ALLOW_ONCE, timeout=300) as t:
        assert t.run(f"{PY} -m venv --without-pip .venv && source .venv/bin/activate").ran
        t.engine.set_approver(None)
        assert t.inherited.path_dirs == (str(ws / ".venv" / "bin"),)
        r = t.run("ls")
        assert (r.decision, r.ran) == ("allow", True), r.reason
        r = t.run("python3 --version")  # the venv's python: not the host's read-only one
        assert r.decision == "ask", r.reason


@pytest.mark.parametrize("forged, note", [
    (r"printf 'v\0bad name\0\0x\0'", "malformed"),
    (r"printf 'F\0f () { :; }; touch %s\0' \"$PWD/pwned\"", "functions"),
])
def test_a_forged_dump_is_never_run(ws: Path, tier: str, forged: str, note: str) -> None:
    """The dump comes from inside the sandbox: a command may replace the function that writes
    it. What it forges is refused with a note; nothing in it runs."""
    with _tool(ws, tier) as t:
        _out(t, "export KEEP=1")
        r = t.run(f"__sg_save() {{ {forged}; }}")
        assert r.ran and any(note in n for n in r.notes), r.notes
        assert _out(t, "echo ok") == "ok\n"
        assert not (ws / "pwned").exists()


def test_the_anthropic_adapter_keeps_one_session(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from shellgate.integrations.anthropic import BashToolHandler

    monkeypatch.setenv("HOME", str(ws.parent / "home"))
    h = BashToolHandler(ws, mode="trust")
    try:
        def call(i: int, inp: dict) -> dict:
            return h({"type": "tool_use", "id": f"t{i}", "name": "bash", "input": inp})

        assert call(1, {"command": "export FOO=bar; f() { echo fn; }"})["is_error"] is False
        assert call(2, {"command": 'echo "$FOO"; f'})["content"] == "bar\nfn\n"
        r = call(3, {"command": f"{PY} -m venv --without-pip .venv && source .venv/bin/activate"})
        assert r["is_error"] is False, r
        r = call(4, {"command": "python -c 'import sys; print(sys.prefix)'"})
        assert r["content"].strip() == str(ws / ".venv"), r
        assert "cleared" in call(5, {"restart": True})["content"]
        assert call(6, {"command": 'echo "${FOO-none} ${VIRTUAL_ENV-none}"'})["content"] == "none none\n"
    finally:
        h.shell.close()
