"""End to end through the config loader, the harness, the real bash analysis and the kernel:
corpus/rules_policy.jsonl lists what `shellgate check` must report for each command and mode
under one policy, and which step of the chain decided."""

from __future__ import annotations

import pytest
from conftest import load

from shellgate.approval import load_engine

POLICY = """
[permissions]
allow = ["Bash(npm test *)", "Bash(make build)"]
ask = ["Bash(git push *)"]
deny = ["Bash(rm -rf *)", "Bash(sudo *)", "Read(~/.ssh/**)"]
"""
CASES = load("rules_policy.jsonl")


@pytest.fixture(scope="module")
def engines(tmp_path_factory):
    root = tmp_path_factory.mktemp("policy")
    ws, home = root / "ws", root / "home"
    ws.mkdir()
    home.mkdir()
    cfg = root / "policy.toml"
    cfg.write_text(POLICY)
    cache = {}

    def get(mode):
        if mode not in cache:
            cache[mode] = load_engine(ws, mode, cfg, ask_as_deny=False, audit=False, store=False,
                                      home=home, user_config=False, project_config=False)
        return cache[mode]

    return get


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['mode']}:{c['cmd'][:40]}")
def test_policy_decision(engines, case):
    d = engines(case["mode"]).decide_bash(case["cmd"])
    assert (d.verdict, d.rule) == (case["decision"], case["rule"]), d.reason


def test_corpus_covers_every_verdict_and_the_main_steps():
    assert {c["decision"] for c in CASES} == {"allow", "ask", "deny"}
    assert {"chain.deny_rule", "chain.ask_rule", "chain.allow_rule", "chain.outside_roots",
            "chain.mode_matrix", "approval.dangerous_path"} <= {c["rule"] for c in CASES}
