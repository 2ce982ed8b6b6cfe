"""Records the bash analyses produce: reasons, warnings, sensitive-path hits, the effect.

Small frozen records that carry their source span, so that every verdict can say which token
and which rule decided (see ``shellgate explain``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from .ir import Span


class Effect(StrEnum):
    """The strongest thing a script may do, as the bash core sees it.

    The permission harness maps this onto its capabilities; the core knows nothing of modes.
    """

    READ = "read"        # read-only: every executed command is on the read-only lists
    WRITE = "write"      # only file operations whose targets all lie inside the workspace
    NETWORK = "network"  # talks to the network (curl, git fetch, ssh, …), nothing worse known
    EXEC = "exec"        # anything else, including everything not understood


class PathClass(StrEnum):
    LEAK = "leak"        # reading or writing leaks or replaces a secret
    IMPLANT = "implant"  # one write makes code run later


class PathOp(StrEnum):
    READ = "read"
    WRITE = "write"


@dataclass(frozen=True, slots=True)
class Reason:
    """Why something is so: ``message`` in words for the user's prompt, ``rule`` as an id."""

    message: str
    span: Span | None
    rule: str


@dataclass(frozen=True, slots=True)
class SensitiveHit:
    """A dangerous path touched: ``path`` as normalised, ``pattern`` the list entry it hit."""

    path: str
    cls: PathClass
    op: PathOp
    span: Span | None
    pattern: str


@dataclass(frozen=True, slots=True)
class Context:
    """Where a command runs: the live cwd, the workspace (git worktree or project root) and
    the home directory used for ``~`` (a fake HOME in tests and fuzzing)."""

    cwd: Path
    workspace: Path
    home: Path

    @classmethod
    def here(cls, cwd: str | Path | None = None, workspace: str | Path | None = None,
             home: str | Path | None = None) -> Context:
        c = Path(cwd or Path.cwd()).absolute()
        return cls(cwd=c, workspace=Path(workspace).absolute() if workspace else c,
                   home=Path(home).absolute() if home else Path.home())
