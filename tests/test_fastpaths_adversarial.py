"""Adversarial differential tests of the fast paths against the general ones (and against bash).

Each fast path claims to give the answer of the code it short-cuts; here each is run with the
fast path on and forced off, on generated hostile input (quotes, control characters, unicode,
reserved words, operators, globs, tildes, symlink trees):

- parser: ``Walker.plain`` and ``_fast.py`` against the lexer + bashlex path, and the argv of
  plain-path commands against real bash;
- paths: ``_real`` (with its per-scan memo) against ``os.path.realpath`` on real symlink trees,
  ``_literal_alts`` against matching every rule, ``_plain_path`` against ``candidates``;
- the whole gate (``Gate.check(...).to_json()``) with every fast path forced off at once,
  including the pathscan shortcut for inert commands and the classifier's reuse of checks.

Each comparison is shown to detect a planted difference. The two holes these tests found
(``2>&-word`` read as one redirect target; ``link/..`` resolved as text, not on disk) are
fixed, and their cases below are plain required passes.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import re
import subprocess
from collections.abc import Iterator
from contextvars import copy_context
from pathlib import Path

import _helpers
import pytest
from _helpers import BASH, bash_calls, missed_calls, parsed_in, parser_mode, shellgate_calls
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate._record import replace
from shellgate.approval.classifier import readonly_commands, write_paths
from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context
from shellgate.bash.ir import Script
from shellgate.bash.parse import walk
from shellgate.bash.parse.parser import parse
from shellgate.bash.paths import resolve as paths
from shellgate.bash.paths import scan as pathscan
from shellgate.check import Gate

# --------------------------------------------------------------------------- switches


def _brute_alts(path: str, table) -> list:
    """Every rule a literal path matches, without the index or the literal-end prefilter."""
    low = path.lower()
    key = "" if low == "/" else low
    base = low.split("/")[-1]
    return [a for a in table.alts if a.regex.fullmatch(key) and not (a.exclude and a.exclude.fullmatch(base))]


@contextlib.contextmanager
def slow_paths(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every fast path of the scanner and the harness off: no plain words, realpath instead of
    the memoised walk, every rule matched, no inert-command shortcut, no reuse of checks."""
    with monkeypatch.context() as m, parser_mode("bashlex"):
        m.setattr(paths, "_plain_path", lambda text, ctx, glob: None)
        m.setattr(paths, "_real", os.path.realpath)
        m.setattr(paths, "_literal_alts", _brute_alts)
        real_tables = pathscan._spec_tables

        def no_quiet(spec):
            got = real_tables(spec)
            return got[0], got[1], got[2], False
        m.setattr(pathscan, "_spec_tables", no_quiet)
        from shellgate.bash import analysis as analysis_mod
        real_analyse = analysis_mod.analyse

        def analyse_unchecked(*a, **k):
            res = real_analyse(*a, **k)
            return replace(res, checks=None) if getattr(res, "checks", None) is not None else res
        m.setattr(analysis_mod, "analyse", analyse_unchecked)
        yield


def three_ways(src: str) -> dict[str, Script]:
    modes = ("plain", "fast", "bashlex")
    return dict(zip(modes, parsed_in(src, *modes), strict=True))


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[.*\])?\+?=", re.S)


def _bashlex_overrefuses(fast: Script, full: Script) -> bool:
    """bashlex refuses a first word like ``é=x`` as an "ambiguous assignment word"; bash runs
    it as a command of that name (non-ASCII letters are no identifier: see
    test_non_ascii_assignment_is_a_command_in_bash), which is what the fast paths give."""
    if full.error.reason != "ambiguous assignment word" or not fast.commands:
        return False
    first = fast.commands[0].words[:1]
    return bool(first) and "=" in first[0].text and not _IDENT.match(first[0].text)


def parse_agrees(src: str) -> list[str]:
    """Disagreements between the three parser paths on ``src`` (empty: they agree). A fast path
    must never accept what the general path refuses, and must give its commands when both accept."""
    got = three_ways(src)
    full = got["bashlex"]
    bad = []
    for mode in ("plain", "fast"):
        s = got[mode]
        if s.error is None and full.error is not None:
            if _bashlex_overrefuses(s, full):
                continue
            bad.append(f"{mode} accepts what bashlex refuses ({full.error.reason})")
        elif s.error is None and full.error is None and s != full:
            bad.append(f"{mode} differs from bashlex")
    if got["plain"] != got["fast"]:
        bad.append("plain differs from fast")
    return bad


# --------------------------------------------------------------------------- parser: generated

_ATOMS = [
    # plain words and near misses
    "ls", "cat", "a", "-x", "--y=z", "./p", "1", "%1", "é", "ｌｓ", "ß", "İ", "x\u00a0y", "\u00a0",
    "\u2028", "\u200b", "a\u0301", "٣", "_", "^", "a^b", ",", "@", "+", ":", "x:y", "-",
    # wrappers / builtins / reserved words
    "sudo", "xargs", "find", "-exec", "eval", "alias", "unalias", "time", "-p", "coproc", "if", "then",
    "fi", "done", "in", "function", "select", "case", "esac", "{", "}", "!", "[[", "]]", "[", "]",
    "command", "builtin", "exec", "bash", "-c", "env", "nice", "timeout", "5", "echo", "rm", "-rf",
    # assignments and `=`
    "a=b", "=", "=x", "x=", "A_1+=2", "a[1]=x", "cmd=a=b", "'a'=b", "a'=b'",
    # quoting
    "'q'", "''", '""', "'a b'", '"x y"', "'$(id)'", '"$x"', "$'a\\nb'", "$'\\x41'", "$\"x\"", "'if'",
    "\"time\"", "'a'b\"c\"", '"!x"', "'*'", '"~"', "'\\'", '"a;b|c"', "'", '"', "\\", "\\ ", "a\\ b",
    "\\\n", "a\\\nb", "'a\nb'", '"a\nb"', "'\t'", '"#"', "'#'",
    # control characters
    "\t", "  ", "\r", "\v", "\f", "\x01", "\x1b", "\x7f", "\x1c", "\n",
    # comments
    "#", "#c", "a#b", " #x", "a #b",
    # operators
    "&&", "||", "|", ";", "&", "|&", ";;", ";&", "&>", ">", "<", "<<<", "2>&1", ">|", "ls;", ";ls",
    "a|b", "a&&b", "a&b",
    # globs, braces, tildes, paths
    "*", "?", "[a-z]", "[!a]", "a*", "**", "@(a)", "!(a)", "+(a)", "{a,b}", "{1..3}", "{}", "~", "~root",
    "~/.ssh", "~+", "~-", "x=~/y", "/etc/passwd", "..", ".", "//x", "/./x", "a/", "~/.ssh/id_rsa",
    ".env", "ID_RSA", ".SSH/id_rsa",
    # substitutions (never plain)
    "$x", "${x}", "$(id)", "`id`", "<(ls)", "$((1))",
]


@settings(deadline=None)
@given(st.lists(st.sampled_from(_ATOMS), min_size=1, max_size=10),
       st.lists(st.sampled_from([" ", "", "\t", " ; ", " | ", "&&", "\n"]), min_size=9, max_size=9))
def test_parser_paths_agree_on_generated_atoms(atoms: list[str], seps: list[str]) -> None:
    src = "".join(a + s for a, s in zip(atoms, seps, strict=False)).rstrip("\n ")
    assert parse_agrees(src) == [], repr(src)


_CHARS = "ab=-./~*?[]'\" \t|&;#\\$\n\r\v{}()!<>%^:,@+é\u00a0\u3000ｘ"


@settings(deadline=None)
@given(st.text(alphabet=_CHARS, min_size=1, max_size=24))
def test_parser_paths_agree_on_character_soup(src: str) -> None:
    assert parse_agrees(src) == [], repr(src)


@settings(deadline=None)
@given(st.text(min_size=1, max_size=16))
def test_parser_paths_agree_on_any_unicode(src: str) -> None:
    assert parse_agrees(src) == [], repr(src)


@pytest.mark.parametrize("src", [
    "ls " + "a" * 200_000, "ls " + "a " * 30_000, "a" + " |a" * 3000, "'" + "x" * 100_000 + "'",
    "ls\r", "ls\r\nls", "ls \u00a0", "ｌｓ -la", "ls\u3000x", "time -p ls", "! ls", "coproc ls",
    "{ ls; }", "[[ -f x ]]", "[[ a", "ls ]]", "]] ls", "ls [[", "time", "!", "if ls; then x; fi",
    "a=b", "a=b ls", "ls a=b", "=a ls", "'a=b' ls", "\"a\"=b ls", "a\\=b ls", "ls #x", "ls a#b",
    "ls|&wc", "ls&", "ls&&", "ls;;", "ls;;x", "ls ;", "ls; ; ls", "ls<<<x", "alias ls=rm; ls",
    "alias ls=rm\nls", "alias 'ls=rm'\nls", "ls \\\n-la", "l\\\ns", "ti\\\nme ls", "ls '\n'",
    "ls ~root/.ssh", "ls ~/.ssh", "ls ~+/x", "sudo -u root cat /etc/shadow", "env a=b cat x",
    "xargs -I{} cat {}", "find . -exec cat {} \\;", "bash -c 'cat ~/.ssh/id_rsa'", "eval 'id;ls'",
    "exec ls", "command ls", "builtin echo x", "nice -n 5 bash -c id", "timeout 5 sh -c 'id'",
], ids=lambda s: repr(s)[:40])
def test_parser_paths_agree_on_cases(src: str) -> None:
    assert parse_agrees(src) == [], repr(src)


def test_parse_agreement_detects_a_planted_difference(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plain path that drops the last word is caught."""
    real_plain = walk.Walker.plain.__func__

    def lossy(cls, src):
        w = real_plain(cls, src)
        if w is not None and w._plain and len(w._plain[0][0]) > 1:
            words, via = w._plain[0]
            w._plain[0] = (words[:-1], via)
        return w
    monkeypatch.setattr(walk.Walker, "plain", classmethod(lossy))
    assert parse_agrees("ls -la src") != []


# --------------------------------------------------------------------------- parser vs bash

_ORACLE_ATOMS = ["a", "b.c", "-x", "--y=z", "%1", "é", "ｘ", "a,b", "x:y", "@", "+", "^", "=", "a=b",
                 "'q'", "''", '""', "'a b'", '"x y"', "'\\'", "'\"'", '"\'"', "'a'b\"c\"", "'|'", '";"',
                 "'#'", "'&&'", '"*"', "*", "?", "[a]", "[", "]", "'\t'", '" "', "'é x'"]


def _bash_argv(src: str, tmp: Path) -> list[str]:
    """The words bash gives the command ``src`` (first word replaced by a function printing
    them), with globbing off so that patterns come back as written."""
    prog = "f() { for a; do printf '%s\\0' \"$a\"; done; }; set -f; " + src
    out = subprocess.run([BASH, "-c", prog], cwd=tmp, capture_output=True, timeout=10, check=True,
                         env={"PATH": os.environ.get("PATH", ""), "LC_ALL": "C.UTF-8"}).stdout
    return ["f", *out.decode("utf-8").split("\0")[:-1]]


@pytest.mark.skipif(BASH is None, reason="no bash")
@settings(deadline=None, max_examples=60)
@given(st.lists(st.lists(st.sampled_from(_ORACLE_ATOMS), min_size=1, max_size=3).map("".join),
                max_size=6))
def test_plain_path_argv_is_bashs(tmp_path_factory: pytest.TempPathFactory, words: list[str]) -> None:
    src = " ".join(["f", *words])
    with parser_mode("plain"):
        assert walk.Walker.plain(src) is not None, src  # the alphabet is plain
        script = parse(src)
    assert script.error is None, src
    got = [w.text for w in script.commands[0].words]
    assert got == _bash_argv(src, tmp_path_factory.getbasetemp()), repr(src)


@pytest.mark.skipif(BASH is None, reason="no bash")
def test_bash_oracle_detects_a_difference(tmp_path: Path) -> None:
    assert _bash_argv("f 'a b' c", tmp_path) == ["f", "a b", "c"]
    assert _bash_argv("f 'a b' c", tmp_path) != ["f", "a", "b", "c"]


# --------------------------------------------------------------------------- _real vs realpath


def _make_tree(root: Path, spec: list[tuple[str, str]]) -> None:
    """Builds ``spec`` under ``root``: (relative path, "d" | "f" | "l:<target>"). An entry whose
    parent is missing gets real directories; one below a link or a file is skipped (nothing is
    ever written through a link, which may lead out of ``root``)."""
    for rel, kind in spec:
        cur = root
        ok = True
        for name in rel.split("/")[:-1]:
            cur = cur / name
            if cur.is_symlink() or (cur.exists() and not cur.is_dir()):
                ok = False
                break
            if not cur.exists():
                cur.mkdir()
        p = root / rel
        if not ok or p.exists() or p.is_symlink():
            continue
        if kind == "d":
            p.mkdir()
        elif kind == "f":
            p.write_text("x")
        else:
            os.symlink(kind[2:].replace("@ROOT", str(root)), p)


_NAMES = ["a", "b", "c", ".ssh", "Id_rsa"]
_TARGETS = ["a", "b", "..", ".", "a/b", "../a", "../../c", "@ROOT/a", "@ROOT/b/c", "/etc", "/nonexist",
            "c/../a", "a//b/", "x", "self"]


@st.composite
def trees(draw) -> list[tuple[str, str]]:
    spec = []
    for _ in range(draw(st.integers(1, 8))):
        depth = draw(st.integers(1, 3))
        rel = "/".join(draw(st.sampled_from(_NAMES)) for _ in range(depth))
        kind = draw(st.sampled_from(["d", "f", "l"]))
        if kind == "l":
            t = draw(st.sampled_from(_TARGETS))
            kind = "l:" + (rel.rsplit("/", 1)[-1] if t == "self" else t)
        spec.append((rel, kind))
    return spec


_QUERY_PIECES = [*_NAMES, "..", ".", "", "zz", "ID_RSA"]


@settings(deadline=None, max_examples=80)
@given(trees(), st.lists(st.lists(st.sampled_from(_QUERY_PIECES), min_size=1, max_size=6), min_size=1,
                         max_size=6))
def test_real_is_realpath_on_symlink_trees(tmp_path_factory: pytest.TempPathFactory,
                                           spec: list[tuple[str, str]], queries: list[list[str]]) -> None:
    """Many queries in one scan share the memo: each gives realpath of the normalised path."""
    root = Path(os.path.realpath(tmp_path_factory.mktemp("tree")))
    _make_tree(root, spec)

    def run() -> list[tuple[str, str, str]]:
        token = paths._WALKED.set({})
        try:
            out = []
            for q in queries:
                path = paths._normpath(f"{root}/" + "/".join(q))
                out.append((path, paths._real(path), os.path.realpath(path)))
            return out
        finally:
            paths._WALKED.reset(token)

    for path, got, want in copy_context().run(run):
        assert got == want, (spec, path)


def test_real_comparison_detects_a_planted_difference(tmp_path: Path) -> None:
    root = Path(os.path.realpath(tmp_path))
    _make_tree(root, [("a", "d"), ("l", "l:a")])
    token = paths._WALKED.set({f"{root}/l": (f"{root}/wrong", False)})  # a stale memo entry
    try:
        assert paths._real(f"{root}/l/x") != os.path.realpath(f"{root}/l/x")
    finally:
        paths._WALKED.reset(token)


# --------------------------------------------------------------------------- literal index

HOME = "/home/tester"
TABLE = paths._table(HOME)
_SEGS = ["", ".ssh", ".SSH", "id_rsa", "ID_RSA", "Id_Ed25519", ".env", ".ENV", ".env.local", ".aws",
         "credentials", "config", ".docker", "config.json", ".netrc", ".git", "hooks", "pre-commit",
         "etc", "shadow", "sudoers", "sudoers.d", ".bashrc", ".gnupg", "x.pem", "X.PEM", "key", ".kube",
         "é", "ｘ", "a\nb", " ", "\t", ".", "..", "home", "tester", "root", "authorized_keys", "cron.d",
         "secrets.yaml", ".npmrc", ".pypirc", "token", "id_rsa.pub", "known_hosts", ".config", "gcloud"]


@settings(deadline=None, max_examples=300)
@given(st.lists(st.sampled_from(_SEGS), min_size=1, max_size=5),
       st.sampled_from(["/", "/home/tester/", "/root/", "/etc/", "/srv/ws/", "/home/other/", "//"]))
def test_literal_alts_match_every_rule(segs: list[str], prefix: str) -> None:
    """The name index against every rule's regex (``_name_alts``: ``_literal_alts`` then drops
    the rules whose content check the file on disk does not meet, ``paths/content.py``)."""
    path = paths._normpath(prefix + "/".join(segs))
    assert paths._name_alts(path, TABLE) == _brute_alts(path, TABLE), repr(path)


def test_literal_alts_comparison_detects_a_planted_difference() -> None:
    path = "/home/tester/.ssh/id_rsa"
    assert _brute_alts(path, TABLE)
    assert _brute_alts(path, TABLE)[1:] != _brute_alts(path, TABLE)


# ``_plain_path`` against ``candidates``: tests/test_paths_fast.py (with this file's alphabet).


# --------------------------------------------------------------------------- the whole gate


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A workspace with links into a home that has secrets."""
    base = Path(os.path.realpath(tmp_path_factory.mktemp("world")))
    home, ws = base / "home", base / "ws"
    _make_tree(base, [
        ("home/.ssh/id_rsa", "f"), ("home/.ssh/sub", "d"), ("home/.aws/credentials", "f"),
        ("home/.aws/cli", "d"), ("home/.netrc", "f"), ("home/proj/sub", "d"), ("home/.env", "f"),
        ("ws/README", "f"), ("ws/src/main.py", "f"), ("ws/.git/HEAD", "f"),
        ("ws/keys", "l:@ROOT/home/.ssh"), ("ws/key", "l:../home/.ssh/id_rsa"),
        ("ws/chain1", "l:chain2"), ("ws/chain2", "l:key"), ("ws/loop", "l:loop"),
        ("ws/up", "l:.."), ("ws/deep", "l:@ROOT/home/proj/sub"), ("ws/awl", "l:@ROOT/home/.aws/cli"),
        ("ws/sshsub", "l:@ROOT/home/.ssh/sub"), ("ws/etc", "l:/etc"), ("ws/dangling", "l:nowhere"),
    ])
    return home, ws


_GATE_WORDS = ["README", "src/main.py", "keys/id_rsa", "key", "chain1", "loop", "up/home/.ssh/id_rsa",
               "deep/../../.ssh/id_rsa", "keys/", "keys//id_rsa", "keys/./id_rsa", "./key", "KEYS/ID_RSA",
               "etc/shadow", "etc/passwd", "dangling", "~/.ssh/id_rsa", "~/.netrc", "'key'", '"ke"y',
               "*", "k*", "keys/*", "~", "..", "/etc/shadow", "-r", "-n", "--", "x=key", "@key", ".git/HEAD",
               "sshsub/../id_rsa", "awl/../credentials", "$HOME/.env", "~root/.ssh/id_rsa"]
_GATE_CMDS = ["cat", "ls", "echo", "stat", "grep -r x", "head -n1", "cp", "rm", "tar czf out.tgz", "sudo cat",
              "xargs cat", "find", "pgrep -F", "date -f", "printf %s", "realpath", "wc -c", "cd", "sed -n p",
              "python3", "base64", "git add", "tee", "ln -s"]


@pytest.fixture(scope="module")
def gates(world) -> tuple[Gate, Gate]:
    home, ws = world
    return Gate(ws, home=home), Gate(ws, home=home)


def _gate_both(fast: Gate, slow: Gate, ws: Path, cmd: str,
               monkeypatch: pytest.MonkeyPatch) -> tuple[dict, dict]:
    a = fast.check(cmd, cwd=ws).to_json()
    with slow_paths(monkeypatch):
        b = slow.check(cmd, cwd=ws).to_json()
    return a, b


@settings(deadline=None, max_examples=120)
@given(st.lists(st.tuples(st.sampled_from(_GATE_CMDS), st.lists(st.sampled_from(_GATE_WORDS), max_size=3)),
                min_size=1, max_size=3),
       st.sampled_from([" | ", " && ", "; ", " || "]))
def test_gate_fast_and_slow_agree(world, gates, monkeypatch_session, parts, op) -> None:
    cmd = op.join(" ".join([c, *ws]) for c, ws in parts)
    a, b = _gate_both(*gates, world[1], cmd, monkeypatch_session)
    assert a == b, cmd


@pytest.fixture(scope="module")
def monkeypatch_session() -> Iterator[pytest.MonkeyPatch]:
    m = pytest.MonkeyPatch()
    yield m
    m.undo()


@pytest.mark.parametrize("cmd", [f"{c} {w}" for c in ("cat", "grep -r x", "ls") for w in _GATE_WORDS])
def test_gate_fast_and_slow_agree_on_each_word(world, gates, monkeypatch_session, cmd: str) -> None:
    a, b = _gate_both(*gates, world[1], cmd, monkeypatch_session)
    assert a == b, cmd


def test_gate_comparison_detects_a_planted_difference(world, gates, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow = gates
    with monkeypatch.context() as m:
        m.setattr(paths, "_literal_alts", lambda path, table: [])  # a broken index finds nothing
        a = fast.check("cat keys/id_rsa", cwd=world[1]).to_json()
    b = slow.check("cat keys/id_rsa", cwd=world[1]).to_json()
    assert a != b


@pytest.mark.parametrize("cmd", ["cat keys/id_rsa", "cat key", "cat chain1", "cat keys/", "cat ./key",
                                 "cat keys//id_rsa", "cat up/home/.ssh/id_rsa", "cat etc/shadow",
                                 "cat deep/../../.ssh/id_rsa", "xargs cat < key"])
def test_links_to_secrets_are_not_allowed(world, gates, cmd: str) -> None:
    assert gates[0].check(cmd, cwd=world[1]).to_json()["decision"] != "allow", cmd


@pytest.mark.parametrize("cmd,cwd", [
    ("cat awl/../credentials", "."), ("cat deep/../../.aws/credentials", "."),
    ("grep -r x awl/..", "."), ("cd awl && cat ../credentials", "."), ("cat ../credentials", "awl"),
    ("cd -P awl/..; cat credentials", "."),
])
def test_dotdot_after_a_link_to_a_secret_dir_is_not_allowed(world, gates, cmd: str, cwd: str) -> None:
    home, ws = world
    assert os.path.realpath(ws / "awl" / "..") == str(home / ".aws")  # the trap is laid
    assert gates[0].check(cmd, cwd=ws / cwd).to_json()["decision"] != "allow", cmd


def test_logical_cd_through_a_link_is_allowed(world, gates) -> None:
    """The other side of the test above: bash's `cd` is logical, so `cd awl/..` is the
    workspace again and `cat credentials` reads ws/credentials, nothing secret."""
    assert gates[0].check("cd awl/..; cat credentials", cwd=world[1]).to_json()["decision"] == "allow"


# --------------------------------------------------------------------------- `<&-` / `>&-`

# bash reads `-` right after `<&`/`>&` as a token of its own (parse.y read_token): a word or
# even a `#` comment hiding later lines may follow it with no blank (_lex.redirect, _fast.py)


@pytest.mark.skipif(BASH is None, reason="no bash")
@pytest.mark.parametrize("src", ["f 2>&-x", "f <&-'a b' c", "f >&-y z",
                                 "f 2>&-#'\nf hidden\n'"])
def test_dash_after_dup_redirect_matches_bash(tmp_path: Path, src: str) -> None:
    got = shellgate_calls(src)
    assert got is None or got == bash_calls(src, tmp_path), repr(src)


@pytest.mark.skipif(BASH is None, reason="no bash")
def test_bash_calls_oracle(tmp_path: Path) -> None:
    """The oracle sees calls whatever fds the command closes, and tells argvs apart."""
    assert bash_calls("f 2>&-x", tmp_path) == [["f", "x"]]
    assert bash_calls("f 2>&-#'\nf hidden\n'", tmp_path) == [["f"], ["f", "hidden"]]
    assert shellgate_calls("f 'a b' 2>&1; f c") == bash_calls("f 'a b' 2>&1; f c", tmp_path)
    assert shellgate_calls("f a b") != bash_calls("f 'a b'", tmp_path)
    assert shellgate_calls("f 2>&-#x\nf y") == bash_calls("f 2>&-#x\nf y", tmp_path)  # argv agree here


_B_WORDS = ["a", "b c", "'x y'", '"q r"', "-n", "a=b", "=", "é", "\\ ", "a\\\nb", "'#'", "a#b", "#c",
            "''", '""', "'a'\"b\"", "\\;", "\\|", "x\\#y", "$'t\\tu'", "$'\\''", "%1", "^", "-", "--", "[",
            "]", "]]", "[[", "!", "{", "}", "in", "do", "if", "time", "'\n'", '"\n"', "\r", "\v", "\u00a0"]
_B_REDIRS = ["2>&1", ">o1", ">>o2", "<&- ", ">&- ", "2>&- ", "<<<w", "<<<'w v'", "&>o3", ">|o4", "<o1",
             "<>o5", "3>o6"]


@st.composite
def bashy(draw, depth: int = 0) -> str:
    """A script of calls of ``f`` (words, redirections, groups, `!`, `time`, `if`), joined by
    operators that run in order (no pipes or `&`: their calls would interleave)."""
    def simple() -> str:
        parts = ["f"]
        for _ in range(draw(st.integers(0, 4))):
            parts.append(draw(st.sampled_from(_B_WORDS)) if draw(st.booleans()) else
                         draw(st.sampled_from(_B_REDIRS)))
        seps = draw(st.lists(st.sampled_from([" ", "\t", " \\\n "]), min_size=len(parts),
                             max_size=len(parts)))
        return "".join(p + sep for p, sep in zip(parts, seps, strict=True)).rstrip(" \t\\\n")

    def cmd(d: int) -> str:
        kind = draw(st.sampled_from(["s"] * 6 + ["group", "sub", "if", "bang"]))
        if d < 2 and kind == "group":
            return "{ " + cmd(d + 1) + "; }"
        if d < 2 and kind == "sub":
            return "( " + cmd(d + 1) + " )"
        if d < 2 and kind == "if":
            return "if " + cmd(d + 1) + "; then " + cmd(d + 1) + "; fi"
        if kind == "bang":
            return draw(st.sampled_from(["! ", "time ", "time -p "])) + simple()
        return simple()

    src = cmd(0)
    for _ in range(draw(st.integers(0, 3))):
        src += draw(st.sampled_from(["; ", " && ", " || ", "\n", ";"])) + cmd(0)
    return src


@pytest.mark.skipif(BASH is None, reason="no bash")
@settings(deadline=None, max_examples=100)
@given(bashy())
def test_every_call_bash_makes_is_listed(tmp_path_factory: pytest.TempPathFactory, src: str) -> None:
    """Whatever path parses it: each call bash really makes is a command shellgate lists
    (shellgate may list more: both sides of `||`, commands whose redirection fails)."""
    tmp = tmp_path_factory.mktemp("calls")
    assert missed_calls(src, tmp) in (None, []), repr(src)


@pytest.mark.skipif(BASH is None, reason="no bash")
def test_missed_calls_detects_a_hidden_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = "f a; f b"
    assert missed_calls(src, tmp_path) == []
    real = parse
    monkeypatch.setattr(_helpers, "parse",
                        lambda text: replace(real(text), commands=real(text).commands[:1]))
    assert missed_calls(src, tmp_path) == [["f", "b"]]


def test_record_equality_sees_every_compared_field() -> None:
    """The differential tests compare records with ``==`` (shellgate/_record.py): a change of
    any compared field of any record in a parse or an analysis must make them unequal."""
    from shellgate._record import fields, is_record

    ctx = Context(cwd=Path("/tmp"), workspace=Path("/tmp"), home=Path("/root"))
    roots = [parse("sudo cat a > b; x=1 ls \"$(id)\" | wc"),
             analyse("cat ~/.ssh/id_rsa > /etc/x; rm -rf /", ctx)]
    seen: dict[int, object] = {}

    def collect(o) -> None:
        if isinstance(o, tuple | list):
            for e in o:
                collect(e)
        elif is_record(o) and id(o) not in seen:
            seen[id(o)] = o
            for f in fields(o):
                collect(getattr(o, f.name))
    collect(roots)
    changed = 0
    for o in seen.values():
        for f in fields(o):
            try:
                other = replace(o, **{f.name: ("zz-sentinel",)})
            except Exception:  # noqa: BLE001 - a field whose type __post_init__ checks
                continue
            changed += 1
            assert (other != o) == f.compare, (type(o).__name__, f.name)
    assert changed > 100


@pytest.mark.parametrize("src", ["f 2>&-x", "f 2>&-#'\nf hidden\n'"])
def test_dash_after_dup_redirect_fast_path_agrees(src: str) -> None:
    assert parse_agrees(src) == [], repr(src)


@pytest.mark.parametrize("cmd", ["ls 2>&-#'\nrm -rf ~\n'", "cat 2>&-{home}/.aws/credentials",
                                 "ls 2>&-#'\ncat {home}/.aws/credentials\n'"])
def test_dash_after_dup_redirect_is_not_allowed_in_auto_mode(world, cmd: str) -> None:
    home, ws = world
    verdict = Gate(ws, mode="auto", home=home).check(cmd.format(home=home), cwd=ws).to_json()
    assert verdict["decision"] != "allow", cmd


def test_auto_mode_asks_for_the_plain_spellings(world) -> None:
    """The control of the test above: spelled plainly, auto mode does not allow these."""
    home, ws = world
    gate = Gate(ws, mode="auto", home=home)
    for cmd in ["ls; rm -rf ~", f"cat {home}/.aws/credentials", f"ls; cat {home}/.aws/credentials"]:
        assert gate.check(cmd, cwd=ws).to_json()["decision"] != "allow", cmd


# --------------------------------------------------------------------------- classifier reuse


@settings(deadline=None, max_examples=80)
@given(st.lists(st.tuples(st.sampled_from(_GATE_CMDS), st.lists(st.sampled_from(_GATE_WORDS), max_size=2)),
                min_size=1, max_size=4),
       st.sampled_from([" | ", " && ", "; ", " || ", " & "]))
def test_classifier_reuse_equals_checking_again(world, parts, op) -> None:
    home, ws = world
    ctx = Context.here(cwd=ws, workspace=ws, home=home)
    cmd = op.join(" ".join([c, *w]) for c, w in parts)
    a = analyse(cmd, ctx)
    again = replace(a, checks=None)
    assert readonly_commands(a, ctx) == readonly_commands(again, ctx), cmd
    assert write_paths(a, ctx) == write_paths(again, ctx), cmd


def test_posix_join_sanity() -> None:
    """The tree helper builds what it says (guards the fixtures above)."""
    assert posixpath.normpath("/a/b/../c") == "/a/c"


def test_classifier_reuse_comparison_detects_a_planted_difference(world) -> None:
    """Recorded checks that call a writing command clean change what the harness derives."""
    home, ws = world
    ctx = Context.here(cwd=ws, workspace=ws, home=home)
    a = analyse("cat README; rm README", ctx)
    assert a.checks is not None
    lying = replace(a, checks=replace(a.checks, clean=frozenset(range(len(a.script.commands)))))
    again = replace(a, checks=None)
    assert readonly_commands(lying, ctx) != readonly_commands(again, ctx)


def test_plain_path_comparison_detects_a_planted_difference() -> None:
    ctx = Context(cwd=Path("/srv/ws"), workspace=Path("/srv/ws"), home=Path(HOME))
    plain = paths._plain_path("a/b", ctx, False)
    got = paths.candidates("a/b", ctx, dynamic=False, glob=False, braces=True)
    assert got == [paths._Cand(plain, False)]
    assert got != [paths._Cand(plain + "x", False)]
