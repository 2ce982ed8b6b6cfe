"""Scratch space a confined command could still fill past ``[sandbox] scratch_size``
(corpus/red9.jsonl, a 1 MiB cap): blocks allocated past a file's end, which neither
RLIMIT_FSIZE nor the watch saw (shellgate/sandbox/seccomp.py, scratch.py), and ``/dev/shm``,
which no cap covered (bwrap.py's mounts, runner.py's Landlock rules). Each row runs in the bash
tool's tiers and as a hook's confined line, for real."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from pathlib import Path

import pytest
from _helpers import sandbox_or_skip
from conftest import load
from test_scratch_bounds import BOUND, CAP, _policy, _world, landlock_line  # noqa: F401

ROWS = load("red9.jsonl")
SETTINGS = ["tool-bwrap", "tool-bwrap-fresh", "tool-landlock", "hook-bwrap", "hook-landlock"]
pytestmark = pytest.mark.skipif(shutil.which("fallocate") is None, reason="fallocate (util-linux) is missing")


def _shm(mark: str) -> list[str]:
    return [n for n in os.listdir("/dev/shm") if n.startswith(mark)]


def _tool(setting: str, cmd: str, tmp_path: Path) -> tuple[str, str, bool]:
    """(stdout, what the run said, killed for the scratch's bytes) under the bash tool."""
    sb = sandbox_or_skip(setting.removeprefix("tool-"))
    ws, home = _world(tmp_path)
    try:
        r = sb.run(cmd, _policy(ws, home, timeout=BOUND), ws)
    finally:
        sb.close()
    said = r.stderr + "\n".join(r.notes)
    return r.stdout, said, r.signal == 9 and "bytes, over its cap of 1048576" in said


def _hook(setting: str, cmd: str, tmp_path: Path, request: pytest.FixtureRequest) -> tuple[str, str, bool]:
    """The same for a hook's confined line (a write grant) run by bash."""
    from shellgate.sandbox.enforce import confine, hook_tier
    from shellgate.sandbox.probe import Tier

    if setting == "hook-landlock":
        tier = request.getfixturevalue("landlock_line")
    else:
        tier = hook_tier()
        if tier.tier is not Tier.BWRAP:
            pytest.skip("bwrap does not work here")
    ws, home = _world(tmp_path)
    line = confine(cmd, _policy(ws, home), cwd=ws, tier=tier).line
    done = subprocess.run(["bash", "-c", line], cwd=ws, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=BOUND)
    return done.stdout, done.stderr, done.returncode == 137 and "bytes, over its cap" in done.stderr


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("row", ROWS, ids=[r["why"] for r in ROWS])
def test_scratch_past_the_cap(row: dict, setting: str, tmp_path: Path,
                              request: pytest.FixtureRequest) -> None:
    if "tiers" in row and setting not in row["tiers"]:
        pytest.skip(f"the row is for {row['tiers']}")
    mark = f"red9-{uuid.uuid4().hex[:12]}"
    cmd = row["cmd"].replace("MARK", mark)
    try:
        if setting.startswith("tool-"):
            out, said, killed = _tool(setting, cmd, tmp_path)
        else:
            out, said, killed = _hook(setting, cmd, tmp_path, request)
        left = _shm(mark)
    finally:
        for name in _shm(mark):
            os.unlink(f"/dev/shm/{name}")
    assert not left, f"kept in the host's /dev/shm: {left}"
    if "out" in row:
        assert out.strip() == row["out"], said
    else:
        assert killed or int(out.strip()) <= row["max"], (out, said)


def test_blocks_past_the_end_count(tmp_path: Path) -> None:
    """The watch's measure, on the host: a file of size 0 holding 2 MiB of blocks past its end
    is 2 MiB, not 0."""
    from shellgate.sandbox.scratch import Watch, usage

    f = tmp_path / "s" / "pre"
    f.parent.mkdir()
    f.touch()
    made = subprocess.run(["fallocate", "-n", "-l", "2M", str(f)], capture_output=True, text=True)
    if made.returncode or f.stat().st_blocks == 0:
        pytest.skip(f"this filesystem keeps no blocks past the end: {made.stderr}")
    assert f.stat().st_size == 0
    assert usage(str(f.parent))[0] >= 2 << 20
    watch = Watch(str(tmp_path / "s"), CAP, every=0)
    watch.before = (0, 0)   # as if the command had made it
    assert "bytes, over its cap" in (watch.over(watch.due) or "")
