"""Rule grammar, rule errors (naming the line), examples, and the matching table in
corpus/rules.jsonl (allow = every sub-command covered, deny/ask = any sub-command)."""

from __future__ import annotations

import pytest
from conftest import load

from shellgate.permission import RuleError, RuleSet, parse_rule
from shellgate.permission.rules import example_matches

CASES = load("rules.jsonl")


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['action']}:{c['rule']}:{c['cmd'][:30]}")
def test_rule_matching_table(case, tmp_path):
    rule = parse_rule(case["rule"], case["action"], base=str(tmp_path))
    got = example_matches(rule, case["cmd"], home=str(tmp_path / "home"))
    assert got is case["match"], case["why"]


def test_table_has_both_outcomes_for_each_action():
    seen = {(c["action"], c["match"]) for c in CASES}
    assert {("allow", True), ("allow", False), ("deny", True), ("deny", False)} <= seen


@pytest.mark.parametrize("text, tool, spec", [
    ("Bash", "Bash", None),
    ("Bash(npm test *)", "Bash", "npm test *"),
    ("  Bash(npm test *)  ", "Bash", "npm test *"),
    ("Bash(echo (a))", "Bash", "echo (a)"),
    ("mcp__github__create_issue", "mcp__github__create_issue", None),
    ("Read(~/.ssh/**)", "Read", "~/.ssh/**"),
    ("WebFetch(domain:example.com)", "WebFetch", "domain:example.com"),
])
def test_parse_good_rules(text, tool, spec):
    r = parse_rule(text, "deny")
    assert (r.tool, r.specifier, r.text) == (tool, spec, text.strip())


@pytest.mark.parametrize("text, message", [
    ("", "empty rule"),
    ("Bash(npm test", "missing the closing ')'"),
    ("Bash (npm test)", "no space is allowed"),
    ("Bash)", "')' without '('"),
    ("1Bash", "starts with a tool name"),
    ("Bash()", "empty specifier"),
    ("Bash(   )", "empty specifier"),
    ("Bash(echo 'unclosed)", "cannot split the pattern into words"),
    ("WebFetch(domain:)", "empty domain"),
    ("Bash(x) y", "unexpected text after the closing ')'"),
    ("Bash!", "expected Tool or Tool(specifier)"),
])
def test_parse_bad_rules(text, message):
    with pytest.raises(RuleError) as err:
        parse_rule(text, "allow")
    assert message in str(err.value)


def test_rule_error_names_file_and_line(tmp_path):
    f = tmp_path / "rules.toml"
    f.write_text('[permissions]\nallow = [\n  "Bash(npm test *)",\n  "Bash(oops",\n]\n')
    with pytest.raises(RuleError) as err:
        RuleSet.load(f)
    assert str(err.value).startswith(f"{f}:4: rule 'Bash(oops'")
    assert err.value.line == 4


def test_non_string_rule_is_an_error(tmp_path):
    f = tmp_path / "rules.toml"
    f.write_text("[permissions]\ndeny = [42]\n")
    with pytest.raises(RuleError, match="a rule is a string"):
        RuleSet.load(f)


def test_rule_list_must_be_a_list(tmp_path):
    f = tmp_path / "rules.toml"
    f.write_text('[permissions]\ndeny = "Bash(rm *)"\n')
    with pytest.raises(RuleError, match="'deny' must be a list"):
        RuleSet.load(f)


def test_examples_checked_at_load(tmp_path):
    f = tmp_path / "rules.toml"
    f.write_text('[permissions]\nallow = [\n'
                 '  {rule = "Bash(npm test *)", match = ["npm test -k x"], '
                 'not_match = ["npm test; curl x"]},\n'
                 ']\ndeny = [{rule = "Bash(rm *)", match = ["sudo rm x"], not_match = ["echo rm"]}]\n')
    rules = RuleSet.load(f)
    assert [r.text for r in rules.allow] == ["Bash(npm test *)"]
    assert rules.allow[0].match == ("npm test -k x",)


@pytest.mark.parametrize("item, message", [
    ('{rule = "Bash(npm test *)", match = ["npm run build"]}', "listed under match"),
    ('{rule = "Bash(npm test *)", not_match = ["npm test --watch"]}', "listed under not_match"),
    ('{rule = "Bash(npm *)", matches = ["npm"]}', "unknown key"),
    ('{match = ["npm"]}', "needs rule ="),
    ('{rule = "Bash(npm *)", match = "npm"}', "match must be a list of strings"),
])
def test_bad_examples_are_errors_with_line(tmp_path, item, message):
    f = tmp_path / "rules.toml"
    f.write_text(f"[permissions]\n\nallow = [\n  {item},\n]\n")
    with pytest.raises(RuleError) as err:
        RuleSet.load(f)
    assert message in str(err.value)
    if "rule =" in item:
        assert f"{f}:4:" in str(err.value)


def test_claude_settings_json_loads(tmp_path):
    f = tmp_path / "settings.json"
    f.write_text('{"permissions": {"allow": ["Bash(npm run *)"], "ask": ["Bash(git push *)"],\n'
                 ' "deny": ["Read(./.env)", "Bash(curl *)"], "defaultMode": "acceptEdits"}}')
    rules = RuleSet.load(f)
    assert (len(rules.allow), len(rules.ask), len(rules.deny)) == (1, 1, 2)


def test_bad_toml_is_a_clear_error(tmp_path):
    f = tmp_path / "rules.toml"
    f.write_text("[permissions\nallow = []\n")
    with pytest.raises(RuleError, match="not valid TOML"):
        RuleSet.load(f)


def test_rules_compare_tool_names_loosely():
    r = parse_rule("WebFetch(domain:example.com)", "allow")
    assert r.key == "webfetch"
    assert parse_rule("web_fetch", "allow").key == "webfetch"


def test_merged_rule_sets_keep_every_layer():
    a = RuleSet.parse(deny=["Bash(rm *)"])
    b = RuleSet.parse(allow=["Bash(ls *)"], deny=["Bash(curl *)"])
    m = a.merged(b)
    assert [r.text for r in m.deny] == ["Bash(rm *)", "Bash(curl *)"]
    assert len(m) == 3 and bool(m) and not bool(RuleSet())


def test_pyparsing_only_imported_when_parsing(tmp_path):
    """The hook path: importing and deciding (store read, audit written, no rules) loads neither
    pyparsing nor filelock nor rich."""
    import subprocess
    import sys

    from shellgate.permission import Approval, Store

    Store(tmp_path / "s.json").add([Approval("bash", ("make",), True)])
    code = ("import sys, shellgate.permission, shellgate.approval, shellgate.gate, shellgate.config\n"
            "from shellgate.permission import Engine, Request, Metadata, Capability\n"
            f"e = Engine({str(tmp_path)!r}, store={str(tmp_path / 's.json')!r}, "
            f"audit={str(tmp_path / 'a.jsonl')!r})\n"
            "d = e.decide(Request(tool_name='bash', metadata=Metadata(Capability.EXEC, "
            "command='make x')))\n"
            "assert d.allowed(), d\n"
            "bad = [m for m in ('pyparsing', 'filelock', 'rich') if m in sys.modules]\n"
            "print(bad); sys.exit(1 if bad else 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stdout + out.stderr
