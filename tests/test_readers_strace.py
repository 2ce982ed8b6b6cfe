"""The readers #17 added, run for real under ``strace -f`` in a scratch HOME and cwd: each must
execute only itself, open nothing for writing (but /dev/null), create, rename or delete
nothing, and connect to no inet or unix socket. ``top -b`` is the counter-example that keeps it
off the list: it makes ``~/.config/procps`` when that is missing. Skipped without strace or
without the program."""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from shellgate.bash.commands.helpforms import HELP_FORMS

STRACE = shutil.which("strace")
READERS = [
    "bash -c 'history; history 10'",
    "bzip2 -dc a.bz2", "bzip2 -t a.bz2", "bzip2 -c a", "bunzip2 -c a.bz2",
    "xz -l a.xz", "xz -t a.xz", "xz -dc a.xz", "unxz -c a.xz", "xz -c a",
    "ifconfig", "ifconfig -a", "ifconfig -s lo", "mount", "mount -l", "mount -t proc",
    "w", "w -h root", "who", "who -a", "who am i", "pstree -ap", "pstree -p 1",
    "shasum -a 256 a", "shasum -c SUMS", "expr length abc", "expr 6 \\* 7", "clear -T xterm",
    "getopt -o ab: -- -a x", "look -f hel a",
    "cal -h", "ncal -3bwM", "cal 12 2026", "cal -y -A2", "errno -l", "errno ENOENT", "errno -s file",
    "ascii -t a", "ascii -s hello", "ascii -x", "finger", "finger -l root", "finger -sp",
    "acpi -V", "acpi -b -i", "dfc -a", "dfc -e json", "gvgen -c 10", "gvgen -t3,2",
    "apropos ls", "whatis -r '^ls'", "systemd-delta --no-pager --diff=no",
    "git verify-pack -v repo/.git/objects/pack/*.idx", "pr -n -h t a", "pr -2 -t a",
    "bc -l a </dev/null", "bc -q a </dev/null", "ipcs -a", "ipcs -mb",
    "dmesg", "dmesg -T -x", "dmesg -H -P", "iconv -f latin1 -t utf-8 a", "iconv -l",
    "journalctl --no-pager -n 5", "journalctl --no-pager -b -1 -n 5", "journalctl --no-pager --disk-usage",
    "journalctl --no-pager -k -p err",
    "tshark -n -r a.pcap -q -z io,phs", "tshark -n -r a.pcap -q -z endpoints,ip",
    "tshark -r a.pcap -Y telnet -T fields -e telnet.data", "tshark -nqr a.pcap -z follow,tcp,ascii,0",
    "tshark -n -r a.pcap -q -z conv,tcp", "tshark -r a.pcap -q -z http,tree",
    "tshark -r a.pcap -T fields -E separator=, -E header=y -e ip.src", "tshark -n -r a.pcap -V -x -c 2",
    "tshark --version",
    "lsblk", "lsblk -f", "lsblk -J -b -O", "lsblk -T", "findmnt", "findmnt -s", "findmnt -D", "findmnt -x",
    "findmnt -J /", "lsmod", "vmstat", "vmstat -s", "vmstat -d", "vmstat -a -t -w 1 2", "last",
    "last -n 10 -x",
    "lsns", "lsns -T", "lsns -t net -J", "lslocks", "lslocks -J -u", "lsipc", "lsipc -g", "lsipc -m -J",
    "ss -tlnp", "ss -s", "ss -a", "ss -x", "ss -tunap", "ss -o state established ( dport = :ssh )",
    "7z l a.7z", "7z -slt l a.7z", "7za L a.7z -ba", "7zr l -bb3 -y a.7z", "7zz l -t7z -scsUTF-8 a.7z",
    "7z l a.7z a -r", "7z l -pSECRET -- a.7z", "7zz l -bso0 -bse0 a.7z '-i!*'",
]
_WRITE = re.compile(r"O_(WRONLY|RDWR|CREAT|TRUNC)")
_CHANGE = re.compile(r"^\d+ (mkdir|mkdirat|unlink|unlinkat|rename|renameat2?|rmdir|creat|link|linkat|"
                     r"symlink|symlinkat|chmod|fchmodat|utimensat)\(")

# bash looks up its user when SHELL is unset (as under CI): the C library asks nscd first, a
# lookup that fails with ENOENT when no nscd runs and changes nothing either way.
_NSCD = re.compile(r'sun_path="/(var/)?run/nscd/socket"')


def _effects(trace: str, program: str) -> list[str]:
    out = []
    for line in trace.splitlines():
        foreign = " execve(" in line and not re.search(rf'execve\("[^"]*/{re.escape(program)}"', line)
        writes = (" openat(" in line and _WRITE.search(line) and '"/dev/null"' not in line
                  and '"/dev/tty"' not in line)
        connects = (" connect(" in line and ("AF_INET" in line or "AF_UNIX" in line)
                    and not _NSCD.search(line))
        if foreign or writes or connects or _CHANGE.match(line):
            out.append(line)
    return out


# The system calls whose use shows an effect beyond reading (``_effects``), for ``strace -e``.
EFFECT_SYSCALLS = ("trace=execve,openat,creat,mkdir,mkdirat,unlink,unlinkat,rename,renameat,renameat2,"
                   "rmdir,link,linkat,symlink,symlinkat,chmod,fchmodat,utimensat,connect")


def traced_effects(argv: list[str], program: str, trace: Path, **run: object) -> list[str]:
    """``argv`` run under ``strace -f`` (``run``: cwd, env … for subprocess.run), and what
    ``_effects`` finds in its trace for ``program``."""
    subprocess.run([STRACE, "-f", "-qq", "-o", str(trace), "-e", EFFECT_SYSCALLS, *argv],
                   capture_output=True, timeout=30, stdin=subprocess.DEVNULL, **run)  # type: ignore[arg-type]
    return _effects(trace.read_text(), program)


def write_pcap(path: Path) -> None:
    """A pcap of four Ethernet/IPv4/TCP packets: a telnet exchange and an HTTP request/reply."""
    def csum(b: bytes) -> int:
        s = sum(struct.unpack(f"!{len(b) // 2}H", b))
        s = (s >> 16) + (s & 0xFFFF)
        return ~(s + (s >> 16)) & 0xFFFF

    def pkt(src: bytes, dst: bytes, sport: int, dport: int, data: bytes) -> bytes:
        tcp = struct.pack("!HHIIBBHHH", sport, dport, 1, 1, 5 << 4, 0x18, 65535, 0, 0) + data
        ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 1, 0, 64, 6, 0, src, dst)
        ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
        return b"\x00\x11\x22\x33\x44\x55\x66\x77\x88\x99\xaa\xbb\x08\x00" + ip + tcp

    a, b = bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])
    packets = [pkt(a, b, 40000, 23, b"login: root\r\n"), pkt(b, a, 23, 40000, b"Password:"),
               pkt(a, b, 40001, 80, b"GET /flag.txt HTTP/1.1\r\nHost: x\r\n\r\n"),
               pkt(b, a, 80, 40001, b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nflag!")]
    out = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    for i, p in enumerate(packets):
        out += struct.pack("<IIII", 1700000000 + i, 0, len(p), len(p)) + p
    path.write_bytes(out)


def _run(cmd: str, tmp: Path) -> list[str]:
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    (tmp / "a").write_text("hello\n")
    for tool, ext in (("bzip2", "bz2"), ("xz", "xz")):
        if shutil.which(tool) and not (tmp / f"a.{ext}").exists():
            subprocess.run([tool, "-k", "a"], cwd=tmp, check=True)
    if shutil.which("shasum"):
        (tmp / "SUMS").write_text(subprocess.run(["shasum", "a"], cwd=tmp, capture_output=True,
                                                 text=True).stdout)
    if shutil.which("git") and not (tmp / "repo").exists():
        git = ["git", "-C", str(tmp / "repo"), "-c", "user.name=a", "-c", "user.email=a@b"]
        subprocess.run(["git", "init", "-q", str(tmp / "repo")], check=True)
        (tmp / "repo" / "f").write_text("x\n")
        for step in (["add", "f"], ["commit", "-qm", "f"], ["gc", "-q"]):
            subprocess.run([*git, *step], check=True, env={**os.environ, "HOME": str(home)})
    seven = shutil.which("7zz") or shutil.which("7z")
    if seven and not (tmp / "a.7z").exists():
        subprocess.run([seven, "a", "-bso0", "a.7z", "a"], cwd=tmp, check=True)
    if not (tmp / "a.pcap").exists():
        write_pcap(tmp / "a.pcap")
    trace = tmp / "trace"
    subprocess.run([STRACE, "-f", "-qq", "-o", str(trace), "-e",
                    EFFECT_SYSCALLS,
                    "bash", "-c", cmd], cwd=tmp, capture_output=True, timeout=30,
                   env={**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")})
    lines = trace.read_text().splitlines()
    return _effects("\n".join(lines[1:]), cmd.split()[0])   # the first is strace's own bash


@pytest.mark.skipif(STRACE is None, reason="strace is not installed")
@pytest.mark.parametrize("cmd", READERS)
def test_reader_only_reads(cmd: str, tmp_path: Path) -> None:
    if shutil.which(cmd.split()[0]) is None:
        pytest.skip(f"{cmd.split()[0]} is not installed")
    assert _run(cmd, tmp_path) == []


HELP_RUNS = [(name, form) for name, forms in HELP_FORMS.items() for form in forms]
_LOOKUP = re.compile(r'^\d+ (?:openat|stat|access|newfstatat|readlink)\((?:AT_FDCWD, )?"([^"]*)"')


@pytest.mark.skipif(STRACE is None, reason="strace is not installed")
@pytest.mark.parametrize(("name", "form"), HELP_RUNS, ids=[f"{n} {f}" for n, f in HELP_RUNS])
def test_help_form_only_prints(name: str, form: str, tmp_path: Path) -> None:
    """``helpforms.HELP_FORMS``: run in an empty HOME that is also the cwd, the form exits 0,
    prints, has no effect, and looks up no file in HOME or the cwd (no configuration there can
    change it)."""
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed")
    trace = tmp_path / "trace"
    home = tmp_path / "home"
    home.mkdir()
    p = subprocess.run([STRACE, "-f", "-qq", "-o", str(trace), "-e",
                        EFFECT_SYSCALLS + ",stat,access,newfstatat,readlink", path, form], cwd=home,
                       capture_output=True, timeout=30, stdin=subprocess.DEVNULL,
                       env={"PATH": os.environ["PATH"], "HOME": str(home)})
    lines = trace.read_text().splitlines()
    looked = [line for line in lines if (m := _LOOKUP.match(line)) and " execve(" not in line
              and (m.group(1).startswith(str(tmp_path)) or not m.group(1).startswith("/"))]
    assert p.returncode == 0 and (p.stdout or p.stderr)
    assert _effects("\n".join(lines), name) == [] and looked == []


@pytest.mark.skipif(STRACE is None or shutil.which("errno") is None, reason="no strace or errno")
def test_errno_all_locales_runs_a_shell(tmp_path: Path) -> None:
    """The counter-example behind ``errno -S``'s refusal: it starts ``sh -c "locale -a"``."""
    assert any('execve("/bin/sh"' in line or "locale" in line for line in _run("errno -S file", tmp_path))


@pytest.mark.skipif(shutil.which("top") is None, reason="top is not installed")
def test_top_makes_its_config_directory(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "XDG_CONFIG_HOME"}
    subprocess.run(["top", "-b", "-n", "1"], cwd=tmp_path, capture_output=True, timeout=60,
                   env={**env, "HOME": str(home)})
    assert (home / ".config" / "procps").is_dir()


# findmnt resolving a UUID=/LABEL= tag through libblkid writes the blkid cache (as root): each
# form runs in a mount namespace whose /run is a fresh tmpfs, so the cache is new there.
FINDMNT_TAGS = ["findmnt -o SOURCES", "findmnt --output-all", "findmnt UUID=1234-ABCD",
                "findmnt -S LABEL=foo", "findmnt -F fstab -o UUID", "findmnt -F fstab -o +LABEL",
                "findmnt -F fstab -e", "findmnt -F fstab --verify", "findmnt -F fstab -S UUID=1234-ABCD"]
FINDMNT_CLEAN = ["findmnt -F fstab", "findmnt -F fstab -J /mnt", "findmnt -o TARGET,SOURCE,FSTYPE",
                 "findmnt -s"]


def _findmnt_writes(cmd: str, tmp: Path) -> bool:
    (tmp / "fstab").write_text("UUID=1234-ABCD /mnt ext4 defaults 0 0\nLABEL=foo /data ext4 defaults 0 0\n")
    trace = tmp / "trace"
    traced = f"{STRACE} -f -qq -o {trace} -e trace=mkdir,openat,rename {cmd}"
    subprocess.run(["unshare", "-m", "bash", "-c", f"mount -t tmpfs none /run && {traced}"],
                   cwd=tmp, capture_output=True, timeout=30)
    return any("/run/blkid" in line and ("mkdir" in line or "O_CREAT" in line)
               for line in trace.read_text().splitlines())


@pytest.mark.skipif(STRACE is None or shutil.which("findmnt") is None or os.geteuid() != 0
                    or shutil.which("unshare") is None, reason="needs strace, findmnt, unshare and root")
@pytest.mark.parametrize("cmd", FINDMNT_TAGS + FINDMNT_CLEAN)
def test_findmnt_tags_write_the_blkid_cache(cmd: str, tmp_path: Path) -> None:
    from shellgate.bash.analysis import analyse
    from shellgate.bash.facts import Context

    writes = _findmnt_writes(cmd, tmp_path)
    assert writes == (cmd in FINDMNT_TAGS), "the oracle disagrees with the table's reason"
    assert analyse(cmd, Context(cwd=tmp_path, workspace=tmp_path, home=tmp_path)).readonly is not writes
