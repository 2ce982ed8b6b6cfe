"""Per-command overhead of each sandbox tier and of BashTool.run, against plain `bash -c true`.

Interleaved rounds (every method once per round, shuffled with a fixed seed) so that noise
hits all methods alike; medians and p95 in milliseconds, ratios against plain bash. Rows:
every tier with a fresh sandbox per command, the pre-spawned bwrap sandbox (the default when
bwrap works), and BashTool.run('true') at the default tier (pre-spawned) and with
``prespawn=False``. The load average is printed before and after: on a shared machine,
compare ratios within one run, not absolute numbers across runs.

    python bench/exec_overhead.py [-n ROUNDS]

Goal: BashTool.run('true') at the default tier within 3x plain `bash -c true`.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shellgate.sandbox import Sandbox, SandboxUnavailable, build_policy, probe  # noqa: E402
from shellgate.tools import BashTool  # noqa: E402


def _p95(xs: list[float]) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(0.95 * (len(s) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", "--rounds", type=int, default=200)
    args = ap.parse_args()
    load_before = os.getloadavg()

    tmp = Path(tempfile.mkdtemp(prefix="shellgate-bench-"))
    ws = tmp / "ws"
    ws.mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    os.environ.setdefault("XDG_STATE_HOME", str(tmp / "state"))
    bash = probe().bash
    policy = build_policy(ws)

    methods: dict[str, Callable[[], object]] = {
        "plain bash -c true": lambda: subprocess.run(
            [bash, "-c", "true"], stdin=subprocess.DEVNULL, capture_output=True,
            cwd=ws, check=False),
    }
    skipped: list[str] = []
    closers: list[Callable[[], None]] = []
    for tier in ("bwrap", "landlock", "none"):
        try:
            sb = Sandbox(tier, prespawn=False)
        except SandboxUnavailable as exc:
            skipped.append(f"{tier}: {exc}")
            continue
        closers.append(sb.close)
        methods[f"Sandbox({tier!r}) fresh"] = (lambda sb=sb: sb.run("true", policy))
        if tier == "bwrap":
            pre = Sandbox(tier)
            closers.append(pre.close)
            methods["Sandbox('bwrap') pre-spawned"] = lambda pre=pre: pre.run("true", policy)
    tool = BashTool(ws, "trust", audit=False, store=False, user_config=False)
    closers.append(tool.close)
    methods[f"BashTool.run('true') [{tool.sandbox.description}]"] = lambda: tool.run("true")
    if tool.sandbox.prespawn:
        fresh_tool = BashTool(ws, "trust", audit=False, store=False, user_config=False,
                              sandbox=Sandbox(tool.sandbox.tier, prespawn=False))
        closers.append(fresh_tool.close)
        methods["BashTool.run('true') [bwrap fresh]"] = lambda: fresh_tool.run("true")

    times: dict[str, list[float]] = {name: [] for name in methods}
    for fn in methods.values():  # warm-up (probe, spawner threads, imports)
        for _ in range(3):
            fn()
    rng = random.Random(1)
    order = list(methods)
    for _ in range(args.rounds):
        rng.shuffle(order)
        for name in order:
            t0 = time.perf_counter()
            methods[name]()
            times[name].append((time.perf_counter() - t0) * 1000)

    load_after = os.getloadavg()
    for close in closers:
        close()
    base = statistics.median(times["plain bash -c true"])
    print(f"default tier: {tool.sandbox.description}   rounds: {args.rounds}   "
          f"cpus: {os.cpu_count()}")
    print("load average before: {:.2f} {:.2f} {:.2f}".format(*load_before)
          + "   after: {:.2f} {:.2f} {:.2f}".format(*load_after))
    print(f"{'method':52} {'median ms':>10} {'p95 ms':>8} {'x plain':>8}")
    for name, xs in times.items():
        med = statistics.median(xs)
        print(f"{name:52} {med:10.2f} {_p95(xs):8.2f} {med / base:8.2f}")
    for s in skipped:
        print(f"skipped {s}")
    subprocess.run(["rm", "-rf", str(tmp)], check=False)


if __name__ == "__main__":
    main()
