"""A command line as the destructive-warning rules see it: flags, option values, positionals.

Split by the one option reader (``commands/getopt.py``): bundled short flags (``-fr``), ``--``
and per-tool options that take a value; long-option abbreviations (GNU getopt and git accept
unique prefixes: ``git reset --har``) are matched by ``Args.has``, since a tool's full option
list is not known here. Per-tool value options: ``kubectl -n prod delete`` finds ``delete``.
Also: the program a spelling really runs (``/bin/rm``, ``busybox rm``, ``python -m twine``,
``npx prisma``).
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase

from ..._record import field, record
from ..commands.getopt import Arity, Kind, Option, Syntax, split
from ..ir import Word
from .table import Rule


@record(frozen=False)
class Args:
    """A command's own arguments split getopt-style."""

    words: tuple[Word, ...]
    flags: dict[str, Word] = field(default_factory=dict)       # option -> the word that gave it
    values: dict[str, list[str]] = field(default_factory=dict)  # option -> values (`=v` or next word)
    value_words: dict[str, list[Word]] = field(default_factory=dict)  # the words holding those values
    positionals: list[Word] = field(default_factory=list)
    after_ddash: list[Word] = field(default_factory=list)

    def has(self, cond: str, *, strict: bool = False) -> bool:
        """Is option ``cond`` given? ``--x=v`` asks for that value. Long options may be
        abbreviated (getopt and git accept unique prefixes); ``strict`` (used for the options
        that *suppress* a warning) asks for a longer prefix, so ``--d`` is never ``--dry-run``."""
        name, eq, want = cond.partition("=")
        names = [name]
        if len(name) > 2 and name[0] == "-" and name[1] != "-":
            names.append("-" + name)  # Go-style tools accept -destroy and --destroy
        for n in names:
            if eq:
                if want in self.values.get(n, ()):
                    return True
                continue
            if n in self.flags:  # `--dry-run=none` is not a dry run
                return not (strict and self.values.get(n)
                            and all(v in ("none", "false", "0") for v in self.values[n]))
            if n.startswith("--"):
                shortest = 6 if strict else 4
                if any(f.startswith("--") and len(f) >= shortest and n.startswith(f) for f in self.flags):
                    return True
        return False

    def word(self, *conds: str) -> Word | None:
        for c in conds:
            if c in self.flags:
                return self.flags[c]
        return None


def parse_args(words: Iterable[Word], valued: frozenset[str] = frozenset()) -> Args:
    """Split a command's words through the one option reader (``getopt.split``): ``valued`` are
    the options that take a value; any other option is a switch (a warning rule only asks
    whether it is there). Long options are not resolved here (``Args.has`` matches prefixes:
    the tool's option list is not known). A word bash may still change is a positional.
    A single-dash word with ``=`` is read Go-flag-style (``-var=x``: ``-var`` with ``x``), as
    the Go tools of the table read it; its letters are not options."""
    a = Args(tuple(words))
    if not any(w.text[:1] == "-" for w in a.words):  # no option: the common line, read at once
        a.positionals = list(a.words)
        return a
    reading = split(a.words, _syntax(valued), opaque=_opaque)
    flags, values, value_words = a.flags, a.values, a.value_words
    seen: Word | None = None
    for it in reading.items:
        w = it.word
        kind = it.kind
        if kind is Kind.OPAQUE:
            if w.static:  # `-var=x`
                name, _eq, val = w.text.partition("=")
                flags.setdefault(name, w)
                values.setdefault(name, []).append(val)
                value_words.setdefault(name, []).append(w)
            continue
        if kind is Kind.END:
            flags.setdefault("--", w)
            continue
        if w is not seen:
            seen = w
            flags.setdefault(w.text.partition("=")[0], w)  # a bundle as written too: `-rf`, `-auto-approve`
        if len(it.spelled) == 2 and not it.spelled[1].isalnum():  # `-` of `-qO-`, `.` …
            continue
        flags.setdefault(it.spelled, w)
        for k, v in enumerate(it.values):
            values.setdefault(it.spelled, []).append(v.text)
            value_words.setdefault(it.spelled, []).append(w if k == 0 and it.attached else v)
    ended = len(reading.operands) if reading.ended is None else reading.ended
    a.positionals = [w for w in reading.operands[:ended] if not w.static or not _opaque(w)]
    a.positionals += reading.operands[ended:]
    a.after_ddash = reading.operands[ended:]
    return a


_SYNTAXES: dict[frozenset[str], Syntax] = {}


def _syntax(valued: frozenset[str]) -> Syntax:
    got = _SYNTAXES.get(valued)
    if got is None:
        opt = Option("value", Arity.REQUIRED)
        got = Syntax({o[1]: opt for o in valued if len(o) == 2 and o[1] != "-"},
                     {o: opt for o in valued if o.startswith("--")}, abbrev=False, unknown_flags=True)
        if len(_SYNTAXES) > 256:
            _SYNTAXES.clear()
        _SYNTAXES[valued] = got
    return got


def _opaque(w: Word) -> bool:
    """A word bash may still change (a positional), or a Go-style ``-name=value``."""
    t = w.text
    return not w.static or (t[:1] == "-" and t[1:2] not in ("-", "") and "=" in t)


def prog_name(name: str) -> str:
    """``/usr/bin/git`` -> ``git``."""
    return name.rsplit("/", 1)[-1]


_PY = frozenset({"python", "python2", "python3", "pypy", "pypy3"})
_RUNNERS = frozenset({"npx", "bunx", "pnpx", "uvx"})


def resolve(name: str, words: tuple[Word, ...]) -> tuple[str, tuple[Word, ...]]:
    """See through spellings of the same program: ``/bin/rm``, ``busybox rm``,
    ``python -m twine``, ``npx prisma``, ``python manage.py``."""
    prog = prog_name(name)
    for _ in range(3):
        if prog in ("busybox", "toybox") and words and words[0].static:
            prog, words = prog_name(words[0].text), words[1:]
        elif prog in _PY and words and words[0].text == "-m" and len(words) > 1:
            prog, words = words[1].text, words[2:]
        elif prog in _PY and words and prog_name(words[0].text) == "manage.py":
            prog, words = "manage.py", words[1:]
        elif prog in _RUNNERS and words:
            k = 0
            while k < len(words) and words[k].text.startswith("-"):
                k += 1
            if k >= len(words):
                break
            prog, words = prog_name(words[k].text).split("@")[0] or prog, words[k + 1:]
        else:
            break
    return prog, words


def rule_matches(rule: Rule, a: Args) -> bool:
    """Does a table rule apply to this command line?"""
    pos = [w.text.lower() if rule.nocase else w.text for w in a.positionals]
    if rule.anywhere:
        it = iter(pos)
        if not all(any(fnmatchcase(p, s) for p in it) for s in rule.sub):
            return False
    elif len(pos) < len(rule.sub) or not all(fnmatchcase(p, s) for p, s in zip(pos, rule.sub, strict=False)):
        return False
    if rule.any_of and not any(a.has(c) for c in rule.any_of):
        return False
    if rule.all_of and not all(a.has(c) for c in rule.all_of):
        return False
    return not any(a.has(c, strict=True) for c in rule.unless)
