"""The sensitive-path scanner's fast paths give the answers of the general ones.

Each shortcut in ``paths/resolve.py`` is checked against the slow computation it replaces: the literal
index and its head/tail prefilter against matching every rule, the plain-word path against
``candidates``, the per-scan directory walk (``_real``) against ``os.path.realpath`` on a real
filesystem with symlinks, and the scan as a whole on symlinks that lead to secrets.
"""

from __future__ import annotations

import itertools
import os
import posixpath
import re
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from shellgate.bash.facts import Context, PathClass, PathOp
from shellgate.bash.parse.parser import parse
from shellgate.bash.paths import resolve as paths
from shellgate.bash.paths import scan as pathscan
from shellgate.bash.paths.globs import STARSTAR, compile_seg, has_glob, literal_ends, seg_regex
from shellgate.bash.paths.roles import COMMANDS, Role

HOME = "/home/tester"
CTX = Context(cwd=Path("/srv/ws/proj"), workspace=Path("/srv/ws/proj"), home=Path(HOME))
TABLE = paths._table(HOME)


def _brute(path: str) -> list[paths._Alt]:
    """Every rule a literal path matches, without any index or prefilter."""
    low = path.lower()
    key = "" if low == "/" else low
    base = low.split("/")[-1]
    return [a for a in TABLE.alts
            if a.regex.fullmatch(key) and not (a.exclude and a.exclude.fullmatch(base))]


def _example_seg(seg: str) -> str:
    """A concrete name the segment glob matches (bash glob syntax, as in the table)."""
    out = []
    for tok in compile_seg(seg).tokens:
        kind = tok[0]
        if kind == 0:       # literal
            out.append(tok[1])
        elif kind == 1:     # ?
            out.append("q")
        elif kind == 2:     # *
            out.append("x")
        elif tok[2]:        # [!…]
            out.append(next(c for c in "qzj0" if c not in tok[1]))
        else:
            out.append(sorted(tok[1])[0])
    return "".join(out)


def _examples(alt: paths._Alt) -> list[str]:
    """Concrete lowercase paths the rule alternative matches (under each anchor)."""
    rel = [("x" if s == STARSTAR else _example_seg(s)) for s in alt.rel_text]
    if alt.rel_text[0] == STARSTAR:
        rel = rel[1:]  # `**` may be empty: also try the name at the top of a tree
        return ["/srv/ws/proj/" + "/".join(rel), "/" + "/".join(rel)]
    return ["/" + "/".join(a + tuple(rel)) for a in alt.anchors if all(not has_glob(s) for s in a)] + \
        ["/home/other/" + "/".join(rel)] * (alt.anchors[0] != ())


def _all_examples() -> list[tuple[paths._Alt, str]]:
    return [(alt, ex) for alt in TABLE.alts for ex in _examples(alt)]


@pytest.mark.parametrize("alt,example", _all_examples(), ids=lambda x: x if isinstance(x, str) else "")
def test_every_rule_has_an_example_found_through_the_index(alt: paths._Alt, example: str) -> None:
    brute = _brute(example)
    if alt not in brute:  # an exclude glob of the rule covers the made-up name
        assert alt.exclude is not None and alt.exclude.fullmatch(example.split("/")[-1]), example
        return
    assert paths._name_alts(example, TABLE) == brute   # the index; content checks aside


@pytest.mark.parametrize("alt,example", _all_examples()[::3], ids=lambda x: x if isinstance(x, str) else "")
def test_every_rule_example_hits_as_a_plain_relative_word(alt: paths._Alt, example: str) -> None:
    """Through the plain-word fast path (cwd + name) the rule's class is reported."""
    if not _brute(example):
        return
    cwd, name = posixpath.split(example)
    ctx = Context(cwd=Path(cwd), workspace=Path(cwd), home=Path(HOME))
    assert paths._plain_path(name, ctx, False) == example
    hits = paths.hits_for_text(name, Role.UNSURE, ctx, None, dynamic=False, glob=False)
    # a rule with a content check hits where the file holds a credential: these are not on disk
    want = {PathClass.LEAK for a in _brute(example) if a.rule.leak and not a.rule.when} | \
        {PathClass.IMPLANT for a in _brute(example) if a.rule.implant}
    assert {h.cls for h in hits} == want, (example, hits)


_NAME_PIECES = ["", ".", "env", ".env", "pem", "key", "json", "config", "secret", "secrets", "service",
                "account", "-sa-key", "client_secret", "ssh_host_", "_key", "tfstate", ".backup", "pth",
                "settings", "code-workspace", "msal_token_cache", "x", "id_rsa", ".pub", "cert", "example"]


@given(st.lists(st.sampled_from(_NAME_PIECES), min_size=1, max_size=4),
       st.sampled_from(["/srv/ws/proj", "/home/tester/.ssh", "/etc/ssh", "/x/site-packages", "/home/tester",
                        "/etc/cron.daily", "/etc", "/root/.git/hooks", "/home/other/.config/gcloud"]))
def test_literal_index_agrees_with_every_rule(pieces: list[str], parent: str) -> None:
    name = "".join(pieces) or "x"
    path = f"{parent}/{name}"
    assert paths._name_alts(path, TABLE) == _brute(path)


def test_glob_heads_and_tails_are_the_literal_ends_of_every_indexed_glob() -> None:
    for src, alts in TABLE.by_glob:
        last = alts[0].rel_text[-1]
        assert seg_regex(last) == src
        head, tail = literal_ends(last)
        assert head in TABLE.glob_heads or tail in TABLE.glob_tails
        ex = _example_seg(last)
        assert re.fullmatch(src, ex), (last, ex)
        assert ex.startswith(TABLE.glob_heads) or ex.endswith(TABLE.glob_tails), (last, ex)


@given(st.text(alphabet="ab*?.[]!-\\", max_size=10), st.text(alphabet="ab.-x[]", max_size=10))
def test_literal_ends_are_necessary(glob: str, name: str) -> None:
    head, tail = literal_ends(glob)
    if re.fullmatch(seg_regex(glob), name):
        assert name.startswith(head) and name.endswith(tail)


def test_alt_regex_is_its_pattern() -> None:
    for alt in TABLE.alts[::7]:
        assert alt.regex.pattern == alt.pattern


# --------------------------------------------------------------------------- plain words

_WORD_PIECES = ["a", "b.txt", "/", "//", ".", "..", "~", "~x", "~root", "$HOME", "${PWD}", "`x`", "{a,b}",
                "*", "?", "[a]", "@(a)", "!(x)", "+(y)", "\x00", "\x01", "\n", "\\", "'", "é", "-", "=",
                ".env", ".ssh", "id_rsa", "ID_RSA", " "]
_CWDS = ["/", "/srv/ws/proj", "/srv/a*b/c", "/srv/x/../y", "//srv/z", "/srv/@(a)", "rel/dir"]


@given(st.lists(st.sampled_from(_WORD_PIECES), max_size=5), st.sampled_from(_CWDS), st.booleans(),
       st.booleans(), st.booleans(), st.booleans())
def test_plain_path_is_what_candidates_give(pieces: list[str], cwd: str, dynamic: bool, glob: bool,
                                            braces: bool, tilde: bool) -> None:
    text = "".join(pieces)
    ctx = Context(cwd=Path(cwd), workspace=Path(cwd), home=Path(HOME))
    plain = paths._plain_path(text, ctx, glob)
    if plain is not None:
        got = paths.candidates(text, ctx, dynamic=dynamic, glob=glob, braces=braces, tilde=tilde)
        assert got == [paths._Cand(plain, False)], (text, cwd)


# --------------------------------------------------------------------------- realpath walk


def _tree(tmp_path: Path) -> Path:
    """A directory with every kind of entry a path component can meet."""
    root = tmp_path / "t"
    (root / "d" / "e").mkdir(parents=True)
    (root / "f").write_text("x")
    (root / "d" / "g").write_text("x")
    os.symlink(root / "d", root / "ld")                 # link to a directory
    os.symlink("d/e", root / "lrel")                    # relative link, two levels
    os.symlink(root / "f", root / "lf")                 # link to a file
    os.symlink(root / "missing" / "m", root / "dang")   # dangling
    os.symlink("loop2", root / "loop1")                 # loop
    os.symlink("loop1", root / "loop2")
    os.symlink("../d", root / "d" / "up")               # `..` in the target
    os.symlink("nothere/../d", root / "odd")            # missing component, then `..`
    os.symlink("ld", root / "chain")                    # link to a link
    os.symlink("/", root / "lroot")                     # link to the root
    os.symlink("f/x", root / "thru")                    # through a file
    return root


_COMPONENTS = ["d", "e", "f", "g", "ld", "lrel", "lf", "dang", "loop1", "odd", "up", "missing", "chain",
               "lroot", "thru"]


def test_real_is_realpath_on_every_short_path(tmp_path: Path) -> None:
    root = str(_tree(tmp_path))
    paths_ = [root + "/" + "/".join(p) for n in (1, 2, 3) for p in itertools.product(_COMPONENTS, repeat=n)]
    token = paths._WALKED.set({})  # one memo across all, as in a scan: answers must not depend on order
    try:
        for p in paths_:
            assert paths._real(p) == os.path.realpath(p), p
        for p in reversed(paths_):
            assert paths._real(p) == os.path.realpath(p), p
    finally:
        paths._WALKED.reset(token)
    for p in paths_[::11]:  # and without a scan's memo
        assert paths._real(p) == os.path.realpath(p), p


def test_a_cwd_below_a_link_is_resolved_like_realpath(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    ctx = Context(cwd=root / "chain" / "e", workspace=root, home=tmp_path / "home")
    token = paths._WALKED.set({})
    try:
        for word in ("a", "../g", "../up/e", "x/y", "../../lf", "../../dang"):
            cand = paths.candidates(word, ctx, dynamic=False, glob=False, braces=False)[0]
            assert paths._real(cand.path) == os.path.realpath(cand.path), word
    finally:
        paths._WALKED.reset(token)


def test_real_outside_a_scan_keeps_nothing(tmp_path: Path) -> None:
    root = _tree(tmp_path)
    assert paths._WALKED.get() is None
    paths._real(str(root / "d" / "g"))
    assert paths._WALKED.get() is None


# --------------------------------------------------------------------------- whole scans


def _world(tmp_path: Path) -> tuple[Path, Context]:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("k")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text("k")
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    (ws / "readme.md").write_text("x")
    return ws, Context(cwd=ws, workspace=ws, home=home)


def _classes(cmd: str, ctx: Context) -> set[PathClass]:
    return {h.cls for h in paths.scan(parse(cmd), ctx)}


def test_symlinks_to_secrets_are_seen_through_plain_words(tmp_path: Path) -> None:
    ws, ctx = _world(tmp_path)
    home = ctx.home
    os.symlink(home / ".ssh" / "id_rsa", ws / "notes")
    os.symlink(home / ".aws", ws / "cfg")
    os.symlink(home / ".ssh" / "id_rsa", ws / "sub" / "deep")
    assert _classes("cat readme.md notes", ctx) == {PathClass.LEAK}
    assert _classes("cat readme.md cfg/credentials", ctx) == {PathClass.LEAK}
    # `sub` is walked (and remembered) for the first word; the link below it still counts
    assert _classes("cat sub/a.txt sub/deep", ctx) == {PathClass.LEAK}
    assert _classes("cat missing/x readme.md sub", ctx) == set()


def test_a_link_made_after_a_scan_is_seen_by_the_next(tmp_path: Path) -> None:
    """Nothing the filesystem said is kept from one scan to the next."""
    ws, ctx = _world(tmp_path)
    assert _classes("cat notes", ctx) == set()
    os.symlink(ctx.home / ".ssh" / "id_rsa", ws / "notes")
    assert _classes("cat notes", ctx) == {PathClass.LEAK}
    os.remove(ws / "notes")
    (ws / "notes").write_text("x")
    assert _classes("cat notes", ctx) == set()
    assert paths._WALKED.get() is None


def test_check_path_sees_a_link_in_the_cwd(tmp_path: Path) -> None:
    ws, ctx = _world(tmp_path)
    os.symlink(ctx.home / ".ssh" / "id_rsa", ws / "k")
    hit = paths.check_path("k", PathOp.READ, ctx)
    assert hit is not None and hit.cls is PathClass.LEAK


def test_spec_tables_match_a_fresh_computation() -> None:
    for spec in {id(s): s for s in COMMANDS.values()}.values():
        value_role, skip, known, _quiet = pathscan._spec_tables(spec)
        assert skip == spec.data_opts | spec.use_opts
        assert known == pathscan._known_opts(spec)
        want = {**dict.fromkeys(spec.unsure_opts, Role.UNSURE),
                **dict.fromkeys(spec.read_opts | spec.operand_opts, Role.READ),
                **dict.fromkeys(spec.write_opts, Role.WRITE)}
        assert value_role == want


_QUIET_WORDS = ["~/.ssh/id_rsa", "--file=~/.env", "-f~/.aws/credentials", "-f", ".env", "$X", "--", "-x",
                "~/.bashrc", "a=~/.netrc", "@.env", "--output", "/etc/shadow", "*", "-la"]


@given(st.sampled_from(sorted(n for n in COMMANDS if re.fullmatch(r"[a-z][\w.+-]*", n))),
       st.lists(st.sampled_from(_QUIET_WORDS), max_size=4), st.booleans())
def test_quiet_entries_give_what_the_full_parse_gives(name: str, texts: list[str], xargs: bool) -> None:
    """The shortcut for entries whose words are never read or written loses no hit."""
    script = parse(("x | xargs " if xargs else "") + " ".join([name, *texts]))
    assume(script.error is None and script.commands and script.commands[-1].name == name)
    cmd = script.commands[-1]
    words = cmd.words[1:]
    spec = COMMANDS[name]
    listed = cmd.span if xargs else None
    quick = pathscan._spec_hits(words, spec, CTX, True, name=name, listed=listed)
    pathscan._SPEC_TABLES[id(spec)] = (*pathscan._SPEC_TABLES[id(spec)][:4], False)
    try:
        full = pathscan._spec_hits(words, spec, CTX, True, name=name, listed=listed)
    finally:
        pathscan._SPEC_TABLES.pop(id(spec), None)
    assert quick == full
