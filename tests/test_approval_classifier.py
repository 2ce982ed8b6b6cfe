"""Tool -> capability (SPEC §5): the five buckets, name spellings, bash effects, paths, keys."""

from __future__ import annotations

import pytest
from conftest import load

from shellgate.approval import classify, tool_name
from shellgate.approval.classifier import classify_bash
from shellgate.bash.facts import Context, PathOp
from shellgate.permission import Capability, Metadata, Request

C = Capability


def meta(name, ws="/w", **args):
    return classify(Request(tool_name=name, args=args), workspace=ws, cwd=ws, home="/h").metadata


@pytest.mark.parametrize("name, cap", [
    ("read", C.READ), ("Read", C.READ), ("glob", C.READ), ("Grep", C.READ), ("LS", C.READ),
    ("write", C.WRITE), ("Edit", C.WRITE), ("MultiEdit", C.WRITE), ("NotebookEdit", C.WRITE),
    ("web_fetch", C.READ), ("WebFetch", C.READ), ("WebSearch", C.READ),
    ("Skill", C.INTERNAL), ("ask_user", C.INTERNAL), ("task_create", C.INTERNAL),
    ("subagent", C.INTERNAL), ("ExitPlanMode", C.INTERNAL), ("TodoWrite", C.INTERNAL),
    ("mcp__github__create_issue", C.UNKNOWN), ("deploy", C.UNKNOWN),
])
def test_buckets(name, cap):
    assert meta(name).capability is cap


@pytest.mark.parametrize("raw, snake", [("WebFetch", "web_fetch"), ("LS", "ls"),
                                        ("exit-plan-mode", "exit_plan_mode"), ("bash", "bash")])
def test_tool_name(raw, snake):
    assert tool_name(raw) == snake


def test_file_tools_carry_their_paths():
    m = meta("edit", file_path="src/a.py")
    assert [(p.path, p.op) for p in m.paths] == [("src/a.py", PathOp.WRITE)]
    assert m.paths_complete and m.key == "edit:/w/src/a.py" and m.summary == "edit src/a.py"
    g = meta("grep", pattern="x")
    assert [(p.path, p.op) for p in g.paths] == [(".", PathOp.READ)]


def test_file_tool_without_path_is_not_remembered():
    assert not meta("write", content="x").persistable


def test_web_fetch_host_and_key():
    m = meta("web_fetch", url="https://Docs.Python.org/3/")
    assert m.hosts == ("docs.python.org",) and m.key == "web_fetch:docs.python.org"


def test_tool_hints_override_default():
    req = Request(tool_name="deploy", metadata=Metadata(C.NETWORK, key="deploy:prod", summary="deploy"))
    m = classify(req, workspace="/w", cwd="/w", home="/h").metadata
    assert (m.capability, m.key, m.summary) == (C.NETWORK, "deploy:prod", "deploy")


@pytest.mark.parametrize("cmd, cap, key_prefix", [
    ("ls -la", C.READ, "exec:readonly:"),
    ("cat README.md | grep x", C.READ, "exec:readonly:"),
    ("npm test", C.EXEC, "exec:"),
    ("curl https://x", C.NETWORK, "network:"),
    ("cat ~/.ssh/id_rsa", C.EXEC, "exec:"),        # a sensitive read is never READ
    ("echo 'unterminated", C.EXEC, "exec:"),       # parse failure -> exec
    ("", C.READ, "exec:readonly:"),                # runs nothing
])
def test_bash_capability(cmd, cap, key_prefix, tmp_path):
    got = classify_bash(cmd, Context.here(tmp_path, tmp_path, tmp_path / "home"))
    m = got.metadata
    assert m.capability is cap and m.key.startswith(key_prefix) and m.command == cmd
    if cap is C.READ:
        assert not m.key.startswith("exec:exec")


def test_bash_metadata_details(tmp_path):
    ctx = Context.here(tmp_path, tmp_path, tmp_path / "home")
    m = classify_bash("cat ~/.ssh/id_rsa > /tmp/out.txt 2>/dev/null", ctx).metadata
    assert (str(tmp_path / "home/.ssh/id_rsa"), PathOp.READ) in [(p.path, p.op) for p in m.paths]
    assert ("/tmp/out.txt", PathOp.WRITE) in [(p.path, p.op) for p in m.paths]
    assert not any(p.path == "/dev/null" for p in m.paths)
    assert not m.persistable and m.sensitive and not m.paths_complete


def test_bash_analysis_failure_fails_closed(monkeypatch, tmp_path):
    import shellgate.bash.analysis as analysis

    def broken(source, ctx):
        raise ImportError("no readonly yet")

    monkeypatch.setattr(analysis, "analyse", broken)
    m = classify_bash("ls", Context.here(tmp_path, tmp_path, tmp_path)).metadata
    assert m.capability is C.EXEC and not m.persistable and "unavailable" in m.reasons[0]


def test_readonly_sub_commands_are_credited(tmp_path):
    m = classify_bash("npm test | grep FAIL", Context.here(tmp_path, tmp_path, tmp_path)).metadata
    assert m.readonly_commands == frozenset({1})
    home = tmp_path / "home"
    m = classify_bash("npm test; cat ~/.ssh/id_rsa", Context.here(tmp_path, tmp_path, home)).metadata
    assert m.readonly_commands == frozenset()     # a sensitive read is never credited
    m = classify_bash("sudo cat x", Context.here(tmp_path, tmp_path, home)).metadata
    assert m.readonly_commands == frozenset({1})  # the inner cat, never the sudo


# -- write targets: every file the bash core knows a command writes is a path --------------

WRITE_CASES = load("write_paths.jsonl")


def _expand(p, ws, home):
    return p.replace("$WS", str(ws)).replace("$PARENT", str(ws.parent)).replace("$HOME", str(home))


@pytest.mark.parametrize("case", WRITE_CASES, ids=lambda c: c["cmd"][:50])
def test_write_targets_are_paths(tmp_path, case):
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    m = classify_bash(case["cmd"], Context.here(ws, ws, home)).metadata
    writes = {p.path for p in m.paths if p.op is PathOp.WRITE and p.resolved}
    expected = {_expand(p, ws, home) for p in case["writes"]}
    assert expected <= writes, sorted(writes)
    if not expected:
        assert not writes, sorted(writes)
    assert not writes & {_expand(p, ws, home) for p in case.get("not", ())}
    assert all(p.startswith("/") for p in writes)    # resolved, never cwd-relative


@pytest.mark.parametrize("cmd, mode, expected", [
    ("cp build/app.tar /etc/app.tar", "trust", ("deny", "chain.deny_rule")),     # Edit(//etc/**)
    ("sed -i s/a/b/ /etc/hosts.allow", "trust", ("deny", "chain.deny_rule")),
    ("touch /srv/data/x", "trust", ("ask", "chain.outside_roots")),
    ("cd /srv && rm -f x", "trust", ("ask", "chain.outside_roots")),
    ("mv vendor/lib.py lib.py", "trust", ("deny", "chain.out_of_bounds")),       # read-only root
    ("touch notes.txt", "accept-edits", ("allow", "chain.mode_matrix")),          # inside: unchanged
])
def test_write_targets_reach_the_chain(tmp_path, cmd, mode, expected):
    from shellgate.approval import Engine
    from shellgate.permission import RuleSet

    ws = tmp_path / "ws"
    (ws / "vendor").mkdir(parents=True)
    e = Engine(ws, mode, ask_as_deny=False, home=tmp_path / "home",
               rules=RuleSet.parse(deny=["Edit(//etc/**)"]), readonly_roots=[ws / "vendor"])
    d = e.decide_bash(cmd)
    assert (d.verdict, d.rule) == expected, d.reason


def test_write_targets_survive_a_broken_bash_core(monkeypatch, tmp_path):
    import shellgate.bash.readonly.classify as readonly

    def broken(script, ctx):
        raise RuntimeError("moved")

    monkeypatch.setattr(readonly, "candidate_cwds", broken)
    m = classify_bash("touch /etc/x > /tmp/log", Context.here(tmp_path, tmp_path, tmp_path)).metadata
    assert [(p.path, p.op) for p in m.paths] == [("/tmp/log", PathOp.WRITE)]
