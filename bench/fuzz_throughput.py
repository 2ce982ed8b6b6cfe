"""Fuzz campaign throughput: commands generated per second, executed per second, and what one
oracle run costs (clean run, run that dirties the world, world rebuild), batched (one sandbox
start for many runs: shellgate/fuzz/batch.py) against a single-use sandbox per run.

    python bench/fuzz_throughput.py [SECONDS] [JOBS] [CONFIG]

Uses the real gate (``shellgate.check.Gate``); the default policy unless CONFIG is given
(e.g. fuzz/policies/sort_find.toml). Prints medians and rates; not a test.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shellgate.fuzz import campaign, fixture  # noqa: E402
from shellgate.fuzz.generators import Generator, SeededRng  # noqa: E402
from shellgate.fuzz.oracle import Oracle, OracleUnavailable  # noqa: E402


def median_ms(fn, n: int) -> float:
    xs = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        xs.append((time.perf_counter() - t) * 1000)
    return statistics.median(xs)


def generated_runs(material: campaign.generators.Material, config: str | None, n: int = 120,
                   chunk: int = 20) -> None:
    """The same ``n`` generated, auto-allowed commands through a batched oracle and a single-use
    one, in alternating chunks (same load): ms per run of each, and their ratio."""
    with Oracle(timeout=3) as batched, Oracle(timeout=3, batch=False) as single:
        gate = campaign.default_gate(batched, "balanced", config)
        material.home, material.workspace = str(batched.home), str(batched.workspace)
        gen = Generator(material, SeededRng("bench"))
        cmds: list[str] = []
        while len(cmds) < n:
            cmd = gen.command().cmd
            if gate.check(cmd, cwd=batched.workspace).decision == "allow":
                cmds.append(cmd)
        spent = {"batched": 0.0, "single-use": 0.0}
        for i in range(0, n, chunk):
            for name, o in (("batched", batched), ("single-use", single)):
                t = time.perf_counter()
                for cmd in cmds[i:i + chunk]:
                    o.run(cmd.replace(str(batched.live.root), str(o.live.root)))
                spent[name] += time.perf_counter() - t
        b, s1 = (1000 * spent[k] / n for k in ("batched", "single-use"))
        print(f"{n} generated auto-allowed commands, interleaved in chunks of {chunk}: batched "
              f"{b:.1f} ms/run, single-use sandbox {s1:.1f} ms/run ({b / s1:.2f}x; "
              f"{batched.batch_starts} sandbox start(s), {batched.batch_fallbacks} fallback(s))")


def main() -> int:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 20.0
    jobs = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    config = sys.argv[3] if len(sys.argv) > 3 else None
    try:
        oracle = Oracle(timeout=3)
    except OracleUnavailable as exc:
        print(f"oracle unavailable: {exc}")
        return 2
    single = Oracle(timeout=3, batch=False)
    with oracle, single:
        print(f"oracle: {oracle.describe()}")
        rows = {}
        for _ in range(3):   # interleaved: the two ways share the load
            for name, o in (("batched", oracle), ("single-use sandbox", single)):
                for cmd in ("true", "ls -la", "touch x"):
                    rows.setdefault((name, cmd), []).append(median_ms(lambda o=o, c=cmd: o.run(c), 10))
        for (name, cmd), xs in rows.items():
            print(f"  {name:18s} {cmd!r:10s} median {statistics.median(xs):7.1f} ms")
        for cmd in ("true", "ls -la", "touch x"):
            b = statistics.median(rows[("batched", cmd)])
            s1 = statistics.median(rows[("single-use sandbox", cmd)])
            print(f"  {cmd!r:10s} batched / single-use: {b / s1:.2f}x")
        print(f"  sandbox starts: batched {oracle.batch_starts} for 90 runs "
              f"({oracle.batch_fallbacks} fallbacks)")
        print(f"  world rebuild (copytree)  median "
              f"{median_ms(lambda: fixture.copy_world(oracle.template, oracle.live), 30):7.1f} ms")
    t = time.perf_counter()
    material = campaign.build_material(config)
    print(f"material: {time.perf_counter() - t:.2f} s ({len(material.programs)} program prefixes, "
          f"{sum(len(u.flags) for u in material.universes.values())} flags; cached after the first run)")
    gen = Generator(material, SeededRng(0))
    t = time.perf_counter()
    n = sum(1 for _ in range(20000) if gen.command())
    print(f"generation alone: {n / (time.perf_counter() - t):,.0f} commands/s (one core)")
    generated_runs(material, config)
    r = campaign.run(seconds, seed=0, jobs=jobs, config=config, material=material)
    if r.fatal:
        print("\n".join(r.fatal))
        return 2
    s, secs = r.stats, r.seconds
    print(f"campaign: {secs:.1f} s, {jobs} job(s), policy {config or '(default)'}")
    print(f"  generated {s.generated:8d}   {s.generated / secs:8.1f} commands/s")
    print(f"  allowed   {s.allowed:8d}   {100 * s.allowed / max(s.generated, 1):7.1f} %")
    print(f"  executed  {s.executed:8d}   {s.executed / secs:8.1f} commands/s "
          f"(+{s.minimize_runs} minimization runs)")
    print(f"  per command: generate+check {1000 * s.gen_seconds / max(s.generated, 1):.2f} ms, "
          f"execute {1000 * s.exec_seconds / max(s.executed, 1):.1f} ms")
    print(f"  findings  {len(r.findings)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
