"""Commands the fuzzer found the default policy auto-allowing although they had a side effect.

Each line of ``corpus/fuzz_regressions.jsonl`` is checked in the fuzz fixture's world (same
workspace files, same fake HOME), where the finding was made: the gate must not auto-allow it.
``{ws}`` and ``{home}`` stand for the world's absolute paths. Lines marked ``"open": true`` are
known classifier bugs not fixed yet (expected to fail; drop the key once fixed).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shellgate.fuzz import fixture

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "fuzz_regressions.jsonl"


def lines():
    if not CORPUS.exists():
        return []
    out = []
    for raw in CORPUS.read_text(encoding="utf-8").splitlines():
        if raw.strip() and not raw.lstrip().startswith("//"):
            case = json.loads(raw)
            xfail = pytest.mark.xfail(reason="open classifier bug", strict=True)
            marks = [xfail] if case.get("open") else []
            out.append(pytest.param(case, marks=marks, id=case["cmd"][:50]))
    return out


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    layout = fixture.Layout(tmp_path_factory.mktemp("fuzzworld").resolve())
    fixture.build_template(layout, token_seed="regress")
    return layout


@pytest.fixture(scope="module")
def gate(world):
    from shellgate.check import Gate

    return Gate(world.workspace, mode="balanced", home=world.home)


@pytest.mark.parametrize("case", lines())
def test_fuzz_finding_is_not_auto_allowed(gate, world, case):
    assert case["class"] == "fuzz" and case["kind"] in ("write", "delete", "secret-read", "connect", "exec")
    cmd = case["cmd"].replace("{ws}", str(world.workspace)).replace("{home}", str(world.home))
    verdict = gate.check(cmd, cwd=world.workspace)
    assert verdict.decision != "allow", (case["effect"], verdict.rule)
