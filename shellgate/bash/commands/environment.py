"""Environment values that leave a read-only program read-only, and the one place a value
read as a date names a file.

A prefix assignment (``LC_ALL=C sort x``), a variable a persistent session carries, and a
``TZ="…"`` at the head of a GNU date string (``date -d 'TZ="Europe/Paris" now'``,
``find -newermt``: gnulib's ``parse_datetime`` hands it to glibc, which opens the time-zone
file it names — ``TZ="/root/.ssh/id_rsa"`` reads the key) are all judged by this table.
"""

from __future__ import annotations

import re

from ..._lazyre import lazy_compile
from ..ir import Word

# Prefix assignments that change how a read-only program formats or sorts its output, never
# what it runs or reads: (name, the values accepted). Values are static words without `/` (a
# locale or terminal name with a slash is a path glibc or ncurses would load), TZ names may
# hold single slashes between plain names (``Europe/Paris``), never ``..``. Not PATH, LD_*,
# BASH_ENV, GIT_*, PAGER, LESSOPEN, PYTHON* …: each of those runs or loads something.
_LOCALE = lazy_compile(r"[A-Za-z0-9_.@-]{1,64}")
_HARMLESS_ENV: dict[str, re.Pattern[str]] = {
    "LANG": _LOCALE, "LANGUAGE": lazy_compile(r"[A-Za-z0-9_.@:-]{1,128}"),
    "LC_ALL": _LOCALE, "LC_COLLATE": _LOCALE, "LC_CTYPE": _LOCALE, "LC_MESSAGES": _LOCALE,
    "LC_NUMERIC": _LOCALE, "LC_TIME": _LOCALE, "LC_MONETARY": _LOCALE,
    "TZ": lazy_compile(r":?(?!.*\.\.)[A-Za-z0-9_+-]{1,32}(/[A-Za-z0-9_+-]{1,32}){0,3}"),
    "NO_COLOR": lazy_compile(r"[A-Za-z0-9]{0,8}"), "CLICOLOR": lazy_compile(r"[01]"),
    "CLICOLOR_FORCE": lazy_compile(r"[01]"), "FORCE_COLOR": lazy_compile(r"[0-3]?|true|false"),
    "COLUMNS": lazy_compile(r"[0-9]{1,5}"), "LINES": lazy_compile(r"[0-9]{1,5}"),
    "TERM": lazy_compile(r"[A-Za-z0-9_.+-]{1,32}"),
}


def harmless_assignment(name: str, value: Word) -> bool:
    """Whether ``NAME=value cmd`` leaves ``cmd`` as read-only as plain ``cmd``."""
    return value.static and harmless_value(name, value.text)


def harmless_value(name: str, text: str) -> bool:
    """Whether the variable ``name`` set to ``text`` is in the table above."""
    rx = _HARMLESS_ENV.get(name)
    return rx is not None and rx.fullmatch(text) is not None


_SPACE = " \t\n\v\f\r"


def date_tz_problem(word: Word) -> str | None:
    """Why the date string ``word`` (``date -d``, ``find -newermt``) may make glibc open a file
    other than a plain zone of the system's time-zone directory, or None. gnulib reads a
    ``TZ="VALUE"`` prefix after leading blanks, ``\\`` and ``\"`` escaped inside it."""
    if not word.static:
        return "a date only known at run time (its TZ=\"…\" prefix could name any file)"
    s = word.text.lstrip(_SPACE)
    if not s.startswith('TZ="'):
        return None
    value: list[str] = []
    i = 4
    while i < len(s) and s[i] != '"':
        if s[i] == "\\" and i + 1 < len(s) and s[i + 1] in '\\"':
            i += 1
        value.append(s[i])
        i += 1
    tz = "".join(value)
    if i < len(s) and harmless_value("TZ", tz):
        return None
    return f'TZ="{tz}" in a date names a time-zone file that glibc reads'
