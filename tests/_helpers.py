"""Set-up several test modules share: throwaway git workspaces, fake homes, sandboxes, a
fixed-answer approver, parser modes and samples of the shared corpus data.

Imported as ``from _helpers import …`` (pytest puts tests/ on ``sys.path``, as for conftest).
Plain functions, not fixtures: each module keeps its own fixtures and their scope.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import CORPUS_DATA

from shellgate.bash.ir import Script
from shellgate.bash.parse import walk
from shellgate.bash.parse.parser import parse
from shellgate.permission import DecisionKind

BASH = shutil.which("bash")


EXE = shutil.which("shellgate")
# For a test module that runs the installed console script (pytestmark = needs_console_script).
needs_console_script = pytest.mark.skipif(
    EXE is None, reason="the shellgate console script is not installed (pip install -e .)")


def hook_env(root: Path, home: Path) -> dict[str, str]:
    """The environment a hook process gets in a test: this one's, without the agents'
    project variables or a shellgate config, with ``home`` as HOME and private config and
    state directories under ``root``."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "SHELLGATE_CONFIG")}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(root / "config"), XDG_STATE_HOME=str(root / "state"))
    return env


def git_workspace(ws: Path, commit: tuple[str, str] | None = None) -> Path:
    """A new git repository at ``ws`` (branch main) with a pre-commit hook the sandbox must keep
    read-only; with ``commit=(name, text)`` that file is committed under a test identity."""
    ws.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(ws)], check=True)
    (ws / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    if commit is not None:
        for k, v in (("user.email", "t@example.invalid"), ("user.name", "t")):
            subprocess.run(["git", "-C", str(ws), "config", k, v], check=True)
        name, text = commit
        (ws / name).write_text(text)
        subprocess.run(["git", "-C", str(ws), "add", name], check=True)
        subprocess.run(["git", "-C", str(ws), "commit", "-qm", "init", "--no-verify"], check=True)
    return ws


def home_with_key(home: Path, key: str) -> Path:
    """A HOME at ``home`` whose ``~/.ssh/id_rsa`` holds ``key`` (a canary no command may read)."""
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(key)
    return home


def hookspath_world(tmp_path: Path, case: dict) -> dict:
    """A workspace whose ``core.hooksPath`` is ``case["hooks_path"]`` (made when
    ``case["exists"]``), a fake HOME, the canary a planted hook would touch, and
    ``case["cmd"]`` with ``$CANARY`` filled in (corpus/hookspath_escapes.jsonl)."""
    ws = git_workspace(tmp_path / "ws", commit=("README", "hello\n"))
    home = home_with_key(tmp_path / "home", "CANARY-key\n")
    subprocess.run(["git", "-C", str(ws), "config", "core.hooksPath", case["hooks_path"]], check=True)
    if case["exists"]:
        (ws / case["hooks_path"]).mkdir(parents=True)
        (ws / case["hooks_path"] / "README").write_text("hooks live here\n")
    canary = tmp_path / "planted-hook-ran"
    return {"ws": ws, "home": home, "canary": canary,
            "cmd": case["cmd"].replace("$CANARY", str(canary))}


def host_git(world: dict) -> None:
    """What the user does next in ``world["ws"]``, outside any sandbox: status, then a commit."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(world["home"]),
           "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["status"], ["commit", "-q", "--allow-empty", "-m", "next"]):
        subprocess.run(["git", "-C", str(world["ws"]), *args], env=env, capture_output=True, check=False)


def hooks_state(world: dict, case: dict) -> dict[str, bytes]:
    """The hooks directory's entries and their content (empty when it is missing)."""
    d = world["ws"] / case["hooks_path"]
    return {p.name: p.read_bytes() for p in sorted(d.iterdir())} if d.is_dir() else {}


def agent_project(root: Path, subdir: str, readme: str, key: str) -> tuple[Path, Path]:
    """What an agent integration runs in: ``root/work`` (``git init``, a README.md and an empty
    ``subdir``) and a fake HOME ``root/home`` with an SSH key."""
    work = root / "work"
    (work / subdir).mkdir(parents=True)
    (work / "README.md").write_text(readme)
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    return work, home_with_key(root / "home", key)


class Approver:
    """An approver that always gives ``answer`` and keeps every prompt it was shown."""

    def __init__(self, answer: Any = DecisionKind.ALLOW_ONCE) -> None:
        self.answer, self.prompts = answer, []

    def __call__(self, prompt: Any) -> Any:
        self.prompts.append(prompt)
        return self.answer


def sandbox_or_skip(tier: str) -> Any:
    """The sandbox for a test's tier name — a tier, or ``bwrap-fresh`` for bwrap started afresh
    per command (plain ``bwrap`` is pre-spawned) — or the test is skipped with the reason the
    machine lacks that tier."""
    from shellgate.sandbox import Sandbox, SandboxUnavailable

    name, _, variant = tier.partition("-")
    try:
        return Sandbox(name, prespawn=variant != "fresh")
    except SandboxUnavailable as exc:
        pytest.skip(f"{name} tier unavailable here: {exc}")


def world_policy(world: dict[str, Path], **kw: Any) -> Any:
    """The sandbox policy for a test world: its workspace ``ws`` and fake ``home``."""
    from shellgate.sandbox import build_policy

    return build_policy(world["ws"], home=world["home"], **kw)


@contextlib.contextmanager
def parser_mode(mode: str) -> Iterator[None]:
    """``plain``: every fast path; ``fast``: no plain-words path; ``bashlex``: neither."""
    saved = walk.PLAIN, walk.FAST
    walk.PLAIN, walk.FAST = mode == "plain", mode in ("plain", "fast")
    try:
        yield
    finally:
        walk.PLAIN, walk.FAST = saved


def parsed_in(src: str, *modes: str) -> tuple[Script, ...]:
    """``src`` parsed in each of the parser ``modes`` (see ``parser_mode``), in that order: the
    fast paths must give exactly the script of the slower ones."""
    out = []
    for mode in modes:
        with parser_mode(mode):
            out.append(parse(src))
    return tuple(out)


def commands_of(lines: Iterable[str]) -> Iterator[str]:
    """The commands of corpus lines; a line that is not JSON with a string ``cmd`` (a blank, a
    comment, a record of another kind) is passed over."""
    for line in lines:
        try:
            cmd = json.loads(line).get("cmd")
        except (ValueError, AttributeError):
            continue
        if isinstance(cmd, str):
            yield cmd


def corpus_commands(stride: int) -> list[str]:
    """The command of every ``stride``-th line of each shared corpus file; empty when the data
    is absent."""
    return [cmd for f in sorted(CORPUS_DATA.glob("*.jsonl"))
            for cmd in commands_of(f.read_text(encoding="utf-8", errors="surrogateescape")
                                   .splitlines()[::stride])]


def bash_calls(src: str, tmp: Path) -> list[list[str]]:
    """Every call of the function ``f`` bash makes running ``src`` in ``tmp`` (its argv, ``f``
    first), written to fd 9 so that redirections of fds 0-2 in ``src`` do not hide them."""
    out = tmp / "calls"
    prog = ("exec 9>" + str(out) + "; f() { printf 'f\\0' >&9; for a; do printf '%s\\0' \"$a\" >&9; "
            "done; printf '\\036' >&9; }; set -f\n" + src)
    subprocess.run([BASH or "bash", "-c", prog], cwd=tmp, capture_output=True, timeout=10, check=False,
                   env={"PATH": os.environ.get("PATH", ""), "LC_ALL": "C.UTF-8"})
    data = out.read_bytes().decode("utf-8") if out.exists() else ""
    return [rec.split("\0")[:-1] for rec in data.split("\036")[:-1]]


def shellgate_calls(src: str) -> list[list[str]] | None:
    """The argv of every ``f`` command shellgate finds in ``src``; None when it refuses."""
    script = parse(src)
    if script.error is not None:
        return None
    return [[w.text for w in c.words] for c in script.commands if c.name == "f"]


def missed_calls(src: str, tmp: Path) -> list[list[str]] | None:
    """The calls of ``f`` bash makes running ``src`` that shellgate does not list (None when
    shellgate refuses): shellgate may list more (both sides of ``||``), not fewer. A command
    with an expansion in its words stands for any call that agrees with its static words up to
    the first expansion (``f $(f a)`` is bash's ``f`` with whatever ``f a`` printed)."""
    script = parse(src)
    if script.error is not None:
        return None
    exact = [[w.text for w in c.words] for c in script.commands
             if c.name == "f" and all(w.static for w in c.words)]
    loose = []
    for c in script.commands:
        if c.name == "f" and not all(w.static for w in c.words):
            k = next(i for i, w in enumerate(c.words) if not w.static)
            loose.append([w.text for w in c.words[:k]])
    return [call for call in bash_calls(src, tmp)  # a loop runs a listed command many times
            if call not in exact and not any(call[:len(p)] == p for p in loose)]


def bash_rejects(src: str, shell: str = "bash") -> bool:
    """Whether ``shell -n`` finds a syntax error in ``src`` (nothing is run)."""
    proc = subprocess.run([shutil.which(shell) or shell, "-n", "-c", src], capture_output=True,
                          timeout=10, check=False, env={"PATH": os.environ.get("PATH", ""),
                                                        "LC_ALL": "C.UTF-8"})
    return proc.returncode != 0


def python_steps(fn, *args, **kw) -> tuple[object, int]:
    """``fn(*args)`` and the Python lines of shellgate it ran (machine-independent work)."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        if "/shellgate/" not in frame.f_code.co_filename:
            return None
        count += event == "line"
        return tracer

    sys.settrace(tracer)
    try:
        result = fn(*args, **kw)
    finally:
        sys.settrace(None)
    return result, count


class UnixListeners:
    """Host services' Unix sockets, real and listening, that count what reaches them: a
    stream socket and a datagram one at each of ``paths`` (an agent under HOME, nscd or
    journald under /run …), and a stream one at the abstract name ``abstract``. ``hits`` are
    the connections and datagrams that arrived, by name (none may, from a sandbox without
    network)."""

    def __init__(self, paths: dict[str, Path], abstract: str) -> None:
        import socket
        import threading

        self.hits: list[str] = []
        self.targets: list[str] = []   # what a client names: paths, "@name" for abstract
        self._socks: list[socket.socket] = []
        self._stop = threading.Event()
        addrs = [(n, str(p), t) for n, p in paths.items()
                 for t in (socket.SOCK_STREAM, socket.SOCK_DGRAM)]
        addrs.append(("abstract", "\0" + abstract, socket.SOCK_STREAM))
        for name, addr, kind in addrs:
            if kind == socket.SOCK_DGRAM:
                addr += ".dgram"
            sock = socket.socket(socket.AF_UNIX, kind)
            sock.bind(addr)
            if kind == socket.SOCK_STREAM:
                sock.listen(8)
            sock.settimeout(0.1)
            self._socks.append(sock)
            self.targets.append(addr.replace("\0", "@", 1))
            threading.Thread(target=self._serve, args=(sock, name, kind), daemon=True).start()

    def _serve(self, sock: Any, name: str, kind: int) -> None:
        import socket

        while not self._stop.is_set():
            try:
                if kind == socket.SOCK_STREAM:
                    sock.accept()[0].close()
                else:
                    sock.recv(64)
            except OSError:
                continue
            self.hits.append(name)

    def settle(self) -> list[str]:
        """The hits once what was sent has had time to arrive."""
        import time

        time.sleep(0.3)
        return list(self.hits)

    def close(self) -> None:
        self._stop.set()
        for sock in self._socks:
            sock.close()


# Every way a program reaches a Unix socket it names: connect() on a stream socket, sendto() on
# a datagram one, and on each end of a datagram pair (made by socketpair(), which a filter on
# socket() alone would miss). Prints a line per way that got through.
UNIX_CLIENT = """
import socket, sys
def reach(target):
    addr = "\\0" + target[1:] if target.startswith("@") else target
    if target.endswith(".dgram"):
        yield lambda: socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"x", addr)
        yield lambda: socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)[0].sendto(b"x", addr)
    else:
        yield lambda: socket.socket(socket.AF_UNIX).connect(addr)
for target in sys.argv[1:]:
    for way in reach(target):
        try:
            way()
            print("reached", target)
        except OSError as exc:
            print("refused", target, exc)
"""


def unix_clients(targets: list[str]) -> str:
    """A command that tries to reach each of ``targets`` (:class:`UnixListeners`) with Python,
    and with ``curl --unix-socket``, ``nc -U`` and ``socat`` where they are installed."""
    import shlex

    words = " ".join(map(shlex.quote, targets))
    cmd = f"{shlex.quote(sys.executable)} -c {shlex.quote(UNIX_CLIENT)} {words}"
    for t in (t for t in targets if not t.startswith("@") and not t.endswith(".dgram")):
        q = shlex.quote(t)
        for tool, words in (("curl", f"-sm2 --unix-socket {q} http://x/"),
                            ("nc", f"-U -w1 {q} </dev/null"),
                            ("socat", f"-u OPEN:/dev/null UNIX-CONNECT:{q}")):
            if shutil.which(tool):
                cmd += f"; {tool} {words}"
    return cmd


def assert_git_leak_verdict(ws: Path, home: Path, case: dict) -> None:
    """A git corpus line (``dir``, ``cmd``, ``hit``) decided in balanced mode: a leak-class
    read exactly when ``hit``, and allowed exactly when not."""
    from shellgate.bash.facts import PathClass
    from shellgate.check import Gate

    verdict = Gate(ws, mode="balanced", home=home).check(case["cmd"], cwd=ws / case["dir"])
    leaks = [h for h in verdict.analysis.sensitive if h.cls is PathClass.LEAK]
    assert bool(leaks) == case["hit"], verdict.to_json()
    assert (verdict.decision == "allow") == (not case["hit"]), verdict.to_json()


def assert_git_oracle(ws: Path, env: dict[str, str], case: dict, canary: str) -> None:
    """The same line run by bash and real git: it prints ``canary`` exactly when labelled
    ``leak``, and a line that prints it is labelled a hit."""
    run = subprocess.run(["bash", "-c", case["cmd"]], cwd=ws / case["dir"], env=env, capture_output=True,
                         stdin=subprocess.DEVNULL)
    out = run.stdout.decode("utf-8", "replace")
    assert (canary in out) == case["leak"], out + run.stderr.decode("utf-8", "replace")
    assert case["hit"] or not case["leak"], "a command that prints the canary must be a hit"
