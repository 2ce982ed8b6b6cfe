"""``fuzz --ray``: a campaign run as Ray tasks on a real local Ray instance finds what the same
campaign finds with local processes (``--jobs``), for a fixed seed, partition count and command
budget; the central collector does not depend on the order messages arrive in; ``--resume``
continues a campaign without reporting its findings again."""

from __future__ import annotations

import json

import pytest
from _rayinst import import_ray, local_ray
from conftest import ROOT, load
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from shellgate.fuzz import campaign
from shellgate.fuzz.flags import harvest_all
from shellgate.fuzz.generators import Material
from shellgate.fuzz.oracle import Oracle, OracleUnavailable
from shellgate.fuzz.policy_seeds import seeds as policy_seeds

ROWS = load("cluster_fuzz.jsonl")


def _config(row: dict) -> str | None:
    return str(ROOT / row["config"]) if row["config"] else None


def _material(cache, config: str | None) -> Material:
    """sort and find only (a full harvest asks every read-only program): what the policy allows."""
    prefixes = [("sort",), ("find",), ("ls",), ("cat",)]
    return Material(programs=tuple(prefixes), universes=harvest_all(prefixes, cache=cache),
                    policy=tuple(policy_seeds(config)))


def _key(r: campaign.Result) -> tuple:
    found = sorted((f["kind"], f["cause"], f["cmd"], f["original"], f["worker"], f["round"])
                   for f in r.findings)
    s = r.stats
    return found, (s.generated, s.allowed, s.executed, s.effects, s.minimize_runs)


def _run(row: dict, material: Material, runner=campaign.run) -> campaign.Result:
    r = runner(600, seed=row["seed"], jobs=row["partitions"], config=_config(row),
               material=material, max_commands=row["max_commands"])
    assert not r.fatal, r.fatal
    return r


@pytest.fixture(scope="module")
def materials(tmp_path_factory):
    try:
        Oracle(timeout=1).close()
    except OracleUnavailable as exc:
        pytest.skip(f"oracle unavailable on this host: {exc}")
    cache = tmp_path_factory.mktemp("flags") / "flags.json"
    return {r["config"]: _material(cache, _config(r)) for r in ROWS}


@pytest.fixture(scope="module")
def jobs_results(materials):
    """The --jobs runs, done before Ray starts: the campaign forks its workers, and a process
    that holds Ray's threads should not fork."""
    return [_run(row, materials[row["config"]]) for row in ROWS]


@pytest.fixture(scope="module")
def ray_instance(jobs_results, tmp_path_factory):
    import_ray()
    with local_ray(tmp_path_factory.mktemp("ray-xdg")) as ray:
        yield ray


@pytest.mark.parametrize("i", range(len(ROWS)), ids=[r["why"] for r in ROWS])
def test_same_findings_as_jobs(ray_instance, materials, jobs_results, i):
    from shellgate.cluster import fuzz as rayfuzz

    row = ROWS[i]
    on_ray = _run(row, materials[row["config"]], rayfuzz.run)
    assert _key(on_ray) == _key(jobs_results[i])
    assert set(on_ray.nodes) and sum(n.executed for n in on_ray.nodes.values()) == on_ray.stats.executed
    if row["config"]:
        assert on_ray.findings, "the sort/find policy lets writes through: expected a finding"


def test_main_through_the_ray_runner_writes_and_resumes(ray_instance, materials, tmp_path):
    """The CLI's path (campaign.main with the runner ``--ray`` builds), then --resume."""
    from shellgate.cluster.fuzz import make_runner

    row = ROWS[0]
    out = tmp_path / "findings.jsonl"
    kw = dict(material=materials[row["config"]], max_commands=row["max_commands"],
              runner=make_runner(None), engine=" on Ray")
    with open(tmp_path / "log", "w") as log:
        code = campaign.main(600, row["seed"], row["partitions"], _config(row), str(out),
                             console=Console(file=log, width=200), **kw)
    assert code == 1
    first = campaign.read_findings(out)
    assert first and all(f["round"] == 0 for f in first)
    assert json.loads(campaign.state_path(out).read_text())["rounds"] == 1
    log_text = (tmp_path / "log").read_text()
    assert "executed/s" in log_text and "on Ray" in log_text
    with open(tmp_path / "log2", "w") as log:
        campaign.main(600, row["seed"], row["partitions"], _config(row), str(out), resume=True,
                      console=Console(file=log, width=200), **kw)
    again = campaign.read_findings(out)
    assert again[:len(first)] == first                    # kept as they were
    causes = [f["cause"] for f in again]
    assert len(causes) == len(set(causes))                 # none reported twice
    assert all(f["round"] == 1 for f in again[len(first):])
    assert json.loads(campaign.state_path(out).read_text())["rounds"] == 2


def test_round_streams_differ_and_round_zero_is_historical():
    assert campaign.stream_seed(7, 1) == "7/1"
    assert len({campaign.stream_seed(7, i, r) for i in range(3) for r in range(3)}) == 9


def _finding(cause: str, cmd: str, worker: int) -> dict:
    return {"cause": cause, "cmd": cmd, "worker": worker, "kind": cause.split(":")[0]}


MESSAGES = [("finding", 0, _finding("write:sort -o", "sort -o x", 0)),
            ("finding", 1, _finding("write:sort -o", "sort -oy", 1)),
            ("finding", 1, _finding("write:sort -o", "sort -o y", 1)),
            ("finding", 0, _finding("exec:find -exec", "find -exec ls ;", 0)),
            ("finding", 1, _finding("write:find -fls", "find -fls a", 1)),
            ("stats", 0, {"generated": 3, "executed": 1}),
            ("stats", 1, {"generated": 5, "executed": 2})]


@given(st.permutations(MESSAGES))
def test_collector_does_not_depend_on_arrival_order(order):
    col = campaign.Collector(2, known=(("write", "write:find -fls"),))
    for m in order:
        col.take(*m)
    r = col.result("bash")
    assert [(f["cause"], f["cmd"]) for f in r.findings] == [
        ("exec:find -exec", "find -exec ls ;"), ("write:sort -o", "sort -oy")]
    assert r.stats.generated == 8 and r.hits["write:sort -o"] == 3
