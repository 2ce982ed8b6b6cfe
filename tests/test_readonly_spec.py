"""The table language and its getopt-like reader, the embedded-language scanners, and every
unsafe flag of every table refused under every abbreviation getopt would accept."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from shellgate.bash.analysis import analyse
from shellgate.bash.commands import registry
from shellgate.bash.commands.awk import program_problems
from shellgate.bash.commands.expansions import arith_problem, problems
from shellgate.bash.commands.sed import script_problems
from shellgate.bash.commands.spec import Command, Flag, Takes, is_wild, read_args
from shellgate.bash.facts import Context
from shellgate.bash.ir import Word


def W(text: str, *, static: bool = True, glob: bool = False, raw: str | None = None) -> Word:
    return Word(text=text, raw=raw if raw is not None else text, span=(0, len(text)), static=static,
                glob=glob)


SORTLIKE = Command(
    "sortlike",
    safe=[Flag("-n", "--numeric"), Flag("-k", "--key", takes=Takes.VALUE), Flag("-r", "--reverse"),
          Flag("--random-source", takes=Takes.PATH), Flag("-i", "--in", takes=Takes.VALUE, optional=True)],
    unsafe={Flag("-o", "--output", takes=Takes.WRITE_PATH): "writes a file",
            Flag("--compress-program", takes=Takes.PROGRAM): "runs a program"},
)


def _read(*words: str, cmd: Command = SORTLIKE):
    return read_args(cmd, [W(w) for w in words])


def test_bundled_short_flags_and_attached_values() -> None:
    p = _read("-nrk2", "f")
    assert [o.spelled for o in p.opts] == ["-n", "-r", "-k"]
    assert p.opts[2].value.text == "2"
    assert [w.text for w in p.operands] == ["f"]
    assert not p.findings


def test_separate_value_and_long_equals() -> None:
    p = _read("-k", "2", "--key=3", "--key", "4", "f")
    assert [v.text for v in p.values_of("-k")] == ["2", "3", "4"]
    assert [w.text for w in p.operands] == ["f"]


def test_unique_prefix_resolves_like_getopt_but_is_not_accepted() -> None:
    p = _read("--num", "--rev", "f")
    assert [o.flag.long for o in p.opts] == ["--numeric", "--reverse"]
    assert [f.rule for f in p.findings] == ["readonly.abbreviation"] * 2
    assert "--reverse" in p.findings[1].message
    assert not _read("--numeric", "--reverse", "f").findings


def test_abbreviation_of_unsafe_flag_is_refused_with_its_full_name() -> None:
    p = _read("--out=x", "f")
    assert p.findings and "--output" in p.findings[0].message
    p = _read("--compress-prog=sh", "f")
    assert p.findings and "runs a program" in p.findings[0].message


def test_unknown_and_ambiguous_long_options() -> None:
    assert "unknown" in _read("--frobnicate", "f").findings[0].message
    amb = Command("x", safe=[Flag("--alpha"), Flag("--alps")])
    assert "ambiguous" in _read("--al", cmd=amb).findings[0].message


def test_short_unsafe_inside_a_bundle() -> None:
    p = _read("-nro", "out", "f")
    assert any("writes a file" in f.message for f in p.findings)


def test_optional_value_only_attached() -> None:
    p = _read("-i", "x")
    assert p.opts[0].values == () and [w.text for w in p.operands] == ["x"]
    p = _read("-i.bak", "x")
    assert p.opts[0].value.text == ".bak"


def test_double_dash_ends_options() -> None:
    p = _read("--", "-o", "x")
    assert not p.findings and [w.text for w in p.operands] == ["-o", "x"]


def test_permutation_and_posix_stop() -> None:
    assert _read("f", "-o", "x").findings  # GNU permutes: -o after an operand is still -o
    posix = Command("p", safe=[Flag("-n")], permute=False)
    p = read_args(posix, [W("-n"), W("cmd"), W("-x")])
    assert not p.findings and [w.text for w in p.operands] == ["cmd", "-x"]


def test_value_that_looks_like_a_long_option_is_refused() -> None:
    assert _read("-k", "--output=x", "f").findings


def test_wild_words() -> None:
    assert is_wild(W("$x", static=False))
    assert is_wild(W("*", glob=True))
    assert is_wild(W("{-o,x}", glob=True))
    assert not is_wild(W("src/*.py", glob=True))
    assert not is_wild(W("src/$x", static=False, raw='"src/$x"'))
    assert is_wild(W("src/$x", static=False, raw="src/$x"))  # unquoted: may split
    # a command with unsafe flags refuses wild words; one without accepts them
    assert read_args(SORTLIKE, [W("$x", static=False)]).findings
    plain = Command("plain", safe=[Flag("-n")])
    assert not read_args(plain, [W("$x", static=False)]).findings
    assert read_args(SORTLIKE, [W("f")], wild_tail=True).findings


def test_numeric_flags() -> None:
    head = registry.lookup("head")
    assert isinstance(head, Command)
    assert not read_args(head, [W("-20"), W("f")]).findings


def _abbreviations(long: str, others: list[str]) -> list[str]:
    """Every prefix of ``long`` (at least 3 chars after --) that no other option shares."""
    out = []
    for k in range(5, len(long)):
        pre = long[:k]
        if not any(o.startswith(pre) for o in others if o != long):
            out.append(pre)
    return out


def _unsafe_cases():
    for name, spec in sorted(registry.TABLE.items()):
        if not isinstance(spec, Command) or " " in name or spec.free:
            continue
        longs = [n for f in (*spec.safe, *spec.unsafe) for n in f.names if n.startswith("--")]
        for flag in spec.unsafe:
            for n in flag.names:
                value = "=x" if flag.takes is not Takes.NONE else ""
                yield f"{name} {n}{value} a" if n.startswith("--") else f"{name} {n} x a"
                if n.startswith("--") and spec.abbrev:
                    for pre in _abbreviations(n, longs):
                        yield f"{name} {pre}{value} a"


UNSAFE_CASES = sorted(set(_unsafe_cases()))


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> Context:
    base = tmp_path_factory.mktemp("spec")
    return Context(cwd=base, workspace=base, home=base / "home")


def test_there_are_many_unsafe_cases() -> None:
    assert len(UNSAFE_CASES) > 150


@pytest.mark.parametrize("cmd", UNSAFE_CASES)
def test_every_unsafe_flag_and_abbreviation_is_refused(cmd: str, ctx: Context) -> None:
    a = analyse(cmd, ctx)
    assert not a.readonly, cmd


# --- sed ---

@pytest.mark.parametrize("script", [
    "p", "1,80p", "$p", "/a/,/b/p", "s/a/b/g", "s|a/b|c|gp", "s/e/w/", "s/a/b/;s/c/d/2", "y/ab/cd/",
    "1d;$d", "/x/!d", "0,/re/d", "1~2p", "2,+3p", "/a/I,/b/Mp", "{p;p}", ":a;N;$!ba;s/\\n/ /g",
    "a\\\ntext", "i hello", "c\\\nx", "=", "l", "q5", "s/x/\\n/", r"\,a,p", "#n\np", "s/a\\/w/b/",
    "s/[abc]/x/g", "s/[]]/x/", "/[[:space:]]/d", "s/[/]/x/", "s/\\/[^/]*$//p", "/a[/]b/p",
])
def test_sed_readonly_scripts(script: str) -> None:
    assert script_problems(script) == [], script


@pytest.mark.parametrize("script", [
    "e", "1e id", "s/a/b/e", "s/a/b/w out", "s/a/b/gw out", "w out", "W out", "r /etc/passwd",
    "R x", "1{e id\n}", "p;e", "$!{e\n}", "s|a|b|e", "s/a/b/ge", "/x/w o", "k", "s/a/b/z", "s/a",
    # inert for seds that skip [...] in regexes, but runs `e` on seds that do not
    "s/[/]/e;#/",
])
def test_sed_refused_scripts(script: str) -> None:
    assert script_problems(script), script


# --- awk ---

@pytest.mark.parametrize("prog", [
    "{print $1}", "$3 > 100", "NR==1", "/foo|bar/ {n++} END {print n}", "{print (a > b)}",
    'BEGIN{FS=":"} {print $1}', '{ s += $2 } END { printf "%d\\n", s }', "{print $1/2}",
    '{print "system getline >"}', "# system()\n{print}", "length($0) > 72",
])
def test_awk_readonly_programs(prog: str) -> None:
    assert program_problems(prog) == [], prog


@pytest.mark.parametrize("prog", [
    'BEGIN{system("id")}', '{print > "out"}', '{print $1 >> "f"}', '{print | "sh"}',
    '{"date" | getline d}', 'BEGIN{getline < "/etc/shadow"}', '{printf("%s", $0) > "f"}',
    '@load "x"', 'BEGIN{f="system"; @f("id")}', 'BEGIN{ARGV[1]="/etc/shadow"}', '{print |& "cat"}',
    'BEGIN{print "unterminated}', '{print > $2}',
])
def test_awk_refused_programs(prog: str) -> None:
    assert program_problems(prog), prog


# --- expansions ---

@pytest.mark.parametrize("raw", ["$x", '"$x"', "${x}", "${x:-d}", "${x#p}", "${x/a/b}", "${#x}",
                                 "${x:1:2}", "${a[0]}", "${a[@]}", "$(ls)", "`ls`", '"${x:-$(ls)}"',
                                 "$((1+2))", "'${x@P}'", "$'\\x41'"])
def test_inert_expansions(raw: str) -> None:
    assert problems(raw) == [], raw


@pytest.mark.parametrize("raw", ["${x@P}", '"${x@P}"', "${!x}", "${x:=1}", "${x=1}", "${a[$i]}",
                                 "${a[i]}", "${x:$n}", "$((x))", "$((x=1))", "$((1++))", "$[1]",
                                 '"${x:-${y@P}}"', "${x:-$(echo ${y@P})}",
                                 # unterminated: read as "could not be read exactly", no raise
                                 "${x:-'abc}", "$[1", "${a[1}", "$((1", "${x"])
def test_dangerous_expansions(raw: str) -> None:
    assert problems(raw), raw


@given(st.text(alphabet="${}[]()'\"`\\:-=#@!ax1 \n", max_size=24), st.booleans())
def test_expansion_scanner_never_raises(raw: str, heredoc: bool) -> None:
    assert isinstance(problems(raw, heredoc=heredoc), list)


def test_arith_problem() -> None:
    assert arith_problem("1 + 2 * (3 - 1)") is None
    assert arith_problem("1 == 2") is None
    assert arith_problem("x") and arith_problem("1 = 2") and arith_problem("a[1]")


# --- write targets ---

def test_symlink_escape_is_not_a_plain_write(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / "link").symlink_to(outside)
    ctx = Context(cwd=ws, workspace=ws, home=tmp_path / "home")
    assert analyse("echo x > ok.txt", ctx).effect.value == "write"
    assert analyse("echo x > link/f.txt", ctx).effect.value == "exec"
    assert analyse("touch link/f", ctx).effect.value == "exec"
    assert analyse("sed -i s/a/b/ link/f", ctx).effect.value == "exec"


def test_workspace_reached_through_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    alias = tmp_path / "alias"
    alias.symlink_to(real)
    ctx = Context(cwd=alias, workspace=alias, home=tmp_path / "home")
    assert analyse("touch f", ctx).effect.value == "write"


def test_cwd_outside_workspace(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    ctx = Context(cwd=tmp_path, workspace=ws, home=tmp_path / "home")
    assert analyse("touch f", ctx).effect.value == "exec"
    assert analyse("touch ws/f", ctx).effect.value == "write"
    assert analyse("cd ws && touch f", ctx).effect.value == "exec"  # ./f is a candidate too
