"""The adapters' shared Shell: a caller's (the model's) timeout never exceeds the user's, and
every approval question says where the command would run."""

from __future__ import annotations

import math

import pytest

from shellgate.integrations._shell import Shell

# (asked for, what runs) with the user's limit at 5 s; None: the user's default applies.
CASES = [(None, None), (1.5, 1.5), (5, 5), (600, 5), (math.inf, 5), (0, 5), (-3, 5),
         (math.nan, 5)]


@pytest.mark.parametrize(("asked", "runs"), CASES, ids=str)
def test_clamp_timeout(tmp_path, asked, runs) -> None:
    with Shell(tmp_path, timeout=5, sandbox="none") as shell:
        assert shell.clamp_timeout(asked) == runs


def test_clamp_uses_the_sandbox_section(tmp_path) -> None:
    cfg = tmp_path / "user.toml"
    cfg.write_text("[sandbox]\ntimeout = 7\n")
    with Shell(tmp_path, config=cfg, sandbox="none") as shell:
        assert shell.clamp_timeout(3600) == 7


def test_approver_is_told_the_cwd_and_workspace(tmp_path) -> None:
    (tmp_path / "prod" / "data").mkdir(parents=True)
    asked: list[str] = []

    def approver(pending) -> bool:
        asked.append(pending.prompt_text())
        return False

    with Shell(tmp_path) as shell:
        assert shell.run("cd prod").status == "ran"
        assert shell.run("rm -r data", approver=approver).status == "declined"
        assert "(prod/ inside the workspace)" in shell.preflight("rm -r data").prompt_text()
    assert len(asked) == 1
    assert f"Working directory: {tmp_path / 'prod'} (prod/ inside the workspace)" in asked[0]
    assert f"Workspace: {tmp_path}" in asked[0]
    assert (tmp_path / "prod" / "data").is_dir()
