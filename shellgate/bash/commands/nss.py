"""Where a Name Service Switch lookup goes: the sources ``/etc/nsswitch.conf`` names for a
database, read when the gate decides.

A lookup of a host name, an address, a service (port) name or a user goes wherever that file
says: ``hosts: files dns`` asks a DNS server (the network), ``passwd: files sss`` asks SSSD,
which may ask LDAP. Programs that print names for numbers (lsof, netstat) or look names up
(getent) are read-only only when every source of the database they use is one of ``LOCAL``:
modules that answer from files or from a daemon of this machine that asks nothing further
(``systemd``: systemd-userdbd's records; ``myhostname``: the host's own names). A missing
file, a missing line or an unread one counts as not local (glibc's built-in default for
``hosts`` asks DNS). Action items (``[NOTFOUND=return]``) are not sources.
"""

from __future__ import annotations

import re

from ..._plain import read_plain

NSSWITCH = "/etc/nsswitch.conf"
LOCAL = frozenset({"files", "db", "myhostname", "systemd"})
MAX_SIZE = 1 << 20   # a larger file is not read (fail closed): glibc reads every line

# C's isspace in the C locale: what glibc's nss_database.c and nss_action_parse.c skip.
_SPACE = b" \t\n\v\f\r"
_NAME = re.compile(rb"[^ \t\n\v\f\r:]+")
_SOURCE = re.compile(rb"[^ \t\n\v\f\r\[]+")
_WORD = re.compile(rb"[^ \t\n\v\f\r=\]]*")
_BLANKS = re.compile(rb"[ \t\n\v\f\r]*")
_STATUSES = frozenset({b"SUCCESS", b"UNAVAIL", b"NOTFOUND", b"TRYAGAIN"})
_ACTIONS = frozenset({b"RETURN", b"CONTINUE", b"MERGE"})


def _skip(line: bytes, i: int) -> int:
    """The index of the first non-blank at or after ``i``."""
    m = _BLANKS.match(line, i)
    assert m is not None   # `*` matches the empty string
    return m.end()


def _services(line: bytes) -> list[bytes] | None:
    """The sources of one service specification, as glibc's ``nss_action_parse`` reads it
    (``files [NOTFOUND=return] dns``), or None where glibc finds a syntax error. A `[` where a
    source should start ends the list; a `#` is no comment (glibc knows none past a line's
    start: ``files # dns`` asks DNS, measured)."""
    out: list[bytes] = []
    i = 0
    while True:
        i = _skip(line, i)
        m = _SOURCE.match(line, i)
        if m is None:
            return out
        out.append(m.group())
        i = _skip(line, m.end())
        if line[i:i + 1] != b"[":
            continue
        i += 1
        while True:
            i = _skip(line, i)
            if line[i:i + 1] == b"!":
                i += 1
            status = _WORD.match(line, i)
            assert status is not None
            if status.group().upper() not in _STATUSES:
                return None
            i = _skip(line, status.end())
            if line[i:i + 1] != b"=":
                return None
            i = _skip(line, i + 1)
            action = _WORD.match(line, i)
            assert action is not None
            if action.group().upper() not in _ACTIONS:
                return None
            i = _skip(line, action.end())
            if line[i:i + 1] == b"]":
                i += 1
                break


def sources(database: str, path: str | None = None) -> tuple[str, ...] | None:
    """The sources ``path`` (``NSSWITCH``) names for ``database``, read as glibc 2.33+ reads
    the file (nss_database.c ``process_line``): lines end at a newline only (and at a NUL),
    the database name ends at a blank or a colon (``hosts dns`` is a hosts line), blanks and
    colons after it are skipped, and no `#` starts a comment past the name. Every line of the
    database counts (glibc keeps the last: the union is the wider reading). None when the file
    is missing, unreadable or too large, when no line names the database (glibc's built-in
    default for ``hosts`` asks DNS), or when its line is not understood."""
    path = path or NSSWITCH
    try:
        data = read_plain(path, MAX_SIZE, follow=True)
    except OSError:   # NotPlain too: a FIFO, a device or a file over the cap
        return None
    want = database.encode()
    found: list[str] = []
    seen = False
    for raw in data.split(b"\n"):
        line = raw.split(b"\0", 1)[0].lstrip(_SPACE)
        m = _NAME.match(line)
        if m is None or m.end() == len(line) or m.group() != want:
            continue
        seen = True
        services = _services(line[m.end():].lstrip(_SPACE + b":"))
        if services is None:
            return None
        found.extend(s.decode("utf-8", "replace") for s in services)
    return tuple(found) if seen and found else None


def remote(database: str, path: str | None = None) -> str | None:
    """Why a lookup in ``database`` may leave this machine, or None when every source is local."""
    path = path or NSSWITCH
    names = sources(database, path)
    if names is None:
        return f"{path} names no sources for {database} (glibc's default may ask the network)"
    far = [s for s in names if s not in LOCAL]
    if far:
        return f"{path} sends {database} lookups to {', '.join(far)}"
    return None
