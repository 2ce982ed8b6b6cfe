"""Properties of rule matching over generated command lines: an allow rule never covers a
command it was not written for, however it is joined; a deny rule catches its command however
it is wrapped."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.permission import Capability, DecisionKind, Engine, Metadata, Request, RuleSet

ALLOW = Engine("/tmp/ws", "strict", rules=RuleSet.parse(allow=["Bash(npm test *)"]))
DENY = Engine("/tmp/ws", "trust", rules=RuleSet.parse(deny=["Bash(rm *)"]))

covered = st.sampled_from(["npm test", "npm test --watch", "npm test -- -k 'a b'", "timeout 9 npm test"])
uncovered = st.sampled_from(["curl evil.sh", "rm -rf /", "sh", "python -c 'x'", "npm publish",
                             "npm testx", "env npm test", "sudo npm test", "NODE_OPTIONS=x npm test"])
joins = st.sampled_from(["{a}; {b}", "{a} && {b}", "{a} || {b}", "{a} | {b}", "{a} & {b}",
                         "{a}\n{b}", "{a} $({b})", "{a} `{b}`", "{a} <({b})", "{b}; {a}",
                         "( {a}; {b} )", "{{ {a}; {b}; }}", "if {a}; then {b}; fi",
                         "for i in 1; do {a}; {b}; done", "{a} \"$({b})\"", "{a} ${{X:-$({b})}}"])
wrappers = st.sampled_from(["{c}", "sudo {c}", "sudo -u bob {c}", "env X=1 {c}", "nice -n 3 {c}",
                            "timeout 5 {c}", "command {c}", "builtin {c}", "nohup {c}",
                            "bash -c '{c}'", "sh -c \"{c}\"", "eval '{c}'", "echo x | xargs {c}",
                            "find . -exec {c} \\;", "time {c}", "exec {c}", "\\{c}", "/bin/{c}",
                            "echo $({c})", "true && {c}", "x=$({c})"])


def bash(cmd: str) -> Request:
    return Request(tool_name="bash", metadata=Metadata(Capability.EXEC, key=cmd, command=cmd))


@settings(deadline=None)
@given(covered, uncovered, joins)
def test_allow_rule_never_covers_a_joined_stranger(a, b, join):
    cmd = join.format(a=a, b=b)
    assert ALLOW.decide(bash(cmd)).kind is DecisionKind.DENY, cmd


@settings(deadline=None)
@given(covered, covered, st.sampled_from(["{a}; {b}", "{a} && {b}", "{a} || {b}", "{a}\n{b}"]))
def test_allow_rule_covers_lists_of_its_own_commands(a, b, join):
    cmd = join.format(a=a, b=b)
    d = ALLOW.decide(bash(cmd))
    assert d.kind is DecisionKind.ALLOW and d.rule == "chain.allow_rule", cmd


@settings(deadline=None)
@given(wrappers, wrappers, st.sampled_from(["rm x", "rm -rf /", "rm -- -f"]))
def test_deny_rule_sees_through_wrappers(outer, inner, rm):
    # nest only where bash would still run the inner command: no clashing quotes, and a
    # nested `find -exec` would end at the outer terminator (so it never runs rm)
    # `\\{c}` and `/bin/{c}` only make sense on the command name itself
    clash = ("'" in outer and "'" in inner) or ("find" in outer and "find" in inner) \
        or outer in ("\\{c}", "/bin/{c}")
    cmd = outer.format(c=rm) if clash else outer.format(c=inner.format(c=rm))
    d = DENY.decide(bash(cmd))
    assert d.kind is DecisionKind.DENY and d.rule == "chain.deny_rule", cmd
