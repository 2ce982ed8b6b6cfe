"""Worktree awareness: a worktree made with `git worktree add` becomes the workspace, commits
work in it (its gitdir lives in the main repository), and the main hooks/config stay protected."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from _helpers import git_workspace, sandbox_or_skip

from shellgate.sandbox import (
    Sandbox,
    active_workspace,
    build_policy,
    find_layout,
    prespawn,
)


@pytest.fixture(params=["bwrap", "bwrap-fresh", "landlock"])   # "bwrap": pre-spawned (default)
def confined(request: pytest.FixtureRequest) -> Sandbox:
    sb = sandbox_or_skip(request.param)
    before = set(prespawn.live_servers())
    yield sb
    sb.close()
    assert set(prespawn.live_servers()) <= before


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return git_workspace(tmp_path / "ws", commit=("a.txt", "a\n"))


def test_worktree_added_inside_the_sandbox_becomes_the_workspace(confined: Sandbox, repo: Path) -> None:
    home = repo.parent / "home"
    home.mkdir()
    r = confined.run("git worktree add -q wt/feature -b feature && cd wt/feature",
                     build_policy(repo, home=home))
    assert r.exit_code == 0, r
    wt = repo / "wt" / "feature"
    assert r.cwd == wt
    assert active_workspace(r.cwd, repo) == wt
    lay = find_layout(wt)
    assert lay is not None and lay.linked and lay.common == repo / ".git"

    policy = build_policy(active_workspace(r.cwd, repo), base=repo, home=home)
    hook = repo / ".git" / "hooks" / "pre-commit"
    before = (hook.read_bytes(), (repo / ".git" / "config").read_bytes())
    r = confined.run("echo b > b.txt && git add b.txt && git commit -qm b --no-verify && "
                     "git log --oneline | wc -l; echo evil >> ../../.git/hooks/pre-commit; "
                     "git config --local core.hooksPath /tmp", policy, cwd=r.cwd)
    assert r.stdout.split()[0] == "2", r           # the commit landed in the shared object store
    assert (hook.read_bytes(), (repo / ".git" / "config").read_bytes()) == before


def test_worktree_outside_the_workspace_can_commit_but_not_implant(confined: Sandbox, repo: Path) -> None:
    wt = repo.parent / "wt2"
    _git("worktree", "add", "-q", str(wt), "-b", "side", cwd=repo)
    assert active_workspace(wt / ".", repo) == wt
    home = repo.parent / "home"
    home.mkdir()
    hook = repo / ".git" / "hooks" / "pre-commit"
    before = hook.read_bytes()
    cmd = ("echo c > c.txt && git add c.txt && git commit -qm c --no-verify && echo COMMITTED; "
           f"echo evil >> {hook}; echo x > {repo}/main-file")
    # Without worktree awareness (only the original workspace writable) the commit fails…
    r = confined.run(cmd, build_policy(repo, home=home), cwd=wt)
    assert "COMMITTED" not in r.stdout
    # …with it, the commit works; the main repository's hooks stay protected.
    r = confined.run(cmd, build_policy(wt, base=repo, home=home), cwd=wt)
    assert "COMMITTED" in r.stdout, r
    assert hook.read_bytes() == before
    assert (repo / "main-file").exists()  # the original workspace stays writable (additive)


def test_unrelated_repository_does_not_become_the_workspace(repo: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    _git("init", "-q", cwd=other)
    assert active_workspace(other, repo) == repo
    assert active_workspace(tmp_path, repo) == repo
    assert active_workspace(repo / ".git", repo) == repo
