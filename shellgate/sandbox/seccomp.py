"""A seccomp-bpf filter assembled in Python: no libseccomp, ~60 classic-BPF instructions.

Defence in depth under bwrap (passed as ``--seccomp FD``) and the network/escape boundary of
the Landlock tier. It refuses the syscalls that reach around a filesystem sandbox (ptrace,
mount and the new mount API, namespaces, bpf, kernel modules, keyrings, io_uring — whose
operations bypass seccomp — , handle-based opens, TIOCSTI injection) and, when the network is
off, every socket — or, when the sandbox has a network namespace of its own (bwrap's
``--unshare-net``: only a loopback, nothing reaches the host's), every socket but AF_INET and
AF_INET6 ones (``loopback=True``: servers and clients inside may meet there). A connected
pair (``socketpair``, stream or seqpacket) stays: pipes made of sockets (asyncio's loop,
libuv's) reach nothing but each other.
A foreign architecture (or x32) kills the process: syscall numbers would mean something else
there.

Unix sockets go with the network because they are the host's services' doors, and no mount
can close them: a socket file is reached through the filesystem wherever it lies
(``~/.1password/agent.sock``, ``$SSH_AUTH_SOCK``, nscd's and systemd-resolved's, whose peers
resolve ``secret.evil.example`` from the host — a DNS query out with the network "off"), and
a read-only mount does not stop ``connect()``. Landlock cannot refuse it before ABI 9
(``LANDLOCK_ACCESS_FS_RESOLVE_UNIX``). Seccomp cannot read the path ``connect()`` is given,
but it can refuse the family at ``socket()``, every path and abstract name at once. A
datagram pair is refused too: ``sendto()`` on it may name any socket file.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import struct

from .._record import record

# classic BPF opcodes
_LD_W_ABS = 0x20           # BPF_LD | BPF_W | BPF_ABS
_AND_K = 0x54              # BPF_ALU | BPF_AND | BPF_K
_JEQ_K, _JGE_K, _JSET_K = 0x15, 0x35, 0x45
_RET_K = 0x06

SECCOMP_RET_KILL_PROCESS = 0x80000000
SECCOMP_RET_ERRNO = 0x00050000
SECCOMP_RET_ALLOW = 0x7FFF0000

_OFF_NR, _OFF_ARCH = 0, 4


def _arg_lo(i: int) -> int:
    """Offset of the low 32 bits of syscall argument ``i`` (little-endian seccomp_data)."""
    return 16 + 8 * i


@record
class Arch:
    audit: int
    nr: dict[str, int]
    x32_bit: int = 0  # syscall numbers with this bit set are the x32 ABI


# One row per syscall: name=(x86_64 number, aarch64 number).
_NUMBERS = dict(
    ptrace=(101, 117), mount=(165, 40), umount2=(166, 39), pivot_root=(155, 41), chroot=(161, 51),
    swapon=(167, 224), swapoff=(168, 225), reboot=(169, 142), acct=(163, 89), kexec_load=(246, 104),
    kexec_file_load=(320, 294), init_module=(175, 105), finit_module=(313, 273),
    delete_module=(176, 106), bpf=(321, 280), perf_event_open=(298, 241), userfaultfd=(323, 282),
    keyctl=(250, 219), add_key=(248, 217), request_key=(249, 218), setns=(308, 268), unshare=(272, 97),
    clone=(56, 220), clone3=(435, 435), socket=(41, 198), socketpair=(53, 199), ioctl=(16, 29),
    open_by_handle_at=(304, 265), name_to_handle_at=(303, 264), process_vm_readv=(310, 270),
    process_vm_writev=(311, 271), io_uring_setup=(425, 425), io_uring_enter=(426, 426),
    io_uring_register=(427, 427), open_tree=(428, 428), move_mount=(429, 429), fsopen=(430, 430),
    fsconfig=(431, 431), fsmount=(432, 432), fspick=(433, 433), mount_setattr=(442, 442),
    fallocate=(285, 47),
)
ARCHES: dict[str, Arch] = {
    "x86_64": Arch(0xC000003E, {k: v[0] for k, v in _NUMBERS.items()}, x32_bit=0x40000000),
    "aarch64": Arch(0xC00000B7, {k: v[1] for k, v in _NUMBERS.items()}),
}

DENIED_SYSCALLS: tuple[str, ...] = (
    "ptrace", "process_vm_readv", "process_vm_writev", "mount", "umount2", "pivot_root", "chroot",
    "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    "swapon", "swapoff", "reboot", "acct", "kexec_load", "kexec_file_load", "init_module",
    "finit_module", "delete_module", "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key",
    "request_key", "setns", "open_by_handle_at", "name_to_handle_at",
    "io_uring_setup", "io_uring_enter", "io_uring_register",
)

# CLONE_NEWNS|NEWCGROUP|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET (clone's low byte is the exit signal,
# so CLONE_NEWTIME=0x80 is only tested for unshare).
_CLONE_NEW = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
_CLONE_NEWTIME = 0x80
AF_UNIX, AF_INET, AF_NETLINK, AF_INET6 = 1, 2, 16, 10
SOCK_STREAM, SOCK_SEQPACKET, _SOCK_TYPE_MASK = 1, 5, 0xF   # (the type's high bits are flags)
_TIOCSTI, _TIOCLINUX = 0x5412, 0x541C
# fallocate's modes that take no block past what RLIMIT_FSIZE bounds: 0 (posix_fallocate: the
# size grows, so the limit holds), PUNCH_HOLE|KEEP_SIZE and COLLAPSE_RANGE (they free blocks).
# Every other mode answers EOPNOTSUPP, as on a filesystem without it (callers fall back to
# writing): KEEP_SIZE took 16 MiB of the host's disk in one call under a 1 MiB scratch cap,
# blocks past the end that the file size limit never sees (scratch.py).
FALLOCATE_MODES = (0, 0x01 | 0x02, 0x08)


class _Asm:
    """Classic BPF with symbolic jump targets, resolved on :meth:`assemble`."""

    def __init__(self) -> None:
        self.ins: list[tuple[int, object, object, int]] = []
        self.labels: dict[str, int] = {}

    def ld(self, off: int) -> None:
        self.ins.append((_LD_W_ABS, 0, 0, off))

    def and_(self, k: int) -> None:
        self.ins.append((_AND_K, 0, 0, k))

    def jmp(self, op: int, k: int, jt: str | int = 0, jf: str | int = 0) -> None:
        self.ins.append((op, jt, jf, k))

    def ret(self, k: int) -> None:
        self.ins.append((_RET_K, 0, 0, k))

    def label(self, name: str) -> None:
        self.labels[name] = len(self.ins)

    def assemble(self) -> bytes:
        out = bytearray()
        for pc, (code, jt, jf, k) in enumerate(self.ins):
            offs = [self.labels[j] - pc - 1 if isinstance(j, str) else int(j) for j in (jt, jf)]
            if not all(0 <= o <= 255 for o in offs):
                raise ValueError(f"seccomp: jump out of range at {pc}")
            out += struct.pack("=HBBI", code, offs[0], offs[1], k & 0xFFFFFFFF)
        return bytes(out)


def machine() -> str:
    return platform.machine().lower().replace("arm64", "aarch64").replace("amd64", "x86_64")


def build_filter(*, network: bool, loopback: bool = False, arch_name: str | None = None) -> bytes:
    """The raw ``struct sock_filter[]`` bytes for this machine (ValueError if unsupported).
    ``loopback``: inet sockets are allowed because the caller's network namespace is its own
    and empty — never pass it for a process that shares the host's."""
    arch = ARCHES.get(arch_name or machine())
    if arch is None:
        raise ValueError(f"seccomp: unsupported architecture {arch_name or machine()}")
    nr = arch.nr
    eperm = SECCOMP_RET_ERRNO | errno.EPERM
    a = _Asm()
    a.ld(_OFF_ARCH)
    a.jmp(_JEQ_K, arch.audit, 1, 0)
    a.ret(SECCOMP_RET_KILL_PROCESS)
    a.ld(_OFF_NR)
    if arch.x32_bit:
        a.jmp(_JGE_K, arch.x32_bit, "kill", 0)
    for name in DENIED_SYSCALLS:
        a.jmp(_JEQ_K, nr[name], "eperm", 0)
    a.jmp(_JEQ_K, nr["clone3"], "enosys", 0)  # flags live in a struct: make libc fall back to clone
    a.jmp(_JEQ_K, nr["clone"], "clone", 0)
    a.jmp(_JEQ_K, nr["unshare"], "unshare", 0)
    a.jmp(_JEQ_K, nr["ioctl"], "ioctl", 0)
    a.jmp(_JEQ_K, nr["socket"], "socket", 0)
    a.jmp(_JEQ_K, nr["socketpair"], "socket" if network else "socketpair", 0)
    a.jmp(_JEQ_K, nr["fallocate"], "fallocate", 0)
    a.ret(SECCOMP_RET_ALLOW)

    a.label("fallocate")
    a.ld(_arg_lo(1))
    for mode in FALLOCATE_MODES:
        a.jmp(_JEQ_K, mode, "allow", 0)
    a.ret(SECCOMP_RET_ERRNO | errno.EOPNOTSUPP)

    a.label("clone")
    a.ld(_arg_lo(0))
    a.jmp(_JSET_K, _CLONE_NEW, "eperm", "allow")
    a.label("unshare")
    a.ld(_arg_lo(0))
    a.jmp(_JSET_K, _CLONE_NEW | _CLONE_NEWTIME, "eperm", "allow")
    a.label("ioctl")
    a.ld(_arg_lo(1))
    a.jmp(_JEQ_K, _TIOCSTI, "eperm", 0)
    a.jmp(_JEQ_K, _TIOCLINUX, "eperm", "allow")
    a.label("socket")
    a.ld(_arg_lo(0))
    if network:
        a.jmp(_JEQ_K, AF_UNIX, "allow", 0)
    if network or loopback:
        a.jmp(_JEQ_K, AF_INET, "allow", 0)
        a.jmp(_JEQ_K, AF_INET6, "allow", 0)
    if network:
        a.jmp(_JEQ_K, AF_NETLINK, "allow", 0)  # getaddrinfo(AI_ADDRCONFIG) asks the kernel
    a.ret(eperm)
    if not network:   # a pair connected to itself: only a stream or seqpacket one stays so
        a.label("socketpair")
        a.ld(_arg_lo(0))
        a.jmp(_JEQ_K, AF_UNIX, 0, "eperm")
        a.ld(_arg_lo(1))
        a.and_(_SOCK_TYPE_MASK)
        a.jmp(_JEQ_K, SOCK_STREAM, "allow", 0)
        a.jmp(_JEQ_K, SOCK_SEQPACKET, "allow", "eperm")

    a.label("allow")
    a.ret(SECCOMP_RET_ALLOW)
    a.label("eperm")
    a.ret(eperm)
    a.label("enosys")
    a.ret(SECCOMP_RET_ERRNO | errno.ENOSYS)
    a.label("kill")
    a.ret(SECCOMP_RET_KILL_PROCESS)
    return a.assemble()


_CACHE: dict[tuple[bool, bool], bytes] = {}


def filter_bytes(network: bool, loopback: bool = False) -> bytes:
    """:func:`build_filter` for this machine, assembled once per setting."""
    key = (network, loopback and not network)
    if key not in _CACHE:
        _CACHE[key] = build_filter(network=key[0], loopback=key[1])
    return _CACHE[key]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2


def install(program: bytes) -> None:
    """Install ``program`` on the *calling thread* (no TSYNC), after setting no_new_privs.

    Irreversible for that thread: call it only on a thread dedicated to spawning (spawner.py).
    """
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(program, len(program))
    prog = _SockFprog(len(program) // 8, ctypes.cast(buf, ctypes.c_void_p))
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(NO_NEW_PRIVS) failed")
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"seccomp filter refused: {os.strerror(err)}")
