"""The command-hook client of ``shellgate serve``: forward one hook call, fall back in-process.

Run as a script, with the standard library only, so it starts in a few milliseconds::

    /path/to/python -I -S /path/to/shellgate/integrations/hookclient.py AGENT \\
        [--listen 127.0.0.1:8477|unix:PATH] [hook options …]

It reads the payload from stdin, posts it to ``/hook/AGENT`` with the token from
``$XDG_CONFIG_HOME/shellgate/serve-token``, prints the server's body and exits 0. When the
server cannot answer a decision — not running, refused the token, stale after an upgrade
(503), too slow, anything but a 200 — it decides in-process exactly as ``shellgate hook
AGENT [hook options]`` would (loading ``site`` then, since ``-S`` skipped it), so a stopped
server never leaves a call unchecked. Hook options (``--mode``, ``--config``, ``--deadline``)
apply only to that fallback; the server uses its own.

Nothing here imports shellgate unless the fallback runs.
"""

import os
import sys

DEFAULT_LISTEN = "127.0.0.1:8477"   # shellgate.integrations.serve.DEFAULT_LISTEN
TIMEOUT = 10.0                       # seconds; the fallback still fits the agent's timeout


def _token() -> str:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    with open(os.path.join(base, "shellgate", "serve-token"), encoding="utf-8") as fh:
        return fh.read().strip()


def forward(agent: str, listen: str, payload: bytes) -> bytes | None:
    """The server's body for ``payload``, or None when it gave no decision."""
    import http.client
    import socket

    try:
        token = _token()
        if listen.startswith("unix:"):
            conn = http.client.HTTPConnection("localhost", timeout=TIMEOUT)
            sock = socket.socket(socket.AF_UNIX)
            sock.settimeout(TIMEOUT)
            sock.connect(listen[5:])
            conn.sock = sock
        else:
            host, _, port = listen.rpartition(":")
            conn = http.client.HTTPConnection(host.strip("[]"), int(port), timeout=TIMEOUT)
        conn.request("POST", "/hook/" + agent, body=payload,
                     headers={"Authorization": "Bearer " + token,
                              "Content-Type": "application/json"})
        resp = conn.getresponse()
        body = resp.read()
        conn.close()
    except (OSError, ValueError, http.client.HTTPException):
        return None
    return body if resp.status == 200 else None


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
    code = main(sys.argv[1:])
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        code = 2
    os._exit(code)
