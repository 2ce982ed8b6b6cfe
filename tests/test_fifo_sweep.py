"""No file the gate reads at decision time may stall or flood it (corpus/fifo_sweep.jsonl).

Each line plants one file the decision reads — a repository's or HOME's git config, a linked
worktree's ``commondir``, shellgate's own configs and approval store, a jq program, ``~/.dpkg.cfg``
— as a FIFO, a link to ``/dev/zero``, a sparse 64 GiB file or a link to a FIFO, then asks
``Gate.check`` (or, ``"entry": "hook"``, the installed hook client) about one command in a
child process (tests/fifo_sweep_child.py). Before the
sweep a FIFO made the analysis miss its 5 s deadline ("did not finish": the thread stayed
blocked for good), a FIFO approval store or ``commondir`` made ``check`` never return at all,
and ``/dev/zero`` or the sparse file raised MemoryError. The answer must be the expected
decision with its reason; a reply that mentions the deadline is a failure, and a child still
running after :data:`TIMEOUT` (far past the deadline: no wall-clock assertion of its own) is
one too, without hanging the suite.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import load

CASES = load("fifo_sweep.jsonl")
CHILD = Path(__file__).with_name("fifo_sweep_child.py")
ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 60   # seconds; the deadline under test is 5 s


def _id(case: dict) -> str:
    return f"{case['root']}/{case['path']}:{case['kind']}:{case['command']}"


def _run(case: dict) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        proc = subprocess.run([sys.executable, str(CHILD), json.dumps(case)], env=env,
                              capture_output=True, text=True, timeout=TIMEOUT,
                              start_new_session=True)
    except subprocess.TimeoutExpired:
        pytest.fail(f"no decision within {TIMEOUT} s: the gate stalled on {case['path']}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("case", CASES, ids=_id)
def test_planted_file(case: dict) -> None:
    if "runs confined" in case["reason"] and shutil.which("bwrap") is None:
        pytest.skip("bwrap is not installed: the hook builds no sandbox policy to read from")
    out = _run(case)
    said = [out["reason"], *out["reasons"]]
    late = ("did not finish", "did not decide")   # the analysis deadline, the hook's watchdog
    assert not any(w in s for s in said for w in late), f"the decision waited out a deadline: {said}"
    assert out["decision"] == case["decision"], said
    assert any(case["reason"] in s for s in said), said


def test_plain_helper_follows_only_when_asked(tmp_path: Path) -> None:
    """One helper, two readings: a repository's own file is not read through a final link;
    a config is (a dotfile manager's link), and what it reaches is held to the same checks."""
    from shellgate._plain import NotPlain, read_head, read_plain

    (tmp_path / "real").write_bytes(b"[core]\n")
    (tmp_path / "link").symlink_to("real")
    (tmp_path / "zero").symlink_to("/dev/zero")
    os.mkfifo(tmp_path / "fifo")
    assert read_plain(tmp_path / "link", 100, follow=True) == b"[core]\n"
    with pytest.raises(OSError) as e:
        read_plain(tmp_path / "link", 100)
    assert not isinstance(e.value, NotPlain)   # ELOOP: the link itself is refused
    for name in ("zero", "fifo"):
        with pytest.raises(NotPlain, match="not a regular file"):
            read_plain(tmp_path / name, 100, follow=True)
        with pytest.raises(NotPlain):
            read_head(tmp_path / name, 4)
    with pytest.raises(NotPlain, match="larger than 3 bytes"):
        read_plain(tmp_path / "real", 3)
    assert read_head(tmp_path / "real", 3) == b"[co"
