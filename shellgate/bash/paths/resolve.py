"""Sensitive paths: which words of a script name a secret (LEAK) or a file that runs code later
(IMPLANT), after bash would have expanded them.

The tables are in ``tables.py`` (which paths) and ``roles.py`` (how each command uses
its words); ``scan.py`` finds the path words of a script, ``globs.py`` intersects globs.
This module normalises a word the way bash would (``~``, ``$HOME``, relative to the
live cwd, ``..``, ``//``, braces, globs, existing symlinks) and matches it against the table. A
``..`` is taken both as text and the kernel's way, from where a link before it points.

Errs towards a hit: a false hit costs one prompt, a miss costs a secret. Two exceptions keep
prompts rare enough to be read: a glob's leading wildcard does not match a leading dot (bash's
default, so ``cat *`` does not "read" ``.env``), and a word whose value is unknown (``$FILE``)
is no hit on that alone — only its static tail can hit (``$DIR/.ssh/id_rsa``).
"""

from __future__ import annotations

import os
import posixpath
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextvars import ContextVar
from functools import lru_cache
from operator import attrgetter

from ..._record import record, replace
from ..._xdg import moved_xdg
from ..facts import Context, PathClass, PathOp, SensitiveHit
from ..ir import Script, Span
from . import hardlinks, rghidden
from .globs import (
    STARSTAR,
    Seg,
    compile_seg,
    expand_braces,
    has_glob,
    literal_ends,
    path_intersects,
    seg_regex,
)
from .roles import Role
from .tables import RULES, VARIABLE_ROOTS, PathRule

__all__ = ["check_path", "check_search", "scan", "hits_for_text", "expand_variables", "Role"]

# What a compiled table is for: the lowercased HOME, the context's watched patterns, the
# XDG bases the environment moves (shellgate._xdg.moved_xdg) and the files git configuration
# includes that hold a credential (paths/content.git_included_secrets).
TableKey = tuple[str, tuple[str, ...], tuple[tuple[str, str], ...], tuple[str, ...]]
WATCHED_WHY = "a path a read rule of the policy names, or a file shellgate itself reads"
INCLUDED_WHY = ("a file a git config includes (include.path, includeIf.<cond>.path) holding a "
                "credential: a token in a URL, an http.extraHeader, a password key")

_HOME_ALIAS_RE = "(?:/root|/home/[^/]+|/users/[^/]+)"
_HOME_ALIAS_SEGS: tuple[tuple[str, ...], ...] = (("root",), ("home", "*"), ("users", "*"))
_MAX_GLOB_RESULTS = 64
_MAX_GLOB_ENTRIES = 2000
_MAX_WALK_ENTRIES = 10_000  # ~8 us each: a walk gives up (and fails closed) after ~80 ms


# --------------------------------------------------------------------------- compiled table


@record
class _Alt:
    """One brace alternative of one rule, for one home directory. Regex sources, regexes,
    segment sequences and name words are built on first use (``_alt_rx``, ``_pattern_segs``,
    ``_name_words``): a hook process checks a handful of paths and should not pay for
    compiling every rule."""

    order: int                                  # position in the table (reports follow it)
    rule: PathRule
    prefix: str                                 # regex source of the anchor (the home directories)
    anchors: tuple[tuple[str, ...], ...]        # directory segments the rule hangs from
    rel_text: tuple[str, ...]                   # the rule's segments below the anchor
    anywhere: bool                              # no anchor: the name matters anywhere in the tree
    n_lit: int                                  # how many segments are literal names
    exclude_globs: tuple[str, ...]              # basename globs of benign look-alikes
    dirs: tuple[str, ...]                       # literal directories holding the file(s)

    @property
    def pattern(self) -> str:
        """Regex source: full match on a lowercased path."""
        return self.prefix + _segs_regex(self.rel_text)

    @property
    def regex(self) -> re.Pattern[str]:
        return _alt_rx(self.prefix, self.rel_text)

    @property
    def words(self) -> tuple[str, ...]:
        """Distinctive words of the file name (see _specific)."""
        return _name_words(self.rel_text)

    @property
    def exclude(self) -> re.Pattern[str] | None:
        return _exclude_rx(self.exclude_globs) if self.exclude_globs else None

    @property
    def rel(self) -> tuple[Seg | str, ...]:
        return _pattern_segs(self.rel_text)

    @property
    def segs(self) -> tuple[tuple[Seg | str, ...], ...]:
        return tuple(_pattern_segs(a + self.rel_text) for a in self.anchors)

    def may_start(self, head: tuple[str, ...]) -> bool:
        """Cheap test before the exact intersection: can a path whose first segments are the
        literal ``head`` lie under one of this rule's anchors?"""
        if self.anywhere:
            return True
        for a in self.anchors:
            full = a + self.rel_text
            if all(k >= len(full) or full[k] == STARSTAR or has_glob(full[k]) or full[k] == h
                   for k, h in enumerate(head)):
                return True
        return False


@lru_cache(maxsize=4096)
def _rx(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


@lru_cache(maxsize=1024)
def _exclude_rx(globs: tuple[str, ...]) -> re.Pattern[str]:
    return _rx("|".join(seg_regex(e) for e in globs))


@lru_cache(maxsize=4096)
def _alt_rx(prefix: str, rel: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(prefix + _segs_regex(rel))


@record
class _Table:
    """The compiled alternatives, indexed so that a literal path is checked against the few
    rules that could match it (by file name, by a directory name, or by a file-name glob)."""

    alts: tuple[_Alt, ...]
    by_name: dict[str, tuple[_Alt, ...]]
    by_dir: dict[str, tuple[_Alt, ...]]
    by_glob: tuple[tuple[str, tuple[_Alt, ...]], ...]  # file-name glob (regex source) -> its rules
    # A name matching a by_glob glob starts with one of glob_heads or ends with one of glob_tails
    # (each glob's literal ends): the cheap test before any regex (compiled on first use).
    glob_heads: tuple[str, ...]
    glob_tails: tuple[str, ...]
    any_glob: str                               # regex source: one of the by_glob patterns matches
    always: tuple[_Alt, ...]
    always_heads: tuple[str, ...]               # a path one of `always` matches starts with one
    ancestors: dict[str, tuple[_Alt, ...]]      # each prefix of a rule's directory -> those rules
    # anywhere rules of two segments or more, by the last segment of each head a tree may end
    # with (`.claude` -> `.claude/settings*.json`): (literal last segments, glob ones)
    nested: dict[str, tuple[tuple[_Alt, _Head], ...]]
    nested_globs: tuple[tuple[re.Pattern[str], _Alt, _Head], ...]
    leak_names: str                             # regex source: names an anywhere leak rule may end with
    key: TableKey                               # what it was compiled for: (HOME, watched, moved XDG)


def _segs_regex(segs: Iterable[str]) -> str:
    out = []
    for s in segs:
        out.append("(?:/[^/]+)*" if s == STARSTAR else "/" + seg_regex(s))
    return "".join(out)


@lru_cache(maxsize=4096)
def _pattern_segs(segs: tuple[str, ...]) -> tuple[Seg | str, ...]:
    return tuple(STARSTAR if s == STARSTAR else compile_seg(s) for s in segs)


# File-name words too common to tell a secret from anything else (`*.json` is not `credentials.json`).
_GENERIC_WORDS = frozenset({"json", "yml", "yaml", "toml", "ini", "txt", "conf", "cfg", "xml", "py", "js",
                            "ts", "md", "db", "sh", "local", "backup", "bak", "old", "orig", "tmp", "copy",
                            "new", "data", "file", "files"})


@lru_cache(maxsize=1024)
def _name_words(rel: tuple[str, ...]) -> tuple[str, ...]:
    named = [x for x in rel if x != STARSTAR]
    return _words(named[-1], drop_generic=True) if named and rel[-1] != STARSTAR else ()


def _words(name: str, drop_generic: bool = False) -> tuple[str, ...]:
    """The alphanumeric runs of a (glob) file name, wildcards and classes removed."""
    plain = re.sub(r"\[[^\]]*\]|[*?]", " ", name)
    runs = [r for r in re.split(r"[^a-z0-9]+", plain) if len(r) >= 2]
    return tuple(r for r in runs if not (drop_generic and r in _GENERIC_WORDS))


def _index(alts: list[_Alt], key: TableKey) -> _Table:
    by_name: dict[str, list[_Alt]] = {}
    by_dir: dict[str, list[_Alt]] = {}
    by_glob: dict[str, list[_Alt]] = {}
    heads: set[str] = set()
    tails: set[str] = set()
    always: list[_Alt] = []
    for alt in alts:
        names = [x for x in alt.rel_text if x != STARSTAR]
        last = alt.rel_text[-1]
        if last != STARSTAR and not has_glob(last):
            by_name.setdefault(last, []).append(alt)
        elif last != STARSTAR:
            by_glob.setdefault(seg_regex(last), []).append(alt)
            head, tail = literal_ends(last)
            if head or not tail:
                heads.add(head)   # "" when the glob has no literal end: every name passes
            else:
                tails.add(tail)
        elif names and not has_glob(names[-1]):
            by_dir.setdefault(names[-1], []).append(alt)
        else:
            always.append(alt)
    ancestors: dict[str, list[_Alt]] = {}
    for alt in alts:
        for d in alt.dirs:
            parts = d.split("/")
            for k in range(1, len(parts) + 1):
                prefix = "/".join(parts[:k]) or "/"
                group = ancestors.setdefault(prefix, [])
                if not group or group[-1] is not alt:
                    group.append(alt)
    return _Table(tuple(alts), {k: tuple(v) for k, v in by_name.items()},
                  {k: tuple(v) for k, v in by_dir.items()},
                  tuple((k, tuple(v)) for k, v in by_glob.items()),
                  tuple(sorted(heads)), tuple(sorted(tails)),
                  "|".join(f"(?:{k})" for k in by_glob) or "(?!)", tuple(always), _heads_of(always),
                  {k: tuple(v) for k, v in ancestors.items()}, *_nested(alts),
                  "|".join(sorted({seg_regex(a.rel_text[-1]) for a in alts if a.anywhere
                                   and a.rule.leak and a.rel_text[-1] != STARSTAR})), key)


# The first segments of a rule, each a literal name or a compiled glob.
_Head = tuple["str | re.Pattern[str]", ...]


def _nested(alts: list[_Alt]) -> tuple[dict[str, tuple[tuple[_Alt, _Head], ...]],
                                        tuple[tuple[re.Pattern[str], _Alt, _Head], ...]]:
    """The heads of the anywhere rules (``_Table.nested``): for each rule, its first j
    segments for each j short of its length (and before a ``**``), by the j-th segment."""
    literal: dict[str, list[tuple[_Alt, _Head]]] = {}
    globs: list[tuple[re.Pattern[str], _Alt, _Head]] = []
    for a in alts:
        rel = a.rel_text[1:]
        if not a.anywhere or len(rel) < 2:
            continue
        head: list[str | re.Pattern[str]] = []
        for seg in rel[:-1]:
            if seg == STARSTAR:
                break
            head.append(re.compile(seg_regex(seg)) if has_glob(seg) else seg)
            last = head[-1]
            if isinstance(last, str):
                literal.setdefault(last, []).append((a, tuple(head)))
            else:
                globs.append((last, a, tuple(head)))
    return {k: tuple(v) for k, v in literal.items()}, tuple(globs)


def _heads_of(alts: list[_Alt]) -> tuple[str, ...]:
    """Texts a path any of ``alts`` matches starts with: an absolute rule's directory; ""
    (every path) for a rule under HOME (its aliases are patterns) or anywhere in the tree."""
    heads: set[str] = set()
    for a in alts:
        if not a.prefix and not a.anywhere and a.dirs:
            heads.update(d.rstrip("/") + "/" for d in a.dirs)
        else:
            heads.add("")
    return tuple(sorted(heads))


@lru_cache(maxsize=16)
def _table(home: str, watched: tuple[str, ...] = (), moved: tuple[tuple[str, str], ...] = (),
           included: tuple[str, ...] = ()) -> _Table:
    """The rules compiled for one HOME (lowercased, absolute), with the context's ``watched``
    patterns as leak entries of their own (see ``Context.watched``), and each entry under a
    default XDG base also at the directory its variable ``moved`` it to; the ``included``
    files (absolute, literal) are leak entries too."""
    try:
        real_home = os.path.realpath(home).lower()
    except (OSError, ValueError):
        real_home = home
    homes = tuple(dict.fromkeys(h.rstrip("/") for h in (home, real_home)))
    home_re = "(?:" + "|".join([re.escape(h) for h in homes] + [_HOME_ALIAS_RE]) + ")"
    home_segs = tuple(tuple(s for s in h.split("/") if s) for h in homes) + _HOME_ALIAS_SEGS
    alts: list[_Alt] = []
    extra = tuple(PathRule(w, True, False, WATCHED_WHY) for w in watched) \
        + tuple(PathRule(_as_pattern(p), True, False, INCLUDED_WHY) for p in included)
    for rule in RULES + extra:
        excl = tuple(e.lower() for e in rule.exclude)
        for alt in _xdg_alternatives(expand_braces(rule.pattern.lower()), moved):
            if alt.startswith("~/"):
                rel = tuple(s for s in alt[2:].split("/") if s)
                anchors, prefix, dir_roots = home_segs, home_re, homes
            elif alt.startswith("/"):
                rel = tuple(s for s in alt.split("/") if s)
                anchors, prefix, dir_roots = ((),), "", ("",)
            else:
                rel = (STARSTAR,) + tuple(s for s in alt.split("/") if s)
                anchors, prefix, dir_roots = ((),), "", ()
            fixed: list[str] = []
            for x in rel:
                if x == STARSTAR or has_glob(x):
                    break
                fixed.append(x)
            if len(fixed) == len(rel):
                fixed = fixed[:-1]
            dirs = tuple(r + "".join("/" + f for f in fixed) or "/" for r in dir_roots)
            n_lit = sum(1 for x in rel if x != STARSTAR and not has_glob(x))
            alts.append(_Alt(len(alts), rule, prefix, anchors, rel, not dir_roots, n_lit, excl, dirs))
    return _index(alts, (home, watched, moved, included))


def _as_pattern(path: str) -> str:
    """A literal path as a table pattern: each character the table's syntax reads (a glob, a
    brace, an escape) becomes ``?``, which matches it and more (a superset: fail closed)."""
    return re.sub(r"[*?\[\]{}\\]", "?", path)


def _xdg_alternatives(alts: Iterable[str], moved: tuple[tuple[str, str], ...]) -> Iterator[str]:
    """Each alternative, and for one under a default XDG base (``~/.config/…``) the same path
    under the directory the environment moved that base to."""
    for alt in alts:
        yield alt
        for default, directory in moved:
            head = f"~/{default}/"
            if alt.startswith(head):
                yield directory.lower().rstrip("/") + "/" + alt[len(head):]


# --------------------------------------------------------------------------- normalisation


@record
class _Cand:
    """A path a word may name: absolute and normalised, or (``tail``) only its static end."""

    path: str
    glob: bool
    tail: bool = False


_PWD_SUBST = re.compile(r"\$\(\s*pwd\s*\)|`\s*pwd\s*`")
_VAR_RE = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def _var_value(name: str, ctx: Context, names: Mapping[str, str]) -> str | None:
    spec = names.get(name)
    if spec is None:
        return None
    if spec == "~" or spec.startswith("~/"):
        return str(ctx.home) + spec[1:]
    return posixpath.join(str(ctx.cwd), spec) if spec != "." else str(ctx.cwd)


def expand_variables(text: str, ctx: Context, names: Mapping[str, str] = VARIABLE_ROOTS) -> str:
    """``text`` with each ``$NAME`` / ``${NAME}`` of ``names`` replaced by its value in ``ctx``
    (``~`` is the context's home, ``.`` its cwd); other expansions are left as spelled. The
    sensitive-path check passes the usual values of many variables (``VARIABLE_ROOTS``: a
    guess errs towards a hit); a boundary check passes ``KNOWN_VARIABLES`` only."""
    if "$" not in text:
        return text
    return _VAR_RE.sub(lambda m: _var_value(m.group(1) or m.group(2), ctx, names) or m.group(0),
                       text)


def _normpath(path: str) -> str:
    path = posixpath.normpath(path)
    return "/" + path.lstrip("/") if path.startswith("//") else path


# A character that gives a word more than one reading (expansions, tilde, braces, globs).
_NOT_PLAIN = re.compile(r"[\x00$`{~*?\[]")
# An empty, `.` or `..` segment: joining the word needs normpath.
_NEEDS_NORM = re.compile(r"(?:^|/)\.{0,2}(?:/|$)")


@lru_cache(maxsize=64)
def _cwd_base(cwd: str) -> tuple[str, bool] | None:
    """The normalised cwd to join plain words to, and whether it has glob characters; None
    when it is not absolute (then ``candidates`` does the work)."""
    norm = _normpath(cwd)
    return (norm, has_glob(cwd)) if norm.startswith("/") else None


def _plain_path(text: str, ctx: Context, glob: bool) -> str | None:
    """The one candidate of a plain word (no expansion, tilde, brace, glob, ``.``/``..`` or
    empty segment), as ``candidates`` would give it, without its general machinery; None for
    any other word."""
    if not text or _NOT_PLAIN.search(text):
        return None
    if text[0] == "/":
        return None if _NEEDS_NORM.search(text[1:]) else text
    base = _cwd_base(str(ctx.cwd))
    if base is None or (glob and base[1]) or _NEEDS_NORM.search(text):
        return None
    return f"{base[0]}/{text}" if base[0] != "/" else "/" + text


def candidates(text: str, ctx: Context, *, dynamic: bool, glob: bool, braces: bool,
                tilde: bool = True) -> list[_Cand]:
    """Every absolute path ``text`` may stand for (bounded), as bash would expand it."""
    if not text or "\x00" in text:
        return []
    if dynamic:
        if "pwd" in text:  # `$(pwd)` is $PWD (the builtin prints it): the cwd, not a guess
            text = _PWD_SUBST.sub("${PWD}", text)
        text = expand_variables(text, ctx)
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
        cand = _Cand(_normpath(t), glob and has_glob(t))
        out.append(cand)
        if "/.." in t and ".." in t.split("/"):
            out.extend(c for c in _physical(t, cand.glob) if c.path != cand.path)
    return out


def _physical(path: str, glob: bool) -> list[_Cand]:
    """Where an absolute path spelled with ``..`` segments really leads. ``_normpath`` drops a
    ``..`` with the name before it, as text; the kernel follows that name first when it is a
    link and goes up from where it points: with ``awl -> ~/.aws/cli``, ``awl/../credentials``
    is ``~/.aws/credentials``. So the part up to the last ``..`` is resolved on disk (through
    its glob matches, bounded, when it has wildcards) and the rest, which has no ``..``, is
    appended as spelled. A part that does not resolve names nothing the kernel could open."""
    parts = path.split("/")
    last = len(parts) - 1 - parts[::-1].index("..")
    head, rest = "/".join(parts[:last + 1]), "/".join(parts[last + 1:])
    out: list[_Cand] = []
    try:
        heads = [f for f, _link in _bounded_glob(head)] if glob and has_glob(head) else [head]
        for h in heads:
            real = _realpath(h)
            out.append(_Cand(_normpath(f"{real}/{rest}") if rest else real, glob and has_glob(rest)))
    except (OSError, ValueError, RuntimeError):
        pass
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
            for found, link in _bounded_glob(cand.path):
                yield _Cand(found, False)
                if link:
                    yield _Cand(_realpath(found), False)
            return
        real = _real(cand.path)
    except (OSError, ValueError, RuntimeError):
        return
    if real != cand.path:
        yield _Cand(real, False)


_O_PATH = getattr(os, "O_PATH", 0)
_PROC_FD = os.path.isdir("/proc/self/fd")


def _realpath(path: str) -> str:
    """``os.path.realpath``, faster for the common case of an existing file: the kernel
    resolves it (``O_PATH`` + ``/proc/self/fd``: three system calls instead of one ``lstat`` per
    component). Missing files, dangling links and other systems take the pure-Python way."""
    return _kernel_real(path) or os.path.realpath(path)


# The directories resolved so far in one scan: lexical path -> (real path, whether it is missing).
# The words of one script share directories (the cwd above all), and nothing runs between their
# checks; ``scan`` sets a fresh one and drops it at the end, so no filesystem answer outlives a scan.
_WALKED: ContextVar[dict[str, tuple[str, bool]] | None] = ContextVar("shellgate_paths_walked", default=None)


def _real(path: str) -> str:
    """``os.path.realpath`` of a normalised path, walked the way it walks (one ``lstat`` per
    component, top down) but from the deepest directory this scan has already resolved, and
    stopping at the first component that does not exist: below it no name can be a link, so the
    rest is appended as spelled, as ``realpath`` does. A symlink met on the way is resolved by
    the kernel and the walk goes on from its target (a cwd below a link stays cheap); when the
    kernel cannot (dangling, loop) or any other error, the whole path goes to ``_realpath``.
    System calls are the cost of a check: a plain word in the cwd costs one ``lstat`` here."""
    if not path.startswith("/") or path == "/":
        return _realpath(path)
    memo = _WALKED.get()
    if memo is None:
        memo = {}
    hit = memo.get(path)
    if hit is not None:
        return hit[0]
    cut = len(path)
    cur, start = "", 1
    while (cut := path.rfind("/", 0, cut)) > 0:
        hit = memo.get(path[:cut])
        if hit is not None:
            if hit[1]:
                return hit[0] + path[cut:]
            cur, start = hit[0], cut + 1
            break
    names = path[start:].split("/")
    lex = path[:start - 1]
    if len(names) > 4:  # a deep directory nothing is known of: the kernel resolves it in three calls
        parent = path[:path.rfind("/")]
        target = _kernel_real(parent)
        if target is not None:
            memo[parent] = (target, False)
            cur, lex, names = target, parent, names[-1:]
    for i, name in enumerate(names):
        lex = f"{lex}/{name}"
        nxt = f"{cur}/{name}" if cur != "/" else "/" + name
        try:
            st = os.lstat(nxt)
        except (FileNotFoundError, NotADirectoryError):
            memo[lex] = (nxt, True)
            return "/".join((nxt, *names[i + 1:]))
        except OSError:
            return _realpath(path)
        if stat.S_ISLNK(st.st_mode):
            # Where an existing link leads is where realpath goes on from; a link that does not
            # resolve (realpath then stops resolving, or resolves lexically) is left to it.
            target = _kernel_real(nxt)
            if target is None:
                return _realpath(path)
            nxt = target
        memo[lex] = (nxt, False)
        cur = nxt
    return cur


def _kernel_real(path: str) -> str | None:
    """The kernel's resolution of an existing path (``O_PATH`` + ``/proc/self/fd``), else None."""
    if not (_O_PATH and _PROC_FD):
        return None
    try:
        fd = os.open(path, _O_PATH | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    finally:
        os.close(fd)


def _bounded_glob(pattern: str) -> list[tuple[str, bool]]:
    """What an absolute glob matches on disk now, bash-style (no leading-dot matches by a
    wildcard), giving up after reading ``_MAX_GLOB_ENTRIES`` directory entries: a hook must not
    walk ``/*/*/*`` (what is not found is still covered by the pattern-level check)."""
    parts = [p for p in pattern.split("/") if p]
    results: list[tuple[str, bool]] = []
    budget = [_MAX_GLOB_ENTRIES]

    def walk(base: str, i: int, link: bool = False) -> None:
        if len(results) >= _MAX_GLOB_RESULTS or budget[0] <= 0:
            return
        if i == len(parts):
            results.append((base or "/", link or os.path.islink(base or "/")))
            return
        part = parts[i]
        if not has_glob(part):
            nxt = f"{base}/{part}"
            if os.path.lexists(nxt):
                walk(nxt, i + 1, link)
            return
        rx = re.compile(seg_regex(part))
        dots = part.startswith(".")
        try:
            with os.scandir(base or "/") as it:
                for entry in it:
                    budget[0] -= 1
                    if budget[0] <= 0:
                        return
                    if (dots or not entry.name.startswith(".")) and rx.fullmatch(entry.name):
                        walk(f"{base}/{entry.name}", i + 1, link or entry.is_symlink())
        except OSError:
            return

    walk("", 0)
    return results


# --------------------------------------------------------------------------- /proc magic links

# Entries of /proc/<pid> (and /proc/<pid>/task/<tid>) that the kernel follows like symlinks to
# wherever that process has them: its cwd, its root, its executable, its open files. Text
# normalisation is wrong there (``/proc/self/cwd/..`` is the parent of the cwd, not
# ``/proc/self``), and resolving them in this process would give this process's answer. Only
# the command's own cwd and root are known exactly; any other path through one is unknown.
_MAGIC_LINKS = frozenset({"cwd", "root", "exe"})
_MAGIC_DIRS = frozenset({"fd", "map_files"})   # every entry below is a magic link
_OWN = frozenset({"self", "thread-self"})
_STDIO = frozenset({"0", "1", "2"})            # /proc/self/fd/0: the command's own stdin
_WILD = re.compile(r"[*?\[{$`]")
MAGIC_PATTERN = "/proc/*/{cwd,root,exe,fd/*,map_files/*} (a /proc magic link: where it leads is not known)"


class _Unknown:
    """Where a path through a /proc magic link leads cannot be known."""


_UNKNOWN = _Unknown()


def _pid_like(seg: str) -> bool:
    return seg.isdigit() or seg in _OWN or bool(_WILD.search(seg))


def _proc_links(text: str, ctx: Context) -> str | _Unknown | None:
    """``text`` with a leading run through the command's own ``/proc/self/{cwd,root}`` replaced
    by where it leads, ``_UNKNOWN`` for a path through any other magic link (or a segment under
    /proc that may be one: a glob, an expansion), None when no magic link is involved."""
    if not text.startswith("/"):
        if text.startswith("~"):
            return None
        text = f"{ctx.cwd}/{text}"
    if "proc" not in text:
        return None
    stack: list[str] = []
    segs = text.split("/")
    changed = False
    for k, seg in enumerate(segs):
        if seg in ("", "."):
            continue
        if seg == "..":
            if stack:
                stack.pop()
            continue
        stack.append(seg)
        if len(stack) < 3 or stack[0] != "proc" or not _pid_like(stack[1]):
            continue
        own = stack[1] in _OWN
        rest = stack[2:]
        if rest[0] == "task" and len(rest) >= 3:
            own, rest = False, rest[2:]
        name = rest[0] if rest else ""
        if len(rest) == 1 and _WILD.search(name):
            return _UNKNOWN
        if len(rest) == 1 and name in _MAGIC_LINKS:
            if not own or name == "exe" or (name == "cwd" and str(ctx.cwd).startswith("/proc")):
                return _UNKNOWN
            stack = [x for x in _realpath(str(ctx.cwd)).split("/") if x] if name == "cwd" else []
            changed = True
        elif len(rest) == 2 and name in _MAGIC_DIRS:
            if own and name == "fd" and rest[1] in _STDIO and k == len(segs) - 1:
                continue
            return _UNKNOWN
    if not changed:
        return None
    return "/" + "/".join(stack) if stack else "/"


def _magic_hits(text: str, role: Role, span: Span | None) -> list[SensitiveHit]:
    """Fail closed on a path through a /proc magic link: a leak when read, an implant when written."""
    out = []
    if role in (Role.READ, Role.RW, Role.UNSURE):
        out.append(SensitiveHit(text, PathClass.LEAK, PathOp.READ, span, MAGIC_PATTERN))
    if role in (Role.WRITE, Role.RW, Role.UNSURE, Role.ATTR):
        out.append(SensitiveHit(text, PathClass.IMPLANT, PathOp.WRITE, span, MAGIC_PATTERN))
    return out


# --------------------------------------------------------------------------- matching

_Found = tuple[_Alt, PathClass, PathOp]
_ORDER = attrgetter("order")


def _literal_alts(path: str, table: _Table) -> list[_Alt]:
    """The rules a literal path matches, in table order (runs for every word: kept lean). A
    rule with ``when`` matches where the file holds a credential now (``content.py``; a
    relative path, whose file is not known here, always)."""
    out = _name_alts(path, table)
    if out and any(a.rule.when for a in out):
        from .content import holds_credential

        out = [a for a in out if not a.rule.when or not path.startswith("/")
               or holds_credential(path, a.rule.when)]
    return out


def _name_alts(path: str, table: _Table) -> list[_Alt]:
    """The rules a literal path matches by its name alone (see :func:`_literal_alts`)."""
    low = path.lower()
    parts = low.split("/")
    base = parts[-1]
    by_dir = table.by_dir
    cands: list[_Alt] = list(table.by_name.get(base, ()))
    if not by_dir.keys().isdisjoint(parts):
        for part in parts:
            if part in by_dir:
                cands.extend(by_dir[part])
    if (base.startswith(table.glob_heads) or base.endswith(table.glob_tails)) and \
            _rx(table.any_glob).fullmatch(base):
        for src, alts in table.by_glob:
            if _rx(src).fullmatch(base):
                cands.extend(alts)
    key = "" if low == "/" else low
    if not cands:  # the usual word: only the rules indexed by nothing can match
        if not low.startswith(table.always_heads):
            return []
        return [a for a in table.always
                if a.regex.fullmatch(key) and not ((ex := a.exclude) and ex.fullmatch(base))]
    cands.extend(table.always)
    cands.sort(key=_ORDER)
    out: list[_Alt] = []
    last = None
    for alt in cands:
        if alt is last:
            continue
        last = alt
        if alt.regex.fullmatch(key) and not ((ex := alt.exclude) and ex.fullmatch(base)):
            out.append(alt)
    return out


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


def _specific(glob_words: tuple[str, ...], alt: _Alt) -> bool:
    """Does a glob's file name (its ``_words``) say enough to mean this name rule? ``cat *``
    could match a file named ``id_rsa`` in any directory, but only ``id_*``, ``*.pem`` or
    ``.env*`` *ask* for one. (What really exists on disk is checked separately.)"""
    return any(g == w or (len(g) >= 3 and len(w) >= 3 and (g in w or w in g))
               for g in glob_words for w in alt.words)


@lru_cache(maxsize=1024)
def _starting(key: TableKey, head: tuple[str, ...]) -> frozenset[int]:
    """The rules (by order) a path beginning with the literal segments ``head`` may meet."""
    return frozenset(a.order for a in _table(*key).alts if a.may_start(head))


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


def _glob_candidates(parts: list[str], glob: bool, table: _Table, dot_rule: bool = True) -> list[_Alt]:
    """The rules a glob path could possibly meet, found through the same indexes as for literal
    paths (a name rule needs the glob's file name to match its name, a directory rule needs a
    segment to match its directory) so that the exact intersection runs on a few rules only."""
    if not parts:
        return list(table.alts)
    # A wildcard at the start of a segment does not match a leading dot (bash without dotglob).
    rxs = [re.compile(("(?!\\.)" if dot_rule and p[:1] in "*?[" else "") + seg_regex(p)
                      if glob else re.escape(p)) for p in parts]
    any_dirs = glob and "**" in parts
    out: list[_Alt] = [*table.always]
    for _rx_glob, alts in table.by_glob:
        out.extend(alts)
    base_rx = rxs[-1]
    for name, alts in table.by_name.items():
        if base_rx.fullmatch(name):
            out.extend(alts)
    for name, alts in table.by_dir.items():
        if any_dirs or any(r.fullmatch(name) for r in rxs):
            out.extend(alts)
    out.sort(key=lambda a: a.order)
    return out


@lru_cache(maxsize=1024)
def _glob_alts_of(path: str, glob: bool, tail: bool, dot_rule: bool, key: TableKey) -> tuple[_Alt, ...]:
    """``_glob_alts``, remembered: it is costly and depends on the text alone (never on the
    filesystem), so an answer cannot go stale; ``cat *`` in one directory recurs."""
    return tuple(_glob_alts(_Cand(path, glob, tail), _table(*key), dot_rule, key[0]))


def _glob_alts(cand: _Cand, table: _Table, dot_rule: bool, home: str) -> Iterator[_Alt]:
    low = cand.path.lower()
    parts = [p for p in low.split("/") if p]
    segs = tuple(STARSTAR if p == "**" and cand.glob else compile_seg(p, glob=cand.glob) for p in parts)
    base = parts[-1] if parts else ""
    literal_base = not has_glob(base) or not cand.glob
    head: list[str] = []
    for p in parts[:2]:
        if cand.glob and has_glob(p):
            break
        head.append(p)
    starting = _starting(table.key, tuple(head)) if head and not cand.tail else None
    base_words = _words(base)
    for alt in _glob_candidates(parts, cand.glob, table, dot_rule):
        if starting is not None and alt.order not in starting:
            continue
        if alt.words and not literal_base and (alt.anywhere or cand.tail) and not _specific(base_words, alt):
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


def _ancestor_alts(path: str, table: _Table, home: str) -> tuple[_Alt, ...]:
    """Rules whose files lie inside directory ``path`` (for commands that walk or write trees):
    an anchored rule below it, or an anywhere rule whose first segments ``path`` ends with
    (``mv dir .claude`` makes ``.claude/settings.json`` of whatever ``dir`` holds)."""
    low = path.lower().rstrip("/") or "/"
    if low in ("/home", "/users"):
        low = posixpath.dirname(home) or "/"
    elif low.startswith(("/home/", "/users/", "/root")) and (
            m := re.fullmatch(r"/(?:home|users)/[^/]+(/.*)?|/root(/.*)?", low)):
        low = home + (m.group(1) or m.group(2) or "")
    found = table.ancestors.get(low, ())
    segs = low.split("/")
    last = segs[-1]
    heads = [*table.nested.get(last, ()), *((a, h) for rx, a, h in table.nested_globs if rx.fullmatch(last))]
    nested = tuple(dict.fromkeys(a for a, h in heads if _ends_with(segs, h)))
    return found + nested if nested else found


def _ends_with(segs: list[str], head: _Head) -> bool:
    """Whether ``segs`` ends with ``head`` (its last segment is known to match already)."""
    n = len(head)
    return n <= len(segs) and all(h == s if isinstance(h, str) else h.fullmatch(s)
                                  for h, s in zip(head[:-1], segs[len(segs) - n:-1], strict=True))


# Not walked into: dependency caches (their test keys are not the user's) and `.git` (every
# `grep -r` in every repository would otherwise ask); but `.git/config` is read, and is the
# secret found where it holds credentials (`_git_config_secret`).
_WALK_SKIP = frozenset({"node_modules", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache", ".ruff_cache",
                        ".pytest_cache", "site-packages", "dist-packages", ".cache", ".git"})


# A walk's ``walk`` value: FOLLOW for a reader that follows the links it meets below (grep -R,
# rg -L, diff -r); True (1) for one that does not. A link the former meets inside a skipped
# directory (`node_modules/x -> ~/.ssh`, `.venv/c -> ~/.aws/credentials`, both committed to a
# repository) is read like any other, so those directories are searched for links then.
FOLLOW = 2
# Or'ed into a walk's value for rg, whose options include no hidden entry (``rghidden.py``):
# names starting with `.` below are skipped unless an ignore file in or above the walk has a
# whitelist line; the walk reads those files' names as it goes, and them only when it found
# no secret otherwise.
VISIBLE = 4
# Or'ed in for a reader that reads the entries directly inside a directory operand and none
# below (diff without -r compares DIR's own files, and with -N prints one missing on the other
# side whole): the walk lists the directory once, looking at its files and where its links
# lead, and descends into none of its subdirectories (not even ``.git`` for its config).
SHALLOW = 8

WALK_BOUND_PATTERN = f"more than {_MAX_WALK_ENTRIES} entries below (not all could be checked)"
_WALK_BOUND = "<walk bound>"  # _secret_inside's answer when it gave up


# --------------------------------------------------------------------------- hard links

# The secret inodes of one scan, by (table key, HOME as spelled, workspace): computed when a
# word or walk first meets a multiply-linked file, and dropped with the scan (``_WALKED``).
_INODES: ContextVar[dict[tuple[TableKey, str, str, bool], hardlinks.Inodes] | None] = ContextVar(
    "shellgate_paths_inodes", default=None)
_NO_PREFIX = ("/dev/", "/proc/", "/sys/")  # no regular file there can be linked from elsewhere


class _Links:
    """What a check needs to tell a hard link of a secret (``hardlinks.py``): the table, HOME
    as spelled (the table's is lowercased; the disk's names are not) and the workspace, whose
    top-level ``.env``-style files are secrets too. The inodes are enumerated on first use:
    the leak files' for a read, every sensitive file's (leak or implant) for a write."""

    __slots__ = ("table", "home", "workspace", "_inodes")

    def __init__(self, table: _Table, home: str, workspace: str) -> None:
        self.table, self.home, self.workspace = table, home, workspace
        self._inodes: dict[bool, hardlinks.Inodes] = {}

    def inodes(self, write: bool = False) -> hardlinks.Inodes:
        found = self._inodes.get(write)
        if found is None:
            memo = _INODES.get()
            key = (self.table.key, self.home, self.workspace, write)
            found = memo.get(key) if memo is not None else None
            if found is None:
                files, dirs = _link_roots(self.table, self.home, self.workspace, write)
                wanted = _is_sensitive if write else _is_leak
                found = hardlinks.enumerate_secrets(files, dirs, lambda p: wanted(p, self.table))
                if memo is not None:
                    memo[key] = found
            self._inodes[write] = found
        return found

    def owner(self, path: str, st: os.stat_result | None = None,
              write: bool = False) -> tuple[str, list[_Alt]] | None:
        """``path`` with the rules of the secret it is another name of, as a walk's hit (the
        rule's pattern says both names); None when it is none (or not a multiply-linked file).
        ``write``: the file's bytes or mode may change, and every name sees that: an implant
        file's inode counts too, and so does one whose other names were not found (a write
        through a hard link reaches them wherever they are, past every sandbox's path rules:
        fail closed)."""
        try:
            st = st or os.stat(path)
        except (OSError, ValueError):
            return None
        if not hardlinks.multiply_linked(st):
            return None
        secret = self.inodes(write).owner(st)
        if secret is None and not write:
            return None
        if secret == hardlinks.BOUND_NOTE:
            return path, [_synthetic(self.table, f"{path} has more than one name: {secret}", True, write)]
        if secret is None:   # written, and its other names unknown
            return path, [_synthetic(self.table, (
                f"{path} is a hard link with {st.st_nlink} names, the others not known: writing it "
                "writes them, wherever they are, past the sandbox's path rules (~/.bashrc, a git hook …)"),
                False, True)]
        alts = [a for a in _literal_alts(secret, self.table) if write or a.rule.leak]
        base = alts[0] if alts else self.table.alts[0]
        return path, [replace(a, rule=replace(a.rule, pattern=(
            f"{path} is a hard link of {secret} ({a.rule.pattern})"))) for a in alts or [base]]


def linked_sensitive(home: str, workspace: str,
                     note: Note | None = None) -> tuple[dict[hardlinks.Key, tuple[str, bool]], bool]:
    """The implant and secret files that have more than one name, by (st_dev, st_ino): the
    path found and whether a leak rule names it; with whether the enumeration was complete.
    The very enumeration a write's check uses (``_Links.inodes(write=True)``: HOME's files
    and trees, absolute files, the workspace's fixed places), so that the sandbox protects
    the other names of what the classifier calls sensitive (sandbox/links.py)."""
    table = _table(home.lower().rstrip("/") or "/", (), moved_xdg())
    if note is not None:   # _link_roots lists both tops for their .env-style files
        note("d", workspace)
        note("d", home)
    files, dirs = _link_roots(table, home, workspace, True)
    found = hardlinks.enumerate_secrets(files, dirs, lambda p: _is_sensitive(p, table), note=note)
    return {k: (p, _is_leak(p, table)) for k, p in found.by_key.items()}, found.complete


def _synthetic(table: _Table, pattern: str, leak: bool = True, implant: bool = False) -> _Alt:
    """An entry of its own for a hit no rule names: a multiply-linked file past the bound
    (leak, and implant when written), or a written one whose other names are unknown."""
    base = table.alts[0]
    return replace(base, rule=PathRule(pattern, leak, implant, "a hard link whose other names are not known"))


def _is_leak(path: str, table: _Table) -> bool:
    return any(a.rule.leak for a in _literal_alts(path, table))


def _any_leak(alts: Iterable[_Alt]) -> bool:
    return any(a.rule.leak for a in alts)


def _is_sensitive(path: str, table: _Table) -> bool:
    return bool(_literal_alts(path, table))


def _links_for(ctx: Context, table: _Table) -> _Links:
    return _Links(table, str(ctx.home), str(ctx.workspace))


def _link_roots(table: _Table, home: str, workspace: str,
                write: bool = False) -> tuple[list[str], list[tuple[str, int]]]:
    """Where the anchored leak rules of ``table`` (HOME's and absolute ones) may have files:
    literal paths, and (directory, depth) to list, -1 for a ``**`` rule; with the top-level
    entries of the workspace and HOME an anywhere leak rule names (``.env``, ``~/.netrc``,
    ``~/.pgpass``, ``*.pem``): one listing each, deeper ones are not looked for. ``write``: the
    implant rules' too, an anywhere one rooted at the workspace when it names a fixed place
    there (``.git/hooks/**``, ``.envrc``, ``.vscode/tasks.json``; not ``**/site-packages/…``), and
    of the absolute ones only the literal files (``/etc/profile``): the system trees they name
    (``/usr/lib/systemd/**``) would take the whole budget, and a written file none of these is a
    name of asks all the same (``_Links.owner``): the enumeration only names the other file."""
    homes = tuple(dict.fromkeys(h.rstrip("/") or "/" for h in (home, _realpath(home))))
    fixed, dirs = _link_places(table.key, homes, workspace, write)
    files = list(fixed)
    leak_names = _rx(table.leak_names)
    for top in dict.fromkeys((workspace, *homes)):
        try:
            with os.scandir(top) as it:
                files.extend(e.path for e in it
                             if leak_names.fullmatch(e.name.lower()) and _is_leak(e.path, table))
        except (OSError, ValueError):
            pass
    return files, list(dirs)


@lru_cache(maxsize=32)
def _link_places(key: TableKey, homes: tuple[str, ...], workspace: str,
                 write: bool) -> tuple[tuple[str, ...], tuple[tuple[str, int], ...]]:
    """:func:`_link_roots`' part that depends on the table alone (``key``: ``_table``'s
    arguments; the rules brace-expanded and rooted: ~1.5 ms, the same at every call of a
    session and of the sandbox's lines)."""
    table = _table(*key)
    files: list[str] = []
    dirs: list[tuple[str, int]] = []
    for rule in dict.fromkeys(a.rule for a in table.alts):
        if not (rule.leak or (write and rule.implant)):
            continue
        anchored = rule.pattern.startswith(("~/", "/"))
        if not anchored and not (write and rule.implant):
            continue
        for alt in expand_braces(rule.pattern):
            if alt.startswith(_NO_PREFIX) or alt.startswith(STARSTAR):
                continue
            roots = homes if alt.startswith("~/") else [""] if alt.startswith("/") else [workspace]
            segs = [s for s in (alt[2:] if alt.startswith("~/") else alt).split("/") if s]
            k = next((i for i, s in enumerate(segs) if s == STARSTAR or has_glob(s)), len(segs))
            for r in roots:
                base = r.rstrip("/")
                if k == len(segs):
                    files.append("/".join([base, *segs]))
                elif not rule.leak and not r:
                    continue   # /usr/lib/*/wireshark/plugins/**: a system tree, ~100 ms to list (see owner)
                else:
                    rest = segs[k:]
                    dirs.append(("/".join([base, *segs[:k]]) or "/", -1 if STARSTAR in rest else len(rest)))
    return tuple(dict.fromkeys(files)), tuple(dict.fromkeys(dirs))


def _secret_inside(path: str, table: _Table, home: str, follow: bool = False,
                   visible: bool = False, links: _Links | None = None,
                   shallow: bool = False) -> tuple[str, list[_Alt]] | None:
    """The first file under directory ``path`` that a name rule calls a leak (``.env``,
    ``id_rsa``, ``*.pem`` …), or that a symlink below leads to (``docs/key -> ~/.ssh/id_rsa``,
    ``docs/aws -> ~/.aws``: a reader that follows links reads the secret); past the walk's
    bound the answer is ``(_WALK_BOUND, [])``: what was not seen may be a secret, so the caller
    fails closed. ``visible``: rg's walk without hidden entries (see VISIBLE); ``shallow``: the
    entries directly inside ``path`` only (see SHALLOW)."""
    if visible:
        ignores: list[str] = []
        hits, complete = _secrets_below(path, table, home, first=True, follow=follow, ignores=ignores,
                                        links=links)
        if hits:
            return hits[0]
        if not complete:
            return (_WALK_BOUND, [])
        if not _hidden_whitelisted(path, ignores):
            return None
    hits, complete = _secrets_below(path, table, home, first=True, follow=follow, links=links,
                                    shallow=shallow)
    if hits:
        return hits[0]
    return None if complete else (_WALK_BOUND, [])


def _hidden_whitelisted(path: str, ignores: list[str]) -> bool:
    """Whether an ignore file rg reads for directory ``path`` (``ignores``: those the walk met
    below it; its parents') may whitelist a hidden entry."""
    if not os.path.isdir(path):
        return False
    budget = rghidden.Budget()
    for f in ignores:
        found = (rghidden.git_exclude_whitelists(f, budget) if f.endswith("/.git")
                 else rghidden.whitelists(f, budget))
        if found:
            return True
    return rghidden.above_whitelists(path, _realpath(path), budget)


# Told of each thing a walk looks at: ("d", directory) before listing it, ("r", link) for a
# link resolved, ("l", path) for a path whose type was asked — so that a caller can tell later
# whether the walk would still find the same (the sandbox's remembered hook lines).
Note = Callable[[str, str], None]


def leaks_below(root: str, home: str, budget: int | None = None, note: Note | None = None,
                watched: tuple[str, ...] = ()) -> tuple[tuple[str, ...], bool]:
    """Every leak-class file below directory ``root`` by the same walk and table as a
    recursive reader's check (a file a name rule names, or where a symlink below leads): what a
    sandbox profile hides of a workspace. At most ``budget`` entries are read (default: a
    recursive reader's bound). Returns (paths, complete)."""
    low = home.lower().rstrip("/") or "/"
    table = _table(low, watched, moved_xdg())
    hits, complete = _secrets_below(root, table, low, first=False, budget=budget, note=note,
                                    links=_Links(table, home, root))
    return tuple(dict.fromkeys(p for p, _ in hits)), complete


def leak_at(path: str, ctx: Context, *, link: bool, below: bool) -> str | None:
    """What a reader handed ``path`` — one entry a walk met, links not followed — may expose,
    by the recursive reader's rules but skipping nothing (``_WALK_SKIP`` is for a reader that
    walks a tree; a name find or git printed is read whatever directory it lies in): the path
    when a leak rule names it, where it leads when it is a link to a secret (a file a rule
    names, a directory holding credentials, or a secret below the linked directory), and
    (``below``: the reader may recurse, and ``path`` is a directory) the first secret below
    it. None when there is none; past the walk's bound, ``WALK_BOUND_PATTERN`` (fail closed)."""
    home, table = _home_table(ctx)
    if _rx(table.leak_names).fullmatch(path.rstrip("/").rsplit("/", 1)[-1].lower()) \
            and any(a.rule.leak for a in _literal_alts(path, table)):
        return path
    todo: list[str] = []
    links = _links_for(ctx, table)
    if link:
        found = _link_secret(path, table, home, set(), todo, links=links)
        if found is not None:
            return found[0]
    elif below:
        todo.append(path)
    elif (found := links.owner(path)) is not None:
        return found[0]
    for d in todo:
        hits, complete = _secrets_below(d, table, home, first=True, skip=frozenset(), links=links)
        if hits:
            return hits[0][0]
        if not complete:
            return WALK_BOUND_PATTERN
    return None


def leak_among(root: str, names: Iterable[bytes], ctx: Context) -> str | None:
    """The first of ``names`` (relative to directory ``root``: a repository's tracked paths)
    that a leak rule of the table names, by the walk's test (an anywhere name such as ``.env``
    or ``id_rsa``, then the rule itself); None when none is. A name that is not UTF-8 is
    compared as decoded with replacement (its ASCII parts decide)."""
    home, table = _home_table(ctx)
    leak_names = _rx(table.leak_names)
    top = root.rstrip("/")
    for raw in names:
        name = raw.decode("utf-8", "replace")
        if leak_names.fullmatch(name.rsplit("/", 1)[-1].lower()):
            full = f"{top}/{name}"
            if any(a.rule.leak for a in _literal_alts(full, table)):
                return full
    return None


def leak_name_pattern(ctx: Context) -> re.Pattern[str]:
    """The names (lowercased, the last segment) an anywhere leak rule of ``ctx``'s table may
    end with: what :func:`leak_among` looks at first."""
    return _rx(_home_table(ctx)[1].leak_names)


def _secrets_below(path: str, table: _Table, home: str, *, first: bool, budget: int | None = None,
                   note: Note | None = None, skip: frozenset[str] = _WALK_SKIP,
                   follow: bool = False, ignores: list[str] | None = None,
                   links: _Links | None = None,
                   shallow: bool = False) -> tuple[list[tuple[str, list[_Alt]]], bool]:
    """The walk behind :func:`_secret_inside`, :func:`leaks_below` and :func:`leak_at`: breadth
    first, skipping the directories named in ``skip``, linked directories walked too (each
    once), at most ``budget`` entries read (``_MAX_WALK_ENTRIES`` when None). ``follow``: the
    skipped directories are still searched for links (see FOLLOW). ``ignores``: rg's walk,
    which skips every hidden entry; the ignore files and ``.git`` entries met are added to it.
    ``links``: regular files met with more than one name are checked for being a hard link of
    a secret (``_Links``), and of a secret file found by this walk. ``shallow``: only ``path``'s
    own entries, no subdirectory (nor a linked one) entered. Returns (hits, complete); ``first``
    stops at the first hit."""
    budget = _MAX_WALK_ENTRIES if budget is None else budget
    linked: list[tuple[str, os.stat_result]] = []  # multiply-linked files met that were no secret
    leak_names = _rx(table.leak_names)
    todo = [path]
    links_only: set[str] = set()   # skipped directories searched for links alone (follow)
    seen: set[str] = set()
    hits: list[tuple[str, list[_Alt]]] = []
    while todo:
        d = todo.pop(0)
        only_links = d in links_only
        if note is not None:
            note("d", d)
        try:
            with os.scandir(d) as it:
                entries = list(it)
        except OSError:
            continue
        for e in entries:
            budget -= 1
            if budget < 0:
                return hits, False
            full = f"{d.rstrip('/')}/{e.name}"
            if ignores is not None and e.name[:1] == ".":
                if e.name in rghidden.IGNORE_NAMES or e.name == ".git":
                    ignores.append(full)
                continue
            if not only_links and leak_names.fullmatch(e.name.lower()):
                alts = [a for a in _literal_alts(full, table) if a.rule.leak and a.anywhere]
                if alts:
                    hits.append((full, alts))
                    if first:
                        return hits, True
                    continue
            try:
                if e.is_symlink():
                    found = _link_secret(full, table, home, seen, todo, note, links)
                    if found is not None:
                        hits.append(found)
                        if first:
                            return hits, True
                elif not e.is_dir(follow_symlinks=False):
                    if links is not None and e.is_file(follow_symlinks=False) \
                            and hardlinks.multiply_linked(st := e.stat(follow_symlinks=False)):
                        if note is not None:
                            note("l", full)
                        found = links.owner(full, st)
                        if found is not None:
                            hits.append(found)
                            if first:
                                return hits, True
                        else:
                            linked.append((full, st))
                    continue
                elif shallow:
                    continue   # a subdirectory: not read
                elif e.name == ".git" and ".git" in skip and not only_links \
                        and (found := _git_config_secret(full, table, note)) is not None:
                    if found[0] is _WALK_BOUND:
                        return hits, False
                    hits.append(found)   # skipped, but its config files read
                    if first:
                        return hits, True
                elif e.name in _SKIPPED_READ and e.name in skip and not only_links \
                        and (found := _fixed_secret(full, _SKIPPED_READ[e.name], table, note)) is not None:
                    hits.append(found)   # skipped, but its own config read
                    if first:
                        return hits, True
                elif e.name not in skip and not only_links:
                    todo.append(full)
                elif follow:
                    links_only.add(full)
                    todo.append(full)
            except (OSError, ValueError, RuntimeError):
                continue
        if shallow:
            break   # a linked directory queued by _link_secret is not entered either
    if linked and hits:
        hits.extend(_linked_among(linked, hits, table))
    return hits, True


def _linked_among(linked: list[tuple[str, os.stat_result]], hits: list[tuple[str, list[_Alt]]],
                  table: _Table) -> list[tuple[str, list[_Alt]]]:
    """The files of ``linked`` that are other names of a secret file the walk found by its
    name (``d/copy`` and ``app/.env`` one file: both are the secret)."""
    keys: dict[tuple[int, int], tuple[str, list[_Alt]]] = {}
    for path, alts in hits:
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            continue
        if hardlinks.multiply_linked(st):
            keys.setdefault((st.st_dev, st.st_ino), (path, alts))
    out = []
    for path, st in linked:
        got = keys.get((st.st_dev, st.st_ino))
        if got is not None:
            base = got[1][0]
            out.append((path, [replace(base, rule=replace(base.rule, pattern=(
                f"{path} is a hard link of {got[0]} ({base.rule.pattern})")))]))
    return out


# Skipped directories whose fixed files are still looked at: a virtualenv's pip.conf (pip
# reads $VIRTUAL_ENV/pip.conf: an index URL with user:password) is one file, not a tree.
_SKIPPED_READ: dict[str, tuple[str, ...]] = {".venv": ("pip.conf",), "venv": ("pip.conf",)}


def _fixed_secret(directory: str, names: tuple[str, ...], table: _Table,
                  note: Note | None) -> tuple[str, list[_Alt]] | None:
    """The first of ``names`` directly inside a skipped ``directory`` that a leak rule names,
    as a walk's hit (no listing: each name is looked up)."""
    for name in names:
        path = f"{directory}/{name}"
        if note is not None:
            note("l", path)
        if os.path.lexists(path) and (alts := [a for a in _literal_alts(path, table) if a.rule.leak]):
            return (path, alts)
    return None


def _git_config_secret(gitdir: str, table: _Table, note: Note | None) -> tuple[str, list[_Alt]] | None:
    """The first of ``gitdir``'s config files (:func:`.content.git_dir_configs`) that holds
    credentials, as a walk's hit: a checkout that persisted them (actions/checkout writes
    ``http.<url>.extraheader = AUTHORIZATION: basic …``), a remote URL with a token in its user
    part (``content.py``'s check of a git config, which fails closed on a file it cannot read: a
    FIFO, too large). ``ssh://git@host`` names a user. ``(_WALK_BOUND, [])`` when they could not
    all be listed."""
    from .content import git_dir_configs, holds_credential

    configs, complete = git_dir_configs(gitdir, note)
    if not complete:
        return (_WALK_BOUND, [])
    for config in configs:
        if note is not None:
            note("f", config)
        if holds_credential(config, "git-config"):
            alts = [a for a in _literal_alts(config, table) if a.rule.leak]
            if alts:
                return (config, alts)
    return None


def _link_secret(link: str, table: _Table, home: str, seen: set[str], todo: list[str],
                 note: Note | None = None, links: _Links | None = None) -> tuple[str, list[_Alt]] | None:
    """Where a symlink met in a walk leads, when that is a secret (the file, or a directory
    holding credential files); a linked directory that is neither is queued for the walk."""
    real = _realpath(link)
    if note is not None:
        note("r", link)
        note("l", real)
    alts = [a for a in _literal_alts(real, table) if a.rule.leak]
    if not alts and os.path.isdir(real):
        alts = [a for a in _ancestor_alts(real, table, home) if a.rule.leak]
        if not alts and real not in seen:
            seen.add(real)
            todo.append(real)
    elif not alts and links is not None:
        return links.owner(real)
    return (real, alts) if alts else None


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


def _home_table(ctx: Context) -> tuple[str, _Table]:
    """The lowercased HOME of ``ctx`` and its rules (the context's, the disk's git includes
    holding credentials as the context's directories find them, and ``_table``'s own cache),
    kept for the next call with the same context object."""
    global _LAST_HOME
    last = _LAST_HOME
    if last[0] is ctx and last[2] is not None:
        return last[1], last[2]
    from .content import git_included_secrets

    home = str(ctx.home).lower().rstrip("/") or "/"
    included = git_included_secrets(dict.fromkeys((ctx.cwd, ctx.workspace)), ctx.home)
    table = _table(home, ctx.watched, moved_xdg(), included)
    _LAST_HOME = (ctx, home, table)  # one tuple: a reader in another thread sees all or none
    return home, table


_LAST_HOME: tuple[Context | None, str, _Table | None] = (None, "", None)


def hits_for_text(text: str, role: Role, ctx: Context, span: Span | None, *, dynamic: bool, glob: bool,
                   braces: bool = True, tree: bool = False, dot_rule: bool = True,
                   tilde: bool = True, walk: int = False) -> list[SensitiveHit]:
    """Hits for one word as ``role`` accesses it. ``tree``: the command takes directories
    whole, so a directory holding credential directories counts (``tar czf x ~``); ``walk``:
    it also reads hidden files below, so a directory that really contains a secret file counts
    (``grep -r token .`` next to a ``.env``); ``FOLLOW`` (2) or'ed in when it follows the links
    below, ``VISIBLE`` (4) when it skips hidden entries as rg does."""
    if role in (Role.NONE, Role.META):
        return []
    last = _LAST_HOME
    if last[0] is ctx:  # the words of one script share their context
        home, table = last[1], last[2]
    else:
        home, table = _home_table(ctx)
    if "proc" in text or str(ctx.cwd).startswith("/proc"):
        through = _proc_links(text, ctx)
        if isinstance(through, _Unknown):
            return _magic_hits(text, role, span)
        if through is not None:
            text = through
    out: list[SensitiveHit] = []
    classes: set[PathClass] = set()
    plain = _plain_path(text, ctx, glob)
    if plain is not None:  # the common word: one literal path, then where it really leads
        if _add_hits(plain, False, False, role, table, home, span, tree, walk, dot_rule, out, classes, ctx):
            return out
        try:
            real = _real(plain)
        except (OSError, ValueError, RuntimeError):
            return out
        if real != plain:
            _add_hits(real, False, False, role, table, home, span, tree, walk, dot_rule, out, classes, ctx)
        return out
    for first in candidates(text, ctx, dynamic=dynamic, glob=glob, braces=braces, tilde=tilde):
        for cand in _resolved(first):
            if _add_hits(cand.path, cand.glob, cand.tail, role, table, home, span, tree, walk, dot_rule, out,
                         classes, ctx):
                return out
    return out


def _add_hits(path: str, glob: bool, tail: bool, role: Role, table: _Table, home: str, span: Span | None,
              tree: bool, walk: int, dot_rule: bool, out: list[SensitiveHit],
              classes: set[PathClass], ctx: Context) -> bool:
    """Adds the hits of one candidate path of a word to ``out`` (one per class, the first
    found); True once both classes are in. A path an implant-only rule names
    (``.devcontainer/**``, ``/etc/ssh/**``) is still checked for being another name of a secret
    and, a directory, searched for the secrets below it: the implant says nothing of what
    reading it exposes (``.devcontainer/.env``, a hard link of ``~/.ssh/id_rsa`` there)."""
    if glob or tail:
        alts: tuple[_Alt, ...] = _glob_alts_of(path, glob, tail, dot_rule, table.key)
    else:
        alts = tuple(_literal_alts(path, table))
        if tree and not _any_leak(alts) and role is not Role.ATTR:
            alts += _ancestor_alts(path, table, home)
    links = _links_for(ctx, table)
    if not _any_leak(alts) and not glob and not tail and role in _LINK_ROLES \
            and (owned := links.owner(path, write=role is not Role.READ)) is not None:
        alts += tuple(owned[1])
    found: tuple[str, list[_Alt]] | None = None
    if walk and not _any_leak(alts) and not tail and role in (Role.READ, Role.RW, Role.UNSURE):
        found = _secret_inside(path, table, home, follow=bool(walk & FOLLOW), visible=bool(walk & VISIBLE),
                               links=links, shallow=bool(walk & SHALLOW))
        if found is not None and found[0] is _WALK_BOUND:
            classes.add(PathClass.LEAK)
            out.append(SensitiveHit(path, PathClass.LEAK, PathOp.READ, span, WALK_BOUND_PATTERN))
            found = None
    for shown, these in ((path, alts), *((found,) if found is not None else ())):
        for alt, cls, op in _classify(these, role):
            if cls not in classes:
                classes.add(cls)
                out.append(SensitiveHit(shown, cls, op, span, alt.rule.pattern))
    if PathClass.IMPLANT not in classes and role in _GIT_WRITES and not glob and not tail \
            and (where := _git_implant(path, ctx)) is not None:
        classes.add(PathClass.IMPLANT)
        out.append(SensitiveHit(path, PathClass.IMPLANT, PathOp.WRITE, span, f"git: {where}"))
    return len(classes) == 2


real_path = _real   # for landing.py: a tree's new names resolved the way a word's are


def new_write_checker(ctx: Context) -> Callable[[str, str], bool]:
    """``may_hit(path, real_parent)``: whether ``hits_for_text`` may find the write of ``path``
    (absolute, normalised) a hit, when neither it nor its directory exists yet (the
    directory's real path: ``real_parent``). Its steps for such a path but those that look at
    the path on disk (it is not there: no link, no hard link). For the many names a tree copy
    creates (``landing.py``); a yes is then asked of ``hits_for_text`` itself."""
    table = _home_table(ctx)[1]

    def may_hit(path: str, real_parent: str) -> bool:
        return bool(_literal_alts(path, table)
                    or _literal_alts(f"{real_parent}/{posixpath.basename(path)}", table)
                    or _git_implant(path, ctx) is not None)
    return may_hit


_GIT_WRITES = frozenset({Role.WRITE, Role.RW, Role.ATTR, Role.UNSURE})
# A hard link of a secret is the secret for whatever reads or replaces its bytes; one of an
# implant file is the implant for whatever writes its bytes or mode (chmod through any name).
_LINK_ROLES = frozenset({Role.READ, Role.WRITE, Role.RW, Role.UNSURE, Role.ATTR})


def _git_implant(path: str, ctx: Context) -> str | None:
    """Where a written path is one of git's own (a repository's config files, commondir, its
    hooks directory as ``core.hooksPath`` names it: ``gitconfig.implant_location``), for the
    repository that holds the path and the workspace's. The table has ``.git/hooks`` and
    ``.git/config``; this finds ``.githooks`` under ``core.hooksPath = .githooks`` and the
    ``config`` and ``hooks`` of a bare repository in the workspace."""
    if not path.startswith("/"):
        return None
    from ..git.config import implant_location

    return implant_location(path, ctx.workspace, ctx.home)


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
        hits = hits_for_text(text, role, ctx, span, dynamic="$" in text or "`" in text,
                              glob=has_glob(text))
        return hits[0] if hits else None
    except Exception as exc:  # fail closed: a hit makes the caller ask
        return SensitiveHit(str(path)[:200], PathClass.LEAK, op if isinstance(op, PathOp) else PathOp.READ,
                            span, f"internal-error: {type(exc).__name__}")


def check_search(root: str, below: str, ctx: Context) -> SensitiveHit | None:
    """Does a search read a secret? For the search tools (Grep, Glob, ``read_many_files``):
    they read every file under ``root`` (a directory, or one file) that the glob ``below``
    (relative to ``root``; ``**`` for all) may match.

    The Read tool's table, applied to the tree the way a recursive reader's check applies it.
    With ``**`` the check is the one ``grep -r x ROOT`` gets: a root that holds a credential
    directory (``~``), or really contains a secret file or a link to one, is a hit. With a
    narrower glob the same three questions are asked of what the glob lets through: the root
    itself (a search reads a file it is given, whatever the filter); the table entries whose
    directories lie inside the root, hit when the glob may match one of their files (a
    wildcard may stand for a leading dot: searches read hidden files); and the files a walk
    of the root finds — a secret-named file when the glob matches its path, a link leading to
    a secret whatever its name. Past the walk's bound, or for a root that is itself a
    pattern, what was not seen counts as a secret. Never raises: an error is a hit."""
    try:
        text = str(root)
        dynamic = "$" in text or "`" in text
        if below == "**":
            hits = hits_for_text(text, Role.READ, ctx, None, dynamic=dynamic, glob=has_glob(text),
                                 tree=True, walk=True)
            return hits[0] if hits else None
        hit = check_path(text, PathOp.READ, ctx)
        if hit is not None:
            return hit
        home, table = _home_table(ctx)
        rel = tuple(STARSTAR if p == "**" else compile_seg(p) for p in below.lower().split("/") if p)
        for cand in candidates(text, ctx, dynamic=dynamic, glob=has_glob(text), braces=True):
            if cand.glob or cand.tail:
                return SensitiveHit(cand.path, PathClass.LEAK, PathOp.READ, None,
                                    "a search root that is a pattern (what it reads is unknown)")
            real = _realpath(cand.path)
            for top in dict.fromkeys((cand.path, real)):
                segs = (*(compile_seg(p, glob=False) for p in top.lower().split("/") if p), *rel)
                for alt in _ancestor_alts(top, table, home):
                    if alt.rule.leak and any(path_intersects(segs, full, False) for full in alt.segs):
                        return SensitiveHit(f"{top}/{below}", PathClass.LEAK, PathOp.READ, None,
                                            alt.rule.pattern)
            found, complete = _secrets_below(real, table, home, first=False, links=_links_for(ctx, table))
            if not complete:
                return SensitiveHit(cand.path, PathClass.LEAK, PathOp.READ, None, WALK_BOUND_PATTERN)
            inside = real.rstrip("/") + "/"
            for path, alts in found:
                name = path[len(inside):].lower() if path.startswith(inside) else None
                if name is None or path_intersects(
                        tuple(compile_seg(p, glob=False) for p in name.split("/")), rel, False):
                    return SensitiveHit(path, PathClass.LEAK, PathOp.READ, None, alts[0].rule.pattern)
        return None
    except Exception as exc:  # fail closed: a hit makes the caller ask
        return SensitiveHit(str(root)[:200], PathClass.LEAK, PathOp.READ, None,
                            f"internal-error: {type(exc).__name__}")


# --------------------------------------------------------------------------- public: a script


@lru_cache(maxsize=1)
def _scan_script() -> Callable[[Script, Context], tuple[SensitiveHit, ...]]:
    from .scan import scan_script  # the bash side: which words of which commands are paths

    return scan_script


def scan(script: Script, ctx: Context) -> tuple[SensitiveHit, ...]:
    """Every sensitive path the executed commands of ``script`` read or write.

    Looks at operands, option values (``--file=X``, ``-fX``, ``if=X``), redirect targets and the
    files some commands touch without naming them (``git config --global`` writes
    ``~/.gitconfig``). Never raises: an internal error is reported as a hit.
    """
    token = _WALKED.set({})
    inodes = _INODES.set({})
    try:
        return _scan_script()(script, ctx)
    except Exception as exc:  # fail closed
        return (SensitiveHit("<scan failed>", PathClass.LEAK, PathOp.READ, None,
                             f"internal-error: {type(exc).__name__}"),)
    finally:
        _INODES.reset(inodes)
        _WALKED.reset(token)
