"""Set-up several test modules share: throwaway git workspaces, fake homes, sandboxes, and a
fixed-answer approver.

Imported as ``from _helpers import …`` (pytest puts tests/ on ``sys.path``, as for conftest).
Plain functions, not fixtures: each module keeps its own fixtures and their scope.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from shellgate.permission import DecisionKind


def git_workspace(ws: Path, commit: tuple[str, str] | None = None) -> Path:
    """A new git repository at ``ws`` (branch main) with a pre-commit hook the sandbox must keep
    read-only; with ``commit=(name, text)`` that file is committed under a test identity."""
    ws.mkdir()
    subprocess.run(["git", "init", "-q", "-b", "main", str(ws)], check=True)
    (ws / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    if commit is not None:
        for k, v in (("user.email", "t@example.invalid"), ("user.name", "t")):
            subprocess.run(["git", "-C", str(ws), "config", k, v], check=True)
        name, text = commit
        (ws / name).write_text(text)
        subprocess.run(["git", "-C", str(ws), "add", name], check=True)
        subprocess.run(["git", "-C", str(ws), "commit", "-qm", "init", "--no-verify"], check=True)
    return ws


def home_with_key(home: Path, key: str) -> Path:
    """A HOME at ``home`` whose ``~/.ssh/id_rsa`` holds ``key`` (a canary no command may read)."""
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(key)
    return home


def agent_project(root: Path, subdir: str, readme: str, key: str) -> tuple[Path, Path]:
    """What an agent integration runs in: ``root/work`` (``git init``, a README.md and an empty
    ``subdir``) and a fake HOME ``root/home`` with an SSH key."""
    work = root / "work"
    (work / subdir).mkdir(parents=True)
    (work / "README.md").write_text(readme)
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    return work, home_with_key(root / "home", key)


class Approver:
    """An approver that always gives ``answer`` and keeps every prompt it was shown."""

    def __init__(self, answer: Any = DecisionKind.ALLOW_ONCE) -> None:
        self.answer, self.prompts = answer, []

    def __call__(self, prompt: Any) -> Any:
        self.prompts.append(prompt)
        return self.answer


def sandbox_or_skip(tier: str) -> Any:
    """The sandbox for a test's tier name — a tier, or ``bwrap-fresh`` for bwrap started afresh
    per command (plain ``bwrap`` is pre-spawned) — or the test is skipped with the reason the
    machine lacks that tier."""
    from shellgate.sandbox import Sandbox, SandboxUnavailable

    name, _, variant = tier.partition("-")
    try:
        return Sandbox(name, prespawn=variant != "fresh")
    except SandboxUnavailable as exc:
        pytest.skip(f"{name} tier unavailable here: {exc}")


def world_policy(world: dict[str, Path], **kw: Any) -> Any:
    """The sandbox policy for a test world: its workspace ``ws`` and fake ``home``."""
    from shellgate.sandbox import build_policy

    return build_policy(world["ws"], home=world["home"], **kw)
