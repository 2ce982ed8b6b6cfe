"""Records the bash analyses produce: reasons, warnings, sensitive-path hits, the effect.

Small frozen records that carry their source span, so that every verdict can say which token
and which rule decided (see ``shellgate explain``).
"""

from __future__ import annotations

from enum import StrEnum
from functools import lru_cache
from pathlib import Path

from .._record import record
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
    EXEC = "exec"    # a program the file names runs (a repository's git config or hooks)


@record
class Reason:
    """Why something is so: ``message`` in words for the user's prompt, ``rule`` as an id."""

    message: str
    span: Span | None
    rule: str


@record
class SensitiveHit:
    """A dangerous path touched: ``path`` as normalised, ``pattern`` the list entry it hit."""

    path: str
    cls: PathClass
    op: PathOp
    span: Span | None
    pattern: str


@record
class Inherited:
    """Shell state a persistent session carries into a command from earlier ones (restored
    in front of it by the bash tool): what the command's own text does not show.

    ``variables``: (name, value) of each shell or environment variable the session set or
    changed, value None for one it unset; ``exported`` the names among them that programs
    see. ``functions``: the names it defined. ``aliases``: alias names, only when the session
    also turned ``expand_aliases`` on (otherwise bash never expands them). ``path_dirs``: the
    directories the session's PATH searches before the sandbox's own PATH, which is
    otherwise unchanged (a venv's ``bin``); a PATH changed any other way is a variable."""

    variables: tuple[tuple[str, str | None], ...] = ()
    exported: frozenset[str] = frozenset()
    functions: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    path_dirs: tuple[str, ...] = ()


@record
class Context:
    """Where a command runs: the live cwd, the workspace (git worktree or project root) and
    the home directory used for ``~`` (a fake HOME in tests and fuzzing).

    ``scratch``: directories a write to is as harmless as one in the workspace — a bash
    tool's private ``/tmp``, which its sandbox keeps for the session and no one else sees. Only
    a caller whose sandbox really gives that (``BashTool``, the MCP server) sets them; a hook's
    command runs on the agent's host, where ``/tmp`` is shared.

    ``loopback``: the command runs in a network namespace of its own whose only interface is
    its loopback (``BashTool``'s bwrap sandbox), so ``127.0.0.1``/``localhost``/``::1`` there
    reach the sandbox's own servers and nothing else: a client whose every target is such a
    literal is no network access. False for a hook's command (the host's loopback reaches the
    host's services).

    ``watched``: more paths to treat as leak entries of the sensitive table, in its syntax
    (``~/…``, ``/…``, or a name anywhere): the caller's own policy's read rules, so that a
    command reading one — by name, by a glob, by a walk of a directory above it, through a
    link — is found as surely as a key is (a ``deny Read(~/private/**)`` stops
    ``grep -r x ~`` and ``cat ~/priv*/notes``). The bash core does not know why they are
    watched.

    ``inherited``: the state a persistent shell session carries into the command
    (:class:`Inherited`); None for a fresh shell.

    ``terminal``: the command's standard streams may be a terminal (a hook's command runs in
    the agent's shell, which may give it a pty). False only for a runner that surely gives
    none: ``BashTool``'s sandbox starts each command in a session of its own on pipes, so git
    never starts a pager there and ``core.pager`` runs nothing."""

    cwd: Path
    workspace: Path
    home: Path
    scratch: tuple[Path, ...] = ()
    loopback: bool = False
    watched: tuple[str, ...] = ()
    inherited: Inherited | None = None
    terminal: bool = True

    @classmethod
    def here(cls, cwd: str | Path | None = None, workspace: str | Path | None = None,
             home: str | Path | None = None, scratch: tuple[str | Path, ...] = (),
             loopback: bool = False, watched: tuple[str, ...] = (),
             inherited: Inherited | None = None, terminal: bool = True) -> Context:
        if type(cwd) is str and type(workspace) is str and type(home) is str \
                and cwd[:1] == workspace[:1] == home[:1] == "/" and not scratch and not loopback \
                and not watched and inherited is None and terminal:
            return _absolute_context(cwd, workspace, home)
        c = Path(cwd or Path.cwd()).absolute()
        return cls(cwd=c, workspace=Path(workspace).absolute() if workspace else c,
                   home=Path(home).absolute() if home else Path.home(),
                   scratch=tuple(Path(s).absolute() for s in scratch), loopback=loopback,
                   watched=tuple(watched), inherited=inherited, terminal=terminal)


@lru_cache(maxsize=64)
def _absolute_context(cwd: str, workspace: str, home: str) -> Context:
    """``Context.here`` of three absolute strings: a pure function of them (no cwd, no
    environment, no filesystem), so the harness, which asks once per call with the same few
    directories, need not build the same three ``Path`` objects every time."""
    return Context(cwd=Path(cwd), workspace=Path(workspace), home=Path(home))
