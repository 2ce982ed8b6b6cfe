"""``--`` read as each program reads it, with the installed programs as oracles.

A table that ends the options at ``--`` (``dashdash``, the default) must belong to a program
that does so: run in a directory holding a file named ``--help``, ``PROG -- --help`` must do
something else than ``PROG --help``. xxd has a reader of its own (``text._xxd``): after ``--``
the next two words are its input and output files (corpus/not_readonly.jsonl, class
``double-dash``).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from shellgate.bash.analysis import analyse
from shellgate.bash.commands import launchers, registry
from shellgate.bash.commands.spec import Command
from shellgate.bash.facts import Context, Effect

# the registry's tables, and the option tables of the wrappers (timeout, nice, env, xargs …)
_ALL = [*registry._build().items(), *((n, spec) for n, (spec, _, _) in launchers._SPECS.items())]
TABLES = sorted({name: spec for name, spec in _ALL
                 if isinstance(spec, Command) and not spec.free and spec.effect is Effect.READ
                 and shutil.which(name)}.items())


BWRAP = shutil.which("bwrap")


def _run(tmp: Path, *argv: str) -> tuple[object, ...]:
    """``argv`` run in ``tmp`` as nobody in fresh namespaces (``hostname X`` and ``date X``
    change the system when run as root: here they cannot), only ``tmp`` writable."""
    jail = [BWRAP or "bwrap", "--ro-bind", "/", "/", "--bind", str(tmp), str(tmp), "--chdir",
            str(tmp), "--unshare-all", "--uid", "65534", "--gid", "65534", "--die-with-parent"]
    try:
        p = subprocess.run([*jail, *argv], stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=10, check=False)
    except subprocess.TimeoutExpired:
        return ("timeout",)
    return p.returncode, p.stdout[:4000], p.stderr[:4000]


def test_some_tables_are_checked() -> None:
    """The oracle covers most tables (the programs of this machine)."""
    assert len(TABLES) >= 30


@pytest.mark.skipif(BWRAP is None or subprocess.run(
    [BWRAP or "bwrap", "--ro-bind", "/", "/", "--unshare-all", "--uid", "65534", "true"],
    capture_output=True, check=False).returncode != 0, reason="no usable bwrap")
@pytest.mark.parametrize(("name", "spec"), TABLES, ids=[n for n, _ in TABLES])
def test_double_dash_is_read_as_the_program_reads_it(tmp_path: Path, name: str,
                                                     spec: Command) -> None:
    tmp_path.chmod(0o777)  # nobody may write there (tee, touch)
    (tmp_path / "--help").write_text("x\n")
    ends_options = _run(tmp_path, name, "--help") != _run(tmp_path, name, "--", "--help")
    does = "does" if ends_options else "does not"
    assert spec.dashdash == ends_options, f"{name}: the program {does} end its options at --"


@pytest.mark.skipif(shutil.which("xxd") is None, reason="no xxd")
def test_xxd_writes_the_file_after_double_dash(tmp_path: Path) -> None:
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    (ws / "-l").write_text("41\n")
    cmd = "xxd -r -p -- -l out"
    subprocess.run(["bash", "-c", cmd], cwd=ws, capture_output=True, timeout=10, check=False)
    assert (ws / "out").read_text() == "A", "the oracle: xxd read -l and wrote out"
    assert not analyse(cmd, Context(cwd=ws, workspace=ws, home=home)).readonly
