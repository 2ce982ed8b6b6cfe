"""Configuration files the read-only tables' programs read at every run (dpkg, apt, getent and
lsof through NSS, nm/objdump through BFD, tshark) are implants for writes: corpus/implant_configs.jsonl.
Each line's program is run under strace in a scratch HOME to show it really opens the file (or
its directory); then a write of the file (bash redirect, the Write tool) is an implant hit naming
it, and a read is none."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context, PathClass, PathOp
from shellgate.bash.paths import resolve

CASES = load("implant_configs.jsonl")


def _ctx(tmp: Path) -> Context:
    (tmp / "ws").mkdir(exist_ok=True)
    (tmp / "home").mkdir(exist_ok=True)
    return Context(cwd=tmp / "ws", workspace=tmp / "ws", home=tmp / "home")


def _path(text: str, ctx: Context) -> str:
    return str(ctx.home) + text[1:] if text.startswith("~") else text


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['file']}-{c['argv'][0]}")
def test_program_reads_it(case: dict, tmp_path: Path) -> None:
    """The effect: the program opens the file (or lists its directory) at every run."""
    for program in ("strace", case["argv"][0]):
        if shutil.which(program) is None:
            pytest.skip(f"{program} is not installed")
    ctx = _ctx(tmp_path)
    (tmp_path / "t.txt").write_text("not an object\n")
    argv = [str(tmp_path / "t.txt") if a == "@" else a for a in case["argv"]]
    trace = tmp_path / "trace"
    subprocess.run(["strace", "-f", "-qq", "-o", str(trace), "-e", "trace=openat,open,newfstatat,stat",
                    *argv], capture_output=True, timeout=60, stdin=subprocess.DEVNULL, cwd=ctx.workspace,
                   env={"PATH": os.environ["PATH"], "HOME": str(ctx.home), "LC_ALL": "C"})
    opened = _path(case.get("opened", case["file"]), ctx)   # nm: /usr/bin/../bin/../lib/bfd-plugins
    assert opened in trace.read_text(), opened


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['file']}-{c['argv'][0]}")
def test_write_is_an_implant(case: dict, tmp_path: Path) -> None:
    ctx = _ctx(tmp_path)
    path = _path(case["file"], ctx)
    hit = resolve.check_path(path, PathOp.WRITE, ctx)
    assert hit is not None and hit.cls is PathClass.IMPLANT, hit
    assert resolve.check_path(path, PathOp.READ, ctx) is None
    a = analyse(f"echo x >> {case['file']}", ctx)
    assert f"writes a sensitive path: {path} (implant)" in [r.message for r in a.reasons], a.reasons
    assert analyse(f"cat {case['file']}", ctx).readonly
