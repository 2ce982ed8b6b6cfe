"""``[sandbox] auto_allow`` (#20): a bash tool whose sandbox confines lets an exec with no
warning run unasked (default: accept-edits only), and the sandbox still stops what it could do
beyond an edit. Fed from ``corpus/auto_allow.jsonl``; every allowed line really runs.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from _helpers import git_workspace, home_with_key, sandbox_or_skip
from conftest import load

from shellgate.tools import BashTool

CANARY = "CANARY-auto-allow-51e0"
ROWS = load("auto_allow.jsonl")


@pytest.fixture
def world(tmp_path: Path):
    ws = git_workspace(tmp_path / "ws", commit=("t.py", "print('hi')\n"))
    home = home_with_key(tmp_path / "home", CANARY + "\n")
    (tmp_path / "outside").mkdir()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    yield {"ws": ws, "home": home, "outside": tmp_path / "outside" / "x", "listener": listener}
    listener.close()


def _cmd(row: dict, world: dict) -> str:
    return row["cmd"].format(outside_hex=str(world["outside"]).encode().hex(),
                             key_hex=str(world["home"] / ".ssh" / "id_rsa").encode().hex(),
                             port=world["listener"].getsockname()[1])


def _tool(world: dict, mode: str, tier: str, config: Path | None = None) -> BashTool:
    return BashTool(world["ws"], mode, sandbox=tier, home=world["home"], audit=False, store=False,
                    user_config=False, config=config)


def _connections(listener: socket.socket) -> int:
    n = 0
    while True:
        try:
            listener.accept()[0].close()
            n += 1
        except BlockingIOError:
            return n


@pytest.mark.parametrize("tier", ["bwrap", "landlock"])
@pytest.mark.parametrize("row", ROWS, ids=[r["cmd"][:40] for r in ROWS])
def test_confined_exec_runs_unasked_and_stays_confined(world, row, tier):
    sandbox_or_skip(tier).close()
    want = {**row, **row.get(tier, {})}   # a tier's own expectations win
    for mode in ("accept-edits", "balanced"):
        with _tool(world, mode, tier) as t:
            r = t.run(_cmd(row, world))
        assert r.decision == want[mode], (mode, r.reason)
        if r.ran:
            assert CANARY not in r.stdout + r.stderr
    assert not world["outside"].exists()
    assert _connections(world["listener"]) == 0
    if "effect" in row and tier in row.get("effect_in", ("bwrap", "landlock")):
        assert want["accept-edits"] == "allow"  # it ran: the sandbox stopped it, not the gate


def _config(tmp_path: Path, value: str) -> Path:
    p = tmp_path / "sg.toml"
    p.write_text(f"[sandbox]\nauto_allow = {value}\n")
    return p


@pytest.mark.parametrize(("value", "mode", "want"), [
    ("false", "accept-edits", "ask"), ("true", "balanced", "allow"), ("true", "strict", "deny"),
    ("true", "accept-edits", "allow")])
def test_the_setting_turns_it_on_or_off(world, tmp_path, value, mode, want):
    sandbox_or_skip("bwrap").close()
    with _tool(world, mode, "bwrap", _config(tmp_path, value)) as t:
        assert t.run("python3 t.py").decision == want


def test_without_confinement_nothing_runs_unasked(world):
    with _tool(world, "accept-edits", "off") as t:
        r = t.run("python3 t.py")
    assert r.decision == "ask", r.reason


def test_a_bad_value_is_an_error(world, tmp_path):
    with pytest.raises(ValueError, match="auto_allow"):
        _tool(world, "accept-edits", "bwrap", _config(tmp_path, '"yes"'))


def test_landlock_without_socket_scoping_does_not_confine_enough(world, monkeypatch):
    """Before Landlock ABI 6 a program could reach a host service on an abstract Unix socket:
    such a kernel (this one is newer, so its answer is replaced) gets no unasked exec."""
    sandbox_or_skip("landlock").close()
    from shellgate.sandbox import landlock

    monkeypatch.setattr(landlock, "abi", lambda: 5)
    with _tool(world, "accept-edits", "landlock") as t:
        assert not t.sandbox.confines_exec
        assert t.run("python3 t.py").decision == "ask"
