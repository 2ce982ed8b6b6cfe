"""What a confined command can fill on the host's disk (corpus/tmpcap.jsonl,
shellgate/sandbox/scratch.py), run for real with ``[sandbox] scratch_size`` = 1 MiB.

- ``tool``: the bash tool's scratch counts entries too — empty files use no data block, and
  used to take the host disk's inodes while the bytes stayed under the cap;
- ``hook``: a hook's Landlock line gives the command a ``TMPDIR`` in the host's ``/tmp``, which
  had no bound at all (8 MiB written under a 1 MiB cap); now RLIMIT_FSIZE and the guardian's
  watch hold there, and the hook takes the cap from the config (it used to take 1 GiB always);
- ``job``: a background job the bash tool keeps after its call wrote on with no look at the
  scratch (4 MB under a 1 MiB cap); now every job is stopped once it is over.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from _helpers import sandbox_or_skip
from conftest import load

from shellgate.sandbox import Limits, build_policy

ROWS = load("tmpcap.jsonl")
CAP = 1 << 20
ROOT = Path(__file__).resolve().parent.parent
BOUND = 60.0   # seconds a poll waits for what must happen long before
HOLE = "echo tmpcap-hole"   # quoted in a hook's line: a command put in its place runs instead


def _rows(kind: str) -> list[dict]:
    return [r for r in ROWS if r["kind"] == kind]


def _world(tmp: Path) -> tuple[Path, Path]:
    ws, home = tmp / "ws", tmp / "home"
    ws.mkdir()
    home.mkdir()
    return ws, home


def _policy(ws: Path, home: Path, **kw: object):
    return build_policy(ws, home=home, limits=Limits(scratch_size=CAP, **kw))


def _entries(root: Path) -> int:
    return sum(1 for _ in root.rglob("*"))


def _killed_for(stop: str, text: str) -> bool:
    return {"bytes": "bytes, over its cap of 1048576",
            "entries": "files and directories, over its cap of 256"}[stop] in text


# --------------------------------------------------------------------------- the bash tool

@pytest.mark.parametrize("tier", ["bwrap", "bwrap-fresh", "landlock"])
@pytest.mark.parametrize("row", _rows("tool"), ids=[r["why"] for r in _rows("tool")])
def test_the_tools_scratch_counts_entries(tmp_path, tier, row):
    sb = sandbox_or_skip(tier)
    ws, home = _world(tmp_path)
    try:
        r = sb.run(row["cmd"], _policy(ws, home, timeout=BOUND), ws)
        held = _entries(sb.tmpdir())
    finally:
        sb.close()
    assert not r.timed_out, "the watch never stopped it"
    if row["stop"] == "none":
        assert r.exit_code == 0 and r.stdout.strip() == row["out"], (r.stderr, r.notes)
    else:
        assert r.signal == 9 and any(_killed_for(row["stop"], n) for n in r.notes), r.notes
        assert held < 20000, held   # stopped long before the loop's end


# --------------------------------------------------------------------------- the hook's line

@pytest.fixture
def landlock_line(tmp_path, monkeypatch):
    """The Landlock tier forced, with its helper (``python -I -m shellgate.sandbox.confine``)
    importing this tree: under ``-I`` an editable install may point elsewhere."""
    from shellgate.sandbox import enforce
    from shellgate.sandbox.probe import Tier, landlock_usable

    if why := landlock_usable():
        pytest.skip(f"Landlock does not work here: {why}")
    seen = subprocess.run([sys.executable, "-I", "-c", "import shellgate; print(shellgate.__file__)"],
                          capture_output=True, text=True)
    if not seen.stdout.startswith(str(ROOT) + "/"):
        boot = tmp_path / "this_tree.py"   # python -I boot.py -m MODULE ARG…
        boot.write_text(f"import runpy, sys\nsys.path.insert(0, {str(ROOT)!r})\n"
                        "m = sys.argv[2]\nsys.argv = [m] + sys.argv[3:]\n"
                        "runpy.run_module(m, run_name='__main__', alter_sys=True)\n")
        wrapper = tmp_path / "python-this-tree"
        wrapper.write_text(f'#!/bin/sh\n[ "$1" = -I ] && shift\n'
                           f'exec {sys.executable} -I {boot} "$@"\n')
        wrapper.chmod(0o755)
        monkeypatch.setattr(enforce, "python", lambda: str(wrapper))
    return enforce.HookTier(Tier.LANDLOCK, None, enforce.hook_tier().bash)


def _marked(pattern: str) -> list[int]:
    """Processes whose command line holds ``pattern``."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if pattern.encode() in f.read():
                    out.append(int(pid))
        except OSError:
            continue
    return out


@pytest.mark.parametrize("row", _rows("hook"), ids=[r["why"] for r in _rows("hook")])
def test_the_hook_lines_tmpdir_is_capped(tmp_path, row, landlock_line):
    from shellgate.sandbox.enforce import confine

    ws, home = _world(tmp_path)
    mark = f"tmpcap-{uuid.uuid4().hex}"
    cmd = 'printf "%s\\n" "$TMPDIR" >&2; ' + row["cmd"].replace("MARK", mark)
    line = confine(cmd, _policy(ws, home), cwd=ws, tier=landlock_line).line
    try:
        done = subprocess.run(["bash", "-c", line], cwd=ws, capture_output=True, text=True,
                              stdin=subprocess.DEVNULL, timeout=BOUND)
    finally:
        left = _marked(mark)
        for pid in left:
            os.kill(pid, 9)
    tmpdir = done.stderr.split("\n", 1)[0]
    assert tmpdir.startswith("/") and not os.path.exists(tmpdir), done.stderr
    assert not left, f"the writer outlived the line: {left}"
    if row["stop"] == "none":
        assert done.returncode == 0 and done.stdout.strip() == row["out"], done.stderr
    elif row["stop"] == "file":
        assert done.returncode != 0 and "File size limit exceeded" in done.stderr, done.stderr
    else:
        assert done.returncode == 137 and _killed_for(row["stop"], done.stderr), done.stderr
        assert "the command was killed" in done.stderr


def _hook_line(tmp_path: Path, monkeypatch, config: str, project: str = "") -> str:
    """The line the Claude Code hook hands back for :data:`HOLE` under ``config`` (the
    user's)."""
    from shellgate.integrations import claude_code, hookio

    ws, home = _world(tmp_path)
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "shellgate" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(config)
    if project:
        (ws / ".shellgate").mkdir()
        (ws / ".shellgate" / "config.toml").write_text(project)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLAUDE_PROJECT_DIR", raising=False)
    monkeypatch.chdir(ws)
    payload = {"session_id": "s", "cwd": str(ws), "permission_mode": "acceptEdits",
               "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": HOLE}, "tool_use_id": "t"}
    out, _ = hookio.run(claude_code.SPEC, json.dumps(payload))
    hso = json.loads(out)["hookSpecificOutput"]
    assert hso["permissionDecision"] == "allow", hso
    return hso["updatedInput"]["command"]


def _caps(line: str) -> list[str]:
    """The caps the line sets, each once (a bwrap line sizes /tmp and /dev/shm alike)."""
    return list(dict.fromkeys(re.findall(r"--(?:size|scratch) (\d+)", line)))


@pytest.mark.parametrize(("config", "project", "caps"), [
    ("[sandbox]\nscratch_size = 1048576\n", "", ["1048576"]),
    ("[sandbox]\nscratch_size = 0\n", "", []),
    ("", "", [str(1 << 30)]),
    ("[sandbox]\nscratch_size = 1048576\n", "[sandbox]\nscratch_size = 0\n", ["1048576"]),
], ids=["set", "none", "default", "a-project-cannot-raise-it"])
def test_the_hook_takes_its_cap_from_the_users_config(tmp_path, monkeypatch, config, project, caps):
    from shellgate.sandbox.enforce import hook_tier
    from shellgate.sandbox.probe import Tier

    if hook_tier().tier is Tier.NONE:
        pytest.skip("no sandbox tier here: the hook hands back no line")
    assert _caps(_hook_line(tmp_path, monkeypatch, config, project)) == caps


def test_the_hooks_landlock_line_holds_the_configs_file_cap(tmp_path, monkeypatch, landlock_line):
    """End to end: the config's cap reaches the line the agent runs (RLIMIT_FSIZE)."""
    from shellgate.sandbox import enforce

    monkeypatch.setattr(enforce, "hook_tier", lambda: landlock_line)
    line = _hook_line(tmp_path, monkeypatch, "[sandbox]\nscratch_size = 1048576\n")
    assert f"'{HOLE}'" in line
    line = line.replace(f"'{HOLE}'", "'head -c 4M /dev/zero > \"$TMPDIR/big\"'")
    done = subprocess.run(["bash", "-c", line], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=BOUND)
    assert done.returncode != 0 and "File size limit exceeded" in done.stderr, done.stderr


# --------------------------------------------------------------------------- background jobs

@pytest.mark.parametrize("row", _rows("job"), ids=[r["why"] for r in _rows("job")])
def test_a_background_job_is_held_to_the_scratch_cap(tmp_path, row):
    from shellgate.sandbox import Sandbox, SandboxUnavailable

    try:
        sb = Sandbox("bwrap", background=True)
    except SandboxUnavailable as exc:
        pytest.skip(f"bwrap tier unavailable here: {exc}")
    ws, home = _world(tmp_path)
    try:
        r = sb.run(row["cmd"], _policy(ws, home), ws)
        assert r.stdout == "started\n" and r.background, (r.stderr, r.notes)
        said: tuple[str, ...] = ()
        end = time.monotonic() + BOUND
        while not said and time.monotonic() < end:
            running, said = sb.jobs()
            if not said:
                time.sleep(0.05)
        assert said, f"the job still ran after {BOUND} s: {running}"
        assert len(said) == 1 and _killed_for(row["stop"], said[0]), said
        assert not sb.jobs()[0]
        held = _entries(sb.tmpdir())
    finally:
        sb.close()
    assert held < 20000, held
