"""``helpforms``: a help form is read-only only when PATH finds an ELF binary, as measured; a
console script of the same name (PyPI's cmake, ninja, shfmt: Python start-up runs a venv's
``.pth`` files) or a relative PATH entry makes it ask."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context


def _ctx(tmp_path: Path) -> Context:
    return Context(cwd=tmp_path, workspace=tmp_path, home=tmp_path)


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_an_elf_binary_on_path_is_read_only(tmp_path: Path) -> None:
    assert analyse("make --version", _ctx(tmp_path)).readonly


# Help forms of programs not on every machine (gcc, make, ld are corpus/readonly.jsonl lines).
INSTALLED_HERE = ["cmake --version", "ninja --version", "lxc-stop --help", "partclone.ext4 --help",
                  "acpi_listen -h", "busybox --help", "pw-cli --version", "cbonsai --help"]


@pytest.mark.parametrize("cmd", INSTALLED_HERE)
def test_a_measured_form_of_an_installed_program_is_read_only(cmd: str, tmp_path: Path) -> None:
    if shutil.which(cmd.split()[0]) is None:
        pytest.skip(f"{cmd.split()[0]} is not installed")
    a = analyse(cmd, _ctx(tmp_path))
    assert a.readonly, [r.message for r in a.reasons]


def test_a_script_first_on_path_is_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "venv-bin"
    bin_dir.mkdir()
    script = bin_dir / "cmake"
    script.write_text("#!/usr/bin/python3\nimport sys\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    a = analyse("cmake --version", _ctx(tmp_path))
    assert not a.readonly and "script" in a.reasons[0].message


@pytest.mark.parametrize("path", ["bin:/usr/bin:/bin", ":/usr/bin:/bin", "/nonexistent"])
def test_a_relative_or_missing_path_is_not(path: str, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", path)
    assert not analyse("make --version", _ctx(tmp_path)).readonly
