"""Dangerous paths: the harness's forced prompt, whatever the mode (SPEC §5 step 3).

Two classes (``shellgate.bash.paths``): **leak** — reading leaks a secret into the
conversation, writing replaces a credential (``~/.ssh/id_*``, ``~/.aws/credentials``,
``.netrc``, ``.env`` …), read or write; **implant** — one write makes code run later (shell
rc files, ``.git/hooks/``, ``.gitconfig``, ``.mcp.json``, ``.shellgate/`` …), writes only.

A hit bypasses mode auto-allow and stored approvals, offers only Allow once / Deny (so an
"always" can never become a standing back door) and, with nobody to ask, denies. It is never
a hard deny: "look at my ~/.ssh/config to debug auth" is a fair request with a user present.
Bash is special: its paths hide in the command string, so the bash core's scanner reads the
path tokens of every executed command (``cat ~/.ssh/id_rsa`` would otherwise pass as a
read-only ``cat``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..bash.facts import Context, PathClass, PathOp, SensitiveHit
from .classifier import BASH_TOOLS, file_paths

_VERB = {PathOp.READ: "reads", PathOp.WRITE: "writes"}
# A ``watched`` pattern: a read rule's, or one of shellgate's own files (``RuleSet.own``).
WATCHED = "named by a read rule of the policy, or a file shellgate itself reads"
_WHY = {PathClass.LEAK: "a secret or credential", PathClass.IMPLANT: "a file that runs code later"}


def relevant(hits: Iterable[SensitiveHit]) -> list[SensitiveHit]:
    """Leak hits for any operation; implant hits when written, or when the command runs the
    program such a file names (``git fetch`` with ``core.sshCommand`` in the repository's
    config: op ``EXEC``)."""
    return [h for h in hits if h.cls is PathClass.LEAK or h.op is not PathOp.READ]


def _part(h: SensitiveHit, watched: tuple[str, ...]) -> str:
    if h.op is PathOp.EXEC:  # the pattern says what runs: "core.sshcommand runs a command …"
        return f"runs what {h.path} names: {h.pattern}"
    why = WATCHED if h.pattern in watched else _WHY.get(h.cls, h.cls)
    return f"{_VERB.get(h.op, 'touches')} {h.path} ({why})"


def describe(hits: Iterable[SensitiveHit], watched: tuple[str, ...] = ()) -> str:
    """The hits in words; ``watched``: the context's rule patterns (``Context.watched``)."""
    parts = [_part(h, watched) for h in hits]
    return "; ".join(dict.fromkeys(parts))


def dangerous_hits(tool: str, args: Any, ctx: Context, analysis: Any = None) -> list[SensitiveHit]:
    """The sensitive hits of one call. ``tool`` is the snake-case tool name."""
    if tool in BASH_TOOLS:
        if analysis is None:
            return []
        return relevant(analysis.sensitive)
    accesses = file_paths(tool, args)
    if not accesses:
        return []
    from ..bash.paths.resolve import check_path, check_search

    hits = []
    for a in accesses:  # a search is checked over the tree it reads, as `grep -r` is
        hit = check_path(a.path, a.op, ctx) if a.below is None else check_search(a.path, a.below, ctx)
        if hit is not None:
            hits.append(hit)
    return relevant(hits)


def check_dangerous_path(tool: str, args: Any, ctx: Context, analysis: Any = None) -> str:
    """The reason to force a prompt, or ``""`` when no dangerous path is touched."""
    hits = dangerous_hits(tool, args, ctx, analysis)
    return f"sensitive path: {describe(hits, ctx.watched)}" if hits else ""
