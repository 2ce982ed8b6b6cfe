"""The bash side of the sensitive-path scanner: which words of which executed commands name
paths, and whether each is read or written.

Operands, option values (``--file=X``, ``-fX``, ``if=X``), ``k=@file`` forms, redirect targets,
program text of ``python -c`` (quoted paths), the files sed scripts and awk programs name
(``1r FILE``, ``getline < "FILE"``), and the files some commands touch without naming
them (``implicit.py``). How each command uses its words is the table in ``roles.py``;
what a path *is* is decided by ``paths.hits_for_text``.
"""

from __future__ import annotations

import bisect
import itertools
import os
import re
from collections.abc import Iterable

from ..._lazyre import lazy_compile
from ..._record import record
from ..commands.getopt import Arity, Kind, Option, Syntax, split, sub_word
from ..commands.gitglobal import split_globals
from ..facts import Context, PathClass, PathOp, SensitiveHit
from ..ir import Command, CommandKind, Script, Span, Via, Word, own_args
from . import rghidden, xargsnames
from .envsecrets import env_hits, expansion_hits
from .implicit import implicit_hits
from .landing import landing_hits
from .resolve import FOLLOW, SHALLOW, VISIBLE, candidates, hits_for_text
from .roles import (
    COMMANDS,
    GIT,
    GIT_DIFF_NO_INDEX,
    GIT_MESSAGE,
    GIT_READ,
    GIT_WRITERS,
    PROGRAMS,
    PURE_READERS,
    READ_FLAGS,
    WRAPPERS,
    CmdPaths,
    Role,
    git_tree_spec,
)

_INNER_VIAS = frozenset({Via.WRAPPER, Via.SHELL_C, Via.XARGS, Via.FIND_EXEC})
_PIECES = lazy_compile(r"[,:]")  # the separators of `a:b,c=d` option values


def scan_script(script: Script, ctx: Context) -> tuple[SensitiveHit, ...]:
    dot_rule = not _dotglob(script)
    limits: dict[int, int] = {}
    inner: dict[int, list[str | None]] = {}
    for c in script.commands:
        if c.parent is not None and c.via and c.via[-1] in _INNER_VIAS:
            start = c.words[0].span[0] if c.words else c.span[0]
            limits[c.parent] = min(limits.get(c.parent, start), start)
            inner.setdefault(c.parent, []).append(c.name)
    out: list[SensitiveHit] = list(expansion_hits(script.loose_words)) if script.loose_words else []
    seen: set[tuple[Span | None, PathClass, str]] = set()
    for i, cmd in enumerate(script.commands):
        below = xargsnames.roots(script, i) if cmd.via and cmd.via[-1] is Via.XARGS else None
        found = ((_redirect_hits(cmd, ctx, dot_rule) if cmd.redirects else [])
                 + _command_hits(cmd, limits.get(i), ctx, dot_rule, inner.get(i, ()), below)
                 + implicit_hits(cmd, ctx)
                 + env_hits(cmd, i in inner))
        for hit in found:
            key = (hit.span, hit.cls, hit.path)
            if key not in seen:
                seen.add(key)
                out.append(hit)
    return tuple(out)


def _dotglob(script: Script) -> bool:
    """Does the script make `*` match dot files (``shopt -s dotglob``, ``GLOBIGNORE=…``)?"""
    for c in script.commands:
        if c.assignments and any(a.name == "GLOBIGNORE" for a in c.assignments):
            return True
        # (a command named `shopt` has that first word: the cheap test first)
        if c.words and c.words[0].text == "shopt" and c.name == "shopt" and \
                any(w.text == "dotglob" or not w.static for w in c.args):
            return True
    return False


def _word_hits(word: Word, role: Role, ctx: Context, dot_rule: bool, *, tree: bool = False,
               split: bool = False, walk: int = False) -> list[SensitiveHit]:
    """Hits for one word, looking also inside ``k=v``, ``@file`` and (``split``) ``a:b,c=d``."""
    if role is Role.NONE or role is Role.META:  # hits_for_text's answer for every piece
        return []
    text = word.text
    if not split and "=" not in text and not (len(text) > 1 and text[0] in "@<"):
        # The common word: it is its only piece.
        if not text or "://" in text:
            return []
        return hits_for_text(text, role, ctx, word.span, dynamic=not word.static, glob=word.glob,
                             braces=word.glob or not word.quoted, tree=tree, walk=walk, dot_rule=dot_rule,
                             tilde=not word.quoted or word.raw.startswith("~"))
    raw_pieces = []
    if "=" in text:
        raw_pieces.append(text.split("=", 1)[1])
    if split:
        for part in _PIECES.split(text):
            raw_pieces.append(part.split("=", 1)[1] if "=" in part else part)
    raw_pieces.append(text)
    pieces: list[str] = []
    for p in raw_pieces:  # most specific first: `-F f=@x` reports x, not the whole word
        if len(p) > 1 and p[0] in "@<":
            pieces.append(p[1:])
        pieces.append(p)
    out: list[SensitiveHit] = []
    classes: set[PathClass] = set()
    # A quoted tilde ('~/x') is a directory named "~"; an unquoted one is HOME.
    tilde = not word.quoted or word.raw.startswith("~")
    for p in dict.fromkeys(pieces):
        if not p or "://" in p:
            continue
        for hit in hits_for_text(p, role, ctx, word.span, dynamic=not word.static, glob=word.glob,
                                  braces=word.glob or not word.quoted, tree=tree, walk=walk,
                                  dot_rule=dot_rule, tilde=tilde or p is not text):
            if hit.cls not in classes:
                classes.add(hit.cls)
                out.append(hit)
    return out


_REDIRECT_ROLE = {"<": Role.READ, "<&": Role.READ, "<>": Role.RW}
_NOT_FILES = frozenset({"<<", "<<-", "<<<"})


def _redirect_hits(cmd: Command, ctx: Context, dot_rule: bool) -> list[SensitiveHit]:
    out: list[SensitiveHit] = []
    for r in cmd.redirects:
        if r.op in _NOT_FILES or r.target is None:
            continue
        t = r.target.text
        if r.op in (">&", "<&") and (t.isdigit() or t in ("-", "")):
            continue
        out.extend(_word_hits(r.target, _REDIRECT_ROLE.get(r.op, Role.WRITE), ctx, dot_rule))
    return out


_UNSURE_TREE = CmdPaths(Role.UNSURE, tree=True)  # a command not in the table


def _command_hits(cmd: Command, limit: int | None, ctx: Context, dot_rule: bool,
                  inner: Iterable[str | None] = (), below: list[str] | None = None) -> list[SensitiveHit]:
    """``below``: where the names xargs appends lie when a find feeds it (``xargsnames.roots``;
    without it, anywhere below the cwd)."""
    if cmd.kind is not CommandKind.SIMPLE or not cmd.words:
        return []
    name = cmd.name
    words = own_args(cmd, limit)
    if name is None:  # `$EDITOR ~/.bashrc`: unknown program, unsure access
        return [h for w in words for h in _word_hits(w, Role.UNSURE, ctx, dot_rule, tree=True, split=True)]
    base = name.rsplit("/", 1)[-1]
    if base in ("su", "runuser", "watch") and limit is None:
        return _nested_hits(base, words, ctx)
    if base == "find":
        return _find_hits(words, ctx, dot_rule, cmd.span, inner)
    if base == "dd":
        return _dd_hits(words, ctx, dot_rule)
    if base == "git":
        return _git_hits(words, ctx, dot_rule)
    spec = COMMANDS.get(base)
    listed = cmd.span if cmd.via and cmd.via[-1] is Via.XARGS else None
    if spec is None:
        return _spec_hits(words, _UNSURE_TREE, ctx, dot_rule, split=base not in WRAPPERS)
    if listed is not None and spec.operands not in (Role.READ, Role.RW, Role.UNSURE):
        listed = None
    return _spec_hits(words, spec, ctx, dot_rule, name=base, listed=listed, below=below)


def _nested_hits(base: str, words: tuple[Word, ...], ctx: Context) -> list[SensitiveHit]:
    """``su -c 'CMD'`` and ``watch 'CMD'`` run a shell string the parser leaves as a word: parse
    it and scan it, reporting at the word."""
    from ..parse.parser import parse

    if base == "watch":
        code = [w for w in words if not w.text.startswith("-")][-1:] if words else []
    else:
        code = [words[k + 1] for k, w in enumerate(words[:-1]) if w.text in ("-c", "--command")]
    out: list[SensitiveHit] = []
    for w in code:
        if w.static and len(w.text) < 10_000:
            for hit in scan_script(parse(w.text), ctx):
                out.append(SensitiveHit(hit.path, hit.cls, hit.op, w.span, hit.pattern))
    return out


@record(frozen=False)
class _Parsed:
    flags: set[str]
    operands: list[Word]
    valued: list[tuple[Word, Role, bool]]   # option values: (word, role, is the whole word a value)
    target_dir: Word | None
    code: list[Word]                        # program text given with -c / -e
    loose: list[Word]                       # words from where the parse stopped being exact
    named: list[tuple[str, Word | None]]    # each option read exactly, in order, with its value


def _parse_opts(words: tuple[Word, ...], spec: CmdPaths, role: Role, name: str = "") -> _Parsed:
    """Split words into flags, operands and option values through the one option reader
    (``getopt.split``, with the syntax :func:`_syntax` derives for the entry). From the first
    word the entry doesn't model exactly (an unknown or abbreviated option, an unknown letter in
    a bundle, an expansion that may be an option) the rest are also ``loose``: each gets the
    conservative role in _spec_hits, whatever it seemed."""
    value_role = _spec_tables(spec)[0]
    reading = split(words, _syntax(spec, name), opaque=_not_static)
    p = _Parsed(set(), reading.operands, [], None, [], [], [])
    flags, valued = p.flags, p.valued
    first_loose: Word | None = None
    seen: Word | None = None
    for it in reading.items:
        w = it.word
        t = w.text
        kind = it.kind
        if w is not seen and t[1:2] != "-" and kind is not Kind.OPAQUE and kind is not Kind.END:
            seen = w  # a bundle's word: itself, its first two characters and (letters) each letter
            flags.update((t, t[:2]))
            if t[1:].isalpha():
                flags.update("-" + c for c in t[1:])
        if kind is Kind.OPAQUE:
            if first_loose is None and t[:1] in "$`" and not spec.inert:
                first_loose = w  # `du $OPT ~/x`: an expansion may be an option taking the next word
            continue
        if kind is Kind.END or kind is Kind.NUMERIC:
            continue
        if kind is Kind.UNKNOWN or kind is Kind.AMBIGUOUS:
            if it.spelled.startswith("--") and len(it.spelled) > 2:
                flags.add(it.spelled)
                if "=" in t:
                    valued.append((sub_word(w, t.partition("=")[2]), role, True))
            elif (spec.inert or first_loose is not None) and ("/" in t[2:] or t[2:].startswith("~")):
                valued.append((sub_word(w, t[2:]), role, True))
            if first_loose is None and not spec.inert:
                first_loose = w  # unknown or abbreviated (`--random-sour`): may take the next word
            continue
        opt = it.name
        flags.add(opt)
        p.named.append((opt, it.values[0] if it.values else None))
        if it.option is None or it.option.arity is Arity.NONE:
            if it.values:  # `--switch=x`: the value is read as an operand is
                valued.append((it.values[0], role, True))
            continue
        value = it.values[0] if it.values else None
        if opt in _TARGET_DIR and name in _TARGET_DIR_CMDS:
            p.target_dir = value
            continue
        if opt in spec.code_opts:
            p.code.append(value or w)
        flags.add(f"{opt}={value.text if value is not None else ''}")
        if value is not None and opt in spec.operand_opts:
            p.operands.append(value)
        elif value is not None and opt in value_role:
            valued.append((value, value_role[opt], True))
    if first_loose is not None:
        k = next(k for k, w in enumerate(words) if w is first_loose)
        p.loose.extend(words[k:])
    return p


# `-t DIR` names the destination of these (rsync's -t is --times, scp's a switch of its own).
_TARGET_DIR = frozenset({"-t", "--target-directory"})
_TARGET_DIR_CMDS = frozenset({"cp", "gcp", "install", "ln", "mv"})


def _not_static(w: Word) -> bool:
    return not w.static


# The reader's syntax per (entry, command name): the entry's options, with their arity (and the
# command's `--`, `-NUM`) taken from the command's read-only table where it declares the option.
_SYNTAX: dict[tuple[int, str], tuple[CmdPaths, Syntax]] = {}


def _syntax(spec: CmdPaths, name: str) -> Syntax:
    """The option syntax ``_parse_opts`` reads ``name``'s words with. Options are those the entry
    models (``_known_opts``; its value options take a required value). Where the command's
    read-only table (``commands/``) declares the same option, its declaration wins: whether a
    value is required, optional (``grep --color[=WHEN]``, ``cp --backup[=CONTROL]``, ``sed
    -i[SUFFIX]``) or none (``jq --tab``); so does whether ``--`` ends the options (``unzip``) and
    ``-NUM`` (``head -20``). Still declared twice, and why: the entry's lists of which options
    exist, because each entry says what an option's value *is* for the path scan (read, written,
    used, data) and some entries have no read-only table (``rm``, ``curl``, ``ssh``). Long
    options are never abbreviated here (an abbreviation is unknown, so inexact): the entry's
    option list is not the program's whole list, so a unique prefix among it proves nothing."""
    got = _SYNTAX.get((id(spec), name))
    if got is not None and got[0] is spec:
        return got[1]
    from ..commands import registry
    from ..commands.spec import Command as Table

    table = registry.lookup(name) if name else None
    ro = table.syntax if isinstance(table, Table) else None
    value_role, skip, known, _quiet = _spec_tables(spec)
    valued = value_role.keys() | skip | (_TARGET_DIR if name in _TARGET_DIR_CMDS else set())
    short: dict[str, Option] = {}
    long: dict[str, Option] = {}
    for o in sorted(known | valued):
        if "=" in o or len(o) < 2 or o[0] != "-":
            continue
        if o[1] != "-" and len(o) > 2:  # `-uu`: its letters are switches
            for c in o[1:]:
                short.setdefault(c, Option(f"-{c}"))
            continue
        table_opt = (ro.long.get(o) if o[1] == "-" else ro.short.get(o[1])) if ro is not None else None
        if table_opt is not None:
            opt = Option(o, table_opt.arity, table_opt.nargs, table_opt.lastarg, table_opt.peek)
        else:
            opt = Option(o, Arity.REQUIRED if o in valued else Arity.NONE)
        if o[1] == "-":
            long[o] = opt
        else:
            short[o[1]] = opt
    syntax = Syntax(short, long, dashdash=ro.dashdash if ro is not None else True, permute=True,
                    abbrev=False, numeric=ro.numeric if ro is not None else False)
    if len(_SYNTAX) > 512:
        _SYNTAX.clear()
    _SYNTAX[(id(spec), name)] = (spec, syntax)
    return syntax


# The per-entry option tables of _parse_opts, by the entry's identity (the entry is kept in the
# value, so its id cannot be reused while cached; the entries are the table's constants).
_SPEC_TABLES: dict[int, tuple[CmdPaths, dict[str, Role], frozenset[str], frozenset[str], bool]] = {}


def _spec_tables(spec: CmdPaths) -> tuple[dict[str, Role], frozenset[str], frozenset[str], bool]:
    """``spec``'s option -> value role, the options whose value is skipped, every option it
    models (read-only once built), and whether no word of it can be a path read or written:
    inert (no option opens a file), operands neither read nor written, and nothing that
    changes that (``echo``, ``cd``, ``ls``)."""
    got = _SPEC_TABLES.get(id(spec))
    if got is None or got[0] is not spec:
        if len(_SPEC_TABLES) > 512:
            _SPEC_TABLES.clear()
        value_role = {**dict.fromkeys(spec.unsure_opts, Role.UNSURE),
                      **dict.fromkeys(spec.read_opts | spec.operand_opts, Role.READ),
                      **dict.fromkeys(spec.write_opts, Role.WRITE)}
        quiet = (spec.inert and spec.operands in (Role.NONE, Role.META) and not value_role
                 and not (spec.code_opts or spec.rw_flags or spec.second_writes or spec.dest))
        got = (spec, value_role, spec.data_opts | spec.use_opts, _known_opts(spec), quiet)
        _SPEC_TABLES[id(spec)] = got
    return got[1], got[2], got[3], got[4]


def _known_opts(spec: CmdPaths) -> frozenset[str]:
    """Every option the entry models exactly; any other makes the parse inexact."""
    known = (spec.data_opts | spec.use_opts | spec.read_opts | spec.operand_opts | spec.write_opts
             | spec.unsure_opts
             | spec.code_opts | spec.rw_flags | spec.tree_flags | spec.walk_flags | spec.names_flags
             | spec.follow_flags | spec.flags
             | (spec.first_is_data_unless or frozenset()))
    return known | {"-t", "--target-directory"} if spec.dest else known


def _attached_value(w: Word) -> Word:
    """``-fX`` / ``--file=X`` -> a word holding just ``X``."""
    t = w.text
    v = (t.split("=", 1)[1] if "=" in t else "") if t.startswith("--") else t[2:]
    return Word(v, v, w.span, w.static, w.glob, w.quoted)


def _is_remote(t: str) -> bool:
    """``host:path`` / ``user@host:path`` operands of scp/rsync name another machine."""
    return bool(re.match(r"^[^/]*:", t)) and not t.startswith(("./", "/", "~"))


def _spec_hits(words: tuple[Word, ...], spec: CmdPaths, ctx: Context, dot_rule: bool, *,
               name: str = "", split: bool = False, listed: Span | None = None,
               below: list[str] | None = None) -> list[SensitiveHit]:
    """Hits for one command line read through its table entry. ``listed``: the operands arrive
    at run time (``… | xargs CMD``), so the command may read anything below the cwd."""
    if _spec_tables(spec)[3] and name not in ("sed", "gsed"):
        return []  # every word would get role NONE or META: no hit (see _spec_tables)
    role = spec.operands
    p = _parse_opts(words, spec, role, name)
    if p.flags & spec.rw_flags or (name in ("sed", "gsed") and any(f.startswith("-i") or f == "--in-place"
                                                                    or (not f.startswith("--") and "i" in f
                                                                        and "=" not in f)
                                                                    for f in p.flags)):
        role = Role.RW
    elif name in READ_FLAGS and p.flags & READ_FLAGS[name] and role in (Role.NONE, Role.META):
        role = Role.READ
    elif p.flags & spec.names_flags:
        role = Role.META
    tree = spec.tree or bool(p.flags & spec.tree_flags)
    walk: int = spec.walk or bool(p.flags & spec.walk_flags)
    if not walk and spec.shallow:
        walk = 1 | SHALLOW   # the directory's own files, none below
    if walk and p.flags & spec.follow_flags:
        walk = FOLLOW   # links met below are read, those in node_modules or .venv too
    if walk and spec.visible and _rg_skips_hidden(p, ctx):
        walk |= VISIBLE
    out: list[SensitiveHit] = []
    for w, r, whole in p.valued:
        out.extend(_word_hits(w if whole else _attached_value(w), r, ctx, dot_rule))
    language = PROGRAMS.get(name)
    if language is None:
        for w in p.code:
            out.extend(_code_hits(w, ctx))
    # The parse is not exact from here: every word may be an input (or an output). Listed
    # after the exact hits so that a word's exact op (`rm -x .env`: write) is the one kept.
    extra: list[SensitiveHit] = []
    if p.loose:
        safe = spec.operands in (Role.READ, Role.META, Role.NONE) and name in PURE_READERS
        loose_role = Role.READ if safe else Role.UNSURE
        for w in p.loose:
            if w.static and w.text.startswith("-") and not w.text.startswith("--") and len(w.text) > 2:
                extra.extend(_word_hits(_attached_value(w), loose_role, ctx, dot_rule, tree=tree, walk=walk))
            extra.extend(_word_hits(w, loose_role, ctx, dot_rule, tree=tree, split=split, walk=walk))
    ops = p.operands
    programs = p.code
    if spec.first_is_data_unless is not None and not (p.flags & spec.first_is_data_unless) and ops:
        # `grep ~/.ssh/id_*`: a glob pattern expands into several words, the rest are files
        programs = programs if ops[0].glob else [ops[0]]
        ops = ops if ops[0].glob else ops[1:]
    if language is not None:
        out.extend(_program_hits(language, programs, ctx, dot_rule))
    if spec.skip_first and ops and not (p.flags & spec.read_opts):
        ops = ops[1:]
    if spec.dest:
        if _makes_hard_links(name, p.flags):
            role = Role.RW   # a second name for a file reads and writes it (see _makes_hard_links)
        return out + _dest_hits(ops, p.target_dir, name, role, tree, ctx, dot_rule, walk, p.flags) + extra
    if spec.second_writes and len(ops) >= 2:
        out.extend(_word_hits(ops[1], Role.WRITE, ctx, dot_rule))
        ops = [ops[0], *ops[2:]]
    if spec.default_dot and tree and (not ops or p.loose):
        # Past an option the entry does not model, a word taken for an operand may be its value
        # (`grep --before-context 10 -r 1`: no path given, so grep walks `.`); and xargs runs its
        # command once with no name when its input is empty (`find src -name nomatch | xargs
        # grep -r def` walks `.`, not src).
        ops = [*ops, Word(".", ".", words[-1].span if words else (0, 0))]
    for w in ops:
        out.extend(_word_hits(w, role, ctx, dot_rule, tree=tree, split=split, walk=walk))
    if listed is not None:   # the names xargs appends, besides the operands given
        for r in below or ["."]:
            out.extend(_word_hits(Word(r, r, listed), role, ctx, dot_rule, tree=True, split=split,
                                  walk=True))
    return out + extra


_SYMBOLIC = frozenset({"-s", "--symbolic"})
_LINKING = frozenset({"-l", "--link"})


def _makes_hard_links(name: str, flags: set[str]) -> bool:
    """Whether ``ln``/``link`` (unless ``-s``) or ``cp -l`` makes hard links of its sources: the
    new name is the file itself, so whatever may write the new name later (an edit the
    workspace's rules allow) writes the source: ``ln ~/.bashrc notes.txt`` plants as a write of
    ``~/.bashrc`` would, ``ln ~/.ssh/id_rsa k`` leaks as its read would."""
    if name in ("ln", "link"):
        return not flags & _SYMBOLIC
    return name in ("cp", "gcp") and bool(flags & _LINKING)


def _rg_skips_hidden(p: _Parsed, ctx: Context) -> bool:
    """Whether nothing outside the walked directories makes rg read hidden entries: no option
    (``rghidden.flag_reason``; a parse that is not exact counts), no config file, no
    whitelist in git's global excludes or an ``--ignore-file``."""
    if rghidden.flag_reason((n for n, _ in p.named), bool(p.loose)) is not None:
        return False
    if rghidden.config_reason("--no-config" in p.flags, ctx) is not None:
        return False
    files = [v.text if v is not None and v.static else None for n, v in p.named if n == "--ignore-file"]
    return rghidden.global_reason(ctx, files, rghidden.Budget()) is None


_QUOTED = re.compile(r"""(['"])([^'"\n]{2,300})\1""")


def _code_hits(w: Word, ctx: Context) -> list[SensitiveHit]:
    """Path-like string literals in program text (``python -c "open('.env')"``): the program may
    do anything with them, so they count as unsure access."""
    out: list[SensitiveHit] = []
    for m in _QUOTED.finditer(w.text):
        lit = m.group(2)
        if "/" in lit or lit.startswith((".", "~")):
            out.extend(hits_for_text(lit, Role.UNSURE, ctx, w.span, dynamic=False, glob=False, braces=False))
    return out


_OP_ROLE = {PathOp.READ: Role.READ, PathOp.WRITE: Role.WRITE}


def _program_hits(language: str, words: list[Word], ctx: Context, dot_rule: bool) -> list[SensitiveHit]:
    """The files a sed script or awk program names (``sed '1r ~/x'``, ``getline < "f"``,
    ``print > "f"``), read the way the read-only check reads the program. Only static text
    counts, and expansions in it as the path scanner reads them in any word (``"1r $HOME/x"``):
    a program that is one expansion (``sed "$S"``), or a file name the program computes
    (``print > $1``), cannot be known here and gives no hit — no claim of safety: the read-only
    check refuses such programs on its own."""
    from ..commands.awk import program_files
    from ..commands.sed import script_files

    words = [w for w in words if not w.glob]
    if not words:
        return []
    found: list[tuple[Word, PathOp, str, Span]] = []
    if language == "sed":  # several -e scripts are one script, a line each
        starts = list(itertools.accumulate((len(w.text) + 1 for w in words[:-1]), initial=0))
        for op, name, (a, b) in script_files("\n".join(w.text for w in words)):
            k = bisect.bisect_right(starts, a) - 1
            found.append((words[k], op, name, (a - starts[k], b - starts[k])))
    else:
        found = [(w, op, name, sp) for w in words for op, name, sp in program_files(w.text)]
    out: list[SensitiveHit] = []
    for w, op, name, (a, b) in found:
        # sed and awk open the name as it is: no ~, glob or brace expansion
        out.extend(hits_for_text(name, _OP_ROLE[op], ctx, _inner_span(w, a, b), dynamic=not w.static,
                                 glob=False, braces=False, tilde=False, dot_rule=dot_rule))
    return out


def _inner_span(w: Word, a: int, b: int) -> Span:
    """Where ``w.text[a:b]`` lies in the source: exact when the word's spelling holds its text
    verbatim (``'…'``, a plain word), else the whole word."""
    lead = w.raw.find(w.text) if w.text and w.span[1] - w.span[0] == len(w.raw) else -1
    return (w.span[0] + lead + a, w.span[0] + lead + b) if lead >= 0 else w.span


def _dest_hits(ops: list[Word], target_dir: Word | None, name: str, src_role: Role, tree: bool,
               ctx: Context, dot_rule: bool, walk: int = False,
               flags: set[str] | frozenset[str] = frozenset()) -> list[SensitiveHit]:
    """cp/mv/ln/install/rsync/scp: sources are read, the destination (or DEST/basename) written,
    and a tree copied or moved writes every name it holds below that (``landing.py``)."""
    out: list[SensitiveHit] = []
    maybe_dir = False   # a destination that is no directory now may be one when the command runs
    if target_dir is not None:
        sources, dest, into = ops, target_dir, True
    elif len(ops) >= 2 and name in _NO_TARGET_DIR_CMDS and flags & _NO_TARGET_DIR:
        sources, dest, into = ops[:-1], ops[-1], False   # `cp -rT tpl .claude`: tpl's contents are .claude's
    elif len(ops) >= 2:
        sources, dest = ops[:-1], ops[-1]
        into = dest.text.endswith("/") or len(sources) > 1 or _is_dir(dest.text, ctx)
        maybe_dir = not into
    elif len(ops) == 1 and name in ("ln", "link"):
        sources, dest, into = ops, Word(".", ".", ops[0].span), True
    else:
        sources, dest, into = ops, None, False
    given = sources
    if name in ("scp", "rsync"):  # another machine's paths are not ours
        sources = [w for w in sources if not _is_remote(w.text)]
        if dest is not None and _is_remote(dest.text):
            dest = None
    if name == "mv":  # the source is read and removed, a directory with all below it (no -r needed)
        src_role = Role.RW
    # mv moves, and a link names, a directory whole (no -r); a source that is a file now may be
    # a directory by then (`mkdir -p a && echo … > a/settings.json && mv a .claude`)
    tree = tree or name in ("mv", "ln", "link")
    for w in sources:
        out.extend(_word_hits(w, src_role, ctx, dot_rule, tree=tree, walk=walk))
    if dest is None:
        return out
    # The destination directory itself receives arbitrary names only when a source's contents
    # are copied (`cp -r dir/. ~`, `rsync -a dir/ ~`); otherwise names are DEST/basename(src).
    # A tree written to a destination that is not a directory lands as the destination itself
    # (`mv dir .claude`, `cp -r dir .github`); copied contents land inside it (`cp -r dir/. ~`,
    # `rsync -a dir/ ~`): everything below the destination may be written. (Moving an existing
    # one away first is a write of that tree too: `mv .claude old`, `rmdir .claude`.)
    contents = tree and (not into or any(w.text.rstrip("/").endswith("/.") or w.text in (".", "./")
                                         or (name == "rsync" and w.text.endswith("/")) for w in sources))
    out.extend(_word_hits(dest, Role.WRITE, ctx, dot_rule, tree=contents))
    if into:
        for w in sources:
            base = w.text.rstrip("/").rsplit("/", 1)[-1]
            if base and base not in (".", ".."):
                joined = dest.text.rstrip("/") + "/" + base
                out.extend(_word_hits(Word(joined, joined, dest.span, dest.static and w.static,
                                           dest.glob or w.glob, dest.quoted or w.quoted),
                                      Role.WRITE, ctx, dot_rule, tree=tree))
    if tree and name in _LANDS_TREES and not (out and any(h.cls is PathClass.IMPLANT for h in out)):
        parents = bool(flags & (_RELATIVE if name == "rsync" else _PARENTS))
        lands = [(w, None if _is_remote(w.text) and name in ("scp", "rsync")
                  else _tops(w.text, name, into, maybe_dir, parents)) for w in given]
        out.extend(landing_hits(lands, dest, ctx, dot_rule))
    return out


# The commands that write a whole tree below their destination (`cp -r`, `mv DIR`, `rsync -a`,
# `scp -r`); `ln -s DIR` makes one link (and is no plain edit), `install` copies files only.
_LANDS_TREES = frozenset({"cp", "gcp", "mv", "rsync", "scp"})
_NO_TARGET_DIR = frozenset({"-T", "--no-target-directory"})
_NO_TARGET_DIR_CMDS = frozenset({"cp", "gcp", "mv", "install"})   # (rsync's -T is --temp-dir)
_PARENTS = frozenset({"--parents"})
_RELATIVE = frozenset({"-R", "--relative"})


def _tops(text: str, name: str, into: bool, maybe_dir: bool, parents: bool) -> tuple[str, ...]:
    """Where the top of source ``text`` lands, relative to the destination: ``""`` (its
    contents are the destination's: ``tpl/.``, rsync's ``tpl/``, or a tree renamed), its name
    (copied into a directory), its path as given (``--parents``, rsync ``-R``: after ``/./``).
    A destination that is no directory now may be one by then (``mkdir t; cp -r tpl t``): both."""
    bare = text.rstrip("/")
    base = bare.rsplit("/", 1)[-1]
    if base in ("", ".", "..") or (name == "rsync" and text.endswith("/")):
        return ("",)
    if parents:
        rel = bare.split("/./", 1)[1] if name == "rsync" and "/./" in bare else bare
        rel = os.path.normpath(rel).lstrip("/")
        return (rel if rel != ".." and not rel.startswith("../") else "",)
    if into or name == "rsync":
        return (base,)
    return ("", base) if maybe_dir else ("",)


def _implied_no_index(words: tuple[Word, ...], ctx: Context) -> bool:
    """``git diff A B`` acts as ``--no-index`` when one path lies outside the work tree (or
    there is none): ``git diff . ~`` compares the workspace with HOME, file by file."""
    ops = [w for w in words if w.text != "--" and not (w.static and w.text.startswith("-"))]
    if len(ops) != 2:
        return False
    if not (ctx.workspace / ".git").exists():
        return True
    for w in ops:
        if not w.static:
            return True
        try:
            cands = candidates(w.text, ctx, dynamic=False, glob=False, braces=False)
        except (OSError, ValueError):
            return True
        root = os.path.normpath(str(ctx.workspace))
        if not cands or os.path.commonpath([root, os.path.normpath(cands[0].path)]) != root:
            return True
    return False


def _is_dir(text: str, ctx: Context) -> bool:
    try:
        cands = candidates(text, ctx, dynamic=False, glob=False, braces=False)
        return bool(cands) and os.path.isdir(cands[0].path)
    except (OSError, ValueError):
        return False


_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_FIND_WRITE_OPTS = frozenset({"-fprint", "-fprint0", "-fprintf", "-fls"})


def _exec_role(names: Iterable[str | None]) -> Role:
    """How ``find -exec CMD`` touches the files found: the strongest role of the inner commands."""
    roles = set()
    for n in names:
        spec = COMMANDS.get(n.rsplit("/", 1)[-1]) if n else None
        roles.add(spec.operands if spec is not None else Role.UNSURE)
    for r in (Role.UNSURE, Role.RW, Role.WRITE, Role.READ, Role.ATTR):
        if r in roles:
            return r
    return Role.META


def _find_hits(words: tuple[Word, ...], ctx: Context, dot_rule: bool, span: Span,
               inner: Iterable[str | None] = ()) -> list[SensitiveHit]:
    """find: start paths are only listed, unless the expression runs, deletes or writes. What
    ``-exec`` does to them is what its command does (``-exec du`` only looks, ``-exec cat`` reads)."""
    from ..commands.find import leading_options

    starts: list[Word] = []
    i = leading_options(words)[1]
    while i < len(words) and not words[i].text.startswith(("-", "(", "!", ")")):
        starts.append(words[i])
        i += 1
    expr = words[i:]
    texts = {w.text for w in expr}
    out: list[SensitiveHit] = []
    for j, w in enumerate(expr):
        if w.text in _FIND_WRITE_OPTS and j + 1 < len(expr):
            out.extend(_word_hits(expr[j + 1], Role.WRITE, ctx, dot_rule))
    for j, w in enumerate(words):
        if w.text.startswith("-files0-from"):  # GNU find reads its start points from this file
            val = w.text.partition("=")[2] or (words[j + 1].text if j + 1 < len(words) else "")
            out.extend(hits_for_text(val, Role.READ, ctx, w.span, dynamic=not w.static, glob=False))
    inner = list(inner)
    if "-delete" in texts:
        role = Role.WRITE
    elif texts & _FIND_EXEC:
        role = _exec_role(inner) if inner else Role.UNSURE
    else:
        role = Role.META
    for w in starts or [Word(".", ".", span)]:
        out.extend(_word_hits(w, role, ctx, dot_rule, tree=True, walk=role is not Role.WRITE))
    return out


def _dd_hits(words: tuple[Word, ...], ctx: Context, dot_rule: bool) -> list[SensitiveHit]:
    out: list[SensitiveHit] = []
    for w in words:
        key, eq, val = w.text.partition("=")
        if eq and key in ("if", "of"):
            out.extend(_word_hits(Word(val, val, w.span, w.static, w.glob, w.quoted),
                                  Role.READ if key == "if" else Role.WRITE, ctx, dot_rule))
    return out


def _git_hits(words: tuple[Word, ...], ctx: Context, dot_rule: bool) -> list[SensitiveHit]:
    """git: global options (``-C dir``, ``-c k=v``) are skipped; the rest is unsure."""
    i, opts = split_globals(words)
    chdirs = [v for it in opts if it.name == "-C" for v in it.values]
    if i >= len(words):
        return []
    sub, rest = words[i].text, words[i + 1:]
    opts = set(itertools.takewhile(lambda t: t != "--", (w.text for w in rest)))
    spec = git_tree_spec(sub, {t.split("=", 1)[0] for t in opts if t.startswith("-")})
    if spec is None and sub == "diff" and _implied_no_index(rest, ctx):
        spec = GIT_DIFF_NO_INDEX
    if spec is not None:  # `git -C ~ grep --no-index x` walks the -C directory
        out = [h for d in chdirs for h in _word_hits(d, Role.READ, ctx, dot_rule, tree=True, walk=True)]
        return out + _spec_hits(rest, spec, ctx, dot_rule, name="git")
    spec = GIT if sub in GIT_WRITERS else GIT_MESSAGE if sub in ("commit", "tag") else GIT_READ
    return _spec_hits(words[i + 1:], spec, ctx, dot_rule, name="git", split=True)  # `HEAD:.env`
