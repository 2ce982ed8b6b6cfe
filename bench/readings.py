"""What "every reading must be safe" costs on real commands.

For every command of ``../shared/corpus-data`` (agent-*.jsonl and human-*.jsonl) this counts the
commands that are not read-only *only* because another reading refuses them (rule
``readonly.dialect``: zsh's expansions, dash's reading of ``sh -c``), those refused only for an
awk ``/`` read both ways, and how the commands with line continuations parse.

    python bench/readings.py [--limit N] [--show K]
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shellgate.bash.analysis import analyse  # noqa: E402
from shellgate.bash.facts import Context  # noqa: E402

DATA = ROOT.parent / "shared" / "corpus-data"
AWK_BOTH = "in one of the ways awk may read a '/'"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=None, help="only the first N commands of each file")
    ap.add_argument("--show", type=int, default=5, help="examples to print per class")
    args = ap.parse_args()
    if not DATA.is_dir():
        print(f"no corpus at {DATA}", file=sys.stderr)
        return 1
    base = Path(tempfile.mkdtemp())
    (base / "ws").mkdir()
    ctx = Context(cwd=base / "ws", workspace=base / "ws", home=base / "home")
    total = readonly = continued = continued_ok = 0
    only: collections.Counter[str] = collections.Counter()
    examples: dict[str, list[str]] = collections.defaultdict(list)
    for path in sorted(DATA.glob("*.jsonl")):
        lines = path.read_text(encoding="utf-8").splitlines()[:args.limit]
        for line in lines:
            cmd = json.loads(line)["cmd"]
            total += 1
            a = analyse(cmd, ctx)
            if "\\\n" in cmd:
                continued += 1
                continued_ok += a.script.error is None
            if a.readonly:
                readonly += 1
                continue
            kinds = {"dialect" if r.rule == "readonly.dialect" else
                     "awk both ways" if AWK_BOTH in r.message else "other" for r in a.reasons}
            if kinds and "other" not in kinds:
                for k in kinds:
                    only[k] += 1
                    if len(examples[k]) < args.show:
                        examples[k].append(cmd[:110])
    print(f"{total} commands, {readonly} read-only")
    for k in ("dialect", "awk both ways"):
        print(f"  refused only by {k}: {only[k]}")
        for e in examples[k]:
            print(f"      {e!r}")
    print(f"{continued} commands with a line continuation, {continued_ok} parse")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
