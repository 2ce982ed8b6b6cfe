"""pidof, lsof, netstat, dpkg, dpkg-query and bash's ``help`` (corpus/sysquery.jsonl;
shellgate/bash/commands/sysquery.py, packages.py, shell.py).

The verdicts are taken under a real nsswitch.conf written for the case (``nss.NSSWITCH``
pointed at it): lsof and netstat print host and port names through NSS, so whether a listing
without ``-n``/``-P`` may reach the network is that file's to say. The real programs are the
oracle: each read-only form runs under ``strace -f`` (``test_readers_strace._effects``: only
itself runs — dpkg its dpkg-query —, nothing opened for writing, nothing made or removed, no
inet or unix socket connected), and the refusals that are cheap to show are shown for real."""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import load
from test_readers_strace import EFFECT_SYSCALLS, _effects

from shellgate.bash.analysis import analyse
from shellgate.bash.commands import nss
from shellgate.bash.facts import Context

CASES = load("sysquery.jsonl")
STRACE = shutil.which("strace")
NSS = {"dns": "hosts: files dns\nservices: files\npasswd: files\n",
       "local": "hosts: files [NOTFOUND=return] myhostname\nservices: db files\npasswd: files systemd\n",
       "nis": "hosts: files\nservices: files nis\n"}


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("sysq")
    for d in ("ws/src", "home"):
        (base / d).mkdir(parents=True)
    for name, text in NSS.items():
        (base / f"nsswitch.{name}").write_text(text)
    return base


def _verdict(case: dict, base: Path, nss_name: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(nss, "NSSWITCH", str(base / f"nsswitch.{nss_name}"))
    ctx = Context(cwd=base / "ws", workspace=base / "ws", home=base / "home",
                  terminal=case.get("terminal", False))
    return analyse(case["cmd"], ctx)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.get('nss', '')}:{c['cmd'][:60]}")
def test_verdict(case: dict, tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [case["nss"]] if "nss" in case else ["dns", "local"]:
        a = _verdict(case, tree, name, monkeypatch)
        assert a.readonly == case["readonly"], (name, [r.message for r in a.reasons])
        if not case["readonly"]:
            assert a.reasons, "a refusal must say why"
            if "why" in case:
                assert any(case["why"] in r.message for r in a.reasons), [r.message for r in a.reasons]


def test_nsswitch_sources(tmp_path: Path) -> None:
    f = tmp_path / "nsswitch.conf"
    f.write_text("# hosts: dns\nhosts:  files [!UNAVAIL=return] myhostname # dns\npasswd: files sss\n")
    # glibc knows no comment past a line's start: `# dns` names the sources `#` and `dns`
    # (measured: tests/test_red2.py, getent asks DNS)
    assert nss.sources("hosts", str(f)) == ("files", "myhostname", "#", "dns")
    assert "dns" in (nss.remote("hosts", str(f)) or "")
    f.write_text("# hosts: dns\nhosts:  files [!UNAVAIL=return] myhostname\npasswd: files sss\n")
    assert nss.sources("hosts", str(f)) == ("files", "myhostname")
    assert nss.remote("hosts", str(f)) is None
    assert "sss" in (nss.remote("passwd", str(f)) or "")
    assert nss.remote("services", str(f)) is not None          # no line: glibc's default
    assert nss.remote("hosts", str(tmp_path / "missing")) is not None
    f.write_text("hosts: files\nhosts: dns\n")                    # every line counts
    assert "dns" in (nss.remote("hosts", str(f)) or "")


# --- the real programs -------------------------------------------------------------------------

READERS = [
    "pidof bash", "pidof -s -c -q -z -n -x bash", "pidof -o %PPID -d, bash", "pidof /usr/bin/bash",
    "pidof -h",
    "lsof -n -P -i", "lsof -n -P -i :3000", "lsof -nP -i4TCP:3000-3010,8080",
    "lsof -n -P -iTCP -sTCP:LISTEN", "lsof -n -P -i @127.0.0.1", "lsof -t -i", "lsof -t -i :3000",
    "lsof -n -P -p 1", "lsof -n -P -U", "lsof -n -P +D .", "lsof -t +d .", "lsof -n -P -F pcn -i",
    "lsof -n -P -c bash -R -K", "lsof -n -P -L 1 -o 10 -S 5 -T qs -x fl -E -X -w -V -Q -l -b -O",
    "lsof -n -P -M -i", "lsof -t a", "lsof -v",
    "netstat -an", "netstat -tulpne", "netstat -rn", "netstat -s", "netstat -i", "netstat -ie",
    "netstat -nx", "netstat -gn", "netstat -n -A inet,inet6 -W -o",
    "dpkg -l", "dpkg -l bash", "dpkg -L bash", "dpkg -S /bin/bash", "dpkg -s bash", "dpkg -p bash",
    "dpkg --get-selections", "dpkg --print-architecture", "dpkg --print-foreign-architectures",
    "dpkg --compare-versions 1.2 lt 1.10", "dpkg -C",
    "dpkg-query -l", "dpkg-query -L bash", "dpkg-query -s bash", "dpkg-query -S /bin/bash",
    "dpkg-query -W -f='${Package} ${Version}\\n'", "dpkg-query --control-show bash postinst",
    "dpkg-query -c bash", "dpkg-query -p bash",
    "bash -c 'help cd; help -d \"c*\"; help -s cd pwd; help -m read; help'",
]
_HELPERS = {"dpkg": ("dpkg-query",)}


@pytest.fixture(scope="module")
def sockets() -> Iterator[None]:
    """A TCP listener on 127.0.0.1:3000 (or any port) and a UDP socket connected to TEST-NET-1,
    whose peer a listing without -n would look up."""
    lst = socket.socket()
    lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        lst.bind(("127.0.0.1", 3000))
    except OSError:
        lst.bind(("127.0.0.1", 0))
    lst.listen()
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.connect(("192.0.2.1", 5000))
    yield
    lst.close()
    udp.close()


def _trace(cmd: str, tmp: Path, stdin: int | None = subprocess.DEVNULL) -> list[str]:
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    (tmp / "a").write_text("hello\n")
    log = tmp / "trace"
    subprocess.run([STRACE or "strace", "-f", "-qq", "-o", str(log), "-e", EFFECT_SYSCALLS,
                    "bash", "-c", cmd], cwd=tmp, capture_output=True, timeout=60, stdin=stdin,
                   env={**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")})
    return log.read_text().splitlines()[1:]   # the first line is strace's own bash


@pytest.mark.skipif(STRACE is None, reason="strace is not installed")
@pytest.mark.parametrize("cmd", READERS)
def test_reader_only_reads(cmd: str, tmp_path: Path, sockets: None) -> None:
    program = cmd.split()[0]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    a = analyse(cmd, Context(cwd=tmp_path, workspace=tmp_path, home=tmp_path / "home", terminal=False))
    assert a.readonly, [r.message for r in a.reasons]
    helpers = _HELPERS.get(program, ())
    lines = [line for line in _trace(cmd, tmp_path)
             if not any(re.search(rf'execve\("[^"]*/{h}"', line) for h in helpers)]
    assert _effects("\n".join(lines), program) == []


def _connects(lines: list[str], pattern: str) -> bool:
    return any(" connect(" in line and re.search(pattern, line) for line in lines)


@pytest.mark.skipif(STRACE is None or shutil.which("lsof") is None, reason="needs strace and lsof")
def test_lsof_portmap_connects(tmp_path: Path, sockets: None) -> None:
    """``+M``: lsof asks the portmapper over TCP, -n -P notwithstanding."""
    assert _connects(_trace("lsof -n -P +M -i", tmp_path), r"AF_INET.*htons\(111\)")
    assert not _connects(_trace("lsof -n -P -M -i", tmp_path), r"AF_INET")


@pytest.mark.skipif(STRACE is None, reason="strace is not installed")
@pytest.mark.parametrize("cmd", ["lsof -P -i", "netstat -a", "netstat -r", "lsof -n -P -i @example.com"])
def test_name_lookups_reach_dns(cmd: str, tmp_path: Path, sockets: None) -> None:
    """Without -n (or with a host name) the listing asks DNS where nsswitch.conf says so."""
    if shutil.which(cmd.split()[0]) is None:
        pytest.skip(f"{cmd.split()[0]} is not installed")
    if nss.remote("hosts") is None or not Path("/etc/resolv.conf").exists():
        pytest.skip("hosts are looked up locally here")
    assert _connects(_trace(cmd, tmp_path), r"AF_INET.*htons\(53\)")
    assert not analyse(cmd, Context(cwd=tmp_path, workspace=tmp_path, home=tmp_path, terminal=False)).readonly


@pytest.mark.skipif(STRACE is None or shutil.which("pidof") is None, reason="needs strace and pidof")
def test_pidof_bad_omit_goes_to_syslog(tmp_path: Path) -> None:
    """A bad ``-o`` item is reported through syslog when stdin is no terminal: pidof connects
    to /dev/log (whether or not a logger listens there)."""
    assert _connects(_trace("pidof -o abc bash", tmp_path), r'"/dev/log"')
    assert not _connects(_trace("pidof -o %PPID,1 bash", tmp_path), r'"/dev/log"')


@pytest.mark.skipif(shutil.which("dpkg-query") is None or shutil.which("script") is None,
                    reason="needs dpkg-query and script")
@pytest.mark.parametrize(("cmd", "pages"), [("dpkg-query -l bash", True), ("dpkg -l bash", True),
                                            ("dpkg-query --no-pager -l bash", False),
                                            ("dpkg-query -l --no-pager bash", False),
                                            ("dpkg-query -L bash", False), ("dpkg -s bash", False)])
def test_dpkg_pages_on_a_terminal(cmd: str, pages: bool, tmp_path: Path) -> None:
    """On a pty, ``-l`` pipes into $DPKG_PAGER unless --no-pager; the table agrees."""
    canary = tmp_path / "pager"
    canary.write_text(f"#!/bin/sh\necho paged > {tmp_path}/PAGED\ncat >/dev/null\n")
    canary.chmod(0o755)
    subprocess.run(["script", "-qc", cmd, "/dev/null"], capture_output=True, timeout=60,
                   stdin=subprocess.DEVNULL, env={**os.environ, "DPKG_PAGER": str(canary)})
    assert (tmp_path / "PAGED").exists() == pages
    a = analyse(cmd, Context(cwd=tmp_path, workspace=tmp_path, home=tmp_path, terminal=True))
    assert a.readonly is not pages
