"""Many oracle runs through one sandbox start: one bwrap and one ``strace -ff`` for a batch.

Starting bubblewrap and strace is most of what one oracle run costs (bench/fuzz_throughput.py
prints the breakdown); the command itself is a few milliseconds. A :class:`BatchSandbox` starts
both once, with :mod:`.batchrunner` under the trace, and hands it one command at a time.
strace writes one file per process (``-ff``), closed when that process exits; the runner
answers only once every process of the command is dead and after a traced call of its own
that strace handles after those exits, so by then each of the command's files is complete (and
ends with the exit line, which is checked), and every file but the runner's belongs to exactly
this command. What the oracle sees of a command is therefore what a fresh sandbox would show:
every exec, open, connect and path call of every process the command started (the same strace
filter, the same ``-f``), its own stdout and stderr files, the watched trees' snapshot diff,
taken and restored between commands, and the canaries' atimes (re-armed between commands).
(One stream split by markers was tried first: strace buffers its output file, and a
line-buffered pipe cost a context switch per traced call.)

Isolation between commands: the watched trees are restored by the oracle as before; every
process of a command is dead before the next starts (the runner is a child subreaper and kills
what outlives the timeout); the sandbox's own writable places (its /dev, /dev/shm, /run) and
System V IPC are compared after each command and a change retires the sandbox. Anything
unexpected — the runner killed or stopped by a command, no answer within the watchdog, an
answer without the batch's nonce, a trace file without its exit line — also retires it, and
the caller runs the command again in a fresh single-use sandbox
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
TRACE_PREFIX = "bt."   # the trace file of process PID (strace -ff -o bt: bt.PID)
_EXITED = re.compile(r"^[\d.]+ \+\+\+ (?:exited with|killed by) ")
_FORK = re.compile(r"^(?:clone3?|v?fork)\(.*\)\s+=\s+(\d+)\s*$")


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
    missing: tuple[int, ...] = ()   # pids whose trace file the command removed
    stdout: str = ""
    stderr: str = ""


def runner_source() -> str:
    """The runner's text, read from the installed package (it runs as ``python3 -c``: the
    package directory may be hidden in the sandbox, e.g. under the masked real HOME)."""
    return Path(__file__).with_name("batchrunner.py").read_text(encoding="utf-8")


class BatchSandbox:
    """One running sandbox: ``sandbox_argv`` (bwrap ... ``--``) + ``strace -ff`` + the runner.

    ``spawn`` starts it (the oracle's, which lowers the resource limits the sandbox inherits).
    Not thread-safe; one per oracle."""

    def __init__(self, sandbox_argv: list[str], strace: str, python: str, traces: Path,
                 env: dict[str, str], out: Path, err: Path, log: Path, trace_cap: int,
                 spawn: Callable[..., subprocess.Popen[bytes]], pass_fds: tuple[int, ...] = (),
                 reads: bool = True) -> None:
        self.nonce = secrets.token_hex(8)
        self.traces, self.trace_cap = traces, trace_cap
        self.commands = 0
        self.runner = 0
        self._buf = b""
        self.output_cap = 1 << 20   # bytes of each output read (the oracle's OUTPUT_CAP)
        # The command's stdout and stderr: files opened here (at paths the sandbox does not
        # see) and handed down as fds, truncated by the runner before each command and read
        # here with pread — no path a command could replace or point elsewhere, and no open
        # per command.
        self._out = os.open(out, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        self._err = os.open(err, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        for old in traces.glob(TRACE_PREFIX + "*"):
            old.unlink()
        argv = [*sandbox_argv, *strace_argv(strace, str(traces / TRACE_PREFIX.rstrip(".")), reads),
                python, "-I", "-S", "-c", runner_source()]
        r_cmd, self._w_cmd = os.pipe()
        self._r_reply, w_reply = os.pipe()
        try:
            with open(log, "ab") as logf:
                self.proc = spawn(argv, stdin=r_cmd, stdout=subprocess.DEVNULL, stderr=logf,
                                  pass_fds=(w_reply, self._out, self._err, *pass_fds),
                                  start_new_session=True)
        except (OSError, ValueError) as exc:
            for fd in (r_cmd, w_reply, self._w_cmd, self._r_reply, self._out, self._err):
                os.close(fd)
            raise BatchBroken(f"cannot start the batch sandbox: {exc}") from exc
        os.close(r_cmd)
        os.close(w_reply)
        try:
            self._send({"nonce": self.nonce, "env": env, "out": self._out, "err": self._err,
                        "reply": w_reply})
            words = self._reply(time.monotonic() + START_WATCHDOG)
            if len(words) != 2 or words[0] != "ready" or not words[1].isdigit():
                raise BatchBroken(f"the batch runner did not start: {words!r}")
            self.runner = int(words[1])
        except BatchBroken:
            self.close()
            raise

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
            words = self._reply(start + timeout + WATCHDOG)
            duration = time.monotonic() - start
            if (len(words) != 5 or words[0] != str(i) or words[1] == "x" and words[2] == "0"
                    or not words[4].isdigit()):
                raise BatchBroken(f"the runner could not run command {i}: {words!r}")
            text, missing = self._collect(int(words[4]))
        except BatchBroken:
            self.close()
            raise
        ended = Ended(text, None if words[1] == "x" else int(words[1]), words[2] == "1",
                      words[3] == "1", duration, missing, self._output(self._out),
                      self._output(self._err))
        if ended.tainted or self.commands >= MAX_COMMANDS:
            self.close()
        return ended

    def _collect(self, first: int) -> tuple[str, tuple[int, ...]]:
        """The trace files of the command's processes (every file but the runner's), removed,
        merged into one log in the order the calls were made (``-ttt``: each line starts with
        its entry time; a child's calls come after its parent's fork line, as its program is
        inherited there). Each file must end with the process's end (``+++ exited``/``+++
        killed``), else it is not complete and the batch counts as broken. Also returns the
        pids whose file is missing — the first process's, or one a traced fork returned: the
        command deleted it (the directory is writable in the sandbox, for strace)."""
        merged: list[tuple[str, int, int, str]] = []
        pids: set[int] = set()
        forked: set[int] = {first}
        size = 0
        for path in self.traces.glob(TRACE_PREFIX + "*"):
            pid_text = path.name[len(TRACE_PREFIX):]
            if not pid_text.isdigit() or int(pid_text) == self.runner:
                continue
            with open(path, "rb") as f:
                data = f.read(self.trace_cap + 1)
            path.unlink()
            lines = data.decode("utf-8", errors="replace").splitlines()
            if len(data) <= self.trace_cap and not (lines and _EXITED.match(lines[-1])):
                raise BatchBroken(f"trace of pid {pid_text} is not complete: {lines[-1:]!r}")
            if size >= self.trace_cap:
                continue
            size += len(data)
            pid = int(pid_text)
            pids.add(pid)
            for n, line in enumerate(lines):
                when, _, rest = line.partition(" ")
                merged.append((when.rjust(24), pid, n, rest))
                m = _FORK.match(rest)
                if m:
                    forked.add(int(m.group(1)))
        merged.sort()
        text = "\n".join(f"{pid} {rest}" for _, pid, _, rest in merged)
        return text, tuple(sorted(forked - pids)) if size < self.trace_cap else ()

    def _output(self, fd: int) -> str:
        try:
            return os.pread(fd, self.output_cap, 0).decode("utf-8", errors="replace")
        except OSError:
            return ""

    def _send(self, obj: dict[str, object]) -> None:
        try:
            os.write(self._w_cmd, (json.dumps(obj) + "\n").encode())
        except OSError as exc:   # the runner is gone (EPIPE)
            raise BatchBroken(f"the batch runner is gone: {exc}") from exc

    def _reply(self, deadline: float) -> list[str]:
        """The runner's next answer (the words after the nonce)."""
        while b"\n" not in self._buf:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([self._r_reply], [], [], wait)[0]:
                raise BatchBroken("no answer from the batch runner in time")
            chunk = os.read(self._r_reply, 4096)
            if not chunk:
                raise BatchBroken("the batch runner is gone")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        words = line.decode(errors="replace").split()
        if not words or words[0] != self.nonce:
            raise BatchBroken("an answer without the batch's nonce")
        return words[1:]

    def close(self) -> None:
        """Kill the whole sandbox (its PID namespace dies with bwrap) and reap it."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        for fd in (self._w_cmd, self._r_reply, self._out, self._err):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._w_cmd = self._r_reply = self._out = self._err = -1
        for path in self.traces.glob(TRACE_PREFIX + "*"):
            with contextlib.suppress(OSError):
                path.unlink()


def strace_argv(strace: str, prefix: str, reads: bool = True) -> list[str]:
    """The oracle's strace words, one file per process (``PREFIX.PID``, closed at its exit) and
    each ending with the process's end: ``+++ exited`` (``-q``, not ``-qq``) or ``+++ killed``
    (printed only for a signal in the ``-e signal=`` set: all of them, so the ``--- SIG``
    lines are in the files too; the parser skips them). That last line is how a file is known
    complete. ``-ttt`` puts each call's time first, so that the files merge in call order."""
    words = trace.strace_argv(strace, prefix, reads)
    words[words.index("-qq")] = "-q"
    words[words.index("signal=none")] = "signal=all"
    return [words[0], "-ff", "-ttt", *words[1:]]
