"""Minimization (ddmin over shell tokens), cause naming, the tokenizer and policy seeds."""

from __future__ import annotations

import pytest

from shellgate.fuzz import tokens
from shellgate.fuzz.flags import Flag, Universe
from shellgate.fuzz.minimize import cause, ddmin, minimize
from shellgate.fuzz.policy_seeds import PolicySeed, seed_from_rule, seeds

SORT = Universe(("sort",), (Flag("-o", "FILE"), Flag("--output", "FILE"), Flag("-r"), Flag("--reverse"),
                            Flag("--compress-program", "PROG")), (("-o", "--output"), ("-r", "--reverse")))
FIND = Universe(("find",), (Flag("-delete"), Flag("-fprint", "FILE"), Flag("-name", "PATTERN")))
GITLOG = Universe(("git", "log"), (Flag("--output", "file"), Flag("--oneline")))
U = {("sort",): SORT, ("find",): FIND, ("git", "log"): GITLOG}


@pytest.mark.parametrize("src, want", [
    ("ls -la", ["ls", "-la"]),
    ("sort -o out data.txt 2>&1 | wc -l", ["sort", "-o", "out", "data.txt", "2>&1", "|", "wc", "-l"]),
    ("echo \"a b\" 'c d' $(ls -l | wc) `id` <(ls) x>|y", ["echo", '"a b"', "'c d'", "$(ls -l | wc)", "`id`",
                                                      "<(ls)", "x>|y"]),
    ("a && b || c; d & e", ["a", "&&", "b", "||", "c", ";", "d", "&", "e"]),
    ("cat $'a b' ${x:-$(id)} &>/dev/null", ["cat", "$'a b'", "${x:-$(id)}", "&>/dev/null"]),
    ("echo a\\ b", ["echo", "a\\ b"]),
    ("unterminated 'quote", ["unterminated", "'quote"]),
])
def test_tokens_split(src, want):
    assert tokens.split(src) == want


def test_ddmin_finds_the_one_needed_subset():
    toks = list("abcdefghij")
    assert ddmin(toks, lambda ts: "c" in ts and "h" in ts) == ["c", "h"]


def test_minimize_drops_noise_and_wrappers():
    def still(c):
        return "sort" in c and ("-o" in c or "--out" in c) and "x.txt" in c
    assert minimize("env nice sort -r -k 2 --out=x.txt data.txt 2>/dev/null | wc -l", still) == \
        "sort --out=x.txt"


def test_minimize_steps_inside_a_shell_string_and_substitution():
    def still(c):
        return c.startswith("find") and "-delete" in c
    assert minimize("bash -c 'find . -name x -delete'", still) == "find -delete"
    assert minimize("echo $(find . -delete)", still) == "find -delete"


def test_minimize_respects_the_budget_and_returns_the_input_when_nothing_holds():
    calls = []

    def never(c):
        calls.append(c)
        return False
    assert minimize("a b c d e f g h", never, max_tests=5) == "a b c d e f g h"
    assert len(calls) <= 5


def test_minimize_unquotes_plain_words():
    assert minimize("'sort' \"-o\" x", lambda c: c.replace("'", "").replace('"', "") == "sort -o x") \
        == "sort -o x"


@pytest.mark.parametrize("a, b", [
    ("sort -o a data.txt", "sort --out=b"),
    ("sort -ob", "sort --output x"),
    ("'sort' -r -o x", "sort --reverse --outp=y"),
    ("find . -fprint x", "find -fprint y"),
    ("git log --outp=x", "git log --output y"),
])
def test_cause_names_one_bug_whatever_the_spelling(a, b):
    assert cause(a, "write", U) == cause(b, "write", U)


@pytest.mark.parametrize("a, b", [
    ("sort -o a", "sort --compress-program=sh"),
    ("find -delete", "find -fprint x"),
    ("sort -o a", "sort -o a > out"),
])
def test_cause_tells_different_bugs_apart(a, b):
    assert cause(a, "write", U) != cause(b, "write", U)


def test_cause_includes_the_kind():
    assert cause("sort .env", "secret-read", U) != cause("sort .env", "write", U)


@pytest.mark.parametrize("rule, want", [
    ("Bash(sort *)", PolicySeed("Bash(sort *)", ("sort",), True)),
    ("Bash(git log:*)", PolicySeed("Bash(git log:*)", ("git", "log"), True)),
    ("Bash(npm test)", PolicySeed("Bash(npm test)", ("npm", "test"), False)),
    ("Bash(ls*)", PolicySeed("Bash(ls*)", ("ls",), True)),
    ("bash( find . * )", PolicySeed("bash( find . * )", ("find", "."), True)),
    ("Read(src/**)", None),
    ("Bash(*)", None),
    ("Bash('unterminated)", None),
])
def test_seed_from_rule(rule, want):
    assert seed_from_rule(rule) == want


def test_seeds_from_a_config_file(tmp_path):
    cfg = tmp_path / "policy.toml"
    cfg.write_text('[permissions]\nallow = ["Bash(sort *)", "Read(src/**)", "Bash(find:*)"]\n'
                   'deny = ["Bash(rm *)"]\n')
    assert [s.prefix for s in seeds(cfg)] == [("sort",), ("find",)]
    assert seeds(None) == []


def test_minimize_steps_inside_a_default_value_substitution():
    def still(c):
        return "file" in c and "~/.git-credentials" in c
    assert minimize('comm "${x:-$(file --exclude-=@ ~/.git-credentials)}" -z', still) == \
        "file ~/.git-credentials"


def test_minimize_drops_a_clause_that_only_goes_as_a_whole():
    def still(c):
        t = c.split()
        ok_exec = "-exec" not in t or (t.index("-exec") + 2 < len(t) and t[t.index("-exec") + 2] == "\\;")
        return t[:1] == ["find"] and "-fprint" in t and t[-1] == "x" and ok_exec
    assert minimize("find . -exec id {} \\; -fprint x", still) == "find -fprint x"


def test_line_continuations_are_one_word():
    assert cause("sor\\\nt -o --ignore-case", "write", U) == cause("sort --output /etc/x", "write", U)
    assert minimize("sor\\\nt -o x", lambda c: c.replace("\\\n", "") == "sort -o x") == "sort -o x"
