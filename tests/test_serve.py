"""``shellgate serve`` end to end: a real server process, a real HTTP client posting agent
payloads, and the command-hook client script (with its in-process fallback). Every answer is
compared with what ``shellgate hook <agent>`` prints for the same payload. Servers started
here are stopped by the fixtures."""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from _helpers import hook_env

from shellgate.integrations import hookclient, serve
from tests.conftest import load

EXE = str(Path(sys.executable).with_name("shellgate"))
CLIENT = str(Path(serve.__file__).with_name("hookclient.py"))
pytestmark = pytest.mark.skipif(not os.access(EXE, os.X_OK), reason="no shellgate script")
CASES = load("hooks_payloads.jsonl")


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    root = tmp_path_factory.mktemp("serve")
    work = root / "work"
    (work / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    home = root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN FAKE KEY-----\n")
    env = hook_env(root, home)
    return {"work": str(work), "home": str(home), "env": env, "root": root}


def start(world, listen: str, *args: str) -> tuple[subprocess.Popen, str]:
    """A ``shellgate serve`` process and the address it reports once it listens."""
    proc = subprocess.Popen([EXE, "serve", "--listen", listen, *args], env=world["env"],
                            cwd=world["work"], stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()
    m = re.search(r"listening on (?:http://)?(\S+)", line)
    if m is None:
        proc.kill()
        proc.wait()
        pytest.fail(f"serve did not start: {line}{proc.stderr.read()}")
    return proc, m.group(1)


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    proc.stderr.close()


@pytest.fixture(scope="module")
def server(world):
    proc, addr = start(world, "127.0.0.1:0")
    yield addr
    stop(proc)


def key(world) -> bytes:
    return hookclient.read_key(str(Path(world["env"]["XDG_CONFIG_HOME"]) / "shellgate"
                                   / hookclient.KEY_NAME))


def post(addr: str, path: str, body: bytes, mac_key: bytes | None,
         headers: dict[str, str] | None = None) -> tuple[int, bytes]:
    """POST with a fresh nonce and the request MAC under ``mac_key`` (None: no MAC); a 200 must
    carry the right proof."""
    host, _, port = addr.rpartition(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    nonce = os.urandom(16).hex()
    sent = {"Content-Type": "application/json"}
    if mac_key is not None:
        sent[hookclient.NONCE_HEADER] = nonce
        sent[hookclient.AUTH_HEADER] = hookclient.request_mac(mac_key, nonce, "POST", path, body)
    sent.update(headers or {})
    conn.request("POST", path, body=body, headers=sent)
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    if resp.status == 200:
        assert resp.getheader(hookclient.PROOF_HEADER) == hookclient.response_mac(
            mac_key, sent[hookclient.NONCE_HEADER], "POST", path, body, 200, data)
    return resp.status, data


def fill(world, payload: dict) -> bytes:
    text = json.dumps(payload).replace("$WORK", world["work"]).replace("$HOME", world["home"])
    return text.encode()


def hook_stdout(world, agent: str, body: bytes) -> bytes:
    proc = subprocess.run([EXE, "hook", agent], input=body, capture_output=True,
                          env=world["env"], cwd=world["work"], timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def plain(case) -> bool:
    """Cases the server answers as the hook does: no per-call hook flags (the server takes
    --mode/--config once, at start)."""
    return not case.get("args")


@pytest.mark.parametrize("case", [c for c in CASES if plain(c)],
                         ids=lambda c: f"{c['agent']}:{c['cmd'][:40]}")
def test_post_answers_exactly_what_the_hook_prints(world, server, case):
    body = fill(world, case["payload"])
    status, data = post(server, f"/hook/{case['agent']}", body, key(world))
    assert status == 200
    assert data == hook_stdout(world, case["agent"], body)


def test_key_file_is_private(world, server):
    path = Path(world["env"]["XDG_CONFIG_HOME"]) / "shellgate" / "serve-key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(key(world)) >= 64


@pytest.mark.parametrize("how", ["no mac", "other key", "bearer key", "short nonce",
                                 "mac of another body", "mac of another path"])
def test_missing_or_wrong_mac_is_401_without_decision(world, server, how):
    payload = fill(world, {"hook_event_name": "PreToolUse", "tool_name": "Bash",
                           "tool_input": {"command": "ls"}, "cwd": "$WORK"})
    k = key(world)
    nonce = "ab" * 16
    headers = {
        "no mac": {},
        "other key": {hookclient.NONCE_HEADER: nonce, hookclient.AUTH_HEADER:
                      hookclient.request_mac(b"x" * 64, nonce, "POST", "/hook/claude-code",
                                             payload)},
        "bearer key": {"Authorization": "Bearer " + k.decode()},
        "short nonce": {hookclient.NONCE_HEADER: "ab", hookclient.AUTH_HEADER:
                        hookclient.request_mac(k, "ab", "POST", "/hook/claude-code", payload)},
        "mac of another body": {hookclient.NONCE_HEADER: nonce, hookclient.AUTH_HEADER:
                                hookclient.request_mac(k, nonce, "POST", "/hook/claude-code",
                                                       b"{}")},
        "mac of another path": {hookclient.NONCE_HEADER: nonce, hookclient.AUTH_HEADER:
                                hookclient.request_mac(k, nonce, "POST", "/hook/codex",
                                                       payload)},
    }[how]
    status, data = post(server, "/hook/claude-code", payload, None, headers)
    assert status == 401
    assert b"permissionDecision" not in data and b"decision" not in data


def test_bad_payloads_get_the_hooks_deny_and_the_server_survives(world, server):
    auth = key(world)
    for body in (b"", b"garbage", b"[]", b'{"hook_event_name": "PreToolUse"}', b"\xff\xfe",
                 b'{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":'
                 + json.dumps("echo " + "a" * (2 << 20)).encode() + b"}}"):
        status, data = post(server, "/hook/claude-code", body, auth)
        assert status == 200
        assert data == hook_stdout(world, "claude-code", body)
        decision = json.loads(data)["hookSpecificOutput"]["permissionDecision"]
        assert decision in ("ask", "deny")
    status, _ = post(server, "/hook/cursor", b"{}", auth)
    assert status == 404
    status, data = post(server, "/hook/claude-code", fill(world, {
        "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"},
        "cwd": "$WORK"}), auth)
    assert status == 200 and b'"allow"' in data


def test_oversized_body_is_refused_unread_and_the_client_denies_it(world, server):
    """The server does not read (or MAC) a body over the hook's limit: 413, no decision; the
    client then decides in-process, where the hook refuses it."""
    host, _, port = server.rpartition(":")
    with socket.create_connection((host, int(port)), timeout=30) as s:
        s.sendall(b"POST /hook/gemini HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n{")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 413") and b"decision" not in body
    big = b'{"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":' \
          b'{"command":' + json.dumps("echo " + "a" * (9 << 20)).encode() + b"}}"
    proc = client(world, "gemini", big, "--listen", server)
    assert json.loads(proc.stdout) == {"decision": "deny", "reason":
                                       "shellgate: refused: hook input is larger than "
                                       "8388608 bytes."}


def test_health_reports_version_and_code(world, server):
    info = serve.health(server, key(world))
    from shellgate import __version__

    assert info["version"] == __version__ and info["code"] == serve.code_fingerprint()
    assert info["stale"] is False
    with pytest.raises(ValueError):
        serve.health(server, b"w" * 64)


def test_config_changes_apply_to_the_next_request(world, server):
    """No restart: a deny rule added to the user config applies at once."""
    cfg = Path(world["env"]["XDG_CONFIG_HOME"]) / "shellgate" / "config.toml"
    payload = fill(world, {"hook_event_name": "PreToolUse", "tool_name": "Bash",
                           "tool_input": {"command": "ls src"}, "cwd": "$WORK"})
    auth = key(world)
    assert b'"allow"' in post(server, "/hook/claude-code", payload, auth)[1]
    cfg.write_text('[permissions]\ndeny = ["Bash(ls *)"]\n')
    try:
        assert b'"deny"' in post(server, "/hook/claude-code", payload, auth)[1]
    finally:
        cfg.unlink()
    assert b'"allow"' in post(server, "/hook/claude-code", payload, auth)[1]


# --- the command-hook client ---------------------------------------------------------------

def client(world, agent: str, body: bytes, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-I", "-S", CLIENT, agent, *args], input=body,
                          capture_output=True, env=world["env"], cwd=world["work"], timeout=60)


@pytest.mark.parametrize("case", [c for c in CASES if plain(c)][::3],
                         ids=lambda c: f"{c['agent']}:{c['cmd'][:40]}")
def test_client_through_the_server(world, server, case):
    body = fill(world, case["payload"])
    proc = client(world, case["agent"], body, "--listen", server)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == hook_stdout(world, case["agent"], body)


def test_client_falls_back_in_process_when_no_server(world, tmp_path):
    dead = tmp_path / "nobody.sock"
    for case in [c for c in CASES if plain(c)][:12]:
        body = fill(world, case["payload"])
        proc = client(world, case["agent"], body, "--listen", f"unix:{dead}")
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == hook_stdout(world, case["agent"], body)


def test_client_falls_back_when_the_key_is_wrong(world, server, tmp_path):
    env = dict(world["env"], XDG_CONFIG_HOME=str(tmp_path / "other"))
    (tmp_path / "other" / "shellgate").mkdir(parents=True)
    (tmp_path / "other" / "shellgate" / "serve-key").write_text("not-the-key-at-all" * 4 + "\n")
    body = fill(world, {"hook_event_name": "PreToolUse", "tool_name": "Bash",
                        "tool_input": {"command": "rm -rf ~"}, "cwd": "$WORK"})
    proc = subprocess.run([sys.executable, "-I", "-S", CLIENT, "claude-code", "--listen",
                           server], input=body, capture_output=True, env=env,
                          cwd=world["work"], timeout=60)
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["hookSpecificOutput"]["permissionDecision"] in ("ask", "deny")


def test_unix_socket_server_and_client(world, tmp_path):
    sock = tmp_path / "sg.sock"
    proc, addr = start(world, f"unix:{sock}", "--mode", "strict")
    try:
        assert stat.S_IMODE(sock.stat().st_mode) & 0o077 == 0
        body = fill(world, {"hook_event_name": "PreToolUse", "tool_name": "Bash",
                            "tool_input": {"command": "ls"}, "cwd": "$WORK"})
        out = client(world, "claude-code", body, "--listen", f"unix:{sock}")
        assert out.returncode == 0
        direct = subprocess.run([EXE, "hook", "claude-code", "--mode", "strict"], input=body,
                                capture_output=True, env=world["env"], cwd=world["work"])
        assert out.stdout == direct.stdout
        assert serve.health(f"unix:{sock}", key(world))["stale"] is False
    finally:
        stop(proc)
    assert not sock.exists()


def test_stale_server_is_not_trusted(world, tmp_path):
    """After the package files change, the server answers 503 (no decision) and stops; the
    client decides in-process meanwhile. Checked in-process on a private copy of the state,
    so the installed package is not touched."""
    server = serve.make_server("127.0.0.1:0", key=b"t" * 64)
    import threading

    t = threading.Thread(target=server.serve_forever, daemon=True)
    t.start()
    try:
        server.state.code = "not-the-installed-code"   # what an upgrade looks like from here
        serve.watch(server, interval=0.01).join(timeout=30)
        assert server.state.stale.is_set()
    finally:
        server.shutdown()
        server.server_close()
        t.join(timeout=30)
    assert server.state.stale.is_set()
    stale = serve.make_server("127.0.0.1:0", key=b"t" * 64)
    stale.state.stale.set()
    t = threading.Thread(target=stale.serve_forever, daemon=True)
    t.start()
    try:
        addr = "{}:{}".format(*stale.server_address[:2])
        status, data = post(addr, "/hook/claude-code", b"{}", b"t" * 64)
        assert status == 503 and b"decision" not in data
    finally:
        stale.shutdown()
        stale.server_close()
        t.join(timeout=30)


@pytest.mark.parametrize("listen", ["0.0.0.0:8477", "192.168.1.2:80", "example.com:80",
                                    "8477", "unix:", "127.0.0.1:99999"])
def test_only_loopback_or_unix(listen):
    with pytest.raises(serve.ServeError):
        serve.parse_listen(listen)


def test_key_readable_by_others_is_refused(tmp_path):
    path = tmp_path / "serve-key"
    serve.ensure_key(path)
    os.chmod(path, 0o644)
    with pytest.raises(serve.ServeError):
        serve.ensure_key(path)
