"""``shellgate doctor --ray [ADDRESS]``: can every node of the cluster run the Ray jobs?

One task per alive node, pinned to it, reports what that node has: shellgate itself (a task
that cannot import it fails, and says so), a trusted bwrap that starts (the fuzz oracle refuses
to run anything without it), a trusted strace (without it the oracle sees only file changes and
output: missing is an error for fuzzing), a writable place for the fuzz worlds, and the
programs of the non-bash dialects (information only). The driver's own view is not a node's.
"""

from __future__ import annotations

import socket
from typing import Any

from . import Session

CheckTuple = tuple[str, bool, str, str]   # name, ok, detail, level (doctor.Check's fields)


def node_checks() -> tuple[str, list[CheckTuple]]:
    """Runs on a node: (its host name, its checks)."""
    from ..fuzz import oracle
    from ..fuzz.dialects import DIALECTS
    from ..sandbox.trusted import find_program

    out: list[CheckTuple] = []
    try:
        out.append(("bwrap", True, f"{oracle.preflight()} starts", "error"))
    except oracle.OracleUnavailable as exc:
        out.append(("bwrap", False, f"missing or broken: {exc}", "error"))
    found, refused = find_program("strace")
    out.append(("strace", bool(found), found[0].path if found else
                "missing: install strace (the oracle would see no exec, read or connect)"
                + (f" ({'; '.join(refused)})" if refused else ""), "error"))
    try:
        out.append(("fuzz world dir", True, oracle._base_dir(), "error"))
    except oracle.OracleUnavailable as exc:
        out.append(("fuzz world dir", False, str(exc), "error"))
    for name, d in DIALECTS.items():
        if name != "bash":
            missing = d.missing()
            out.append((f"dialect {name}", not missing,
                        "ready" if not missing else f"needs {', '.join(missing)}", "info"))
    return socket.gethostname(), out


def report(address: str | None) -> Any:
    """A doctor :class:`~shellgate.integrations.doctor.Report` with every node's checks."""
    from ..integrations.doctor import Check, Report

    with Session(address) as session:
        ray = session.ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        nodes = [n for n in ray.nodes() if n.get("Alive")]
        task = ray.remote(num_cpus=0, max_retries=0)(node_checks)
        refs = {n["NodeID"]: task.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
            n["NodeID"], soft=False)).remote() for n in nodes}
        checks = [Check("ray", True, f"{len(nodes)} node(s) alive at {address or 'local'}", "info")]
        for node in nodes:
            where = node.get("NodeManagerAddress", "?")
            try:
                host, found = ray.get(refs[node["NodeID"]], timeout=120)
            except Exception as exc:  # shellgate not importable there, node lost, timeout
                checks.append(Check(f"node {where}", False,
                                    f"cannot run shellgate there: {type(exc).__name__}: "
                                    f"{str(exc).strip().splitlines()[-1][:300] if str(exc).strip() else ''}"))
                continue
            checks += [Check(f"node {host} ({where}) {name}", ok, detail, level)
                       for name, ok, detail, level in found]
        return Report(tuple(checks))


def main(address: str | None, as_json: bool = False) -> tuple[str, int]:
    import json

    r = report(address)
    return (json.dumps(r.to_json(), indent=2) if as_json else r.render()), 0 if r.ok else 1
