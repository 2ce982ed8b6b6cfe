"""A server and a client meet (#20): background jobs live on in BashTool's pre-spawned bwrap
sandbox, bounded, listed in every later result, reported once when they end, stopped at
close(); loopback works inside the sandbox's own network namespace while the host's stays out
of reach; a client of a loopback literal needs no network grant there, and still does in a
hook. Every command really runs (skipped, with the reason, where bwrap is missing)."""

from __future__ import annotations

import contextlib
import shutil
import socket
import uuid
from pathlib import Path

import psutil
import pytest
from _helpers import git_workspace, sandbox_or_skip

from shellgate.approval import CallContext, load_engine
from shellgate.sandbox import Limits
from shellgate.tools import BashTool


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return git_workspace(tmp_path / "ws", commit=("a.txt", "a\n"))


@pytest.fixture
def bwrap() -> None:
    sandbox_or_skip("bwrap").close()


def _tool(ws: Path, mode: str = "trust", **kw) -> BashTool:
    return BashTool(ws, mode, sandbox="bwrap", audit=False, store=False, user_config=False,
                    home=ws.parent / "home", **kw)


def _marked(marker: str) -> list[psutil.Process]:
    """Host processes whose command line carries ``marker``, and everything below them."""
    found: list[psutil.Process] = []
    for p in psutil.process_iter(["cmdline"]):
        if any(marker in a for a in (p.info["cmdline"] or [])):
            found.append(p)
            with contextlib.suppress(psutil.NoSuchProcess):
                found += p.children(recursive=True)
    return list({p.pid: p for p in found}.values())


def _alive(procs: list[psutil.Process]) -> list[psutil.Process]:
    out = []
    for p in procs:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                out.append(p)
        except psutil.NoSuchProcess:
            pass
    return out


def _job(marker: str) -> str:
    """A background job that lives until it is killed: a bash (whose argv carries the marker)
    waiting on a sleep."""
    return f"bash -c 'sleep 300; : {marker}'"


def _started(marker: str, n: int = 1) -> str:
    """Wait, inside the call, until ``n`` processes run with ``marker-<digit>`` (or ``marker``
    at the end) in their argv — they have exec'd, so the host sees them by it. The pattern
    does not match its own grep's argv."""
    return (f"until [ \"$(grep -zlsE '{marker}(-[0-9]|$)' /proc/[0-9]*/cmdline | wc -l)\" -ge {n} ]; "
            "do :; done")


def _argv_marked(marker: str) -> list[psutil.Process]:
    out = []
    for p in _alive(_marked(marker)):
        with contextlib.suppress(psutil.NoSuchProcess):
            if any(marker in a for a in p.cmdline()):
                out.append(p)
    return out


def test_a_server_started_in_one_call_answers_a_client_in_the_next(ws, bwrap):
    with _tool(ws) as t:
        r = t.run("python3 -m http.server 8765 --bind 127.0.0.1 >/dev/null 2>&1 & sleep 1; "
                  "echo started")
        assert (r.exit_code, r.stdout) == (0, "started\n"), r
        assert any("http.server 8765" in j for j in r.background), r.background
        if shutil.which("curl"):
            c = t.run("curl -s -o /dev/null -w '%{http_code}\\n' http://127.0.0.1:8765/")
            assert c.capability == "exec", c.reason   # no network grant: the sandbox's loopback
        else:
            c = t.run("python3 -c \"import urllib.request as u; "
                      "print(u.urlopen('http://127.0.0.1:8765/').status)\"")
        assert (c.exit_code, c.stdout) == (0, "200\n"), c
        assert any("http.server 8765" in j for j in c.background)


def test_a_job_survives_to_the_next_call_is_listed_and_stopped_at_close(ws, bwrap):
    marker = f"sg-job-{uuid.uuid4().hex[:8]}"
    t = _tool(ws)
    try:
        # (the call waits until the job has exec'd, so that its command line is the job's)
        r = t.run(f"{_job(marker)} & p=$!; {_started(marker)}; echo $p", timeout=30)
        assert r.exit_code == 0 and r.stdout.strip().isdigit(), r
        assert r.duration < 30   # it did not wait for the job (whose pipes it holds) to end
        pid = r.stdout.strip()
        assert [j for j in r.background if marker in j and f"pid {pid}:" in j], r.background
        procs = _marked(marker)
        assert _alive(procs), "the job did not survive its call"
        n = t.run("echo next")
        assert n.stdout == "next\n" and any(marker in j for j in n.background), n
        assert "running in the background" in n.as_text() and marker in n.as_text()
        # it is the session's: a later call sees it, and may stop it itself
        assert marker in t.run("ps -eo args").stdout
    finally:
        t.close()
    assert _alive(procs) == []
    assert _alive(_marked(marker)) == []


def test_restart_stops_the_jobs_too(ws, bwrap):
    from shellgate.integrations._shell import Shell

    marker = f"sg-job-{uuid.uuid4().hex[:8]}"
    with Shell(ws, "trust", sandbox="bwrap", audit=False, store=False, user_config=False) as sh:
        sh.run(f"{_job(marker)} & {_started(marker)}")
        procs = _marked(marker)
        assert _alive(procs)
        sh.restart()
        assert _alive(procs) == []


def test_the_job_limit(ws, bwrap):
    marker = f"sg-job-{uuid.uuid4().hex[:8]}"
    with _tool(ws, limits=Limits(max_jobs=2)) as t:
        r = t.run(f"for i in 1 2 3; do bash -c \"sleep 300; : {marker}-$i\" & done; "
                  f"{_started(marker, 3)}; echo ok", timeout=30)
        assert r.stdout == "ok\n"
        assert len(r.background) == 2, r.background
        assert [n for n in r.notes if "at most 2 background jobs" in n], r.notes
        assert "at most 2 background jobs" in r.as_text()
        assert len(_argv_marked(marker)) == 2   # the third was stopped
        again = t.run(f"{_job(marker)}-4 & echo ok")
        assert len(again.background) == 2 and marker + "-4" not in " ".join(again.background)
        assert [n for n in again.notes if "at most 2" in n]


def test_a_job_that_exits_is_reported_once(ws, bwrap):
    with _tool(ws) as t:
        r = t.run("mkfifo /tmp/go; (read x < /tmp/go) & echo $!")
        pid = r.stdout.strip()
        assert len(r.background) == 1, r
        # the job reads the line and exits; this call waits until it is gone (reaped by init)
        e = t.run(f"echo hi > /tmp/go; while kill -0 {pid} 2>/dev/null; do :; done; echo done",
                  timeout=30)
        assert e.stdout == "done\n", e
        assert e.background == ()
        ended = [n for n in e.notes if "has ended" in n and f"pid {pid}" in n]
        assert len(ended) == 1, e.notes
        later = t.run("true")
        assert not [n for n in later.notes if "has ended" in n], later.notes


def test_a_jobs_later_output_goes_to_its_log(ws, bwrap):
    with _tool(ws) as t:
        r = t.run("mkfifo /tmp/go; (echo first; read x < /tmp/go; echo second) & "
                  "while [ ! -p /tmp/go ]; do :; done; echo call")
        assert "call\n" in r.stdout
        log = [j for j in r.background if "output in /tmp/shellgate-jobs/" in j]
        assert log, r.background
        path = log[0].rsplit("output in ", 1)[1]
        t.run(f"echo go > /tmp/go; while [ ! -s {path} ] || ! grep -q second {path}; do :; done",
              timeout=30)
        assert "second" in t.run(f"cat {path}").stdout


def test_a_timeout_kills_what_the_call_started_and_spares_earlier_jobs(ws, bwrap):
    old, new = (f"sg-job-{uuid.uuid4().hex[:8]}" for _ in range(2))
    with _tool(ws) as t:
        t.run(f"{_job(old)} & {_started(old)}", timeout=30)
        r = t.run(f"{_job(new)} & {_started(new)}; sleep 300", timeout=3)
        assert r.timed_out
        assert _alive(_marked(new)) == []
        assert _alive(_marked(old)), "the earlier job died with a later call's timeout"
        assert [j for j in r.background if old in j] and not [j for j in r.background if new in j]


def test_fresh_bwrap_keeps_todays_behaviour_and_says_so(ws):
    sandbox_or_skip("bwrap-fresh").close()
    with BashTool(ws, "trust", sandbox="bwrap", prespawn=False, audit=False, store=False,
                  user_config=False) as t:
        r = t.run("sleep 300 & echo ok")
    assert r.stdout == "ok\n" and r.background == ()
    assert [n for n in r.notes if "background processes end with the command" in n], r.notes


def test_loopback_works_inside_while_the_hosts_stays_unreachable(ws, bwrap):
    host = socket.socket()
    host.bind(("127.0.0.1", 0))
    host.listen(4)
    host.setblocking(False)
    port = host.getsockname()[1]
    script = ("import socket\n"
              "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(1)\n"
              "c = socket.create_connection(s.getsockname(), 2); a, _ = s.accept()\n"
              "c.sendall(b'ping'); print(a.recv(4).decode())\n"
              "try:\n"
              f"    socket.create_connection(('127.0.0.1', {port}), 2); print('reached')\n"
              "except OSError as e:\n"
              "    print('refused', type(e).__name__)\n")
    (ws / "loop.py").write_text(script)
    try:
        with _tool(ws) as t:
            r = t.run("python3 loop.py")
        assert r.stdout.splitlines()[0] == "ping", r
        assert r.stdout.splitlines()[1].startswith("refused"), r
        with pytest.raises(BlockingIOError):
            host.accept()    # 0 connections reached the host's listener
    finally:
        host.close()


@pytest.mark.parametrize("cmd", [
    "curl -s http://127.0.0.1:8765/", "curl -s localhost:8000/x", "curl -s 'http://[::1]:9/'",
    "wget -qO- http://localhost:8000/", "curl -s --url http://127.0.0.1/"])
def test_loopback_clients_need_no_network_grant_in_bashtool_only(ws, cmd):
    sandbox_or_skip("bwrap").close()
    with _tool(ws, "balanced") as t:
        d = t.engine.decide_bash(cmd, CallContext(cwd=str(ws)))
        assert str(d.capability) == "exec", d.reason
    # a hook's engine (commands on the agent's host) is never told: still the network
    hook = load_engine(ws, "balanced", ask_as_deny=False, audit=False, store=False,
                       user_config=False)
    d = hook.decide_bash(cmd, CallContext(cwd=str(ws)))
    assert (d.verdict, str(d.capability)) == ("ask", "network"), d.reason


@pytest.mark.parametrize("cmd", [
    "curl -s http://example.com/", "curl -s http://127.0.0.1:80@example.com/",
    "curl -s -x http://proxy:3128 http://127.0.0.1/", "curl -s http://127.0.0.1/ http://example.com/",
    "curl -s http://{127.0.0.1,example.com}/", "curl -s http://127.0.0.2/",
    "curl -s http://127.0.0.1.example.com/", "wget -qO- http://localhost.example.com/"])
def test_other_targets_stay_network(ws, cmd):
    sandbox_or_skip("bwrap").close()
    with _tool(ws, "balanced") as t:
        d = t.engine.decide_bash(cmd, CallContext(cwd=str(ws)))
    assert str(d.capability) == "network", (cmd, d.reason)
