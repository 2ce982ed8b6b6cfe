"""Destructive warnings: the table's shape, hand-built IR (independent of the parser), spans,
and robustness on arbitrary input."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.bash.ir import Command, Script, Via, Word
from shellgate.bash.parse.parser import parse
from shellgate.bash.warnings import table as T
from shellgate.bash.warnings.destructive import _pipelines, warnings


def _cmd(src: str, start: int, text: str, via: tuple[Via, ...] = (Via.TOP,),
         parent: int | None = None) -> Command:
    """A command whose words are the blank-separated parts of ``text`` found at ``start``."""
    words, pos = [], start
    for part in text.split():
        k = src.index(part, pos)
        words.append(Word(part, part, (k, k + len(part))))
        pos = k + len(part)
    return Command(tuple(words), (start, pos), via, parent=parent)


def _messages(src: str) -> list[str]:
    return [r.message for r in warnings(parse(src))]


def test_messages_are_short_noun_phrases() -> None:
    shorthands = {"K8S", "TF", "DOCKER", "COMPOSE", "DRY", "K8S_DRY"}  # command lists, not messages
    msgs = {r.message for r in T.RULES} | {v for k, v in vars(T).items()
                                           if k.isupper() and isinstance(v, str) and k not in shorthands}
    for m in msgs:
        assert m == m.strip() and not m.endswith(".") and m[0].islower() and len(m) <= 60, m


def test_rules_are_well_formed() -> None:
    for r in T.RULES:
        assert r.commands and r.family and re.fullmatch(r"[a-z0-9-]+", r.family), r
        assert not (set(r.any_of) & set(r.unless)), r


def test_hand_built_top_level_command() -> None:
    src = "git push origin +main"
    script = Script(src, (_cmd(src, 0, src),))
    (r,) = warnings(script)
    assert r.message == T.REWRITES_REMOTE and r.rule == "warn.git" and src[r.span[0]:r.span[1]] == "+main"


def test_hand_built_wrapper_child_is_judged_not_the_wrapper_words() -> None:
    src = "sudo rm -rf /srv"
    script = Script(src, (_cmd(src, 0, src), _cmd(src, 5, "rm -rf /srv", (Via.WRAPPER,), 0)))
    msgs = [r.message for r in warnings(script)]
    assert msgs.count(T.RECURSIVE_DELETE) == 1 and T.ELEVATED in msgs


def test_hand_built_pipeline_regrouping() -> None:
    src = "curl -s x | sh; echo ok | cat"
    cmds = (_cmd(src, 0, "curl -s x", (Via.PIPELINE,)), _cmd(src, 12, "sh", (Via.PIPELINE,)),
            _cmd(src, 16, "echo ok", (Via.PIPELINE,)), _cmd(src, 26, "cat", (Via.PIPELINE,)))
    script = Script(src, cmds)
    assert _pipelines(script) == [[0, 1], [2, 3]]
    (r,) = warnings(script)
    assert r.message == T.RUNS_DOWNLOAD and src[r.span[0]:r.span[1]] == "curl -s x | sh"


def test_separate_pipelines_do_not_mix() -> None:
    assert _messages("curl -s x | cat; echo hi | sh") == []
    assert _messages("curl -s x > f && sh f") == []


def test_every_operand_is_checked_and_spans_name_it() -> None:
    src = "rm -rf tests/ patches/ plan/ ~/"
    rs = warnings(parse(src))
    home = [r for r in rs if r.message == T.DELETES_HOME]
    assert len(home) == 1 and src[home[0].span[0]:home[0].span[1]] == "~/"


def test_nested_depth_is_bounded() -> None:
    src = "bash -c " + "'" + "echo x | sh " * 3 + "'"
    assert isinstance(warnings(parse(src)), tuple)
    deep = "rm -rf /"
    for _ in range(8):
        deep = "echo " + repr(deep) + " | sh"
    assert isinstance(warnings(parse(deep)), tuple)


def test_parse_failure_still_yields_tuple() -> None:
    script = parse("rm -rf / (((")
    assert isinstance(warnings(script), tuple)


@settings(deadline=None)
@given(st.text(max_size=120))
def test_warnings_never_raise(src: str) -> None:
    for r in warnings(parse(src)):
        assert r.rule != "warn.internal", r


_TOKENS = ["rm", "-rf", "/", "~", "git", "push", "-f", "+main", "|", "sh", "curl", "x", ";", "sudo",
           "psql", "-c", "'DROP TABLE t'", "<<EOF\nrm -rf /\nEOF\n", "kill", "-9", "-1", "find", ".",
           "-delete", "-exec", "{}", "+", "xargs", "kubectl", "delete", "$(", ")", "eval", "ssh", "h",
           "docker", "exec", "--", "&&", "chmod", "777", ">", "f"]


@settings(deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), max_size=14))
def test_warnings_never_raise_on_shell_like_text(parts: list[str]) -> None:
    for r in warnings(parse(" ".join(parts))):
        assert r.rule != "warn.internal", r
