"""Read-only forms added in the widen2 round of #17, each checked by the gate and run for real.

* ``… | xargs du …`` on names ``paths/xargsnames.py`` proves plain (``corpus/widen2_xargs_du.jsonl``):
  the read-only rows run under ``strace -f``, where du opens nothing but directories and nothing
  writes; rows with an ``effect`` print the canary for real (the refusal is needed).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess

import pytest
from conftest import load
from test_xargs_names import CANARY, _tree

from shellgate import Gate

STRACE = shutil.which("strace")
DU_ROWS = load("widen2_xargs_du.jsonl")
_OPEN = re.compile(r'^(\d+) openat\([^,]+, "([^"]*)", ([A-Z_|]+)')
_WRITE = re.compile(r"O_(WRONLY|RDWR|CREAT|TRUNC)")
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
