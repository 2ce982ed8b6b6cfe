"""All command tables in one place: name -> table (:class:`Command`) or custom check.

Adding a command family is adding a module with ``COMMANDS`` (tables) and/or ``CUSTOM``
(name -> function of a :class:`Call`) and listing it here.
"""

from __future__ import annotations

from collections.abc import Callable

from . import archive, awk, fileops, files, find, git, grep, info, jq, launchers, network, sed, shell, text
from .refused import REFUSED
from .spec import Call, Command, Finding

Custom = Callable[[Call], list[Finding]]

_MODULES = (text, files, grep, sed, awk, jq, shell, info, archive, fileops, network, git, launchers)


def _build() -> dict[str, Command | Custom]:
    table: dict[str, Command | Custom] = {}
    for mod in _MODULES:
        for cmd in getattr(mod, "COMMANDS", ()):
            for name in (cmd.name, *cmd.aliases):
                if name in table:
                    raise ValueError(f"command {name!r} defined twice")
                table[name] = cmd
        for name, fn in getattr(mod, "CUSTOM", {}).items():
            if name in table:
                raise ValueError(f"command {name!r} defined twice")
            table[name] = fn
    table["find"] = find.check
    return table


TABLE: dict[str, Command | Custom] = _build()


def lookup(name: str) -> Command | Custom | None:
    return TABLE.get(name)


def refusal(name: str) -> str | None:
    """A plain-words reason for a well-known command that is never read-only."""
    return REFUSED.get(name)
