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

NSSWITCH = "/etc/nsswitch.conf"
LOCAL = frozenset({"files", "db", "myhostname", "systemd"})
_ACTION = re.compile(r"\[[^]]*\]")


def sources(database: str, path: str | None = None) -> tuple[str, ...] | None:
    """The sources ``path`` (``NSSWITCH``) names for ``database`` (every line of it: which one
    glibc keeps is not taken on trust), or None when the file or the line is missing or
    unreadable."""
    path = path or NSSWITCH
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read(1 << 16)
    except OSError:
        return None
    found: list[str] = []
    for line in text.splitlines():
        line = line.split("#", 1)[0]
        name, colon, rest = line.partition(":")
        if colon and name.strip() == database:
            found.extend(_ACTION.sub(" ", rest).split())
    return tuple(found) or None


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
