"""``check --jsonl --ray``: the same output lines, in the same order, as ``--jobs``, computed
on a real local Ray instance; the driver keeps a bounded number of lines in flight."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from _rayinst import import_ray, local_ray
from conftest import CORPUS_DATA, load

import_ray()

from shellgate import checkcli  # noqa: E402
from shellgate.cluster import check as raycheck  # noqa: E402

ROWS = load("cluster_check.jsonl")
LINES = [r["line"] for r in ROWS]


@pytest.fixture(scope="module")
def ray_instance(tmp_path_factory: pytest.TempPathFactory):
    with local_ray(tmp_path_factory.mktemp("ray-xdg")) as ray:
        yield ray


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> str:
    ws = tmp_path_factory.mktemp("ws")
    (ws / "README.md").write_text("# x\n", encoding="utf-8")
    (ws / "src").mkdir()
    return str(ws)


def jobs_path(lines: list[str], cwd: str, jobs: int, **kw) -> list[str]:
    kw = {"mode": None, "config": None, "plan": False, **kw}
    return list(checkcli.check_lines(iter(lines), cwd=cwd, jobs=jobs, **kw))


def ray_path(lines: list[str], cwd: str, chunk: int = 5, **kw) -> list[str]:
    kw = {"mode": None, "config": None, "plan": False, **kw}
    return list(raycheck.check_lines(iter(lines), cwd=cwd, address=None, chunk=chunk, **kw))


@pytest.mark.parametrize("row", ROWS, ids=[r["why"] for r in ROWS])
def test_each_corpus_line_same_as_jobs(ray_instance, workspace, row):
    assert ray_path([row["line"]], workspace) == jobs_path([row["line"]], workspace, 1)


@pytest.mark.parametrize("mode,plan", [(None, False), ("strict", False), ("accept-edits", False),
                                       ("trust", False), (None, True)])
def test_whole_corpus_in_order_over_many_chunks(ray_instance, workspace, mode, plan):
    lines = LINES * 7   # 196 lines in chunks of 5: dozens of tasks finishing out of order
    got = ray_path(lines, workspace, mode=mode, plan=plan)
    assert got == jobs_path(lines, workspace, 2, mode=mode, plan=plan)
    assert [json.loads(g).get("command") for g in got[:len(ROWS)]] == [
        json.loads(r["line"]).get("cmd") if r["line"].startswith("{\"cmd\": \"") else None
        for r in ROWS]


def test_bounded_lines_in_flight(ray_instance, workspace):
    """Before the first result is written, the driver has read at most the window."""
    read = 0

    def source():
        nonlocal read
        for i in range(100_000):
            read += 1
            yield json.dumps({"cmd": f"ls -la f{i}"})

    out = raycheck.check_lines(source(), mode=None, cwd=workspace, config=None, plan=False,
                               address=None, chunk=10)
    first = next(out)
    window = raycheck.WINDOW_PER_CPU * int(ray_instance.cluster_resources()["CPU"]) * 10
    assert json.loads(first)["command"] == "ls -la f0"
    assert read <= window + 10
    for _ in range(500):
        next(out)
    assert read <= 510 + window + 10
    out.close()   # an early stop cancels what is queued and leaves the instance usable
    assert ray_path(LINES[:3], workspace) == jobs_path(LINES[:3], workspace, 1)


def test_cli_on_the_cluster_address(ray_instance, workspace, tmp_path):
    """The real command line joining the running instance by its address."""
    src = tmp_path / "in.jsonl"
    src.write_text("\n".join(LINES * 3) + "\n", encoding="utf-8")
    address = ray_instance.get_runtime_context().gcs_address
    env = {**os.environ, "RAY_ADDRESS": ""}
    base = [sys.executable, "-m", "shellgate", "check", "--cwd", workspace, "--jsonl", str(src)]
    on_ray = subprocess.run([*base, "--ray", address], capture_output=True, text=True, env=env)
    assert on_ray.returncode == 0, on_ray.stderr
    jobs = subprocess.run([*base, "--jobs", "2"], capture_output=True, text=True, env=env)
    assert on_ray.stdout == jobs.stdout
    assert len(on_ray.stdout.splitlines()) == 3 * len(LINES)


def test_cli_ray_without_jsonl_is_a_usage_error():
    p = subprocess.run([sys.executable, "-m", "shellgate", "check", "--ray", "--", "ls"],
                       capture_output=True, text=True)
    assert p.returncode == 2 and "--ray needs --jsonl" in p.stderr


@pytest.mark.skipif(not CORPUS_DATA.is_dir(), reason="shared corpus data not beside the project")
def test_shared_corpus_sample_same_as_jobs(ray_instance, workspace):
    lines: list[str] = []
    for path in sorted(CORPUS_DATA.glob("*.jsonl")):
        with open(path, encoding="utf-8", errors="surrogateescape") as f:
            lines += [line.rstrip("\n") for line in itertools.islice(f, 400) if line.strip()]
    assert ray_path(lines, workspace, chunk=64) == jobs_path(lines, workspace, 2)


def test_ray_imports_stay_off_the_plain_check_path():
    code = ("import sys, shellgate.checkcli, shellgate.cli, shellgate.check; "
            "print('ray' in sys.modules, 'shellgate.cluster' in sys.modules)")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=Path(__file__).parent.parent)
    assert p.stdout.split() == ["False", "False"], p.stderr


def test_doctor_ray_checks_every_node(ray_instance):
    """Each alive node reports bwrap and strace as this host sees them (it is the one node)."""
    from shellgate.cluster import nodes
    from shellgate.fuzz.oracle import OracleUnavailable, preflight
    from shellgate.sandbox.trusted import find_program

    try:
        preflight()
        bwrap_ok = True
    except OracleUnavailable:
        bwrap_ok = False
    report = nodes.report(None)
    alive = [n for n in ray_instance.nodes() if n["Alive"]]
    by_name = {c.name.rsplit(" ", 1)[-1]: c for c in report.checks if c.name.startswith("node ")}
    assert len([c for c in report.checks if c.name.endswith(" bwrap")]) == len(alive)
    assert by_name["bwrap"].ok == bwrap_ok
    assert by_name["strace"].ok == bool(find_program("strace")[0])
    assert report.ok == (bwrap_ok and by_name["strace"].ok)


def test_doctor_ray_cli(ray_instance):
    address = ray_instance.get_runtime_context().gcs_address
    p = subprocess.run([sys.executable, "-m", "shellgate", "doctor", "--ray", address, "--json"],
                       capture_output=True, text=True)
    got = json.loads(p.stdout)
    assert p.returncode == (0 if got["ok"] else 1), p.stderr
    assert any(c["name"].endswith(" strace") for c in got["checks"])


def test_unreachable_cluster_is_exit_2(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text('{"cmd": "ls"}\n', encoding="utf-8")
    p = subprocess.run([sys.executable, "-m", "shellgate", "check", "--jsonl", str(src),
                        "--ray", "127.0.0.1:1"], capture_output=True, text=True,
                       env={**os.environ, "RAY_gcs_rpc_server_connect_timeout_s": "2"})
    assert p.returncode == 2 and "cannot start or reach Ray" in p.stderr and not p.stdout
