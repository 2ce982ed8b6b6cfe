"""Rule patterns match without backtracking (issue #21): a pathological pattern from a cloned
repository's config is answered in a bounded number of steps, the matchers agree with
``fnmatch`` and with the regex translation they replace, and over-sized patterns are errors."""

from __future__ import annotations

import fnmatch
import os
import re

import pytest
from _helpers import python_steps
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.check import Gate
from shellgate.config import ConfigError, load_config
from shellgate.permission import RuleError, parse_rule
from shellgate.permission.pattern import PathPattern, wild_match
from shellgate.permission.rules import example_matches
from shellgate.permission.wildcard import (
    MAX_PATTERN_CHARS,
    MAX_PATTERN_WORDS,
    MAX_WILDCARDS,
    PathGlob,
    Wildcard,
)

# --- the pathological rule ----------------------------------------------------------------
# As a backtracking regex, `(.*e){20}.*Z` on 40 `e` tries C(40, 20) ≈ 1.4e11 splits: hours.

BAD_DENY = "Bash(* " + "*e" * 20 + "*Z *)"


@pytest.mark.parametrize("n", [40, 4000])
def test_pathological_deny_rule_costs_steps_per_piece_not_per_split(n, tmp_path):
    rule = parse_rule(BAD_DENY, "deny", base=str(tmp_path))
    hit, cost = python_steps(rule.command.matches, _words(f"echo {'e' * n}"), strict=False)
    assert hit is False
    hit, _ = python_steps(rule.command.matches, _words(f"echo {'e' * n}Z x"), strict=False)
    assert hit is True
    assert cost < 400, cost  # the same for 40 and 4000 characters: find() scans, Python doesn't


def test_pathological_path_glob_costs_steps_per_character(tmp_path):
    pat = PathPattern.compile("**/" + "*a" * 12 + "*b")
    costs = []
    for n in (1000, 2000):
        path = f"{tmp_path}/{'a' * n}"
        hit, cost = python_steps(pat.matches, path, home="/h", base=str(tmp_path), cwd=str(tmp_path))
        assert hit is False
        costs.append(cost)
    assert costs[1] < 2.2 * costs[0] and costs[1] < 12 * 2000, costs


def test_pathological_rule_from_a_cloned_repository_is_answered(tmp_path):
    ws = tmp_path / "ws"
    (ws / ".shellgate").mkdir(parents=True)
    (ws / ".shellgate" / "config.toml").write_text(f"[permissions]\ndeny = [{BAD_DENY!r}]\n")
    gate = Gate(ws, "balanced")
    assert gate.check(f"echo {'e' * 40}").decision == "allow"
    assert gate.check(f"echo {'e' * 40}Z x").decision == "deny"


def _words(command: str):
    from shellgate.permission.subject import parse_view

    view = parse_view(command)
    assert view.ok
    return view.commands[0].words


# --- differential: the matchers against fnmatch and the old regex -------------------------

@settings(max_examples=600, deadline=None)
@given(pattern=st.text("ab*/ \n", max_size=10), text=st.text("ab/ \n", max_size=12))
def test_wildcard_agrees_with_fnmatch(pattern, text):
    # fnmatch's * is `.*` under DOTALL: the same meaning as ours when `?` and `[` are absent.
    assert Wildcard.compile(pattern).match(text) is fnmatch.fnmatchcase(text, pattern)
    assert wild_match(pattern, text) is fnmatch.fnmatchcase(text, pattern)


def _old_glob_regex(glob: str) -> str:
    """The translation shellgate used before (the oracle for the same meaning)."""
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif glob.startswith("**", i):
            out.append(".*")
            i += 2
        elif glob[i] == "*":
            out.append("[^/]*")
            i += 1
        elif glob[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return "".join(out)


def _old_matches(spec: str, path: str, root: str) -> bool:
    pat = PathPattern.compile(spec)
    root = os.path.normpath({"absolute": "/"}.get(pat.anchor, root)).rstrip("/")
    body = pat.body
    rx = re.compile(re.escape(root) + "/" + _old_glob_regex(body) if body else re.escape(root or "/"),
                    re.DOTALL)
    p = path
    while True:
        if rx.fullmatch(p):
            return True
        parent = os.path.dirname(p)
        if parent == p:
            return False
        p = parent


SEGMENT = st.text("ab.\n", min_size=1, max_size=3).filter(lambda s: s not in (".", ".."))


@settings(max_examples=1500, deadline=None)
@given(spec=st.text("ab*?/.", min_size=1, max_size=9).filter(lambda s: s.strip() == s and s != "~"),
       anchor=st.sampled_from(["", "/", "//", "./", "~/"]),
       parts=st.lists(SEGMENT, max_size=5), under=st.booleans())
def test_path_glob_agrees_with_the_old_regex(spec, anchor, parts, under):
    root = "/r/w"
    spec = anchor + spec
    path = "/" + "/".join((["r", "w"] if under else []) + parts) if parts or under else "/"
    kw = {"home": root, "base": root, "cwd": root}
    assert PathPattern.compile(spec).matches(path, **kw) is _old_matches(spec, path, root)


@settings(max_examples=400, deadline=None)
@given(glob=st.text("ab*?/", max_size=8), text=st.text("ab/", max_size=8))
def test_path_glob_alone_agrees_with_the_old_regex_on_the_whole_text(glob, text):
    # A text with no `/` has no parent cut: the match is a plain full match.
    if "/" in text:
        text = text.replace("/", "")
    expect = re.fullmatch(_old_glob_regex(glob), text, re.DOTALL) is not None
    assert PathGlob.compile(glob).match(text) is expect


# --- limits, checked at load --------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ("Bash(echo " + "x" * MAX_PATTERN_CHARS + ")", "characters long, over the limit"),
    ("Bash(echo " + "a*" * (MAX_WILDCARDS + 1) + ")", "wildcards (* and ?), over the limit"),
    ("Bash(" + "x " * (MAX_PATTERN_WORDS + 1) + ")", "words, over the limit"),
    ("Read(" + "?" * (MAX_WILDCARDS + 1) + ")", "wildcards"),
    ("WebFetch(domain:" + "*." * (MAX_WILDCARDS + 1) + "org)", "wildcards"),
])
@pytest.mark.parametrize("action", ["allow", "ask", "deny"])
def test_oversized_patterns_are_rule_errors(text, message, action):
    with pytest.raises(RuleError, match=re.escape(message)):
        parse_rule(text, action)


def test_limits_leave_room_for_real_rules(tmp_path):
    rule = parse_rule("Bash(" + " ".join(["*x"] * MAX_WILDCARDS) + ")", "deny")
    assert example_matches(rule, " ".join(["ax"] * MAX_WILDCARDS))


def test_oversized_deny_rule_in_a_project_file_refuses_every_call(tmp_path):
    """Fail closed: the rule does not vanish, the whole file is an error naming its line, and
    the gate denies until it is fixed."""
    ws = tmp_path / "ws"
    (ws / ".shellgate").mkdir(parents=True)
    bad = "Bash(rm " + "*" * (MAX_WILDCARDS + 1) + ")"
    (ws / ".shellgate" / "config.toml").write_text(f'[permissions]\ndeny = [\n  "{bad}",\n]\n')
    with pytest.raises(ConfigError, match=r"config\.toml:3: .*over the limit"):
        load_config(ws)
    verdict = Gate(ws, "balanced").check("ls")
    assert verdict.decision == "deny" and "over the limit" in verdict.reason
