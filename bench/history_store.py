"""What reading a repository's object store costs the hook (``shellgate.bash.git.objects``,
remembered by ``shellgate.bash.git.history``): ``git log -p`` checked in a generated
repository of N commits (``git fast-import``: one pack, deltified trees), and in the same
store unpacked to loose objects (``git unpack-objects``: a repository between two gcs).

For each store: the uncached check (the cache emptied before each run), the cached check (the
answer remembered, the store's signature recomputed), and the peak RSS of a process that only
reads every tree of it (``names_ever_held``), each in a fresh process.

    python bench/history_store.py [--commits 2000] [--runs 5] [--tree ROOT_OF_SHELLGATE]

``--tree`` measures another checkout of shellgate (say the commit before a change) with the
same repositories.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_PROBE = r"""
import json, os, resource, sys, time
from pathlib import Path
repo, what = Path(sys.argv[1]), sys.argv[2]
if what == "rss":
    from shellgate.bash.git import objects
    n = len(objects.names_ever_held(repo / ".git" / "objects", 20, lambda s: s == ".env"))
    print(json.dumps({"rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, "hits": n}))
else:
    from shellgate.check import Gate
    gate = Gate(repo, mode="balanced", home=repo)
    gate.check("git status", cwd=repo)   # imports and the index read, not measured
    t = time.perf_counter()
    v = gate.check("git log -p", cwd=repo)
    ms = (time.perf_counter() - t) * 1e3
    from shellgate.bash.git import history
    t = time.perf_counter()
    history.ever_held(repo / ".git" / "objects", 20, "bench", lambda s: s == ".env")
    print(json.dumps({"ms": ms, "decision": v.decision, "store_ms": (time.perf_counter() - t) * 1e3}))
"""


def _git(args: list[str], cwd: Path, **kw: object) -> None:
    env = {"PATH": os.environ["PATH"], "HOME": str(cwd), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, **kw)  # type: ignore[call-overload]


def _stream(commits: int, dirs: int = 60, files: int = 40) -> bytes:
    """A fast-import stream: ``dirs`` directories of ``files`` files, one or two changed a commit."""
    out = []
    for i in range(1, commits + 1):
        msg = f"c{i}".encode()
        out.append(b"commit refs/heads/main\nmark :%d\n" % i)
        out.append(b"committer t <t@e> %d +0000\ndata %d\n%s\n" % (1_600_000_000 + i, len(msg), msg))
        if i > 1:
            out.append(b"from :%d\n" % (i - 1))
        if i == 1:
            for d in range(dirs):
                for f in range(files):
                    body = b"%d %d\n" % (d, f)
                    out.append(b"M 100644 inline d%03d/file_%03d.txt\n" % (d, f))
                    out.append(b"data %d\n%s\n" % (len(body), body))
        else:
            for k in range(1 + i % 2):
                d, f = (i * 7 + k * 13) % dirs, (i * 11 + k) % files
                body = b"commit %d\n" % i
                out.append(b"M 100644 inline d%03d/file_%03d.txt\ndata %d\n%s\n" % (d, f, len(body), body))
        out.append(b"\n")
    return b"".join(out)


def build(base: Path, commits: int) -> tuple[Path, Path]:
    packed, loose = base / "packed", base / "loose"
    for r in (packed, loose):
        _git(["init", "-q", str(r)], base)
    _git(["fast-import", "--quiet"], packed, input=_stream(commits))
    _git(["checkout", "-q", "main"], packed)
    pack = next((packed / ".git/objects/pack").glob("*.pack"))
    _git(["unpack-objects", "-q"], loose, input=pack.read_bytes())
    shutil.copytree(packed / ".git/refs", loose / ".git/refs", dirs_exist_ok=True)
    _git(["checkout", "-q", "main"], loose)
    return packed, loose


def probe(tree: Path, repo: Path, what: str, cache: Path) -> dict:
    import json

    env = {**os.environ, "PYTHONPATH": str(tree), "XDG_CACHE_HOME": str(cache),
           "XDG_CONFIG_HOME": str(cache / "cfg"), "XDG_STATE_HOME": str(cache / "state")}
    run = subprocess.run([sys.executable, "-c", _PROBE, str(repo), what], env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--commits", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tree", type=Path, default=ROOT, help="the shellgate checkout to measure")
    args = ap.parse_args()
    base = Path(tempfile.mkdtemp(prefix="history_store."))
    try:
        for repo in build(base, args.commits):
            loose = sum(1 for p in (repo / ".git/objects").glob("??/*"))
            cache = base / f"cache-{repo.name}"
            uncached, cached, store = [], [], []
            for _ in range(args.runs):
                shutil.rmtree(cache, ignore_errors=True)
                first = probe(args.tree, repo, "check", cache)
                uncached.append(first["ms"])
                again = probe(args.tree, repo, "check", cache)
                cached.append(again["ms"])
                store.append(again["store_ms"])
            rss = probe(args.tree, repo, "rss", cache)
            print(f"{repo.name:7} {args.commits} commits, {loose} loose objects: check of `git log -p` "
                  f"uncached {statistics.median(uncached):.1f} ms, "
                  f"cached {statistics.median(cached):.2f} ms; "
                  f"remembered answer alone (history.ever_held) {statistics.median(store):.2f} ms "
                  f"(medians of {args.runs}; {first['decision']}); "
                  f"peak RSS reading every tree {rss['rss_kb'] / 1024:.1f} MiB")
    finally:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
