"""What shellgate costs per command, side by side in one run: medians, p99 and ratios.

(a) hook start-up: ``python -c pass`` vs ``shellgate hook claude-code`` (console script,
    ``python -m shellgate``) on a typical agent command, interleaved, same interpreter.
    Byte-code is cached in a temporary ``PYTHONPYCACHEPREFIX`` (as after ``pip install``) even
    when ``PYTHONDONTWRITEBYTECODE`` is set here; ``--no-bytecode`` keeps the environment as is.
(b) in-process: ``Gate.check`` vs bare ``bashlex.parse`` on N distinct corpus commands, each seen
    once (no memo keyed on the command can help), median and p99 of both.
(c) batch: ``shellgate check --jsonl`` on a generated input (corpus commands with a varying
    suffix) with ``--jobs 1`` and ``--jobs 2``: throughput, and peak RSS of the process tree in
    the first quarter vs the whole run (flat memory means the two are close).

    python bench/speed.py [--runs 21] [--n 2000] [--lines 200000] [--jobs 1,2] [--skip hook,gate,batch]
                          [--baseline OTHER_CHECKOUT]

``--baseline`` measures another checkout in the same run (``git worktree add /tmp/base main``):
its hook interleaved with this one's in (a), and (b) in child processes that take turns, three
rounds each, so that a change is compared with what it changes under the same load.

Needs ../shared/corpus-data/ for (b) and (c); they are skipped with a message without it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "corpus-data"
HOOK_COMMAND = "git status && ls -la src | head -20"


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def corpus_commands() -> list[str]:
    """Distinct corpus commands, in a fixed shuffled order."""
    seen: dict[str, None] = {}
    for f in sorted(DATA.glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8", errors="surrogateescape").splitlines():
            try:
                cmd = json.loads(line).get("cmd")
            except (ValueError, AttributeError):
                continue
            if isinstance(cmd, str) and cmd.strip():
                seen.setdefault(cmd)
    cmds = list(seen)
    random.Random(0).shuffle(cmds)
    return cmds


def bench_env(tmp: str, bytecode: bool) -> dict[str, str]:
    env = dict(os.environ, XDG_STATE_HOME=os.path.join(tmp, "state"),
               XDG_CONFIG_HOME=os.path.join(tmp, "config"))
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
    return env


# --- (a) hook ------------------------------------------------------------------------------

def hook(runs: int, bytecode: bool, baseline: Path | None = None) -> None:
    exe = Path(sys.executable).with_name("shellgate")
    with tempfile.TemporaryDirectory(prefix="shellgate-speed-") as tmp:
        env = bench_env(tmp, bytecode)
        work = os.path.join(tmp, "work")
        os.mkdir(work)
        payload = json.dumps({
            "session_id": "bench", "transcript_path": os.path.join(tmp, "t.jsonl"), "cwd": work,
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": HOOK_COMMAND, "description": "bench"},
            "tool_use_id": "toolu_bench"})
        hook_argv = [sys.executable, "-m", "shellgate", "hook", "claude-code"]
        progs: dict[str, tuple[list[str], str, dict[str, str]]] = {
            "python -c pass": ([sys.executable, "-c", "pass"], "", env),
            "python -m shellgate hook": (hook_argv, payload, env),
        }
        if exe.exists():
            progs["shellgate hook (console script)"] = ([str(exe), "hook", "claude-code"], payload,
                                                        env)
        if baseline is not None:
            progs["python -m shellgate hook (baseline)"] = (
                hook_argv, payload, dict(env, PYTHONPATH=str(baseline)))
        times: dict[str, list[float]] = {name: [] for name in progs}
        answer = ""
        for i in range(runs + 1):                      # run 0 warms caches; interleaved
            for name, (argv, stdin, penv) in progs.items():
                t0 = time.perf_counter()
                proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=penv,
                                      cwd=work, check=False)
                dt = (time.perf_counter() - t0) * 1e3
                if proc.returncode != 0:
                    raise SystemExit(f"{argv} exited {proc.returncode}: {proc.stderr[-500:]}")
                if i:
                    times[name].append(dt)
                if stdin:
                    answer = proc.stdout
    decision = json.loads(answer)["hookSpecificOutput"]["permissionDecision"]
    base = statistics.median(times["python -c pass"])
    print(f"(a) hook start-up to exit, {runs} interleaved runs, {HOOK_COMMAND!r} -> {decision}; "
          f"bytecode {'cached' if bytecode else 'as the environment says'}")
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"    {name:34} median {m:7.1f} ms  p90 {pct(ts, .9):7.1f} ms  "
              f"{m / base:5.2f}x pass  (target <= 2.5x)")
    if baseline is not None:
        this = statistics.median(times["python -m shellgate hook"])
        other = statistics.median(times["python -m shellgate hook (baseline)"])
        print(f"    this / baseline hook medians {this / other:.3f}x ({this - other:+.1f} ms)")


# --- (b) in-process Gate.check ---------------------------------------------------------------

def gate_compare(n: int, baseline: Path, rounds: int = 3) -> None:
    """(b) for this checkout and ``baseline``, in child processes taking turns."""
    if not DATA.is_dir():
        print(f"(b) skipped: no corpus data at {DATA}")
        return
    got: dict[str, list[float]] = {"this": [], "baseline": []}
    for _ in range(rounds):
        for label, root in (("this", ROOT), ("baseline", baseline)):
            proc = subprocess.run([sys.executable, __file__, "--skip", "hook,batch", "--n", str(n),
                                   "--root", str(root)], capture_output=True, text=True,
                                  env=dict(os.environ, PYTHONPATH=str(root)), check=True)
            line = [x for x in proc.stdout.splitlines() if x.startswith("GATE-MEDIAN ")][-1]
            got[label].append(float(line.split()[1]))
    print(f"(b) Gate.check median over {n} distinct corpus commands, {rounds} alternating rounds "
          f"in child processes")
    for label, ms in got.items():
        print(f"    {label:9} rounds {' '.join(f'{m:.3f}' for m in ms)} ms  "
              f"median {statistics.median(ms):.3f} ms")
    print(f"    this / baseline {statistics.median(got['this']) / statistics.median(got['baseline']):.3f}x")


def gate(n: int, root: Path = ROOT) -> None:
    if not DATA.is_dir():
        print(f"(b) skipped: no corpus data at {DATA}")
        return
    sys.path.insert(0, str(root))
    try:
        from shellgate.bash.parse._bashlex import load
    except ImportError:  # a --baseline checkout from before the bash core's rooms (#18)
        from shellgate.bash._bashlex import load  # type: ignore[no-redef]
    from shellgate.check import Gate

    bashlex = load()
    cmds = corpus_commands()
    warm, cmds = cmds[:200], cmds[200:200 + n]
    with tempfile.TemporaryDirectory(prefix="shellgate-speed-") as tmp:
        os.environ.update(XDG_STATE_HOME=os.path.join(tmp, "state"),
                          XDG_CONFIG_HOME=os.path.join(tmp, "config"))
        g = Gate(tmp, mode="balanced")
        for c in warm:                                  # load the engine and the tables
            g.check(c)
            _bare(bashlex, c)
        t_bl: list[float] = []
        t_g: list[float] = []
        ok: list[bool] = []
        for c in cmds:
            t0 = time.perf_counter()
            ok.append(_bare(bashlex, c))
            t1 = time.perf_counter()
            g.check(c)
            t2 = time.perf_counter()
            t_bl.append((t1 - t0) * 1e3)
            t_g.append((t2 - t1) * 1e3)
    print(f"(b) in-process, {len(cmds)} distinct corpus commands, each seen once "
          f"(bashlex accepts {sum(ok)})")
    for name, ts in (("bare bashlex.parse", t_bl), ("Gate.check", t_g)):
        print(f"    {name:20} median {statistics.median(ts):6.3f} ms  p90 {pct(ts, .9):6.3f} ms  "
              f"p99 {pct(ts, .99):6.3f} ms  max {max(ts):7.2f} ms")
    print(f"GATE-MEDIAN {statistics.median(t_g):.4f}")
    print(f"    ratio of medians Gate/bashlex {statistics.median(t_g) / statistics.median(t_bl):.2f}x"
          f" (target <= 1x; p99 target < 5 ms)")
    acc = [(b, g_) for b, g_, k in zip(t_bl, t_g, ok, strict=True) if k]
    if acc:
        mb = statistics.median(b for b, _ in acc)
        mg = statistics.median(g_ for _, g_ in acc)
        print(f"    on the {len(acc)} bashlex accepts: bashlex {mb:.3f} ms, Gate {mg:.3f} ms, "
              f"{mg / mb:.2f}x")


def _bare(bashlex: object, cmd: str) -> bool:
    try:
        bashlex.parse(cmd)  # type: ignore[attr-defined]
        return True
    except Exception:  # noqa: BLE001 - bare bashlex raises many kinds
        return False


# --- (c) batch -------------------------------------------------------------------------------

def _watch(pid: int, samples: list[tuple[float, int]], stop: threading.Event) -> None:
    import psutil

    try:
        root = psutil.Process(pid)
    except psutil.Error:
        return
    t0 = time.perf_counter()
    while not stop.is_set():
        rss = 0
        try:
            for p in (root, *root.children(recursive=True)):
                with contextlib.suppress(psutil.Error):
                    rss += p.memory_info().rss
        except psutil.Error:
            break
        samples.append((time.perf_counter() - t0, rss))
        stop.wait(0.05)


def batch(lines: int, bytecode: bool, jobs_list: tuple[int, ...] = (1, 2)) -> None:
    if not DATA.is_dir():
        print(f"(c) skipped: no corpus data at {DATA}")
        return
    cmds = corpus_commands()
    print(f"(c) shellgate check --jsonl, {lines} generated lines (corpus commands + varying suffix)")
    with tempfile.TemporaryDirectory(prefix="shellgate-speed-") as tmp:
        env = bench_env(tmp, bytecode)
        src = os.path.join(tmp, "in.jsonl")
        with open(src, "w", encoding="utf-8", errors="surrogateescape") as f:
            for i in range(lines):
                f.write(json.dumps({"cmd": f"{cmds[i % len(cmds)]} # {i}"}) + "\n")
        for jobs in jobs_list:
            argv = [sys.executable, "-m", "shellgate", "check", "--jsonl", src, "--jobs", str(jobs)]
            samples: list[tuple[float, int]] = []
            stop = threading.Event()
            t0 = time.perf_counter()
            with open(os.devnull, "w") as sink:
                proc = subprocess.Popen(argv, stdout=sink, stderr=subprocess.PIPE, env=env, cwd=tmp)
                th = threading.Thread(target=_watch, args=(proc.pid, samples, stop), daemon=True)
                th.start()
                _, err = proc.communicate()
            dt = time.perf_counter() - t0
            stop.set()
            th.join()
            if proc.returncode != 0:
                print(f"    --jobs {jobs}: exited {proc.returncode}: {err[-300:]!r}")
                continue
            end = samples[-1][0] if samples else 0.0
            first = max((r for t, r in samples if t <= end / 4), default=0)
            peak = max((r for _, r in samples), default=0)
            print(f"    --jobs {jobs}: {dt:7.1f} s  {lines / dt:8.0f} cmd/s  peak RSS (tree) "
                  f"first quarter {first / 2**20:6.1f} MiB, whole run {peak / 2**20:6.1f} MiB")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=21, help="hook runs per program")
    ap.add_argument("--n", type=int, default=2000, help="commands for Gate.check vs bashlex")
    ap.add_argument("--lines", type=int, default=200_000, help="lines for the batch")
    ap.add_argument("--skip", default="", help="comma list of hook,gate,batch")
    ap.add_argument("--jobs", default="1,2", help="comma list of --jobs values for the batch")
    ap.add_argument("--no-bytecode", action="store_true",
                    help="do not cache byte-code for the child processes")
    ap.add_argument("--baseline", type=Path, default=None,
                    help="another checkout to measure in the same run, for (a) and (b)")
    ap.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = ap.parse_args()
    skip = set(args.skip.split(","))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"python {sys.version.split()[0]} ({sys.executable}), {os.cpu_count()} cores, "
          f"load average {load:.2f}, shellgate from {ROOT}")
    if shutil.which("shellgate") is None:
        print("note: shellgate is not on PATH (pip install -e .)")
    if "hook" not in skip:
        hook(args.runs, not args.no_bytecode, args.baseline)
    if "gate" not in skip:
        if args.baseline is not None:
            gate_compare(args.n, args.baseline)
        else:
            gate(args.n, args.root)
    if "batch" not in skip:
        batch(args.lines, not args.no_bytecode, tuple(int(j) for j in args.jobs.split(",")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
