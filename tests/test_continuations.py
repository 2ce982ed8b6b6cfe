"""Line continuations the way bash reads them, with bash as the oracle.

bash drops an unescaped backslash-newline before it reads any token, except inside single
quotes, ``$'…'``, comments and quoted here-documents (``_lex.joined``). The rows of
corpus/parse_constructs.jsonl and corpus/not_readonly.jsonl hold the cases written by hand; here
generated lines put ``\\⏎`` at every offset of snippets in every quoting context, and every
call of ``f`` bash really makes must be one shellgate lists; and whatever ``bash -n`` rejects
must be a parse failure.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _helpers import BASH, bash_rejects, missed_calls
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.bash.parse.parser import parse

# one snippet per context: unquoted, double quotes, ${…}, $((…)), $[…], backticks (plain and in
# double quotes), here-doc bodies (unquoted and quoted delimiters), comments, single quotes,
# $'…', [[ ]], (( )), arrays, process substitution, compound commands, operators, redirections
# (no two calls of f at once: their records would interleave)
SNIPPETS = [
    "f $(f a)", 'f "$(f b)"', "f ${u:-$(f c)}", 'f "${u:-$(f d)}"', "f $((1+$(f e 1)))",
    "f $[1+$(f g 1)]", "f `f h`", 'f "`f i`"', "f <<E\nx $(f j) `f k`\nE", "f <<'E'\n$(f l)\nE",
    "f m # $(f n)", "f '$(f o)' p", "f $'\\x41' $'q\\'r'", "[[ -n $(f s) ]]", "(( $(f t 1) ))",
    "a=(x $(f u)); f v", "cat <(f w)", "{ f x; }", "(f y)", "f z | cat", "f B && f C || f D",
    "if f E; then f F; fi", "for v in a b; do f $v; done", "case a in a) f G;; esac",
    "f H >/dev/null 2>&1", "f I; f J", "f K\nf L", "f <<<$(f M)", "x=$(f N) f O",
    "f \"a$(f P)b\"'c'", "f $x$(f Q)", "f ${#u} $# $(f R)", "f \"$\"(f S)", "f $ (f T)",
]
BREAK = st.sampled_from(["\\\n"] * 6 + ["\\\\\n", "\\\n\\\n"])


@st.composite
def continued(draw) -> str:
    """A snippet (or two joined) with ``\\⏎`` (sometimes ``\\\\⏎`` or two pairs) inserted at up
    to three offsets anywhere, quotes and comments included."""
    src = draw(st.sampled_from(SNIPPETS))
    if draw(st.booleans()):
        src += draw(st.sampled_from(["; ", "\n", " && "])) + draw(st.sampled_from(SNIPPETS))
    for k in sorted(draw(st.lists(st.integers(0, len(src)), min_size=1, max_size=3)), reverse=True):
        src = src[:k] + draw(BREAK) + src[k:]
    return src


@pytest.mark.skipif(BASH is None, reason="no bash")
@settings(deadline=None, max_examples=300)
@given(continued())
def test_every_call_bash_makes_is_listed(tmp_path_factory: pytest.TempPathFactory, src: str) -> None:
    tmp = tmp_path_factory.mktemp("cont")
    assert missed_calls(src, tmp) in (None, []), repr(src)


@pytest.mark.skipif(BASH is None, reason="no bash")
@settings(deadline=None, max_examples=300)
@given(continued())
def test_what_bash_rejects_does_not_parse(src: str) -> None:
    if bash_rejects(src):
        assert parse(src).error is not None, repr(src)


# what the generated tests must find, spelled out: each was missed or mis-read before
CASES = [
    ('f "$\\\n(f a)"', [["f", ""], ["f", "a"]]),
    ("f $\\\n(f a)", [["f", "a"], ["f"]]),
    ("f $\\\n{u:-$(f b)}", [["f", "b"], ["f"]]),
    ("f $\\\n((1+0$(f c 1)))", [["f", "c", "1"], ["f", "1"]]),
    ("f `f d\\\n e`", [["f", "d", "e"], ["f"]]),
    ("f <<E\n$\\\n(f g)\nE", [["f", "g"], ["f"]]),
    ("f '\\\n' # \\\nf h", [["f", "\\\n"], ["f", "h"]]),
    ("f $\\\n'\\x41'", [["f", "A"]]),
    ("i\\\nf f i; then f j; fi", [["f", "i"], ["f", "j"]]),
]


@pytest.mark.skipif(BASH is None, reason="no bash")
@pytest.mark.parametrize(("src", "calls"), CASES, ids=[repr(c[0])[:40] for c in CASES])
def test_hand_written_cases_are_bashs(tmp_path: Path, src: str, calls: list[list[str]]) -> None:
    """The table is bash's behaviour (checked here), and shellgate lists every call in it."""
    from _helpers import bash_calls, shellgate_calls

    assert sorted(bash_calls(src, tmp_path)) == sorted(calls)
    assert missed_calls(src, tmp_path) == [], shellgate_calls(src)


@pytest.mark.skipif(BASH is None, reason="no bash")
def test_oracle_sees_a_joined_substitution(tmp_path: Path) -> None:
    """The oracle itself: bash runs the substitution a continuation splits."""
    from _helpers import bash_calls

    assert ["f", "a"] in bash_calls('f "$\\\n(f a)"', tmp_path)
    assert bash_rejects("f $\\\n(")
