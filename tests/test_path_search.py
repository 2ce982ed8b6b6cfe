"""``commands/pathsearch``: bash runs what its PATH search finds, and the gate's checks look at
the gate's own environment. An empty or relative PATH entry searched before a program's own
directory runs a file of the workspace; a run without PATH (``env -i``) searches bash's default,
which ends in ``.``; a version form is read-only only when PATH finds an ELF binary (a pyenv or
asdf shim is a script). Real bash is the oracle: each refused form really runs the planted file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from shellgate.bash.analysis import analyse
from shellgate.bash.commands.pathsearch import BASH_DEFAULT_PATH, BUILTINS, not_elf
from shellgate.bash.facts import Context

BASH = shutil.which("bash")
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def _ctx(tmp_path: Path) -> Context:
    return Context(cwd=tmp_path, workspace=tmp_path, home=tmp_path / "home")


def _plant(tmp_path: Path, name: str) -> Path:
    """An executable ``./name`` that leaves a canary when it runs."""
    canary = tmp_path / f"ran-{name}"
    script = tmp_path / name
    script.write_text(f"#!/bin/sh\ntouch {canary}\n")
    script.chmod(0o755)
    return canary


def _bash(cmd: str, cwd: Path, env: dict[str, str]) -> None:
    subprocess.run(["/bin/bash", "-c", cmd], cwd=cwd, env=env, capture_output=True, timeout=30)


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
def test_bash_default_path_is_bashs_own() -> None:
    out = subprocess.run(["/usr/bin/env", "-i", "/bin/bash", "-c", 'printf %s "$PATH"'],
                         capture_output=True, text=True, timeout=30).stdout
    assert out == BASH_DEFAULT_PATH


# (command, name planted in the cwd, the PATH the gate and bash both have)
RELATIVE = [
    ("tree", "tree", f":{SYSTEM_PATH}"),
    ("shellgate-nowhere --help", "shellgate-nowhere", f"{SYSTEM_PATH}:."),
    ("wc -l a", "wc", f"bin:{SYSTEM_PATH}"),
]


@pytest.mark.skipif(BASH is None, reason="bash is not installed")
@pytest.mark.parametrize(("cmd", "name", "path"), RELATIVE)
def test_a_relative_path_entry_first_is_not_read_only(cmd: str, name: str, path: str, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    where = tmp_path / "bin" if path.startswith("bin:") else tmp_path
    where.mkdir(exist_ok=True)
    canary = _plant(where, name)
    (tmp_path / "a").write_text("x\n")
    monkeypatch.setenv("PATH", path)
    a = analyse(cmd, _ctx(tmp_path))
    assert not a.readonly
    _bash(cmd, tmp_path, {"PATH": path})   # the relative entry comes first, or alone holds it
    assert canary.exists(), "bash did not run the planted file: the oracle no longer shows the hole"


def test_an_absolute_path_finds_the_system_program(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _plant(tmp_path, "wc")
    (tmp_path / "a").write_text("x\n")
    monkeypatch.setenv("PATH", SYSTEM_PATH)
    assert analyse("wc -l a", _ctx(tmp_path)).readonly
    monkeypatch.setenv("PATH", f"{SYSTEM_PATH}:.")   # `.` last: wc is found in /usr/bin first
    assert analyse("wc -l a", _ctx(tmp_path)).readonly


# A wrapper that runs its command without PATH (or without what the other checks read).
CLEARED = ["env -i bash -c tree", "env -u PATH bash -c tree", "env --unset=PATH bash -c tree",
           "exec -c bash -c tree", "env -i tree", "env -u GIT_CONFIG_GLOBAL git status",
           "env -i git status"]


@pytest.mark.skipif(BASH is None or shutil.which("tree", path=SYSTEM_PATH) is not None,
                    reason="needs bash, and no tree in the system dirs (bash would run that one)")
def test_env_i_bash_runs_a_file_of_the_cwd(tmp_path: Path) -> None:
    canary = _plant(tmp_path, "tree")
    _bash("env -i bash -c tree", tmp_path, {"PATH": SYSTEM_PATH})
    assert canary.exists()


@pytest.mark.parametrize("cmd", CLEARED)
def test_a_cleared_environment_is_not_read_only(cmd: str, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", SYSTEM_PATH)
    a = analyse(cmd, _ctx(tmp_path))
    assert not a.readonly and any("environment" in r.message for r in a.reasons), \
        [r.message for r in a.reasons]


def test_no_path_at_all_searches_the_cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A program of the read-only tables that bash's default directories lack is looked up in
    `.`, the default's last entry."""
    from shellgate.bash.commands import registry

    system = BASH_DEFAULT_PATH.rsplit(":", 1)[0]
    missing = (n for n in sorted(registry.full_table())
               if n.isalnum() and n not in BUILTINS and not shutil.which(n, path=system))
    name = next(missing, None)
    if name is None:
        pytest.skip("every program of the tables is installed in bash's default directories")
    monkeypatch.delenv("PATH")
    a = analyse(f"{name} --version", _ctx(tmp_path))
    assert not a.readonly and "relative directory (.)" in a.reasons[0].message, [r.message for r in a.reasons]
    assert analyse("echo hi", _ctx(tmp_path)).readonly   # a builtin: no search


def _shim_dir(tmp_path: Path, name: str, elf: bool) -> Path:
    d = tmp_path / ("elf" if elf else "shims")
    d.mkdir()
    if elf:
        (d / name).symlink_to(os.path.realpath(sys.executable))
    else:   # what pyenv writes: a bash script that execs its manager
        (d / name).write_text('#!/usr/bin/env bash\nexec pyenv exec "${0##*/}" "$@"\n')
        (d / name).chmod(0o755)
    return d


@pytest.mark.parametrize("cmd", ["python3 --version", "python3 -VV", "python -V"])
def test_a_version_form_needs_the_binary(cmd: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = cmd.split()[0]
    monkeypatch.setenv("PATH", f"{_shim_dir(tmp_path, name, elf=False)}:{SYSTEM_PATH}")
    a = analyse(cmd, _ctx(tmp_path))
    assert not a.readonly and "is a script" in a.reasons[0].message
    monkeypatch.setenv("PATH", f"{_shim_dir(tmp_path, name, elf=True)}:{SYSTEM_PATH}")
    assert analyse(cmd, _ctx(tmp_path)).readonly


# Version forms of the interpreters, where PATH finds the binary (moved from corpus/readonly.jsonl:
# on a machine whose python3 is a pyenv shim they ask, as they should).
VERSION_FORMS = ["python3 --version", "python -V", "node --version", "python3 -VV", "node -v"]


@pytest.mark.parametrize("cmd", VERSION_FORMS)
def test_version_forms_where_path_finds_the_binary(cmd: str, tmp_path: Path) -> None:
    if (why := not_elf(cmd.split()[0])) is not None:
        pytest.skip(why)
    a = analyse(cmd, _ctx(tmp_path))
    assert a.readonly, [r.message for r in a.reasons]
