"""Parser table tests: every construct lists exactly the commands bash would run
(corpus/parse_constructs.jsonl), plus spans, words and IR details."""

from __future__ import annotations

import pytest
from conftest import load

from shellgate.bash.ir import Command, CommandKind, Via
from shellgate.bash.parse.parser import parse

CASES = load("parse_constructs.jsonl")


def label(c: Command) -> str:
    if c.kind is CommandKind.FUNCDEF:
        return c.words[0].text + "()"
    if not c.words and c.kind is CommandKind.SIMPLE:
        return ""
    return c.name if c.name is not None else "?"


def chain(c: Command) -> str:
    return ">".join(v.value for v in c.via)


def _under(script, c: Command, name: str) -> bool:
    while c.parent is not None:
        c = script.commands[c.parent]
        if c.name == name:
            return True
    return False


@pytest.mark.parametrize("case", CASES, ids=lambda c: repr(c["cmd"])[:60])
def test_construct(case: dict) -> None:
    script = parse(case["cmd"])
    if case.get("error"):
        assert script.error is not None, [label(c) for c in script.commands]
        assert case.get("reason", "") in script.error.reason
        return
    assert script.error is None, script.error
    got = [label(c) for c in script.commands]
    assert sorted(got) == sorted(case["commands"])
    if "argv" in case:
        assert [[w.text for w in c.words] for c in script.commands] == case["argv"]
    for name, via in case.get("via", {}).items():
        first = next(c for c in script.commands if label(c) == name)
        assert chain(first) == via, (name, chain(first))


@pytest.mark.parametrize("case", [c for c in CASES if not c.get("error")],
                         ids=lambda c: repr(c["cmd"])[:60])
def test_spans_index_the_source(case: dict) -> None:
    """Every span is inside the source and each word's span spells its raw text."""
    src = case["cmd"]
    script = parse(src)
    for c in script.commands:
        assert 0 <= c.span[0] <= c.span[1] <= len(src)
        for w in c.words:
            assert 0 <= w.span[0] <= w.span[1] <= len(src)
        if Via.SHELL_C in c.via or c.kind is CommandKind.ARITH or _under(script, c, "let"):
            continue  # re-parsed strings map to the whole string's word span
        for w in c.words:
            exact = src[w.span[0]:w.span[1]] == w.raw
            # raw is what bash reads: line continuations joined (_lex.joined)
            exact = exact or src[w.span[0]:w.span[1]].replace("\\\n", "") == w.raw
            coarse = src[w.span[0]:w.span[1]].startswith("`")  # a backtick body with escapes
            assert exact or coarse, (w, c)
        if c.parent is not None:
            assert 0 <= c.parent < script.commands.index(c)


def test_words_are_decoded_from_source() -> None:
    s = parse("echo 'a b'\"c\\\"d\" $'\\t' x\\ y ~ ~/p ~root $HOME/x a*b")
    words = s.commands[0].words
    assert [w.text for w in words] == ["echo", 'a bc"d', "\t", "x y", "~", "~/p", "~root",
                                        "$HOME/x", "a*b"]
    assert [w.static for w in words] == [True, True, True, True, True, True, False, False, True]
    assert [w.quoted for w in words] == [False, True, True, True, False, False, False, False,
                                         False]
    assert [w.glob for w in words] == [False] * 8 + [True]


def test_glob_and_brace_flags() -> None:
    words = parse("x [ a[1] {} {a,b} {1..3} '*' \\? @(a)").commands[0].words
    assert [w.glob for w in words] == [False, False, True, False, True, True, False, False,
                                       True]


def test_ansi_c_nul_truncates_and_non_ascii_is_dynamic() -> None:
    w = parse("echo $'rm\\x00 -rf' $'\\xff'").commands[0].words
    assert w[1].text == "rm" and w[1].static
    assert not w[2].static


def test_redirects_and_heredocs() -> None:
    c = parse("cat 2>/dev/null >&2 <<-'EOF' &>>log 3<&0 >|f\n\tbody $(x)\n\tEOF").commands
    assert len(c) == 1
    r = c[0].redirects
    assert [(x.op, x.fd) for x in r] == [(">", 2), (">&", None), ("<<-", None), ("&>>", None),
                                         ("<&", 3), (">|", None)]
    assert r[0].target.text == "/dev/null" and r[1].target.text == "2"
    assert r[2].heredoc == "body $(x)\n" and r[2].heredoc_quoted and r[2].target.text == "EOF"


def test_compound_redirects_reach_inner_commands() -> None:
    cmds = parse("{ a; b; } > out; while read l; do c; done < in").commands
    assert [[(r.op, r.target.text) for r in c.redirects] for c in cmds] == [
        [(">", "out")], [(">", "out")], [("<", "in")], [("<", "in")]]


def test_assignments() -> None:
    c = parse("A=1 B+=x C[2]=y D=(1 2) env").commands[0]
    assert [(a.name, a.value.text, a.array) for a in c.assignments] == [
        ("A", "1", False), ("B", "x", False), ("C[2]", "y", False), ("D", "(1 2)", True)]
    assert c.name == "env"


def test_background_and_parent() -> None:
    cmds = parse("sleep 1 & echo $(id)").commands
    assert [c.background for c in cmds] == [True, False, False]
    assert cmds[2].parent == 1 and cmds[0].parent is None


def test_functions_listed() -> None:
    s = parse("f() { :; }; function g { :; }")
    assert s.functions == ("f", "g")


def test_test_and_arith_words() -> None:
    t = parse("[[ -f $x && a == b ]]").commands[0]
    assert t.kind is CommandKind.TEST and t.name == "[["
    assert [w.text for w in t.words] == ["-f", "$x", "a", "==", "b"]
    a = parse("(( x += 1 ))").commands[0]
    assert a.kind is CommandKind.ARITH and a.words[0].text == " x += 1 "


def test_wrapper_spans_and_shell_c_offsets() -> None:
    src = "sudo rm -rf /x; bash -c 'id -u'"
    cmds = parse(src).commands
    rm = next(c for c in cmds if c.name == "rm")
    assert src[rm.span[0]:rm.span[1]] == "rm -rf /x"
    idc = next(c for c in cmds if c.name == "id")
    assert src[idc.span[0]:idc.span[1]] == "id -u"
    assert idc.via == (Via.SHELL_C,) and cmds[idc.parent].name == "bash"


def test_failure_keeps_partial_commands_and_reason() -> None:
    s = parse("echo a; bash -c 'if'")
    assert s.error is not None and not s.ok
    assert "nested script" in s.error.reason


@pytest.mark.parametrize("src,reason", [
    ("x" * (256 * 1024 + 1), "too long"),
    ("echo \x00", "NUL"),
    ("echo \ud800", "UTF-8"),
])
def test_limits(src: str, reason: str) -> None:
    s = parse(src)
    assert s.error is not None and reason in s.error.reason


def test_bytes_input() -> None:
    assert parse(b"echo hi").ok  # type: ignore[arg-type]
    s = parse(b"echo \xff")  # type: ignore[arg-type]
    assert s.error is not None and "UTF-8" in s.error.reason
