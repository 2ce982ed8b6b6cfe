"""What a persistent session costs per command (#20): BashTool with and without ``persistent``.

Each variant runs the same commands in trust mode (so nothing asks), in a throwaway git
workspace, on the default sandbox tier (pre-spawned bwrap where it works): ``true`` in an empty
session, then ``true`` after a venv was activated (the session then carries its variables,
``deactivate`` and a PATH in front). Printed: the median and p90 of each (ms), and the ratios.
Also the cost of the parts alone: reading a venv session's dump and building its restore line.

    python bench/persistent_session.py [--runs 40]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shellgate.tools import BashTool  # noqa: E402
from shellgate.tools.shell_state import SAVE, parse  # noqa: E402


def _times(tool: BashTool, cmd: str, runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        r = tool.run(cmd)
        out.append((time.perf_counter() - t0) * 1000)
        assert r.ran and r.exit_code == 0, (r.decision, r.reason, r.stderr)
    return out


def _p90(xs: list[float]) -> float:
    return sorted(xs)[int(len(xs) * 0.9) - 1]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=40)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        ws = Path(d) / "ws"
        ws.mkdir()
        subprocess.run(["git", "init", "-q", str(ws)], check=True)
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(ws / ".venv")], check=True)
        rows = {}
        for persistent in (False, True):
            with BashTool(ws, "trust", audit=False, store=False, user_config=False,
                          persistent=persistent) as t:
                t.run("true")  # the pre-spawned sandbox starts here, not in the timing
                rows[(persistent, "empty")] = _times(t, "true", args.runs)
                assert t.run("source .venv/bin/activate").ran
                rows[(persistent, "venv")] = _times(t, "true", args.runs)
                tier = t.sandbox.tier
        print(f"BashTool trust, tier {tier}, {args.runs} runs each: per-command wall time (ms)")
        print(f"{'session':10} {'plain med':>10} {'p90':>7} {'persistent med':>15} {'p90':>7} {'ratio':>6}")
        for state in ("empty", "venv"):
            a, b = rows[(False, state)], rows[(True, state)]
            ma, mb = statistics.median(a), statistics.median(b)
            print(f"{state:10} {ma:10.2f} {_p90(a):7.2f} {mb:15.2f} {_p90(b):7.2f} {mb / ma:6.2f}")
        dump = subprocess.run(["bash", "--noprofile", "--norc", "-c",
                               f"{SAVE}; source {ws}/.venv/bin/activate; __sg_save"],
                              capture_output=True, env={"PATH": "/usr/bin:/bin"}, check=True).stdout
        base = {"PATH": "/usr/bin:/bin"}
        n = 200
        t0 = time.perf_counter()
        for _ in range(n):
            state, _ = parse(dump, base)
            state.prelude()
        per = (time.perf_counter() - t0) / n * 1000
        print(f"a venv session's dump: {len(dump)} bytes; parse + restore line: {per:.3f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
