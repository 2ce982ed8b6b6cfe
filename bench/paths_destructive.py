"""Latency and hit rates of the sensitive-path scan and the destructive warnings.

Runs ``paths.scan`` and ``destructive.warnings`` over the real command corpora in
``../shared/corpus-data`` (already parsed, so parsing is not counted) and prints per-command
median / p99 in microseconds, plus how many commands got a hit or a warning.

    python bench/paths_destructive.py [--limit N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from shellgate.bash.facts import Context
from shellgate.bash.parse.parser import parse
from shellgate.bash.paths.resolve import scan
from shellgate.bash.warnings.destructive import warnings

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "corpus-data"


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--limit", type=int, default=0, help="commands per file (0: all)")
    args = ap.parse_args()
    files = sorted(DATA.glob("*.jsonl"))
    if not files:
        print(f"no corpus at {DATA}; nothing to measure")
        return 0
    ctx = Context(cwd=ROOT, workspace=ROOT, home=Path.home())
    scan(parse("cat ~/.netrc"), ctx)  # compile the tables once, as a long-lived gate would
    warnings(parse("rm -rf x"))
    head = ("corpus", "cmds", "scan p50", "p99", "warn p50", "p99", "hits", "warns")
    print("{:45} {:>6} {:>9} {:>7} {:>9} {:>7} {:>6} {:>6}".format(*head))
    for f in files:
        cmds = [json.loads(line)["cmd"] for line in f.open(encoding="utf-8")]
        if args.limit:
            cmds = cmds[: args.limit]
        scripts = [parse(c) for c in cmds]
        ts, tw, hits, warns = [], [], 0, 0
        for s in scripts:
            t0 = time.perf_counter()
            h = scan(s, ctx)
            t1 = time.perf_counter()
            w = warnings(s)
            t2 = time.perf_counter()
            ts.append((t1 - t0) * 1e6)
            tw.append((t2 - t1) * 1e6)
            hits += bool(h)
            warns += bool(w)
        print(f"{f.name:45} {len(cmds):6d} {statistics.median(ts):9.0f} {_pct(ts, .99):7.0f} "
              f"{statistics.median(tw):9.0f} {_pct(tw, .99):7.0f} {hits:6d} {warns:6d}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
