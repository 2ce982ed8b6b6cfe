"""Fuzzing under each reading shellgate models (``shellgate fuzz --dialect``): bash, zsh, dash,
mawk and gawk really run the commands, the generator leans towards each dialect's own text, and
a bounded campaign of the real gate per dialect ends with no finding.

The lines of ``corpus/dialect_effects.jsonl`` have an effect only under their dialect's real
program: the oracle must see it (so the dialect run is really that one) and the gate must not
take them for reads.
"""

from __future__ import annotations

import os

import pytest
from conftest import load

from shellgate import Gate
from shellgate.cli import FUZZ_DIALECTS
from shellgate.fuzz import campaign
from shellgate.fuzz.dialects import DIALECTS, Focus
from shellgate.fuzz.flags import harvest_all
from shellgate.fuzz.generators import ZSH_WORDS, Generator, Material, SeededRng
from shellgate.fuzz.oracle import Oracle, OracleUnavailable

EFFECTS = load("dialect_effects.jsonl")


def _oracle(name: str, **kw) -> Oracle:
    try:
        return Oracle(dialect=DIALECTS[name], **kw)
    except OracleUnavailable as exc:
        pytest.skip(f"the {name} oracle cannot run here: {exc}")


def test_the_cli_names_every_dialect():
    assert tuple(DIALECTS) == FUZZ_DIALECTS


# Each dialect's own answer to a question only that program answers so.
PROBES = {
    "bash": ("echo ${BASH_VERSION:+bash}${ZSH_VERSION:+zsh}", "bash"),
    "zsh": ("echo ${BASH_VERSION:+bash}${ZSH_VERSION:+zsh}", "zsh"),
    "dash": ("sh -c 'echo ${BASH_VERSION:-not bash}'; readlink -f \"$(command -v sh)\"",
             "not bash\n/usr/bin/dash"),
    "mawk": ("awk -W version 2>&1 | head -1 | cut -d' ' -f1", "mawk"),
    "gawk": ("awk --version | head -1 | cut -d' ' -f1-2", "GNU Awk"),
}


@pytest.mark.parametrize("name", DIALECTS)
def test_the_oracle_runs_the_dialect(name):
    cmd, want = PROBES[name]
    with _oracle(name) as o:
        obs = o.run(cmd)
    assert obs.stdout.strip() == want, (obs.stdout, obs.stderr)
    assert obs.effects == (), obs.effects   # the dialect's own sh/awk is no foreign program


@pytest.mark.parametrize("row", EFFECTS, ids=[f"{r['dialect']}:{r['cmd'][:40]}" for r in EFFECTS])
def test_a_dialects_own_reading_has_its_effect_and_the_gate_sees_it(row):
    with _oracle(row["dialect"]) as o:
        obs = o.run(row["cmd"])
        assert row["effect"] in obs.kinds, (row["why"], obs.effects, obs.stderr)
        v = Gate(o.workspace, mode="balanced", home=o.home).check(row["cmd"], cwd=o.workspace)
        assert v.decision != "allow", (row["why"], v.reason)
        assert not v.analysis.readonly, row["why"]   # so no mode takes it for a read


def test_a_dialect_line_in_bash_has_no_such_effect():
    """The zsh and dash lines are harmless to bash: proof that the campaign's dialect, not the
    line alone, gives the effect."""
    rows = [r for r in EFFECTS if r["dialect"] in ("zsh",)]
    with _oracle("bash") as o:
        for r in rows:
            assert "write" not in o.run(r["cmd"]).kinds, r


@pytest.mark.parametrize("focus", [f for f in Focus if f is not Focus.ALL])
def test_a_focused_generator_writes_its_dialects_text(focus):
    gen = Generator(Material(programs=(("cat",), ("ls",))), SeededRng(7), focus=focus)
    cmds = [gen.command() for _ in range(400)]
    own = [g.cmd for g in cmds if g.origin == "dialect"]
    assert 120 < len(own) < 280   # about half
    marker = {Focus.SH: ("sh -", "| sh"), Focus.AWK: ("awk ",), Focus.ZSH: ZSH_WORDS}
    assert all(any(m in c for m in marker[focus]) for c in own)
    assert len(set(own)) > 100


@pytest.fixture(scope="module")
def material(tmp_path_factory):
    prefixes = [("cat",), ("ls",), ("grep",), ("awk",), ("sed",), ("echo",), ("wc",), ("head",)]
    cache = tmp_path_factory.mktemp("flags") / "flags.json"
    return Material(programs=tuple(prefixes), universes=harvest_all(prefixes, cache=cache),
                    seeds=("cat data.txt", "ls -la", "grep -rn main src", "awk '{print $1}' data.txt",
                           "sed -n 1p data.txt", "echo hi | wc -c"))


SAMPLE = int(os.environ.get("SHELLGATE_DIALECT_SAMPLE", "300"))


@pytest.mark.parametrize("name", DIALECTS)
def test_a_bounded_campaign_of_the_real_gate_finds_nothing(name, material):
    """SAMPLE generated commands per dialect (half of them the dialect's own text), every one
    the gate allows executed under that dialect: none may have an effect."""
    _oracle(name).close()
    r = campaign.run(600, seed=20261203, jobs=1, material=material, max_commands=SAMPLE,
                     dialect=name)
    assert not r.fatal, r.fatal
    assert r.stats.generated == SAMPLE and r.stats.executed > 0, r.stats
    assert r.gate_errors == []
    assert r.findings == [], r.findings
    print(f"{name}: {r.stats.generated} generated, {r.stats.allowed} allowed, "
          f"{r.stats.executed} executed, 0 findings")
