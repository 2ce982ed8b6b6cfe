"""Red-team findings against the read-only tables of binutils (follow-links settings read in
order; names xargs appends checked for thin archives), gzip (the names it tries when one is
missing) and jq (``~/.jq``), each shown with the real program.

``corpus/red3_tables.jsonl``: each line is decided in one planted tree (its header says what is
there); a "leak" line really prints a canary of HOME, the workspace or the environment, an
"opens" line really opens the named file, and every read-only line runs under ``strace -f``
with no effect (``test_readers_strace._effects``) and prints no canary. Skipped, with the
reason, where a program is missing.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from conftest import load
from test_readers_strace import EFFECT_SYSCALLS, STRACE, _effects

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

CASES = load("red3_tables.jsonl")
CANARY = "CANARY-"
LINKED = b"line1\nCANARY-linked\nline3\n"


def _ar_header(name: str, size: int) -> bytes:
    return f"{name:<16}{'0':<12}{'0':<6}{'0':<6}{'644':<8}{size:<10}`\n".encode()


def _plant(base: Path) -> tuple[Path, Path]:
    ws, home = base / "ws", base / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".aws").mkdir()
    (home / ".ssh" / "id_rsa").write_text("CANARY-ssh-key\n")
    (home / ".aws" / "credentials").write_text("[default]\naws_secret_access_key=CANARY-aws\n")
    (ws / "linked").mkdir(parents=True)
    (ws / ".env").write_text("API_KEY=CANARY-env\n")
    (ws / "p.json").write_text('{"a": 1}\n')
    (ws / "linked" / "k").write_bytes(LINKED)
    # prog: an ELF whose .gnu_debuglink names linked/k (readelf/objdump follow it to check its CRC)
    shutil.copy("/bin/true", ws / "plain")
    name = b"linked/k\0"
    name += b"\0" * (-len(name) % 4)
    (ws / "dl.bin").write_bytes(name + struct.pack("<I", zlib.crc32(LINKED)))
    if shutil.which("objcopy"):
        subprocess.run(["objcopy", "--remove-section=.gnu_debuglink", "--add-section",
                        ".gnu_debuglink=dl.bin", "plain", "prog"], cwd=ws, check=True)
    else:
        shutil.copy(ws / "plain", ws / "prog")
    # objs/thin.a: a thin archive naming ../linked/k; objs2/p.o: a plain ELF
    (ws / "objs").mkdir()
    table = b"../linked/k/\n"
    table += b"\n" if len(table) & 1 else b""
    (ws / "objs" / "thin.a").write_bytes(b"!<thin>\n" + _ar_header("//", len(table)) + table
                                         + _ar_header("/0", len(LINKED)))
    (ws / "objs2").mkdir()
    shutil.copy(ws / "plain", ws / "objs2" / "p.o")
    return ws, home


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    return _plant(tmp_path)


def _with_jqrc(case: dict, home: Path) -> None:
    if "jqrc" in case:
        (home / ".jq").write_text(case["jqrc"])


@pytest.mark.parametrize("case", CASES, ids=lambda c: (c["cmd"] + (" ~/.jq" if "jqrc" in c else ""))[:70])
def test_verdict(case: dict, tree: tuple[Path, Path]) -> None:
    ws, home = tree
    _with_jqrc(case, home)
    cmd = case["cmd"]
    a = analyse(cmd, Context(cwd=ws, workspace=ws, home=home, terminal=False))
    assert a.readonly == case["readonly"], [r.message for r in a.reasons]
    if not case["readonly"]:
        words = {cmd[r.span[0]:r.span[1]] for r in a.reasons if r.span is not None}
        assert any(case["word"] in w for w in words), ([r.message for r in a.reasons], words)


def _programs(cmd: str) -> list[str]:
    """The programs a line runs (each stage's first word; xargs's command too)."""
    out = []
    for stage in cmd.split("|"):
        words = stage.split()
        out.append(words[0])
        if words[0] == "xargs":
            out.append(next(w for w in words[1:] if not w.startswith("-")))
    return out


@pytest.mark.parametrize("case", CASES, ids=lambda c: (c["cmd"] + (" ~/.jq" if "jqrc" in c else ""))[:70])
def test_real_program(case: dict, tree: tuple[Path, Path]) -> None:
    """The oracle: what the programs really do in the planted tree."""
    ws, home = tree
    cmd = case["cmd"]
    missing = [p for p in _programs(cmd) if shutil.which(p) is None]
    if missing:
        pytest.skip(f"{missing[0]} is not installed")
    if STRACE is None:
        pytest.skip("strace is not installed")
    if " prog" in cmd and shutil.which("objcopy") is None:
        pytest.skip("objcopy is not installed (prog gets no .gnu_debuglink)")
    _with_jqrc(case, home)
    trace = ws.parent / "trace"
    env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "HOME": str(home), "LC_ALL": "C",
           "AWS_SECRET_ACCESS_KEY": "CANARY-envvar"}
    run = subprocess.run([STRACE, "-f", "-qq", "-o", str(trace), "-e", EFFECT_SYSCALLS, "bash", "-c", cmd],
                         cwd=ws, env=env, capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL)
    printed = CANARY in run.stdout + run.stderr
    assert printed == bool(case.get("leak")), run.stdout + run.stderr
    lines = trace.read_text().splitlines()[1:]   # the first is strace's own bash
    opened = [ln for ln in lines if "openat(" in ln and case.get("opens", "\0") in ln and "ENOENT" not in ln]
    if "opens" in case:
        assert opened, "\n".join(lines)
    if case["readonly"]:
        ran = (*_programs(cmd), "gzip")   # zcat and gunzip are scripts running gzip
        effects = [e for e in _effects("\n".join(lines), _programs(cmd)[0])
                   if not any(f'execve("/usr/bin/{p}"' in e or f'execve("/bin/{p}"' in e for p in ran)]
        assert effects == [] and not [ln for ln in lines if "linked/k" in ln and "openat(" in ln]
