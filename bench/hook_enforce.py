"""Enforced hook approvals (SPEC §9): what confinement costs and what it changes.

1. Overhead: ``bash -c <confined true>`` against ``bash -c true`` (medians, ratio, added ms),
   and the hook process with and without the rewrite (``[hooks] enforce``), interleaved: the
   rewrite with its line remembered (the usual case) and built anew.
2. Compatibility: distinct real commands from ``../shared/corpus-data/`` that shellgate allows
   as read-only, run plain and confined in a real project tree (the installed ``click``
   package's source, copied into a git repository); the share with identical stdout, stderr and
   exit status, and every difference with a guessed cause.

    python bench/hook_enforce.py [--runs 61] [--commands 2500] [--show 40] [--write]

``--write``: step 1 measures a write grant's line (the workspace writable; on the bwrap tier
the undo watcher of sandbox/watch.py is armed before bwrap) and stops there.

Run it as the user the agent runs as (``su USER -c 'python bench/hook_enforce.py'``, with an
interpreter that user can read): as root the line also hides the files only root can open
(``/etc/shadow`` and its kin), five more mounts.

Needs bwrap (or Landlock); the corpus is optional (step 2 is skipped without it).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus-data"


def paired_ms(plain: list[str], confined: list[str], runs: int, cwd: str) -> dict[str, float]:
    """Medians of ``plain`` and ``confined`` run alternately (load hits both alike), and the
    median of their paired differences with its 95% bootstrap interval."""
    times: dict[str, list[float]] = {"plain": [], "confined": []}
    for _ in range(runs):
        for name, argv in (("plain", plain), ("confined", confined)):
            t = time.perf_counter()
            subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True)
            times[name].append((time.perf_counter() - t) * 1000)
    diffs = [c - p for p, c in zip(times["plain"], times["confined"], strict=True)]
    lo, hi = _bootstrap_median(diffs)
    return {"plain": statistics.median(times["plain"]),
            "confined": statistics.median(times["confined"]),
            "added": statistics.median(diffs), "added_lo": lo, "added_hi": hi}


def hook_latency(tree: Path, runs: int) -> dict[str, float]:
    """Median ms of ``shellgate hook claude-code`` answering ``git status``: with the rewrite
    (its line remembered, and built anew each call) and with ``[hooks] enforce = false``, runs
    interleaved (so load hits all alike). Each has a config file, so that reading it costs the
    same in all three."""
    exe = shutil.which("shellgate") or "shellgate"
    env: dict[str, dict[str, str]] = {}
    for name, value in (("on", "true"), ("on, built anew", "true"), ("off", "false")):
        cfg = tree.parent / f"cfg-{value}"
        (cfg / "shellgate").mkdir(parents=True, exist_ok=True)
        (cfg / "shellgate" / "config.toml").write_text(f"[hooks]\nenforce = {value}\n")
        env[name] = dict(os.environ, XDG_STATE_HOME=str(tree.parent / "state"),
                         XDG_CONFIG_HOME=str(cfg))
    payload = json.dumps({"session_id": "b", "cwd": str(tree), "permission_mode": "default",
                          "hook_event_name": "PreToolUse", "tool_name": "Bash",
                          "tool_input": {"command": "git status"}, "tool_use_id": "t"})
    from shellgate.sandbox.cachefiles import cache_dir

    lines = cache_dir() / "lines"
    times: dict[str, list[float]] = {name: [] for name in env}
    for _ in range(runs):
        for name, e in env.items():
            if name == "on, built anew":
                shutil.rmtree(lines, ignore_errors=True)
            t = time.perf_counter()
            subprocess.run([exe, "hook", "claude-code"], input=payload, text=True,
                           capture_output=True, env=e, cwd=tree)
            times[name].append((time.perf_counter() - t) * 1000)
    out = {name: statistics.median(v) for name, v in times.items()}
    diffs = [a - b for a, b in zip(times["on"], times["off"], strict=True)]
    lo, hi = _bootstrap_median(diffs)
    q = statistics.quantiles(times["off"], n=4)
    out["added"] = statistics.median(diffs)
    out["added_lo"], out["added_hi"] = lo, hi
    out["noise_iqr"] = q[2] - q[0]
    return out


def _bootstrap_median(values: list[float], rounds: int = 2000) -> tuple[float, float]:
    """A 95% bootstrap interval of the median of ``values`` (fixed seed: reproducible)."""
    import random

    rng = random.Random(12)
    meds = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(rounds))
    return meds[int(0.025 * rounds)], meds[int(0.975 * rounds)]


def project_tree(root: Path) -> Path:
    """A git repository holding a real package's source (click, installed with shellgate)."""
    import click

    src = Path(click.__file__).parent
    tree = root / "proj"
    shutil.copytree(src, tree / "src" / "click", ignore=shutil.ignore_patterns("__pycache__"))
    (tree / "README.md").write_text("# proj\n\nA copy of click's source.\n")
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    subprocess.run(["git", "-C", str(tree), "add", "-A"], check=True)
    subprocess.run(["git", "-C", str(tree), "-c", "user.email=b@e", "-c", "user.name=b",
                    "commit", "-qm", "import"], check=True, env={**os.environ, "GIT_COMMITTER_DATE":
                    "2026-01-01T00:00:00", "GIT_AUTHOR_DATE": "2026-01-01T00:00:00"})
    return tree


def read_only_commands(tree: Path, limit: int) -> list[str]:
    from shellgate import Gate

    gate = Gate(tree)
    seen: set[str] = set()
    out: list[str] = []
    for f in sorted(CORPUS.glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8").splitlines():
            cmd = json.loads(line)["cmd"]
            if cmd in seen or len(cmd) > 2000:
                continue
            seen.add(cmd)
            v = gate.check(cmd)
            if v.allowed and v.grant == "read":
                out.append(cmd)
                if len(out) >= limit:
                    return out
    return out


def cause(cmd: str, plain: tuple, confined: tuple) -> str:
    if plain[:2] == confined[:2] and sorted(plain[2].splitlines()) == sorted(confined[2].splitlines()):
        return "the same stderr lines in another order (pipeline stages race)"
    text = " ".join(map(str, plain + confined))
    for needle, why in (("/tmp", "a private /tmp"), ("ps ", "a private PID namespace"),
                        ("$$", "a private PID namespace"), ("date", "the time"),
                        ("env", "secret-named variables unset"), ("proc", "a private /proc"),
                        ("Permission denied", "a masked secret file")):
        if needle in cmd or needle in text:
            return why
    return "unexplained"


def run(cmd: str, argv: list[str], tree: Path, env: dict) -> tuple[int, str, str]:
    try:
        p = subprocess.run(argv, cwd=tree, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=20)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return -1, "<timeout>", ""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=61)
    ap.add_argument("--commands", type=int, default=2500)
    ap.add_argument("--show", type=int, default=40)
    ap.add_argument("--write", action="store_true", help="step 1 only, with a write grant's line")
    args = ap.parse_args()
    from shellgate.sandbox.enforce import confine_grant, hook_tier

    tier = hook_tier()
    if str(tier.tier) == "none":
        print("no sandbox tier here: nothing to measure")
        return 1
    # Not under /tmp: the sandbox's /tmp is private, so `ls ..` would differ for that reason.
    with tempfile.TemporaryDirectory(prefix="sg-bench-", dir="/var/tmp") as tmp:
        tree = project_tree(Path(tmp))
        line = confine_grant("true", tree, tree, write=args.write, network=False, tier=tier).line
        import pwd

        masks = line.count("--ro-bind /dev/null ") + line.count("--tmpfs ") - 1  # not /tmp
        print(f"as {pwd.getpwuid(os.getuid()).pw_name} (uid {os.getuid()}), load "
              f"{os.getloadavg()[0]:.2f}; the line is {len(line)} bytes and hides {masks} "
              "paths (root's add /etc/shadow & co., which other users cannot open anyway)")
        o = paired_ms(["bash", "-c", "true"], ["bash", "-c", line], args.runs, str(tree))
        print(f"overhead ({tier.tier}): bash -c true {o['plain']:.2f} ms, confined "
              f"{o['confined']:.2f} ms, median of {args.runs} interleaved; added (paired): median "
              f"{o['added']:+.2f} ms, 95% interval [{o['added_lo']:+.2f}, {o['added_hi']:+.2f}] ms"
              + (" (write grant)" if args.write else ""))
        if args.write:
            return 0
        lat = hook_latency(tree, args.runs)
        off = lat["off"]
        print(f"hook process (git status), median of {args.runs} interleaved: "
              + ", ".join(f"enforce {k} {lat[k]:.1f} ms ({lat[k] / off:.3f}x)"
                          for k in ("on", "on, built anew", "off")))
        print(f"  added by the rewrite (paired, remembered line): median {lat['added']:+.2f} ms, "
              f"95% interval [{lat['added_lo']:+.2f}, {lat['added_hi']:+.2f}] ms; noise: "
              f"the off runs' interquartile range is {lat['noise_iqr']:.2f} ms")
        if not CORPUS.is_dir():
            print(f"compatibility: skipped ({CORPUS} not found)")
            return 0
        cmds = read_only_commands(tree, args.commands)
        env = {k: v for k, v in os.environ.items()}
        same, diffs = 0, []
        for cmd in cmds:
            p = run(cmd, ["bash", "-c", cmd], tree, env)
            line = confine_grant(cmd, tree, tree, write=False, network=False, tier=tier).line
            c = run(cmd, ["bash", "-c", line], tree, env)
            subprocess.run(["git", "-C", str(tree), "checkout", "-q", "."], check=False)
            if p == c:
                same += 1
            else:
                diffs.append((cmd, p, c))
        n = len(cmds)
        print(f"compatibility: {same}/{n} identical (stdout, stderr, exit status) = "
              f"{100 * same / max(n, 1):.2f}%")
        by_cause: dict[str, int] = {}
        for cmd, p, c in diffs:
            by_cause[cause(cmd, p, c)] = by_cause.get(cause(cmd, p, c), 0) + 1
        for why, k in sorted(by_cause.items(), key=lambda kv: -kv[1]):
            print(f"  {k:5d}  {why}")
        for cmd, p, c in diffs[:args.show]:
            print(f"--- {cmd[:100]!r}\n    plain    {p[0]} {p[1][:80]!r} {p[2][:80]!r}\n"
                  f"    confined {c[0]} {c[1][:80]!r} {c[2][:80]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
