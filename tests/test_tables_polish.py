"""Read-only tables checked against the real programs: tree's rule files (``--gitignore`` opens a
file operand as a gitignore and reads each listed directory's ``.gitignore``), ss and ip forms
that print events until interrupted, and zcat/gzip with a glob operand (its names, or with no
match the pattern and PATTERN+suffix gzip opens). Each case of corpus/tables_polish.jsonl is
decided in a fresh workspace and HOME, then run for real by bash there, under ``strace -f``
where it reads files (see the corpus file's header for the oracles). A case is skipped, with
the reason, when its program is missing."""

from __future__ import annotations

import gzip
import os
import re
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from conftest import load
from test_readers_strace import STRACE, traced_effects

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

CASES = load("tables_polish.jsonl")
DEADLINE = 2.0   # seconds a "forever" command must outlive; every allowed one ends well before
_OPEN = re.compile(r'openat\((?:AT_FDCWD|\d+), "([^"]+)", (O_RDONLY[^)]*)\) = \d+')
_EXEC = re.compile(r'execve\("[^"]*/([^"/]+)"')


def _ids(case: dict) -> str:
    return case["cmd"][:60]


def _place(ws: Path, home: Path, name: str) -> Path:
    return home / name[2:] if name.startswith("~/") else ws / name


def _setup(tmp: Path, case: dict) -> tuple[Path, Path]:
    """A workspace (a.txt, sub/b) and a HOME holding an SSH key and AWS credentials, then the
    case's own files (gzip-compressed when the name ends in .gz) and links."""
    ws, home = tmp / "ws", tmp / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".aws").mkdir()
    (home / ".ssh" / "id_rsa").write_text("CANARY-ssh-key\n")
    (home / ".aws" / "credentials").write_text("[default]\naws_secret_access_key=CANARY-aws\n")
    (ws / "sub").mkdir(parents=True)
    (ws / "a.txt").write_text("hello\n")
    (ws / "sub" / "b").write_text("b\n")
    for name, text in case.get("files", {}).items():
        path = _place(ws, home, name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(gzip.compress(text.encode()) if name.endswith(".gz") else text.encode())
    for name, target in case.get("links", {}).items():
        path = ws / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(_place(ws, home, target))
    return ws, home


def _programs(case: dict) -> list[str]:
    return [part.split()[0] for part in re.split(r"[|&;]+", case["cmd"]) if part.strip()]


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_verdict(case: dict, tmp_path: Path) -> None:
    ws, home = _setup(tmp_path, case)
    cmd = case["cmd"]
    a = analyse(cmd, Context(cwd=ws, workspace=ws, home=home, terminal=False))
    assert a.readonly == case["readonly"], [r.message for r in a.reasons]
    if not case["readonly"]:
        assert a.reasons and all(r.message for r in a.reasons)
    if "word" in case:   # the refusal points at the word that made it so
        spans = [cmd[r.span[0]:r.span[1]] for r in a.reasons if r.span is not None]
        assert case["word"] in spans, [(r.message, r.span) for r in a.reasons]


def _run_forever(cmd: str, ws: Path, env: dict[str, str]) -> bool:
    """Whether ``cmd`` still runs after DEADLINE (then its process group is killed and reaped)."""
    proc = subprocess.Popen(["bash", "-c", cmd], cwd=ws, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        proc.wait(timeout=DEADLINE)
        return False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return True


def _opened(trace: str, ws: Path) -> set[str]:
    """The realpaths of the files opened for reading (not as directories) in a strace log."""
    return {os.path.realpath(ws / m.group(1)) for m in _OPEN.finditer(trace)
            if "O_DIRECTORY" not in m.group(2)}


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_real_program(case: dict, tmp_path: Path) -> None:
    """The oracle: what the command really opens, prints and does, and whether it ends."""
    missing = [p for p in _programs(case) if shutil.which(p) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")
    ws, home = _setup(tmp_path, case)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LC_ALL": "C"}
    if "forever" in case:
        assert _run_forever(case["cmd"], ws, env) == case["forever"]
    if "opens" not in case and "leak" not in case and "hides" not in case:
        return
    if STRACE is None:
        pytest.skip("strace is not installed")
    trace = tmp_path / "trace"
    effects = traced_effects(["bash", "-c", case["cmd"]], "bash", trace, cwd=ws, env=env)
    run = subprocess.run(["bash", "-c", case["cmd"]], cwd=ws, env=env, capture_output=True, text=True,
                         timeout=30, stdin=subprocess.DEVNULL)
    printed = run.stdout + run.stderr
    opened = _opened(trace.read_text(), ws)
    if "leak" in case:
        assert case["leak"] in printed, printed
    if "hides" in case:
        assert _place(ws, home, case["hides"]).exists() or (ws / "d" / case["hides"]).exists()
        assert case["hides"] not in run.stdout, run.stdout
    if case["readonly"]:
        secrets = {str(home / ".ssh"), str(home / ".aws")}
        assert not [p for p in opened if any(p.startswith(s + "/") for s in secrets)], opened
        assert "CANARY" not in printed, printed
        runs = {"bash", *case.get("runs", _programs(case))}
        assert [e for e in effects if (m := _EXEC.search(e)) is None or m.group(1) not in runs] == []
    else:
        wanted = {os.path.realpath(_place(ws, home, name)) for name in case.get("opens", ())}
        assert wanted <= opened, (wanted, opened)


def test_a_glob_with_a_suffix_holding_glob_characters_is_refused(tmp_path: Path) -> None:
    """`zcat -S '[x]' *R1*`: with no match gzip opens `*R1*[x]`, a literal name that the glob
    `*R1*[x]` does not match (it matches `*R1*x`): the two cannot be checked as one glob, so
    the glob word is refused with its span."""
    ws = tmp_path / "ws"
    ws.mkdir()
    cmd = "zcat -S '[x]' *R1*"
    a = analyse(cmd, Context(cwd=ws, workspace=ws, home=tmp_path / "home", terminal=False))
    assert not a.readonly
    assert any(r.span is not None and cmd[r.span[0]:r.span[1]] == "*R1*" and "suffix" in r.message
               for r in a.reasons), a.reasons
