"""The one option reader (``commands/getopt.py``): the syntax cases as a table, and every
analysis reading the same command through it to the same operands (corpus/option_readings.jsonl)."""

from __future__ import annotations

import pytest
from conftest import load

from shellgate.bash.commands import registry
from shellgate.bash.commands.getopt import Arity, Kind, Option, Syntax, split
from shellgate.bash.commands.gitglobal import GLOBAL, split_globals
from shellgate.bash.commands.spec import Command, read_args
from shellgate.bash.ir import Word
from shellgate.bash.parse.parser import parse
from shellgate.bash.paths import scan as pathscan
from shellgate.bash.paths.roles import COMMANDS
from shellgate.bash.warnings import args as warnargs
from shellgate.bash.warnings import table as T

CASES = load("option_readings.jsonl")


def _readings(cmd: str) -> dict[str, list[str]]:
    """The operands each analysis with a table for the command reads."""
    (c, *_) = parse(cmd).commands
    name, words = c.name or "", c.words[1:]
    out: dict[str, list[str]] = {}
    if name == "git":
        out["read-only"] = [w.text for w in read_args(GLOBAL, words).operands]
        k, _opts = split_globals(words)
        out["paths"] = [w.text for w in words[k:]]
    else:
        table = registry.lookup(name)
        if isinstance(table, Command):
            out["read-only"] = [w.text for w in read_args(table, words).operands]
        if name in COMMANDS:
            spec = COMMANDS[name]
            out["paths"] = [w.text for w in pathscan._parse_opts(words, spec, spec.operands, name).operands]
    if name in T.VALUED:
        out["warnings"] = [w.text for w in warnargs.parse_args(words, T.VALUED[name]).positionals]
    return out


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:50])
def test_every_reader_reads_the_same_operands(case: dict) -> None:
    got = _readings(case["cmd"])
    assert got, "no analysis has a table for this command"
    for reader, operands in got.items():
        assert operands == case["operands"], (reader, got)


def _w(*texts: str) -> list[Word]:
    return [Word(t, t, (0, len(t))) for t in texts]


_COLOR = Option("--color", Arity.OPTIONAL)
_SYNTAX = Syntax({"k": Option("-k", Arity.REQUIRED), "i": Option("-i", Arity.OPTIONAL), "n": Option("-n")},
                 {"--key": Option("--key", Arity.REQUIRED), "--color": _COLOR, "--colour": _COLOR,
                  "--number": Option("-n")})


@pytest.mark.parametrize(("words", "want"), [
    (["-nk2", "f"], [("-n", ()), ("-k", ("2",))]),
    (["-n", "-k", "2", "f"], [("-n", ()), ("-k", ("2",))]),
    (["-i", "f"], [("-i", ())]),                    # optional: only attached
    (["-i.bak", "f"], [("-i", (".bak",))]),
    (["--color", "f"], [("--color", ())]),
    (["--col=auto", "f"], [("--color", ("auto",))]),  # one option behind both prefixes
    (["--ke", "v", "f"], [("--key", ("v",))]),
    (["--key=", "f"], [("--key", ("",))]),
    (["f", "--num"], [("--number", ())]),            # permutation
])
def test_options_read_as_getopt_long(words: list[str], want: list[tuple[str, tuple[str, ...]]]) -> None:
    r = split(_w(*words), _SYNTAX)
    assert r.exact
    assert [(it.name, tuple(v.text for v in it.values)) for it in r.items if it.kind is Kind.OPTION] == want
    assert [w.text for w in r.operands] == ["f"]


@pytest.mark.parametrize(("words", "kind"), [
    (["--x"], Kind.UNKNOWN), (["-nz"], Kind.UNKNOWN), (["--co"], Kind.AMBIGUOUS),
    (["--number=3"], Kind.NO_VALUE), (["-k"], Kind.MISSING),
])
def test_what_the_reader_does_not_understand_is_said(words: list[str], kind: Kind) -> None:
    syntax = Syntax(_SYNTAX.short, {**_SYNTAX.long, "--copy": Option("--copy")})
    r = split(_w(*words), syntax)
    assert not r.exact and kind in {it.kind for it in r.items}


def test_dashdash_permute_and_opaque_words() -> None:
    assert [w.text for w in split(_w("--", "-n"), _SYNTAX).operands] == ["-n"]
    no_dd = Syntax(_SYNTAX.short, _SYNTAX.long, dashdash=False)
    assert not split(_w("--", "f"), no_dd).exact          # unzip reads `--` as an option
    posix = Syntax(_SYNTAX.short, _SYNTAX.long, permute=False)
    assert [w.text for w in split(_w("-n", "f", "-n"), posix).operands] == ["f", "-n"]
    r = split(_w("-n", "$X", "f"), _SYNTAX, opaque=lambda w: w.text.startswith("$"))
    assert [it.kind for it in r.items] == [Kind.OPTION, Kind.OPAQUE] and not r.exact
    assert [w.text for w in r.operands] == ["$X", "f"]
