"""awk programs against real mawk and gawk: whatever shellgate calls read-only must not run a
command or write a file in either.

Programs are generated around the places where a ``/`` is a regex to one reader and a
division to another (after ``print``, ``printf``, ``return``, ``$``, ``if (…)``, a name, a number,
``)``), with comments, strings and brackets that such a misreading would hide, and effects
(``system()``, ``print >``, ``print |``) that create a file in the working directory. Each
program runs in an empty directory with one input line; a file appearing there is an effect.
The hand-written rows are in corpus/not_readonly.jsonl and corpus/readonly.jsonl.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

AWKS = [a for a in ("mawk", "gawk") if shutil.which(a)]

SLASHY = ["print /#/", "printf /#/", "print 1/2", "x = 4 / 2", "print x /2/ 1", "n = /x/ + 1",
          "if (x) /y/", "print $1/2", "x = $/#/", "print /\"/", "print a[1] /2/ 3", "return /#/",
          "x /= 2", "print /=/", "print (1)/2/1", "print 1 /[/]/", "print \"a/b\""]
HIDERS = ["# ", "\"", "/", "[", "]", ";", "\n", " ", "x", "(", ")"]
EFFECTS = ['system("touch s")', 'print "x" > "p"', 'print "" | "touch q"', 'x = 1system("touch s")',
           'print "x",\n"y" > "p"', 'print 1 &&\n\n1 > "p"']


@st.composite
def programs(draw) -> str:
    """``BEGIN { … }`` (or a main rule, or a function called from BEGIN) holding slash
    fragments, hiding characters and effects in any order."""
    parts = draw(st.lists(st.one_of(st.sampled_from(SLASHY), st.sampled_from(HIDERS),
                                    st.sampled_from(EFFECTS)), min_size=1, max_size=6))
    body = " ".join(p if p in HIDERS else p + ";" for p in parts)
    shape = draw(st.sampled_from(["BEGIN { %s }", "{ %s }", "function g(x) { %s } BEGIN { g(1) }"]))
    return shape % body


def _effects(awk: str, prog: str, tmp: Path) -> list[str]:
    """The files ``awk prog`` creates in the empty directory ``tmp`` (one input line)."""
    for f in tmp.iterdir():
        f.unlink()
    subprocess.run([awk, prog], cwd=tmp, input="a b\n", capture_output=True, text=True,
                   timeout=10, check=False)
    return sorted(f.name for f in tmp.iterdir())


def _readonly(prog: str, tmp: Path) -> bool:
    ctx = Context(cwd=tmp, workspace=tmp, home=tmp / "home")
    return analyse("awk " + shlex.quote(prog), ctx).readonly


@pytest.mark.skipif(not AWKS, reason="neither mawk nor gawk")
@settings(deadline=None, max_examples=400)
@given(programs())
def test_readonly_programs_have_no_effect(tmp_path_factory: pytest.TempPathFactory, prog: str) -> None:
    tmp = tmp_path_factory.mktemp("awk")
    if _readonly(prog, tmp):
        for awk in AWKS:
            assert _effects(awk, prog, tmp) == [], (awk, prog)


@pytest.mark.skipif(not AWKS, reason="neither mawk nor gawk")
@pytest.mark.parametrize("prog", ['BEGIN { print /#/; system("touch s") }',
                                  'BEGIN { x = $/#/; system("touch s") }'])
def test_oracle_sees_the_regex_reading(tmp_path: Path, prog: str) -> None:
    """Both awks read these ``/`` as a regex and run system(); shellgate refuses them."""
    for awk in AWKS:
        assert _effects(awk, prog, tmp_path) == ["s"], awk
    assert not _readonly(prog, tmp_path)


# A number ends where awk ends it (`1system(…)` is 1, then a call), and a print statement goes
# on after a newline that follows `,`, `&&`, `||`, `{`, `?`, `:` (awk's newline_opt).
HIDDEN = ['BEGIN { x = 1system("touch s") }', 'BEGIN { x = 1e5system("touch s") }',
          'BEGIN { x = 0x1system("touch s") }', 'BEGIN { x = 1getline l < "/etc/hostname"; print l > "p" }',
          'BEGIN { print "a",\n"b" > "p" }', 'BEGIN { print 1 &&\n1 > "p" }',
          'BEGIN { print 0 ||\n\n1 > "p" }', 'BEGIN { print 1 ?\n2 : 3 > "p" }']


@pytest.mark.skipif(not AWKS, reason="neither mawk nor gawk")
@pytest.mark.parametrize("prog", HIDDEN)
def test_what_a_reading_hid_is_seen(tmp_path: Path, prog: str) -> None:
    assert any(_effects(awk, prog, tmp_path) for awk in AWKS), "no awk shows the effect: not a case"
    assert not _readonly(prog, tmp_path)
