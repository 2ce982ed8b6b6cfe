"""A real project session through BashTool (#20): does it run as it runs in bash?

``corpus/agent_session.jsonl`` is a coding agent's session (55 commands) in six 1.16.0's source
from PyPI, made a git repository: explore, run its tests, break and fix ``six.b``, add a
regression test, commit, use scratch ``/tmp``, build an sdist, start a local server, clean up.
It runs three times in the same place: plain (``bash -c`` per command, the cwd carried over,
as an agent's tool does), through ``BashTool`` in trust and in accept-edits with no approver
(an ask is not run). Printed: each command's outcome against plain (same / differs / asked),
the count identical, the asks, and the per-command overhead (median and p90 of BashTool's
time minus plain's, over the commands both ran).

    python bench/agent_session.py [--show-same]

Needs PyPI (``pip download``) and a sandbox tier; says so and exits 1 without them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SESSION = ROOT / "corpus" / "agent_session.jsonl"
DATES = {"GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
_DURATION = re.compile(r" in \d+(\.\d+)?s\b")   # pytest's summary line: the time differs


def session(sid: str, port: int) -> list[dict]:
    rows = [json.loads(s) for s in SESSION.read_text(encoding="utf-8").splitlines()
            if s.strip() and not s.startswith("//")]
    return [dict(r, cmd=r["cmd"].replace("{sid}", sid).replace("{port}", str(port))) for r in rows]


def fetch_six(into: Path) -> Path | None:
    """six 1.16.0's sdist from PyPI, unpacked under ``into``; None when pip cannot get it."""
    p = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary",
                        ":all:", "six==1.16.0", "-d", str(into)], capture_output=True, timeout=300)
    archive = into / "six-1.16.0.tar.gz"
    if p.returncode != 0 or not archive.exists():
        return None
    with tarfile.open(archive) as t:
        t.extractall(into, filter="data")
    return into / "six-1.16.0"


def make_tree(src: Path, tree: Path) -> Path:
    """A fresh git repository at ``tree`` holding ``src`` (the same commit every time)."""
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(src, tree)
    env = {**os.environ, **DATES}
    for argv in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"],
                 ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com", "commit", "-qm",
                  "six 1.16.0"]):
        subprocess.run(argv, cwd=tree, env=env, check=True, capture_output=True)
    return tree


def _normal(text: str) -> str:
    return _DURATION.sub(" in Xs", text)


def run_plain(tree: Path, rows: list[dict]) -> list[dict]:
    """Each command in its own ``bash -c`` from the cwd the last one left, as agents do."""
    env = {**os.environ, **DATES}
    cwd, out = tree, []
    groups: list[int] = []
    with tempfile.TemporaryDirectory() as d:
        trailer = Path(d) / "cwd"
        for r in rows:
            script = f'{r["cmd"]}\n__s=$?; printf %s "$PWD" > {trailer}; exit $__s'
            t = time.perf_counter()
            p = subprocess.Popen(["bash", "-c", script], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 start_new_session=True, text=True)
            groups.append(p.pid)
            so, se = p.communicate(timeout=300)
            out.append({"ran": True, "exit": p.returncode, "stdout": so, "stderr": se,
                        "seconds": time.perf_counter() - t})
            if trailer.exists() and Path(trailer.read_text()).is_dir():
                cwd = Path(trailer.read_text())
    for g in groups:   # what the session left running (its server)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(g, signal.SIGKILL)
    return out


def run_tool(tree: Path, rows: list[dict], mode: str) -> list[dict]:
    from shellgate.tools import BashTool

    cfg = tree.parent / "sandbox.toml"
    cfg.write_text("[sandbox]\nenv = { " + ", ".join(f'{k} = "{v}"' for k, v in DATES.items())
                   + " }\n")
    out = []
    with BashTool(tree, mode, config=cfg, audit=False, store=False, user_config=False) as tool:
        for r in rows:
            res = tool.run(r["cmd"])
            out.append({"ran": res.ran, "decision": res.decision, "reason": res.reason,
                        "exit": res.exit_code, "stdout": res.stdout, "stderr": res.stderr,
                        "seconds": res.duration, "notes": list(res.notes)})
    return out


def same(a: dict, b: dict) -> bool:
    return (a["ran"] and b["ran"] and a["exit"] == b["exit"]
            and _normal(a["stdout"]) == _normal(b["stdout"])
            and _normal(a["stderr"]) == _normal(b["stderr"]))


def measure(work: Path) -> dict | None:
    """Run the session plain, in trust and in accept-edits; None without six from PyPI."""
    src = fetch_six(work / "sdist")
    if src is None:
        return None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    rows = session(uuid.uuid4().hex[:12], port)
    tree = work / "tree"
    result: dict = {"rows": rows}
    result["plain"] = run_plain(make_tree(src, tree), rows)
    for mode in ("trust", "accept-edits"):
        result[mode] = run_tool(make_tree(src, tree), rows, mode)
    return result


def summary(result: dict, mode: str) -> dict:
    plain, tool = result["plain"], result[mode]
    identical = [i for i, (a, b) in enumerate(zip(plain, tool, strict=True)) if same(a, b)]
    asked = [i for i, b in enumerate(tool) if not b["ran"]]
    both = [b["seconds"] - a["seconds"] for a, b in zip(plain, tool, strict=True) if b["ran"]]
    q = statistics.quantiles(both, n=10) if len(both) > 1 else [0.0] * 9
    return {"identical": identical, "asked": asked, "n": len(plain),
            "overhead_median_ms": 1000 * statistics.median(both) if both else 0.0,
            "overhead_p90_ms": 1000 * q[8]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--show-same", action="store_true", help="list the identical commands too")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="sg-session-", dir="/var/tmp") as d:
        result = measure(Path(d))
    if result is None:
        print("six 1.16.0 could not be fetched from PyPI: nothing to measure")
        return 1
    rows = result["rows"]
    for mode in ("trust", "accept-edits"):
        s = summary(result, mode)
        print(f"\n{mode}: {len(s['identical'])}/{s['n']} identical to plain bash, "
              f"{len(s['asked'])} asked (not run: no approver); overhead per command "
              f"median {s['overhead_median_ms']:+.1f} ms, p90 {s['overhead_p90_ms']:+.1f} ms")
        for i, r in enumerate(rows):
            a, b = result["plain"][i], result[mode][i]
            if i in s["identical"] and not args.show_same:
                continue
            what = "same" if i in s["identical"] else (
                f"asked: {b['reason'][:70]}" if not b["ran"] else
                f"differs: exit {a['exit']} vs {b['exit']}, out {a['stdout'][:30]!r} vs "
                f"{b['stdout'][:30]!r}, err {b['stderr'][:60]!r}")
            print(f"  {i + 1:2d} [{r['step']:7s}] {r['cmd'][:60]!r:64s} {what}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
