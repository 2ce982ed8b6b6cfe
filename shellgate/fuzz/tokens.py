"""Cutting a command string into raw shell tokens and back, for mutation and minimization.

Not a parser: it only has to keep quotes, ``$'…'``, ``$(…)``, backticks and ``${…}`` in one
piece and split on unquoted blanks and control operators, so that removing or swapping a token
leaves the rest exactly as spelled.
"""

from __future__ import annotations

_OPERATORS = ("&&", "||", ";;", "|&", ";", "|", "&", "\n")
_CLOSE = {"(": ")", "{": "}", "[": "]"}


def split(source: str) -> list[str]:
    """Raw tokens of ``source``: words (quotes kept) and control operators. Never raises."""
    out: list[str] = []
    cur: list[str] = []
    i, n = 0, len(source)

    def flush() -> None:
        if cur:
            out.append("".join(cur))
            cur.clear()

    while i < n:
        c = source[i]
        if c in " \t":
            flush()
            i += 1
            continue
        if c == "\\" and i + 1 < n:
            cur.append(source[i:i + 2])
            i += 2
            continue
        op = next((o for o in _OPERATORS if source.startswith(o, i)), None)
        glued = op in ("&", "|", "|&") and cur and cur[-1] in "<>"   # 2>&1, >|, <&0
        if op and not glued and not (op == "&" and source.startswith("&>", i)):
            flush()
            out.append(op)
            i += len(op)
            continue
        if c in "'\"`":
            j = _skip_quote(source, i)
            cur.append(source[i:j])
            i = j
            continue
        if c == "$" and i + 1 < n and source[i + 1] in "'({[":
            j = _skip_quote(source, i + 1) if source[i + 1] == "'" else _skip_group(source, i + 1)
            cur.append(source[i:j])
            i = j
            continue
        if c in "<>" and i + 1 < n and source[i + 1] == "(":
            j = _skip_group(source, i + 1)
            cur.append(source[i:j])
            i = j
            continue
        cur.append(c)
        i += 1
    flush()
    return out


def _skip_quote(s: str, i: int) -> int:
    """Index just past the quoted string starting at ``s[i]``."""
    q, j = s[i], i + 1
    while j < len(s):
        if s[j] == "\\" and q != "'" and j + 1 < len(s):
            j += 2
            continue
        if s[j] == q:
            return j + 1
        j += 1
    return len(s)


def _skip_group(s: str, i: int) -> int:
    """Index just past the bracketed group opening at ``s[i]`` (quotes respected)."""
    depth, j = 0, i
    while j < len(s):
        c = s[j]
        if c == "\\":
            j += 2
            continue
        if c in "'\"`":
            j = _skip_quote(s, j)
            continue
        if c in _CLOSE:
            depth += 1
        elif c in _CLOSE.values():
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return len(s)


def join(tokens: list[str]) -> str:
    """Tokens back to a command; operators keep their neighbours' spacing simple."""
    return " ".join(t if t != "\n" else "\n" for t in tokens).replace(" \n ", "\n")


def is_operator(token: str) -> bool:
    return token in _OPERATORS
