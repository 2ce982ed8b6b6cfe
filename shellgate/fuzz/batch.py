"""Many oracle runs through one sandbox start: one bwrap and one ``strace -f`` for a batch.

Starting bubblewrap and strace is most of what one oracle run costs (bench/fuzz_throughput.py
prints the breakdown); the command itself is a few milliseconds. A :class:`BatchSandbox` starts
both once, with :mod:`.batchrunner` under the trace, and hands it one command at a time. The
trace arrives on a pipe, line-buffered (``strace -o '|cat'``: strace buffers a plain output file
until it exits, so lines would come too late), and is split per command by the runner's
markers — a marker is only taken from the runner's pid, learned before any command ran, and
the runner only marks a command's end once every process it started is dead, so each traced
line of another process belongs to exactly one command. What the oracle sees of a command is
therefore what a fresh sandbox would show: every exec, open, connect and path call of every
process the command started (the same strace filter, the same ``-f``), its own stdout and
stderr files, and the watched trees' snapshot diff, taken and restored between commands.

Isolation between commands: the watched trees are restored by the oracle as before; every
process of a command is dead before the next starts (the runner is a child subreaper and kills
what outlives the timeout); the sandbox's own writable places (its /dev, /dev/shm, /run) and
System V IPC are compared after each command and a change retires the sandbox. Anything
unexpected — the runner killed or stopped by a command, the stream ending, no marker within the
watchdog — also retires it, and the caller runs the command again in a fresh single-use sandbox
(:meth:`.oracle.Oracle.run` does), so a broken batch never yields an observation.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import select
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from .._record import record
from . import trace

WATCHDOG = 10.0          # seconds past a command's timeout before the sandbox counts as broken
START_WATCHDOG = 30.0    # seconds for the runner to start under strace (a loaded machine)
MAX_COMMANDS = 2000      # then a fresh sandbox: strace's and the kernel's per-sandbox state stays small
MARK_ROOT = "/proc/shellgate-batch"   # as in batchrunner.py (a test holds them equal)
_PID = re.compile(rb"^(\d+)\s")


class BatchBroken(RuntimeError):
    """The batch sandbox cannot be used (any more): run the command in a single-use one."""


@record
class Ended:
    """One command's run in the batch: its traced lines, exit status and what the runner saw."""

    trace: str
    code: int | None
    timed_out: bool
    tainted: bool
    duration: float


def runner_source() -> str:
    """The runner's text, read from the installed package (it runs as ``python3 -c``: the
    package directory may be hidden in the sandbox, e.g. under the masked real HOME)."""
    return Path(__file__).with_name("batchrunner.py").read_text(encoding="utf-8")


class BatchSandbox:
    """One running sandbox: ``sandbox_argv`` (bwrap ... ``--``) + strace + the runner.

    ``spawn`` starts it (the oracle's, which lowers the resource limits the sandbox inherits).
    Not thread-safe; one per oracle."""

    def __init__(self, sandbox_argv: list[str], strace: str, python: str, cat: str,
                 env: dict[str, str], out: Path, err: Path, log: Path, trace_cap: int,
                 spawn: Callable[..., subprocess.Popen[bytes]]) -> None:
        self.nonce = secrets.token_hex(8)
        self.out, self.err, self.trace_cap = out, err, trace_cap
        self.commands = 0
        self._buf = b""
        self._runner: bytes | None = None
        self._marker = re.compile(rb'openat\(.*?"' + re.escape(MARK_ROOT.encode())
                                  + rb"/" + self.nonce.encode() + rb'/([^"]+)", O_RDONLY')
        argv = [*sandbox_argv, *trace.strace_argv(strace, f"|exec {cat}"),
                python, "-I", "-S", "-c", runner_source()]
        r_cmd, self._w_cmd = os.pipe()
        self._r_trace, w_trace = os.pipe()
        try:
            with open(log, "ab") as logf:
                self.proc = spawn(argv, stdin=r_cmd, stdout=w_trace, stderr=logf,
                                  start_new_session=True)
        except (OSError, ValueError) as exc:
            for fd in (r_cmd, w_trace, self._w_cmd, self._r_trace):
                os.close(fd)
            raise BatchBroken(f"cannot start the batch sandbox: {exc}") from exc
        os.close(r_cmd)
        os.close(w_trace)
        try:
            self._send({"nonce": self.nonce, "env": env, "out": str(out), "err": str(err)})
            got = self._read_until(b"ready", time.monotonic() + START_WATCHDOG)
        except BatchBroken:
            self.close()
            raise
        if got is None:
            self.close()
            raise BatchBroken("the batch runner did not start")

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def run(self, argv: list[str], cwd: str, timeout: float) -> Ended:
        """Run one command; :class:`BatchBroken` (and the sandbox closed) if anything is off."""
        self.commands += 1
        i = self.commands
        start = time.monotonic()
        try:
            self._send({"i": i, "argv": argv, "cwd": cwd, "timeout": timeout})
            got = self._read_until(f"{i}/end/".encode(), start + timeout + WATCHDOG)
        except BatchBroken:
            self.close()
            raise
        duration = time.monotonic() - start
        if got is None:
            self.close()
            raise BatchBroken(f"no end marker for command {i}")
        lines, tag = got
        parts = tag.decode().split("/")   # I, end, CODE, TIMED_OUT, TAINTED
        if len(parts) != 5 or parts[2] == "x" and parts[3] == "0":
            self.close()
            raise BatchBroken(f"the runner could not run command {i}: {tag!r}")
        code = None if parts[2] == "x" else int(parts[2])
        ended = Ended(b"\n".join(lines).decode("utf-8", errors="replace"), code,
                      parts[3] == "1", parts[4] == "1", duration)
        if ended.tainted or self.commands >= MAX_COMMANDS:
            self.close()
        return ended

    def _send(self, obj: dict[str, object]) -> None:
        try:
            os.write(self._w_cmd, (json.dumps(obj) + "\n").encode())
        except OSError as exc:   # the runner is gone (EPIPE)
            raise BatchBroken(f"the batch runner is gone: {exc}") from exc

    def _read_until(self, tag: bytes, deadline: float) -> tuple[list[bytes], bytes] | None:
        """The other processes' lines up to the runner's marker starting with ``tag`` (and the
        marker's text), or None when the stream ended or the deadline passed."""
        kept: list[bytes] = []
        size = 0
        while True:
            lines = self._buf.split(b"\n")
            self._buf = lines.pop()
            for n, line in enumerate(lines):
                m = _PID.match(line)
                if m is None:
                    continue
                if self._runner is None or m.group(1) == self._runner:
                    mk = self._marker.search(line)
                    if mk is None:
                        continue   # the runner's own calls, or Python starting up
                    if self._runner is None and mk.group(1) == b"ready":
                        self._runner = m.group(1)
                    if mk.group(1).startswith(tag):
                        self._buf = b"\n".join([*lines[n + 1:], self._buf])
                        return kept, mk.group(1)
                    continue
                if size < self.trace_cap:
                    kept.append(line)
                    size += len(line) + 1
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([self._r_trace], [], [], wait)[0]:
                return None
            chunk = os.read(self._r_trace, 1 << 16)
            if not chunk:
                return None
            self._buf += chunk

    def close(self) -> None:
        """Kill the whole sandbox (its PID namespace dies with bwrap) and reap it."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        for fd in (self._w_cmd, self._r_trace):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._w_cmd = self._r_trace = -1
