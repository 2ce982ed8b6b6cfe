"""Inputs a reader takes that are not the file they look like, with the real program as the
oracle: OpenSSL 3 fetches ``x509 -in http://…`` (a local server sees the request), libmagic
splits ``file -m`` at colons (each piece is read; a bad line of it is printed), and ``file -z``
runs decompressors found on PATH."""

from __future__ import annotations

import http.server
import shutil
import subprocess
import threading
from pathlib import Path

import pytest

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

SECRET = "aws_secret_access_key=CANARY-magic"


def _ctx(tmp: Path) -> Context:
    return Context(cwd=tmp / "ws", workspace=tmp / "ws", home=tmp / "home")


@pytest.fixture
def world(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    (tmp_path / "home" / ".aws").mkdir(parents=True)
    (tmp_path / "home" / ".aws" / "credentials").write_text(f"{SECRET}\n")
    (tmp_path / "ws" / "a.txt").write_text("hello\n")
    return tmp_path


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl is not installed")
def test_x509_in_a_url_is_fetched(world: Path) -> None:
    seen: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the http.server hook
            seen.append(self.path)
            self.send_response(404)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        cmd = f"openssl x509 -noout -subject -in http://127.0.0.1:{server.server_port}/c.der"
        subprocess.run(["bash", "-c", cmd], cwd=world / "ws", capture_output=True, timeout=30)
    finally:
        server.shutdown()
        server.server_close()
    assert seen == ["/c.der"], "openssl did not fetch the URL: the oracle no longer shows it"
    assert not analyse(cmd, _ctx(world)).readonly
    (world / "ws" / "c.crt").write_text("x\n")
    a = analyse("openssl x509 -noout -subject -in c.crt", _ctx(world))
    assert a.readonly, [r.message for r in a.reasons]


@pytest.mark.skipif(shutil.which("file") is None, reason="file is not installed")
@pytest.mark.parametrize("cmd", ["file -m a.txt:{cred} a.txt",
                                 "file --magic-file=a.txt:../home/.aws/credentials a.txt"])
def test_a_magic_list_is_split_at_colons(world: Path, cmd: str) -> None:
    cmd = cmd.format(cred=world / "home" / ".aws" / "credentials")
    out = subprocess.run(["bash", "-c", cmd], cwd=world / "ws", capture_output=True, text=True, timeout=30)
    assert SECRET in out.stdout + out.stderr, "file did not read the piece: the oracle no longer shows it"
    assert not analyse(cmd, _ctx(world)).readonly


@pytest.mark.skipif(None in (shutil.which("file"), shutil.which("strace"), shutil.which("zstd")),
                    reason="file, strace or zstd is not installed")
def test_file_z_runs_a_decompressor(world: Path) -> None:
    ws = world / "ws"
    subprocess.run(["zstd", "-q", "a.txt", "-o", "a.zst"], cwd=ws, check=True, timeout=30)
    subprocess.run(["strace", "-f", "-qq", "-e", "trace=execve", "-o", str(world / "trace"), "file", "-z",
                    "a.zst"], cwd=ws, capture_output=True, timeout=30)
    assert '"zstd"' in (world / "trace").read_text(), "file -z ran no zstd: the oracle no longer shows it"
    for cmd in ("file -z a.zst", "file -Z a.zst", "file -S a.zst"):
        assert not analyse(cmd, _ctx(world)).readonly
    assert analyse("file a.zst", _ctx(world)).readonly
