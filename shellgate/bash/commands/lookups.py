"""``getent DATABASE [KEY…]`` (glibc 2.36, Debian's libc-bin), run under strace
(tests/test_lookups.py): it asks the Name Service Switch for entries of one database and prints
them.

Where the answer comes from is ``/etc/nsswitch.conf``'s to say, read when the gate decides
(``nss.remote``): ``hosts: files dns`` sends ``getent hosts NAME`` to a DNS server (measured:
a UDP connect to port 53 and a query, even for ``localhost`` when /etc/hosts has no IPv6 line),
``netgroup: nis`` asks a NIS server. A database is read-only only when every source it is
given is local (files, db, myhostname, systemd). The database each argument uses
(getent.c's ``databases[]``, exact names, no abbreviation):

* ``ahosts``/``ahostsv4``/``ahostsv6`` ask ``hosts`` through getaddrinfo. getaddrinfo also
  lists the interface addresses over netlink (the kernel, not the network) and, with more than
  one answer, sorts them by "connecting" a UDP socket to each address with port 0 (RFC 3484
  source selection: a UDP connect sends no datagram). Measured: nothing else.
* ``initgroups`` asks the ``initgroups`` line, and ``group`` where that line is missing (glibc
  falls back to it): both are checked here.
* ``ethers``, ``netgroup`` and ``initgroups`` without a key do not enumerate ("Enumeration not
  supported": getent returns 3 before any lookup; measured: not even nsswitch.conf is opened).
* ``shadow`` and ``gshadow`` print password hashes: a secret read, refused as reading
  /etc/shadow is (and reported as that leak-class path by ``paths/implicit.py``).

``-s``/``--service CONFIG`` replaces the sources nsswitch.conf gives (``-s dns``, ``-s
hosts:dns``: measured, a DNS query under ``hosts: files``): refused. ``-i``/``--no-idn`` and
``-A``/``--no-addrconfig`` only change getaddrinfo's flags. argp also knows the hidden
``--program-name`` and ``--HANG`` (waits): not on the list, refused as unknown. argp permutes
(``getent passwd root -i`` reads ``-i``), abbreviates long options, and ``--help``, ``--usage``
and ``--version`` print and exit while the options are read, before any lookup.

When nscd runs, glibc asks it first (a local socket; nscd answers from its cache or by the same
nsswitch.conf). ``MALLOC_TRACE`` writes nothing: in glibc 2.34+ ``mtrace()`` is a no-op unless
libc_malloc_debug.so is preloaded (measured).
"""

from __future__ import annotations

from collections.abc import Iterable

from ..facts import Effect
from . import nss
from .spec import Call, Command, Finding, Flag, Parsed, Takes

_HOSTS = ("hosts",)
# getent's databases -> the nsswitch.conf databases their lookups use.
DATABASES: dict[str, tuple[str, ...]] = {
    "ahosts": _HOSTS, "ahostsv4": _HOSTS, "ahostsv6": _HOSTS, "hosts": _HOSTS,
    "aliases": ("aliases",), "ethers": ("ethers",), "group": ("group",),
    "initgroups": ("initgroups", "group"), "netgroup": ("netgroup",), "networks": ("networks",),
    "passwd": ("passwd",), "protocols": ("protocols",), "rpc": ("rpc",), "services": ("services",),
}
# getent's databases that print password hashes -> the file they are the NSS view of.
SECRET = {"shadow": "/etc/shadow", "gshadow": "/etc/gshadow"}
# Databases getent refuses to enumerate: without a key nothing is looked up.
_NO_ENUMERATION = frozenset({"ethers", "netgroup", "initgroups"})
_EXITS = ("--help", "--usage", "--version")


def _getent(p: Parsed, call: Call) -> Iterable[Finding]:
    if p.has(*_EXITS) or not p.operands:
        return   # argp prints and exits while reading options; no database: usage, no lookup
    db, keys = p.operands[0], p.operands[1:]
    if not db.static:
        yield Finding(f"getent {db.text}: the database is only known at run time", db.span,
                      "readonly.dynamic_path")
        return
    if db.text in SECRET:
        yield Finding(f"getent {db.text} prints password hashes (the NSS view of {SECRET[db.text]}, a "
                      "secret)", db.span, "readonly.sensitive")
        return
    uses = DATABASES.get(db.text)
    if uses is None:
        yield Finding(f"getent {db.text}: not a database on the read-only list", db.span,
                      "readonly.operand")
        return
    if not keys and db.text in _NO_ENUMERATION:
        return
    for name in uses:
        if name == "initgroups" and nss.sources(name) is None:
            continue   # no initgroups line: glibc uses group's, checked next
        why = nss.remote(name)
        if why is not None:
            yield Finding(f"getent {db.text} looks entries up through NSS ({why}: network)", db.span,
                          "readonly.network", Effect.NETWORK)
            return


GETENT = Command("getent", reads=False, check=_getent, safe=[
    Flag("-A", "--no-addrconfig"), Flag("-i", "--no-idn"), Flag("-?", "--help"), Flag("--usage"),
    Flag("-V", "--version")],
    unsafe={Flag("-s", "--service", takes=Takes.VALUE): (
        "replaces the sources /etc/nsswitch.conf gives (a lookup may go to dns, nis or any other "
        "module: network)", Effect.NETWORK)})

COMMANDS = (GETENT,)
