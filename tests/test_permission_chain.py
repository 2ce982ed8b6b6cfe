"""The seven steps of the kernel chain (SPEC §4), each alone, in order, and which step decided."""

from __future__ import annotations

import pytest
from _helpers import Approver

from shellgate.permission import (
    LIMITED_CHOICES,
    Capability,
    DecisionKind,
    Engine,
    Metadata,
    PathAccess,
    PathOp,
    Request,
    RuleSet,
)
from shellgate.permission.engine import Ask, Call

C = Capability
W, R = PathOp.WRITE, PathOp.READ


def req(cap=C.EXEC, *, tool="tool", command=None, paths=(), complete=True, key="k", **kw):
    meta = Metadata(cap, key=key, summary=f"{tool} call", command=command,
                    paths=tuple(PathAccess(p, op) for p, op in paths), paths_complete=complete, **kw)
    return Request(tool_id="tu_1", tool_name=tool, metadata=meta)


@pytest.fixture
def ws(tmp_path):
    d = tmp_path / "ws"
    d.mkdir()
    return d


# -- the chain is a visible chain ---------------------------------------------------------------

def test_chain_order_is_the_spec_order(ws):
    """SPEC §4's seven steps; the never table joins the hard denies, before anything allows."""
    e = Engine(ws)
    assert [s.__name__ for s in e._steps] == [
        "_out_of_bounds", "_deny_rules", "_never", "_plan_gate", "_internal_paths", "_outside_roots",
        "_allows", "_mode_matrix"]


def test_each_step_is_testable_alone(ws):
    e = Engine(ws, rules=RuleSet.parse(deny=["Bash(rm *)"]))
    call = Call(e, req(tool="bash", command="rm x"), req(tool="bash", command="rm x").metadata)
    assert e._out_of_bounds(call) is None
    assert e._deny_rules(call).rule == "chain.deny_rule"
    assert e._plan_gate(call) is None
    assert isinstance(e._mode_matrix(call), Ask)


# -- 1. out of bounds ---------------------------------------------------------------------------

def test_write_into_readonly_root_is_hard_deny_even_in_trust(ws, tmp_path):
    ro = tmp_path / "ro"
    e = Engine(ws, "trust", readonly_roots=[ro], approver=Approver(),
               rules=RuleSet.parse(allow=["Edit(//**)"]))
    d = e.decide(req(C.WRITE, tool="write", paths=[(str(ro / "f.txt"), W)]))
    assert d.kind is DecisionKind.DENY and d.rule == "chain.out_of_bounds"
    assert "read-only" in d.reason and not d.asked


def test_readonly_internal_dir_is_out_of_bounds(ws):
    e = Engine(ws, "trust", readonly_internal_dirs=[ws / ".agent" / "skills"])
    d = e.decide(req(C.WRITE, paths=[(str(ws / ".agent/skills/x.md"), W)]))
    assert d.rule == "chain.out_of_bounds"


def test_reading_a_readonly_root_is_fine(ws, tmp_path):
    ro = tmp_path / "ro"
    d = Engine(ws, "strict", readonly_roots=[ro]).decide(req(C.READ, paths=[(str(ro / "f"), R)]))
    assert d.kind is DecisionKind.ALLOW and d.rule == "chain.mode_matrix"


def test_out_of_bounds_sees_through_relative_paths(ws, tmp_path):
    (tmp_path / "ro").mkdir()
    e = Engine(ws, "trust", readonly_roots=[tmp_path / "ro"])
    d = e.decide(req(C.WRITE, paths=[("../ro/x", W)]))
    assert d.rule == "chain.out_of_bounds"


def test_out_of_bounds_beats_deny_rules(ws, tmp_path):
    e = Engine(ws, readonly_roots=[tmp_path / "ro"], rules=RuleSet.parse(deny=["Edit(//**)"]))
    assert e.decide(req(C.WRITE, paths=[(str(tmp_path / "ro/x"), W)])).rule == "chain.out_of_bounds"


# -- 2. deny rules ------------------------------------------------------------------------------

def test_deny_rule_beats_trust_allow_rules_and_stored_approvals(ws, tmp_path):
    from shellgate.permission import Approval, Store

    store = Store(tmp_path / "a.json")
    store.add([Approval("bash", ("rm",), True, workspace=str(ws))])
    e = Engine(ws, "trust", store=store,
               rules=RuleSet.parse(allow=["Bash(rm *)"], deny=["Bash(rm *)"]))
    d = e.decide(req(tool="bash", command="rm -rf build"))
    assert d.kind is DecisionKind.DENY and d.rule == "chain.deny_rule"
    assert d.matched == ("Bash(rm *)",) and "Bash(rm *)" in d.reason


def test_deny_rule_matches_inner_command_of_wrapper(ws):
    e = Engine(ws, "trust", rules=RuleSet.parse(deny=["Bash(rm *)"]))
    assert e.decide(req(tool="bash", command="sudo rm x")).rule == "chain.deny_rule"
    assert e.decide(req(tool="bash", command="echo rm x")).kind is DecisionKind.ALLOW


def test_deny_rule_still_matches_what_an_unparsed_script_showed(ws):
    e = Engine(ws, "trust", rules=RuleSet.parse(deny=["Bash(rm *)"]))
    d = e.decide(req(tool="bash", command="rm -rf x; echo 'unterminated"))
    assert d.kind is DecisionKind.DENY


def test_deny_path_rule_applies_to_any_tool_paths(ws, tmp_path):
    home = tmp_path / "home"
    e = Engine(ws, "trust", home=home, rules=RuleSet.parse(deny=["Read(~/.ssh/**)"]))
    d = e.decide(req(tool="bash", command="cat ~/.ssh/id_rsa", paths=[("~/.ssh/id_rsa", R)],
                     complete=False))
    assert d.rule == "chain.deny_rule"


def test_deny_rule_beats_plan_mode_allow_list(ws):
    e = Engine(ws, plan_mode_allowed_tools=["bash"], rules=RuleSet.parse(deny=["Bash(curl *)"]))
    e.set_plan_mode(True)
    assert e.decide(req(tool="bash", command="curl x")).rule == "chain.deny_rule"
    assert e.decide(req(tool="bash", command="ls")).rule == "chain.plan_mode"


def test_deny_rule_for_whole_tool(ws):
    e = Engine(ws, "trust", rules=RuleSet.parse(deny=["WebFetch"]))
    assert e.decide(req(C.READ, tool="web_fetch")).rule == "chain.deny_rule"
    assert e.decide(req(C.READ, tool="web_search")).kind is DecisionKind.ALLOW


# -- 3. plan mode -------------------------------------------------------------------------------

@pytest.mark.parametrize("cap", [C.WRITE, C.EXEC, C.NETWORK, C.UNKNOWN, C.HOOK])
def test_plan_mode_denies_side_effects_in_every_mode(ws, cap):
    e = Engine(ws, "trust", approver=Approver())
    e.set_plan_mode(True)
    d = e.decide(req(cap))
    assert d.kind is DecisionKind.DENY and d.rule == "chain.plan_mode"
    assert "plan mode is read-only" in d.reason


@pytest.mark.parametrize("cap", [C.READ, C.INTERNAL])
def test_plan_mode_lets_reads_through_to_the_matrix(ws, cap):
    e = Engine(ws, "strict")
    e.set_plan_mode(True)
    d = e.decide(req(cap))
    assert d.kind is DecisionKind.ALLOW and d.rule == "chain.mode_matrix"


def test_plan_mode_allow_list_and_exec_switch(ws):
    e = Engine(ws, "strict", plan_mode_allowed_tools=["AskUser"])
    e.set_plan_mode(True)
    assert e.decide(req(C.UNKNOWN, tool="ask_user")).rule == "chain.plan_mode"
    assert e.decide(req(C.UNKNOWN, tool="ask_user")).kind is DecisionKind.ALLOW
    assert e.decide(req(C.EXEC)).kind is DecisionKind.DENY
    e2 = Engine(ws, "strict", plan_mode_exec_allowed=True)
    e2.set_plan_mode(True)
    d = e2.decide(req(C.EXEC))
    assert d.kind is DecisionKind.ALLOW and d.rule == "chain.plan_mode"
    assert e2.decide(req(C.NETWORK)).kind is DecisionKind.DENY


def test_plan_mode_off_again(ws):
    e = Engine(ws, "trust")
    e.set_plan_mode(True)
    assert e.plan_mode() and e.decide(req(C.WRITE)).kind is DecisionKind.DENY
    e.set_plan_mode(False)
    assert e.decide(req(C.WRITE)).kind is DecisionKind.ALLOW


# -- 4. internal paths --------------------------------------------------------------------------

def test_internal_paths_allow_silently_in_strict(ws, tmp_path):
    mem = tmp_path / "agent-memory"
    e = Engine(ws, "strict", internal_dirs=[mem], approver=Approver(DecisionKind.DENY))
    d = e.decide(req(C.WRITE, paths=[(str(mem / "notes.md"), W)]))
    assert d.kind is DecisionKind.ALLOW and d.rule == "chain.internal_path" and not d.asked


def test_internal_paths_need_every_path_inside_and_a_complete_list(ws, tmp_path):
    mem = tmp_path / "mem"
    e = Engine(ws, "strict", internal_dirs=[mem], ask_as_deny=False)
    mixed = req(C.WRITE, paths=[(str(mem / "a"), W), (str(ws / "b"), W)])
    assert e.decide(mixed).rule == "chain.mode_matrix"
    partial = req(C.WRITE, paths=[(str(mem / "a"), W)], complete=False)
    assert e.decide(partial).rule == "chain.mode_matrix"


def test_internal_path_through_a_symlink_out_is_not_internal(ws, tmp_path):
    mem = tmp_path / "mem"
    mem.mkdir()
    (mem / "link").symlink_to(tmp_path / "elsewhere")
    e = Engine(ws, "strict", internal_dirs=[mem], ask_as_deny=False)
    d = e.decide(req(C.WRITE, paths=[(str(mem / "link" / "x"), W)]))
    assert d.rule != "chain.internal_path"


# -- 5. outside roots ---------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["strict", "balanced", "auto", "trust"])
def test_outside_roots_asks_in_every_mode(ws, tmp_path, mode):
    e = Engine(ws, mode, ask_as_deny=False)
    d = e.decide(req(C.WRITE, paths=[(str(tmp_path / "other" / "f"), W)]))
    assert d.kind is DecisionKind.ASK and d.rule == "chain.outside_roots"


@pytest.mark.parametrize("mode", ["strict", "balanced", "auto", "trust"])
def test_a_read_outside_the_roots_is_not_bounded(ws, tmp_path, mode):
    """Reads are the sensitive-path table's to judge (BOUNDED_OPS), for a file tool as for
    bash: the harness asks about a secret before the kernel is reached."""
    e = Engine(ws, mode, ask_as_deny=False)
    d = e.decide(req(C.READ, paths=[("/etc/hosts", R)]))
    assert d.kind is DecisionKind.ALLOW and d.rule == "chain.mode_matrix"


@pytest.mark.parametrize("answer", [DecisionKind.ALLOW_ALWAYS, DecisionKind.ALLOW_SESSION,
                                    DecisionKind.ALLOW_ONCE])
def test_outside_roots_answer_is_downgraded_to_allow_once(ws, tmp_path, answer):
    ap = Approver(answer)
    e = Engine(ws, "trust", approver=ap, store=tmp_path / "store.json")
    r = req(C.WRITE, tool="write", paths=[(str(tmp_path / "other" / "f"), W)], key="write:f")
    d = e.decide(r)
    assert d.kind is DecisionKind.ALLOW_ONCE and d.rule == "chain.outside_roots" and d.asked
    assert ap.prompts[0].choices == LIMITED_CHOICES
    assert not (tmp_path / "store.json").exists() and not e.session_approvals
    assert len(e.decide(r).reason) and len(ap.prompts) == 2  # asked again next time


def test_outside_roots_without_approver_says_how_to_fix(ws, tmp_path):
    d = Engine(ws).decide(req(C.WRITE, paths=[("/etc/hosts", W)]))
    assert d.kind is DecisionKind.DENY and "additional_directories" in d.reason


def test_filesystem_roots_and_symlinks(ws, tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    (ws / "out").symlink_to(other)
    e = Engine(ws, "trust", ask_as_deny=False)
    assert e.decide(req(C.WRITE, paths=[(str(ws / "out" / "f"), W)])).rule == "chain.outside_roots"
    e.set_filesystem_roots([other])
    assert e.filesystem_roots == (str(other),)
    assert e.decide(req(C.WRITE, paths=[(str(other / "f"), W)])).kind is DecisionKind.ALLOW


def test_live_workspace_of_the_request_is_the_root(ws, tmp_path):
    wt = tmp_path / "worktree"
    e = Engine(ws, "trust", ask_as_deny=False)
    r = req(C.WRITE, paths=[(str(wt / "f"), W)])
    assert e.decide(r).rule == "chain.outside_roots"
    from shellgate._record import replace

    assert e.decide(replace(r, workspace=str(wt))).kind is DecisionKind.ALLOW


def test_outside_roots_beats_allow_rules(ws):
    e = Engine(ws, "trust", ask_as_deny=False, rules=RuleSet.parse(allow=["Write(//**)"]))
    assert e.decide(req(C.WRITE, tool="write", paths=[("/etc/hosts", W)])).rule == "chain.outside_roots"


# -- 6. ask rules, skill allows, stored approvals, allow rules ----------------------------------

def test_ask_rule_asks_even_in_trust(ws):
    e = Engine(ws, "trust", ask_as_deny=False, rules=RuleSet.parse(
        ask=["Bash(git push *)"], allow=["Bash(git push *)"]))
    d = e.decide(req(tool="bash", command="git push origin main"))
    assert d.kind is DecisionKind.ASK and d.rule == "chain.ask_rule"
    assert d.matched == ("Bash(git push *)",)


@pytest.mark.parametrize("mode, allow, expected", [
    ("strict", [], ("deny", "chain.mode_matrix")),                 # never loosened to a question
    ("strict", ["Bash(curl *)"], ("ask", "chain.ask_rule")),       # still vetoes the allow
    ("balanced", [], ("ask", "chain.ask_rule")),
    ("trust", [], ("ask", "chain.ask_rule")),
])
def test_ask_rule_only_tightens(ws, mode, allow, expected):
    e = Engine(ws, mode, ask_as_deny=False, approver=Approver(DecisionKind.ALLOW_ALWAYS),
               rules=RuleSet.parse(ask=["Bash(curl *)"], allow=allow))
    e.set_approver(None)
    d = e.decide(req(C.NETWORK, tool="bash", command="curl https://example.com"))
    assert (d.verdict, d.rule) == expected
    assert d.matched == ("Bash(curl *)",)
    if expected[0] == "deny":
        assert "never loosens" in d.reason
        # with an approver there is no prompt to answer
        approver = Approver(DecisionKind.ALLOW_ALWAYS)
        e.set_approver(approver)
        assert e.decide(req(C.NETWORK, tool="bash", command="curl x")).verdict == "deny"
        assert approver.prompts == []


def test_untrusted_allows_never_allow_but_are_named(ws):
    from shellgate.permission import parse_rule

    rule = parse_rule("Bash(npm test *)", source="/p/.shellgate/config.toml")
    e = Engine(ws, "balanced", ask_as_deny=False, untrusted_allows=[rule])
    d = e.decide(req(tool="bash", command="npm test"))
    assert (d.verdict, d.rule) == ("ask", "chain.mode_matrix")
    assert "Bash(npm test *) in /p/.shellgate/config.toml would allow it" in d.reason
    assert "would allow" not in e.decide(req(tool="bash", command="npm test; make")).reason
    e.set_mode("strict")
    d = e.decide(req(tool="bash", command="npm test"))
    assert d.verdict == "deny" and "would allow it" in d.reason


def test_deny_beats_ask_beats_allow(ws):
    rules = RuleSet.parse(allow=["Bash(git *)"], ask=["Bash(git push *)"], deny=["Bash(git push --force *)"])
    e = Engine(ws, "balanced", rules=rules, ask_as_deny=False)
    assert e.decide(req(tool="bash", command="git push --force x")).rule == "chain.deny_rule"
    assert e.decide(req(tool="bash", command="git push x")).rule == "chain.ask_rule"
    assert e.decide(req(tool="bash", command="git log")).rule == "chain.allow_rule"


def test_skill_allows(ws):
    e = Engine(ws, "strict")
    e.set_skill_allows(["Bash(make test *)"])
    d = e.decide(req(tool="bash", command="make test"))
    assert d.kind is DecisionKind.ALLOW and d.rule == "chain.skill_allow" and d.source == "skill"
    assert e.decide(req(tool="bash", command="make deploy")).kind is DecisionKind.DENY
    e.set_skill_allows([])
    assert e.decide(req(tool="bash", command="make test")).kind is DecisionKind.DENY


def test_allow_rule_beats_strict_deny_in_the_matrix(ws):
    e = Engine(ws, "strict", rules=RuleSet.parse(allow=["Bash(npm test *)"]))
    d = e.decide(req(tool="bash", command="npm test --watch"))
    assert d.kind is DecisionKind.ALLOW and d.rule == "chain.allow_rule" and d.source == "rule"
    d2 = e.decide(req(tool="bash", command="npm test; curl x"))
    assert d2.kind is DecisionKind.DENY and d2.rule == "chain.mode_matrix"


def test_allow_rule_and_read_only_sub_commands(ws):
    e = Engine(ws, "strict", rules=RuleSet.parse(allow=["Bash(npm test *)"]))
    piped = "npm test | grep FAIL"
    assert e.decide(req(tool="bash", command=piped)).kind is DecisionKind.DENY
    d = e.decide(req(tool="bash", command=piped, readonly_commands=frozenset({1})))
    assert d.kind is DecisionKind.ALLOW and d.rule == "chain.allow_rule"


def test_allow_rule_never_matches_unparsed_script(ws):
    e = Engine(ws, "strict", rules=RuleSet.parse(allow=["Bash(*)"]))
    assert e.decide(req(tool="bash", command="echo 'unterminated")).kind is DecisionKind.DENY


def test_allow_rule_for_non_command_calls(ws):
    rules = RuleSet.parse(allow=["Edit(src/**)", "WebFetch(domain:docs.python.org)", "mcp__db__query"])
    e = Engine(ws, "strict", rules=rules, ask_as_deny=False)
    d = e.decide(req(C.WRITE, tool="edit", paths=[(str(ws / "src/a.py"), W)]))
    assert d.rule == "chain.allow_rule"
    assert e.decide(req(C.WRITE, tool="edit", paths=[(str(ws / "docs/a.md"), W)])).verdict == "ask"
    assert e.decide(req(C.NETWORK, tool="WebFetch", hosts=("docs.python.org",))).verdict == "allow"
    assert e.decide(req(C.NETWORK, tool="WebFetch", hosts=("evil.org",))).verdict == "deny"
    assert e.decide(req(C.UNKNOWN, tool="mcp__db__query")).verdict == "allow"


def test_which_allow_source_decided(ws, tmp_path):
    from shellgate.permission import Approval, Store

    store = Store(tmp_path / "s.json")
    store.add([Approval("bash", ("make",), True, workspace=str(ws))])
    e = Engine(ws, "strict", store=store, rules=RuleSet.parse(allow=["Bash(npm test *)"]))
    e.set_skill_allows(["Bash(cargo test *)"])
    both = e.decide(req(tool="bash", command="make && npm test"))
    assert both.kind is DecisionKind.ALLOW and both.rule == "chain.stored_approval"
    assert set(both.matched) == {"make *", "Bash(npm test *)"}
    assert e.decide(req(tool="bash", command="cargo test")).rule == "chain.skill_allow"


# -- 7. mode matrix: see test_permission_modes.py -------------------------------------------------

def test_unclassified_request_is_unknown(ws):
    d = Engine(ws, "balanced", ask_as_deny=False).decide(Request(tool_name="mystery"))
    assert d.capability is C.UNKNOWN and d.verdict == "ask"


def test_kernel_classifier_fills_missing_metadata(ws):
    e = Engine(ws, "strict", classifier=lambda r: Metadata(C.READ, key=r.tool_name))
    assert e.decide(Request(tool_name="x")).kind is DecisionKind.ALLOW


# -- asking -------------------------------------------------------------------------------------

def test_prompt_carries_summary_preview_warnings_and_choices(ws):
    ap = Approver(DecisionKind.DENY)
    e = Engine(ws, "balanced", approver=ap)
    r = Request(tool_name="bash", preview="$ rm -rf build", metadata=Metadata(
        C.EXEC, key="exec:rm", summary="bash: rm -rf build", command="rm -rf build",
        warnings=("deletes files recursively",)))
    d = e.decide(r)
    assert d.kind is DecisionKind.DENY and d.source == "user_reject" and d.asked
    p = ap.prompts[0]
    assert (p.tool, p.summary, p.preview) == ("bash", "bash: rm -rf build", "$ rm -rf build")
    assert p.warnings == ("deletes files recursively",)
    assert p.choices == (DecisionKind.ALLOW_ONCE, DecisionKind.ALLOW_SESSION,
                         DecisionKind.ALLOW_ALWAYS, DecisionKind.DENY)
    assert p.remember == ("rm -rf build",)
    assert d.warnings == ("deletes files recursively",)


def test_approver_errors_and_junk_answers_deny(ws):
    def boom(prompt):
        raise RuntimeError("tty gone")

    d = Engine(ws, approver=boom).decide(req())
    assert d.kind is DecisionKind.DENY and "tty gone" in d.reason
    d = Engine(ws, approver=lambda p: "maybe").decide(req())
    assert d.kind is DecisionKind.DENY
    d = Engine(ws, approver=lambda p: DecisionKind.ASK).decide(req())
    assert d.kind is DecisionKind.DENY


def test_string_answers_are_accepted(ws):
    assert Engine(ws, approver=lambda p: "allow_once").decide(req()).kind is DecisionKind.ALLOW_ONCE


def test_session_approval_lasts_for_the_engine_only(ws):
    ap = Approver(DecisionKind.ALLOW_SESSION)
    e = Engine(ws, approver=ap)
    d = e.decide(req(tool="bash", command="cargo build"))
    assert d.kind is DecisionKind.ALLOW_SESSION
    e.set_approver(None)
    d2 = e.decide(req(tool="bash", command="cargo build -j4"))
    assert d2.kind is DecisionKind.ALLOW and d2.rule == "chain.stored_approval" and d2.source == "session"
    assert Engine(ws).decide(req(tool="bash", command="cargo build")).kind is DecisionKind.DENY


def test_always_without_store_is_kept_for_the_session(ws):
    e = Engine(ws, approver=Approver(DecisionKind.ALLOW_ALWAYS))
    d = e.decide(req(C.NETWORK, tool="web_fetch", key="web_fetch:x.org"))
    assert d.kind is DecisionKind.ALLOW_SESSION and "no approval store" in d.reason


def test_not_persistable_metadata_offers_allow_once_only(ws, tmp_path):
    ap = Approver(DecisionKind.ALLOW_ALWAYS)
    e = Engine(ws, approver=ap, store=tmp_path / "s.json")
    d = e.decide(req(persistable=False))
    assert d.kind is DecisionKind.ALLOW_ONCE and ap.prompts[0].choices == LIMITED_CHOICES
    assert not (tmp_path / "s.json").exists()


def test_internal_error_is_a_deny(ws):
    def bad_classifier(r):
        raise RuntimeError("boom")

    d = Engine(ws, classifier=bad_classifier).decide(Request(tool_name="x"))
    assert d.kind is DecisionKind.DENY and d.rule == "internal.error"


def test_precheck_only_runs_hard_denies(ws, tmp_path):
    e = Engine(ws, "strict", rules=RuleSet.parse(deny=["Bash(rm *)"]), readonly_roots=[tmp_path / "ro"])
    assert e.precheck(req(tool="bash", command="rm x")).rule == "chain.deny_rule"
    assert e.precheck(req(C.WRITE, paths=[(str(tmp_path / "ro/x"), W)])).rule == "chain.out_of_bounds"
    assert e.precheck(req(C.EXEC)) is None
