"""The full verdict of every corpus command, one JSON line each, to compare two checkouts: what
``shellgate check --json`` prints (decision, capability, reasons, warnings, sensitive hits,
commands, parse) plus the effect and the covering rules, in every mode.

    cd "$(mktemp -d)" && HOME=$PWD/.home PYTHONPATH=<checkout> \\
        python <checkout>/bench/verdict_dump.py [FILES] > dump.jsonl

FILES is a comma-separated list of JSONL files with a ``cmd`` key (default: every
``corpus/*.jsonl`` of this checkout). Run it from an empty directory so that globs and git see
nothing; two dumps of the same input must be identical byte for byte (``cmp``).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from shellgate.check import Gate

MODES = ("strict", "balanced", "accept-edits", "trust")


def commands(files: list[Path]) -> list[str]:
    out = []
    for name in files:
        for line in name.read_text(encoding="utf-8", errors="surrogateescape").splitlines():
            try:
                cmd = json.loads(line).get("cmd")
            except (ValueError, AttributeError):
                continue
            if isinstance(cmd, str):
                out.append(cmd)
    return out


def main(argv: list[str]) -> None:
    root = Path(__file__).resolve().parent.parent
    files = ([Path(f) for f in argv[0].split(",")] if argv
             else sorted((root / "corpus").glob("*.jsonl")))
    here = os.getcwd()
    gates = {m: Gate(here, m, home=os.path.join(here, ".home")) for m in MODES}
    for cmd in commands(files):
        row = {}
        for mode, gate in gates.items():
            v = gate.check(cmd)
            obj = v.to_json()
            obj["effect"] = str(v.analysis.effect)
            obj["covering"] = list(v.covering_rules())
            row[mode] = obj
        sys.stdout.write(json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
