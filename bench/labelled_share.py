"""A hand-labelled sample of real commands: how many of the truly read-only ones does shellgate
allow, and does it ever allow one that is not (#17)?

**The sample.** 1,000 commands drawn from ``../shared/corpus-data/`` without replacement: 500
agent commands and 500 human ones. Agents: every command of
``agent-swe-agent-demonstrations.jsonl`` (all 138 fit), 100 of
``agent-claude-code-bookminder.jsonl`` (its proportional share, 31, raised to the floor of 100)
and the other 262 from ``agent-mini-swe-agent-gemini-3-pro.jsonl``. Humans, proportionally:
135 of ``human-nl2bash.jsonl`` and 365 of ``human-tldr-common-linux.jsonl``. The lines of one
file are ``random.Random(f"{SEED}:{file name}").sample(range(lines), k)`` with ``SEED = 17``,
taken in file order (``python bench/labelled_share.py --draw`` prints them, for labelling).

**The labels** (``corpus/labelled_sample.jsonl``, one object per command: ``file``, ``sha256``
of the command's UTF-8, ``readonly``, ``why``) were written by hand, one command at a time, by
reading it; no corpus text is copied into the project, the bench joins the labels to the data
by hash. Read-only means: run in a normal project checkout with a normal user's HOME, the
command only reads (files, the process list, git objects …) and prints; it runs no program
that is not itself such a reader (so ``python …``, ``pytest``, ``make``, ``npm test`` and tools
that start them are not read-only: they can run project code), writes no file (a redirect to
``/dev/null`` is fine), uses no network and reads no secret (keys, tokens, credentials, .env).
A placeholder (``path/to/file``) is labelled by what the command would do; a program that is
not installed by what its manual says it does (the reason says which part decided). Where a
program's behaviour was not obvious, it was run under strace in a throwaway bwrap sandbox.

**The verdicts** are ``Gate(tree, mode="balanced").check(cmd)`` in a realistic cwd: a git
repository holding a real package's source (``bench/hook_enforce.py``'s ``project_tree``: the
installed click, committed), with a scratch HOME and no user config. *Allowed* means the
decision is allow (in balanced mode that is a read grant).

    python bench/labelled_share.py [--show-allowed] [--draw]

Prints the share of read-only commands allowed (goal >= 97%), every **false approval** (labelled
not read-only but allowed: goal 0) and every read-only command still asked, grouped by the
first reason. ``tests/test_labelled_sample.py`` checks the label file and the zero.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import json
import os
import random
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if not os.environ.get("PYTHONPATH"):  # PYTHONPATH=<checkout> measures that checkout's code
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

DATA = ROOT.parent / "shared" / "corpus-data"
LABELS = ROOT / "corpus" / "labelled_sample.jsonl"
SEED = 17
QUOTAS = {  # file -> how many commands the sample draws from it (see the docstring)
    "agent-mini-swe-agent-gemini-3-pro.jsonl": 262,
    "agent-claude-code-bookminder.jsonl": 100,
    "agent-swe-agent-demonstrations.jsonl": 138,
    "human-nl2bash.jsonl": 135,
    "human-tldr-common-linux.jsonl": 365,
}


def sha256(cmd: str) -> str:
    return hashlib.sha256(cmd.encode("utf-8")).hexdigest()


def commands(data: Path, name: str) -> list[str]:
    with (data / name).open(encoding="utf-8") as f:
        return [json.loads(line)["cmd"] for line in f if line.strip()]


def draw(data: Path = DATA) -> list[tuple[str, str]]:
    """The sample: (file name, command) in file order, then line order."""
    out: list[tuple[str, str]] = []
    for name, k in QUOTAS.items():
        cmds = commands(data, name)
        rows = random.Random(f"{SEED}:{name}").sample(range(len(cmds)), min(k, len(cmds)))
        out.extend((name, cmds[i]) for i in sorted(rows))
    return out


def load_labels(path: Path = LABELS) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def joined(data: Path = DATA, path: Path = LABELS) -> list[tuple[dict, str]]:
    """Each label with its command, found by hash in its file (KeyError when one is missing)."""
    by_file: dict[str, dict[str, str]] = {}
    out = []
    for label in load_labels(path):
        if label["file"] not in by_file:
            by_file[label["file"]] = {sha256(c): c for c in commands(data, label["file"])}
        out.append((label, by_file[label["file"]][label["sha256"]]))
    return out


def _first_reason(verdict: object) -> tuple[str, str]:
    reasons = verdict.analysis.reasons  # type: ignore[attr-defined]
    if reasons:
        return reasons[0].rule, reasons[0].message
    return verdict.rule or "?", verdict.reason  # type: ignore[attr-defined]


def world(base: Path) -> tuple[Path, Path]:
    """The project tree (a git repository of click's source) and a scratch HOME under ``base``."""
    from hook_enforce import project_tree

    home = base / "home"
    home.mkdir()
    return project_tree(base), home


def measure(rows: list[tuple[dict, str]], tree: Path, home: Path) -> dict:
    from shellgate.check import Gate

    gate = Gate(tree, mode="balanced", home=home)
    ro_allowed, false_approvals = [], []
    asked: dict[str, list[tuple[str, str, str]]] = collections.defaultdict(list)
    per_file: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])  # read-only, allowed
    n_ro = 0
    for label, cmd in rows:
        v = gate.check(cmd)
        if label["readonly"]:
            n_ro += 1
            per_file[label["file"]][0] += 1
            if v.allowed:
                per_file[label["file"]][1] += 1
                ro_allowed.append(cmd)
            else:
                rule, message = _first_reason(v)
                asked[rule].append((label["file"], cmd, message))
        elif v.allowed:
            false_approvals.append((label, cmd, v.grant))
    return {"n": len(rows), "readonly": n_ro, "allowed": ro_allowed, "asked": asked,
            "false": false_approvals, "per_file": dict(per_file)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draw", action="store_true", help="print the sample (JSON lines) and stop")
    ap.add_argument("--show-allowed", action="store_true", help="also list the allowed read-only")
    args = ap.parse_args()
    if not DATA.is_dir():
        print(f"corpus data not found at {DATA}; nothing to measure")
        return 0
    if args.draw:
        for n, (name, cmd) in enumerate(draw()):
            print(json.dumps({"n": n, "file": name, "sha256": sha256(cmd), "cmd": cmd}))
        return 0
    import shellgate

    rows = joined()
    print(f"shellgate from {Path(shellgate.__file__).parent.parent}")
    with tempfile.TemporaryDirectory(prefix="sg-labelled-", dir="/var/tmp") as tmp:
        base = Path(tmp)
        for var in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
            (base / var).mkdir()
            os.environ[var] = str(base / var)  # no user config, approvals or audit
        r = measure(rows, *world(base))
    n_ro, ok = r["readonly"], len(r["allowed"])
    print(f"labelled sample: {r['n']} commands, {n_ro} read-only, {r['n'] - n_ro} not")
    print(f"read-only allowed: {ok}/{n_ro} = {100 * ok / max(n_ro, 1):.1f}% (goal >= 97%)")
    for kind in ("agent", "human"):
        files = {k: v for k, v in r["per_file"].items() if k.startswith(kind)}
        ro, al = sum(v[0] for v in files.values()), sum(v[1] for v in files.values())
        print(f"  {kind}: {al}/{ro} = {100 * al / max(ro, 1):.1f}%  ("
              + ", ".join(f"{k.removesuffix('.jsonl')} {v[1]}/{v[0]}" for k, v in sorted(files.items()))
              + ")")
    print(f"false approvals (labelled not read-only, allowed): {len(r['false'])} (goal 0)")
    for label, cmd, grant in r["false"]:
        print(f"  [{label['file']}] {cmd[:160]!r}\n      label: {label['why']} (grant {grant})")
    asked = r["asked"]
    print(f"read-only but asked: {sum(map(len, asked.values()))}, by first reason:")
    for rule, items in sorted(asked.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"  {len(items):4d}  {rule}")
        for name, cmd, message in items:
            print(f"        [{name.split('-')[0]}] {cmd[:120]!r}\n            -> {message[:140]}")
    if args.show_allowed:
        print("read-only and allowed:")
        for cmd in r["allowed"]:
            print(f"        {cmd[:140]!r}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
