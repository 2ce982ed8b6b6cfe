"""Read-only forms added in the widen2 round of #17, each checked by the gate and run for real.

* ``… | xargs du …`` on names ``paths/xargsnames.py`` proves plain (``corpus/widen2_xargs_du.jsonl``):
  the read-only rows run under ``strace -f``, where du opens nothing but directories and nothing
  writes; rows with an ``effect`` print the canary for real (the refusal is needed).
* ``zgrep``/``zegrep``/``zfgrep`` (``commands/zgrep.py``, ``corpus/widen2_zgrep.jsonl``): the
  read-only rows run under ``strace -f`` (only the script's own programs run, nothing is
  written); refused rows with an ``effect`` do it for real.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load
from test_readers_strace import _CHANGE, _NSCD, _WRITE, EFFECT_SYSCALLS
from test_xargs_names import CANARY, _tree

from shellgate import Gate

STRACE = shutil.which("strace")
DU_ROWS = load("widen2_xargs_du.jsonl")
_OPEN = re.compile(r'^(\d+) openat\([^,]+, "([^"]*)", ([A-Z_|]+)')
_SYSTEM = ("/proc/", "/usr/", "/lib", "/etc/")   # the loader, locales, /proc/self/fd


def _du_opens(trace: str) -> list[str]:
    """The files du opened other than as directories, and any open for writing, in ``trace``."""
    du = {line.split()[0] for line in trace.splitlines() if re.search(r'execve\("[^"]*/du"', line)}
    out = []
    for line in trace.splitlines():
        m = _OPEN.match(line)
        if not m or m.group(2) in ("/dev/null", "/dev/tty") or m.group(2).startswith(_SYSTEM):
            continue
        if _WRITE.search(m.group(3)) or m.group(1) in du and "O_DIRECTORY" not in m.group(3):
            out.append(line)
    return out


@pytest.mark.parametrize("row", DU_ROWS, ids=[r["cmd"][:60] for r in DU_ROWS])
def test_xargs_du(row, tmp_path):
    ws, home = _tree(tmp_path, row["files"], row)
    v = Gate(ws, mode="balanced", home=home).check(row["cmd"], cwd=ws)
    assert v.analysis.readonly is row["readonly"], v.reason
    env = {**os.environ, "HOME": str(home)}
    if "effect" in row:
        assert row["effect"] == "canary"
        p = subprocess.run(["bash", "-c", row["cmd"]], cwd=ws, capture_output=True, text=True, timeout=30,
                           env=env)
        assert CANARY in p.stdout + p.stderr, p.stdout + p.stderr
        return
    if not row["readonly"]:
        return
    if STRACE is None:
        pytest.skip("strace is not installed: the verdict was checked, not the real run")
    trace = tmp_path / "trace"
    p = subprocess.run([STRACE, "-f", "-qq", "-o", str(trace), "-e", "trace=execve,openat", "bash", "-c",
                        row["cmd"]], cwd=ws, capture_output=True, text=True, timeout=30, env=env)
    assert p.returncode == 0, p.stderr
    assert "du" in p.stderr + trace.read_text()
    assert _du_opens(trace.read_text()) == []


# zgrep (commands/zgrep.py): what gzip 1.12's script runs, by name on PATH
ZGREP_ROWS = load("widen2_zgrep.jsonl")
_ZGREP_EXECS = {"bash", "zgrep", "zegrep", "zfgrep", "gzip", "grep", "expr", "sed"}


def _why(v) -> str:
    return " | ".join(r.message for r in v.analysis.reasons)


def _zgrep_scratch(tmp: Path) -> tuple[Path, Path]:
    ws, home = tmp / "ws", tmp / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(f"K={CANARY}\n")
    ws.mkdir()
    (ws / "a.gz").write_bytes(gzip.compress(b"hello\nworld\n"))
    (ws / "b").write_text("hello b\n")
    (ws / "notes.txt").write_text("Keep this\n")
    (ws / "pat.txt").write_text("hello\n")
    (ws / "evil").write_text("#!/bin/sh\necho ran > ran.txt\n")
    (ws / "evil").chmod(0o755)
    (tmp / "tmp").mkdir()
    return ws, home


@pytest.mark.parametrize("row", ZGREP_ROWS, ids=[r["cmd"][:60] for r in ZGREP_ROWS])
def test_zgrep(row, tmp_path, monkeypatch):
    monkeypatch.delenv("GREP", raising=False)
    monkeypatch.delenv("POSIXLY_CORRECT", raising=False)
    ws, home = _zgrep_scratch(tmp_path)
    v = Gate(ws, mode="balanced", home=home).check(row["cmd"], cwd=ws)
    assert v.analysis.readonly is row["readonly"], v.reason
    env = {**os.environ, "HOME": str(home), "TMPDIR": str(tmp_path / "tmp")}
    argv = ["bash", "-c", row["cmd"]]
    if ("effect" in row or row["readonly"]) and shutil.which("zgrep") is None:
        pytest.skip("zgrep (Debian: gzip) is not installed: the verdict was checked, not the real run")
    if "effect" in row:
        p = subprocess.run(argv, cwd=ws, capture_output=True, text=True, timeout=30, env=env,
                           input="hello\n")
        if row["effect"] == "canary":
            assert CANARY in p.stdout + p.stderr, p.stdout + p.stderr
        elif row["effect"] == "runs":
            assert (ws / "ran.txt").exists(), p.stdout + p.stderr
        else:
            assert row["effect"] == "tmpfile"
            trace = tmp_path / "trace"
            subprocess.run([STRACE or "strace", "-f", "-qq", "-o", str(trace), "-e", "trace=openat,unlink",
                            *argv], cwd=ws, capture_output=True, timeout=30, env=env, input=b"hello\n")
            assert re.search(rf'"{re.escape(str(tmp_path / "tmp"))}/zgrep\w+", O_RDWR\|O_CREAT',
                             trace.read_text())
        return
    if not row["readonly"]:
        return
    if STRACE is None:
        pytest.skip("strace is not installed: the verdict was checked, not the real run")
    trace = tmp_path / "trace"
    before = sorted(p.name for p in ws.iterdir())
    p = subprocess.run([STRACE, "-f", "-qq", "-o", str(trace), "-e", EFFECT_SYSCALLS, *argv], cwd=ws,
                       capture_output=True, text=True, timeout=30, env=env, stdin=subprocess.DEVNULL)
    assert p.returncode in (0, 1), p.stderr
    text = trace.read_text()
    execs = {os.path.basename(m) for m in re.findall(r'execve\("([^"]+)", .*\) = 0', text)}
    assert execs <= _ZGREP_EXECS, execs
    assert [line for line in text.splitlines()
            if _CHANGE.match(line) or " connect(" in line and not _NSCD.search(line)
            or " openat(" in line and _WRITE.search(line) and not re.search(r'"/dev/(null|tty)"', line)] == []
    assert sorted(p.name for p in ws.iterdir()) == before and not any((tmp_path / "tmp").iterdir())


def test_zgrep_refuses_a_grep_program_in_the_environment(tmp_path, monkeypatch):
    """``GREP`` is put through ``eval`` as the grep program: in the gate's own environment
    (which the command inherits) it makes zgrep not read-only."""
    ws, home = _zgrep_scratch(tmp_path)
    monkeypatch.delenv("POSIXLY_CORRECT", raising=False)
    monkeypatch.setenv("GREP", "./evil")
    v = Gate(ws, mode="balanced", home=home).check("zgrep hello a.gz", cwd=ws)
    assert not v.analysis.readonly and "GREP" in _why(v)
    if shutil.which("zgrep"):
        subprocess.run(["zgrep", "hello", "a.gz"], cwd=ws, capture_output=True, timeout=30)
        assert (ws / "ran.txt").exists()
    monkeypatch.delenv("GREP")
    monkeypatch.setenv("POSIXLY_CORRECT", "1")
    v = Gate(ws, mode="balanced", home=home).check("zgrep hello a.gz", cwd=ws)
    assert not v.analysis.readonly and "POSIXLY_CORRECT" in _why(v)


def test_zgrep_looks_up_the_programs_it_runs_on_path(tmp_path, monkeypatch):
    """zgrep found in an absolute directory first, but gzip only after a relative entry: the
    script's ``gzip`` would be the workspace's file."""
    ws, home = _zgrep_scratch(tmp_path)
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "zgrep").symlink_to(shutil.which("zgrep") or "/usr/bin/zgrep")
    monkeypatch.delenv("GREP", raising=False)
    monkeypatch.delenv("POSIXLY_CORRECT", raising=False)
    monkeypatch.setenv("PATH", f"{bin_}:.:/usr/bin:/bin")
    v = Gate(ws, mode="balanced", home=home).check("zgrep hello a.gz", cwd=ws)
    assert not v.analysis.readonly and "runs gzip by name" in _why(v)
