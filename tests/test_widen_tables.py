"""The readers #17 added in ``shellgate/bash/commands/coreextra.py`` and ``kernelstats.py``.

``corpus/widen_tables.jsonl`` is the table: every line is classified in a scratch workspace;
a refused line's reason must point at the word that made it so. Every read-only line marked
``probe`` runs for real under ``strace -f`` (``test_readers_strace._effects``): only the
program itself runs, nothing is opened to write, made or removed, no socket connected. The
refusals cheap to show are shown doing what they say (``tput init`` runs the terminfo entry's
``iprog``, ``pidstat -e`` runs its program, ``lspci -q`` opens a socket). Skipped, with the
reason, where strace or the program is missing (Debian: sysstat, pciutils, ncurses-bin,
bsdutils for ``script``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load
from test_readers_strace import EFFECT_SYSCALLS, _effects

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

CASES = load("widen_tables.jsonl")
PROBES = [c["cmd"] for c in CASES if c.get("probe")]
STRACE = shutil.which("strace")


def _world(base: Path) -> tuple[Path, Path]:
    ws, home = base / "ws", base / "home"
    for d in (ws, home):
        d.mkdir(exist_ok=True)
    (ws / "a").write_text("1000\n2048\n")
    (ws / "deps.txt").write_text("a b\nb c\n")
    return ws, home


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "TERM": "xterm"}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:60])
def test_verdict(case: dict, tmp_path: Path) -> None:
    ws, home = _world(tmp_path)
    a = analyse(case["cmd"], Context(cwd=ws, workspace=ws, home=home))
    assert a.readonly == case["readonly"], [r.message for r in a.reasons]
    if not case["readonly"]:
        hits = [r for r in a.reasons if case["why"] in r.message]
        assert hits, [r.message for r in a.reasons]
        assert any(r.span and case["cmd"][r.span[0]:r.span[1]] == case["word"] for r in hits), \
            [(r.message, r.span) for r in hits]


def _traced(cmd: str, ws: Path, home: Path, trace: Path) -> list[str]:
    subprocess.run([STRACE, "-f", "-qq", "-o", str(trace), "-e", EFFECT_SYSCALLS, "bash", "-c", cmd],
                   cwd=ws, capture_output=True, timeout=60, stdin=subprocess.DEVNULL, env=_env(home))
    lines = trace.read_text().splitlines()
    return _effects("\n".join(lines[1:]), cmd.split()[0])   # the first is strace's own bash


@pytest.mark.skipif(STRACE is None, reason="strace is not installed")
@pytest.mark.parametrize("cmd", PROBES)
def test_probe_only_reads(cmd: str, tmp_path: Path) -> None:
    if shutil.which(cmd.split()[0]) is None:
        pytest.skip(f"{cmd.split()[0]} is not installed")
    ws, home = _world(tmp_path)
    assert _traced(cmd, ws, home, tmp_path / "trace") == []
    assert sorted(p.name for p in ws.iterdir()) == ["a", "deps.txt"]
    assert list(home.iterdir()) == []


@pytest.mark.skipif(STRACE is None or shutil.which("sysctl") is None, reason="strace or sysctl missing")
def test_sysctl_name_cannot_climb_out_of_proc_sys(tmp_path: Path) -> None:
    """sysctl swaps a name's dots and slashes: ``../../../etc/passwd`` is no path to that file."""
    trace = tmp_path / "trace"
    subprocess.run([STRACE, "-f", "-qq", "-o", str(trace), "-e", "trace=openat,newfstatat,stat",
                    "sysctl", "-n", "../../../etc/passwd"], capture_output=True, timeout=30)
    assert "/etc/passwd" not in trace.read_text()


@pytest.mark.skipif(not (shutil.which("tput") and shutil.which("tic") and shutil.which("script")),
                    reason="tput, tic or script (bsdutils) is not installed")
@pytest.mark.parametrize("cmd", ["tput init", "tput reset", "tput -S <<< init"])
def test_tput_init_runs_the_entrys_program(cmd: str, tmp_path: Path) -> None:
    """An entry in ~/.terminfo (the agent's to write) names a program as iprog; on a terminal
    ``tput init``/``reset`` (and ``-S`` fed ``init``) runs it. ``tput cols`` does not."""
    home = tmp_path / "home"
    home.mkdir()
    ran = tmp_path / "RAN"
    prog = tmp_path / "prog"
    prog.write_text(f"#!/bin/sh\ntouch {ran}\n")
    prog.chmod(0o755)
    (tmp_path / "evil.src").write_text(f"evil|evil term,\n\tcols#80, iprog={prog}, clear=\\E[H,\n")
    subprocess.run(["tic", "-o", str(home / ".terminfo"), str(tmp_path / "evil.src")], check=True,
                   capture_output=True)
    # script runs the line with $SHELL, /bin/sh when unset (as under CI): `<<<` needs bash.
    env = {**os.environ, "HOME": str(home), "TERM": "evil", "SHELL": shutil.which("bash") or "/bin/bash"}
    env.pop("TERMINFO", None)
    subprocess.run(["script", "-qec", "tput cols; tput clear", "/dev/null"], env=env, capture_output=True,
                   timeout=30, cwd=tmp_path)
    assert not ran.exists()
    subprocess.run(["script", "-qec", cmd, "/dev/null"], env=env, capture_output=True, timeout=30,
                   cwd=tmp_path)
    assert ran.exists()


@pytest.mark.skipif(shutil.which("pidstat") is None, reason="pidstat (sysstat) is not installed")
def test_pidstat_e_runs_its_program(tmp_path: Path) -> None:
    """The program runs at once; pidstat may then wait for a SIGCHLD that came before it
    paused (seen once: a hang), so the wait is cut short and only the file is looked at."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        subprocess.run(["pidstat", "-e", "touch", "made"], cwd=tmp_path, capture_output=True, timeout=5)
    assert (tmp_path / "made").exists()


@pytest.mark.skipif(STRACE is None or shutil.which("lspci") is None, reason="strace or lspci missing")
def test_lspci_q_asks_dns(tmp_path: Path) -> None:
    """``-q`` looks unknown IDs up over DNS: with an ID database that knows none, lspci sends a
    resolver query (port 53) and opens its cache in HOME."""
    ids = tmp_path / "empty.ids"
    ids.write_text("# empty\n")
    trace = tmp_path / "trace"
    subprocess.run([STRACE, "-f", "-qq", "-o", str(trace), "-e", "trace=socket,connect,openat", "lspci",
                    "-q", "-i", str(ids)], capture_output=True, timeout=60,
                   env={**os.environ, "HOME": str(tmp_path)})
    if not subprocess.run(["lspci", "-n"], capture_output=True, text=True, timeout=30).stdout.strip():
        pytest.skip("this machine shows lspci no PCI device to look up")
    text = trace.read_text()
    assert "htons(53)" in text and ".pciids-cache" in text   # a DNS query; its cache, in HOME


@pytest.mark.skipif(STRACE is None or shutil.which("lsattr") is None, reason="strace or lsattr missing")
def test_lsattr_does_not_open_a_fifo_or_device(tmp_path: Path) -> None:
    """lsattr opens a file to ask its flags; a FIFO (a writer could be waiting) or a device
    (a tape rewinds on close) is checked by type first and never opened."""
    (tmp_path / "d").mkdir()
    os.mkfifo(tmp_path / "d" / "f")
    (tmp_path / "d" / "r").write_text("x\n")
    trace = tmp_path / "trace"
    subprocess.run([STRACE, "-f", "-qq", "-o", str(trace), "-e", "trace=openat", "lsattr", "-R", "-a", "d",
                    "/dev/null"], cwd=tmp_path, capture_output=True, timeout=30)
    text = trace.read_text()
    assert '"d/r"' in text
    assert '"d/f"' not in text and '"/dev/null"' not in text
