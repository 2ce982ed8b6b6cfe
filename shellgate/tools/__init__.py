"""Drop-in tools built on the gate and the sandbox: :class:`BashTool`."""

from __future__ import annotations

from .bash_tool import BashResult, BashTool

__all__ = ["BashResult", "BashTool"]
