"""Read-only forms added in the widen3 round of #17, each checked by the gate and run for real.

``xzgrep``/``lzgrep``, ``bzgrep``, ``zstdgrep`` and their ``*egrep``/``*fgrep`` names
(``commands/compgrep.py``, ``corpus/widen3_compgrep.jsonl``): the read-only rows run under
``strace -f`` (only the script's own programs run, nothing is written); refused rows with an
``effect`` print the key for real (the refusal is needed).
"""

from __future__ import annotations

import bz2
import lzma
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load
from test_readers_strace import _CHANGE, _NSCD, _WRITE, EFFECT_SYSCALLS
from test_xargs_names import CANARY

from shellgate import Gate

STRACE = shutil.which("strace")
ROWS = load("widen3_compgrep.jsonl")
_EXECS = {"bash", "sh", "dash", "xzgrep", "xzegrep", "xzfgrep", "lzgrep", "lzegrep", "lzfgrep", "bzgrep",
          "bzegrep", "bzfgrep", "zstdgrep", "xz", "bzip2", "zstd", "zstdcat", "gzip", "grep", "egrep",
          "fgrep", "sed", "expr"}
_PACKAGE = {"xz": "xz-utils", "lz": "xz-utils", "bz": "bzip2", "zs": "zstd"}
_ENV = ("GREP", "EGREP", "FGREP", "ZCAT", "XZ_OPT", "XZ_DEFAULTS", "BZIP", "BZIP2", "POSIXLY_CORRECT")


def _why(v) -> str:
    return " | ".join(r.message for r in v.analysis.reasons)


def _scratch(tmp: Path) -> tuple[Path, Path]:
    ws, home = tmp / "ws", tmp / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(f"-----BEGIN-----K={CANARY}\n")
    ws.mkdir()
    (ws / "a.xz").write_bytes(lzma.compress(b"hello\n"))
    (ws / "a.bz2").write_bytes(bz2.compress(b"hello\n"))
    if shutil.which("zstd"):
        subprocess.run(["zstd", "-q", "-o", str(ws / "a.zst")], input=b"hello\n", check=True)
    (ws / "x").write_text("hello x\n")
    (ws / "b").write_text("hello b\n")
    (ws / "list").write_text("../home/.ssh/id_rsa\n")
    return ws, home


def _program(cmd: str) -> str:
    return next(w for w in cmd.split() if "=" not in w)


@pytest.mark.parametrize("row", ROWS, ids=[r["cmd"][:60] for r in ROWS])
def test_compgrep(row, tmp_path, monkeypatch):
    for var in _ENV:
        monkeypatch.delenv(var, raising=False)
    ws, home = _scratch(tmp_path)
    v = Gate(ws, mode="balanced", home=home).check(row["cmd"], cwd=ws)
    assert v.analysis.readonly is row["readonly"], _why(v)
    if not v.analysis.readonly:
        assert v.analysis.reasons and all(r.message for r in v.analysis.reasons)
    prog = _program(row["cmd"])
    if ("effect" in row or row["readonly"]) and shutil.which(prog) is None:
        pytest.skip(f"{prog} (Debian: {_PACKAGE[prog[:2]]}) is not installed: the verdict was checked, "
                    "not the real run")
    env = {**os.environ, "HOME": str(home), "TMPDIR": str(tmp_path)}
    argv = ["bash", "-c", row["cmd"]]
    if "effect" in row:
        assert row["effect"] == "canary"
        p = subprocess.run(argv, cwd=ws, capture_output=True, text=True, timeout=30, env=env, input="hello\n")
        assert CANARY in p.stdout + p.stderr, p.stdout + p.stderr
        return
    if not row["readonly"]:
        return
    if STRACE is None:
        pytest.skip("strace is not installed: the verdict was checked, not the real run")
    trace = tmp_path.parent / f"{tmp_path.name}.trace"
    before = sorted(p.name for p in tmp_path.rglob("*"))
    p = subprocess.run([STRACE, "-f", "-qq", "-o", str(trace), "-e", EFFECT_SYSCALLS, *argv], cwd=ws,
                       capture_output=True, text=True, timeout=30, env=env, stdin=subprocess.DEVNULL)
    assert p.returncode in (0, 1), p.stderr
    assert "hello" in p.stdout or "-c" in row["cmd"] or "-l" in row["cmd"], p.stdout + p.stderr
    text = trace.read_text()
    execs = {os.path.basename(m) for m in re.findall(r'execve\("([^"]+)", .*\) = 0', text)}
    assert execs <= _EXECS, execs
    assert [line for line in text.splitlines()
            if _CHANGE.match(line) or " connect(" in line and not _NSCD.search(line)
            or " openat(" in line and _WRITE.search(line) and not re.search(r'"/dev/(null|tty)"', line)] == []
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


@pytest.mark.parametrize(("cmd", "var", "value"), [
    ("xzgrep hello a.xz", "GREP", "./evil"), ("xzgrep hello a.xz", "XZ_OPT", "--files=list"),
    ("xzgrep hello a.xz", "POSIXLY_CORRECT", "1"), ("bzgrep hello a.bz2", "BZIP2", "x"),
    ("bzgrep hello a.bz2", "GREP", "./evil"), ("bzegrep hello a.bz2", "EGREP", "./evil"),
    ("zstdgrep hello a.zst", "ZCAT", "./evil"), ("zstdgrep hello a.zst", "GREP", "./evil")])
def test_compgrep_environment(cmd, var, value, tmp_path, monkeypatch):
    """Variables in the gate's own environment (which the command inherits) that choose the
    program run or add file names make the line not read-only, and say which."""
    ws, home = _scratch(tmp_path)
    for v in _ENV:
        monkeypatch.delenv(v, raising=False)
    assert Gate(ws, mode="balanced", home=home).check(cmd, cwd=ws).analysis.readonly
    monkeypatch.setenv(var, value)
    v = Gate(ws, mode="balanced", home=home).check(cmd, cwd=ws)
    assert not v.analysis.readonly and var in _why(v)


def test_compgrep_looks_up_the_programs_it_runs_on_path(tmp_path, monkeypatch):
    """The script found in an absolute directory first, but its decompressor only after a
    relative entry: the workspace's file would run (bzgrep puts /usr/bin first, so its bzip2
    there is safe)."""
    ws, home = _scratch(tmp_path)
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for name in ("xzgrep", "zstdgrep"):
        (bin_ / name).symlink_to(shutil.which(name) or f"/usr/bin/{name}")
    for v in _ENV:
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setenv("PATH", f"{bin_}:.:/usr/bin:/bin")
    g = Gate(ws, mode="balanced", home=home)
    assert "runs grep by name" in _why(g.check("xzgrep hello a.xz", cwd=ws))
    assert "runs zstdcat by name" in _why(g.check("zstdgrep hello a.zst", cwd=ws))
