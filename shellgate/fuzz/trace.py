"""Reading an ``strace -f -y`` log into the few events the oracle cares about.

The oracle traces only execs, forks, opens, socket connects/sends and path-changing calls (strace
filters them in the kernel with ``--seccomp-bpf``; each traced call still costs two ptrace stops,
tens of microseconds each) — and the calls that read content only where a canary's atime cannot
say it was read (:mod:`.atime`). ``-y`` makes strace
print the path behind every fd, ``AT_FDCWD`` included, so relative paths resolve without
tracking each process's cwd.
"""

from __future__ import annotations

import os
import re

from .._record import record

SYSCALLS = (
    "execve", "execveat", "clone", "clone3", "fork", "vfork",
    "open", "openat", "openat2", "creat",
    "connect", "sendto", "sendmsg", "bind",
    "unlink", "unlinkat", "rmdir",
    "rename", "renameat", "renameat2",
    "mkdir", "mkdirat", "link", "linkat", "symlink", "symlinkat",
    "truncate", "chmod", "fchmodat", "chown", "fchownat", "lchown", "mknod", "mknodat",
)
# Reading content: a secret counts as read when bytes come out of it, not when it is merely
# opened (df, stat-like programs open files without reading them). Traced only when the
# canaries' atimes cannot say it (.atime): these are about half of a command's ptrace stops.
READS = ("read", "pread64", "readv", "preadv", "preadv2", "mmap", "sendfile", "copy_file_range",
         "splice")


def strace_argv(strace: str, out: str, reads: bool = True) -> list[str]:
    """The strace prefix that writes a parseable log of :data:`SYSCALLS` (and :data:`READS`
    unless ``reads`` is false) to ``out``."""
    calls = SYSCALLS + READS if reads else SYSCALLS
    return [strace, "-f", "-qq", "-y", "-s", "4096", "--seccomp-bpf", "-e", "signal=none",
            "-e", "trace=" + ",".join(calls), "-o", out, "--"]


@record
class Call:
    """One finished syscall: name, raw argument text, return value, errno name (or "")."""

    pid: int
    name: str
    args: str
    ret: int | None
    ret_path: str | None   # the path strace decorated a returned fd with (-y)
    errno: str


_LINE = re.compile(r"^(\d+)\s+(.*)$")
_CALL = re.compile(r"^(\w+)\((.*)\)\s+=\s+(0x[0-9a-f]+|-?\d+|\?)(?:<(.*?)>)?"
                   r"(?:\s+([A-Z][A-Z0-9_]+))?.*$", re.S)
_RESUMED = re.compile(r"^<\.\.\. (\w+) resumed>(.*)$", re.S)


def parse(text: str) -> list[Call]:
    """Parse a whole log; unfinished calls are stitched to their resumption by pid."""
    calls: list[Call] = []
    pending: dict[int, str] = {}
    for line in text.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        pid, rest = int(m.group(1)), m.group(2)
        if rest.endswith("<unfinished ...>"):
            pending[pid] = rest[: -len("<unfinished ...>")].rstrip()
            continue
        r = _RESUMED.match(rest)
        if r:
            rest = pending.pop(pid, r.group(1) + "(") + r.group(2)
        c = _CALL.match(rest)
        if not c:
            continue
        ret = None if c.group(3) == "?" else int(c.group(3), 0)
        calls.append(Call(pid, c.group(1), c.group(2), ret, c.group(4), c.group(5) or ""))
    return calls


_STR = re.compile(r'"((?:[^"\\]|\\.)*)"(\.\.\.)?')
_ESC = re.compile(r"\\(x[0-9a-fA-F]{2}|[0-7]{1,3}|.)", re.S)
_SIMPLE_ESC = {"n": "\n", "t": "\t", "r": "\r", "v": "\v", "f": "\f", '"': '"', "\\": "\\"}


def _unescape(s: str) -> str:
    def sub(m: re.Match[str]) -> str:
        e = m.group(1)
        if e[0] == "x":
            return chr(int(e[1:], 16))
        if e[0].isdigit():
            return chr(int(e, 8))
        return _SIMPLE_ESC.get(e, e)
    return _ESC.sub(sub, s)


def strings(args: str) -> list[str]:
    """Every C string literal in an argument list, unescaped, in order."""
    return [_unescape(m.group(1)) for m in _STR.finditer(args)]


_DIRFD = re.compile(r"^\s*(?:AT_FDCWD|-?\d+)<(.*?)>\s*,")


def path_arg(call: Call, index: int = 0) -> str | None:
    """The ``index``-th path argument, made absolute with the dirfd strace decorated.

    For the ``*at`` calls the dirfd comes first; for the plain ones the path is absolute or
    relative to a cwd strace did not print — those stay relative (the caller knows the cwd).
    """
    found = strings(call.args)
    if index >= len(found):
        return None
    path = found[index]
    if path.startswith("/"):
        return os.path.normpath(path)
    m = _DIRFD.match(call.args)
    if m and index == 0:
        return os.path.normpath(os.path.join(m.group(1), path))
    # renameat/linkat: the second path has its own dirfd after the first string.
    if index == 1:
        second = re.search(r'"\s*,\s*(?:AT_FDCWD|-?\d+)<(.*?)>\s*,\s*"', call.args)
        if second:
            return os.path.normpath(os.path.join(second.group(1), path))
    return path


def open_flags(call: Call) -> str:
    """The flag word of an open-family call ("" when unknown)."""
    m = re.search(r"\b(O_[A-Z_|0-9]+)", call.args)
    return m.group(1) if m else ""


WRITE_FLAGS = ("O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_APPEND")


def opens_for_write(call: Call) -> bool:
    if call.name == "creat":
        return True
    flags = open_flags(call).split("|")
    return any(f in flags for f in WRITE_FLAGS)


_FD_PATH = re.compile(r"(?<![\w\"])\d+<(/[^>]*)>")


def fd_paths(call: Call) -> list[str]:
    """Paths strace printed behind the fd arguments of a call (``3</home/u/.env>``)."""
    return _FD_PATH.findall(call.args)


_FAMILY = re.compile(r"sa_family=(AF_\w+)")
_INET = re.compile(r'sin6?_port=htons\((\d+)\).*?(?:inet_addr\("([^"]*)"\)|inet_pton\(AF_INET6,\s*"([^"]*)")')
_UNIX = re.compile(r'sun_path=(@?"(?:[^"\\]|\\.)*")')


def sockaddr(call: Call) -> tuple[str, str] | None:
    """(family, address) of the socket address in a connect/sendto/sendmsg/bind, if any."""
    fam = _FAMILY.search(call.args)
    if not fam:
        return None
    family = fam.group(1)
    if family in ("AF_INET", "AF_INET6"):
        m = _INET.search(call.args)
        if m:
            host = m.group(2) or m.group(3) or "?"
            return family, f"{host}:{m.group(1)}"
        return family, "?"
    if family == "AF_UNIX":
        m = _UNIX.search(call.args)
        return family, (m.group(1).replace('"', "") if m else "?")
    return family, ""
