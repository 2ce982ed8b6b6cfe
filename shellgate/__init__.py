"""shellgate: a gate between an AI agent and bash.

``from shellgate import Gate, BashTool`` — both are imported lazily so that the hook path,
which needs neither the sandbox nor the CLI, stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["BashTool", "Gate", "Verdict", "__version__"]

if TYPE_CHECKING:
    from .check import Gate, Verdict
    from .tools import BashTool


def __getattr__(name: str) -> Any:
    if name in ("Gate", "Verdict"):
        from . import check

        return getattr(check, name)
    if name == "BashTool":
        from .tools import BashTool

        return BashTool
    raise AttributeError(f"module 'shellgate' has no attribute {name!r}")
