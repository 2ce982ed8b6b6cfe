"""One case of tests/test_fifo_sweep.py, run in a child process (a stalled read must fail the
case by the parent's timeout, not hang the suite): a scratch HOME and a git repository as the
workspace, one file planted as a FIFO, a link to /dev/zero or a sparse file of 64 GiB, then the
decision on one command. Prints the verdict as JSON. Address space is capped at 2 GiB so a read
to the end of /dev/zero raises MemoryError here instead of filling the machine."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

SPARSE = 64 << 30


def plant(path: Path, kind: str, text: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink() or path.is_file():
        path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "sparse":
        with open(path, "wb") as f:
            f.truncate(SPARSE)
    elif kind == "fifo-link":    # a config kept as a link (a dotfile manager) to a FIFO
        os.mkfifo(path.with_name(path.name + ".target"))
        path.symlink_to(path.name + ".target")
    elif kind == "link":         # the legitimate case: a link to a regular file
        path.with_name(path.name + ".target").write_text(text, encoding="utf-8")
        path.symlink_to(path.name + ".target")
    else:
        raise SystemExit(f"unknown kind {kind!r}")


def setup(base: Path, case: dict) -> tuple[Path, Path]:
    home, ws = base / "home", base / "ws"
    home.mkdir()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", "init", "-q", str(ws)], check=True, env=env)
    for rel, text in case.get("files", {}).items():
        (ws / rel).parent.mkdir(parents=True, exist_ok=True)
        (ws / rel).write_text(text, encoding="utf-8")
    for argv in case.get("setup", ()):
        subprocess.run(argv, check=True, cwd=ws, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    root = home if case["root"] == "home" else ws
    plant(root / case["path"], case["kind"], case.get("text", ""))
    return home, ws


def hook(cwd: Path, command: str) -> dict:
    """The decision of the hook Claude Code runs (``shellgate init`` installs the stdlib
    client: it asks ``shellgate serve`` when one answers with the key, else decides here),
    with session id "s", whose workspace anchor is ``sessions/claude-code-73``."""
    client = Path(__file__).resolve().parent.parent / "shellgate/integrations/hookclient.py"
    payload = {"session_id": "s", "transcript_path": "/nonexistent", "cwd": str(cwd),
               "hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": command}, "permission_mode": "default"}
    proc = subprocess.run([sys.executable, "-I", "-S", str(client), "claude-code"],
                          input=json.dumps(payload), capture_output=True, text=True,
                          timeout=50, env={**os.environ, "PYTHONPATH": ""})
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    reason = out.get("permissionDecisionReason", "")
    return {"decision": out["permissionDecision"], "reason": reason, "rule": "",
            "reasons": [proc.stderr.strip()] if proc.stderr.strip() else []}


def main() -> None:
    case = json.loads(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        home, ws = setup(base, case)
        os.environ.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
                          XDG_STATE_HOME=str(home / ".local/state"),
                          XDG_CACHE_HOME=str(home / ".cache"))
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
        if case.get("entry") == "hook":
            print(json.dumps(hook(ws / case.get("cwd", "."), case["command"])))
            return
        from shellgate.check import Gate

        cwd = ws / case.get("cwd", ".")
        v = Gate(ws, mode=case.get("mode", "balanced"), home=home, terminal=False).check(
            case["command"], cwd=cwd)
        out = {"decision": v.decision, "reason": v.reason, "rule": v.rule,
               "reasons": [r.message for r in (*v.analysis.reasons, *v.extra_reasons)]}
        print(json.dumps(out))
        sys.stdout.flush()
        os._exit(0)   # a thread still blocked on a FIFO must not keep the process alive


if __name__ == "__main__":
    main()
