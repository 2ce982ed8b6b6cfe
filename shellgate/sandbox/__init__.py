"""The restricted subprocess: run one bash command confined, bounded and fully reaped.

A mechanism, not a policy: callers (``shellgate.tools.BashTool``) decide whether a command
runs and hand over a :class:`Policy`; this package never imports the permission layer.
Tiers, probed once per process: ``bwrap`` > ``landlock`` (+ seccomp) > ``none``. Under bwrap,
commands are forked inside long-lived sandboxes, one per filesystem view (:mod:`.prespawn`);
``Sandbox(prespawn=False)`` starts a fresh bwrap per command instead.
"""

from __future__ import annotations

from .locations import build_policy
from .policy import Limits, Policy
from .probe import Probe, Tier, probe
from .runner import ExecResult, Sandbox, SandboxUnavailable
from .worktree import GitLayout, active_workspace, find_layout

__all__ = [
    "ExecResult", "GitLayout", "Limits", "Policy", "Probe", "Sandbox", "SandboxUnavailable", "Tier",
    "active_workspace", "build_policy", "find_layout", "probe",
]
