"""Files named inside sed scripts and awk programs reach the sensitive-path scanner: the
program readers the read-only check uses report (op, name, span), the scanner points its hit
at the name inside the word, and in trust mode (where only a sensitive hit makes a read ask)
such commands now ask. The hit table itself is in corpus/paths_bash.jsonl."""

from __future__ import annotations

from pathlib import Path

import pytest

from shellgate.approval import load_engine
from shellgate.bash.commands.awk import program_files
from shellgate.bash.commands.sed import script_files
from shellgate.bash.facts import Context, PathClass, PathOp
from shellgate.bash.parse.parser import parse
from shellgate.bash.paths import resolve as paths

CTX = Context(cwd=Path("/srv/ws/proj"), workspace=Path("/srv/ws/proj"), home=Path("/home/tester"))
R, W = PathOp.READ, PathOp.WRITE


@pytest.mark.parametrize(("script", "want"), [
    ("1r /a/b", [(R, "/a/b")]),
    ("1r a;p", [(R, "a;p")]),                 # GNU sed: the name runs to the end of the line
    ("$R  two words ", [(R, "two words ")]),  # leading blanks skipped, trailing kept
    ("w out\np", [(W, "out")]),
    ("/x/W o", [(W, "o")]),
    ("s/a/b/gw o", [(W, "o")]),
    ("s|/|x|w o", [(W, "o")]),
    ("s/r x/w y/", []),                       # r and w inside a regex and a replacement
    ("y/rw/wr/", []),
    ("1a r x", []),                           # text of `a`
    ("p;d", []),
])
def test_sed_script_files(script: str, want: list[tuple[PathOp, str]]) -> None:
    got = script_files(script)
    assert [(op, name) for op, name, _ in got] == want
    for _, name, (a, b) in got:
        assert script[a:b] == name


@pytest.mark.parametrize(("prog", "want"), [
    ('{getline l < "/a/b"}', [(R, "/a/b")]),
    ('{getline < "f"}', [(R, "f")]),
    ('{getline a[i] < "f"}', [(R, "f")]),
    ('{getline $2 < "f"}', [(R, "f")]),
    ('{while ((getline x < "f") > 0) n++}', [(R, "f")]),
    ('{getline < ("a" "b")}', [(R, "ab")]),
    ('{getline < "a" "b"}', [(R, "a"), (R, "ab")]),  # mawk reads "a"; a concatenating grammar "ab"
    ('{print > "o"}', [(W, "o")]),
    ('{print $1, $2 >> "o"}', [(W, "o")]),
    ('{printf("%s", $1) > "o"}', [(W, "o")]),
    ('{print > "o" "ut"}', [(W, "out")]),
    ('{print > "a\\/b"}', [(W, "a/b")]),
    ('{print > "/dir/" name}', []),           # computed: unknown, so no name at all
    ('{print > $1}', []),
    ('{getline < $1}', []),
    ('{getline < x}', []),
    ('{"cat f" | getline}', []),              # runs a command: not a path
    ('{print | "cat > f"}', []),
    ('$3 > 100 {print "f"}', []),             # a comparison, not a redirection
    ('{print (a > b)}', []),
    ('{print "unterminated}', []),
])
def test_awk_program_files(prog: str, want: list[tuple[PathOp, str]]) -> None:
    assert [(op, name) for op, name, _ in program_files(prog)] == want


@pytest.mark.parametrize(("cmd", "name"), [
    ("sed '1r /home/tester/.ssh/id_rsa' f", "/home/tester/.ssh/id_rsa"),
    ("sed -n -e p -e '1r /home/tester/.netrc' f", "/home/tester/.netrc"),
    ("sed 's/a/b/w /home/tester/.bashrc' f", "/home/tester/.bashrc"),
    ("awk '{getline l < \"/home/tester/.netrc\"; print l}' f", "/home/tester/.netrc"),
    ("awk '{print > \"/home/tester/.bashrc\"}' f", "/home/tester/.bashrc"),
    ("sed 1r.env f", ".env"),
])
def test_hit_span_points_at_the_name_inside_the_program(cmd: str, name: str) -> None:
    (hit,) = paths.scan(parse(cmd), CTX)
    assert cmd[hit.span[0]:hit.span[1]] == name


def test_hit_span_falls_back_to_the_word() -> None:
    cmd = "sed -e'1r /home/tester/.netrc' f"   # an attached value: the word is the span
    (hit,) = paths.scan(parse(cmd), CTX)
    assert hit.span == (4, len(cmd) - 2) and hit.cls is PathClass.LEAK


def test_expansions_in_the_program_are_read_as_in_any_word() -> None:
    hits = paths.scan(parse('awk "{getline < \\"$HOME/.netrc\\"}" f'), CTX)
    assert {(h.cls, h.op) for h in hits} == {(PathClass.LEAK, PathOp.READ)}
    assert paths.scan(parse('sed "$SCRIPT" f'), CTX) == ()


TRUST = [
    ("sed '1r {home}/.ssh/id_rsa' notes.txt", "ask", "approval.dangerous_path"),
    ("sed -n -e p -e '$R {home}/.aws/credentials' notes.txt", "ask", "approval.dangerous_path"),
    ("sed 's/x/y/w {home}/.bashrc' notes.txt", "ask", "approval.dangerous_path"),
    ("awk '{{getline l < \"{home}/.ssh/id_rsa\"; print l}}' notes.txt", "ask", "approval.dangerous_path"),
    ("awk '{{print > \"{home}/.bashrc\"}}' notes.txt", "ask", "approval.dangerous_path"),
    ("sed '1r README.md' notes.txt", "allow", "chain.mode_matrix"),
    ("awk '{{print > \"out.txt\"}}' notes.txt", "allow", "chain.mode_matrix"),
]


@pytest.fixture(scope="module")
def trust(tmp_path_factory):
    root = tmp_path_factory.mktemp("trust")
    ws, home = root / "ws", root / "home"
    ws.mkdir()
    home.mkdir()
    engine = load_engine(ws, "trust", None, ask_as_deny=False, audit=False, store=False, home=home,
                         user_config=False, project_config=False)
    return engine, home


@pytest.mark.parametrize(("cmd", "verdict", "rule"), TRUST, ids=[c for c, _, _ in TRUST])
def test_trust_mode_asks_for_a_secret_named_in_a_program(trust, cmd: str, verdict: str, rule: str) -> None:
    engine, home = trust
    d = engine.decide_bash(cmd.format(home=home))
    assert (d.verdict, d.rule) == (verdict, rule), d.reason
