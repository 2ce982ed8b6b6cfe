"""getent (corpus/lookups.jsonl; shellgate/bash/commands/lookups.py).

The verdicts are taken under real nsswitch.conf files written for the case, the gate pointed at
them the way tests/test_sysquery.py does (``nss.NSSWITCH``). The real program is the oracle,
run under the same file: in a mount namespace of its own (``unshare -m``, root) the test's
nsswitch.conf, hosts and resolv.conf (a name server on 127.0.0.1, so that a DNS query stays on
this machine) are bound over /etc's, and getent runs under ``strace -f``. Each read-only form
writes nothing, runs nothing, and connects no socket (``test_readers_strace._effects``) but
getaddrinfo's port-0 UDP "connects" of ahosts* (RFC 3484 source selection: no datagram is sent);
the refused forms that are cheap to show send their DNS query for real, and ``getent shadow``
opens /etc/shadow."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load
from test_readers_strace import EFFECT_SYSCALLS, _effects

from shellgate.bash.analysis import analyse
from shellgate.bash.commands import nss
from shellgate.bash.facts import Context

CASES = load("lookups.jsonl")
STRACE = shutil.which("strace")
GETENT = shutil.which("getent")
NSS = {
    "dns": "passwd: files\ngroup: files\nhosts: files dns\nnetworks: files dns\nservices: files\n"
           "protocols: files\nrpc: files\nethers: files\nnetgroup: nis\n",
    "local": "passwd: files systemd\ngroup: files [SUCCESS=merge] systemd\ninitgroups: files\n"
             "hosts: files [NOTFOUND=return] myhostname\nnetworks: files\nservices: db files\n"
             "protocols: db files\nrpc: db files\nethers: db files\naliases: files\nnetgroup: files\n",
    "ldap": "passwd: files ldap\ngroup: files\ninitgroups: files ldap\nhosts: files\n",
}
HOSTS = "127.0.0.1 localhost\n::1 localhost\n127.0.0.2 multi\n::1 multi\n"
RESOLV = "nameserver 127.0.0.1\noptions timeout:1 attempts:1\n"
TRACE = EFFECT_SYSCALLS


@pytest.fixture(scope="module")
def etc(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("lookups")
    for name, text in NSS.items():
        (base / f"nsswitch.{name}").write_text(text)
    (base / "hosts").write_text(HOSTS)
    (base / "resolv.conf").write_text(RESOLV)
    (base / "home").mkdir()
    return base


def _analyse(cmd: str, base: Path, nss_name: str, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(nss, "NSSWITCH", str(base / f"nsswitch.{nss_name}"))
    return analyse(cmd, Context(cwd=base, workspace=base, home=base / "home", terminal=False))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.get('nss', '')}:{c['cmd'][:60]}")
def test_verdict(case: dict, etc: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [case["nss"]] if "nss" in case else list(NSS):
        a = _analyse(case["cmd"], etc, name, monkeypatch)
        messages = [r.message for r in a.reasons]
        assert a.readonly == case["readonly"], (name, messages)
        if case["readonly"]:
            continue
        assert a.reasons, "a refusal must say why"
        hits = [r for r in a.reasons if case.get("why", "") in r.message]
        assert hits, messages
        if "word" in case:
            assert any(r.span and case["cmd"][r.span[0]:r.span[1]] == case["word"] for r in hits), \
                [(r.message, r.span and case["cmd"][r.span[0]:r.span[1]]) for r in hits]


def test_shadow_is_a_leak(etc: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hashes getent prints are reported as the sensitive path they come from, like a read of
    /etc/shadow: a leak-class hit."""
    for cmd, path in (("getent shadow", "/etc/shadow"), ("getent -i gshadow root", "/etc/gshadow"),
                      ("getent -s files shadow root", "/etc/shadow")):
        hits = _analyse(cmd, etc, "local", monkeypatch).sensitive
        assert [(h.path, h.cls.value) for h in hits] == [(path, "leak")], cmd
    assert not _analyse("getent passwd shadow", etc, "local", monkeypatch).sensitive


# --- the real program, under the test's own /etc files ------------------------------------------

def _namespace_works(base: Path) -> str | None:
    """Why getent cannot be run under a bound nsswitch.conf here (None: it can)."""
    if GETENT is None or STRACE is None or shutil.which("unshare") is None:
        return "needs getent, strace and unshare"
    r = subprocess.run(["unshare", "-m", "sh", "-c", f"mount --bind {base}/nsswitch.local "
                        "/etc/nsswitch.conf && cat /etc/nsswitch.conf"], capture_output=True, text=True)
    if r.returncode != 0 or r.stdout != NSS["local"]:
        return f"cannot bind a test nsswitch.conf in a mount namespace: {r.stderr.strip()}"
    return None


def _trace(cmd: str, base: Path, nss_name: str) -> list[str]:
    """Run ``cmd`` (getent and its words) under strace with the test's nsswitch.conf, hosts and
    resolv.conf bound over /etc's, in a mount namespace of its own; strace's lines."""
    why = _namespace_works(base)
    if why is not None:
        pytest.skip(why)
    log = base / f"trace.{nss_name}"
    binds = {"nsswitch.conf": f"nsswitch.{nss_name}", "hosts": "hosts", "resolv.conf": "resolv.conf"}
    script = " && ".join(f"mount --bind {base}/{src} /etc/{dst}" for dst, src in binds.items())
    subprocess.run(["unshare", "-m", "sh", "-c", script + ' && exec "$@"', "sh", STRACE or "strace", "-f",
                    "-qq", "-o", str(log), "-e", TRACE, *shlex.split(cmd)], cwd=base, capture_output=True,
                   timeout=60, stdin=subprocess.DEVNULL)
    return log.read_text().splitlines()


_PORT0 = re.compile(r"sin6?_port=htons\(0\)")
_DNS = re.compile(r"sin6?_port=htons\(53\)")

READERS = [
    "getent passwd", "getent passwd root", "getent passwd nosuchuser 4242", "getent passwd 0",
    "getent group", "getent group root nosuch", "getent initgroups root", "getent initgroups",
    "getent hosts", "getent hosts localhost", "getent hosts example.com", "getent hosts 127.0.0.1 ::1",
    "getent hosts 192.0.2.7", "getent ahosts multi", "getent ahosts", "getent ahostsv4 example.com",
    "getent ahostsv6 localhost", "getent -A -i ahosts multi", "getent --no-idn ahosts bücher.example",
    "getent --no-addrconfig ahostsv4 multi",
    "getent services", "getent services ssh 22/tcp", "getent protocols", "getent protocols tcp 17",
    "getent rpc", "getent rpc portmapper 100000", "getent ethers 00:11:22:33:44:55 somehost",
    "getent ethers", "getent networks", "getent networks loopback 127.0.0.0", "getent aliases",
    "getent aliases postmaster", "getent netgroup", "getent netgroup trusted",
    "getent netgroup trusted host user domain", "getent passwd root -i", "getent -- passwd -s",
    "getent", "getent --help", "getent -?", "getent --usage", "getent -V",
]


@pytest.mark.parametrize("cmd", READERS)
def test_reader_only_reads(cmd: str, etc: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a = _analyse(cmd, etc, "local", monkeypatch)
    assert a.readonly, [r.message for r in a.reasons]
    effects = _effects("\n".join(_trace(cmd, etc, "local")), "getent")
    port0 = [line for line in effects if " connect(" in line and _PORT0.search(line)]
    assert [line for line in effects if line not in port0] == []
    assert not port0 or any(w.startswith("ahosts") for w in cmd.split()), port0  # getaddrinfo's sort only


@pytest.mark.parametrize(("cmd", "nss_name"), [
    ("getent hosts example.com", "dns"), ("getent hosts 192.0.2.7", "dns"),
    ("getent ahosts example.com", "dns"), ("getent networks nosuchnet", "dns"),
    ("getent -s dns hosts example.com", "local"),
    ("getent --service=hosts:dns ahostsv4 example.com", "local"),
])
def test_lookup_reaches_dns(cmd: str, nss_name: str, etc: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ``hosts: files dns`` (or with ``-s``) the lookup is a DNS query (to 127.0.0.1 here),
    and the gate refuses it under the same file."""
    lines = _trace(cmd, etc, nss_name)
    assert any(" connect(" in line and _DNS.search(line) for line in lines), lines
    assert not _analyse(cmd, etc, nss_name, monkeypatch).readonly


def test_shadow_opens_shadow(etc: Path) -> None:
    """``getent shadow`` reads /etc/shadow (files source) and prints its hashes."""
    lines = _trace("getent shadow root", etc, "local")
    assert any(re.search(r'openat\(AT_FDCWD, "/etc/shadow"', line) for line in lines)
