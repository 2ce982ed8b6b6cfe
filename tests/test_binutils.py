"""readelf, objdump, nm, size, c++filt and addr2line (``shellgate/bash/commands/binutils.py``).

``corpus/binutils.jsonl`` is the table: every line is classified in a workspace holding the
fixtures below; every read-only line marked ``probe`` is run for real under ``strace -f`` and
must open nothing a file names inside itself (``linked/``), write, exec or connect. The refused
forms found by measurement are shown doing what the refusal says (they open ``linked/k``, or
print its lines). Skipped (with the reason) where binutils, gcc or strace is missing.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest
from conftest import load
from test_readers_strace import _effects

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

CASES = load("binutils.jsonl")
PROBES = [c["cmd"] for c in CASES if c.get("probe")]
STRACE = shutil.which("strace")
SECRET = b"line1\nSECRET-LINE-2\nline3\n"


def _ar_header(name: str, size: int) -> bytes:
    return f"{name:<16}{'0':<12}{'0':<6}{'0':<6}{'644':<8}{size:<10}`\n".encode()


def _archive(members: list[tuple[str, bytes]]) -> bytes:
    out = b"!<arch>\n"
    for name, data in members:
        out += _ar_header(name + "/", len(data)) + data + (b"\n" if len(data) & 1 else b"")
    return out


def _thin(member: str, size: int) -> bytes:
    """A GNU thin archive naming ``member`` (its data stays in that file)."""
    table = (member + "/\n").encode()
    table += b"\n" if len(table) & 1 else b""
    return b"!<thin>\n" + _ar_header("//", len(table)) + table + _ar_header("/0", size)


def _tool(name: str) -> bool:
    return shutil.which(name) is not None


def _make_prog(ws: Path) -> None:
    """``prog``: an ELF with debug info whose .gnu_debuglink and .gnu_debugaltlink name
    ``linked/k``; ``stripped``: the same without debug info (BFD then follows the link);
    ``src.o``: an object whose DWARF names ``linked/k`` as its source file."""
    (ws / "t.c").write_text("int foo(int x) { return x + 1; }\nint main(void) { return foo(0); }\n")
    if _tool("gcc"):
        subprocess.run(["gcc", "-g", "-o", "plain", "t.c"], cwd=ws, check=True)
    else:
        shutil.copy("/bin/true", ws / "plain")
    name = b"linked/k\0"
    name += b"\0" * (-len(name) % 4)
    (ws / "dl.bin").write_bytes(name + struct.pack("<I", zlib.crc32(SECRET)))
    (ws / "alt.bin").write_bytes(str(ws / "linked" / "k").encode() + b"\0" + b"\x11" * 20)
    subprocess.run(["objcopy", "--add-section", ".gnu_debuglink=dl.bin", "--add-section",
                    ".gnu_debugaltlink=alt.bin", "plain", "prog"], cwd=ws, check=True)
    subprocess.run(["objcopy", "--strip-debug", "--add-section", ".gnu_debuglink=dl.bin", "plain",
                    "stripped"], cwd=ws, check=True)
    if _tool("gcc"):
        # the DWARF names /ws/linked/k as the file compiled (its line 2 holds the function)
        (ws / "src").mkdir()
        (ws / "src" / "k").write_text("\nint f(int x) { return x * 3; }\n")
        subprocess.run(["gcc", "-g", "-c", "-x", "c", str(ws / "src" / "k"),
                        f"-fdebug-prefix-map={ws / 'src'}={ws / 'linked'}", "-o", "src.o"],
                       cwd=ws, check=True)


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("binutils")
    ws = base / "ws"
    (ws / "linked").mkdir(parents=True)
    (base / "home").mkdir()
    (ws / "linked" / "k").write_bytes(SECRET)
    if _tool("objcopy"):
        _make_prog(ws)
    else:
        shutil.copy("/bin/true", ws / "prog")
    (ws / "lib.a").write_bytes(_archive([("prog", (ws / "prog").read_bytes())]))
    (ws / "thin.a").write_bytes(_thin("linked/k", len(SECRET)))
    (ws / "outer.a").write_bytes(_archive([("thin.a", (ws / "thin.a").read_bytes())]))
    (ws / "args").write_text("-S\n")
    return ws


def _ctx(ws: Path) -> Context:
    return Context(cwd=ws, workspace=ws, home=ws.parent / "home")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:60])
def test_verdict(case: dict, ws: Path) -> None:
    a = analyse(case["cmd"], _ctx(ws))
    if case["readonly"]:
        assert a.readonly, [r.message for r in a.reasons]
        return
    assert not a.readonly
    words = {case["cmd"][r.span[0]:r.span[1]] for r in a.reasons if r.span is not None}
    assert any(case["word"] in w for w in words), ([r.message for r in a.reasons], words)


def _trace(cmd: str, ws: Path) -> tuple[str, str]:
    out = ws.parent / "trace"
    run = subprocess.run(
        [STRACE, "-f", "-qq", "-o", str(out), "-e",
         "trace=execve,openat,open,stat,newfstatat,statx,access,creat,mkdir,mkdirat,unlink,unlinkat,"
         "rename,renameat,renameat2,rmdir,link,linkat,symlink,symlinkat,chmod,fchmodat,utimensat,connect",
         "bash", "-c", cmd], cwd=ws, capture_output=True, text=True, timeout=60,
        env={"PATH": "/usr/bin:/bin", "HOME": str(ws.parent / "home"), "LC_ALL": "C"})
    lines = out.read_text().splitlines()
    return "\n".join(lines[1:]), run.stdout   # the first is strace's own bash


def _need_tools() -> None:
    if STRACE is None:
        pytest.skip("strace is not installed")
    for t in ("readelf", "objdump", "nm", "size", "c++filt", "addr2line", "objcopy"):
        if not _tool(t):
            pytest.skip(f"{t} (binutils) is not installed")


@pytest.mark.parametrize("cmd", PROBES)
def test_probe_reads_only_its_operands(cmd: str, ws: Path) -> None:
    _need_tools()
    trace, _ = _trace(cmd, ws)
    assert _effects(trace, cmd.split()[0]) == []
    assert [ln for ln in trace.splitlines() if "linked/" in ln] == []


# Refused forms, doing what their refusal says: they open linked/k, named inside the file.
OPENS_LINKED = [
    "readelf -wi prog", "readelf --debug-dump=links prog", "readelf -wN -wK -wi prog",
    "readelf -P -h prog", "objdump -Wi prog", "objdump -g prog", "objdump -e prog", "objdump -L -d prog",
    "objdump -d -l stripped", "objdump -d -l -WN stripped", "nm -l stripped", "addr2line -e stripped 0x1139",
    "nm thin.a", "size thin.a", "readelf -h thin.a", "objdump -x outer.a",
]


@pytest.mark.parametrize("cmd", OPENS_LINKED)
def test_refused_form_opens_the_linked_file(cmd: str, ws: Path) -> None:
    _need_tools()
    assert not analyse(cmd, _ctx(ws)).readonly
    trace, _ = _trace(cmd, ws)
    assert [ln for ln in trace.splitlines() if "linked/k" in ln and ("open" in ln or "stat" in ln)]


@pytest.mark.parametrize("cmd", ["objdump -d -S src.o", "objdump -d -S -WN src.o"])
def test_source_prints_a_file_named_in_the_dwarf(cmd: str, ws: Path) -> None:
    _need_tools()
    if not (ws / "src.o").exists():
        pytest.skip("gcc is not installed")
    assert not analyse(cmd, _ctx(ws)).readonly
    _, stdout = _trace(cmd, ws)
    assert "SECRET-LINE-2" in stdout


def test_response_file_turns_on_source(ws: Path) -> None:
    """``@args`` holds ``-S``: binutils reads it as options (expandargv)."""
    _need_tools()
    if not (ws / "src.o").exists():
        pytest.skip("gcc is not installed")
    _, stdout = _trace("objdump -d @args src.o", ws)
    assert "SECRET-LINE-2" in stdout
