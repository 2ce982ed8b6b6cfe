"""The project's own fuzz campaigns (``python fuzz/campaigns.py NAME [SECONDS] [SEED]``).

- ``default``: the default policy. Every finding is a classifier bug; fixed ones become lines
  of ``corpus/fuzz_regressions.jsonl``. Expected result: no findings (exit 0).
- ``sort_find``: ``policies/sort_find.toml`` allows ``Bash(sort *)`` and ``Bash(find *)``.
  Expected result: findings (``sort -o``, ``find -fprint``/``-delete``, …), exit 1.
- ``typical``: ``policies/typical.toml``, a week-of-prompts policy.

Minimized findings are written to ``findings/NAME.jsonl`` next to this file. Same as
``shellgate fuzz --seconds S --seed N [--config FILE] --findings FILE``.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from shellgate.fuzz.campaign import main  # noqa: E402

CAMPAIGNS = {
    "default": None,
    "sort_find": HERE / "policies" / "sort_find.toml",
    "typical": HERE / "policies" / "typical.toml",
}


if __name__ == "__main__":
    name = sys.argv[1] if len(sys.argv) > 1 else "default"
    if name not in CAMPAIGNS:
        sys.exit(f"unknown campaign {name!r}; one of {', '.join(CAMPAIGNS)}")
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 40.0
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    config = CAMPAIGNS[name]
    (HERE / "findings").mkdir(exist_ok=True)
    out = HERE / "findings" / f"{name}.jsonl"
    sys.exit(main(seconds, seed, 2, str(config) if config else None, str(out)))
