"""``shellgate check --jsonl FILE --ray [ADDRESS]``: the batch check spread over a Ray cluster.

The driver reads the input lazily, sends it in chunks of :data:`CHUNK` lines as Ray tasks and
writes the results in input order. At most :data:`WINDOW_PER_CPU` chunks per cluster CPU are
in flight (sent, or done and not yet written), so the driver's memory does not grow with the
input, whatever its size. Each worker process builds its :class:`~shellgate.check.Gate` once
per parameter set and keeps it for every later chunk; a line is checked exactly as
``--jobs`` checks it (:func:`shellgate.checkcli._check_line`), so the output is the same.

On a cluster, ``--cwd`` (default: the driver's cwd) is read on the worker's node: verdicts
that depend on the disk (symlinks, the repository's git config) are those of that node; a cwd
that does not exist there makes every command a deny (fail closed).
"""

from __future__ import annotations

import itertools
import os
from collections import deque
from collections.abc import Iterable, Iterator
from typing import IO, Any

from . import Session

CHUNK = 256            # lines per task: ~0.1 s of checking, against ~1 ms of Ray overhead
WINDOW_PER_CPU = 3     # chunks in flight per cluster CPU

Params = tuple[str | None, str, str | None, bool]   # mode, cwd, config, plan

_params: Params | None = None


def check_chunk(params: Params, lines: list[str]) -> list[str]:
    """One chunk on a worker: the gate is built on the first chunk with these parameters."""
    from .. import checkcli

    global _params
    if _params != params:
        checkcli._init_worker(*params)
        _params = params
    return [checkcli._check_line(line) for line in lines]


def check_lines(lines: Iterable[str], *, mode: str | None, cwd: str | None, config: str | None,
                plan: bool, address: str | None, jobs: int = 0,
                chunk: int = CHUNK) -> Iterator[str]:
    """Results for ``lines`` in input order, computed on Ray (``jobs``: CPUs of a local
    instance, 0 = all cores; ignored when connecting to a cluster)."""
    params: Params = (mode, cwd or os.getcwd(), config, plan)
    with Session(address, num_cpus=jobs or None) as session:
        ray = session.ray
        task = ray.remote(num_cpus=1)(check_chunk)
        window = WINDOW_PER_CPU * session.cpus()
        source = iter(lines)
        pending: deque[Any] = deque()

        def submit() -> bool:
            batch = list(itertools.islice(source, chunk))
            if batch:
                pending.append(task.remote(params, batch))
            return bool(batch)

        while len(pending) < window and submit():
            pass
        try:
            while pending:
                done = ray.get(pending.popleft())
                submit()
                yield from done
        finally:
            for ref in pending:   # the consumer stopped early: drop what is still queued
                ray.cancel(ref, force=False)


def run_batch(src: IO[str], out: IO[str], *, mode: str | None, cwd: str | None,
              config: str | None, plan: bool, address: str | None, jobs: int = 0) -> int:
    from ..checkcli import _lines, announce_rules, make_gate

    announce_rules(make_gate(mode, cwd, config, plan))
    for result in check_lines(_lines(src), mode=mode, cwd=cwd, config=config, plan=plan,
                              address=address, jobs=jobs):
        out.write(result + "\n")
    out.flush()
    return 0
