"""Every cell of the mode × capability matrix (SPEC §4), through the engine, plus mode parsing
and the stricter engine without a sandbox."""

from __future__ import annotations

import pytest

from shellgate.permission import (
    MATRIX,
    Capability,
    Decision,
    DecisionKind,
    Engine,
    Metadata,
    Mode,
    Request,
    parse_mode,
)

C = Capability
# Written out from SPEC §4, not derived from MATRIX, so a wrong table fails here.
EXPECTED = {
    "strict":   {C.READ: "allow", C.INTERNAL: "allow", C.WRITE: "ask", C.EXEC: "deny",
                 C.NETWORK: "deny", C.UNKNOWN: "deny", C.HOOK: "deny"},
    "balanced": {C.READ: "allow", C.INTERNAL: "allow", C.WRITE: "ask", C.EXEC: "ask",
                 C.NETWORK: "ask", C.UNKNOWN: "ask", C.HOOK: "ask"},
    "auto":     {C.READ: "allow", C.INTERNAL: "allow", C.WRITE: "allow", C.EXEC: "ask",
                 C.NETWORK: "ask", C.UNKNOWN: "ask", C.HOOK: "ask"},
    "trust":    {C.READ: "allow", C.INTERNAL: "allow", C.WRITE: "allow", C.EXEC: "allow",
                 C.NETWORK: "allow", C.UNKNOWN: "allow", C.HOOK: "allow"},
}
CELLS = [(m, c, v) for m, row in EXPECTED.items() for c, v in row.items()]


def decide(mode: str, cap: Capability, **kw) -> Decision:
    engine = Engine("/tmp/ws", mode, **kw)
    return engine.decide(Request(tool_name="some_tool", metadata=Metadata(cap, key=f"k:{cap}")))


def test_every_cell_is_listed():
    assert len(CELLS) == len(Mode) * len(Capability) == 28
    assert {(str(m), c) for m in MATRIX for c in MATRIX[m]} == {(m, c) for m, c, _ in CELLS}


@pytest.mark.parametrize("mode, cap, verdict", CELLS, ids=[f"{m}-{c}" for m, c, _ in CELLS])
def test_matrix_cell_reported(mode, cap, verdict):
    d = decide(mode, cap, ask_as_deny=False)
    assert d.verdict == verdict
    assert d.rule == "chain.mode_matrix"
    assert d.capability is cap


@pytest.mark.parametrize("mode, cap, verdict", CELLS, ids=[f"{m}-{c}" for m, c, _ in CELLS])
def test_matrix_cell_with_an_approver(mode, cap, verdict):
    shown = []

    def approver(prompt):
        shown.append(prompt)
        return DecisionKind.ALLOW_ONCE

    d = decide(mode, cap, approver=approver)
    assert bool(shown) is (verdict == "ask")
    if verdict == "deny":
        assert d.kind is DecisionKind.DENY and not d.allowed()
    elif verdict == "ask":
        assert d.kind is DecisionKind.ALLOW_ONCE and d.asked
    else:
        assert d.kind is DecisionKind.ALLOW and not d.asked


@pytest.mark.parametrize("mode, cap, verdict", CELLS, ids=[f"{m}-{c}" for m, c, _ in CELLS])
def test_matrix_ask_without_approver_is_deny_with_what_is_needed(mode, cap, verdict):
    d = decide(mode, cap)
    if verdict == "ask":
        assert d.kind is DecisionKind.DENY
        assert d.reason.startswith("needs approval:")
        assert f"{cap} needs approval in {mode} mode" in d.reason
        assert "--mode" in d.reason
        assert d.source == "no_approver"
    else:
        assert d.verdict == verdict


@pytest.mark.parametrize("cap", [C.EXEC, C.NETWORK, C.UNKNOWN, C.HOOK])
def test_without_sandbox_trust_asks_for_side_effects(cap):
    d = decide("trust", cap, ask_as_deny=False, sandboxed=False)
    assert d.verdict == "ask" and "without a sandbox" in d.reason


@pytest.mark.parametrize("cap", [C.READ, C.INTERNAL, C.WRITE])
def test_without_sandbox_trust_still_allows_reads_and_edits(cap):
    assert decide("trust", cap, sandboxed=False).verdict == "allow"


def test_without_sandbox_other_modes_unchanged():
    for mode, cap, verdict in CELLS:
        if mode != "trust":
            assert decide(mode, cap, ask_as_deny=False, sandboxed=False).verdict == verdict


@pytest.mark.parametrize("text, mode", [
    ("strict", Mode.STRICT), ("balanced", Mode.BALANCED), ("accept-edits", Mode.AUTO),
    ("accept_edits", Mode.AUTO), ("auto", Mode.AUTO), ("trust", Mode.TRUST),
    (" Trust ", Mode.TRUST), (Mode.STRICT, Mode.STRICT),
])
def test_parse_mode(text, mode):
    assert parse_mode(text) is mode


def test_there_is_no_accept_edits_member():
    assert not hasattr(Mode, "ACCEPT_EDITS")
    assert [m.value for m in Mode] == ["strict", "balanced", "auto", "trust"]


@pytest.mark.parametrize("bad", ["", "yolo", "acceptedit", "plan"])
def test_parse_mode_rejects(bad):
    with pytest.raises(ValueError, match="unknown mode"):
        parse_mode(bad)


def test_set_mode_changes_the_matrix():
    engine = Engine("/tmp/ws", "strict", ask_as_deny=False)
    req = Request(tool_name="t", metadata=Metadata(C.EXEC, key="k"))
    assert engine.decide(req).verdict == "deny"
    engine.set_mode("accept-edits")
    assert engine.mode is Mode.AUTO and engine.decide(req).verdict == "ask"


def test_decision_allowed_for_the_four_allow_kinds():
    for kind in DecisionKind:
        assert Decision(kind, "").allowed() is (kind in {
            DecisionKind.ALLOW, DecisionKind.ALLOW_ONCE, DecisionKind.ALLOW_SESSION,
            DecisionKind.ALLOW_ALWAYS})
