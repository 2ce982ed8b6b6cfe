"""The campaign end to end with a stand-in gate: findings are found, minimized, deduplicated,
written as JSON lines, and the exit status says whether there were any.

The stand-in gate allows exactly what a ``Bash(sort *)`` / ``Bash(find *)`` policy would allow
for simple commands, so these tests do not depend on the real classifier; the real gate is
exercised by ``fuzz/campaigns.py`` (see the README).
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from rich.console import Console

from shellgate.fuzz import campaign, tokens
from shellgate.fuzz.flags import harvest_all
from shellgate.fuzz.generators import Material
from shellgate.fuzz.oracle import Oracle, OracleUnavailable
from shellgate.fuzz.policy_seeds import PolicySeed


@pytest.fixture(scope="module", autouse=True)
def need_oracle():
    try:
        Oracle(timeout=1).close()
    except OracleUnavailable as exc:
        pytest.skip(f"oracle unavailable on this host: {exc}")


class PrefixGate:
    """Allows a simple command (no operators, expansions or redirects) whose first word is listed."""

    def __init__(self, allowed: set[str]) -> None:
        self.allowed = allowed

    def check(self, cmd, cwd=None):
        toks = tokens.split(cmd)
        ok = bool(toks) and toks[0] in self.allowed and not any(c in cmd for c in "$`<>|;&\n\\'\"")
        return SimpleNamespace(decision="allow" if ok else "ask", rule=f"Bash({toks[0]} *)" if ok else "",
                               analysis=SimpleNamespace(readonly=False))


@pytest.fixture(scope="module")
def material(tmp_path_factory):
    cache = tmp_path_factory.mktemp("flags") / "flags.json"
    prefixes = [("sort",), ("find",)]
    return Material(programs=tuple(prefixes), universes=harvest_all(prefixes, cache=cache),
                    policy=(PolicySeed("Bash(sort *)", ("sort",), True),
                            PolicySeed("Bash(find *)", ("find",), True)))


def test_policy_campaign_finds_minimized_writes(material):
    r = campaign.run(120, seed=1, jobs=1, gate_factory=lambda o, m, c: PrefixGate({"sort", "find"}),
                     material=material, max_commands=150)
    assert not r.fatal, r.fatal
    assert r.stats.generated == 150 and r.stats.executed == r.stats.allowed > 0
    writes = [f for f in r.findings if f["kind"] in ("write", "delete")]
    assert writes, r.findings
    for f in writes:
        assert f["cmd"].split()[0] in ("sort", "find")
        assert len(f["cmd"]) <= len(f["original"])
        assert any(e["kind"] == f["kind"] for e in f["effects"])
        assert f["rule"] in ("Bash(sort *)", "Bash(find *)")
    assert len({f["cause"] for f in r.findings}) == len(r.findings)   # deduplicated by cause


def _main(material, tmp_path, seed: int, max_commands: int, allowed: set[str]) -> tuple[int, str]:
    """``campaign.main`` with the stand-in gate allowing ``allowed``: its exit code and the
    findings file's text (the console log goes to ``tmp_path/log``)."""
    out = tmp_path / "findings.jsonl"
    with open(tmp_path / "log", "w") as log:
        code = campaign.main(120, seed, 1, None, str(out), material=material, max_commands=max_commands,
                             gate_factory=lambda o, m, c: PrefixGate(allowed),
                             console=Console(file=log, width=200))
    return code, out.read_text()


def test_main_writes_jsonl_and_exits_1_on_findings(material, tmp_path):
    code, text = _main(material, tmp_path, seed=2, max_commands=120, allowed={"sort", "find"})
    lines = [json.loads(x) for x in text.splitlines()]
    assert code == 1 and lines
    assert {"cmd", "effects", "rule", "seed", "kind", "cause"} <= set(lines[0])
    assert lines[0]["seed"] == 2
    assert "fuzz summary" in (tmp_path / "log").read_text()


def test_main_exits_0_when_nothing_allowed_has_an_effect(material, tmp_path):
    code, text = _main(material, tmp_path, seed=3, max_commands=60, allowed={"ls", "cat"})
    assert code == 0 and text == ""
