"""parse() never raises and always returns quickly with a result or a failure, whatever the
input: arbitrary text, bytes decoded with surrogateescape, bash-ish soup, deep nesting and
oversized inputs."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.bash.ir import Script
from shellgate.bash.parse.parser import parse

_ATOMS = [
    " ", "\n", "\t", ";", "&", "&&", "||", "|", "|&", "(", ")", "{", "}", "((", "))", "[[", "]]",
    "$(", "`", "${", "}", "$((", "$[", "]", "<(", ">(", "<", ">", ">>", "<<", "<<-", "<<<", "'",
    '"', "$'", '$"', "\\", "\\\n", "#", "=", "=(", "*", "?", "!(", "@(", "~", "$x", "$1",
    "echo", "rm", "if", "then", "else", "fi", "for", "in", "do", "done", "while", "until", "case",
    "esac", ";;", ";&", ";;&", "select", "coproc", "time", "function", "f()", "EOF", "'EOF'",
    "sudo", "env", "xargs", "find", "-exec", "\\;", "bash", "-c", "eval", "a=1", "x[1]=",
]


def _check(src: str) -> Script:
    script = parse(src)
    assert isinstance(script, Script)
    assert (script.error is None) == script.ok
    # "internal:" failures mean our lexer and bashlex read the text differently: a bug
    assert script.error is None or not script.error.reason.startswith("internal"), script.error
    if script.ok:
        for c in script.commands:
            assert 0 <= c.span[0] <= c.span[1] <= len(src)
            assert c.parent is None or 0 <= c.parent < len(script.commands)
    return script


@settings(deadline=None)
@given(st.text())
def test_any_text(src: str) -> None:
    _check(src)


@settings(deadline=None)
@given(st.binary())
def test_any_bytes_surrogateescape(data: bytes) -> None:
    _check(data.decode("utf-8", "surrogateescape"))


@settings(deadline=None)
@given(st.binary())
def test_any_bytes_as_bytes(data: bytes) -> None:
    script = parse(data)  # type: ignore[arg-type]  # callers may hand bytes through
    assert isinstance(script, Script)


@settings(deadline=None)
@given(st.lists(st.sampled_from(_ATOMS) | st.text(max_size=3), max_size=40).map("".join))
def test_bashish_soup(src: str) -> None:
    _check(src)


@settings(deadline=None)
@given(st.lists(st.sampled_from(_ATOMS), min_size=1, max_size=12).map(" ".join))
def test_bashish_words(src: str) -> None:
    _check(src)


def test_deep_nesting_fails_cleanly() -> None:
    deep = [
        "echo " + "$(" * 5000 + "x" + ")" * 5000,
        "(" * 5000 + "x" + ")" * 5000,
        "( " * 5000 + "x" + " )" * 5000,
        "{ " * 5000 + "x" + "; }" * 5000,
        "if a; then " * 5000 + "b" + "; fi" * 5000,
        "echo " + "${x:-" * 5000 + "}" * 5000,
        "echo " + "$((" * 5000 + "1" + "))" * 5000,
        "echo " + "`" * 5000,
        "((" * 5000,
        "bash -c " * 2000 + "id",
    ]
    for src in deep:
        script = _check(src)
        assert script.error is None or script.error.reason


def test_megabyte_input_fails_cleanly() -> None:
    for src in ("echo " + "a" * (1 << 20), "a|" * (1 << 19), "x" * (1 << 20) + "\x00"):
        script = _check(src)
        assert script.error is not None and "too long" in script.error.reason


def test_many_tokens_fail_cleanly() -> None:
    for src in ("a|" * 60000 + "b", "a;" * 60000, "echo " + "a " * 60000):
        script = _check(src)
        assert script.error is not None and "too" in script.error.reason
