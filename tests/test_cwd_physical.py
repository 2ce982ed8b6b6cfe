"""The directories a command may run in, as programs see them (``classify.candidate_cwds``).

bash's ``$PWD`` keeps the symlinks a logical ``cd`` went through, but a program asks the kernel:
``getcwd()`` is the physical path, a relative ``..`` goes up from it, and tools that walk up
for their configuration (rustup's ``rust-toolchain.toml``) walk the physical parents. And a
relative ``cd`` target is looked up in ``$CDPATH`` first. Real bash is the oracle for where a
``cd`` lands and what a ``..`` opens."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

SECRET = "CANARY-physical-7d2e"


@pytest.fixture
def world(tmp_path: Path) -> tuple[Path, Path]:
    base = Path(os.path.realpath(tmp_path))
    home, ws = base / "home", base / "ws"
    (home / ".aws" / "cli").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text(f"{SECRET}\n")
    (ws / "tools" / "sub").mkdir(parents=True)
    (ws / "link").symlink_to(home / ".aws" / "cli")   # a checkout may hold any symlink
    (ws / "tlink").symlink_to(ws / "tools" / "sub")
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    return ws, home


def _bash(cmd: str, cwd: Path, home: Path, **env: str) -> str:
    return subprocess.run(["/bin/bash", "-c", cmd], cwd=cwd, capture_output=True, text=True, timeout=30,
                          env={"PATH": os.environ["PATH"], "HOME": str(home), **env}).stdout


def test_dotdot_after_a_symlinked_cd_goes_up_the_physical_path(world: tuple[Path, Path]) -> None:
    ws, home = world
    cmd = "cd link && cat ../credentials"
    assert SECRET in _bash(cmd, ws, home)              # what bash really prints
    a = analyse(cmd, Context(cwd=ws, workspace=ws, home=home))
    assert not a.readonly and any(h.cls.value == "leak" for h in a.sensitive), [r.message for r in a.reasons]


def test_a_symlinked_cwd_is_also_its_physical_path(world: tuple[Path, Path]) -> None:
    ws, home = world
    assert SECRET in _bash("cat ../credentials", ws / "link", home)
    a = analyse("cat ../credentials", Context(cwd=ws / "link", workspace=ws, home=home))
    assert not a.readonly


def test_a_tool_walking_up_for_its_config_sees_the_physical_parents(world: tuple[Path, Path]) -> None:
    """rustup's proxy finds ``tools/rust-toolchain.toml`` from ``tlink`` (= tools/sub)."""
    ws, home = world
    (ws / "tools" / "rust-toolchain.toml").write_text('[toolchain]\npath = "/nonexistent"\n')
    assert _bash("cd tlink && pwd -P", ws, home).strip() == str(ws / "tools" / "sub")
    for cmd in ("cd tlink && cargo --version", "cd tlink; rustc -V", "pushd tlink && cargo -V"):
        a = analyse(cmd, Context(cwd=ws, workspace=ws, home=home))
        assert not a.readonly and any("rust-toolchain" in r.message for r in a.reasons), cmd
    assert not analyse("cargo --version", Context(cwd=ws / "tlink", workspace=ws, home=home)).readonly


def test_cdpath_is_searched_first(world: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    ws, home = world
    (ws / ".aws").mkdir()   # the workspace has its own `.aws`: bash still goes to CDPATH's first
    assert _bash("cd .aws >/dev/null && cat credentials", ws, home, CDPATH=str(home)).strip() == SECRET
    monkeypatch.setenv("CDPATH", str(home))
    a = analyse("cd .aws && cat credentials", Context(cwd=ws, workspace=ws, home=home))
    assert not a.readonly and any(h.cls.value == "leak" for h in a.sensitive)
    assert str(home / ".aws" / "credentials") in {h.path for h in a.sensitive}
    monkeypatch.delenv("CDPATH")
    # without CDPATH it is the workspace's own copy (a leak as well: a project's AWS keys)
    plain = analyse("cd .aws && cat credentials", Context(cwd=ws, workspace=ws, home=home))
    assert {h.path for h in plain.sensitive} == {str(ws / ".aws" / "credentials")}
