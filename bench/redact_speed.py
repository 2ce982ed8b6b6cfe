"""Redaction on ``corpus/redact.jsonl``: leaks, over-redactions, import time and cost per line.

    python bench/redact_speed.py                  # shellgate's own ruleset
    python bench/redact_speed.py --detect-secrets # also a detect-secrets install, if importable

Redaction runs on every string of every audit line, on the hook path, so both numbers matter.
``--detect-secrets`` is how the package was judged for issue #21 (install it in a scratch
virtualenv: it is not a dependency). It is run twice: with its default plugins (entropy
included) and with only its pattern plugins.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import timeit
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
CASES = [json.loads(s) for s in (ROOT / "corpus" / "redact.jsonl").read_text().splitlines()
         if s.strip() and not s.startswith("//")]


def judge(name: str, redact: Callable[[str], str], import_ms: float, repeat: int) -> None:
    leaks = sum(any(s in redact(c["text"]) for s in c["secrets"]) for c in CASES if not c.get("keep"))
    over = sum(redact(c["text"]) != c["text"] for c in CASES if c.get("keep"))
    texts = [c["text"] for c in CASES]
    best = min(timeit.repeat(lambda: [redact(t) for t in texts], number=50, repeat=repeat))
    plain = ["git status --short", "ls -la src", "python -m pytest tests -q", "cat README.md"]
    best_plain = min(timeit.repeat(lambda: [redact(t) for t in plain], number=500, repeat=repeat))
    per_line = 1e6 * best / (50 * len(texts))
    per_plain = 1e6 * best_plain / (500 * len(plain))
    print(f"{name}: import {import_ms:.1f} ms (with its package); {per_line:.1f} us per corpus "
          f"line, {per_plain:.1f} us per plain line; leaks {leaks}/"
          f"{sum(not c.get('keep') for c in CASES)}, over-redacted {over}/"
          f"{sum(bool(c.get('keep')) for c in CASES)}")


def detect_secrets(repeat: int) -> None:
    t = time.perf_counter()
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import default_settings, transient_settings
    import_ms = 1e3 * (time.perf_counter() - t)

    def redact(line: str) -> str:
        for s in scan_line(line):
            if s.secret_value:
                line = line.replace(s.secret_value, "***")
        return line

    with default_settings():
        judge("detect-secrets, default plugins", redact, import_ms, repeat)
    names = [c.__name__ for c in get_mapping_from_secret_type_to_class().values()
             if "HighEntropy" not in c.__name__]
    with transient_settings({"plugins_used": [{"name": n} for n in names]}):
        judge("detect-secrets, pattern plugins only", redact, import_ms, repeat)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--detect-secrets", action="store_true")
    args = ap.parse_args()
    t = time.perf_counter()
    from shellgate.permission.redact import redact
    judge("shellgate", redact, 1e3 * (time.perf_counter() - t), args.repeat)
    if args.detect_secrets:
        detect_secrets(args.repeat)


if __name__ == "__main__":
    main()
