"""The records the kernel exchanges with a harness: Request, Metadata, Decision, Prompt.

A harness fills :class:`Metadata` (what the call may do, in kernel terms) and sends a
:class:`Request`; the kernel answers with a :class:`Decision` that says which step of the
chain decided (``rule``), why (``reason``) and where the allow came from (``source``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .._record import field, record
from ..bash.facts import PathOp
from .modes import Capability, DecisionKind


@record
class PathAccess:
    """One file the call reads or writes, as the harness found it (absolute or cwd-relative).
    ``resolved`` false: the path is only known when the call runs (``rm -rf $(dirname $PWD)``);
    ``path`` is then its spelling, and the kernel counts it as outside the roots.
    ``below``: the call is a search (Grep, Glob, ``read_many_files``) that reads every file
    under ``path`` (a directory, or one file) that this glob, relative to ``path``, may match
    (``**``: all of them); path rules and the sensitive-path table then apply to that whole
    tree, not to ``path`` alone."""

    path: str
    op: PathOp = PathOp.READ
    resolved: bool = True
    below: str | None = None


@record
class Metadata:
    """What a call may do, in the kernel's words.

    The first three fields are what a tool may announce about itself through
    ``permission_metadata()``; the rest is filled by the harness's classifier.

    ``command`` is a shell command line the call will run: rules written ``Tool(cmd *)`` and
    stored approvals match its executed sub-commands (parsed with ``shellgate.bash``; pass
    ``script`` when it is already parsed). ``readonly_commands`` are indices into
    ``script.commands`` known to be read-only: an allow rule need not cover those.
    ``shadowed`` are indices of commands a persistent session changes (a function or alias of
    their name, a variable it carries): no allow rule or stored approval may cover those.
    ``paths_complete`` says ``paths`` lists *every* file the call touches (true for file tools,
    never for bash) — only then may the internal-paths step allow silently.
    ``persistable`` false forbids remembering an answer (dangerous path, unparsed command).
    """

    capability: Capability | None = None
    key: str = ""
    summary: str = ""
    command: str | None = None
    script: Any = field(default=None, compare=False, repr=False)
    readonly_commands: frozenset[int] = frozenset()
    shadowed: frozenset[int] = frozenset()
    paths: tuple[PathAccess, ...] = ()
    paths_complete: bool = False
    hosts: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    sensitive: tuple[str, ...] = ()
    persistable: bool = True


@record
class Request:
    """One tool call as the kernel sees it. ``workspace`` / ``cwd`` are set by the harness
    (the live cwd of the call wins over the start-up one); ``None`` means the engine's own."""

    tool_id: str = ""
    tool_name: str = ""
    args: Mapping[str, Any] = field(default_factory=dict)
    preview: str | None = None
    metadata: Metadata = field(default_factory=Metadata)
    workspace: str | None = None
    cwd: str | None = None
    session_id: str | None = None


@record
class Decision:
    """The kernel's answer.

    ``rule`` names the step that decided (``chain.deny_rule``, ``chain.outside_roots``,
    ``chain.mode_matrix``, ``approval.dangerous_path`` …); ``matched`` the user rules or
    stored prefixes involved; ``source`` where the answer came from (``mode``, ``rule``,
    ``store``, ``session``, ``skill``, ``user``, ``user_reject``, ``no_approver`` …).
    ``kind`` is ``ASK`` only when nobody could be asked and the engine was told to report
    asks rather than deny them (``ask_as_deny=False``, e.g. ``shellgate check``).
    """

    kind: DecisionKind
    reason: str
    rule: str = ""
    source: str = ""
    matched: tuple[str, ...] = ()
    capability: Capability | None = None
    warnings: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()
    asked: bool = False

    def allowed(self) -> bool:
        return self.kind.allowed

    @property
    def step(self) -> str:
        """Alias of ``rule``: the chain step that decided."""
        return self.rule

    @property
    def verdict(self) -> str:
        """``allow`` / ``ask`` / ``deny`` — the SPEC §7 ``decision`` key."""
        if self.kind.allowed:
            return "allow"
        return "ask" if self.kind is DecisionKind.ASK else "deny"


FULL_CHOICES = (DecisionKind.ALLOW_ONCE, DecisionKind.ALLOW_SESSION, DecisionKind.ALLOW_ALWAYS,
                DecisionKind.DENY)
LIMITED_CHOICES = (DecisionKind.ALLOW_ONCE, DecisionKind.DENY)


@record
class Prompt:
    """What an approver is shown. ``choices`` are the only answers that will be honoured: a
    stronger allow is lowered to the strongest offered one. ``remember`` tells what an
    "always" answer would store (token prefixes or a key), so the user sees its reach.
    ``command``: the exact text a command call runs, shown whole (``summary`` is a one-line
    digest for reasons and logs: whitespace folded, cut at 200 characters, so it may read as
    another command than the one that runs)."""

    tool: str
    summary: str
    preview: str | None = None
    warnings: tuple[str, ...] = ()
    choices: tuple[DecisionKind, ...] = FULL_CHOICES
    reason: str = ""
    capability: Capability | None = None
    remember: tuple[str, ...] = ()
    command: str | None = None


Approver = Callable[[Prompt], DecisionKind]
"""The harness's callback: shown a :class:`Prompt`, returns the user's answer."""
