"""The plain-words path (``Walker.plain``: one simple command of plain words, no lexing) gives
exactly the script of the full path (lexer, ``_fast.py``, walker): on the real corpus, on our
own tables, and on generated input built from plain words, reserved words and near misses."""

from __future__ import annotations

import pytest
from _helpers import corpus_commands, parsed_in
from conftest import CORPUS_DATA, load
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.bash.ir import Script
from shellgate.bash.parse import walk


def both(src: str) -> tuple[Script, Script, bool]:
    """(plain path, full path, whether the plain path was taken)."""
    plain, full = parsed_in(src, "plain", "fast")
    return plain, full, walk.Walker.plain(src) is not None


@pytest.mark.skipif(not CORPUS_DATA.is_dir(), reason=f"no corpus data at {CORPUS_DATA}")
def test_plain_path_matches_full_path_on_corpus() -> None:
    diffs, taken = [], 0
    for src in corpus_commands(7):
        plain, full, used = both(src)
        taken += used
        if plain != full:
            diffs.append(src)
    assert not diffs, diffs[:5]
    assert taken > 1000  # it is taken on a good part of real commands


@pytest.mark.parametrize("name", ["parse_constructs.jsonl", "readonly.jsonl", "not_readonly.jsonl",
                                  "warn.jsonl"])
def test_plain_path_matches_full_path_on_tables(name: str) -> None:
    try:
        cases = load(name)
    except FileNotFoundError:
        pytest.skip(f"no corpus/{name}")
    for case in cases:
        plain, full, _ = both(case["cmd"])
        assert plain == full, case["cmd"]


@pytest.mark.parametrize("src", [
    "ls -la src", "  python3 fix.py\t", "sudo npm test", "bash -c ls", "sh -c alias",
    "nice -n 5 timeout 10 make", "find . -name x -exec rm", "xargs rm", "eval ls",
    "let x", "env FOO=1 ls", "time ls", "ls time", "if", "echo done", "fi", "coproc cat",
    "alias", "watch -n 1 ls", "trap ls EXIT", "a" + " a" * 6000, "bash -c 'ls -la; id'",
    "sudo -u 'x y' ls", "eval 'a=b'", "sudo ls | xargs rm && bash -c 'a|b' ; nice ls",
    "alias x=y; ls", "ls;ls", "a | b | c || d && e", "x | alias 'a=b'",
    "alias 'x=y'", "alias \"x=y\"\nls", "find . -exec 'rm' {} +",
])
def test_plain_path_matches_full_path_on_cases(src: str) -> None:
    plain, full, _ = both(src)
    assert plain == full


def test_plain_text_is_the_decoders_plain_word() -> None:
    from shellgate.bash.parse import _decode

    assert walk._TEXT_IS_SOURCE is _decode._PLAIN_WORD  # one pattern, not a copy that can drift


def test_plain_path_refuses_what_needs_the_lexer() -> None:
    for src in ["ls;", "ls &", "ls |& wc", "ls ;; x", "ls && b=1 c", "| ls", "ls ||",
                "a=1 ls", "ls ~user", "ls @(a)", "ls {a,b}", "echo $x", "a[1]=x ls", "ls\nls", "ls #c",
                "ls > f", "echo done", "time ls", "{ ls; }", "ls\\ x", "ls \v", "", 'echo "$x"',
                "echo 'a\nb'", 'echo "a\\b"', "echo 'a", "'a=b' x", "echo `x`"]:
        assert walk.Walker.plain(src) is None, src
    for src in ["git status -s", "grep -rn 'foo bar' src", 'echo "a b" x=1', "sed -n '1,2p' f",
                "ls; ls", "ls | wc", "a|b&&c||d;e", "git diff | head -5 && git log 'a|b'",
                "ls ~/x *.py [ab]? ~"]:
        assert walk.Walker.plain(src) is not None, src


_ATOMS = ["ls", "a", "-x", "--y=z", "./p", "1", "%1", "é", "bash", "-c", "sudo", "xargs", "find",
          "-exec", "eval", "alias", "time", "if", "done", "{", "!", "a=b", "~", "*", "'q'", "$x",
          ";", "|", "\t", "  ", "#", "\\", "\v", "'a b'", '"x y"', "'$(id)'", '"$x"', "'if'",
          "''", '""', "'a'b\"c\"", '"!x"', "'*'", '"~"', "'\\'", "'a=b'", '"a;b|c"', "'", '"',
          "&&", "||", "|", ";", "&", "|&", "ls;", ";ls", "a|b", "~/x", "~u", "[", "]", "[[", "]]",
          "a*", "?", "[a-z]", "'~'*", "x=~/y", "-", "@", "+"]


@settings(deadline=None)
@given(st.lists(st.sampled_from(_ATOMS), min_size=1, max_size=14).map(" ".join))
def test_plain_path_matches_full_path_generated(src: str) -> None:
    plain, full, _ = both(src)
    assert plain == full
