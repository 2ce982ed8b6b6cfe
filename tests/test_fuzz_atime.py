"""Canary reads seen by their atime (``shellgate/fuzz/atime.py``) are every way bytes come out
of a canary, run by real programs, in a batch and in a single-use sandbox, traced or not; and
the fallback (reads traced as before) sees the same.

Each way is a real program inside the oracle's sandbox: read(2) (cat, head -c1, grep -q, a
redirect), O_DIRECT (dd iflag=direct), mmap (python3), sendfile, splice (tee, python3),
copy_file_range, a symlink and a hard link to the canary, a reopen through /proc/self/fd, a
canary read and then deleted or renamed. ``O_NOATIME`` (which would read without moving the
atime) is refused in the sandbox however it is asked for.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from shellgate.fuzz import atime
from shellgate.fuzz.oracle import Oracle, OracleUnavailable

CANARY = "~/.netrc"
READ = ("secret-read", f"read {CANARY}")
PY = shutil.which("python3", path="/usr/bin:/bin")
NEEDS_PY = pytest.mark.skipif(PY is None, reason="no system python3 to run in the sandbox")


def _py(code: str) -> str:
    return f"python3 -c '{code}'"


_OPEN = f'import os; fd = os.open(os.path.expanduser("{CANARY}"), os.O_RDONLY)'

WAYS = {
    "cat": f"cat {CANARY} > /dev/null",
    "head -c1": f"head -c1 {CANARY} > /dev/null",
    "grep -q": f"grep -q secret {CANARY}",
    "redirect": f"wc -l < {CANARY}",
    "tail": f"tail -n1 {CANARY} > /dev/null",
    "dd": f"dd if={CANARY} of=/dev/null status=none",
    "dd O_DIRECT": f"dd if={CANARY} of=/dev/null iflag=direct status=none",
    "splice (tee)": f"tee < {CANARY} > /dev/null",
    "symlink": f"ln -s {CANARY} /tmp/link && cat /tmp/link > /dev/null",
    "hard link": f"ln {CANARY} ~/hard && cat ~/hard > /dev/null",
    "/proc/self/fd": f"exec 3< {CANARY}; cat /proc/self/fd/3 > /dev/null",
    "read then deleted": f"cat {CANARY} > /dev/null; rm {CANARY}",
    "renamed then read": f"mv {CANARY} /tmp/moved && cat /tmp/moved > /dev/null",
    "cp": f"cp {CANARY} /tmp/copy",
    "mmap": _py(_OPEN + "; import mmap; m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)"),
    "sendfile": _py(_OPEN + "; os.sendfile(1, fd, 0, 5)") + " > /dev/null",
    "splice": _py(_OPEN + "; r, w = os.pipe(); os.splice(fd, w, 5)"),
    "copy_file_range": _py(_OPEN + "; o = os.open(\"/tmp/c\", os.O_WRONLY | os.O_CREAT);"
                                   " os.copy_file_range(fd, o, 5)"),
    "preadv": _py(_OPEN + "; os.preadv(fd, [bytearray(5)], 0)"),
}
PY_WAYS = {"mmap", "sendfile", "splice", "copy_file_range", "preadv"}

NOT_READS = [f"stat {CANARY}", f"ls -l {CANARY}", f"df {CANARY}", f"test -r {CANARY}",
             f"du {CANARY}", f"find ~ -newer {CANARY}", "wc -c < .env",
             _py(_OPEN)]


def _oracle(mode: str) -> Oracle:
    try:
        if mode == "traced reads":   # the fallback: this machine's syscalls "unknown" to the filter
            saved = atime.seccomp_filter
            atime.seccomp_filter = lambda arch_name=None: None  # type: ignore[assignment]
            try:
                return Oracle(timeout=10.0, exec_allowed=lambda _name: True)
            finally:
                atime.seccomp_filter = saved  # type: ignore[assignment]
        return Oracle(timeout=10.0, exec_allowed=lambda _name: True, batch=mode == "batch",
                      use_strace=mode != "untraced")
    except OracleUnavailable as exc:
        pytest.skip(f"oracle unavailable on this host: {exc}")


@pytest.fixture(scope="module", params=["batch", "single", "untraced", "traced reads"])
def oracle(request):
    o = _oracle(request.param)
    want = "trace" if request.param == "traced reads" else "atime"
    if o.reads_seen != want:
        o.close()
        pytest.skip(f"reads are seen by {o.reads_seen} here, not {want}")
    yield o
    if request.param == "batch":
        assert o.batch_starts >= 1 and o.batch_fallbacks == 0, (o.batch_starts, o.batch_broken)
    o.close()


@pytest.mark.parametrize("way", list(WAYS))
def test_every_way_out_of_a_canary_is_a_secret_read(oracle, way):
    if way in PY_WAYS and PY is None:
        pytest.skip("no system python3")
    obs = oracle.run(WAYS[way])
    assert obs.exit_code == 0, (obs.stderr, obs.effects)
    assert READ in {(e.kind, e.detail) for e in obs.effects}, obs.effects
    assert oracle.run("true").effects == ()   # the read is this command's, and re-armed


@pytest.mark.parametrize("cmd", NOT_READS)
def test_opening_or_stating_a_canary_is_not_a_read(oracle, cmd):
    if cmd.startswith("python3") and PY is None:
        pytest.skip("no system python3")
    obs = oracle.run(cmd)
    assert obs.effects == (), obs.effects


def test_a_read_in_a_command_that_also_writes(oracle):
    obs = oracle.run(f"cat {CANARY} > /dev/null; touch x")
    assert {READ, ("write", "created ws/x")} <= {(e.kind, e.detail) for e in obs.effects}
    assert oracle.run("ls -la ~ && cat README.md").effects == ()
    for _ in range(3):   # every read is seen again after the world is restored and re-armed
        assert READ in {(e.kind, e.detail) for e in oracle.run(f"head -c1 {CANARY}").effects}
        assert oracle.run("true").effects == ()


def test_a_read_between_runs_is_not_the_next_commands(oracle):
    """Only what is read while a command runs is its own: the caller's process (the gate
    reads what it must to decide) or anyone else on the host may read a canary in between."""
    netrc = oracle.home / ".netrc"
    oracle.run("true")
    assert netrc.read_text()   # a plain read, outside any command
    assert oracle.run("ls -la ~ ~/.ssh").effects == ()
    assert READ in {(e.kind, e.detail) for e in oracle.run(f"head -c1 {CANARY}").effects}
    assert oracle.run("true").effects == ()


def test_each_canary_is_watched(oracle):
    obs = oracle.run("cat ~/.ssh/id_rsa ~/.aws/credentials .env > /dev/null")
    got = {(e.kind, e.detail) for e in obs.effects}
    assert {("secret-read", "read ~/.ssh/id_rsa"), ("secret-read", "read ~/.aws/credentials"),
            ("secret-read", "read ws/.env")} <= got, got


@NEEDS_PY
@pytest.mark.parametrize("cmd, why", [
    (f"dd if={CANARY} of=/dev/null iflag=noatime status=none", "Operation not permitted"),
    (_py(f'import os; os.read(os.open(os.path.expanduser("{CANARY}"), os.O_NOATIME), 9)'),
     "PermissionError"),
    (_py(_OPEN + "; import fcntl; fcntl.fcntl(fd, fcntl.F_SETFL, os.O_NOATIME); os.read(fd, 9)"),
     "PermissionError"),
    # openat2 (437) carries its flags in a struct the filter cannot read; io_uring_setup (425)
    # would open and read with flags of its own: both are "not implemented" in the sandbox.
    (_py("import ctypes, os; libc = ctypes.CDLL(None, use_errno=True);"
         " r = libc.syscall(437, -100, b\"/etc/hostname\", None, 0);"
         " os._exit(0 if r == -1 and ctypes.get_errno() == 38 else 7)"), ""),
    (_py("import ctypes, os; libc = ctypes.CDLL(None, use_errno=True);"
         " r = libc.syscall(425, 1, ctypes.create_string_buffer(120));"
         " os._exit(0 if r == -1 and ctypes.get_errno() == 38 else 7)"), ""),
])
@pytest.mark.parametrize("oracle", ["batch", "single", "untraced"], indirect=True)
def test_reading_without_moving_the_atime_is_refused(oracle, cmd, why):
    obs = oracle.run(cmd)
    assert READ not in {(e.kind, e.detail) for e in obs.effects}
    if why:
        assert obs.exit_code != 0 and why in obs.stderr, (obs.exit_code, obs.stderr)
    else:
        assert obs.exit_code == 0, (obs.exit_code, obs.stderr)


def test_the_template_and_other_worlds_are_not_visible(oracle):
    """The template holds the same tokens on a mount where a read moves no atime."""
    template = oracle.base / "template" / "home" / ".netrc"
    assert template.exists()
    obs = oracle.run(f"cat {template}; ls -a {oracle.base.parent}; ls -a {oracle.base}")
    assert "SGCANARY" not in obs.stdout and "No such file" in obs.stderr, obs
    assert "template" not in obs.stdout.split()
    obs = oracle.run(f"touch {oracle.base}/x {oracle.base.parent}/y")
    assert obs.exit_code != 0 and "Read-only file system" in obs.stderr, obs.stderr
    if oracle.traced:
        assert {e.kind for e in obs.effects} == {"write"}, obs.effects


def test_unknown_arch_or_no_atime_falls_back_to_tracing_reads(monkeypatch):
    """Where the filter cannot be built, or a read moves no atime (a noatime mount), reads are
    traced as before; without strace too, they are seen only in the output."""
    monkeypatch.setattr(atime.CanaryWatch, "read", lambda self: [])
    o = _oracle("batch")
    try:
        assert o.reads_seen == ("trace" if o.traced else "output only")
        if o.traced:
            obs = o.run(f"head -c1 {CANARY}")
            assert READ in {(e.kind, e.detail) for e in obs.effects}
    finally:
        o.close()


def test_the_filter_assembles_for_each_known_machine():
    for arch in ("x86_64", "aarch64"):
        prog = atime.seccomp_filter(arch)
        assert prog and len(prog) % 8 == 0
    assert atime.seccomp_filter("mips") is None


def test_bwrap_refuses_nothing_but_noatime_reads(tmp_path):
    """The filter on its own (no oracle): plain opens, fcntl and reads work under it."""
    bwrap = shutil.which("bwrap")
    prog = atime.seccomp_filter()
    if not bwrap or prog is None or PY is None:
        pytest.skip("needs bwrap, a known machine and python3")
    f = tmp_path / "f"
    f.write_text("hello")
    code = (f'import os, fcntl; fd = os.open("{f}", os.O_RDONLY); '
            'fcntl.fcntl(fd, fcntl.F_SETFL, os.O_NONBLOCK); print(os.read(fd, 5).decode())')
    with atime.filter_fd(prog) as fd:
        p = subprocess.run([bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                            "--seccomp", str(fd), "--", PY, "-c", code],
                           capture_output=True, text=True, pass_fds=(fd,), timeout=30)
    assert p.returncode == 0 and p.stdout.strip() == "hello", p.stderr
