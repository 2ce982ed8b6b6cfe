"""The readings a campaign executes under: which shell runs the line, what ``sh`` and ``awk`` are.

shellgate reads every command line as bash, every ``sh -c`` script as both bash and dash, every
awk program both ways where ``/`` may be a regex or a division, and refuses what zsh would
expand differently from bash. A campaign proves one of those readings at a time: the oracle
runs the generated line with that dialect's shell, with that dialect's ``sh``/``awk`` first on
PATH, and the generator leans towards the text where the dialect differs (the ``focus``).

=========  ======================  ==============================  ===============================
dialect    the line runs in        first on PATH                   the generator leans towards
=========  ======================  ==============================  ===============================
bash       ``bash --norc -c``      (the system's)                  everything
zsh        ``zsh -f -c``           (the system's)                  zsh-only words (qualifiers, =cmd)
dash       ``bash --norc -c``      ``sh`` = dash                   lines wrapped in ``sh -c``
mawk       ``bash --norc -c``      ``awk`` = mawk                  awk programs, ``/`` both ways
gawk       ``bash --norc -c``      ``awk`` = gawk                  awk programs, ``/`` both ways
=========  ======================  ==============================  ===============================
"""

from __future__ import annotations

import shutil
from enum import StrEnum

from .._record import field, record


class Focus(StrEnum):
    ALL = "all"
    ZSH = "zsh"
    SH = "sh"
    AWK = "awk"


@record
class Dialect:
    name: str
    shell: tuple[str, ...]                                   # argv before the line
    links: dict[str, str] = field(default_factory=dict)      # name on PATH -> program it runs
    focus: Focus = Focus.ALL

    def missing(self) -> list[str]:
        """The programs this dialect needs that this machine lacks."""
        return [p for p in (self.shell[0], *self.links.values()) if shutil.which(p) is None]


_BASH = ("bash", "--norc", "--noprofile", "-c")

DIALECTS: dict[str, Dialect] = {d.name: d for d in (
    Dialect("bash", _BASH),
    Dialect("zsh", ("zsh", "-f", "-c"), focus=Focus.ZSH),
    Dialect("dash", _BASH, {"sh": "dash"}, Focus.SH),
    Dialect("mawk", _BASH, {"awk": "mawk"}, Focus.AWK),
    Dialect("gawk", _BASH, {"awk": "gawk"}, Focus.AWK),
)}
