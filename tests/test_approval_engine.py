"""The harness (SPEC §5): live cwd, the plan-exit branch, the dangerous-path branch, delegation,
the tool gate, hook / slash-command entries, and what an unanswerable ask says."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from shellgate.approval import PLAN_DENIED, CallContext, Engine, scripted
from shellgate.gate import GateRequest, ToolCall, run_tool
from shellgate.permission import (
    LIMITED_CHOICES,
    Approval,
    Capability,
    DecisionKind,
    Metadata,
    Request,
    RuleSet,
    Store,
)

A = DecisionKind


@pytest.fixture
def ws(tmp_path):
    d = tmp_path / "ws"
    d.mkdir()
    return d


@pytest.fixture
def home(tmp_path):
    h = tmp_path / "home"
    (h / ".ssh").mkdir(parents=True)
    (h / ".ssh" / "id_rsa").write_text("secret")
    return h


def call(name, **args):
    return Request(tool_id="toolu_1", tool_name=name, args=args)


def audit_lines(path):
    return [json.loads(x) for x in path.read_text().splitlines()]


# -- delegation ---------------------------------------------------------------------------------

def test_read_only_bash_is_read_and_allowed_in_strict(ws, home):
    e = Engine(ws, "strict", home=home)
    d = e.decide(call("bash", command="ls -la"))
    assert d.kind is A.ALLOW and d.capability is Capability.READ and d.rule == "chain.mode_matrix"


def test_bash_exec_asks_in_balanced_and_check_can_report_ask(ws, home):
    d = Engine(ws, "balanced", home=home, ask_as_deny=False).decide_bash("npm test")
    assert d.kind is A.ASK and d.verdict == "ask" and d.capability is Capability.EXEC


def test_no_approver_reason_says_what_approval_is_needed(ws, home):
    d = Engine(ws, "balanced", home=home).decide_bash("npm test --watch")
    assert d.kind is A.DENY and d.source == "no_approver"
    assert d.reason.startswith("needs approval: bash: npm test --watch")
    assert "exec needs approval in balanced mode" in d.reason
    assert '"Bash(npm test *)"' in d.reason and "--mode trust" in d.reason


def test_strict_denies_exec_without_asking(ws, home):
    ap = scripted(A.ALLOW_ONCE)
    d = Engine(ws, "strict", ap, home=home).decide_bash("npm test")
    assert d.kind is A.DENY and not ap.prompts and "not allowed in strict mode" in d.reason


def test_network_bash(ws, home):
    d = Engine(ws, "auto", home=home, ask_as_deny=False).decide_bash("curl https://example.com")
    assert d.capability is Capability.NETWORK and d.verdict == "ask"


def test_unparsed_bash_is_exec_and_never_allowed_by_itself(ws, home):
    e = Engine(ws, "auto", home=home, ask_as_deny=False, rules=RuleSet.parse(allow=["Bash(*)"]))
    d = e.decide_bash("echo 'unterminated")
    assert d.capability is Capability.EXEC and d.verdict == "ask"


def test_destructive_warnings_reach_the_prompt_in_every_mode(ws, home):
    ap = scripted(A.ALLOW_ONCE)
    e = Engine(ws, "balanced", ap, home=home)
    d = e.decide_bash("git reset --hard")
    assert d.kind is A.ALLOW_ONCE
    assert "may discard uncommitted changes" in ap.prompts[0].warnings
    e.set_mode("trust")
    d = e.decide_bash("git reset --hard")
    assert d.kind is A.ALLOW and "may discard uncommitted changes" in d.warnings


# -- branch: live cwd ---------------------------------------------------------------------------

def _git(*args, cwd):
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, timeout=60)


@pytest.fixture
def worktree(tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git("init", "-q", cwd=repo)
    _git("commit", "-q", "--allow-empty", "-m", "init", cwd=repo)
    _git("worktree", "add", "-q", str(tmp_path / "wt"), cwd=repo)
    return repo, tmp_path / "wt"


def test_live_worktree_wins_over_startup_cwd(worktree, home, tmp_path):
    repo, wt = worktree
    e = Engine(repo, "auto", home=home, ask_as_deny=False, audit=tmp_path / "a.jsonl")
    target = call("write", file_path=str(wt / "notes.txt"), content="x")
    assert e.decide(target).rule == "chain.outside_roots"          # boot cwd: outside
    d = e.decide(target, CallContext(cwd=str(wt / "sub"), session_id="s1", tool_use_id="tu9"))
    assert d.kind is A.ALLOW and d.rule == "chain.mode_matrix"      # live worktree: inside
    assert e.where(CallContext(cwd=str(wt / "sub"))) == (str(wt), str(wt / "sub"))
    line = audit_lines(tmp_path / "a.jsonl")[-1]
    assert (line["workspace"], line["cwd"]) == (str(wt), str(wt / "sub"))
    assert (line["session_id"], line["tool_use_id"]) == ("s1", "toolu_1")


def test_live_cwd_outside_the_repository_does_not_widen_the_workspace(worktree, home, tmp_path):
    repo, _ = worktree
    other = tmp_path / "elsewhere"
    other.mkdir()
    e = Engine(repo, "auto", home=home, ask_as_deny=False)
    assert e.where({"cwd": str(other)}) == (str(repo), str(other))
    d = e.decide(call("write", file_path="f.txt"), {"cwd": str(other)})
    assert d.rule == "chain.outside_roots"


def test_live_cwd_resolves_relative_paths_for_the_dangerous_check(ws, home):
    (home / ".aws").mkdir()
    e = Engine(ws, "trust", home=home, ask_as_deny=False)
    assert e.decide_bash("cat credentials").kind is A.ALLOW
    d = e.decide_bash("cat credentials", CallContext(cwd=str(home / ".aws")))
    assert d.rule == "approval.dangerous_path" and d.kind is A.ASK


def test_tool_use_id_from_context(ws, home, tmp_path):
    e = Engine(ws, "trust", home=home, audit=tmp_path / "a.jsonl", session_id="boot")
    e.decide(Request(tool_name="read", args={"file_path": "x"}), CallContext(tool_use_id="tu7"))
    line = audit_lines(tmp_path / "a.jsonl")[-1]
    assert (line["tool_use_id"], line["session_id"]) == ("tu7", "boot")


# -- branch: exit_plan_mode in plan mode --------------------------------------------------------

PLAN_ARGS = {"allowed_prompts": [{"tool": "Bash", "prompt": "run the test suite"}, "edit src/app.py"]}


def test_plan_exit_shows_plan_and_follow_up_actions(ws, home, tmp_path):
    ap = scripted(A.ALLOW_ALWAYS)
    e = Engine(ws, "balanced", ap, home=home, audit=tmp_path / "a.jsonl")
    e.set_plan_mode(True)
    e.set_plan_content_provider(lambda: "1. refactor the parser\n2. add tests")
    d = e.decide(Request(tool_name="exit_plan_mode", args=PLAN_ARGS))
    assert d.allowed() and d.rule == "approval.plan_exit" and not e.plan_mode()
    (prompt,) = ap.prompts
    assert "1. refactor the parser" in prompt.preview
    assert "- Bash: run the test suite" in prompt.preview and "- edit src/app.py" in prompt.preview
    assert prompt.choices == LIMITED_CHOICES
    assert audit_lines(tmp_path / "a.jsonl")[-1]["rule"] == "approval.plan_exit"


def test_plan_exit_denied_feeds_back_and_stays_in_plan_mode(ws, home):
    e = Engine(ws, "trust", scripted(A.DENY), home=home)
    e.set_plan_mode(True)
    d = e.decide(Request(tool_name="ExitPlanMode", args={"plan": "do it"}))
    assert d.kind is A.DENY and d.reason == PLAN_DENIED
    assert PLAN_DENIED == "user denied plan; refine and call exit_plan_mode again"
    assert e.plan_mode()


def test_plan_exit_uses_the_plan_argument_without_provider(ws, home):
    ap = scripted(A.ALLOW_ONCE)
    e = Engine(ws, "balanced", ap, home=home)
    e.set_plan_mode(True)
    e.decide(Request(tool_name="exit_plan_mode", args={"plan": "the plan text"}))
    assert ap.prompts[0].preview.startswith("the plan text")


def test_plan_exit_without_approver_allows(ws, home):
    e = Engine(ws, "strict", home=home)
    e.set_plan_mode(True)
    assert e.decide(call("exit_plan_mode")).allowed() and not e.plan_mode()


def test_exit_plan_mode_outside_plan_mode_is_an_internal_tool(ws, home):
    ap = scripted(A.DENY)
    d = Engine(ws, "strict", ap, home=home).decide(call("exit_plan_mode"))
    assert d.kind is A.ALLOW and d.rule == "chain.mode_matrix" and not ap.prompts


def test_plan_mode_blocks_writes_and_exec_but_not_reads(ws, home):
    e = Engine(ws, "trust", home=home)
    e.set_plan_mode(True)
    assert e.decide_bash("npm test").rule == "chain.plan_mode"
    assert e.decide(call("write", file_path="a.txt")).rule == "chain.plan_mode"
    assert e.decide_bash("ls").allowed()
    assert e.decide(call("ask_user", question="?")).allowed()


# -- branch: dangerous paths --------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["strict", "balanced", "auto", "trust"])
def test_dangerous_read_forces_allow_once_prompt_in_every_mode(ws, home, mode, tmp_path):
    ap = scripted(A.ALLOW_ALWAYS)
    e = Engine(ws, mode, ap, store=tmp_path / "s.json", home=home,
               filesystem_roots=[home])   # so that only the dangerous branch can ask
    d = e.decide(call("read", file_path="~/.ssh/id_rsa"))
    assert d.kind is A.ALLOW_ONCE and d.rule == "approval.dangerous_path" and d.asked
    assert ap.prompts[0].choices == LIMITED_CHOICES
    assert "secret" in ap.prompts[0].reason
    assert not (tmp_path / "s.json").exists() and not e.tool.session_approvals


def test_dangerous_path_without_approver_denies(ws, home):
    d = Engine(ws, "trust", home=home).decide_bash("cat ~/.ssh/id_rsa")
    assert d.kind is A.DENY and d.rule == "approval.dangerous_path"
    assert "sensitive path" in d.reason and str(home / ".ssh/id_rsa") in d.reason


def test_dangerous_bash_read_is_not_hidden_by_read_only_cat(ws, home):
    ap = scripted(A.DENY)
    d = Engine(ws, "trust", ap, home=home).decide_bash("cat ~/.ssh/id_rsa")
    assert d.kind is A.DENY and d.source == "user_reject" and len(ap.prompts) == 1


def test_dangerous_path_bypasses_stored_approvals_and_allow_rules(ws, home, tmp_path):
    store = Store(tmp_path / "s.json")
    store.add([Approval("bash", ("cat",), True, workspace=str(ws)),
               Approval("read", key=f"read:{home}/.ssh/id_rsa", workspace=str(ws))])
    e = Engine(ws, "trust", store=store, home=home, ask_as_deny=False,
               rules=RuleSet.parse(allow=["Bash(cat *)", "Read(~/**)"]))
    assert e.decide_bash("cat ~/.ssh/id_rsa").kind is A.ASK
    assert e.decide(call("read", file_path=str(home / ".ssh/id_rsa"))).kind is A.ASK
    assert e.decide_bash("cat README").kind is A.ALLOW


def test_deny_rule_wins_over_the_forced_prompt(ws, home):
    ap = scripted(A.ALLOW_ONCE)
    e = Engine(ws, "trust", ap, home=home, rules=RuleSet.parse(deny=["Read(~/.ssh/**)"]))
    d = e.decide(call("read", file_path="~/.ssh/id_rsa"))
    assert d.kind is A.DENY and d.rule == "chain.deny_rule" and not ap.prompts


def test_implant_paths_only_on_write(ws, home):
    e = Engine(ws, "trust", home=home, ask_as_deny=False)
    assert e.decide(call("read", file_path=".git/hooks/pre-commit")).kind is A.ALLOW
    d = e.decide(call("write", file_path=".git/hooks/pre-commit", content="x"))
    assert d.kind is A.ASK and d.rule == "approval.dangerous_path" and "runs code later" in d.reason
    assert e.decide_bash("echo x >> ~/.bashrc").rule == "approval.dangerous_path"


def test_dangerous_branch_is_skipped_in_plan_mode(ws, home):
    e = Engine(ws, "trust", home=home, ask_as_deny=False)
    e.set_plan_mode(True)
    d = e.decide(call("write", file_path=".git/hooks/pre-commit"))
    assert d.kind is A.DENY and d.rule == "chain.plan_mode"


# -- the tool gate and the pipeline -------------------------------------------------------------

class EchoTool:
    name = "echo_tool"

    def __init__(self, meta=None):
        self.meta, self.ran = meta, []

    def permission_metadata(self):
        return self.meta

    def execute(self, args, ctx):
        self.ran.append(args)
        return f"ran {args}"


def test_as_tool_gate_denies_with_reason_and_pipeline_feeds_it_back(ws, home):
    gate = Engine(ws, "strict", home=home).as_tool_gate()
    tool = EchoTool(Metadata(Capability.EXEC, key="echo", summary="echo tool"))
    res = run_tool(tool, ToolCall("c1", "echo_tool", {"x": 1}), gate, CallContext(cwd=str(ws)))
    assert res.is_error and res.stage == "gate" and "not allowed in strict mode" in res.content
    assert tool.ran == []


def test_tool_metadata_overrides_default_classification(ws, home):
    gate = Engine(ws, "strict", home=home).as_tool_gate()
    tool = EchoTool(Metadata(Capability.READ, key="echo"))
    d = gate(None, GateRequest(ToolCall("c1", "echo_tool", {}), tool))
    assert d.allowed and d.reason == ""
    plain = gate(None, GateRequest(ToolCall("c2", "echo_tool", {}), object()))
    assert not plain.allowed   # unknown tool in strict: deny


def test_metadata_as_mapping_and_broken_hook(ws, home):
    gate = Engine(ws, "strict", home=home).as_tool_gate()

    class Dicty:
        def permission_metadata(self):
            return {"capability": "read", "key": "d"}

    class Broken:
        def permission_metadata(self):
            raise RuntimeError("nope")

    assert gate(None, GateRequest(ToolCall("c", "dicty", {}), Dicty())).allowed
    assert not gate(None, GateRequest(ToolCall("c", "broken", {}), Broken())).allowed


def test_gate_allows_and_pipeline_executes(ws, home):
    tool = EchoTool()
    res = run_tool(tool, ToolCall("c1", "read", {"file_path": "a.txt"}),
                   Engine(ws, "strict", home=home).as_tool_gate())
    assert not res.is_error and tool.ran == [{"file_path": "a.txt"}]


# -- hooks and slash commands -------------------------------------------------------------------

def test_approve_hook(ws, home, tmp_path):
    store = tmp_path / "s.json"
    e = Engine(ws, "balanced", scripted(A.ALLOW_ALWAYS), store=store, home=home,
               audit=tmp_path / "a.jsonl")
    d = e.approve_hook("./scripts/lint.sh --fix", event="PostToolUse")
    assert d.kind is A.ALLOW_ALWAYS and d.capability is Capability.HOOK
    again = Engine(ws, "balanced", store=store, home=home).approve_hook("./scripts/lint.sh --fix")
    assert again.allowed() and again.rule == "chain.stored_approval"
    assert Engine(ws, "strict", home=home).approve_hook("x").kind is A.DENY
    assert Engine(ws, "trust", home=home).approve_hook("x").allowed()
    ruled = Engine(ws, "balanced", home=home, rules=RuleSet.parse(deny=["Hook(curl *)"]))
    assert ruled.approve_hook("curl x | sh").rule == "chain.deny_rule"
    assert audit_lines(tmp_path / "a.jsonl")[0]["tool"] == "hook"


def test_approve_command(ws, home):
    e = Engine(ws, "balanced", home=home, rules=RuleSet.parse(allow=["SlashCommand(/review *)"]))
    assert e.approve_command("/review src").allowed()
    assert e.approve_command("/deploy prod").kind is A.DENY
    assert Engine(ws, "strict", home=home).approve_command(
        "/help", capability=Capability.INTERNAL).allowed()


# -- forwarding ---------------------------------------------------------------------------------

def test_forwarded_state(ws, home):
    e = Engine(ws, "balanced", home=home, ask_as_deny=False)
    e.set_mode("trust")
    assert e.mode == "trust" and e.tool.mode == "trust"
    e.set_filesystem_roots([str(home)])
    assert e.tool.filesystem_roots == (str(home),)
    e.set_skill_allows(["Bash(make *)"])
    e.set_mode("strict")
    assert e.decide_bash("make test").rule == "chain.skill_allow"
    e.set_approver(scripted(A.ALLOW_ONCE))
    assert e.approver is not None
    e.set_plan_mode(True)
    assert e.plan_mode() and e.tool.plan_mode()


def test_decide_never_raises(ws, home):
    e = Engine(ws, "trust", home=home)
    for weird in [Request(tool_name="bash", args={"command": None}), Request(tool_name="read", args=None),
                  Request(tool_name="", args={"file_path": 42}), Request(tool_name="bash", args="x")]:
        d = e.decide(weird)
        assert d.kind in set(A)
