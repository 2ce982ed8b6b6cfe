"""Specifier patterns: token patterns for commands, gitignore-style globs for paths.

``Bash(npm test *)`` is a *token* pattern: it is matched word by word against the argv of one
executed sub-command (after quote removal), never against the raw command string, so
``echo rm a.txt`` is not ``rm`` and ``npm test; curl x`` is two sub-commands. A standalone
``*`` matches zero or more words (``ls *`` matches ``ls`` and ``ls -la``, not ``lsof``); a
``*`` inside a word matches within that word; a trailing ``:*`` is an alias of `` *``.

Two strengths of matching:
- *strict* (allow rules, stored approvals): a literal pattern word only matches a static,
  glob-free word — ``$x`` or ``*.txt`` may expand to anything, even several words, so only a
  standalone ``*`` can cover them;
- *loose* (deny / ask rules): words are compared by their text, dynamic or not, and the
  command name also by its basename (``/bin/rm`` is ``rm``). Erring towards a match is the
  safe side for a deny.

Patterns may come from an untrusted project file, so nothing here backtracks: words and paths
are matched by :mod:`.wildcard`, and a pattern over its size limits is a ``ValueError``.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from enum import StrEnum
from typing import Any, Protocol

from .._record import field, record
from .wildcard import PathGlob, Wildcard, check_size, check_words


class WordLike(Protocol):
    text: str
    static: bool
    glob: bool


@record
class _Tok:
    star: bool
    word: Wildcard | None = None


@record
class CommandPattern:
    source: str
    tokens: tuple[_Tok, ...]
    words: tuple[str, ...] = ()        # the pattern's words as split (``*`` included)

    @classmethod
    def compile(cls, spec: str) -> CommandPattern:
        """Raises ``ValueError`` with a message for a pattern that cannot be split into words."""
        text = spec.strip()
        check_size(text)
        if text.endswith(":*"):
            text = text[:-2].rstrip() + " *"
        try:
            words = shlex.split(text, posix=True)
        except ValueError as exc:
            raise ValueError(f"cannot split the pattern into words: {exc}") from None
        if not words:
            raise ValueError("empty command pattern")
        check_words(len(words))
        toks = [_Tok(True) if w == "*" else _Tok(False, Wildcard.compile(w)) for w in words]
        # `ls*` ends in a glob: like Claude Code's raw `*`, it may be followed by more words.
        if not toks[-1].star and words[-1].endswith("*"):
            toks.append(_Tok(True))
        return cls(spec, tuple(toks), tuple(words))

    @classmethod
    def literal(cls, words: Sequence[str], *, rest: bool) -> CommandPattern:
        """Exactly these words (no wildcards in them), then anything when ``rest``."""
        toks = [_Tok(False, Wildcard((w,))) for w in words]
        if rest:
            toks.append(_Tok(True))
        return cls(" ".join(shlex.quote(w) for w in words) + (" *" if rest else ""), tuple(toks),
                   (*words, *(("*",) if rest else ())))

    def prefix(self) -> tuple[tuple[str, ...], bool] | None:
        """The pattern as a stored approval sees it: literal words, and whether a standalone
        ``*`` ends it (more words may follow). ``None`` when it has no literal word or a
        ``*`` anywhere else (``ls*``, ``git * --force``): a token prefix cannot say that."""
        words = self.words
        rest = bool(words) and words[-1] == "*"
        literal = words[:-1] if rest else words
        if not literal or any("*" in w for w in literal):
            return None
        return literal, rest

    def matches(self, words: Sequence[WordLike], *, strict: bool, anywhere: bool = False) -> bool:
        """Does the pattern match all of ``words``? ``anywhere``: or any tail of them (the
        deny side's rough scan of an unparsed script). Linear in ``len(words)``."""
        toks = self.tokens
        end = len(toks)

        def closure(states: set[int]) -> set[int]:
            todo = list(states)
            while todo:
                i = todo.pop()
                if i < end and toks[i].star and i + 1 not in states:
                    states.add(i + 1)
                    todo.append(i + 1)
            return states

        def word_ok(i: int, w: WordLike) -> bool:
            if strict and (not w.static or w.glob):
                return False
            wild = toks[i].word
            assert wild is not None
            if wild.match(w.text):
                return True
            return not strict and i == 0 and "/" in w.text and wild.match(
                os.path.basename(w.text))

        states = closure({0})
        for w in words:
            nxt: set[int] = {0} if anywhere else set()
            for i in states:
                if i == end:
                    continue
                if toks[i].star:
                    nxt.add(i)
                elif word_ok(i, w):
                    nxt.add(i + 1)
            states = closure(nxt)
            if not states:
                return False
        return end in states


class Anchor(StrEnum):
    ABSOLUTE = "absolute"  # //abs/path
    HOME = "home"          # ~/path
    BASE = "base"          # /path: relative to the rule file's base directory
    CWD = "cwd"            # ./path or dir/path: relative to the live cwd
    ANY = "any"            # name: at any depth under the cwd (gitignore)


@record
class PathPattern:
    """Claude Code's path anchors: ``//abs``, ``~/home``, ``/base-relative``, ``./cwd``; ``*``
    stays in one segment and ``**`` crosses directories. A pattern that matches a directory
    matches everything below it (gitignore)."""

    source: str
    anchor: Anchor
    body: str
    glob: PathGlob | None = field(default=None, compare=False, repr=False)  # None: no body

    @classmethod
    def compile(cls, spec: str) -> PathPattern:
        s = spec.strip()
        if not s:
            raise ValueError("empty path pattern")
        if "\n" in s or "\0" in s:
            raise ValueError("a path pattern is one line")
        check_size(s)
        anchor, body = _anchor(s)
        body = body.rstrip("/")
        if anchor is Anchor.ANY:
            body = "**/" + body
        return cls(spec, anchor, body, PathGlob.compile(body) if body else None)

    def _root(self, home: str, base: str, cwd: str) -> str:
        root = {Anchor.ABSOLUTE: "/", Anchor.HOME: home, Anchor.BASE: base,
                Anchor.CWD: cwd, Anchor.ANY: cwd}[self.anchor]
        return os.path.normpath(root).rstrip("/")

    def meets(self, root: str, below: str, *, home: str, base: str, cwd: str) -> bool:
        """Could some file that the glob ``below`` (relative to ``root``, absolute and
        normalised) matches also match this pattern? The deny side's question for a search
        (``Grep``, ``Glob``, ``read_many_files``): it reads every file of that tree.

        Errs towards yes — a deny or ask rule that fires too often costs a prompt, one that
        misses costs the file it was written for: case is ignored (searches may ignore it), a
        wildcard may stand for a leading dot (searches read hidden files), and a ``**``
        inside a segment (``a**b``) stands for any directories. A pattern that matches a
        directory matches everything below it; for a pattern that names one path outright
        (``./.env``, ``~/.aws/credentials``) the disk says whether that is a directory — a
        file, or nothing yet, has nothing below it for a search to read, so ``Read(./.env)``
        does not stop a search of ``*.py``."""
        from ..bash.paths.globs import STARSTAR, path_intersects

        mine = self._root(home, base, cwd)
        body = _segs(self.body, _RULE) if self.glob else ()
        named = self.glob is not None and self.anchor is not Anchor.ANY and not any(
            c in self.body for c in "*?")
        below_it = not named or os.path.isdir(os.path.join(mine, self.body))
        rule = (*_segs(mine, _LITERAL), *body, *((STARSTAR,) if below_it else ()))
        tree = (*_segs(root, _LITERAL), *_segs(below, _SHELL))
        return path_intersects(tree, rule, dot_rule=False)

    def table_globs(self, *, base: str, cwd: str) -> tuple[str, ...]:
        """This pattern in the sensitive table's syntax (``bash.pathlists``), for the bash
        core to find reads of it as it finds reads of a key (``Context.watched``). Never
        narrower than the rule: the table folds case and ``~/`` there is every home; a
        pattern matches what is below it too; ``[``, ``\\`` and braces, literal in a rule but
        special in the table, become ``?``; a name anywhere is a name anywhere in the tree."""
        body = self.body.translate(_TABLE_LITERAL)
        if self.anchor is Anchor.ANY:
            glob = body[3:]   # "**/" + name
        elif self.anchor is Anchor.HOME:
            glob = "~/" + body
        else:
            root = "/" if self.anchor is Anchor.ABSOLUTE else (
                base if self.anchor is Anchor.BASE else cwd)
            glob = os.path.normpath(root).rstrip("/").translate(_TABLE_LITERAL) + "/" + body
        glob = glob.rstrip("/") or "/"
        if glob in ("~", "~/"):
            return ("~/**",)
        return (glob,) if glob.endswith("/**") else (glob, glob.rstrip("/") + "/**")

    def matches(self, path: str, *, home: str, base: str, cwd: str) -> bool:
        """``path`` must be absolute and normalised; it matches if it or a parent does."""
        root = self._root(home, base, cwd)
        if self.glob is None:
            return path == (root or "/") or path.startswith(root + "/")
        if not path.startswith(root + "/"):
            return False
        # `/` itself is a parent of every path: with the root `/`, the empty rest is one too.
        return self.glob.match(path[len(root) + 1:], parent_of_empty=not root)


_LITERAL, _RULE, _SHELL = "literal", "rule", "shell"   # how _segs reads a text
_TABLE_LITERAL = str.maketrans({c: "?" for c in "[]\\{},"})  # special in the table only


def literal_table_glob(path: str) -> str:
    """An absolute ``path`` in the sensitive table's syntax, never narrower than the path
    (its table-special characters become ``?``)."""
    return os.path.normpath(path).translate(_TABLE_LITERAL)


def _segs(text: str, kind: str) -> tuple[Any, ...]:
    """``text`` as the segments ``bash.paths.globs.path_intersects`` compares, lowercased:
    ``_LITERAL`` every character as itself (a path), ``_RULE`` a rule's glob (``*``, ``?``,
    ``**``; ``[`` and ``\\`` are plain characters there), ``_SHELL`` a search's glob (``[…]``
    classes too). A segment holding ``**`` beside other text crosses directories: any
    number of them."""
    from ..bash.paths.globs import STARSTAR, compile_seg

    out: list[Any] = []
    for seg in text.lower().split("/"):
        if not seg or seg == ".":
            continue
        if kind == _LITERAL:
            out.append(compile_seg(seg, glob=False))
        elif "**" in seg:
            out.append(STARSTAR)
        else:
            if kind == _RULE:
                seg = seg.replace("\\", "\\\\").replace("[", "\\[")
            out.append(compile_seg(seg))
    return tuple(out)


def _anchor(s: str) -> tuple[Anchor, str]:
    if s.startswith("//"):
        return Anchor.ABSOLUTE, s[2:]
    if s == "~" or s.startswith("~/"):
        return Anchor.HOME, s[2:]
    if s.startswith("/"):
        return Anchor.BASE, s[1:]
    if s.startswith("./"):
        return Anchor.CWD, s[2:]
    if "/" in s.rstrip("/"):
        return Anchor.CWD, s
    return Anchor.ANY, s


def wild_match(pattern: str, text: str) -> bool:
    """Full match where only ``*`` is special (keys, hosts)."""
    return Wildcard.compile(pattern).match(text)
