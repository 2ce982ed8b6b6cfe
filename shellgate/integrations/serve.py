"""``shellgate serve``: a warm per-user hook server (no process start per tool call).

Interface (other tests and ``init --serve`` rely on it exactly):

- ``shellgate serve [--listen 127.0.0.1:PORT | --listen unix:PATH] [--mode M] [--config P]``;
  the default is ``127.0.0.1:8477`` (Claude Code's ``http`` hook needs a TCP URL). Only
  loopback addresses and Unix sockets are accepted.
- ``POST /hook/claude-code`` (and ``/hook/codex``, ``/hook/gemini``) with the agent's JSON
  payload as the body answers ``200`` with exactly the body ``shellgate hook <agent>`` would
  print for it (``--mode``/``--config`` as given to ``serve``), ``Content-Type:
  application/json``; an empty body when the hook prints nothing. A body larger than the hook
  reads gets ``413`` (the client then decides in-process, where the hook refuses it).
- Bounds, so no peer can hold the server's threads, descriptors or memory: a connection has
  ``--request-deadline`` seconds (default :data:`REQUEST_DEADLINE`) for each whole request,
  the time it sits idle before it included (one deadline, not one per read: a byte every few
  seconds no longer holds it for ever), a request head of at most :data:`MAX_HEAD` bytes, and
  at most ``--max-connections`` (default :data:`MAX_CONNECTIONS`) connections are served at
  once; one more is answered ``503`` and closed at once, unread. The client takes any of
  these as "no decision" and decides in-process, at once.
- Every request carries a fresh nonce and an HMAC of the request under the key in
  ``$XDG_CONFIG_HOME/shellgate/serve-key`` (default ``~/.config/shellgate/serve-key``, created
  0600 on first start); every answer carries an HMAC that binds it to that nonce and request
  (the protocol, and why it is built so, is in :mod:`.hookclient`, which holds both sides'
  functions). No secret ever crosses the wire: an impostor listening on the address learns
  nothing and cannot forge an answer the client would print. A missing or wrong MAC gets
  ``401`` and no decision. ``GET /health`` (with the same MAC) answers ``{"version",
  "code"}``: what ``doctor`` uses to tell a stale server. There is no bearer token: an agent's
  ``http`` hook (which sends its header to whoever listens and believes any answer) is not a
  client; ``init claude-code --serve`` installs the client as a command hook.

It answers decisions and nothing else: no endpoint approves, stores or changes policy. Each
request runs the same code path as the hook process (:func:`hookio.run`), which loads the
config and the approval store afresh, so edits to either apply to the next request. Bad
payloads get the hook's deny; an internal error gets a deny too, never a dropped connection.

A stale server is not trusted: a watcher compares the package's files with what the server
started from (a fingerprint of their names, sizes and mtimes). Once they differ (an upgrade,
a reinstall), every request gets ``503`` — the client then decides in-process and Claude
Code's ``onFailure: "block"`` blocks — and the server re-executes itself with the new code.
"""

from __future__ import annotations

import contextlib
import hmac
import io
import json
import os
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from socketserver import ThreadingUnixStreamServer
from typing import Any

from . import hookclient, hookio

DEFAULT_LISTEN = "127.0.0.1:8477"
WATCH_INTERVAL = 1.0          # seconds between two looks at the package files
MAX_BODY = hookio.MAX_STDIN
MAX_HEAD = 64 * 1024          # bytes of request line and headers (the client sends ~300)
REQUEST_DEADLINE = 10.0       # seconds for one whole request, idle time before it included
MAX_CONNECTIONS = 32          # served at once: threads, descriptors, MAX_BODY bytes each
_BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
         b"Content-Length: 40\r\nConnection: close\r\n\r\n"
         b'{"error": "busy: too many connections"}\n')
_LOOPBACK = ("127.", "::1", "localhost")


class ServeError(Exception):
    """The server cannot start as asked (address not loopback, key file unsafe …)."""


# --- the key -----------------------------------------------------------------------------

def key_path(environ: dict[str, str] | None = None) -> Path:
    """``$XDG_CONFIG_HOME/shellgate/serve-key``, else ``~/.config/shellgate/serve-key``."""
    return Path(hookclient.key_path(environ))


def ensure_key(path: Path | None = None) -> bytes:
    """The serve key, created (0600, 256 random bits) when the file does not exist. A key file
    others can read or write is refused: anyone holding it could pose as the server."""
    path = path or key_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w") as fh:
            fh.write(secrets.token_hex(32) + "\n")
    st = path.stat()
    if st.st_mode & 0o077:
        raise ServeError(f"{path} is readable or writable by others (mode "
                         f"{st.st_mode & 0o777:o}); run `chmod 600 {path}`")
    try:
        return hookclient.read_key(str(path))
    except OSError:
        raise ServeError(f"{path} holds no usable key (delete it to make a new one)") from None


# --- staleness ---------------------------------------------------------------------------

def code_fingerprint() -> str:
    """A short digest of the installed shellgate package: names, sizes and mtimes of its
    source files and the version. Changes on any upgrade or edit."""
    import hashlib

    from .. import __version__

    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha256(__version__.encode())
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith((".py", ".json")):
                p = os.path.join(dirpath, name)
                try:
                    st = os.stat(p)
                except OSError:
                    continue
                h.update(f"{p}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


# --- the address -------------------------------------------------------------------------

def parse_listen(listen: str) -> tuple[str, Any]:
    """``("unix", path)`` or ``("tcp", (host, port))``; ServeError unless loopback."""
    if listen.startswith("unix:"):
        path = listen[5:]
        if not path:
            raise ServeError("--listen unix:PATH needs a path")
        return "unix", os.path.abspath(os.path.expanduser(path))
    host, sep, port = listen.rpartition(":")
    host = host.strip("[]")
    if not sep or not port.isdigit() or not 0 <= int(port) < 65536:
        raise ServeError(f"--listen {listen!r}: expected HOST:PORT or unix:PATH")
    if not host.startswith(_LOOPBACK):
        raise ServeError(f"--listen {listen!r}: only loopback addresses (127.0.0.0/8, ::1) "
                         "or a Unix socket")
    return "tcp", (host, int(port))


# --- the server --------------------------------------------------------------------------

class _State:
    """What every request handler shares."""

    def __init__(self, key: bytes, mode: str | None, config: str | None) -> None:
        from .. import __version__

        self.key = key
        self.mode = mode
        self.config = config
        self.version = __version__
        self.code = code_fingerprint()
        self.stale = threading.Event()


class _DeadlineReader(io.RawIOBase):
    """The connection's bytes, read under one deadline and one byte budget per request.

    A socket timeout bounds one ``recv``: a peer sending a byte just before each timeout
    held a handler thread (and its descriptor) for ever. Here every read gets only the time
    left to the request's deadline, and the bytes a request may take are counted, so the
    head (which ``http.server`` would read up to 100 lines of 64 KiB) stays small too."""

    def __init__(self, sock: Any) -> None:
        super().__init__()
        self.sock = sock
        self.deadline = 0.0
        self.budget = 0

    def start(self, seconds: float, budget: int) -> None:
        """A new request: ``seconds`` and ``budget`` bytes from now."""
        self.deadline = time.monotonic() + seconds
        self.budget = budget

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("request deadline passed")
        if self.budget <= 0:
            raise ConnectionAbortedError("request larger than its budget")
        self.sock.settimeout(left)
        with memoryview(b) as view:
            n = self.sock.recv_into(view[:min(len(view), self.budget)])
        self.budget -= n
        return n


class Handler(BaseHTTPRequestHandler):
    """One HTTP request: check its MAC, then answer one decision (or the health record), with
    the proof the client checks before it believes the answer."""

    server_version = "shellgate"
    sys_version = ""
    protocol_version = "HTTP/1.1"   # keep-alive: a client may send many hooks on one connection
    disable_nagle_algorithm = True  # else keep-alive requests wait ~40 ms on delayed ACKs
    deadline = REQUEST_DEADLINE     # seconds for each whole request (the reader keeps it)
    state: _State                   # set on the subclass made by :func:`make_server`

    def setup(self) -> None:
        super().setup()
        self.reader = _DeadlineReader(self.connection)
        self.rfile = io.BufferedReader(self.reader)

    def handle_one_request(self) -> None:
        """One request under :attr:`deadline` and :data:`MAX_HEAD` (the body's length is
        added to the budget once its headers are read)."""
        self.reader.start(self.deadline, MAX_HEAD)
        super().handle_one_request()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass  # no access log: payloads hold commands (the audit log records decisions)

    def _send(self, status: int, body: bytes, proof: str = "") -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Shellgate-Version", f"{self.state.version} {self.state.code}")
        if proof:
            self.send_header(hookclient.PROOF_HEADER, proof)
        self.connection.settimeout(self.deadline)   # a peer that never reads: sendall's bound
        self.end_headers()
        self.wfile.write(body)

    def _answer(self, body: bytes, answer: bytes) -> None:
        """A 200 with the proof that binds ``answer`` to this request (nonce, method, path,
        body): what the client checks before it prints anything."""
        nonce = self.headers.get(hookclient.NONCE_HEADER, "")
        self._send(200, answer, hookclient.response_mac(self.state.key, nonce, self.command,
                                                        self.path, body, 200, answer))

    def _authorised(self, body: bytes) -> bool:
        """The request's MAC is right for its nonce, method, path and ``body``."""
        nonce = self.headers.get(hookclient.NONCE_HEADER, "")
        got = self.headers.get(hookclient.AUTH_HEADER, "")
        if len(nonce) < 16:
            return False
        want = hookclient.request_mac(self.state.key, nonce, self.command, self.path, body)
        return hmac.compare_digest(got.encode(), want.encode())

    def _refuse(self, status: int, message: str) -> None:
        self.close_connection = True
        self._send(status, json.dumps({"error": message}).encode())

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        if not self._authorised(b""):
            return self._refuse(401, "unauthorized")
        if self.path != "/health":
            return self._refuse(404, "not found")
        self._answer(b"", json.dumps({"version": self.state.version, "code": self.state.code,
                                      "stale": self.state.stale.is_set(),
                                      "pid": os.getpid()}).encode())

    def do_POST(self) -> None:  # noqa: N802
        body = self._body()
        if body is None:
            return self._refuse(413, f"hook input is larger than {MAX_BODY} bytes")
        if not self._authorised(body):
            return self._refuse(401, "unauthorized")
        agent = self.path.removeprefix("/hook/") if self.path.startswith("/hook/") else ""
        if agent not in hookio.AGENT_MODULES:
            return self._refuse(404, "not found")
        if self.state.stale.is_set():
            return self._refuse(503, "stale server: shellgate was upgraded; restarting")
        text = body.decode("utf-8", "surrogateescape")
        self._answer(body, answer(agent, text, self.state).encode())

    def _body(self) -> bytes | None:
        """The request body (empty when there is no valid length); None when it is larger
        than the hook would read (then it is not read, and the connection is closed)."""
        try:
            n = int(self.headers.get("Content-Length", ""))
        except ValueError:
            n = -1
        if n < 0:
            self.close_connection = True
            return b""
        if n > MAX_BODY:
            self.close_connection = True
            return None
        self.reader.budget += n
        body = self.rfile.read(n)
        if len(body) < n:   # the peer closed mid-body: nobody to answer
            raise ConnectionAbortedError("the client closed before its whole body")
        return body


def answer(agent: str, body: str, state: _State) -> str:
    """Exactly what ``shellgate hook <agent>`` prints for the payload ``body`` (one over the
    hook's size limit never gets here: :meth:`Handler.do_POST` refuses it with 413). Never
    raises; bounded by the hook's watchdog time."""
    from ..limits import HOOK_WATCHDOG, bounded

    spec = hookio._agent_module(agent).SPEC
    try:
        done, result = bounded(lambda: hookio.run(spec, body, state.mode, state.config),
                               HOOK_WATCHDOG)
    except Exception as exc:  # noqa: BLE001 - run() never raises; belt and braces
        done, result = True, (spec.render(hookio._internal(exc)), 0)
    out = result[0] if done and result else spec.render(hookio.late_outcome(HOOK_WATCHDOG))
    return out + "\n" if out else ""


class _Bounded:
    """At most :attr:`max_connections` connections served at once (each holds a thread, a
    descriptor and up to :data:`MAX_BODY` bytes); one more gets a ``503`` and is closed at
    once, so a flood of idle connections never reaches ``RLIMIT_NOFILE``, where ``accept``
    failed in a busy loop and the decisions' own ``open`` calls failed."""

    daemon_threads = True
    block_on_close = False
    request_queue_size = 64
    max_connections = MAX_CONNECTIONS

    def server_activate(self) -> None:
        self._open = 0
        self._open_lock = threading.Lock()
        super().server_activate()

    def verify_request(self, request: Any, client_address: Any) -> bool:
        with self._open_lock:
            if self._open < self.max_connections:
                self._open += 1
                return True
        with contextlib.suppress(OSError):   # tell the client why, never wait for it
            request.setblocking(False)
            request.send(_BUSY)
        return False

    def process_request(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._release()   # no thread was started (the caller closes the connection)
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        """``ThreadingMixIn``'s, with the slot given back before the connection is closed:
        a client that saw the close may open the next connection and be served."""
        try:
            self.finish_request(request, client_address)
        except Exception:  # noqa: BLE001 - as socketserver does: report, close, go on
            self.handle_error(request, client_address)
        finally:
            self._release()
            self.shutdown_request(request)

    def _release(self) -> None:
        with self._open_lock:
            self._open -= 1

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away, or missed its deadline, is no error worth a traceback."""
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


class _TCPServer(_Bounded, ThreadingHTTPServer):
    allow_reuse_address = True


class _UnixServer(_Bounded, ThreadingUnixStreamServer):

    def server_bind(self) -> None:
        old = os.umask(0o177)   # the socket is the user's alone (0600)
        try:
            super().server_bind()
        finally:
            os.umask(old)


def make_server(listen: str = DEFAULT_LISTEN, *, mode: str | None = None,
                config: str | None = None, key: bytes | None = None,
                max_connections: int = MAX_CONNECTIONS,
                request_deadline: float = REQUEST_DEADLINE) -> Any:
    """A bound server (not yet serving); ``server.state`` holds the key and fingerprint.
    ``max_connections`` and ``request_deadline``: the bounds of the module docstring."""
    if max_connections < 1 or not 0 < request_deadline <= 3600:
        raise ServeError("--max-connections must be at least 1 and --request-deadline in "
                         "(0, 3600] seconds")
    if mode is not None:
        from ..permission.modes import parse_mode

        mode = str(parse_mode(mode))
    if config is not None:
        config = str(Path(config).expanduser().absolute())
    state = _State(key or ensure_key(), mode, config)
    kind, addr = parse_listen(listen)
    handler = type("BoundHandler", (Handler,), {"state": state, "deadline": request_deadline,
                                                "disable_nagle_algorithm": kind == "tcp"})
    if kind == "unix":
        if os.path.exists(addr):
            _remove_stale_socket(addr)
        server: Any = _UnixServer(addr, handler)
    else:
        cls: Any = _TCPServer
        if ":" in addr[0]:
            import socket

            cls = type("_TCP6Server", (_TCPServer,), {"address_family": socket.AF_INET6})
        server = cls(addr, handler)
    server.max_connections = max_connections
    server.state = state
    return server


def _remove_stale_socket(path: str) -> None:
    """Remove a socket file nobody listens on (a server that died); refuse otherwise."""
    import socket
    import stat

    if not stat.S_ISSOCK(os.lstat(path).st_mode):
        raise ServeError(f"{path} exists and is not a socket")
    with socket.socket(socket.AF_UNIX) as s:
        try:
            s.connect(path)
        except OSError:
            os.unlink(path)
            return
    raise ServeError(f"another server is listening on unix:{path}")


def watch(server: Any, interval: float = WATCH_INTERVAL) -> threading.Thread:
    """Mark the server stale and stop it once the package files change."""
    state: _State = server.state

    def loop() -> None:
        while not state.stale.wait(interval):
            try:
                changed = code_fingerprint() != state.code
            except Exception:  # noqa: BLE001 - cannot tell: assume the worst
                changed = True
            if changed:
                state.stale.set()
                threading.Thread(target=server.shutdown, daemon=True).start()

    t = threading.Thread(target=loop, name="shellgate-watch", daemon=True)
    t.start()
    return t


def serve(listen: str = DEFAULT_LISTEN, *, mode: str | None = None,
          config: str | None = None, ready: Any = None,
          max_connections: int = MAX_CONNECTIONS,
          request_deadline: float = REQUEST_DEADLINE) -> int:
    """Run until interrupted; re-execute with the new code when the package changes."""
    server = make_server(listen, mode=mode, config=config, max_connections=max_connections,
                         request_deadline=request_deadline)
    watch(server)
    if not listen.startswith("unix:"):   # port 0: the port the kernel chose
        host, port = server.server_address[:2]
        listen = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    where = listen if listen.startswith("unix:") else "http://" + listen
    print(f"shellgate serve: listening on {where} (key: {key_path()})", file=sys.stderr,
          flush=True)
    if ready is not None:
        ready(server)
    import signal

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt   # the finally below closes and removes the socket

    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever(poll_interval=0.5)
    except KeyboardInterrupt:
        return 0
    finally:
        server.server_close()
        kind, addr = parse_listen(listen)
        if kind == "unix":
            with contextlib.suppress(OSError):
                os.unlink(addr)
    if server.state.stale.is_set():
        print("shellgate serve: the installed shellgate changed; restarting", file=sys.stderr,
              flush=True)
        args = [sys.executable, "-m", "shellgate", "serve", "--listen", listen]
        if mode:
            args += ["--mode", mode]
        if config:
            args += ["--config", config]
        args += ["--max-connections", str(max_connections),
                 "--request-deadline", repr(request_deadline)]
        os.execv(sys.executable, args)
    return 0


# --- the client's side -------------------------------------------------------------------

def health(listen: str = DEFAULT_LISTEN, key: bytes | None = None,
           timeout: float = 2.0) -> dict[str, Any]:
    """``GET /health`` of a running server, its proof checked; raises OSError / ValueError
    when there is none, it refuses the request or it cannot prove it holds the key. Used by
    ``doctor``."""
    import http.client

    parse_listen(listen)   # loopback or a Unix socket only
    try:
        status, body = hookclient.exchange(listen, "GET", "/health", b"",
                                           key if key is not None else ensure_key(), timeout)
    except http.client.HTTPException as exc:
        raise ValueError(f"not an HTTP answer: {exc}") from None
    if status != 200:
        raise ValueError(f"HTTP {status}: {body[:200].decode('utf-8', 'replace')}")
    return json.loads(body)
