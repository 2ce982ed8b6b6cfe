"""ripgrep's walk and hidden entries: each case of corpus/rg_hidden.jsonl is decided by the gate
in a planted workspace (canaries in ``.env``, ``.venv/x/.env``, ``.hid/f``, ``keys/id_rsa`` …, a
``!.env`` line in each kind of ignore file rg reads: the walked directories', a parent's,
``.git/info/exclude``, git's global excludes file, ``--ignore-file``; ``RIPGREP_CONFIG_PATH``),
and then rg runs there for real: an allowed case prints no canary and, under ``strace -f``,
runs nothing else, writes nothing and connects nowhere; a case that prints a canary is refused
(and a "leak" case does print one). Skipped, with the reason, when rg is missing."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load
from test_readers_strace import STRACE, traced_effects

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context
from shellgate.bash.paths import rghidden

CASES = load("rg_hidden.jsonl")
CANARY = "CANARY-"
RG = shutil.which("rg")


def _ids(case: dict) -> str:
    return f"{case['cmd']}|{','.join(sorted(k for k in case['files'] if k not in _BASE))}"


_BASE = {".env", ".venv/x/.env", ".hid/f", "src/a.py"}


def _setup(tmp: Path, case: dict) -> tuple[Path, Path]:
    parent, home = tmp / "parent", tmp / "home"
    ws = parent / "ws"
    ws.mkdir(parents=True)
    home.mkdir()
    if case.get("git"):
        subprocess.run(["git", "init", "-q", str(ws)], check=True, env={**os.environ, "HOME": str(home)})
    for name, text in case["files"].items():
        path = home / name[2:] if name.startswith("~/") else ws / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return ws, home


def _env(home: Path, case: dict) -> dict[str, str]:
    """rg's environment: HOME the case's, no XDG_CONFIG_HOME (so ~/.config/git is git's), no
    config file but the case's."""
    env = {k: v for k, v in os.environ.items() if k != "XDG_CONFIG_HOME"}
    return {**env, "HOME": str(home), "RIPGREP_CONFIG_PATH": "", **case.get("env", {})}


def _decide(case: dict, ws: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> bool:
    monkeypatch.delenv("RIPGREP_CONFIG_PATH", raising=False)
    for k, v in case.get("env", {}).items():
        monkeypatch.setenv(k, v)
    a = analyse(case["cmd"], Context(cwd=ws, workspace=ws, home=home))
    if not a.readonly:
        assert a.reasons and all(r.message for r in a.reasons)
    return a.readonly


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_verdict(case: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws, home = _setup(tmp_path, case)
    assert _decide(case, ws, home, monkeypatch) == case["readonly"]


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_real_rg(case: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The oracle: what rg really prints there, against the gate's verdict."""
    if RG is None:
        pytest.skip("rg (Debian package ripgrep) is not installed")
    ws, home = _setup(tmp_path, case)
    env = _env(home, case)
    run = subprocess.run([RG, *shlex.split(case["cmd"])[1:]], cwd=ws, env=env, capture_output=True,
                         text=True, timeout=30, stdin=subprocess.DEVNULL)
    printed = CANARY in run.stdout + run.stderr
    assert printed == bool(case.get("leak")), run.stdout + run.stderr
    readonly = _decide(case, ws, home, monkeypatch)
    assert not (printed and readonly), f"allowed, yet printed: {run.stdout}"
    if readonly:
        if STRACE is None:
            pytest.skip("strace is not installed")
        argv = [str(RG), *shlex.split(case["cmd"])[1:]]
        assert traced_effects(argv, "rg", tmp_path / "trace", cwd=ws, env=env) == []


def test_other_searchers_still_read_hidden(tmp_path: Path) -> None:
    """Only rg got the narrower walk: ag, ack and ugrep (their own hidden rules) and grep -r
    still count a `.env` below."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".env").write_text("A=1\n")
    ctx = Context(cwd=ws, workspace=ws, home=tmp_path / "home")
    for cmd in ("ag X", "ack X", "ugrep -r X", "grep -r X"):
        assert not analyse(cmd, ctx).readonly, cmd
    a = analyse("rg X", ctx)
    assert a.readonly, [r.message for r in a.reasons]


def test_ignore_file_bounds(tmp_path: Path) -> None:
    """Fail closed: an ignore file too large, not a regular file, or past the count bound
    counts as a whitelist; a missing one holds none."""
    budget = rghidden.Budget()
    big = tmp_path / "big"
    big.write_bytes(b"*.log\n" * (rghidden.MAX_FILE // 6 + 1))
    assert rghidden.whitelists(str(big), budget)
    os.mkfifo(tmp_path / "fifo")
    assert rghidden.whitelists(str(tmp_path / "fifo"), budget)
    (tmp_path / "dir").mkdir()
    assert rghidden.whitelists(str(tmp_path / "dir"), budget)
    assert not rghidden.whitelists(str(tmp_path / "missing"), budget)
    small = tmp_path / "small"
    small.write_text("*.log\n")
    assert not rghidden.whitelists(str(small), budget)
    budget.left = 0
    assert rghidden.whitelists(str(small), budget)


def test_worktree_exclude(tmp_path: Path) -> None:
    """A worktree's `.git` file: rg reads the main repository's info/exclude through
    `commondir` (strace showed `…/worktrees/wt/../../info/exclude`)."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = {**os.environ, "HOME": str(tmp_path), "GIT_CONFIG_NOSYSTEM": "1"}
    repo, wt = tmp_path / "repo", tmp_path / "wt"
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q",
                    "--allow-empty", "-m", "x"], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "worktree", "add", "-q", str(wt)], check=True, env=env,
                   capture_output=True)
    (wt / ".env").write_text("A=CANARY-wt\n")
    ctx = Context(cwd=wt, workspace=wt, home=tmp_path / "home")   # HOME outside the walk
    assert analyse("rg CANARY", ctx).readonly
    (repo / ".git" / "info" / "exclude").write_text("!.env\n")
    assert not analyse("rg CANARY", ctx).readonly
    if RG is not None:
        run = subprocess.run([RG, "CANARY"], cwd=wt, env={**env, "RIPGREP_CONFIG_PATH": ""},
                             capture_output=True, text=True, timeout=30)
        assert CANARY in run.stdout
