"""How many real commands does the read-only classifier auto-allow, and why not the rest?

For every corpus in ``../shared/corpus-data`` (agent-*.jsonl and human-*.jsonl) this prints the
share of commands classified read-only, the effect distribution, and the top reasons for "not
read-only", by rule and by command name; at the end, over the agent files (what agents really
run), the most frequent command *shapes* still asked (``--shapes``, default 50) with the first
reason of one example: a shape is each command's name (and subcommand, for the tools that have
one) and its options, operands written ``_`` and globs ``*``, so that ``wc -l a.py`` and
``wc -l b.py`` count as one. The context's cwd, workspace and HOME are scratch directories (no
git repository, no secrets), so the numbers measure the command tables, not the machine.

    python bench/readonly_share.py [--top 15] [--shapes 50] [--limit N] [--show RULE]
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from shellgate.bash.analysis import analyse  # noqa: E402
from shellgate.bash.facts import Context  # noqa: E402

DATA = ROOT.parent / "shared" / "corpus-data"


def _first_word(message: str) -> str:
    return message.split()[0] if message else "?"


_SUBCOMMANDS = frozenset({"git", "pip", "pip3", "npm", "cargo", "uv", "go", "docker", "kubectl", "gh",
                          "apt", "apt-get", "brew", "yarn", "pnpm", "conda", "poetry", "rustup"})


def shape(script: object) -> str:
    """The line's commands with their options kept and their operands blurred (see the
    module docstring)."""
    parts: list[str] = []
    for c in script.commands:  # type: ignore[attr-defined]
        if not c.words:
            continue
        out = [c.name or "$?"]
        sub = c.name in _SUBCOMMANDS
        for w in c.words[1:]:
            t = w.text
            if t.startswith("-") and len(t) > 1:
                out.append(t.split("=", 1)[0] + ("=" if "=" in t else ""))
            elif sub:
                out.append(t[:20])
                sub = False
            else:
                tok = "*" if w.glob else "_"
                if out[-1] != tok:
                    out.append(tok)
        parts.append(" ".join(out))
    return " ; ".join(parts)[:100]


def run(path: Path, ctx: Context, top: int, limit: int | None, show: str | None,
        shapes: collections.Counter[str], why: dict[str, str]) -> None:
    cmds = [json.loads(line)["cmd"] for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    if limit:
        cmds = cmds[:limit]
    ro = 0
    effects: collections.Counter[str] = collections.Counter()
    rules: collections.Counter[str] = collections.Counter()
    names: collections.Counter[str] = collections.Counter()
    shown = 0
    t0 = time.perf_counter()
    for cmd in cmds:
        a = analyse(cmd, ctx)
        effects[a.effect.value] += 1
        if a.readonly:
            ro += 1
            continue
        for rule in {r.rule for r in a.reasons}:
            rules[rule] += 1
        sh = shape(a.script)
        shapes[sh] += 1
        if sh not in why and a.reasons:
            why[sh] = f"{a.reasons[0].rule}: {a.reasons[0].message}"[:110]
        first = next((c.name for c in a.script.commands if c.name), None)
        names[first or "<none>"] += 1
        if show and any(r.rule == show for r in a.reasons) and shown < 25:
            shown += 1
            msg = next(r.message for r in a.reasons if r.rule == show)
            print(f"    [{show}] {cmd[:110]!r}\n        -> {msg}")
    dt = time.perf_counter() - t0
    n = len(cmds)
    print(f"\n== {path.name}: {n} commands, {ro} read-only ({100 * ro / max(n, 1):.1f}%), "
          f"{1000 * dt / max(n, 1):.2f} ms/command")
    shares = (f"{k} {v} ({100 * v / max(n, 1):.1f}%)" for k, v in effects.most_common())
    print("   effects: " + ", ".join(shares))
    print(f"   top {top} reasons (rule: commands):")
    for rule, k in rules.most_common(top):
        print(f"     {k:6d}  {rule}")
    print(f"   top {top} first command names of not-read-only commands:")
    for name, k in names.most_common(top):
        print(f"     {k:6d}  {name}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--shapes", type=int, default=50, help="how many asked shapes to print")
    ap.add_argument("--limit", type=int, default=None, help="only the first N commands of each file")
    ap.add_argument("--show", default=None, help="print examples refused by this rule")
    ap.add_argument("--only", default=None, help="only files whose name contains this")
    args = ap.parse_args()
    if not DATA.is_dir():
        print(f"corpus data not found at {DATA}; nothing to measure")
        return 0
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch)
        (base / "ws").mkdir()
        (base / "home").mkdir()
        ctx = Context(cwd=base / "ws", workspace=base / "ws", home=base / "home")
        files = sorted(DATA.glob("agent-*.jsonl")) + sorted(DATA.glob("human-*.jsonl"))
        shapes: collections.Counter[str] = collections.Counter()
        why: dict[str, str] = {}
        for path in files:
            if args.only and args.only not in path.name:
                continue
            run(path, ctx, args.top, args.limit, args.show,
                shapes if path.name.startswith("agent-") else collections.Counter(), why)
        if args.shapes:
            print(f"\n== the {args.shapes} most frequent shapes still asked "
                  "(agent files; count, shape, why):")
            for sh, k in shapes.most_common(args.shapes):
                print(f"  {k:6d}  {sh}\n          -> {why.get(sh, '?')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
