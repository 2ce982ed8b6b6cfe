"""A command line as the destructive-warning rules see it: flags, option values, positionals.

Split getopt-style, with long-option abbreviations (GNU getopt and git accept unique prefixes:
``git reset --har``), bundled short flags (``-fr``), ``--`` and per-tool options that take a
value (so ``kubectl -n prod delete`` finds ``delete``). Also: the program a spelling really runs
(``/bin/rm``, ``busybox rm``, ``python -m twine``, ``npx prisma``).
"""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase

from .._record import field, record
from .ir import Word
from .warnings_table import Rule


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
    a = Args(tuple(words))
    ws = a.words
    i, ended = 0, False
    while i < len(ws):
        w = ws[i]
        t = w.text
        i += 1
        if ended:
            a.positionals.append(w)
            a.after_ddash.append(w)
            continue
        if not w.static or len(t) < 2 or t[0] != "-":
            a.positionals.append(w)
            continue
        if t == "--":
            ended = True
            a.flags.setdefault("--", w)
            continue
        name, eq, val = t.partition("=")
        a.flags.setdefault(name, w)
        if eq:
            a.values.setdefault(name, []).append(val)
            a.value_words.setdefault(name, []).append(w)
        elif name in valued:
            if i < len(ws):
                a.values.setdefault(name, []).append(ws[i].text)
                a.value_words.setdefault(name, []).append(ws[i])
                i += 1
        elif not t.startswith("--"):
            if t[:2] in valued and len(t) > 2:
                a.flags.setdefault(t[:2], w)
                a.values.setdefault(t[:2], []).append(t[2:])
                a.value_words.setdefault(t[:2], []).append(w)
            else:
                for c in t[1:]:
                    if c.isalnum():
                        a.flags.setdefault("-" + c, w)
    return a


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
        if prog == "busybox" and words and words[0].static:
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
