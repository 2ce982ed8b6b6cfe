"""JSON with comments and trailing commas (JSONC), as agents' settings files may hold them.

Gemini CLI reads its ``settings.json`` through a comment stripper, and people write
``// why this hook is here`` into Claude Code's too; a strict ``json.loads`` refuses both, so
``shellgate init`` used to stop with an error on them. :func:`loads` blanks ``//`` and
``/* */`` comments and drops a comma after a value that only whitespace or comments separate
from a closing ``}`` or ``]`` — never inside a string — and parses the rest as JSON. Blanking keeps every
other character in place, so a JSON error still points at the user's own line and column.

Standard library only: the hook's settings checks import it.
"""

from __future__ import annotations

import json
from typing import Any


def strip(text: str) -> str:
    """``text`` with its comments blanked (newlines kept) and its trailing commas replaced by
    spaces; the same length, and unchanged when it has neither. ValueError for a ``/*``
    comment that never ends."""
    out: list[str] | None = None
    comma = -1          # the last comma after a value, with only whitespace or comments after it
    prev = ""           # the last character that is neither whitespace nor in a comment
    i, n = 0, len(text)

    def blank(a: int, b: int) -> None:
        nonlocal out
        if out is None:
            out = list(text)
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            i, comma, prev = j + 1, -1, '"'
            continue
        if c == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
            continue
        if c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            if end < 0:
                line = text.count("\n", 0, i) + 1
                raise ValueError(f"a /* comment that never ends (line {line})")
            blank(i, end + 2)
            i = end + 2
            continue
        if c == ",":
            comma = i if prev not in ("", "[", "{", ",") else -1  # `[,]` stays an error
        elif c in "}]":
            if comma >= 0:
                blank(comma, comma + 1)
            comma = -1
        elif not c.isspace():
            comma = -1
        if not c.isspace():
            prev = c
        i += 1
    return text if out is None else "".join(out)


def loads(text: str) -> tuple[Any, bool]:
    """The JSONC document ``text`` as data, and whether it had comments or trailing commas
    (then a rewrite as plain JSON loses them). ValueError (``json.JSONDecodeError`` for
    malformed JSON) when it is not JSONC either."""
    plain = strip(text)
    return json.loads(plain), plain != text
