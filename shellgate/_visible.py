"""One escaping function for every text a person reads: control characters shown, never obeyed.

A command, a path or a reason can carry terminal control sequences (``ESC [1A ESC [2K \\r``
erases the line shown before it), other C0/C1 controls, bidi overrides (U+202E turns text
around) or invisible characters. Printed raw, ``rm -rf src #\\x1b[1A\\x1b[2K\\rls -la`` is read
as ``ls -la``. :func:`visible` writes each such character as a Python-style escape
(``\\x1b``, ``\\u202e``), so the person reads what the program will get.

"Such a character" is what :meth:`str.isprintable` calls unprintable (categories Cc, Cf, Cs,
Co, Cn, Zl, Zp and every space but U+0020): one rule, Python's, instead of a hand-kept list.
Standard library only: the hook path imports this.
"""

from __future__ import annotations

_KEPT_MULTILINE = frozenset("\n\t")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}  # as Python's repr spells them


def _escape(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str, *, multiline: bool = False) -> str:
    """``text`` with every unprintable character escaped. ``multiline`` keeps newlines and tabs
    (a preview, a command of several lines); a carriage return is always escaped."""
    if text.isprintable():
        return text
    kept = _KEPT_MULTILINE if multiline else frozenset()
    return "".join(ch if ch.isprintable() or ch in kept else _escape(ch) for ch in text)
