"""``shellgate fuzz --ray [ADDRESS]``: the campaign's partitions as Ray tasks.

Partition ``i`` of seed ``s`` generates exactly what worker ``i`` of ``--jobs`` generates
(:func:`shellgate.fuzz.campaign.stream_seed`), so a campaign with a fixed seed, partition
count and command budget finds the same things on Ray as with local processes. Each task
builds its own sandboxed world on its node (bwrap and strace must be there: ``doctor --ray``),
runs the worker loop of :mod:`shellgate.fuzz.campaign` and streams its messages back through a
Ray queue, tagged with its node's name; the driver minimizes nothing itself but deduplicates,
shows the live bar and writes the findings (:class:`~shellgate.fuzz.campaign.Collector`).
"""

from __future__ import annotations

import queue
import socket
import time
from typing import Any

from ..fuzz import campaign
from . import Session

QUEUE_SIZE = 10_000   # messages waiting for the driver; a full queue slows the workers down


def partition_main(spec: campaign.WorkerSpec, material: Any, out: Any) -> int:
    """One partition on a worker (a Ray task): the same loop as a local worker process."""
    spec.material = material
    out.put(("node", spec.index, socket.gethostname()))
    campaign._worker_main(spec, out)
    return spec.index


def make_runner(address: str | None) -> campaign.Runner:
    """A :func:`campaign.run` replacement that runs the partitions on Ray at ``address``."""

    def run_on_ray(seconds: float, seed: int = 0, jobs: int = 0, config: str | None = None,
                   mode: str = "balanced", timeout: float = 3.0, gate_factory: Any = None,
                   progress: campaign.Progress | None = None, material: Any = None,
                   max_commands: int | None = None, dialect: str = "bash", round: int = 0,
                   known: tuple[tuple[str, str], ...] = ()) -> campaign.Result:
        return run(seconds, seed, jobs, config, mode, timeout, gate_factory=gate_factory,
                   progress=progress, material=material, max_commands=max_commands,
                   dialect=dialect, round=round, known=known, address=address)

    return run_on_ray


def run(seconds: float, seed: int = 0, jobs: int = 0, config: str | None = None,
        mode: str = "balanced", timeout: float = 3.0, gate_factory: Any = None,
        progress: campaign.Progress | None = None, material: Any = None,
        max_commands: int | None = None, dialect: str = "bash", round: int = 0,
        known: tuple[tuple[str, str], ...] = (), address: str | None = None) -> campaign.Result:
    """:func:`campaign.run` on Ray: ``jobs`` partitions (0 = one per CPU of the cluster)."""
    material = material or campaign.build_material(config)
    with Session(address, num_cpus=jobs or None) as session:
        ray = session.ray
        from ray.util.queue import Queue

        partitions = jobs or session.cpus()
        out = Queue(maxsize=QUEUE_SIZE, actor_options={"num_cpus": 0})
        specs = campaign.worker_specs(seconds, seed, partitions, config, mode, timeout, None,
                                      gate_factory, max_commands, dialect, round, known)
        task = ray.remote(num_cpus=1, max_retries=0)(partition_main)
        shared = ray.put(material)
        refs = [task.remote(spec, shared, out) for spec in specs]
        col = campaign.Collector(len(refs), known)
        deadline = specs[0].deadline
        stopped = False
        try:
            while not col.finished:
                try:
                    msg, idx, payload = out.get(timeout=0.2)
                except queue.Empty:
                    ended, _ = ray.wait(refs, num_returns=len(refs), timeout=0)
                    if time.time() > deadline + campaign.GRACE or (
                            len(ended) == len(refs) and out.empty()):
                        _collect_failures(ray, refs, col)
                        break
                    if progress:
                        progress(col, time.time() - col.start)
                    continue
                col.take(msg, idx, payload)
                if progress:
                    progress(col, time.time() - col.start)
        except KeyboardInterrupt:
            stopped = True
        finally:
            for ref in refs:
                ray.cancel(ref, force=True)
            col.remove_worlds()
            ray.kill(out.actor)
        return col.result(dialect, stopped)


def _collect_failures(ray: Any, refs: list[Any], col: campaign.Collector) -> None:
    """Every task ended but not every partition said "done": report how the others died."""
    for ref in refs:
        try:
            ray.get(ref, timeout=0)
        except Exception as exc:  # a task error, a dead worker, a lost node
            col.fatal.append(f"ray task: {type(exc).__name__}: {str(exc)[:500]}")
