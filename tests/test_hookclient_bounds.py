"""The hook client gives up on a peer that trickles or floods, as on an absent one: one deadline
for the whole exchange (a socket timeout bounds one ``recv`` only, so a byte every 0.2 s held
the client for ever) and a cap on the answer's size (a 2 GB answer took 1.9 GB of memory).
Then it decides in-process. Real impostor processes on a real port, the real client; every
process is bounded by a timeout, so a client without the bounds fails the test, never hangs
it. The peers' behaviours are the rows of corpus/hookbound_peers.jsonl."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from _helpers import hook_env
from conftest import load

from shellgate.integrations import hookclient, serve

PEERS = load("hookbound_peers.jsonl")
EXE = str(Path(sys.executable).with_name("shellgate"))

# argv: BEHAVIOUR. Prints its port, then serves each connection with that behaviour until the
# client goes away.
IMPOSTOR = r'''
import socket, sys, time
how = sys.argv[1]
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0)); srv.listen(8)
print(srv.getsockname()[1], flush=True)
MB = b"a" * (1 << 20)
while True:
    c, _ = srv.accept()
    data = b""
    while b"\r\n\r\n" not in data:
        data += c.recv(65536)
    try:
        if how == "trickle-head":
            c.sendall(b"HTTP/1.1 200 OK\r\nX-Pad: ")
            while True:
                c.sendall(b"a"); time.sleep(0.2)
        elif how == "trickle-body":
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n")
            while True:
                c.sendall(b"a"); time.sleep(0.2)
        elif how == "no-close":
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}")
            c.recv(1)   # until the client closes
        elif how == "flood":
            c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % 2**40)
            while True:
                c.sendall(MB)
        elif how == "flood-chunked":
            c.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
            while True:
                c.sendall(b"100000\r\n" + MB + b"\r\n")
        elif how == "flood-headers":
            c.sendall(b"HTTP/1.1 200 OK\r\n")
            while True:
                c.sendall(b"X-Pad: a\r\n" * 4096)
    except OSError:
        pass
    c.close()
'''

# argv: HOOKCLIENT_DIR PORT KEYFILE. One exchange with a 1 s deadline, in 1 GiB of address
# space (a client that reads everything fails with MemoryError instead of filling the
# machine); prints how it ended, how long it took and its peak memory.
CLIENT = r'''
import http.client, json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
sys.path.insert(0, sys.argv[1])
import hookclient
body = b'{"tool_name": "Bash", "tool_input": {"command": "ls"}}'
start = time.monotonic()
try:
    hookclient.exchange("127.0.0.1:" + sys.argv[2], "POST", "/hook/claude-code", body,
                        hookclient.read_key(sys.argv[3]), timeout=1.0)
    how = "answered"
except (OSError, ValueError, http.client.HTTPException) as exc:
    how = "gave up: " + type(exc).__name__
except BaseException as exc:
    how = "failed: " + type(exc).__name__
# VmHWM is this program's own peak (ru_maxrss carries the forking parent's across exec)
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({"how": how, "seconds": time.monotonic() - start, "rss_mib": hwm // 1024}))
'''


@pytest.fixture
def impostors() -> Iterator[object]:
    started: list[subprocess.Popen] = []

    def start(how: str) -> int:
        p = subprocess.Popen([sys.executable, "-c", IMPOSTOR, how], stdout=subprocess.PIPE,
                             text=True)
        started.append(p)
        return int(p.stdout.readline())

    yield start
    for p in started:
        p.kill()
        p.wait()
        p.stdout.close()


@pytest.fixture
def keyfile(tmp_path: Path) -> Path:
    path = tmp_path / "config" / "shellgate" / "serve-key"
    serve.ensure_key(path)   # a server ran before: the client has a key, so it asks the port
    return path


@pytest.mark.parametrize("case", PEERS, ids=lambda c: c["peer"])
def test_client_gives_up_on_a_slow_or_huge_answer(case, impostors, keyfile):
    port = impostors(case["peer"])
    try:
        p = subprocess.run([sys.executable, "-I", "-S", "-c", CLIENT,
                            os.path.dirname(hookclient.__file__), str(port), str(keyfile)],
                           capture_output=True, text=True, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{case['peer']}: the client was still waiting after 30 s (its deadline "
                    "was 1 s): no deadline for the whole exchange")
    got = json.loads(p.stdout)
    # no wall-clock bound here (shared machines): a client without the deadline never ends,
    # and the 30 s subprocess timeout above fails it
    assert got["how"].startswith("gave up"), (case, got, p.stderr)
    assert got["rss_mib"] < 200, (case, got)


def test_the_real_client_decides_itself_when_the_port_trickles(tmp_path, impostors, keyfile):
    """The installed command: the answer never whole, it prints its own in-process decision
    within its :data:`hookclient.TIMEOUT` and the hook's watchdog, well inside the agent's
    hook timeout (``install.HOOK_TIMEOUT_S``; Claude Code runs the call on a timed-out hook
    unless ``onFailure: "block"``, Gemini CLI on any exit but 0 and 2)."""
    from shellgate.integrations.install import HOOK_TIMEOUT_S

    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    env = hook_env(tmp_path, home)
    body = json.dumps({"session_id": "s", "cwd": str(work), "permission_mode": "default",
                       "hook_event_name": "PreToolUse", "tool_name": "Bash",
                       "tool_input": {"command": "rm -rf ~/important"},
                       "tool_use_id": "t"}).encode()
    port = impostors("trickle-head")
    try:
        p = subprocess.run([sys.executable, "-I", "-S", hookclient.__file__, "claude-code",
                            "--listen", f"127.0.0.1:{port}"], input=body, capture_output=True,
                           env=env, cwd=work, timeout=HOOK_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the client was still waiting after the agent's {HOOK_TIMEOUT_S} s hook "
                    "timeout")
    own = subprocess.run([EXE, "hook", "claude-code"], input=body, capture_output=True, env=env,
                         cwd=work, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout == own.stdout
    assert json.loads(p.stdout)["hookSpecificOutput"]["permissionDecision"] in ("ask", "deny")


@pytest.mark.parametrize("command", ["ls \"" + "'" * 1000 + "\"", "ls " + "\\'" * 1000,
                                     "echo \"" + "'\x01" * 1000 + "\""],
                         ids=["quotes", "escaped-quotes", "quotes-and-controls"])
def test_the_largest_real_answers_fit_the_cap(tmp_path, command):
    """Answers that echo the command quoted for the sandbox's line (a ``'`` grows to seven
    bytes, plus the line's ~10 KB) still pass: the real server, in this process, answers
    ``allow`` with the ``updatedInput`` and the client takes it."""
    import threading

    key = b"t" * 64
    server = serve.make_server("127.0.0.1:0", key=key)
    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    body = json.dumps({"session_id": "s", "cwd": str(tmp_path), "permission_mode": "default",
                       "hook_event_name": "PreToolUse", "tool_name": "Bash",
                       "tool_input": {"command": command}, "tool_use_id": "t"}).encode()
    try:
        status, answer = hookclient.exchange("{}:{}".format(*server.server_address[:2]), "POST",
                                             "/hook/claude-code", body, key)
    finally:
        server.shutdown()
        server.server_close()
        t.join(timeout=30)
    out = json.loads(answer)["hookSpecificOutput"]
    assert status == 200 and out["permissionDecision"] == "allow", out
    assert len(answer) > 3 * len(body)   # the quoting and the line: more than the input
