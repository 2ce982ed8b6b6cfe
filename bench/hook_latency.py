"""Hook latency: median wall time of ``shellgate hook claude-code`` vs ``python -c pass``.

A hook runs before every tool call of the agent, so its start-up cost is paid on every
command. This pipes a typical PreToolUse payload into the installed console script (the same
interpreter as this script) and prints the medians and their ratio (target: <= 2.5x).

    python bench/hook_latency.py [--runs 30] [--command 'git status']
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


def payload(command: str, cwd: str) -> str:
    return json.dumps({"session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": cwd,
                       "permission_mode": "default", "hook_event_name": "PreToolUse",
                       "tool_name": "Bash",
                       "tool_input": {"command": command, "description": "bench"},
                       "tool_use_id": "toolu_bench"})


def timed(argv: list[str], stdin: str, env: dict[str, str], cwd: str) -> tuple[float, str]:
    start = time.perf_counter()
    proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, env=env, cwd=cwd,
                          check=False)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{argv} exited {proc.returncode}: {proc.stderr[-500:]}")
    return elapsed, proc.stdout


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--command", default="git status && ls -la src | head -20")
    args = ap.parse_args()

    exe = shutil.which("shellgate")
    if exe is None:
        raise SystemExit("shellgate is not on PATH (pip install -e .)")
    with tempfile.TemporaryDirectory(prefix="shellgate-bench-") as tmp:
        env = dict(os.environ, XDG_STATE_HOME=os.path.join(tmp, "state"),
                   XDG_CONFIG_HOME=os.path.join(tmp, "config"))
        work = os.path.join(tmp, "work")
        os.mkdir(work)
        hook = [exe, "hook", "claude-code"]
        base = [sys.executable, "-c", "pass"]
        stdin = payload(args.command, work)
        _, answer = timed(hook, stdin, env, work)          # warm the page cache
        timed(base, "", env, work)
        hook_t, base_t = [], []
        for _ in range(args.runs):                          # interleaved: same machine state
            hook_t.append(timed(hook, stdin, env, work)[0])
            base_t.append(timed(base, "", env, work)[0])
    h, b = statistics.median(hook_t), statistics.median(base_t)
    decision = json.loads(answer)["hookSpecificOutput"]["permissionDecision"]
    print(f"command: {args.command!r} -> {decision}")
    print(f"runs: {args.runs}   interpreter: {sys.executable}")
    print(f"shellgate hook claude-code  median {h * 1000:7.1f} ms")
    print(f"python -c pass              median {b * 1000:7.1f} ms")
    print(f"ratio {h / b:.2f}x (target <= 2.5x)")


if __name__ == "__main__":
    main()
