"""``lazy_compile``: a module-level regular expression compiled at its first use.

Why: the hook is a fresh process per tool call, and compiling a pattern costs 30-300 us. Most
module-level patterns serve commands other than the one being decided (SQL warnings, here-doc
bodies, ANSI-C quoting …), so compiling them all at import is paid on every call for nothing.

How: :class:`LazyPattern` stands in for the compiled pattern. The first time an attribute is
looked up (``search``, ``match`` …) it compiles (``re.compile``), stores the pattern's own bound
methods in the instance's slots and drops its ``__getattr__`` (by changing class), so every later
``X.search(...)`` is a plain attribute hit calling the C method: measured as fast as a compiled
pattern's own method lookup. Only attribute access is
supported: use sites call methods (``X.match(s)``); do not pass a lazy pattern to ``re.sub``
or compare it with ``==``. A leaf module: ``shellgate.bash`` may import it.
"""

from __future__ import annotations

import re
from typing import Any

_ATTRS = ("match", "search", "fullmatch", "sub", "subn", "split", "findall", "finditer",
          "scanner", "pattern", "flags", "groups", "groupindex")


class _Slots:
    __slots__ = ("_args", *_ATTRS)


class _Compiled(_Slots):
    """A :class:`LazyPattern` after its first use: the pattern's attributes in its slots, and
    no ``__getattr__`` hook left to slow each lookup down."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"lazy_compile({self.pattern!r}, {self.flags!r})"


class LazyPattern(_Slots):
    """``re.compile(pattern, flags)``, done at the first attribute lookup."""

    __slots__ = ()

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._args = (pattern, flags)

    def __getattr__(self, name: str) -> Any:  # only reached before the first use
        if name not in _ATTRS:
            raise AttributeError(name)
        rx = re.compile(*self._args)
        for a in _ATTRS:
            setattr(self, a, getattr(rx, a))
        self.__class__ = _Compiled  # type: ignore[assignment]
        return getattr(rx, name)

    def __repr__(self) -> str:
        return f"lazy_compile({self._args[0]!r}, {self._args[1]!r})"


def lazy_compile(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A stand-in for ``re.compile(pattern, flags)`` that compiles on first use."""
    return LazyPattern(pattern, flags)  # type: ignore[return-value]
