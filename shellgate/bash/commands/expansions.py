"""Which expansions inside a word are inert, and which run code or assign.

Plain ``$x`` / ``${x}`` / ``"$x"``, the pattern operators (``${x#p}``, ``${x/a/b}``, ``${x:-w}``
…) and command substitutions (whose commands the walker lists and the classifier checks on
their own) are inert for the read-only question. Everything that evaluates text again or
assigns is not (``research/anchors-readonly.md`` §0.6, all verified in bash 5.2):

* ``${x@P}`` and the other ``@`` transformations (prompt expansion runs ``$(…)`` in values);
* ``${!x}`` indirection (``x='a[$(cmd)]'`` runs ``cmd``);
* ``${x:=w}`` / ``${x=w}`` (assignment);
* subscripts and substring offsets that are not literal numbers (arithmetic evaluation);
* ``$((…))`` / ``$[…]`` with anything but literal numbers and operators (a variable holding
  ``a[$(cmd)]`` runs ``cmd``; ``=``, ``++`` assign).

:func:`problems` returns the plain-words reasons; an empty list means inert.
"""

from __future__ import annotations

import re

from ..._lazyre import lazy_compile

_NAME = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL = set("@*#?-$!0123456789")
_ARITH_OK = lazy_compile(r"[\d\s+\-*/%()<>=!&|^~?:,]*")
_NESTED = frozenset('"`$')  # what opens a string or expansion with its own end (see _Scan.nested)
# Runs of characters the scanners step over one by one, skipped in one regex step: a word
# holding a deep nest of substitutions is scanned once per nested command, so a per-character
# loop made that depth x length in Python steps (seconds at 100 x 50 KB).
_SCAN_PLAIN = lazy_compile(r"[^\\'\"`$<>()}]+")
_DQ_PLAIN = lazy_compile(r"[^\"\\`$]+")
_ARITH_PLAIN = lazy_compile(r"[^()\\\"`$]+")


class _Unreadable(Exception):
    pass


def arith_problem(expr: str) -> str | None:
    """Why the arithmetic text ``expr`` is not inert, or None when it only has literal numbers."""
    if not _ARITH_OK.fullmatch(expr):
        return "arithmetic on variables or expansions (a value like a[$(cmd)] runs cmd)"
    stripped = expr.replace("==", "").replace("!=", "").replace("<=", "").replace(">=", "")
    if "=" in stripped or "++" in expr or "--" in expr:
        return "arithmetic that assigns"
    return None


def problems(raw: str, *, heredoc: bool = False) -> list[str]:
    """The non-inert expansions in the source text ``raw`` of one word (or here-doc body)."""
    out: list[str] = []
    try:
        _Scan(raw, out, heredoc).run()
    except _Unreadable as exc:
        out.append(f"an expansion could not be read exactly ({exc})")
    except (IndexError, ValueError):  # ran off the end, or a closer not found
        out.append("an expansion could not be read exactly (unterminated)")
    return out


class _Scan:
    def __init__(self, s: str, out: list[str], heredoc: bool) -> None:
        self.s = s
        self.out = out
        self.heredoc = heredoc

    def run(self) -> None:
        end = self.scan(0, None, dq=self.heredoc)
        if end != len(self.s):
            raise _Unreadable("stray closing bracket")

    def scan(self, i: int, closer: str | None, dq: bool) -> int:
        """Scan from ``i`` until ``closer`` (not consumed... returned index points at it)."""
        s = self.s
        n = len(s)
        while i < n:
            c = s[i]
            if closer is not None and c == closer and not (dq and closer == ")"):
                return i
            if c == "\\":
                i += 2
                continue
            if c == "'" and not dq:
                j = s.find("'", i + 1)
                if j < 0:
                    raise _Unreadable("unterminated single quote")
                i = j + 1
                continue
            if c in _NESTED and not (c == '"' and self.heredoc):
                i = self.nested(i, dq)
                continue
            if c in "<>" and i + 1 < n and s[i + 1] == "(" and not dq:
                i = self.paren(i + 2) + 1
                continue
            if closer == ")" and c == "(" and not dq:
                i = self.paren(i + 1) + 1
                continue
            m = _SCAN_PLAIN.match(s, i + 1)
            i = m.end() if m else i + 1
        if closer is not None:
            raise _Unreadable(f"missing {closer!r}")
        return i

    def nested(self, i: int, dq: bool) -> int:
        """Skip the double-quoted string, backquoted command or ``$`` expansion opening at ``i``;
        returns the index after it."""
        c = self.s[i]
        if c == '"':
            return self.dquote(i + 1)
        if c == "`":
            return self.backtick(i + 1)
        return self.dollar(i, dq)

    def dquote(self, i: int) -> int:
        s = self.s
        while True:
            c = s[i]
            if c == '"':
                return i + 1
            if c == "\\":
                i += 2
            elif c == "`":
                i = self.backtick(i + 1)
            elif c == "$":
                i = self.dollar(i, True)
            else:
                m = _DQ_PLAIN.match(s, i + 1)
                i = m.end() if m else i + 1

    def backtick(self, i: int) -> int:
        s = self.s
        while s[i] != "`":
            i += 2 if s[i] == "\\" else 1
        return i + 1

    def arith_close(self, i: int) -> int | None:
        """Index of the ``))`` closing ``$((`` whose body starts at ``i``, or None (then it is
        ``$( (…) )``). The lexer's rule (``_lex.try_arith``), as bash reads it: parentheses
        pair up, single quotes are plain characters, double quotes, backquotes and ``$``
        expansions are skipped whole, and the pair must close with ``))``. Deciding otherwise
        here (a ``'`` once meant "not arithmetic") let ``$(( _ + '1' ))`` through unchecked
        while bash evaluated ``_``, and with it a subscript holding ``$(cmd)``."""
        s, n = self.s, len(self.s)
        depth = 0
        while i < n:
            m = _ARITH_PLAIN.match(s, i)
            if m:
                i = m.end()
                if i >= n:
                    break
            c = s[i]
            if c == "(":
                depth += 1
            elif c == ")":
                if depth == 0:
                    return i if s.startswith("))", i) else None
                depth -= 1
            elif c == "\\":
                i += 2
                continue
            else:  # `"`, a backquote or `$`
                i = self.nested(i, False)
                continue
            i += 1
        return None

    def paren(self, i: int) -> int:
        """Skip a ``$( … )`` / ``<( … )`` body (its commands are checked on their own)."""
        return self.scan(i, ")", dq=False)

    def dollar(self, i: int, dq: bool) -> int:
        s = self.s
        nxt = s[i + 1] if i + 1 < len(s) else ""
        if nxt == "'" and not dq:
            j = i + 2
            while s[j] != "'":
                j += 2 if s[j] == "\\" else 1
            return j + 1
        if nxt == '"' and not dq:
            return self.dquote(i + 2)
        if s.startswith("$((", i):
            close = self.arith_close(i + 3)
            if close is not None:
                why = arith_problem(s[i + 3:close])
                if why:
                    self.out.append(f"$((…)) {why}")
                return close + 2
        if nxt == "(":
            return self.paren(i + 2) + 1
        if nxt == "[":
            close = s.index("]", i + 2)
            why = arith_problem(s[i + 2:close])
            self.out.append(f"$[…] {why or 'old-style arithmetic'}")
            return close + 1
        if nxt == "{":
            return self.param(i + 2, dq)
        return i + 1

    def param(self, i: int, dq: bool) -> int:
        """``${ … }`` starting after the brace; returns the index after ``}``."""
        s = self.s
        if s[i] == "!" and s[i + 1] != "}":
            self.out.append("${!…} indirect expansion (a value like a[$(cmd)] runs cmd)")
            i += 1
        elif s[i] == "#" and s[i + 1] not in "}":
            i += 1  # ${#x}: length
        m = _NAME.match(s, i)
        if m:
            i = m.end()
        elif s[i] in _SPECIAL:
            i += 1
            while s[i - 1].isdigit() and s[i].isdigit():
                i += 1
        else:
            raise _Unreadable(f"unusual parameter expansion ${{{s[i:i + 8]}")
        if s[i] == "[":
            close = s.index("]", i + 1)
            sub = s[i + 1:close]
            if sub not in ("@", "*") and not sub.strip().isdigit():
                self.out.append("an array subscript is evaluated as arithmetic (a[$(cmd)] runs cmd)")
            i = close + 1
        c = s[i]
        if c == "}":
            return i + 1
        two = s[i:i + 2]
        if c == "@":
            self.out.append(f"${{…@{s[i + 1:i + 2]}}} transformation (prompt/escape expansion can run code)")
            return self._to_close(i + 1, dq)
        if two in (":=",) or c == "=":
            self.out.append("${x:=…} assigns a variable")
            return self._to_close(i + 1, dq)
        if two in (":-", ":+", ":?"):
            return self._to_close(i + 2, dq)
        if c in "-+?#%/^,":
            return self._to_close(i + 1, dq)
        if c == ":":
            close = self._to_close(i + 1, dq) - 1
            body = s[i + 1:close]
            if not re.fullmatch(r"\s*-?\s*\d*\s*(:\s*-?\s*\d*\s*)?", body):
                self.out.append("a substring offset is evaluated as arithmetic")
            return close + 1
        raise _Unreadable(f"unusual parameter operator {c!r}")

    def _to_close(self, i: int, dq: bool) -> int:
        """Scan the word part of ``${x op word}`` up to its ``}``; returns the index after it."""
        s = self.s
        depth = 0
        while True:
            c = s[i]
            if c == "\\":
                i += 2
                continue
            if c == "'" and not dq:
                i = s.index("'", i + 1) + 1
                continue
            if c in _NESTED:
                i = self.nested(i, dq)
                continue
            if c == "{":
                depth += 1
            elif c == "}":
                if depth == 0:
                    return i + 1
                depth -= 1
            i += 1
