"""Parse latency: bare ``bashlex.parse`` versus ``shellgate.bash.parse.parser.parse``.

In-process: medians and p95 (ms) over the corpus commands that bare bashlex accepts, and the
share of commands our fast path (``_fast.py``) takes without bashlex. Start-up: median wall
time of ``python -c pass``, ``import bashlex`` and ``import + parse('ls -la | wc -l')`` in
fresh interpreters, and the ratio to ``python -c pass``.

    python bench/parse_speed.py [--stride 5] [--runs 21] [--check]

``--check`` also parses every corpus command with the fast path on and off and reports any
difference (there should be none).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "corpus-data"
sys.path.insert(0, str(ROOT))


def corpus(stride: int) -> list[str]:
    out: list[str] = []
    for f in sorted(DATA.glob("*.jsonl")):
        lines = [s for s in f.read_text(encoding="utf-8").splitlines() if s.strip()]
        out.extend(c for c in (json.loads(s).get("cmd") for s in lines[::stride])
                   if isinstance(c, str))
    return out


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def in_process(cmds: list[str]) -> None:
    from shellgate.bash.parse import _fast, walk
    from shellgate.bash.parse.parser import parse

    bashlex = walk._bashlex()
    ok: list[str] = []
    for c in cmds:
        try:
            bashlex.parse(c)
            ok.append(c)
        except Exception:  # noqa: BLE001 - bare bashlex raises many kinds
            pass
    for c in ok[:200]:  # warm up
        parse(c)
    t_bl: list[float] = []
    t_sg: list[float] = []
    for c in ok:
        t0 = time.perf_counter()
        bashlex.parse(c)
        t1 = time.perf_counter()
        parse(c)
        t2 = time.perf_counter()
        t_bl.append((t1 - t0) * 1e3)
        t_sg.append((t2 - t1) * 1e3)
    fast = sum(_fast.nodes(c) is not None for c in ok)
    print(f"in-process, {len(ok)} corpus commands bare bashlex accepts "
          f"(of {len(cmds)} sampled):")
    print(f"  bare bashlex.parse   median {statistics.median(t_bl):.3f} ms   "
          f"p95 {pct(t_bl, .95):.3f} ms")
    print(f"  shellgate parse()    median {statistics.median(t_sg):.3f} ms   "
          f"p95 {pct(t_sg, .95):.3f} ms")
    print(f"  ratio of medians     {statistics.median(t_sg) / statistics.median(t_bl):.2f}x")
    print(f"  fast path taken      {100 * fast / max(1, len(ok)):.1f}% of those")


def startup(runs: int) -> None:
    """Fresh interpreters, twice: with bytecode cached (as after a normal install; the cache
    goes to a temporary PYTHONPYCACHEPREFIX) and compiling our modules from source (as with
    PYTHONDONTWRITEBYTECODE=1 and an editable install)."""
    progs = {
        "python -c pass": "pass",
        "import bashlex": "import bashlex",
        "import parser + parse": "from shellgate.bash.parse.parser import parse; parse('ls -la | wc -l')",
    }
    with tempfile.TemporaryDirectory() as cache:
        cached = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        cached["PYTHONPYCACHEPREFIX"] = cache
        nocache = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
        for label, env in (("bytecode cached", cached), ("no bytecode cache", nocache)):
            med: dict[str, float] = {}
            for name, code in progs.items():
                subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env=env)
                ts = []
                for _ in range(runs):
                    t0 = time.perf_counter()
                    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, env=env)
                    ts.append((time.perf_counter() - t0) * 1e3)
                med[name] = statistics.median(ts)
            base = med["python -c pass"]
            print(f"start-up, {label}, median of {runs} fresh interpreters:")
            for name, m in med.items():
                print(f"  {name:24} {m:7.1f} ms   {m / base:.2f}x python -c pass")


def check(cmds: list[str]) -> int:
    from shellgate.bash.parse import walk
    from shellgate.bash.parse.parser import parse

    bad = 0
    for c in cmds:
        walk.FAST = True
        a = parse(c)
        walk.FAST = False
        b = parse(c)
        walk.FAST = True
        if a != b:
            bad += 1
            print(f"  DIFF {c[:100]!r}")
    print(f"fast path vs bashlex: {bad} differences on {len(cmds)} commands")
    return bad


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stride", type=int, default=5, help="every Nth corpus command")
    ap.add_argument("--runs", type=int, default=21, help="interpreter starts per program")
    ap.add_argument("--check", action="store_true", help="fast path vs bashlex on all commands")
    args = ap.parse_args()
    if not DATA.is_dir():
        print(f"no corpus data at {DATA}", file=sys.stderr)
        return 1
    in_process(corpus(args.stride))
    startup(args.runs)
    if args.check:
        return 1 if check(corpus(1)) else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
