"""Seeing a canary read without tracing reads: the canary's access time.

Tracing ``read``, ``mmap`` and the other calls that move bytes cost a ptrace stop each — about
half of a traced command's stops, nearly all of them a library or a locale file. The kernel
already notes every way bytes come out of a regular file: ``read``/``readv``/``pread*``
(buffered or ``O_DIRECT``), ``mmap``, ``sendfile``, ``splice``/``tee`` and ``copy_file_range``
all end in ``file_accessed()``, which moves the inode's atime, whatever path or fd reached it
(a symlink, a hard link, ``/proc/self/fd/N``); ``tests/test_fuzz_atime.py`` runs each.
Opening, ``stat``, ``statfs`` and xattrs do not, so ``df``/``stat``/``ls -l`` of a canary stay
clean, as with the trace. (A read at the end of the file, of no byte, moves it too: reported,
where the trace saw a read of 0 bytes and did not.)

Under ``relatime`` (the default mount option) the atime moves when it is not newer than the
mtime or the ctime, so a canary is *armed* by setting its atime a second before its mtime
(which also moves its ctime to now): any read sets it to the clock, so a command read it iff
the atime differs afterwards. The oracle keeps an fd on
every armed canary, so a canary renamed or deleted after being read is still seen, and checks
before each command too: what moved the atime between two runs (the caller's own process, any
other on the host: the atime does not say who) is re-armed, not put on the next command.

What bypasses atime, and how each is closed:

- ``O_NOATIME`` (the file's owner may ask for it, and in the sandbox that is the command):
  :func:`seccomp_filter` makes ``open``/``openat``/``open_by_handle_at`` with it and
  ``fcntl(F_SETFL, …|O_NOATIME)`` fail with EPERM (what a non-owner gets), and refuses
  ``openat2`` (its flags are out of the filter's reach) and ``io_uring_setup`` (its requests
  carry their own flags) with ENOSYS, as an older kernel would; another ABI's calls (i386
  via ``int 0x80``, x32) kill the process;
- a ``noatime`` mount or a filesystem without atimes: the oracle's probe reads every canary in
  a sandbox and falls back to tracing reads unless each atime moved;
- ``chattr +A`` (``S_NOATIME``), ``touch -a`` back to the old time: both move the ctime, so the
  snapshot diff reports them (and the restore replaces the file);
- a read-only mount (no atime there): the fixture's template, which holds the same tokens, and
  every other world beside this one are masked in the sandbox (:meth:`.oracle.Oracle._dir_to_mask`).
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterable
from pathlib import Path

O_NOATIME = 0o1000000   # the same on x86_64 and asm-generic (aarch64)
F_SETFL = 4

# Per machine: syscall -> the index of its open-flags argument; fcntl; refused outright.
# (The assembler, the arch check and the x32 bit are the sandbox's own: ..sandbox.seccomp.)
_OPENS = {"x86_64": {2: 1, 257: 2, 304: 2},      # open, openat, open_by_handle_at
          "aarch64": {56: 2, 265: 2}}            # openat, open_by_handle_at
_FCNTL = {"x86_64": 72, "aarch64": 25}
_REFUSED = (437, 425)                            # openat2, io_uring_setup (same on both)


def seccomp_filter(arch_name: str | None = None) -> bytes | None:
    """The filter (``struct sock_filter[]``, for ``bwrap --seccomp FD``) that keeps a command
    from reading a file without moving its atime, or None on a machine whose syscall numbers
    are not known here (reads are traced there). As in the sandbox's own filter, a call of
    another ABI (i386, x32) kills the process: its numbers would mean something else."""
    from ..sandbox import seccomp as sc

    name = arch_name or sc.machine()
    if name not in _OPENS or name not in sc.ARCHES:
        return None
    arch = sc.ARCHES[name]
    a = sc._Asm()
    a.ld(sc._OFF_ARCH)
    a.jmp(sc._JEQ_K, arch.audit, 1, 0)
    a.ret(sc.SECCOMP_RET_KILL_PROCESS)
    a.ld(sc._OFF_NR)
    if arch.x32_bit:
        a.jmp(sc._JGE_K, arch.x32_bit, "kill", 0)
    for nr in _REFUSED:
        a.jmp(sc._JEQ_K, nr, "enosys", 0)
    for nr, i in _OPENS[name].items():
        a.jmp(sc._JEQ_K, nr, f"flags{i}", 0)
    a.jmp(sc._JEQ_K, _FCNTL[name], "fcntl", 0)
    a.ret(sc.SECCOMP_RET_ALLOW)
    for i in sorted(set(_OPENS[name].values())):
        a.label(f"flags{i}")
        a.ld(sc._arg_lo(i))
        a.jmp(sc._JSET_K, O_NOATIME, "eperm", "allow")
    a.label("fcntl")
    a.ld(sc._arg_lo(1))
    a.jmp(sc._JEQ_K, F_SETFL, 0, "allow")
    a.ld(sc._arg_lo(2))
    a.jmp(sc._JSET_K, O_NOATIME, "eperm", "allow")
    a.label("allow")
    a.ret(sc.SECCOMP_RET_ALLOW)
    a.label("eperm")
    a.ret(sc.SECCOMP_RET_ERRNO | errno.EPERM)
    a.label("enosys")
    a.ret(sc.SECCOMP_RET_ERRNO | errno.ENOSYS)
    a.label("kill")
    a.ret(sc.SECCOMP_RET_KILL_PROCESS)
    return a.assemble()


@contextlib.contextmanager
def filter_fd(program: bytes):
    """A readable fd holding ``program`` (the read end of a pipe, closed on exit): what
    ``bwrap --seccomp FD`` reads, once per sandbox start."""
    r, w = os.pipe()
    try:
        os.write(w, program)   # a few hundred bytes: within any pipe's buffer
    finally:
        os.close(w)
    try:
        yield r
    finally:
        os.close(r)


class CanaryWatch:
    """An fd on each canary and the atime it was armed with; :meth:`read` says which moved."""

    def __init__(self, paths: Iterable[Path]) -> None:
        self.paths = tuple(str(p) for p in paths)
        self._fds: list[int] = []
        self._armed: list[int] = []

    def arm(self) -> None:
        """(Re)open every canary (a restore may have replaced it) and set its atime before its
        mtime: older than mtime and ctime, so the next read moves it, even under relatime."""
        self.close()
        for path in self.paths:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
            self._fds.append(fd)
            self._armed.append(self._rearm(fd))

    @staticmethod
    def _rearm(fd: int) -> int:
        # A second before the mtime, not the mtime itself: a read sets the atime to the
        # clock, which on a coarse-grained clock may still equal an mtime just written by a
        # restore (the read would then leave the atime as armed).
        st = os.fstat(fd)
        os.utime(fd, ns=(st.st_mtime_ns - 1_000_000_000, st.st_mtime_ns))
        return os.fstat(fd).st_atime_ns

    def read(self) -> list[int]:
        """Indexes of the canaries read since they were armed."""
        return [i for i, fd in enumerate(self._fds) if os.fstat(fd).st_atime_ns != self._armed[i]]

    def rearm(self, indexes: Iterable[int]) -> None:
        """Arm these canaries again in place (after a read that changed nothing else)."""
        for i in indexes:
            self._armed[i] = self._rearm(self._fds[i])

    def close(self) -> None:
        for fd in self._fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds, self._armed = [], []
