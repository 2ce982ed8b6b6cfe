"""Decode one shell word from its source text, the way bash's quote removal would.

bashlex's ``WordNode.word`` loses backslashes and mangles ``$'…'``, so the walker never uses it:
every word is re-read from its source slice here. The decoder also reports the nested
substitutions (``$(…)``, backticks, ``<(…)``, ``$((…))``, ``${…}``) with their spans, so the
walker can parse their inner text and reach every command they run.

Rules (bash 5.2):

* unquoted ``\\c`` is ``c``; ``\\<newline>`` vanishes; a final lone ``\\`` stays a backslash;
* ``'…'`` is literal; ``"…"`` keeps ``\\`` except before ``$ ` " \\ <newline>``;
* ``$'…'`` is ANSI-C decoded; ``$"…"`` is treated as ``"…"`` (no message catalogue);
* any unquoted or double-quoted expansion makes the word dynamic (``static=False``); its
  source spelling is kept in ``text`` for display;
* a leading ``~`` or ``~/`` stays literally ``~`` and the word stays static (``paths/resolve.py``
  expands it); ``~user``, ``~+``, ``~-`` and friends are dynamic;
* an unquoted ``*``, ``?``, ``[…]``, extglob ``@( !( +(`` or a brace expansion ``{a,b}`` /
  ``{1..3}`` sets ``glob``: bash may turn the word into other words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..._lazyre import lazy_compile
from ..ir import Span, Word

if TYPE_CHECKING:  # _lex decodes here-doc delimiters with decode_ansi_c: no import cycle
    from ._lex import Opaque


class DecodeError(Exception):
    """The word cannot be decoded exactly (unterminated construct and the like)."""


_ANSI_SIMPLE = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r",
    "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}
_SPECIAL_PARAMS = set("@*#?-$!0123456789")
_GLOB_CHARS = set("*?")
_OCT = set("01234567")
_HEX = set("0123456789abcdefABCDEF")


def decode_ansi_c(body: str) -> tuple[str, bool]:
    """Decode the inside of ``$'…'``. Returns (text, exact): ``exact`` is false when the
    result depends on the locale or holds raw bytes (non-ASCII ``\\u``, ``\\x80``…)."""
    out: list[str] = []
    exact = True
    i, n = 0, len(body)
    while i < n:
        m = _ANSI_RUN.match(body, i)
        if m:
            out.append(m.group())
            i = m.end()
            continue
        c = body[i]
        if i + 1 >= n:
            out.append(c)
            i += 1
            continue
        d = body[i + 1]
        i += 2
        if d in _ANSI_SIMPLE:
            out.append(_ANSI_SIMPLE[d])
        elif d in _OCT:
            j = i - 1
            while j < n and j < i + 2 and body[j] in _OCT:
                j += 1
            val = int(body[i - 1:j], 8) & 0xFF
            i = j
            if val == 0:
                break  # bash's C strings end at NUL: the rest of this $'…' is dropped
            if val > 0x7F:
                exact = False
            out.append(chr(val))
        elif d in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[d]
            j = i
            while j < n and j < i + width and body[j] in _HEX:
                j += 1
            if j == i:  # no digits: bash keeps the backslash sequence
                out.append("\\" + d)
                continue
            val = int(body[i:j], 16)
            i = j
            if val == 0:
                break
            if val > 0x7F:
                exact = False
            out.append(chr(val) if val <= 0x10FFFF and not 0xD800 <= val <= 0xDFFF else "\ufffd")
        elif d == "c":
            if i >= n:
                out.append("\\c")
                continue
            ch = body[i]
            i += 1
            if ch == "\\" and i < n and body[i] == "\\":
                i += 1
            val = ord(ch) & 0x1F
            if val == 0:
                break
            out.append(chr(val))
        else:
            out.append("\\" + d)
    return "".join(out), exact


def _brace_expands(text: str, i: int) -> bool:
    """Whether the unquoted ``{`` at ``i`` starts a brace expansion (``{a,b}``, ``{1..3}``)."""
    depth = 0
    j, n = i, len(text)
    saw = False
    while j < n:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c in "'\"`":
            return True  # quotes inside braces: assume it may expand (fail closed)
        if c == "$" and j + 1 < n and text[j + 1] in "({[":
            return True
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return saw
        elif c == "," and depth == 1 or c == "." and depth == 1 and text.startswith("..", j):
            saw = True
        elif c in " \t\n;|&<>()":
            return False
        j += 1
    return False


class _Decoder:
    __slots__ = ("src", "end", "out", "static", "glob", "quoted", "subs", "i", "table")

    def __init__(self, src: str, start: int, end: int, table: Mapping[int, Opaque]) -> None:
        self.src = src
        self.table = table
        self.end = end
        self.i = start
        self.out: list[str] = []
        self.static = True
        self.glob = False
        self.quoted = False
        self.subs: list[Opaque] = []

    def dollar(self, dq: bool) -> None:
        """Handle a ``$`` at ``self.i`` (unquoted or in double quotes)."""
        src, i, end = self.src, self.i, self.end
        nxt = src[i + 1] if i + 1 < end else ""
        if nxt and nxt in "([{":
            self.sub(i)
        elif nxt and (nxt.isalpha() or nxt == "_"):
            j = i + 1
            while j < end and (src[j].isalnum() or src[j] == "_"):
                j += 1
            self.out.append(src[i:j])
            self.static = False
            self.i = j
        elif nxt and nxt in _SPECIAL_PARAMS:
            self.out.append(src[i:i + 2])
            self.static = False
            self.i = i + 2
        else:
            self.out.append("$")
            self.i = i + 1

    def sub(self, i: int) -> None:
        """A construct the lexer recorded at ``i``: keep its spelling, remember it."""
        op = self.table.get(i)
        if op is None or op.span[1] > self.end:
            raise DecodeError(f"internal: construct at offset {i} not found by the lexer")
        self.subs.append(op)
        self.out.append(self.src[i:op.span[1]])
        self.static = False
        self.i = op.span[1]

    def backtick(self, dq: bool) -> None:
        self.sub(self.i)

    def dquote(self) -> None:
        """Decode ``"…"`` starting after the opening quote; leaves ``i`` after the close."""
        src, end = self.src, self.end
        self.quoted = True
        while self.i < end:
            m = _DQ_RUN.match(src, self.i, end)
            if m:
                self.out.append(m.group())
                self.i = m.end()
                if self.i >= end:
                    break
            c = src[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\" and self.i + 1 < end:
                d = src[self.i + 1]
                if d == "\n":
                    self.i += 2
                elif d in '$`"\\':
                    self.out.append(d)
                    self.i += 2
                else:
                    self.out.append("\\")
                    self.i += 1
            elif c == "$":
                self.dollar(True)
            elif c == "`":
                self.backtick(True)
            else:
                self.out.append(c)
                self.i += 1
        raise DecodeError("unterminated double quote")

    def run(self, *, assignment: bool = False) -> None:
        src, end = self.src, self.end
        start = self.i
        tilde_ok = True
        while self.i < end:
            i = self.i
            c = src[i]
            if c == "~" and tilde_ok:
                self._tilde(assignment)
                tilde_ok = False
                continue
            tilde_ok = False
            if c == "\\":
                if i + 1 >= end:
                    self.out.append("\\")
                    self.i += 1
                elif src[i + 1] == "\n":
                    self.i += 2
                else:
                    self.out.append(src[i + 1])
                    self.quoted = True
                    self.i += 2
            elif c == "'":
                close = src.find("'", i + 1, end)
                if close < 0:
                    raise DecodeError("unterminated single quote")
                self.out.append(src[i + 1:close])
                self.quoted = True
                self.i = close + 1
            elif c == '"':
                self.i += 1
                self.dquote()
            elif c == "$" and i + 1 < end and src[i + 1] == "'":
                close = _ansi_c_end(src, i + 2, end)
                text, exact = decode_ansi_c(src[i + 2:close])
                self.out.append(text)
                self.quoted = True
                if not exact:
                    self.static = False
                self.i = close + 1
            elif c == "$" and i + 1 < end and src[i + 1] == '"':
                self.i += 2
                self.dquote()
            elif c == "$":
                self.dollar(False)
            elif c == "`":
                self.backtick(False)
            elif self._recorded(i):
                self.sub(i)
            else:
                if self._globby(i, start):
                    self.glob = True
                elif assignment and c in "=:" and i > start:
                    tilde_ok = True
                self.out.append(c)
                self.i += 1

    def _recorded(self, i: int) -> bool:
        """A process substitution or an array value the lexer recorded at ``i``."""
        src, c = self.src, self.src[i]
        if c in "<>":
            return i + 1 < self.end and src[i + 1] == "("
        op = self.table.get(i) if c == "(" else None
        return op is not None and op.kind == "array"

    def _globby(self, i: int, start: int) -> bool:
        """Whether the unquoted character at ``i`` makes the word a pattern or a brace
        expansion (bash may turn it into other words)."""
        src, c, end = self.src, self.src[i], self.end
        if c in _GLOB_CHARS:
            return True
        if c == "[":
            return src.find("]", i + 1, end) > 0
        if c in "@!+":
            return i + 1 < end and src[i + 1] == "("
        if c == "(":
            return i > start and src[i - 1] in "@!+*?"
        if c == "{":
            return _brace_expands(src[:end], i)
        return False

    def _tilde(self, assignment: bool) -> None:
        """A tilde prefix: ``~`` and ``~/`` stay literal and static; others are dynamic."""
        src, i, end = self.src, self.i, self.end
        j = i + 1
        stops = "/:" if assignment else "/"
        while j < end and src[j] not in stops and (src[j].isalnum() or src[j] in "_.-+"):
            j += 1
        prefix = src[i + 1:j]
        if prefix and (j >= end or src[j] in stops or src[j] in " \t\n"):
            self.static = False  # ~user, ~+, ~-, ~N: another directory, not HOME
        self.out.append(src[i:j])
        self.i = j


def _ansi_c_end(src: str, i: int, end: int) -> int:
    while i < end and src[i] != "'":
        i += 2 if src[i] == "\\" else 1
    if i >= end:
        raise DecodeError("unterminated $'…'")
    return i


_DQ_RUN = lazy_compile(r'[^"\\$`]+')
_ANSI_RUN = lazy_compile(r"[^\\]+")
_PLAIN_WORD = re.compile(r"[\w./:,@%+=^-]+")  # nothing to decode, expand or match


def decode_word(src: str, start: int, end: int, table: Mapping[int, Opaque], *,
                assignment: bool = False, span: Span | None = None) -> tuple[Word, list[Opaque]]:
    """Decode ``src[start:end]`` as one word. Returns the word and the constructs (``$( )``,
    backticks, ``${ }``, arithmetic, process substitutions, arrays) directly inside it.
    Raises :class:`DecodeError` when it cannot be decoded exactly."""
    if _PLAIN_WORD.fullmatch(src, start, end):
        raw = src[start:end]
        return Word(text=raw, raw=raw, span=span or (start, end)), []
    d = _Decoder(src, start, end, table)
    d.run(assignment=assignment)
    word = Word(text="".join(d.out), raw=src[start:end], span=span or (start, end),
                static=d.static, glob=d.glob, quoted=d.quoted)
    return word, d.subs
