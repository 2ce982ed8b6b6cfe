"""Red-team findings against the tables of binutils, dpkg/dpkg-query, the nsswitch.conf reader
and rg's hidden-entry rule, each shown with the real program.

* ``corpus/red2.jsonl``: each line is decided in one planted tree (its header says what is
  there); a "leak" line really prints a canary of HOME or the workspace, an "opens" line really
  opens a file named inside its operand, and every read-only line runs under ``strace -f``
  with no effect (``test_readers_strace._effects``).
* ``corpus/red2_rg.jsonl``: git's global excludes file as rg 13 finds it, run through
  ``tests/test_rg_hidden.py``'s oracle (rg prints the canary iff the line says "leak").
* nsswitch.conf files that glibc reads otherwise than the old reader did: ``getent hosts``
  runs in a private mount namespace with each file bound over /etc/nsswitch.conf, and a
  DNS query (a connect to port 53) happens exactly where ``nss.remote`` says the lookup may
  leave the machine (or, for the fail-closed cases, at least never where it says local).
Skipped, with the reason, where a program (or unshare, for the nsswitch.conf oracle) is missing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load
from test_readers_strace import EFFECT_SYSCALLS, STRACE, _effects
from test_rg_hidden import test_real_rg as _rg_oracle
from test_rg_hidden import test_verdict as _rg_verdict

from shellgate.bash.analysis import analyse
from shellgate.bash.commands import binutils, nss
from shellgate.bash.facts import Context

CASES = load("red2.jsonl")
RG_CASES = load("red2_rg.jsonl")
CANARY = "CANARY-"
_PKG = ("Package: x\nStatus: install ok installed\nVersion: 1\nArchitecture: all\nMaintainer: a\n"
        "Description: b\n\n")


def _ar_header(name: str, size: str | int) -> bytes:
    return f"{name:<16}{'0':<12}{'0':<6}{'0':<6}{'644':<8}{size!s:<10}`\n".encode()


def _plant(base: Path) -> tuple[Path, Path]:
    ws, home = base / "ws", base / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".aws").mkdir()
    (home / ".ssh" / "id_rsa").write_text("CANARY-ssh-key\n")
    (home / ".aws" / "credentials").write_text("[default]\naws_secret_access_key=CANARY-aws\n")
    (ws / "crafted" / "info").mkdir(parents=True)
    (ws / "crafted" / "updates").mkdir()
    (ws / ".env").write_text("API_KEY=CANARY-env\n")
    (ws / "crafted" / "status").write_text(_PKG)
    (ws / "crafted" / "info" / "x.list").symlink_to(home / ".ssh" / "id_rsa")
    (ws / "crafted" / "info" / "x.md5sums").symlink_to(home / ".aws" / "credentials")
    (ws / "c2").mkdir()
    (ws / "c2" / "status").symlink_to(ws / ".env")
    (ws / "r" / "var" / "lib").mkdir(parents=True)
    shutil.copytree(ws / "crafted", ws / "r" / "var" / "lib" / "dpkg", symlinks=True)
    # binutils: a thin archive naming linked/k, an ordinary archive, and one hiding thin.a
    (ws / "linked").mkdir()
    (ws / "linked" / "k").write_text("line1\nSECRET\n")
    table = b"linked/k/\n"
    thin = b"!<thin>\n" + _ar_header("//", len(table)) + table + _ar_header("/0", 13)
    (ws / "thin.a").write_bytes(thin)
    elf = Path("/bin/true").read_bytes()
    (ws / "lib.a").write_bytes(b"!<arch>\n" + _ar_header("true/", len(elf)) + elf + b"\n" * (len(elf) & 1))
    pad = b"\n" if len(thin) & 1 else b""
    (ws / "evil.a").write_bytes(b"!<arch>\n" + _ar_header("a/", "8_00000") + b"AAAAAAAA"
                                + _ar_header("thin.a/", len(thin)) + thin + pad)
    return ws, home


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    return _plant(tmp_path)


def _cmd(case: dict, ws: Path) -> str:
    return case["cmd"].replace("WS", str(ws))


def _with_cfg(case: dict, ws: Path, home: Path) -> None:
    if "dpkgcfg" in case:
        (home / ".dpkg.cfg").write_text(case["dpkgcfg"].replace("WS", str(ws)))


def _program(cmd: str) -> str:
    return cmd.split()[0]


def _need(cmd: str) -> None:
    prog = _program(cmd)
    if shutil.which(prog) is None:
        pytest.skip(f"{prog} is not installed")
    if prog == "dpkg" and shutil.which("dpkg-query") is None:
        pytest.skip("dpkg-query is not installed")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:70])
def test_verdict(case: dict, tree: tuple[Path, Path]) -> None:
    ws, home = tree
    _with_cfg(case, ws, home)
    cmd = _cmd(case, ws)
    a = analyse(cmd, Context(cwd=ws, workspace=ws, home=home, terminal=False))
    assert a.readonly == case["readonly"], [r.message for r in a.reasons]
    if not case["readonly"]:
        words = {cmd[r.span[0]:r.span[1]] for r in a.reasons if r.span is not None}
        assert any(case["word"] in w for w in words), ([r.message for r in a.reasons], words)


def _run(cmd: str, ws: Path, home: Path, trace: Path | None = None) -> subprocess.CompletedProcess[str]:
    argv = ["bash", "-c", cmd]
    if trace is not None:
        argv = [str(STRACE), "-f", "-qq", "-o", str(trace), "-e", EFFECT_SYSCALLS, *argv]
    env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "HOME": str(home), "LC_ALL": "C"}
    return subprocess.run(argv, cwd=ws, env=env, capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:70])
def test_real_program(case: dict, tree: tuple[Path, Path]) -> None:
    """The oracle: what the program really does in the planted tree."""
    ws, home = tree
    cmd = _cmd(case, ws)
    _need(cmd)
    _with_cfg(case, ws, home)
    if STRACE is None:
        pytest.skip("strace is not installed")
    trace = ws.parent / "trace"
    run = _run(cmd, ws, home, trace)
    printed = CANARY in run.stdout + run.stderr
    assert printed == bool(case.get("leak")), run.stdout + run.stderr
    lines = trace.read_text().splitlines()[1:]   # the first is strace's own bash
    if "opens" in case:
        assert [ln for ln in lines if case["opens"] in ln and "open" in ln], "\n".join(lines)
    if case["readonly"]:
        effects = _effects("\n".join(lines), _program(cmd))
        if _program(cmd) == "dpkg":   # dpkg runs dpkg-query for -L/-S (packages.py)
            effects = [e for e in effects if 'execve("/usr/bin/dpkg-query"' not in e]
        assert effects == []


def test_archive_numbers_read_as_bfd_reads_them() -> None:
    """Only space-padded digits are a size: BFD's sscanf stops at `_`, Python's int skips it."""
    assert binutils._number(b"1234      ") == 1234
    assert binutils._number(b"  42") == 42
    for bad in (b"8_000     ", b"+8        ", b"-8        ", b"0x10      ", b"8 0       ", b"\xd9\xa1"):
        assert binutils._number(bad) is None, bad


# --- rg ------------------------------------------------------------------------------------------

def _rg_case(case: dict, tmp: Path) -> dict:
    """``x/HOME`` names the file rg opens for ``excludesFile = x~`` (each `~` is HOME)."""
    home = tmp / "home"
    files = {k.replace("/HOME", str(home)): v for k, v in case["files"].items()}
    return {**case, "files": files}


@pytest.mark.parametrize("case", RG_CASES, ids=lambda c: repr(next(v for k, v in c["files"].items()
                                                                  if "git" in k))[:60])
def test_rg_global_excludes_verdict(case: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _rg_verdict(_rg_case(case, tmp_path), tmp_path, monkeypatch)


@pytest.mark.parametrize("case", RG_CASES, ids=lambda c: repr(next(v for k, v in c["files"].items()
                                                                  if "git" in k))[:60])
def test_rg_global_excludes_real(case: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _rg_oracle(_rg_case(case, tmp_path), tmp_path, monkeypatch)


# --- nsswitch.conf ---------------------------------------------------------------------------------

# (file text, whether nss.remote("hosts") must say the lookup may leave, whether getent asks DNS
# for a name /etc/hosts lacks). The first four were read as local before, and glibc asked DNS.
NSSWITCH = [
    ("hosts: files # dns\n", True, True),                     # no comment past the name
    ("hosts: files\nhosts dns\n", True, True),                # the name ends at a blank
    ("hosts: files\vdns\n", True, True),                      # \v is a blank, not a line end
    ("hosts: files\n" + "#" * 70000 + "\nhosts: dns\n", True, True),   # past 64 KiB
    ("hosts:files\n hosts\t:\t: dns\n", True, True),
    ("hosts: files\n", False, False),
    ("#hosts: dns\nhosts: files myhostname\n", False, False),
    ("hosts: files [NOTFOUND=return] [x] dns\n", False, False),   # a `[` ends the list
    ("hosts: files\0 dns\n", False, False),                   # the line ends at a NUL
    ("hosts: files [NOTFOUND=return dns\n", True, False),      # a syntax error: not understood
]


def _getent_asks_dns(conf: Path) -> bool | None:
    """Whether ``getent hosts`` asks a DNS server with ``conf`` as /etc/nsswitch.conf (a
    private mount namespace), or None where that cannot be set up."""
    if not (shutil.which("unshare") and shutil.which("getent") and STRACE):
        return None
    script = (f"mount --bind {conf} /etc/nsswitch.conf && exec {STRACE} -f -qq -e trace=connect "
              "getent hosts red2-canary.invalid")
    run = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True,
                         timeout=60)
    if "mount" in run.stderr and "htons" not in run.stderr or "unshare:" in run.stderr:
        return None
    return "htons(53)" in run.stderr


@pytest.mark.parametrize(("text", "leaves", "dns"), NSSWITCH, ids=lambda x: repr(x)[:40])
def test_nsswitch_read_as_glibc(text: str, leaves: bool, dns: bool, tmp_path: Path) -> None:
    conf = tmp_path / "nsswitch.conf"
    conf.write_bytes(text.encode())
    assert (nss.remote("hosts", str(conf)) is not None) == leaves
    if os.geteuid() != 0:
        pytest.skip("the getent oracle needs root (a private mount namespace)")
    asked = _getent_asks_dns(conf)
    if asked is None:
        pytest.skip("unshare -m, mount --bind, getent or strace is not available here")
    assert asked == dns
    assert leaves or not asked
