"""``check --jsonl --jobs N``: a bounded window of lines in flight keeps memory flat; these
tests make sure the window never reorders, drops or deadlocks, and that a consumer that stops
early does not hang the pool."""

from __future__ import annotations

import json
import threading

import pytest

from shellgate import checkcli


def _lines(n: int) -> list[str]:
    cmds = ["ls -la", "cat x | head -3", "rm -rf build", "git status", "echo $HOME", "(( i++ ))"]
    return [json.dumps({"cmd": f"{cmds[i % len(cmds)]} # {i}"}) for i in range(n)]


def test_a_tiny_window_keeps_order_and_every_line(tmp_path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(checkcli, "_CHUNK", 3)
    monkeypatch.setattr(checkcli, "_WINDOW_CHUNKS", 1)  # window = 6 lines for 2 workers
    lines = _lines(150)
    common = {"mode": None, "cwd": str(tmp_path), "config": None, "plan": False}
    one = list(checkcli.check_lines(lines, jobs=1, **common))
    two = list(checkcli.check_lines(iter(lines), jobs=2, **common))
    assert len(two) == len(lines)
    assert two == one
    assert [json.loads(r)["command"] for r in two] == [json.loads(s)["cmd"] for s in lines]


def test_stopping_early_does_not_hang(tmp_path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(checkcli, "_CHUNK", 2)
    monkeypatch.setattr(checkcli, "_WINDOW_CHUNKS", 1)
    got: list[str] = []

    def consume() -> None:
        gen = checkcli.check_lines(iter(_lines(500)), mode=None, cwd=str(tmp_path), config=None,
                                   plan=False, jobs=2)
        for r in gen:
            got.append(r)
            if len(got) == 5:
                break
        gen.close()

    t = threading.Thread(target=consume, daemon=True)
    t.start()
    t.join(timeout=120)
    assert not t.is_alive(), "the pool hung after the consumer stopped"
    assert len(got) == 5
