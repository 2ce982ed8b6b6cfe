"""One character per corpus command, 1 when it is read-only: run it in two checkouts and compare
to measure what a change costs (``PYTHONPATH=<checkout> python bench/readonly_verdicts.py
a.jsonl,b.jsonl > out.txt``, from an empty directory so that globs and git see nothing)."""

from __future__ import annotations

import json
import os
import sys

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context


def main(files: str) -> None:
    here = os.getcwd()
    ctx = Context.here(here, here, os.path.join(here, ".home"))
    out = []
    for name in files.split(","):
        with open(name, encoding="utf-8") as f:
            out.extend("1" if analyse(json.loads(line)["cmd"], ctx).readonly else "0" for line in f)
    print("".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
