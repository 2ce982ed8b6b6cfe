"""Every spelling ``shellgate.bash.commands.iproute`` accepts, run through the real ``ip`` in a
fresh network namespace (``unshare -n``, loopback up):

* it means what its full word means — ``ip a s`` prints what ``ip address show`` prints, ``ip
  t help`` what ``ip tunnel help`` prints, ``ip -s link`` what ``ip -statistics link`` prints
  (stdout, stderr and exit status); ``link s`` would fail this (``set``: "dev argument is
  required");
* under ``strace -f`` it only reads: no program but ip, no file opened to write, nothing made
  or removed, no inet or unix socket, no ``SIOCS*``/``TUNSET*`` ioctl, and every netlink
  request is an ``RTM_GET*`` — or ``link``'s feature probe, an ``RTM_NEWLINK`` with no index,
  no change and no attribute, which the kernel refuses.

Skipped, with the reason, without ip, strace or the right to make a network namespace."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from shellgate.bash.commands.iproute import _COLORS, _FAMILY, _VERSION, FLAGS, OBJECTS, _spellings

IP, STRACE = shutil.which("ip"), shutil.which("strace")


def _can_unshare() -> bool:
    try:
        return subprocess.run(["unshare", "-n", "true"], capture_output=True, timeout=30).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


pytestmark = [
    pytest.mark.skipif(IP is None or STRACE is None, reason="needs ip (iproute2) and strace"),
    pytest.mark.skipif(not _can_unshare(), reason="cannot make a network namespace (unshare -n)"),
]


def _full(pattern: str) -> dict[str, str]:
    """Each spelling a pattern allows -> the full word it abbreviates (``s`` -> ``show``)."""
    return {s: re.sub(r"[][]", "", word) for word in pattern.split() for s in _spellings(word)}


def _pairs() -> list[tuple[str, str]]:
    """(accepted form, the same form spelled out in full)."""
    out: list[tuple[str, str]] = [("help", "help"), ("h", "help"), ("", "")]
    for name, (spelled, verbs) in OBJECTS.items():
        for s in _spellings(spelled):
            out += [(s, name), (f"{s} help", f"{name} help")]
        for v, full in _full(verbs).items():
            arg = " 127.0.0.1" if full == "get" else ""
            out.append((f"{name} {v}{arg}", f"{name} {full}{arg}"))
            out.append((f"-j {name} {v}{arg}", f"-json {name} {full}{arg}"))
    for s, full in _full(FLAGS).items():
        out += [(f"{s} -s link", f"{full} -s link"), (f"{s} a", f"{full} a"), (f"-{s} r", f"-{full} r")]
    out += [(f"{f} inet a", "-family inet a") for f in _FAMILY]
    out += [(f"-c={c} a", f"-color={c} a") for c in _COLORS]
    out += [(v, "-Version") for v in _VERSION]
    return out


PAIRS = _pairs()
_WRITE = re.compile(r"O_(WRONLY|RDWR|CREAT|TRUNC)")
_CHANGE = re.compile(r"^\d+ +(mkdir|mkdirat|unlink|unlinkat|rename|renameat2?|rmdir|creat|link|linkat|"
                     r"symlink|symlinkat|chmod|fchmodat|mount|setns|unshare)\(")
_PROBE = re.compile(r"\[\{nlmsg_len=32, nlmsg_type=RTM_NEWLINK, nlmsg_flags=NLM_F_REQUEST\|NLM_F_ACK, "
                    r"nlmsg_seq=\d+, nlmsg_pid=0\}, \{ifi_family=AF_UNSPEC, ifi_type=\w+, ifi_index=0, "
                    r"ifi_flags=0, ifi_change=0\}\], 32,")


def _effects(trace: str) -> list[str]:
    """The lines of a trace that show anything but reading."""
    out = []
    for line in trace.splitlines():
        bad = ((" execve(" in line and not re.search(r'execve\("[^"]*/ip"', line))
               or (" openat(" in line and _WRITE.search(line) and '"/dev/null"' not in line)
               or (" connect(" in line and ("AF_INET" in line or "AF_UNIX" in line))
               or (" ioctl(" in line and re.search(r"\b(SIOCS|SIOCADD|SIOCDEL|SIOCCHG|TUNSET)", line))
               or _CHANGE.match(line))
        if not bad and re.search(r" (sendto|sendmsg)\(", line) and not _PROBE.search(line):
            types = re.findall(r"nlmsg_len=(\d+), nlmsg_type=([\w]+)", line)
            bad = any(not (t.startswith("RTM_GET") or (n == "0" and t == "0")) for n, t in types)
            bad = bad or ("AF_NETLINK" not in line and "nlmsg_type" not in line)
        if bad:
            out.append(line)
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    """Every form of PAIRS run once in one fresh namespace: form -> (what it printed, trace)."""
    d = tmp_path_factory.mktemp("ip")
    forms = sorted({f for pair in PAIRS for f in pair})
    lines = ["ip link set lo up"]
    for i, f in enumerate(forms):
        lines.append(f"timeout 20 strace -f -qq -o {d}/t{i} -e trace=execve,openat,connect,ioctl,sendto,"
                     f"sendmsg,mkdir,mkdirat,unlink,unlinkat,rename,renameat,renameat2,rmdir,creat,"
                     f"link,linkat,symlink,symlinkat,chmod,fchmodat,mount,setns,unshare "
                     f"ip {f} >{d}/o{i} 2>&1 </dev/null; echo \"rc=$?\" >>{d}/o{i}")
    script = d / "run.sh"
    script.write_text("\n".join(lines) + "\n")
    subprocess.run(["unshare", "-n", "bash", str(script)], cwd=d, check=True, timeout=600,
                   env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(d), "LC_ALL": "C"})
    return {f: ((d / f"o{i}").read_text(errors="replace"), (d / f"t{i}").read_text(errors="replace"))
            for i, f in enumerate(forms)}


@pytest.mark.parametrize(("form", "full"), PAIRS, ids=[f"ip {a}" for a, _ in PAIRS])
def test_spelling_means_its_full_word(form: str, full: str, runs: dict[str, tuple[str, str]]) -> None:
    said, full_said = runs[form][0], runs[full][0]
    assert said == full_said, f"ip {form} differs from ip {full}"
    assert "rc=0" in said or full in ("", "help") or full.endswith(" help"), said


@pytest.mark.parametrize("form", sorted({f for pair in PAIRS for f in pair}), ids=lambda f: f"ip {f}")
def test_form_only_reads(form: str, runs: dict[str, tuple[str, str]]) -> None:
    assert _effects(runs[form][1]) == [], shlex.join(["ip", *form.split()])


def test_trace_reader_sees_changes(tmp_path: Path) -> None:
    """The trace check is not blind: adding an address and the `link set` a prefix would be are
    both seen."""
    script = tmp_path / "w.sh"
    trace = "strace -f -qq -e trace=sendto,sendmsg -o"
    script.write_text(f"{trace} {tmp_path}/a ip address add 10.9.0.1/24 dev lo\n"
                      f"{trace} {tmp_path}/b ip link set lo up\n")
    subprocess.run(["unshare", "-n", "bash", str(script)], check=True, timeout=60)
    assert _effects((tmp_path / "a").read_text())
    assert _effects((tmp_path / "b").read_text())


# Filter words: ip reads host names nowhere (numeric only); ss resolves them while parsing its
# filter. Each form runs in a fresh namespace, where a lookup is a connect() to the resolver.
IP_FILTERS = ["address show to example.com", "route show to example.com",
              "route get 1.1.1.1 from example.com", "neighbour show to example.com",
              "rule show from example.com", "link show example.com",
              "tunnel show remote example.com", "-6 tunnel show remote example.com",
              "mroute show from example.com", "addrlabel list example.com"]
SS_WORDS = ["-t", "-tlnp", "-s", "-tunap", "-lt state listening", "-to state established '( dport = :ssh )'",
            "-nlpt sport = :80", "-t dst 10.0.0.1:443", "-t dst 10.0.0.0/8", "-tn dport eq 22", "-t dev lo",
            "-x", "-t exclude listening", "-t dst '*:22'", "-t src 127.0.0.1 and not dport = :22",
            "-t state listening state unconnected dport = :22", "-t excl closed state big",
            "-t dst '[::1]'", "-t dst fe80::1", "-t fwmark 0x1/0xff", "-t dst '[fe80::1]:22'",
            # the host names, which must ask (a state name is one outside a leading pair):
            "-t dst example.com", "-t eth0", "-t dst cafe", "-t dst localhost", "-t src example.com:22",
            "-t '( dst example.com )'", "-t listening", "-t state listening big", "-t 'state listening'",
            "-t dport = :22 state listening",
            # glibc asks DNS for these (only names of digits and dots, or with a colon, stay local)
            "-tn 0x7f000001", "-t dst 0x100", "-t dst '[cafe.be]'", "-t dst '[ff]'"]
SS_ASKED = SS_WORDS.index("-t dst example.com")
SS_LOOK_UP = ("example.com", "-t listening", "-t state listening big", "-t 'state listening'", "0x7f000001",
              "0x100", "[cafe.be]", "[ff]")


def _in_netns(tmp_path: Path, forms: list[str]) -> list[str]:
    """Each ``PROGRAM ARGS`` form's trace, run in one fresh network namespace."""
    lines = []
    for i, f in enumerate(forms):
        lines.append(f"timeout 20 strace -f -qq -o {tmp_path}/t{i} -e trace=execve,openat,connect,ioctl,"
                     f"sendto,sendmsg,mkdir,unlink,rename {f} >/dev/null 2>&1 </dev/null || true")
    (tmp_path / "run.sh").write_text("ip link set lo up\n" + "\n".join(lines) + "\n")
    subprocess.run(["unshare", "-n", "bash", str(tmp_path / "run.sh")], check=True, timeout=600,
                   env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": str(tmp_path), "LC_ALL": "C"})
    return [(tmp_path / f"t{i}").read_text(errors="replace") for i in range(len(forms))]


def _looks_up(trace: str) -> bool:
    return bool(re.search(r' connect\(\d+, \{sa_family=AF_INET6?,', trace))


def test_ip_filters_look_nothing_up(tmp_path: Path) -> None:
    traces = _in_netns(tmp_path, [f"ip {f}" for f in IP_FILTERS])
    assert [f for f, t in zip(IP_FILTERS, traces, strict=True) if _effects(t)] == []


def test_ss_allows_only_filters_it_resolves_nothing_for(tmp_path: Path) -> None:
    """Allowed by shellgate => no lookup, run for real; and the host-name forms do look up (the
    oracle sees it), so each of them must ask."""
    from shellgate.bash.analysis import analyse
    from shellgate.bash.facts import Context

    if shutil.which("ss") is None:
        pytest.skip("ss is not installed")
    ctx = Context(cwd=tmp_path, workspace=tmp_path, home=tmp_path)
    traces = _in_netns(tmp_path, [f"ss {f}" for f in SS_WORDS])
    for form, trace in zip(SS_WORDS, traces, strict=True):
        allowed = analyse(f"ss {form}", ctx).readonly
        if allowed:
            assert not _looks_up(trace), f"ss {form} is allowed but looks a host name up"
        elif any(w in form for w in SS_LOOK_UP):
            assert _looks_up(trace), f"the oracle missed the lookup of ss {form}"
    assert [f for f in SS_WORDS if not analyse(f"ss {f}", ctx).readonly] == SS_WORDS[SS_ASKED:]


# ss asks the kernel for each socket table through sock_diag; the kernel loads a table's module
# (module autoload) when it is missing, and DCCP's and SCTP's pull their protocols in. No form
# shellgate allows may ask for a table outside the common ones (the request is seen under strace).
SS_TABLES = ["", "-l", "-a", "-n", "-4", "-6", "-f inet", "-A inet", "-A all", "-S", "-d", "-t --sctp",
             "-lt", "-tlnp", "-tunap", "-x", "-s", "-A tcp,udp", "-f unix", "-4 -t", "-w", "-0", "-u -a"]
_RARE_DIAG = re.compile(r"sdiag_protocol=IPPROTO_(DCCP|SCTP|MPTCP)|sdiag_family=AF_(TIPC|VSOCK|XDP)")


def test_ss_asks_for_no_rare_socket_table(tmp_path: Path) -> None:
    from shellgate.bash.analysis import analyse
    from shellgate.bash.facts import Context

    if shutil.which("ss") is None or shutil.which("strace") is None:
        pytest.skip("ss or strace is not installed")
    ctx = Context(cwd=tmp_path, workspace=tmp_path, home=tmp_path)
    rare = []
    for form in SS_TABLES:
        trace = ["strace", "-f", "-qq", "-e", "trace=sendmsg", "-e", "verbose=sendmsg", "-s", "256"]
        out = subprocess.run([*trace, "ss", *form.split()], capture_output=True, text=True, timeout=60).stderr
        asks = bool(_RARE_DIAG.search(out))
        assert not (asks and analyse(f"ss {form}", ctx).readonly), f"ss {form} asks for a rare table"
        rare.append(asks)
    assert rare[:4] == [True] * 4, "the oracle no longer sees the DCCP/SCTP requests of plain ss"
