"""The restricted subprocess: run one bash command confined, bounded and fully reaped.

A mechanism, not a policy: callers (``shellgate.tools.BashTool``) decide whether a command
runs and hand over a :class:`Policy`; this package never imports the permission layer.
Tiers, probed once per process: ``bwrap`` > ``landlock`` (+ seccomp) > ``none``. Under bwrap,
commands are forked inside long-lived sandboxes, one per filesystem view (:mod:`.prespawn`);
``Sandbox(prespawn=False)`` starts a fresh bwrap per command instead.
"""

from __future__ import annotations

import importlib
from typing import Any

from .probe import Probe, Tier, probe

# Loaded on first use: a hook that only builds a confined line (enforce.py), usually from a
# remembered one, must not pay for the policy builder, the runner, the fork server and the job
# control it never uses. (``probe`` stays eager: the function shadows its module's name.)
_LAZY = {"ExecResult": "runner", "Sandbox": "runner", "SandboxUnavailable": "runner",
         "build_policy": "locations", "Limits": "policy", "Policy": "policy",
         "GitLayout": "worktree", "active_workspace": "worktree", "find_layout": "worktree"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    try:
        return importlib.import_module(f"{__name__}.{name}")  # `from shellgate.sandbox import jobs`
    except ModuleNotFoundError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


__all__ = [
    "ExecResult", "GitLayout", "Limits", "Policy", "Probe", "Sandbox", "SandboxUnavailable", "Tier",
    "active_workspace", "build_policy", "find_layout", "probe",
]
