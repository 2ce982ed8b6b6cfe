"""The names a tree copy or move creates below its destination, each judged as its own write.

``cp -r tpl/. .``, ``cp -r tpl t2``, ``mv tpl t2`` and ``rsync -a tpl/ out`` write every entry of
the source tree at DEST/relative-path. The table's rules that match a name anywhere (``.envrc``,
``.claude/settings*.json``, ``.git/hooks/**``, ``**/site-packages/*.pth``) may match any of those
paths whatever the destination is, so judging the destination as a directory
(``resolve._ancestor_alts``: the rules anchored below a fixed place) misses them. Here the source
tree is walked as it is now (what an earlier command of the same line puts there is judged where
it is put) and each path it will create is checked by ``hits_for_text``: the matcher a write of
that one path gets, so ``cp -r tpl/. .`` asks exactly when ``cp tpl/X ./X`` would for some X.

A source whose contents cannot be read here (an expansion, another machine's path, a tree past
the bound) may land any name, so the write counts as an implant write. Not "unless the
destination cannot hold such a name": a rule that matches anywhere matches below every
directory, so the exceptions would be a list of places where such files are inert (a negative
list, which the house rules forbid).
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence

from ..facts import Context, PathClass, PathOp, SensitiveHit
from ..ir import Word
from .globs import has_glob
from .resolve import candidates, hits_for_text, new_write_checker, real_path
from .roles import Role

# Entries of all source trees of one command, at most (~20 us each: ~100 ms); past it, fail closed.
MAX_ENTRIES = 5_000


def landing_hits(sources: Sequence[tuple[Word, tuple[str, ...] | None]], dest: Word, ctx: Context,
                 dot_rule: bool) -> list[SensitiveHit]:
    """The first sensitive path the trees of ``sources`` create below ``dest``. Each source is
    (word, where its top may land relative to ``dest``: ``""`` for the destination itself — its
    contents copied, or a tree renamed to it — ``NAME`` for ``DEST/NAME``; None for another
    machine's path, whose contents are unknown)."""
    budget = [MAX_ENTRIES]
    check = _Check(dest, ctx, dot_rule)
    for word, belows in sources:
        trees = None if belows is None else _source_trees(word, ctx, dot_rule)
        if trees is None:
            return [_unknown(dest, ctx, word, f"what {word.text} holds is only known when the command runs, "
                                              "so it may put any name there")]
        for top, exact, given, hidden in trees:
            rels = _entries(top, budget, hidden)
            if rels is None:
                return [_unknown(dest, ctx, word, f"more than {MAX_ENTRIES} entries below {word.text}: "
                                                  "not all of the names it puts there could be checked")]
            for rel in rels:
                landed = [f"{b}/{rel}" if b else rel for b in belows or ("",)] if exact \
                    else _suffixes(f"{given}/{rel}")
                for path in landed:
                    hits = check.hits(path)
                    if hits:
                        return hits
    return []


class _Check:
    """The write of ``DEST/rel`` judged as a write of that path is (``hits_for_text``). A
    literal destination is resolved once, so that a name in the tree (``{a,b}``, ``*``, ``~x``)
    is taken as spelled. A name whose directory does not exist yet (a tree copied to a new
    place: most of them) first goes through ``new_write_checker``, the same steps without
    the disk, and to ``hits_for_text`` only on a yes."""

    def __init__(self, dest: Word, ctx: Context, dot_rule: bool) -> None:
        self.dest, self.ctx, self.dot_rule = dest, ctx, dot_rule
        self.roots: list[str] = []
        self.parents: dict[str, str | None] = {}   # directory -> its real path when it is missing
        self.may_hit = new_write_checker(ctx)
        if dest.static and not dest.glob:
            try:
                self.roots = [c.path.rstrip("/") for c in candidates(
                    dest.text, ctx, dynamic=False, glob=False, braces=not dest.quoted,
                    tilde=not dest.quoted or dest.raw.startswith("~")) if not c.tail]
            except (OSError, ValueError):
                self.roots = []

    def hits(self, rel: str) -> list[SensitiveHit]:
        dest, ctx = self.dest, self.ctx
        if not self.roots:
            return hits_for_text(f"{dest.text.rstrip('/')}/{rel}", Role.WRITE, ctx, dest.span, dynamic=True,
                                 glob=dest.glob, braces=False, tilde=not dest.quoted, dot_rule=self.dot_rule)
        out: list[SensitiveHit] = []
        for root in self.roots:
            path = f"{root}/{rel}"
            parent = os.path.dirname(path)
            if parent not in self.parents:
                self.parents[parent] = None if os.path.lexists(parent) else real_path(parent)
            missing = self.parents[parent]
            # /proc's names are not what they seem (magic links): only the full check knows them
            if missing is not None and "proc" not in path.split("/") and not self.may_hit(path, missing):
                continue
            out.extend(hits_for_text(path, Role.WRITE, ctx, dest.span, dynamic=False, glob=False,
                                     braces=False, tilde=False, dot_rule=self.dot_rule))
        return out


def _source_trees(word: Word, ctx: Context, dot_rule: bool) -> list[tuple[str, bool, str, bool]] | None:
    """The directories ``word`` names, as (real path, exact, literal prefix as given, whether
    its hidden entries count): exact for a literal path; for a glob, the directory before its
    first pattern segment, any of whose entries may be a source (so any end of an entry's path
    may land: ``_suffixes``), but not one whose name starts with a dot when the segment starts
    with a wildcard (bash without dotglob: ``cp -r tpl/* out`` leaves ``tpl/.envrc``). None
    when the word's value is only known at run time."""
    text = word.text
    try:
        cands = candidates(text, ctx, dynamic=not word.static, glob=word.glob,
                           braces=word.glob or not word.quoted,
                           tilde=not word.quoted or word.raw.startswith("~"))
    except (OSError, ValueError):
        return None
    if not cands and not word.static:
        return None
    out: list[tuple[str, bool, str, bool]] = []
    for cand in cands:
        if cand.tail:
            return None
        path = cand.path
        exact = not (cand.glob and has_glob(path))
        given, hidden = "", True
        if not exact:
            parts = path.split("/")
            k = next(i for i, p in enumerate(parts) if has_glob(p))
            path = "/".join(parts[:k]) or "/"
            hidden = not dot_rule or parts[k][:1] in ".[\\"   # only these may match a leading dot
            spelled = text.split("/")
            j = next((i for i, p in enumerate(spelled) if has_glob(p)), len(spelled))
            given = "/".join(p for p in spelled[:j] if p not in ("", ".", "~"))
        real = os.path.realpath(path)
        if os.path.isdir(real):
            out.append((real, exact, given, hidden))
    return out


def _entries(top: str, budget: list[int], hidden: bool = True) -> list[str] | None:
    """Every path below directory ``top``, relative to it (``hidden``: with the entries of
    ``top`` whose names start with a dot); directories a link below leads to are walked too,
    each once (``cp -L``, ``rsync -L`` copy what a link names; without them the link's own name
    is what lands, and it is in the list as well). None past the budget."""
    out: list[str] = []
    seen = {top}
    todo = [(top, "")]
    while todo:
        here, rel = todo.pop()
        try:
            with os.scandir(here) as it:
                entries = list(it)
        except OSError:
            continue
        budget[0] -= len(entries)
        if budget[0] < 0:
            return None
        for e in entries:
            if not rel and not hidden and e.name.startswith("."):
                continue
            name = f"{rel}/{e.name}" if rel else e.name
            out.append(name)
            try:
                if not e.is_dir():   # follows a link, as a dereferencing copy does
                    continue
                real = os.path.realpath(e.path) if e.is_symlink() else e.path
            except OSError:
                continue
            if real not in seen:
                seen.add(real)
                todo.append((real, name))
    return out


def _suffixes(path: str) -> Iterator[str]:
    """Every end of ``path`` (``a/b/c``, ``b/c``, ``c``): where an entry of a globbed source may
    land, whichever of its directories the glob matched."""
    parts = [p for p in path.split("/") if p]
    for i in range(len(parts)):
        yield "/".join(parts[i:])


def _unknown(dest: Word, ctx: Context, source: Word, why: str) -> SensitiveHit:
    """The write of a tree whose names are not known, reported at the source word."""
    path = dest.text
    try:
        roots = candidates(dest.text, ctx, dynamic=not dest.static, glob=dest.glob, braces=False)
        path = roots[0].path if roots and not roots[0].tail else path
    except (OSError, ValueError):
        pass
    return SensitiveHit(path, PathClass.IMPLANT, PathOp.WRITE, source.span, why)
