"""The command-hook client of ``shellgate serve``: forward one hook call, fall back in-process.

Run as a script, with the standard library only, so it starts in a few milliseconds::

    /path/to/python -I -S /path/to/shellgate/integrations/hookclient.py AGENT \\
        [--listen 127.0.0.1:8477|unix:PATH] [hook options …]

It reads the payload from stdin, posts it to ``/hook/AGENT``, and prints the server's body
only when the server proved it is the real one. When the server cannot answer a decision —
not running, refused the request, stale after an upgrade (503), no whole answer within
:data:`TIMEOUT` (one deadline for connect, send and receive) or a larger one than
:func:`answer_cap`, anything but a proven 200 — it decides in-process exactly as
``shellgate hook AGENT [hook options]`` would (loading ``site`` then, since ``-S`` skipped
it), so a stopped server never leaves a call unchecked, and a listener that trickles or
floods holds it no longer than an absent one would. Hook options (``--mode``, ``--config``,
``--deadline``) apply only to that fallback; the server uses its own.

Why a proof, and why this one. Whatever listens on the address gets the request: when
``shellgate serve`` is not running (or restarting), any local process may — a command the
agent started with the network grant, kept up as a background job. Such an impostor must
neither learn a secret nor have its answer printed. So nothing secret is ever sent: client
and server share a key (``$XDG_CONFIG_HOME/shellgate/serve-key``, 0600, made by the server)
and each side proves it holds it with an HMAC-SHA256 the other checks —

- the request carries a fresh random nonce and ``HMAC(key, "request", nonce, method, path,
  body)``: the server answers only its own clients, and a captured request is good for that
  one body only (replaying it gets the real decision for the agent's own payload);
- the answer carries ``HMAC(key, "response", nonce, method, path, sha256(body), status,
  answer)``: bound to this nonce and this request, so neither a forged answer nor an old
  real one is printed.

The key sits where shellgate keeps its own state, which every sandbox hides (the path table's
``~/.config/shellgate/**``, and ``sandbox.locations.own_state`` wherever ``XDG_*`` put it) and
no agent settings file holds: Claude Code's settings are readable inside the sandbox, which is
why the agent's side is this client (a command hook) and never an ``http`` hook with a bearer
token — an ``http`` hook sends its header to whoever listens and believes any answer. A Unix
socket in a private directory would keep impostors from the address, but not in every
sandbox tier or with a TCP listen address; the proof works on both and needs no peer check.

Nothing here imports shellgate unless the fallback runs.
"""

import os
import sys

DEFAULT_LISTEN = "127.0.0.1:8477"   # shellgate.integrations.serve.DEFAULT_LISTEN
TIMEOUT = 10.0                       # seconds for the whole exchange; the fallback still fits
ANSWER_SLACK = 1 << 20               # bytes a real answer may take beyond its echo of the input
KEY_NAME = "serve-key"
MAX_KEY_FILE = 4096                 # bytes; the server writes 64 hex digits
NONCE_HEADER = "X-Shellgate-Nonce"
AUTH_HEADER = "X-Shellgate-Auth"
PROOF_HEADER = "X-Shellgate-Proof"


def key_path(environ=None) -> str:
    """``$XDG_CONFIG_HOME/shellgate/serve-key``, else ``~/.config/shellgate/serve-key`` (a
    relative value is ignored, as the XDG spec and the rest of shellgate do: client and server
    would resolve it against different cwds, outside what the sandbox hides)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME") or ""
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "shellgate", KEY_NAME)


def read_key(path=None) -> bytes:
    """The shared key; OSError when there is none (no server ever ran), it is short, or it
    is not a small regular file. A FIFO planted there would block ``open`` (the agent times the
    hook out and lets the call through), a link to ``/dev/zero`` would fill memory: the same
    checks as ``shellgate._plain.open_plain`` (not imported: this client runs without shellgate),
    O_NONBLOCK, a regular file, a size cap."""
    import stat

    fd = os.open(path or key_path(), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_KEY_FILE:
            raise OSError("the serve key is not a small regular file")
        key = os.read(fd, MAX_KEY_FILE + 1).strip()
    finally:
        os.close(fd)
    if len(key) < 32:
        raise OSError("the serve key is too short")
    return key


def _mac(key: bytes, *parts: bytes) -> str:
    """HMAC-SHA256 of ``parts``, each length-prefixed (no two part lists give one input)."""
    import hmac

    h = hmac.new(key, digestmod="sha256")
    for p in parts:
        h.update(len(p).to_bytes(8, "big"))
        h.update(p)
    return h.hexdigest()


def request_mac(key: bytes, nonce: str, method: str, path: str, body: bytes) -> str:
    """What a request carries in :data:`AUTH_HEADER`."""
    return _mac(key, b"shellgate-request", nonce.encode(), method.encode(), path.encode(), body)


def response_mac(key: bytes, nonce: str, method: str, path: str, body: bytes, status: int,
                 answer: bytes) -> str:
    """What a real server's answer carries in :data:`PROOF_HEADER`."""
    import hashlib

    return _mac(key, b"shellgate-response", nonce.encode(), method.encode(), path.encode(),
                hashlib.sha256(body).digest(), str(status).encode(), answer)


def connect(listen: str, timeout: float = TIMEOUT):
    """A socket connected to ``listen`` (``HOST:PORT`` or ``unix:PATH``) within ``timeout``."""
    import socket

    if not listen.startswith("unix:"):
        host, _, port = listen.rpartition(":")
        return socket.create_connection((host.strip("[]"), int(port)), timeout=timeout)
    sock = socket.socket(socket.AF_UNIX)
    sock.settimeout(timeout)
    try:
        sock.connect(listen[5:])
    except OSError:
        sock.close()
        raise
    return sock


def answer_cap(body: bytes) -> int:
    """The most bytes an answer to ``body`` may take. A real one echoes the tool input at most
    once or twice (``updatedInput``: the fields as they came, and the command inside the
    sandbox's line, quoted for the shell, then escaped for JSON: a ``'`` becomes seven
    bytes) next to a reason of at most ``hookio.MAX_REASON`` characters and the ~10 KB of the
    sandbox's line; 16 bytes per input byte and :data:`ANSWER_SLACK` leave room for all that.
    Should a real answer ever be larger, the client only decides in-process instead."""
    return ANSWER_SLACK + 16 * len(body)


def _receive(sock, deadline: float, cap: int) -> bytes:
    """Everything the peer sends until it closes, within ``deadline`` (a ``time.monotonic``
    value) and ``cap`` bytes; TimeoutError / OSError past either. The socket's own timeout
    bounds one ``recv`` only, so a peer that trickles a byte at a time would hold us for
    ever: the time left is set again before every read."""
    import time

    chunks, size = [], 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no whole answer within the client's deadline")
        sock.settimeout(left)
        chunk = sock.recv(min(65536, cap + 1 - size))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > cap:
            raise OSError(f"answer larger than {cap} bytes")


class _Received:
    """The bytes of a whole answer, as the socket ``http.client.HTTPResponse`` parses."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def makefile(self, mode: str):
        import io

        return io.BytesIO(self.data)


def exchange(listen: str, method: str, path: str, body: bytes, key: bytes,
             timeout: float = TIMEOUT) -> tuple[int, bytes]:
    """Send one request with a fresh nonce; the status and body of an answer whose proof
    holds. ValueError when the proof is missing or wrong (an impostor, or a server with
    another key); OSError / http.client.HTTPException when nobody answers, or not within
    ``timeout`` seconds for the whole exchange, or with more than :func:`answer_cap` bytes.

    The request asks the server to close the connection after its answer, so the answer is
    everything until the close: read under one deadline and one cap, then parsed. A peer that
    trickles or floods is given up on like an absent one (the caller then decides itself)."""
    import hmac
    import http.client
    import time

    deadline = time.monotonic() + timeout
    if not path.isprintable() or " " in path:
        raise ValueError(f"bad request path {path!r}")
    nonce = os.urandom(16).hex()
    head = (f"{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            f"{NONCE_HEADER}: {nonce}\r\n"
            f"{AUTH_HEADER}: {request_mac(key, nonce, method, path, body)}\r\n\r\n")
    with connect(listen, timeout) as sock:
        sock.settimeout(max(deadline - time.monotonic(), 0.001))
        sock.sendall(head.encode("ascii") + body)
        received = _receive(sock, deadline, answer_cap(body))
    resp = http.client.HTTPResponse(_Received(received), method=method)
    resp.begin()
    answer = resp.read()
    proof = resp.getheader(PROOF_HEADER) or ""
    want = response_mac(key, nonce, method, path, body, resp.status, answer)
    if not hmac.compare_digest(proof.encode(), want.encode()):
        raise ValueError(f"HTTP {resp.status} without a valid {PROOF_HEADER}: not the "
                         "shellgate server, or one with another key")
    return resp.status, answer


def forward(agent: str, listen: str, payload: bytes) -> bytes | None:
    """The server's body for ``payload``, or None when no proven server gave a decision."""
    import http.client

    try:
        status, body = exchange(listen, "POST", "/hook/" + agent, payload, read_key())
    except (OSError, ValueError, http.client.HTTPException):
        return None
    return body if status == 200 else None


def fallback(agent: str, args: list, payload: bytes) -> int:
    """``shellgate hook AGENT ARGS`` in this process, on ``payload``."""
    import io
    import site

    site.main()   # -S skipped it: the installed dependencies live in site-packages
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if here not in sys.path:
        sys.path.append(here)
    from shellgate.integrations.hookio import cli_main

    text = payload.decode("utf-8", "surrogateescape")
    return cli_main(agent, args, stdin=io.StringIO(text), hard_stop=True)


def main(argv: list) -> int:
    if not argv:
        print("usage: hookclient.py AGENT [--listen ADDR] [hook options]", file=sys.stderr)
        return 2
    agent, rest = argv[0], argv[1:]
    listen = DEFAULT_LISTEN
    args = []
    i = 0
    while i < len(rest):
        name, eq, value = rest[i].partition("=")
        if name == "--listen":
            if not eq:
                i += 1
                value = rest[i] if i < len(rest) else ""
            listen = value or listen
        else:
            args.append(rest[i])
        i += 1
    payload = sys.stdin.buffer.read()
    body = forward(agent, listen, payload)
    if body is None:
        return fallback(agent, args, payload)
    sys.stdout.buffer.write(body)
    sys.stdout.buffer.flush()
    return 0


if __name__ == "__main__":
    try:
        code = main(sys.argv[1:])
    except BaseException as exc:  # noqa: BLE001 - a traceback's exit 1 lets the call through
        # (Gemini CLI blocks on exit 2 only): whatever failed, the call is blocked, saying why
        print(f"shellgate hook client failed ({type(exc).__name__}: {exc}); blocked", file=sys.stderr)
        code = 2
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        code = 2
    os._exit(code)
