"""How many bash-valid commands of ../shared/corpus-data/ does parse() accept?

Validity is bash's own: ``bash -O extglob -n -c CMD`` exits 0. Those results are cached in
``$TMPDIR/shellgate-bash-n-cache.json`` (keyed by a hash of the command) so reruns take
seconds. Both steps
use every core. Prints, per corpus and overall: bash-valid commands, accepted by parse(),
the share, and (with ``--show N``) the N most common failure reasons with an example.

    python bench/parse_coverage.py [--show 20] [--limit N]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "corpus-data"
CACHE = Path(tempfile.gettempdir()) / "shellgate-bash-n-cache.json"
sys.path.insert(0, str(ROOT))


def _key(cmd: str) -> str:
    return hashlib.sha1(cmd.encode("utf-8", "surrogatepass")).hexdigest()


def _bash_ok(cmd: str) -> bool:
    try:
        r = subprocess.run(["bash", "-O", "extglob", "-n", "-c", cmd], capture_output=True,
                           timeout=10, stdin=subprocess.DEVNULL)
    except (subprocess.TimeoutExpired, ValueError):
        return False
    return r.returncode == 0


def _parse_one(cmd: str) -> str | None:
    from shellgate.bash.parse.parser import parse
    s = parse(cmd)
    return None if s.error is None else s.error.reason


def load(limit: int | None) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for f in sorted(DATA.glob("*.jsonl")):
        cmds = []
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                cmd = json.loads(line).get("cmd")
                if isinstance(cmd, str):
                    cmds.append(cmd)
        out[f.stem] = cmds[:limit] if limit else cmds
    return out


def bash_valid(corpora: dict[str, list[str]], procs: int) -> dict[str, bool]:
    cache: dict[str, bool] = json.loads(CACHE.read_text()) if CACHE.exists() else {}
    todo = sorted({c for cmds in corpora.values() for c in cmds if _key(c) not in cache})
    if todo:
        print(f"running bash -n on {len(todo)} commands (cached afterwards)…", file=sys.stderr)
        with Pool(procs) as pool:
            for cmd, ok in zip(todo, pool.map(_bash_ok, todo, chunksize=64), strict=True):
                cache[_key(cmd)] = ok
        CACHE.write_text(json.dumps(cache))
    return cache


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show", type=int, default=0, help="print the N most common failures")
    ap.add_argument("--limit", type=int, default=None, help="first N commands of each corpus")
    ap.add_argument("--dump", type=Path, help="write failing commands (JSONL) here")
    args = ap.parse_args()
    if not DATA.is_dir():
        print(f"no corpus data at {DATA}", file=sys.stderr)
        return 1
    procs = os.cpu_count() or 2
    corpora = load(args.limit)
    cache = bash_valid(corpora, procs)
    total_valid = total_ok = 0
    reasons: Counter[str] = Counter()
    examples: dict[str, str] = {}
    failures: list[dict] = []
    print(f"{'corpus':45} {'bash-valid':>10} {'parsed':>8} {'share':>8}")
    with Pool(procs) as pool:
        for name, cmds in corpora.items():
            valid = [c for c in cmds if cache.get(_key(c))]
            results = pool.map(_parse_one, valid, chunksize=64)
            ok = sum(r is None for r in results)
            for c, r in zip(valid, results, strict=True):
                if r is not None:
                    reasons[r] += 1
                    examples.setdefault(r, c)
                    failures.append({"corpus": name, "cmd": c, "reason": r})
            total_valid += len(valid)
            total_ok += ok
            print(f"{name:45} {len(valid):>10} {ok:>8} {100 * ok / max(1, len(valid)):>7.2f}%")
    print(f"{'ALL':45} {total_valid:>10} {total_ok:>8} {100 * total_ok / max(1, total_valid):>7.2f}%")
    for reason, n in reasons.most_common(args.show):
        print(f"{n:6}  {reason[:90]}\n        e.g. {examples[reason][:150]!r}")
    if args.dump:
        args.dump.write_text("".join(json.dumps(f) + "\n" for f in failures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
