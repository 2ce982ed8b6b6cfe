"""A real project session through BashTool, end to end (#20): ``corpus/agent_session.jsonl``
(55 commands in six 1.16.0's source from PyPI: explore, test, break, fix, commit, scratch
/tmp, build, serve, clean up) runs plain, in trust and in accept-edits, and each command's
stdout, stderr and exit status are compared with plain bash. ``bench/agent_session.py``
prints the same figures.

Goals: at least 54 of 55 identical in trust with no approver; at most 8 asks in accept-edits,
each one a prompt a user would want. The differences allowed are named below with their cause.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from _helpers import sandbox_or_skip

BENCH = Path(__file__).resolve().parent.parent / "bench" / "agent_session.py"

# Commands whose outcome may differ from plain bash, and why.
# None left: since #20 the "server" step's background job lives on in the pre-spawned sandbox,
# and its curl to 127.0.0.1 runs there (no network grant), so they meet as in plain bash.
KNOWN_DIFFERENCES: dict[str, str] = {}
# Commands accept-edits may ask about: a destructive delete. (The curl to the session's own
# server is a confined exec now, in the sandbox's namespace: auto-allowed.)
EXPECTED_ASKS = {"rm -r notes", "rm -rf dist"}


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    sandbox_or_skip("bwrap").close()
    spec = importlib.util.spec_from_file_location("agent_session", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    got = mod.measure(tmp_path_factory.mktemp("session"))
    if got is None:
        pytest.skip("six 1.16.0 could not be fetched from PyPI (no index reachable)")
    return mod, got


def test_trust_runs_the_session_as_bash_does(result):
    mod, r = result
    s = mod.summary(r, "trust")
    differ = [r["rows"][i] for i in range(s["n"]) if i not in s["identical"]]
    assert s["asked"] == []
    assert len(s["identical"]) >= 54, differ
    assert {d["step"] for d in differ} <= set(KNOWN_DIFFERENCES), differ
    print(f"trust: {len(s['identical'])}/{s['n']} identical; overhead median "
          f"{s['overhead_median_ms']:+.1f} ms, p90 {s['overhead_p90_ms']:+.1f} ms")


def test_accept_edits_asks_only_what_a_user_would_want_asked(result):
    mod, r = result
    s = mod.summary(r, "accept-edits")
    asked = [r["rows"][i]["cmd"] for i in s["asked"]]
    assert len(asked) <= 8, asked
    assert all(any(c.startswith(e) for e in EXPECTED_ASKS) for c in asked), asked
    ran = [i for i in range(s["n"]) if i not in s["asked"]]
    # What ran is as plain bash ran it, but for the known causes and for what follows an
    # unanswered ask (git status still lists the dist/ that `rm -rf dist` did not remove).
    after_ask = {i + 1 for i in s["asked"]}
    for i in ran:
        if i not in s["identical"]:
            assert r["rows"][i]["step"] in KNOWN_DIFFERENCES or i in after_ask, r["rows"][i]
    print(f"accept-edits: {len(asked)} asks: {asked}")
