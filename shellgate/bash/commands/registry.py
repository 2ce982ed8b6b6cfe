"""All command tables in one place: name -> table (:class:`Command`) or custom check.

Adding a command family is adding a module with ``COMMANDS`` (tables) and/or ``CUSTOM``
(name -> function of a :class:`Call`) and listing it here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

from .helpforms import HELP_FORMS
from .refused import REFUSED
from .spec import Call, Command, Finding

Custom = Callable[[Call], list[Finding]]

_FAMILIES = ("text", "files", "grep", "sed", "awk", "jq", "shell", "info", "archive", "fileops",
             "network", "git", "launchers", "toolchain", "openssl", "reference", "helpforms",
             "wireshark", "iproute", "sysinfo", "binutils", "sysquery", "packages", "lookups",
             "coreextra", "kernelstats", "zgrep", "compgrep", "shellcheck")

# Which family defines a name, so that a lookup imports only that family: the hook pays for
# the commands it sees, not for all of them. Only a hint: a name missing here, or not found
# in its family, is looked up in the full table, so a stale line costs time, never a verdict
# (tests/test_speed_registry.py checks every line against the full table).
_INDEX_SRC = {
    "text": "cat tac head tail wc nl cut tr uniq sort shuf column paste comm join fold fmt expand "
            "unexpand rev seq strings od hexdump base64 base32 md5sum sha1sum sha224sum sha256sum "
            "sha384sum sha512sum b2sum cksum sum shasum look cmp xxd pr iconv",
    "files": "ls tree fd fdfind file stat du df basename dirname realpath readlink which whereis "
             "diff pwd",
    "grep": "grep egrep fgrep rg",
    "sed": "sed",
    "awk": "awk gawk mawk nawk",
    "jq": "jq",
    "shell": "cd pushd popd dirs echo true : false sleep exit return break continue shift times "
             "wait jobs printf type hash history test [ set expr getopt help",
    "info": "date uname id whoami groups hostname nproc uptime arch tty logname printenv free ps "
            "locale getconf lscpu python python3 python2 pypy3 node pgrep ifconfig mount w who pstree clear "
            "finger acpi dfc systemd-delta ipcs dmesg journalctl",
    "archive": "unzip zipinfo zcat gzcat gzip gunzip bzcat xzcat bzip2 bunzip2 xz unxz tar 7z 7za 7zr 7zz",
    "fileops": "mkdir touch cp mv rm rmdir tee",
    "network": "curl wget ssh ping ping6 dig host nslookup traceroute whois telnet nc ncat netcat",
    "git": "git",
    "launchers": "sudo doas su pkexec runuser chroot nohup setsid timeout nice ionice stdbuf "
                 "command builtin exec time env xargs bash sh dash eval",
    "find": "find",
    "toolchain": "npm cargo rustc pip pip3",
    "openssl": "openssl",
    "reference": "bc cal ncal errno ascii apropos whatis gvgen",
    "wireshark": "tshark",
    "iproute": "ip ss",
    "sysinfo": "lsblk findmnt lsmod lslocks lsns lsipc last vmstat",
    "binutils": "readelf objdump nm size c++filt",
    "sysquery": "pidof netstat lsof",
    "packages": "dpkg dpkg-query",
    "lookups": "getent",
    "coreextra": "numfmt factor tsort basenc pinky users namei lsattr tput",
    "kernelstats": "sysctl iostat mpstat pidstat lspci",
    "zgrep": "zgrep zegrep zfgrep",
    "compgrep": "xzgrep xzegrep xzfgrep lzgrep lzegrep lzfgrep bzgrep bzegrep bzfgrep zstdgrep",
    "shellcheck": "shellcheck",
}
_INDEX = {name: fam for fam, names in _INDEX_SRC.items() for name in names.split()}
_INDEX.update(dict.fromkeys(HELP_FORMS, "helpforms"))  # the help-form table is small: its own index


def _module(family: str) -> ModuleType:
    return importlib.import_module(f"{__package__}.{family}")


def _entries(family: str) -> dict[str, Command | Custom]:
    """One family's names -> tables or custom checks (imports that family only)."""
    mod = _module(family)
    if family == "find":
        return {"find": mod.check}
    out: dict[str, Command | Custom] = {}
    for cmd in getattr(mod, "COMMANDS", ()):
        for name in (cmd.name, *cmd.aliases):
            out[name] = cmd
    out.update(getattr(mod, "CUSTOM", {}))
    return out


def _build() -> dict[str, Command | Custom]:
    table: dict[str, Command | Custom] = {}
    for mod in map(_module, _FAMILIES):
        for cmd in getattr(mod, "COMMANDS", ()):
            for name in (cmd.name, *cmd.aliases):
                if name in table:
                    raise ValueError(f"command {name!r} defined twice")
                table[name] = cmd
        for name, fn in getattr(mod, "CUSTOM", {}).items():
            if name in table:
                raise ValueError(f"command {name!r} defined twice")
            table[name] = fn
    table["find"] = _module("find").check
    return table


_table: dict[str, Command | Custom] | None = None
_families: dict[str, dict[str, Command | Custom]] = {}


def full_table() -> dict[str, Command | Custom]:
    """Every command (imports every family; checks no name is defined twice)."""
    global _table
    if _table is None:
        _table = _build()
    return _table


def __getattr__(name: str) -> Any:
    if name == "TABLE":  # the full table, built on first use
        return full_table()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def lookup(name: str) -> Command | Custom | None:
    family = _INDEX.get(name)
    if family is not None and _table is None:
        entries = _families.get(family)
        if entries is None:
            entries = _families[family] = _entries(family)
        entry = entries.get(name)
        if entry is not None:
            return entry
    return full_table().get(name)


def refusal(name: str) -> str | None:
    """A plain-words reason for a well-known command that is never read-only."""
    return REFUSED.get(name)
