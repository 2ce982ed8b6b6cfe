"""Ray against local processes for the two bulk jobs (#19): medians and ratios, not a test.

(a) ``shellgate fuzz``: commands executed per second with ``--jobs 1``, ``--jobs 2`` and on a
    local Ray instance (started here for each run) with 1 and 2 CPUs; the same material
    (harvested once), seed and policy for all, runs interleaved.
(b) ``shellgate check --jsonl``: lines per second on N generated lines, ``--jobs 2`` against
    ``--ray --jobs 2`` (a local Ray with 2 CPUs; its start-up is part of the wall time, and is
    printed apart), each a fresh ``python -m shellgate`` process.
(c) the driver's peak RSS (its own ``VmHWM``: the process that reads the input and writes the
    results, not the workers) on M/4 and M lines through ``--ray`` (``--rss-jobs`` adds
    ``--jobs 2``). ``ru_maxrss`` would not do: Linux carries it over ``execve`` from the
    forking parent, so it would report this script's own size.

The lines are the project's own ``corpus/*.jsonl`` commands, each repeated with a varying
trailing comment so that no two lines are the same; ``--data DIR`` adds the commands of
``DIR/*.jsonl`` (e.g. ../shared/corpus-data) when it exists.

    python bench/ray_scale.py [--seconds 20] [--repeats 3] [--lines 200000] [--rss-lines 1000000]
                              [--check-repeats 1] [--rss-jobs]
                              [--skip fuzz,check,rss] [--data DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# The CLI in-process, reporting its own peak RSS (the high-water mark of its memory map) at exit.
_DRIVER = """
import re, runpy, sys
sys.argv = ["shellgate", *sys.argv[1:]]
try:
    runpy.run_module("shellgate", run_name="__main__", alter_sys=True)
finally:
    hwm = re.search(r"VmHWM:\\s+(\\d+)", open("/proc/self/status").read()).group(1)
    sys.stderr.write(f"\\nDRIVER_MAXRSS_KIB {hwm}\\n")
"""


def commands(data: Path | None) -> list[str]:
    """Distinct commands of the project's corpus (and of ``data``), in a fixed shuffled order."""
    seen: dict[str, None] = {}
    files = sorted((ROOT / "corpus").glob("*.jsonl"))
    if data and data.is_dir():
        files += sorted(data.glob("*.jsonl"))
    for f in files:
        for line in f.read_text(encoding="utf-8", errors="surrogateescape").splitlines():
            try:
                cmd = json.loads(line).get("cmd")
            except (ValueError, AttributeError):
                continue
            if isinstance(cmd, str) and cmd.strip() and "\n" not in cmd:
                seen.setdefault(cmd)
    cmds = list(seen)
    random.Random(0).shuffle(cmds)
    return cmds


def write_lines(path: Path, cmds: list[str], n: int) -> None:
    with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
        for i in range(n):
            f.write(json.dumps({"cmd": f"{cmds[i % len(cmds)]} # {i}"}) + "\n")


def isolated_env(tmp: str) -> dict[str, str]:
    """No real user config for the CLI and the Ray workers it starts."""
    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        os.makedirs(os.path.join(tmp, var), exist_ok=True)
        env[var] = os.path.join(tmp, var)
    return env


# --- (a) fuzz ---------------------------------------------------------------------------------

def fuzz(seconds: float, repeats: int) -> None:
    from shellgate.fuzz import campaign

    try:
        from shellgate.cluster import fuzz as ray_fuzz
        from shellgate.cluster import import_ray
        import_ray()
    except Exception as exc:  # noqa: BLE001 - Ray missing: the local rows still mean something
        print(f"(a) Ray rows skipped: {exc}")
        ray_fuzz = None
    material = campaign.build_material(None)
    configs: list[tuple[str, object]] = [
        ("--jobs 1", lambda: campaign.run(seconds, seed=0, jobs=1, material=material)),
        ("--jobs 2", lambda: campaign.run(seconds, seed=0, jobs=2, material=material)),
    ]
    if ray_fuzz is not None:
        configs += [
            ("--ray, 1 CPU", lambda: ray_fuzz.run(seconds, seed=0, jobs=1, material=material)),
            ("--ray, 2 CPUs", lambda: ray_fuzz.run(seconds, seed=0, jobs=2, material=material)),
        ]
    rates: dict[str, list[float]] = {name: [] for name, _ in configs}
    print(f"(a) shellgate fuzz, {seconds:g} s per run, {repeats} interleaved round(s), "
          f"load {os.getloadavg()[0]:.1f}")
    for _ in range(repeats):
        for name, go in configs:
            r = go()  # type: ignore[operator]
            if r.fatal:
                print(f"    {name}: {r.fatal[0][:300]}")
                continue
            rates[name].append(r.stats.executed / r.seconds)
    base = statistics.median(rates["--jobs 1"]) if rates["--jobs 1"] else 0.0
    for name, xs in rates.items():
        if xs:
            m = statistics.median(xs)
            print(f"    {name:14s} executed {m:7.1f}/s median (runs {', '.join(f'{x:.1f}' for x in xs)})"
                  + (f"   {m / base:.2f}x --jobs 1" if base else ""))
    print(f"    load after: {os.getloadavg()[0]:.1f}")


# --- (b), (c) check --jsonl -------------------------------------------------------------------

def run_check(src: Path, extra: list[str], env: dict[str, str], cwd: str) -> tuple[float, int, str]:
    """(wall seconds, the driver's peak RSS in KiB, stderr tail) of one ``check --jsonl``."""
    argv = [sys.executable, "-c", _DRIVER, "check", "--jsonl", str(src), *extra]
    t0 = time.perf_counter()
    with open(os.devnull, "w") as sink:
        p = subprocess.run(argv, stdout=sink, stderr=subprocess.PIPE, env=env, cwd=cwd, text=True)
    dt = time.perf_counter() - t0
    rss = 0
    for line in p.stderr.splitlines():
        if line.startswith("DRIVER_MAXRSS_KIB "):
            rss = int(line.split()[1])
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(extra)} exited {p.returncode}: {p.stderr[-400:]}")
    return dt, rss, p.stderr[-200:]


def ray_startup(env: dict[str, str], cwd: str) -> float:
    """Seconds to start and stop a local 2-CPU Ray instance in a fresh process."""
    code = ("import time; t=time.perf_counter(); import ray; "
            "ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False); "
            "ray.get(ray.remote(lambda: 1).remote()); ray.shutdown(); print(time.perf_counter()-t)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=cwd)
    return float(p.stdout.strip() or "nan")


def check(lines: int, repeats: int, data: Path | None) -> None:
    cmds = commands(data)
    with tempfile.TemporaryDirectory(prefix="shellgate-rayscale-") as tmp:
        env, src = isolated_env(tmp), Path(tmp) / "in.jsonl"
        write_lines(src, cmds, lines)
        print(f"(b) shellgate check --jsonl, {lines} lines ({len(cmds)} distinct corpus commands "
              f"+ varying comment), {repeats} interleaved round(s), load {os.getloadavg()[0]:.1f}")
        rows = {"--jobs 2": ["--jobs", "2"], "--ray --jobs 2": ["--ray", "--jobs", "2"]}
        walls: dict[str, list[float]] = {k: [] for k in rows}
        for _ in range(repeats):
            for name, extra in rows.items():
                walls[name].append(run_check(src, extra, env, tmp)[0])
        start = statistics.median(ray_startup(env, tmp) for _ in range(max(1, repeats)))
        med = {k: statistics.median(v) for k, v in walls.items()}
        for name, m in med.items():
            print(f"    {name:15s} {m:7.1f} s  {lines / m:8.0f} lines/s median")
        ray = med["--ray --jobs 2"]
        print(f"    Ray / --jobs 2: {med['--jobs 2'] / ray:.2f}x throughput; a local Ray's start+stop "
              f"alone is {start:.1f} s ({lines / max(ray - start, 1e-9):.0f} lines/s without it)")
        print(f"    load after: {os.getloadavg()[0]:.1f}")


def rss(lines: int, data: Path | None, with_jobs: bool) -> None:
    cmds = commands(data)
    with tempfile.TemporaryDirectory(prefix="shellgate-rayscale-") as tmp:
        env, src = isolated_env(tmp), Path(tmp) / "in.jsonl"
        write_lines(src, cmds, lines)
        quarter = Path(tmp) / "quarter.jsonl"
        write_lines(quarter, cmds, max(1, lines // 4))
        print(f"(c) the driver's peak RSS (VmHWM of the process that reads and writes), "
              f"load {os.getloadavg()[0]:.1f}")
        rows = [("--ray --jobs 2", ["--ray", "--jobs", "2"])]
        rows += [("--jobs 2", ["--jobs", "2"])] if with_jobs else []
        for name, extra in rows:
            dq, rq, _ = run_check(quarter, extra, env, tmp)
            dt, rt, _ = run_check(src, extra, env, tmp)
            print(f"    {name:15s} {lines // 4:>8d} lines: {rq / 1024:6.1f} MiB   {lines:>8d} lines: "
                  f"{rt / 1024:6.1f} MiB ({rt / max(rq, 1):.2f}x; {lines / dt:.0f} lines/s)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=20.0, help="per fuzz run")
    ap.add_argument("--repeats", type=int, default=3, help="rounds of (a)")
    ap.add_argument("--check-repeats", type=int, default=1, help="rounds of (b)")
    ap.add_argument("--rss-jobs", action="store_true", help="(c) with --jobs 2 too")
    ap.add_argument("--lines", type=int, default=200_000, help="for (b)")
    ap.add_argument("--rss-lines", type=int, default=1_000_000, help="for (c)")
    ap.add_argument("--skip", default="", help="comma-separated: fuzz, check, rss")
    ap.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "corpus-data",
                    help="extra *.jsonl commands, read by path when the directory exists")
    a = ap.parse_args()
    skip = set(filter(None, a.skip.split(",")))
    print(f"{os.cpu_count()} cores, Python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory(prefix="shellgate-rayscale-") as tmp:
        os.environ.update(isolated_env(tmp))   # the fuzz workers (forked or Ray's) read no real config
        if "fuzz" not in skip:
            fuzz(a.seconds, a.repeats)
    if "check" not in skip:
        check(a.lines, a.check_repeats, a.data)
    if "rss" not in skip:
        rss(a.rss_lines, a.data, a.rss_jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
