"""Turn default-policy findings into regression lines: ``python fuzz/promote.py FINDINGS.jsonl``.

Appends each finding's minimized command to ``corpus/fuzz_regressions.jsonl`` as
``{"cmd", "class": "fuzz", "kind", "effect", "open": true}`` unless a line with the same
command is already there. ``open`` marks a classifier bug not fixed yet: the regression test
(tests/test_fuzz_regressions.py) expects it to fail; drop the key once the classifier refuses
the command. The commands are meant for the fuzz fixture (``shellgate.fuzz.fixture``): a git
workspace with ``.env``, a HOME with ``~/.ssh/id_rsa`` and friends; ``{ws}`` and ``{home}`` in a
command stand for that world's absolute paths.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "fuzz_regressions.jsonl"


def placeholders(cmd: str, world: dict[str, str]) -> str:
    """The fuzz world's absolute paths (random per run) as ``{ws}`` / ``{home}``."""
    for key, mark in (("workspace", "{ws}"), ("home", "{home}")):
        if world.get(key):
            cmd = cmd.replace(world[key], mark)
    return cmd


def main(paths: list[str]) -> int:
    lines = CORPUS.read_text(encoding="utf-8").splitlines() if CORPUS.exists() else []
    have = {json.loads(x)["cmd"] for x in lines if x.strip() and not x.startswith("//")}
    added = 0
    with open(CORPUS, "a", encoding="utf-8") as out:
        for p in paths:
            for raw in Path(p).read_text(encoding="utf-8").splitlines():
                if not raw.strip():
                    continue
                f = json.loads(raw)
                f["cmd"] = placeholders(f["cmd"], f.get("world") or {})
                if f["cmd"] in have:
                    continue
                effect = next((e["detail"] for e in f["effects"] if e["kind"] == f["kind"]), "")
                out.write(json.dumps({"cmd": f["cmd"], "class": "fuzz", "kind": f["kind"],
                                      "effect": effect, "open": True}, ensure_ascii=False) + "\n")
                have.add(f["cmd"])
                added += 1
    print(f"{added} regression line(s) added to {CORPUS}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
