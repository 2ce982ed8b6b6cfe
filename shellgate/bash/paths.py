"""Sensitive paths: which words of a script name a secret (LEAK) or a file that runs code later
(IMPLANT), after bash would have expanded them.

The tables are in ``pathlists.py`` (which paths) and ``pathroles.py`` (how each command uses
its words). This module normalises a word the way bash would (``~``, ``$HOME``, relative to the
live cwd, ``..``, ``//``, braces, globs, existing symlinks) and matches it against the table.

Errs towards a hit: a false hit costs one prompt, a miss costs a secret. Two exceptions keep
prompts rare enough to be read: a glob's leading wildcard does not match a leading dot (bash's
default, so ``cat *`` does not "read" ``.env``), and a word whose value is unknown (``$FILE``)
is no hit on that alone — only its static tail can hit (``$DIR/.ssh/id_rsa``).
"""

from __future__ import annotations

import glob as _globmod
import itertools
import os
import posixpath
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from .facts import Context, PathClass, PathOp, SensitiveHit
from .ir import Command, CommandKind, Script, Span, Via, Word
from .pathglob import (
    STARSTAR,
    Seg,
    compile_seg,
    expand_braces,
    has_glob,
    path_intersects,
    seg_regex,
)
from .pathlists import RULES, VARIABLE_ROOTS, PathRule
from .pathroles import COMMANDS, WRAPPERS, CmdPaths, Role

__all__ = ["check_path", "scan", "Role"]

_HOME_ALIAS_RE = "(?:/root|/home/[^/]+|/users/[^/]+)"
_HOME_ALIAS_SEGS: tuple[tuple[str, ...], ...] = (("root",), ("home", "*"), ("users", "*"))
_MAX_GLOB_RESULTS = 64
_INNER_VIAS = frozenset({Via.WRAPPER, Via.SHELL_C, Via.XARGS, Via.FIND_EXEC})


# --------------------------------------------------------------------------- compiled table


@dataclass(frozen=True, slots=True)
class _Alt:
    """One brace alternative of one rule, compiled for one home directory."""

    order: int                                  # position in the table (reports follow it)
    rule: PathRule
    regex: re.Pattern[str]                      # full match on a literal, lowercased path
    segs: tuple[tuple[Seg | str, ...], ...]     # the same, as segment sequences (one per anchor)
    anywhere: bool                              # no anchor: the name matters anywhere in the tree
    rel: tuple[Seg | str, ...]                  # the segments below the anchor
    n_lit: int                                  # how many of them are literal names
    words: tuple[str, ...]                      # distinctive words of the file name (see _specific)
    exclude: re.Pattern[str] | None
    exclude_globs: tuple[str, ...]
    dirs: tuple[str, ...]                       # literal directories holding the file(s)


@dataclass(frozen=True, slots=True)
class _Table:
    """The compiled alternatives, indexed so that a literal path is checked against the few
    rules that could match it (by file name, by a directory name, or by a file-name glob)."""

    alts: tuple[_Alt, ...]
    by_name: dict[str, tuple[_Alt, ...]]
    by_dir: dict[str, tuple[_Alt, ...]]
    by_glob: tuple[tuple[re.Pattern[str], tuple[_Alt, ...]], ...]
    always: tuple[_Alt, ...]


def _segs_regex(segs: Iterable[str]) -> str:
    out = []
    for s in segs:
        out.append("(?:/[^/]+)*" if s == STARSTAR else "/" + seg_regex(s))
    return "".join(out)


def _pattern_segs(segs: Iterable[str]) -> tuple[Seg | str, ...]:
    return tuple(STARSTAR if s == STARSTAR else compile_seg(s) for s in segs)


# File-name words too common to tell a secret from anything else (`*.json` is not `credentials.json`).
_GENERIC_WORDS = frozenset({"json", "yml", "yaml", "toml", "ini", "txt", "conf", "cfg", "xml", "py", "js",
                            "ts", "md", "db", "sh", "local", "backup", "bak", "old", "orig", "tmp", "copy",
                            "new", "data", "file", "files"})


def _words(name: str, drop_generic: bool = False) -> tuple[str, ...]:
    """The alphanumeric runs of a (glob) file name, wildcards and classes removed."""
    plain = re.sub(r"\[[^\]]*\]|[*?]", " ", name)
    runs = [r for r in re.split(r"[^a-z0-9]+", plain) if len(r) >= 2]
    return tuple(r for r in runs if not (drop_generic and r in _GENERIC_WORDS))


def _index(alts: list[_Alt]) -> _Table:
    by_name: dict[str, list[_Alt]] = {}
    by_dir: dict[str, list[_Alt]] = {}
    by_glob: dict[str, list[_Alt]] = {}
    always: list[_Alt] = []
    for alt in alts:
        names = [x.text for x in alt.rel if x != STARSTAR]  # type: ignore[union-attr]
        last = alt.rel[-1]
        if last != STARSTAR and last.literal:  # type: ignore[union-attr]
            by_name.setdefault(last.text, []).append(alt)  # type: ignore[union-attr]
        elif last != STARSTAR:
            by_glob.setdefault(seg_regex(last.text), []).append(alt)  # type: ignore[union-attr]
        elif names and not has_glob(names[-1]):
            by_dir.setdefault(names[-1], []).append(alt)
        else:
            always.append(alt)
    return _Table(tuple(alts), {k: tuple(v) for k, v in by_name.items()},
                  {k: tuple(v) for k, v in by_dir.items()},
                  tuple((re.compile(k), tuple(v)) for k, v in by_glob.items()), tuple(always))


@lru_cache(maxsize=16)
def _table(home: str) -> _Table:
    """The rules compiled for one HOME (lowercased, absolute)."""
    try:
        real_home = os.path.realpath(home).lower()
    except (OSError, ValueError):
        real_home = home
    homes = tuple(dict.fromkeys(h.rstrip("/") for h in (home, real_home)))
    home_re = "(?:" + "|".join([re.escape(h) for h in homes] + [_HOME_ALIAS_RE]) + ")"
    home_segs = tuple(tuple(s for s in h.split("/") if s) for h in homes) + _HOME_ALIAS_SEGS
    alts: list[_Alt] = []
    for rule in RULES:
        excl = tuple(e.lower() for e in rule.exclude)
        excl_re = re.compile("|".join(seg_regex(e) for e in excl)) if excl else None
        for alt in expand_braces(rule.pattern.lower()):
            if alt.startswith("~/"):
                rel = tuple(s for s in alt[2:].split("/") if s)
                anchors, prefix, dir_roots = home_segs, home_re, homes
            elif alt.startswith("/"):
                rel = tuple(s for s in alt.split("/") if s)
                anchors, prefix, dir_roots = ((),), "", ("",)
            else:
                rel = (STARSTAR,) + tuple(s for s in alt.split("/") if s)
                anchors, prefix, dir_roots = ((),), "", ()
            regex = re.compile(prefix + _segs_regex(rel))
            segs = tuple(_pattern_segs(a + rel) for a in anchors)
            fixed: list[str] = []
            for x in rel:
                if x == STARSTAR or has_glob(x):
                    break
                fixed.append(x)
            if len(fixed) == len(rel):
                fixed = fixed[:-1]
            dirs = tuple(r + "".join("/" + f for f in fixed) or "/" for r in dir_roots)
            named = [x for x in rel if x != STARSTAR]
            words = _words(named[-1], drop_generic=True) if named and rel[-1] != STARSTAR else ()
            alts.append(_Alt(len(alts), rule, regex, segs, not dir_roots, _pattern_segs(rel),
                             sum(1 for x in named if not has_glob(x)), words, excl_re, excl, dirs))
    return _index(alts)


# --------------------------------------------------------------------------- normalisation


@dataclass(frozen=True, slots=True)
class _Cand:
    """A path a word may name: absolute and normalised, or (``tail``) only its static end."""

    path: str
    glob: bool
    tail: bool = False


_VAR_RE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def _var_value(name: str, ctx: Context) -> str | None:
    spec = VARIABLE_ROOTS.get(name)
    if spec is None:
        return None
    if spec == "~" or spec.startswith("~/"):
        return str(ctx.home) + spec[1:]
    return posixpath.join(str(ctx.cwd), spec) if spec != "." else str(ctx.cwd)


def _normpath(path: str) -> str:
    path = posixpath.normpath(path)
    return "/" + path.lstrip("/") if path.startswith("//") else path


def _candidates(text: str, ctx: Context, *, dynamic: bool, glob: bool, braces: bool,
                tilde: bool = True) -> list[_Cand]:
    """Every absolute path ``text`` may stand for (bounded), as bash would expand it."""
    if not text or "\x00" in text:
        return []
    if dynamic:
        text = _VAR_RE.sub(lambda m: _var_value(m.group(1) or m.group(2), ctx) or m.group(0), text)
        if "$" in text or "`" in text or text.startswith("~-"):
            return _tail(text, glob)
    if tilde and text.startswith("~"):
        first, sep, rest = text.partition("/")
        user = first[1:]
        if user == "":
            base = str(ctx.home)
        elif user == "+":
            base = str(ctx.cwd)
        elif re.fullmatch(r"[A-Za-z0-9._-]+", user):
            base = "/root" if user == "root" else "/home/" + user
        else:
            base = None
        if base is not None:
            text = base + sep + rest
    texts = expand_braces(text) if braces and "{" in text else [text]
    out = []
    for t in texts:
        if not t.startswith("/"):
            t = posixpath.join(str(ctx.cwd), t)
        out.append(_Cand(_normpath(t), glob and has_glob(t)))
    return out


def _tail(text: str, glob: bool) -> list[_Cand]:
    """The static end of a word with an unknown expansion: ``$D/.ssh/id_rsa`` -> ``/.ssh/id_rsa``."""
    cut = max(text.rfind("$"), text.rfind("`"), text.rfind("}"), text.rfind(")"))
    rest = text[cut + 1:] if cut >= 0 else text[2:]
    slash = rest.find("/")
    if slash == -1:
        return []
    tail = _normpath("/" + rest[slash + 1:])
    if tail == "/" or ".." in tail.split("/"):
        return []
    return [_Cand(tail, glob and has_glob(tail), tail=True)]


def _resolved(cand: _Cand) -> Iterator[_Cand]:
    """The path itself, and where existing symlinks really lead (spelled and resolved are both
    checked: a link in the workspace to ``~/.ssh/id_rsa`` is the key)."""
    yield cand
    if cand.tail:
        return
    try:
        if cand.glob:
            for found in itertools.islice(_globmod.iglob(cand.path), _MAX_GLOB_RESULTS):
                yield _Cand(found, False)
                real = os.path.realpath(found)
                if real != found:
                    yield _Cand(real, False)
            return
        real = os.path.realpath(cand.path)
    except (OSError, ValueError, RuntimeError):
        return
    if real != cand.path:
        yield _Cand(real, False)


# --------------------------------------------------------------------------- matching

_Found = tuple[_Alt, PathClass, PathOp]


def _literal_alts(path: str, table: _Table) -> Iterator[_Alt]:
    low = path.lower()
    key = "" if low == "/" else low
    parts = low.split("/")
    base = parts[-1]
    cands: list[_Alt] = list(table.by_name.get(base, ()))
    for part in set(parts):
        cands.extend(table.by_dir.get(part, ()))
    for rx, alts in table.by_glob:
        if rx.fullmatch(base):
            cands.extend(alts)
    cands.extend(table.always)
    cands.sort(key=lambda a: a.order)
    last = None
    for alt in cands:
        if alt is last:
            continue
        last = alt
        if alt.regex.fullmatch(key) and not (alt.exclude and alt.exclude.fullmatch(base)):
            yield alt


def _glob_within(name: str, excl: str) -> bool:
    """Is every name the glob ``name`` matches also matched by ``excl``? (Conservative: only
    the obvious ``*.pub`` / equal-text cases answer yes.)"""
    if name == excl:
        return True
    if excl.startswith("*") and not has_glob(excl[1:]):
        suffix = excl[1:]
        head = name[: len(name) - len(suffix)]
        return name.endswith(suffix) and not has_glob(name[len(head):])
    return False


def _specific(glob_base: str, alt: _Alt) -> bool:
    """Does a glob's file name say enough to mean this name rule? ``cat *`` could match a file
    named ``id_rsa`` in any directory, but only ``id_*``, ``*.pem`` or ``.env*`` *ask* for one.
    (What really exists on disk is checked separately, by expanding the glob.)"""
    return any(g == w or (len(g) >= 3 and len(w) >= 3 and (g in w or w in g))
               for g in _words(glob_base) for w in alt.words)


def _tail_hits(segs: tuple[Seg | str, ...], alt: _Alt, dot_rule: bool) -> bool:
    """A static tail must itself name the rule: it matches a suffix of the rule's segments that
    holds at least two of its literal names (or all, when it has fewer)."""
    need = min(2, alt.n_lit)
    rel = alt.rel
    for start in range(len(rel)):
        suffix = rel[start:]
        if sum(1 for x in suffix if x != STARSTAR and x.literal) < need:  # type: ignore[union-attr]
            break
        if path_intersects(segs, suffix, dot_rule, strict=True):
            return True
    return False


def _glob_alts(cand: _Cand, table: _Table, dot_rule: bool) -> Iterator[_Alt]:
    low = cand.path.lower()
    parts = [p for p in low.split("/") if p]
    segs = tuple(STARSTAR if p == "**" and cand.glob else compile_seg(p, glob=cand.glob) for p in parts)
    base = parts[-1] if parts else ""
    literal_base = not has_glob(base) or not cand.glob
    for alt in table.alts:
        if alt.words and not literal_base and (alt.anywhere or cand.tail) and not _specific(base, alt):
            continue
        if cand.tail:
            if not _tail_hits(segs, alt, dot_rule):
                continue
        elif not any(path_intersects(segs, full, dot_rule, strict=alt.anywhere) for full in alt.segs):
            continue
        if alt.exclude is not None:
            if literal_base and alt.exclude.fullmatch(base):
                continue
            if not literal_base and any(_glob_within(base, e) for e in alt.exclude_globs):
                continue
        yield alt


def _ancestor_alts(path: str, table: _Table, home: str) -> Iterator[_Alt]:
    """Rules whose files lie inside directory ``path`` (for commands that walk trees)."""
    low = path.lower().rstrip("/") or "/"
    if low in ("/home", "/users"):
        low = posixpath.dirname(home) or "/"
    elif m := re.fullmatch(r"/(?:home|users)/[^/]+(/.*)?|/root(/.*)?", low):
        low = home + (m.group(1) or m.group(2) or "")
    for alt in table.alts:
        for d in alt.dirs:
            if low == "/" or d == low or d.startswith(low + "/"):
                yield alt
                break


def _classify(alts: Iterable[_Alt], role: Role) -> list[_Found]:
    """Which class and op each matched rule means for this kind of access, one per class."""
    found: dict[PathClass, _Found] = {}
    for alt in alts:
        rule = alt.rule
        got: list[tuple[PathClass, PathOp]] = []
        if role is Role.READ:
            if rule.leak:
                got.append((PathClass.LEAK, PathOp.READ))
        elif role is Role.WRITE:
            if rule.implant:
                got.append((PathClass.IMPLANT, PathOp.WRITE))
            elif rule.leak:
                got.append((PathClass.LEAK, PathOp.WRITE))
        elif role is Role.ATTR:
            if rule.implant:
                got.append((PathClass.IMPLANT, PathOp.WRITE))
        elif role in (Role.RW, Role.UNSURE):
            if rule.leak:
                got.append((PathClass.LEAK, PathOp.READ))
            if rule.implant:
                got.append((PathClass.IMPLANT, PathOp.WRITE))
        for cls, op in got:
            found.setdefault(cls, (alt, cls, op))
        if len(found) == 2:
            break
    return list(found.values())


def _hits_for_text(text: str, role: Role, ctx: Context, span: Span | None, *, dynamic: bool, glob: bool,
                   braces: bool = True, tree: bool = False, dot_rule: bool = True,
                   tilde: bool = True) -> list[SensitiveHit]:
    if role in (Role.NONE, Role.META):
        return []
    home = str(ctx.home).lower().rstrip("/") or "/"
    table = _table(home)
    out: list[SensitiveHit] = []
    classes: set[PathClass] = set()
    for first in _candidates(text, ctx, dynamic=dynamic, glob=glob, braces=braces, tilde=tilde):
        for cand in _resolved(first):
            if cand.glob or cand.tail:
                alts = list(_glob_alts(cand, table, dot_rule))
            else:
                alts = list(_literal_alts(cand.path, table))
                if tree and not alts:
                    alts = list(_ancestor_alts(cand.path, table, home))
            for alt, cls, op in _classify(alts, role):
                if cls not in classes:
                    classes.add(cls)
                    out.append(SensitiveHit(cand.path, cls, op, span, alt.rule.pattern))
            if len(classes) == 2:
                return out
    return out


# --------------------------------------------------------------------------- public: one path

_OP_ROLE = {PathOp.READ: Role.READ, PathOp.WRITE: Role.WRITE}


def check_path(path: str, op: PathOp, ctx: Context, span: Span | None = None) -> SensitiveHit | None:
    """Is ``path`` (read or written as ``op``) sensitive? For non-bash tools (Read, Write, Edit).

    ``~``, ``$HOME``, relative paths (against ``ctx.cwd``), globs and existing symlinks are
    handled as for bash words. Never raises: an internal error is reported as a hit, so the
    caller prompts rather than lets a secret through.
    """
    try:
        text = str(path)
        role = _OP_ROLE.get(op, Role.UNSURE)
        hits = _hits_for_text(text, role, ctx, span, dynamic="$" in text or "`" in text,
                              glob=has_glob(text))
        return hits[0] if hits else None
    except Exception as exc:  # fail closed: a hit makes the caller ask
        return SensitiveHit(str(path)[:200], PathClass.LEAK, op if isinstance(op, PathOp) else PathOp.READ,
                            span, f"internal-error: {type(exc).__name__}")


# --------------------------------------------------------------------------- public: a script


def scan(script: Script, ctx: Context) -> tuple[SensitiveHit, ...]:
    """Every sensitive path the executed commands of ``script`` read or write.

    Looks at operands, option values (``--file=X``, ``-fX``, ``if=X``), redirect targets and the
    files some commands touch without naming them (``git config --global`` writes
    ``~/.gitconfig``). Never raises: an internal error is reported as a hit.
    """
    try:
        return _scan(script, ctx)
    except Exception as exc:  # fail closed
        return (SensitiveHit("<scan failed>", PathClass.LEAK, PathOp.READ, None,
                             f"internal-error: {type(exc).__name__}"),)


def _scan(script: Script, ctx: Context) -> tuple[SensitiveHit, ...]:
    from .pathimplicit import implicit_hits  # local: keeps the import graph one-way and small

    dot_rule = not _dotglob(script)
    limits: dict[int, int] = {}
    inner: dict[int, list[str | None]] = {}
    for c in script.commands:
        if c.parent is not None and c.via and c.via[-1] in _INNER_VIAS:
            start = c.words[0].span[0] if c.words else c.span[0]
            limits[c.parent] = min(limits.get(c.parent, start), start)
            inner.setdefault(c.parent, []).append(c.name)
    out: list[SensitiveHit] = []
    seen: set[tuple[Span | None, PathClass, str]] = set()
    for i, cmd in enumerate(script.commands):
        found = itertools.chain(
            _redirect_hits(cmd, ctx, dot_rule),
            _command_hits(cmd, limits.get(i), ctx, dot_rule, inner.get(i, ())),
            implicit_hits(cmd, ctx),
        )
        for hit in found:
            key = (hit.span, hit.cls, hit.path)
            if key not in seen:
                seen.add(key)
                out.append(hit)
    return tuple(out)


def _dotglob(script: Script) -> bool:
    """Does the script make `*` match dot files (``shopt -s dotglob``, ``GLOBIGNORE=…``)?"""
    for c in script.commands:
        if any(a.name == "GLOBIGNORE" for a in c.assignments):
            return True
        if c.name == "shopt" and any(w.text == "dotglob" or not w.static for w in c.args):
            return True
    return False


def _word_hits(word: Word, role: Role, ctx: Context, dot_rule: bool, *, tree: bool = False,
               split: bool = False) -> list[SensitiveHit]:
    """Hits for one word, looking also inside ``k=v``, ``@file`` and (``split``) ``a:b,c=d``."""
    text = word.text
    raw_pieces = []
    if "=" in text:
        raw_pieces.append(text.split("=", 1)[1])
    if split:
        for part in re.split(r"[,:]", text):
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
        for hit in _hits_for_text(p, role, ctx, word.span, dynamic=not word.static, glob=word.glob,
                                  braces=word.glob or not word.quoted, tree=tree, dot_rule=dot_rule,
                                  tilde=tilde or p is not text):
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


def _own_words(cmd: Command, limit: int | None) -> tuple[Word, ...]:
    """The command's arguments that are its own (not those of an unwrapped inner command)."""
    args = cmd.words[1:]
    if limit is None:
        return args
    return tuple(w for w in args if w.span[1] <= limit)


def _command_hits(cmd: Command, limit: int | None, ctx: Context, dot_rule: bool,
                  inner: Iterable[str | None] = ()) -> list[SensitiveHit]:
    if cmd.kind is not CommandKind.SIMPLE or not cmd.words:
        return []
    name = cmd.name
    words = _own_words(cmd, limit)
    if name is None:  # `$EDITOR ~/.bashrc`: unknown program, unsure access
        return [h for w in words for h in _word_hits(w, Role.UNSURE, ctx, dot_rule, tree=True, split=True)]
    base = name.rsplit("/", 1)[-1]
    if base == "find":
        return _find_hits(words, ctx, dot_rule, cmd.span, inner)
    if base == "dd":
        return _dd_hits(words, ctx, dot_rule)
    if base == "git":
        return _git_hits(words, ctx, dot_rule)
    spec = COMMANDS.get(base)
    if spec is None:
        unsure = CmdPaths(Role.UNSURE, tree=True)
        return _spec_hits(words, unsure, ctx, dot_rule, split=base not in WRAPPERS)
    return _spec_hits(words, spec, ctx, dot_rule, name=base)


@dataclass(slots=True)
class _Parsed:
    flags: set[str]
    operands: list[Word]
    valued: list[tuple[Word, Role, bool]]   # option values: (word, role, is the whole word a value)
    target_dir: Word | None


def _parse_opts(words: tuple[Word, ...], spec: CmdPaths, role: Role) -> _Parsed:
    """Split words into flags, operands and option values, getopt-style (options may follow
    operands; ``--`` ends them). Unknown options with an attached value keep the operand role."""
    flags: set[str] = set()
    operands: list[Word] = []
    valued: list[tuple[Word, Role, bool]] = []
    target_dir: Word | None = None
    value_role = {**dict.fromkeys(spec.read_opts, Role.READ), **dict.fromkeys(spec.write_opts, Role.WRITE)}
    skip_value = spec.data_opts | spec.use_opts
    i, ended = 0, False
    while i < len(words):
        w = words[i]
        t = w.text
        i += 1
        if ended or not w.static or len(t) < 2 or t[0] != "-":
            operands.append(w)
            continue
        if t == "--":
            ended = True
            continue
        if t.startswith("--"):
            opt, eq, _val = t.partition("=")
            flags.add(opt)
            if spec.dest and opt == "--target-directory":
                if eq:
                    target_dir = w
                elif i < len(words):
                    target_dir = words[i]
                    i += 1
                continue
            if opt in skip_value or opt in value_role:
                if not eq and i < len(words):
                    if opt in value_role:
                        valued.append((words[i], value_role[opt], True))
                    i += 1
                elif eq and opt in value_role:
                    valued.append((w, value_role[opt], False))
                continue
            if eq:
                valued.append((w, role, False))
            continue
        opt = t[:2]
        flags.update((t, opt))
        if t[1:].isalpha():
            flags.update("-" + c for c in t[1:])
        attached = t[2:]
        if spec.dest and opt == "-t":
            if attached:
                target_dir = w
            elif i < len(words):
                target_dir = words[i]
                i += 1
            continue
        if opt in skip_value or opt in value_role:
            if attached:
                if opt in value_role:
                    valued.append((w, value_role[opt], False))
            elif i < len(words):
                if opt in value_role:
                    valued.append((words[i], value_role[opt], True))
                i += 1
            continue
        if "/" in attached or attached.startswith("~"):
            valued.append((w, role, False))
    return _Parsed(flags, operands, valued, target_dir)


def _attached_value(w: Word) -> Word:
    """``-fX`` / ``--file=X`` -> a word holding just ``X``."""
    t = w.text
    v = (t.split("=", 1)[1] if "=" in t else "") if t.startswith("--") else t[2:]
    return Word(v, v, w.span, w.static, w.glob, w.quoted)


def _is_remote(t: str) -> bool:
    """``host:path`` / ``user@host:path`` operands of scp/rsync name another machine."""
    return bool(re.match(r"^[^/]*:", t)) and not t.startswith(("./", "/", "~"))


def _spec_hits(words: tuple[Word, ...], spec: CmdPaths, ctx: Context, dot_rule: bool, *,
               name: str = "", split: bool = False) -> list[SensitiveHit]:
    role = spec.operands
    p = _parse_opts(words, spec, role)
    if p.flags & spec.rw_flags or (name in ("sed", "gsed") and any(f.startswith("-i") or f == "--in-place"
                                                                    or (not f.startswith("--") and "i" in f)
                                                                    for f in p.flags)):
        role = Role.RW
    tree = spec.tree or bool(p.flags & spec.tree_flags)
    out: list[SensitiveHit] = []
    for w, r, whole in p.valued:
        out.extend(_word_hits(w if whole else _attached_value(w), r, ctx, dot_rule))
    ops = p.operands
    if spec.first_is_data_unless is not None and not (p.flags & spec.first_is_data_unless) and ops:
        ops = ops[1:]
    if spec.skip_first and ops and not (p.flags & spec.read_opts):
        ops = ops[1:]
    if spec.dest:
        return out + _dest_hits(ops, p.target_dir, name, role, tree, ctx, dot_rule)
    for w in ops:
        out.extend(_word_hits(w, role, ctx, dot_rule, tree=tree, split=split))
    return out


def _dest_hits(ops: list[Word], target_dir: Word | None, name: str, src_role: Role, tree: bool,
               ctx: Context, dot_rule: bool) -> list[SensitiveHit]:
    """cp/mv/ln/install/rsync/scp: sources are read, the destination (or DEST/basename) written."""
    out: list[SensitiveHit] = []
    if target_dir is not None:
        sources, dest, into = ops, target_dir, True
    elif len(ops) >= 2:
        sources, dest = ops[:-1], ops[-1]
        into = dest.text.endswith("/") or len(sources) > 1 or _is_dir(dest.text, ctx)
    elif len(ops) == 1 and name in ("ln", "link"):
        sources, dest, into = ops, Word(".", ".", ops[0].span), True
    else:
        sources, dest, into = ops, None, False
    if name in ("scp", "rsync"):  # another machine's paths are not ours
        sources = [w for w in sources if not _is_remote(w.text)]
        if dest is not None and _is_remote(dest.text):
            dest = None
    for w in sources:
        out.extend(_word_hits(w, src_role, ctx, dot_rule, tree=tree))
    if dest is None:
        return out
    # The destination directory itself receives arbitrary names only when a source's contents
    # are copied (`cp -r dir/. ~`, `rsync -a dir/ ~`); otherwise names are DEST/basename(src).
    contents = tree and any(w.text.rstrip("/").endswith("/.") or w.text in (".", "./")
                            or (name == "rsync" and w.text.endswith("/")) for w in sources)
    out.extend(_word_hits(dest, Role.WRITE, ctx, dot_rule, tree=contents))
    if into:
        for w in sources:
            base = w.text.rstrip("/").rsplit("/", 1)[-1]
            if base and base not in (".", ".."):
                joined = dest.text.rstrip("/") + "/" + base
                out.extend(_word_hits(Word(joined, joined, dest.span, dest.static and w.static,
                                           dest.glob or w.glob, dest.quoted or w.quoted),
                                      Role.WRITE, ctx, dot_rule, tree=tree))
    return out


def _is_dir(text: str, ctx: Context) -> bool:
    try:
        cands = _candidates(text, ctx, dynamic=False, glob=False, braces=False)
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
    starts: list[Word] = []
    i = 0
    while i < len(words) and (words[i].text in ("-H", "-L", "-P", "-D") or words[i].text.startswith("-O")):
        i += 2 if words[i].text == "-D" else 1
    while i < len(words) and not words[i].text.startswith(("-", "(", "!", ")")):
        starts.append(words[i])
        i += 1
    expr = words[i:]
    texts = {w.text for w in expr}
    out: list[SensitiveHit] = []
    for j, w in enumerate(expr):
        if w.text in _FIND_WRITE_OPTS and j + 1 < len(expr):
            out.extend(_word_hits(expr[j + 1], Role.WRITE, ctx, dot_rule))
    inner = list(inner)
    if "-delete" in texts:
        role = Role.WRITE
    elif texts & _FIND_EXEC:
        role = _exec_role(inner) if inner else Role.UNSURE
    else:
        role = Role.META
    for w in starts or [Word(".", ".", span)]:
        out.extend(_word_hits(w, role, ctx, dot_rule, tree=True))
    return out


def _dd_hits(words: tuple[Word, ...], ctx: Context, dot_rule: bool) -> list[SensitiveHit]:
    out: list[SensitiveHit] = []
    for w in words:
        key, eq, val = w.text.partition("=")
        if eq and key in ("if", "of"):
            out.extend(_word_hits(Word(val, val, w.span, w.static, w.glob, w.quoted),
                                  Role.READ if key == "if" else Role.WRITE, ctx, dot_rule))
    return out


_GIT_GLOBAL_VALUED = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path",
                                "--config-env", "--super-prefix"})
# git subcommands that write the working tree (or run hooks/config) get "unsure" operands;
# the others only read the paths they are given (`git add .env` stages a secret: a leak).
_GIT_WRITERS = frozenset({"checkout", "restore", "mv", "rm", "clean", "reset", "switch", "apply", "am", "merge",
                          "pull", "cherry-pick", "revert", "stash", "worktree", "clone", "init", "submodule",
                          "config", "archive", "bundle", "format-patch", "read-tree", "checkout-index",
                          "update-index", "hash-object", "notes", "filter-branch", "sparse-checkout"})
_GIT = CmdPaths(Role.UNSURE, data_opts=frozenset({"-m", "--message", "--grep", "--author", "--committer",
                                                  "--format", "--pretty", "-S", "-G", "--date", "-b", "-B",
                                                  "--branch", "-u", "--set-upstream-to", "-X", "-s"}),
                read_opts=frozenset({"-F", "--file"}))
_GIT_READ = CmdPaths(Role.READ, data_opts=_GIT.data_opts, read_opts=_GIT.read_opts)


def _git_hits(words: tuple[Word, ...], ctx: Context, dot_rule: bool) -> list[SensitiveHit]:
    """git: global options (``-C dir``, ``-c k=v``) are skipped; the rest is unsure."""
    i = 0
    while i < len(words) and words[i].text.startswith("-"):
        t = words[i].text
        i += 2 if t in _GIT_GLOBAL_VALUED else 1
    if i >= len(words):
        return []
    spec = _GIT if words[i].text in _GIT_WRITERS else _GIT_READ
    return _spec_hits(words[i + 1:], spec, ctx, dot_rule, name="git")
