"""Generators: reproducible by seed, bash-faithful quoting tricks, policy and seed coverage."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import given, settings

from shellgate.fuzz import tokens
from shellgate.fuzz.flags import Flag, Universe
from shellgate.fuzz.generators import Generator, Material, SeededRng, load_seeds, program_prefixes, strategy
from shellgate.fuzz.policy_seeds import PolicySeed

SORT = Universe(("sort",), (Flag("-o", "FILE"), Flag("--output", "FILE"), Flag("-r"), Flag("--reverse"),
                            Flag("--compress-program", "PROG"), Flag("-k", "KEYDEF")),
                (("-o", "--output"), ("-r", "--reverse")))
FIND = Universe(("find",), (Flag("-delete"), Flag("-fprint", "FILE"), Flag("-exec", "COMMAND"),
                            Flag("-name", "PATTERN")))


def material(**kw):
    base = dict(programs=(("sort",), ("find",), ("ls",)), universes={("sort",): SORT, ("find",): FIND},
                seeds=("ls -la", "cat README.md | wc -l", "git log --oneline -5"),
                policy=(PolicySeed("Bash(sort *)", ("sort",), True),))
    base.update(kw)
    return Material(**base)


def sample(seed, n=300, **kw):
    g = Generator(material(**kw), SeededRng(seed))
    return [g.command() for _ in range(n)]


def test_same_seed_same_commands():
    assert [g.cmd for g in sample(7)] == [g.cmd for g in sample(7)]
    assert [g.cmd for g in sample(7)] != [g.cmd for g in sample(8)]


def test_every_origin_is_used_and_commands_are_bounded():
    got = sample(1, 600)
    assert {g.origin for g in got} >= {"policy", "seed", "grammar"}
    assert all(0 < len(g.cmd) <= 400 for g in got)


def test_policy_rules_drive_their_programs_risky_flags():
    cmds = [g.cmd for g in sample(3, 800) if g.origin == "policy"]
    assert len(cmds) > 100
    assert sum("sort" in c for c in cmds) > 0.8 * len(cmds)   # the rest: quoting tricks, mutations
    joined = " ".join(cmds)
    assert "--compress-program" in joined or "--compress-" in joined
    assert any(tok in joined for tok in ("-o ", "--output", "--out", "--o"))
    assert any("--outp" in c or "--out=" in c or "--ou " in c or "--out " in c for c in cmds), \
        "long-option abbreviations are generated"


def test_find_exec_is_well_formed():
    g = Generator(material(), SeededRng(0))
    for _ in range(200):
        words = g.flag(FIND, ("find",))
        if words[0] == "-exec":
            assert words[-1] in ("\\;", "';'", "+") and "{}" in words
            return
    pytest.fail("never drew -exec")


def test_feedback_pool_is_mutated():
    g = Generator(material(seeds=(), policy=()), SeededRng(5))
    g.feedback("ls -la src", True)
    got = [g.command() for _ in range(200)]
    assert any(x.origin == "pool" and x.seed == "ls -la src" for x in got)


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash not installed")
@pytest.mark.parametrize("word", ["sort", "-o", "--output", "abc123", "-fprint"])
def test_quoting_tricks_keep_the_word_bash_sees(word):
    g = Generator(material(), SeededRng(word))
    spellings = {g.trick(word) for _ in range(60)}
    assert len(spellings) > 3
    script = "".join(f"printf '%s\\n' {s}\n" for s in sorted(spellings))
    out = subprocess.run(["bash", "--norc", "--noprofile", "-c", script], capture_output=True, text=True,
                         timeout=10, stdin=subprocess.DEVNULL)
    assert out.stdout.splitlines() == [word] * len(spellings), (spellings, out.stdout)


def test_mutation_keeps_unrelated_text():
    g = Generator(material(), SeededRng(2))
    src = "sort -r data.txt"
    muts = {g.mutate(src, rounds=1) for _ in range(100)}
    assert len(muts) > 10
    assert all(isinstance(m, str) and m for m in muts)


def test_program_prefixes_add_git_subcommands_and_weight_policy():
    pol = [PolicySeed("Bash(git log *)", ("git", "log"), True)]
    got = program_prefixes(["git", "ls", "[", "no-such-program-xyz"], pol)
    assert ("ls",) in got and ("[",) not in got and ("no-such-program-xyz",) not in got
    assert ("git", "status") in got
    assert got.count(("git", "log")) >= 3


def test_load_seeds(tmp_path):
    (tmp_path / "a.jsonl").write_text('{"cmd": "ls"}\n// comment\n\n{"cmd": "pwd", "x": 1}\nnot json\n')
    (tmp_path / "b.txt").write_text("# c\necho hi\nls\n")
    assert load_seeds(tmp_path) == ("ls", "pwd", "echo hi")


@settings(max_examples=50, deadline=None)
@given(strategy(material()))
def test_hypothesis_strategy_draws_commands(cmd):
    assert isinstance(cmd, str) and cmd.strip()
    assert tokens.split(cmd)   # the tokenizer never fails on generated text
