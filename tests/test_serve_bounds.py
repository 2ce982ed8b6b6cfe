"""``shellgate serve`` under peers that stall, trickle, flood or cut off, and under many at
once: real server processes (the test's ``PYTHONPATH``), real sockets, the real hook client.

Before these bounds a connection had 60 s per read (a byte every 50 s held its thread and
descriptor for ever) and every connection got a thread: 300 idle connections made 300
threads; under ``RLIMIT_NOFILE`` 64 the server's ``accept`` failed with EMFILE 12,202 times in
3 s (a busy loop) and the decisions' own ``open`` calls failed. Now a request has one deadline
(``--request-deadline``) and a head budget, and ``--max-connections`` are served at once; one
more gets a ``503`` and the client decides in-process. Small limits keep the tests fast; every
wait is on a socket or a process, bounded by a guard that only a server without the bounds
reaches. The stalling peers are the rows of corpus/servebound_peers.jsonl."""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from _helpers import hook_env
from conftest import load

from shellgate.integrations import hookclient, serve

PEERS = load("servebound_peers.jsonl")
CLIENT = str(Path(serve.__file__).with_name("hookclient.py"))
EXE = str(Path(sys.executable).with_name("shellgate"))
DEADLINE = 1.0      # the servers' --request-deadline here
GUARD = 30.0        # seconds no bounded server ever makes a peer wait here
TICK = 0.2          # a trickling peer's pause between bytes: well inside one deadline


class Server:
    """A ``shellgate serve`` process on a free port, stopped by :meth:`stop`."""

    def __init__(self, root: Path, *args: str) -> None:
        self.root = root
        self.work = root / "work"
        self.home = root / "home"
        self.work.mkdir(parents=True, exist_ok=True)
        self.home.mkdir(exist_ok=True)
        self.env = hook_env(root, self.home)
        self.env["PYTHONPATH"] = os.pathsep.join(
            [str(Path(serve.__file__).parents[2])] + [p for p in sys.path if p.endswith(
                ("site-packages", "dist-packages"))])
        self.proc = subprocess.Popen([sys.executable, "-m", "shellgate", "serve", "--listen",
                                      "127.0.0.1:0", *args], env=self.env, cwd=self.work,
                                     stderr=subprocess.PIPE, text=True)
        line = self.proc.stderr.readline()
        m = re.search(r"listening on http://(\S+)", line)
        if m is None:
            self.stop()
            pytest.fail(f"serve did not start: {line}")
        self.addr = m.group(1)
        host, _, port = self.addr.rpartition(":")
        self.sockaddr = (host, int(port))
        self.key = hookclient.read_key(str(root / "config" / "shellgate" / "serve-key"))

    def threads(self) -> int:
        return len(os.listdir(f"/proc/{self.proc.pid}/task"))

    def connect(self) -> socket.socket:
        return socket.create_connection(self.sockaddr, timeout=GUARD)

    def health(self) -> int:
        """The status of a proven ``GET /health`` (503 when refused as one too many)."""
        try:
            return hookclient.exchange(self.addr, "GET", "/health", b"", self.key, GUARD)[0]
        except ValueError as exc:   # an unproven answer: the busy 503 carries no proof
            return int(re.search(r"HTTP (\d+)", str(exc)).group(1))

    def payload(self, command: str) -> bytes:
        return json.dumps({"session_id": "s", "cwd": str(self.work),
                           "permission_mode": "default", "hook_event_name": "PreToolUse",
                           "tool_name": "Bash", "tool_input": {"command": command},
                           "tool_use_id": "t"}).encode()

    def stop(self) -> str:
        """Stop it; what it wrote to stderr after its first line."""
        self.proc.terminate()
        try:
            self.proc.wait(timeout=GUARD)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        err = self.proc.stderr.read()
        self.proc.stderr.close()
        return err


def read_all(sock: socket.socket) -> bytes:
    """What the server sends until it closes (a reset counts as its close)."""
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except ConnectionResetError:
        pass
    except TimeoutError:
        pytest.fail(f"the server kept the connection {GUARD:g} s without answering or closing it")
    return data


def status_of(data: bytes) -> int | None:
    m = re.match(rb"HTTP/1\.[01] (\d{3}) ", data)
    return int(m.group(1)) if m else None


@pytest.fixture(scope="module")
def bounded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """Two connections at once, one second per request: a slot that is never given back
    shows as a refused health check after the next row."""
    srv = Server(tmp_path_factory.mktemp("servebound"), "--max-connections", "2",
                 "--request-deadline", str(DEADLINE))
    yield srv
    err = srv.stop()
    assert "Traceback" not in err and "Exception" not in err, err


def request_of(case: dict, srv: Server) -> bytes:
    if case.get("mac"):
        body = ("[" * case["nest"] + "]" * case["nest"]) if "nest" in case else case["body"]
        data = body.encode("latin-1" if case.get("latin1") else "utf-8")
        nonce = os.urandom(16).hex()
        mac = hookclient.request_mac(srv.key, nonce, "POST", "/hook/claude-code", data)
        return (f"POST /hook/claude-code HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
                f"Content-Length: {len(data)}\r\n{hookclient.NONCE_HEADER}: {nonce}\r\n"
                f"{hookclient.AUTH_HEADER}: {mac}\r\n\r\n").encode() + data
    data = case["send"].encode("latin-1")
    if "pad" in case:
        count, size = case["pad"]
        data += b"".join(b"X-Pad%d: %s\r\n" % (i, b"a" * size) for i in range(count)) + b"\r\n"
    return data


def trickle(sock: socket.socket) -> bytes:
    """One byte per :data:`TICK` until the server closes; what it sent before."""
    for _ in range(int(GUARD / TICK)):
        ready, _, _ = select.select([sock], [], [], TICK)
        if ready:
            return read_all(sock)
        try:
            sock.sendall(b"a")
        except (BrokenPipeError, ConnectionResetError):
            return read_all(sock)
    pytest.fail(f"a byte every {TICK:g} s held the connection {GUARD:g} s (deadline "
                f"{DEADLINE:g} s): a per-read timeout, not one for the request")


@pytest.mark.parametrize("case", PEERS, ids=lambda c: c["peer"])
def test_a_stalling_or_broken_peer_is_let_go(case, bounded):
    with bounded.connect() as sock:
        # the server stops reading an over-budget head: that is its close
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            sock.sendall(request_of(case, bounded))
        if case["then"] == "close":
            sock.shutdown(socket.SHUT_RDWR)
            data = None
        elif case["then"] == "trickle":
            data = trickle(sock)
        else:
            data = read_all(sock)
    if data is not None:
        assert status_of(data) == case["status"], (case["peer"], data[:300])
        if case.get("decisions"):
            body = data.partition(b"\r\n\r\n")[2]
            decision = json.loads(body)["hookSpecificOutput"]["permissionDecision"]
            assert decision in case["decisions"], (case["peer"], body)
    # the row's slot came back (or is coming back: a peer's own close is seen a moment later,
    # and the second slot is free for this check)
    assert bounded.health() == 200, case["peer"]


def test_excess_connections_are_refused_at_once_and_the_client_decides(tmp_path):
    """Three connections held open, 40 more: each of those gets the busy 503 and a close at
    once (before: a thread each, 60 s per read), the thread count stays bounded, and the
    real hook client decides in-process exactly as the hook does. Once a held connection
    finishes its request, the next client is served by the server again."""
    srv = Server(tmp_path, "--max-connections", "3", "--request-deadline", "600")
    held: list[socket.socket] = []
    try:
        base = srv.threads()
        held = [srv.connect() for _ in range(3)]
        for s in held:
            s.sendall(b"GET /health HTTP/1.1\r\n")   # a request begun, never finished
        for _ in range(40):
            with srv.connect() as s:
                data = read_all(s)
            assert status_of(data) == 503 and b"too many connections" in data, data[:200]
        assert srv.threads() <= base + 3
        body = srv.payload("rm -rf ~/important")
        proc = subprocess.run([sys.executable, "-I", "-S", CLIENT, "claude-code", "--listen",
                               srv.addr], input=body, capture_output=True, env=srv.env,
                              cwd=srv.work, timeout=GUARD)
        own = subprocess.run([sys.executable, "-m", "shellgate", "hook", "claude-code"],
                             input=body, capture_output=True, env=srv.env, cwd=srv.work,
                             timeout=GUARD)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == own.stdout
        out = json.loads(proc.stdout)["hookSpecificOutput"]
        assert out["permissionDecision"] in ("ask", "deny"), out
        # finish one held request (its answer is unproven: it had no MAC); the slot is given
        # back before the server closes, so the next exchange is the server's
        held[0].sendall(b"\r\n")
        assert status_of(read_all(held[0])) == 401
        assert srv.health() == 200
    finally:
        for s in held:
            s.close()
        srv.stop()


def test_concurrent_decisions_are_all_answered_and_audited(tmp_path):
    """16 proven requests at once (a barrier starts them together): 16 answers, and the audit
    log holds one whole line for each command, none lost or torn."""
    srv = Server(tmp_path, "--max-connections", "32")
    n = 16
    barrier = threading.Barrier(n)
    results: dict[int, tuple[int, bytes] | BaseException] = {}

    def one(i: int) -> None:
        body = srv.payload(f"echo servebound-{i}")
        barrier.wait(timeout=GUARD)
        try:
            results[i] = hookclient.exchange(srv.addr, "POST", "/hook/claude-code", body,
                                             srv.key, GUARD)
        except BaseException as exc:  # noqa: BLE001 - reported below
            results[i] = exc

    try:
        workers = [threading.Thread(target=one, args=(i,)) for i in range(n)]
        for t in workers:
            t.start()
        for t in workers:
            t.join(timeout=2 * GUARD)
    finally:
        srv.stop()
    for i in range(n):
        status, answer = results[i]
        assert status == 200, (i, answer)
        assert json.loads(answer)["hookSpecificOutput"]["permissionDecision"] == "allow"
    lines = (tmp_path / "state" / "shellgate" / "audit.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]   # every line whole
    decided = sorted(r["command"] for r in records if r.get("event") == "decision")
    assert decided == sorted(f"echo servebound-{i}" for i in range(n)), decided
