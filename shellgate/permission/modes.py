"""The kernel's vocabulary: modes, capabilities, decision kinds, and the mode × capability matrix.

The kernel knows capabilities, never tool names: a harness maps each tool call to a
:class:`Capability` and the matrix below (the last step of the chain, SPEC §4) turns a
mode and a capability into allow / ask / deny.
"""

from __future__ import annotations

from enum import StrEnum


class Mode(StrEnum):
    """How much the user lets through without being asked.

    ``AUTO`` is what the CLI spells ``accept-edits``: there is deliberately no
    ``ACCEPT_EDITS`` member (the write-up's "naming trap"), :func:`parse_mode` maps the
    spellings onto it.
    """

    STRICT = "strict"
    BALANCED = "balanced"
    AUTO = "auto"
    TRUST = "trust"


class Capability(StrEnum):
    READ = "read"          # no local side effect (read-only bash included)
    INTERNAL = "internal"  # the harness's own tools: skills, ask_user, task lists, plan exit …
    WRITE = "write"        # file edits inside the workspace
    EXEC = "exec"          # runs programs
    NETWORK = "network"    # talks to the network
    UNKNOWN = "unknown"    # a tool nobody classified: treated like exec
    HOOK = "hook"          # a hook command configured by a project or user


class Grant(StrEnum):
    """What an allowed command may do when it runs, for the sandbox to enforce (SPEC §9).

    The decision says *whether*; the grant says *how much*: a read-only verdict gets a
    read-only filesystem, anything else that was allowed gets the workspace (its implant paths
    still read-only), and only a network capability gets the network.
    """

    READ = "read"          # filesystem read-only, network off
    WRITE = "write"        # the workspace writable, network off
    NETWORK = "network"    # the workspace writable, network on

    @property
    def write(self) -> bool:
        return self is not Grant.READ

    @property
    def network(self) -> bool:
        return self is Grant.NETWORK


def grant_for(capability: Capability | str | None) -> Grant:
    """The grant an allowed call of ``capability`` runs under (exec and unknown: the
    workspace, as the restricted subprocess always gave them)."""
    cap = str(capability or "")
    if cap in (Capability.READ, Capability.INTERNAL):
        return Grant.READ
    return Grant.NETWORK if cap == Capability.NETWORK else Grant.WRITE


class DecisionKind(StrEnum):
    ALLOW = "allow"                  # decided without asking (mode, rule, store, …)
    ALLOW_ONCE = "allow_once"        # the user said yes, this call only
    ALLOW_SESSION = "allow_session"  # yes, and for the rest of this engine's life
    ALLOW_ALWAYS = "allow_always"    # yes, and persisted in the approval store
    DENY = "deny"
    ASK = "ask"                      # a prompt is needed but nobody can answer it here

    @property
    def allowed(self) -> bool:
        return self in _ALLOW_KINDS


_ALLOW_KINDS = frozenset({DecisionKind.ALLOW, DecisionKind.ALLOW_ONCE,
                          DecisionKind.ALLOW_SESSION, DecisionKind.ALLOW_ALWAYS})

_MODE_SPELLINGS: dict[str, Mode] = {
    "strict": Mode.STRICT,
    "balanced": Mode.BALANCED,
    "default": Mode.BALANCED,
    "auto": Mode.AUTO,
    "accept-edits": Mode.AUTO,
    "accept_edits": Mode.AUTO,
    "acceptedits": Mode.AUTO,
    "trust": Mode.TRUST,
}


def parse_mode(text: str | Mode) -> Mode:
    """``"accept-edits"``, ``"accept_edits"`` and ``"auto"`` all give :attr:`Mode.AUTO`.

    Raises ``ValueError`` naming the accepted spellings for anything else.
    """
    if isinstance(text, Mode):
        return text
    mode = _MODE_SPELLINGS.get(str(text).strip().lower())
    if mode is None:
        raise ValueError(f"unknown mode {text!r}: use strict, balanced, accept-edits (auto) or trust")
    return mode


class Verdict(StrEnum):
    """What one cell of the matrix says."""

    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


_A, _Q, _D = Verdict.ALLOW, Verdict.ASK, Verdict.DENY
_SIDE_EFFECTS = (Capability.EXEC, Capability.NETWORK, Capability.UNKNOWN, Capability.HOOK)

MATRIX: dict[Mode, dict[Capability, Verdict]] = {
    Mode.STRICT: {Capability.READ: _A, Capability.INTERNAL: _A, Capability.WRITE: _Q,
                  **dict.fromkeys(_SIDE_EFFECTS, _D)},
    Mode.BALANCED: {Capability.READ: _A, Capability.INTERNAL: _A, Capability.WRITE: _Q,
                    **dict.fromkeys(_SIDE_EFFECTS, _Q)},
    Mode.AUTO: {Capability.READ: _A, Capability.INTERNAL: _A, Capability.WRITE: _A,
                **dict.fromkeys(_SIDE_EFFECTS, _Q)},
    Mode.TRUST: {Capability.READ: _A, Capability.INTERNAL: _A, Capability.WRITE: _A,
                 **dict.fromkeys(_SIDE_EFFECTS, _A)},
}
"""SPEC §4, verbatim. Every (mode, capability) pair has a cell."""


def matrix_verdict(mode: Mode, capability: Capability, *, sandboxed: bool = True) -> Verdict:
    """The cell for ``mode`` × ``capability``.

    Without a sandbox (``sandboxed=False``, the sandbox tier ``none``) the classifier is the
    only boundary left, so trust no longer auto-allows exec / network / unknown / hook: those
    become ask (SPEC §6 "the engine becomes stricter").
    """
    verdict = MATRIX[mode][capability]
    if not sandboxed and verdict is Verdict.ALLOW and capability in _SIDE_EFFECTS:
        return Verdict.ASK
    return verdict
