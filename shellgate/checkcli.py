"""``shellgate check``: one command (human or JSON) or a JSONL batch.

The batch streams: lines are read lazily and results written in input order, so memory stays
flat over millions of commands; ``--jobs`` spreads the work over processes.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Iterator
from typing import IO

from .check import Gate, Verdict

DECISION_EXIT = {"allow": 0, "ask": 3, "deny": 4}  # the README's exit-code table


def exit_code(verdict: Verdict) -> int:
    """The exit code of ``check``/``explain`` for a verdict; anything unexpected is a deny."""
    return DECISION_EXIT.get(verdict.decision, DECISION_EXIT["deny"])
_CHUNK = 64
_WINDOW_CHUNKS = 4     # per worker: chunks in flight before reading more input


def make_gate(mode: str | None, cwd: str | None, config: str | None, plan: bool,
              terminal: bool = True) -> Gate:
    return Gate(workspace=cwd or os.getcwd(), mode=mode, config=config, plan=plan,
                terminal=terminal)


def announce_rules(gate: Gate) -> None:
    """The rule notices of the config ``gate`` loads, on stderr (never on stdout, where
    ``--json`` and ``--jsonl`` answers go)."""
    from .approval import announce

    announce(gate.rule_notices(), sys.stderr)


def run_one(command: str, *, mode: str | None, cwd: str | None, config: str | None, plan: bool,
            as_json: bool, out: IO[str] | None = None) -> int:
    gate = make_gate(mode, cwd, config, plan)
    announce_rules(gate)
    verdict = gate.check(command, cwd=cwd)
    if as_json:
        print(verdict_json(verdict), file=out)
    else:
        from .render import print_verdict

        print_verdict(verdict, file=out)
    return exit_code(verdict)


# --- batch -------------------------------------------------------------------------------

_worker_gate: Gate | None = None


def _init_worker(mode: str | None, cwd: str | None, config: str | None, plan: bool) -> None:
    global _worker_gate
    _worker_gate = make_gate(mode, cwd, config, plan)


def _check_line(line: str) -> str:
    """One input line -> one output line. Bad input yields an error object, never a crash."""
    assert _worker_gate is not None
    try:
        obj = json.loads(line)
        cmd = obj.get("cmd") if isinstance(obj, dict) else None
        if not isinstance(cmd, str):
            raise ValueError("expected a JSON object with a string 'cmd' key")
    except ValueError as exc:
        return json.dumps({"error": f"bad input line: {exc}", "decision": "deny"})
    return verdict_json(_worker_gate.check(cmd))


def _lines(src: IO[str]) -> Iterator[str]:
    for line in src:
        if line.strip():
            yield line


def check_lines(lines: Iterable[str], *, mode: str | None, cwd: str | None, config: str | None,
                plan: bool, jobs: int) -> Iterator[str]:
    """Results for ``lines`` in input order, using ``jobs`` processes (0 = all cores)."""
    jobs = os.cpu_count() or 1 if jobs <= 0 else jobs
    if jobs == 1:
        _init_worker(mode, cwd, config, plan)
        yield from map(_check_line, lines)
        return
    import multiprocessing as mp
    import threading

    # Pool.imap keeps every finished result until it is read: when the output is slower than
    # the workers, memory would grow with the input. A window of lines in flight bounds it
    # (at least one chunk, or the feeder could wait for its own unsent chunk).
    window = threading.BoundedSemaphore(max(_CHUNK, jobs * _CHUNK * _WINDOW_CHUNKS))
    stop = threading.Event()

    def fed() -> Iterator[str]:
        for line in lines:
            while not window.acquire(timeout=0.1):
                if stop.is_set():  # the consumer is gone: let the pool shut down
                    return
            yield line

    ctx = mp.get_context("forkserver")
    with ctx.Pool(jobs, initializer=_init_worker, initargs=(mode, cwd, config, plan)) as pool:
        try:
            for result in pool.imap(_check_line, fed(), chunksize=_CHUNK):
                window.release()
                yield result
        finally:
            stop.set()  # before the pool's exit joins the feeder thread


def run_batch(src: IO[str], out: IO[str], *, mode: str | None, cwd: str | None,
              config: str | None, plan: bool, jobs: int) -> int:
    announce_rules(make_gate(mode, cwd, config, plan))  # once, here, not in each worker
    for result in check_lines(_lines(src), mode=mode, cwd=cwd, config=config, plan=plan,
                              jobs=jobs):
        out.write(result + "\n")
    out.flush()
    return 0


def verdict_json(verdict: Verdict) -> str:
    return json.dumps(verdict.to_json(), ensure_ascii=False)
