"""The fuzzer runs nothing outside its sandbox: not the fuzzed commands, not the ``--help``
harvest of the policy's programs (issue 21).

Planted programs record that they ran (a marker file outside /tmp, which the sandbox replaces)
or announce themselves in their help text; neither may ever be seen.
"""

from __future__ import annotations

import importlib
import io
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from shellgate.fuzz import flags, oracle
from shellgate.fuzz.flags import harvest_all
from shellgate.fuzz.oracle import OracleUnavailable, sandbox_binary

HAVE_BWRAP = bool(shutil.which("bwrap", path="/usr/bin:/bin"))


@pytest.fixture
def outside_tmp() -> Iterator[Path]:
    """A scratch dir outside /tmp (the harvest sandbox mounts its own /tmp)."""
    d = Path(tempfile.mkdtemp(prefix="shellgate-test-", dir="/var/tmp"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


def _plant(bindir: Path, name: str, marker: Path) -> Path:
    bindir.mkdir(parents=True, exist_ok=True)
    prog = bindir / name
    prog.write_text(f"#!/bin/sh\necho ran >> '{marker}'\necho '  --planted-by-path  run me'\n")
    prog.chmod(0o755)
    return prog


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch, outside_tmp: Path) -> Path:
    """bwrap unavailable (PATH without it, and the trusted lookup finding none); the policy's
    programs planted on PATH. Returns the marker they write when run."""
    marker = outside_tmp / "ran-unsandboxed"
    bindir = outside_tmp / "bin"
    for name in ("planted-tool", "sort"):
        _plant(bindir, name, marker)
    monkeypatch.setenv("PATH", f"{bindir}:{os.path.dirname(shutil.which('python3') or '')}")
    probe_module = importlib.import_module("shellgate.sandbox.probe")  # the package exports probe()
    monkeypatch.setattr(probe_module, "find_bwrap", lambda: ([], ["bwrap removed by test"]))
    return marker


def _policy(outside_tmp: Path) -> Path:
    cfg = outside_tmp / "policy.toml"
    prog = outside_tmp / "bin" / "planted-tool"
    cfg.write_text(f'[permissions]\nallow = ["Bash({prog} *)", "Bash(planted-tool *)", '
                   '"Bash(sort *)"]\n')
    return cfg


def test_fuzz_command_refuses_before_running_anything(no_bwrap: Path, outside_tmp: Path) -> None:
    from shellgate.cli import main

    cfg = _policy(outside_tmp)
    err = io.StringIO()
    with pytest.raises(SystemExit) as exc, pytest.MonkeyPatch.context() as mp:
        mp.setattr("sys.stderr", err)
        main(["fuzz", "--seconds", "1", "--jobs", "1", "--config", str(cfg)])
    assert not no_bwrap.exists(), "a policy program ran unsandboxed: " + no_bwrap.read_text()
    assert exc.value.code == 2
    assert "refusing to run anything outside a sandbox" in " ".join(err.getvalue().split())


def test_harvest_refuses_without_bwrap(no_bwrap: Path, outside_tmp: Path) -> None:
    with pytest.raises(OracleUnavailable, match="refusing"):
        harvest_all([(str(outside_tmp / "bin" / "planted-tool"),), ("sort",)], cache=False)
    with pytest.raises(OracleUnavailable):
        flags.harvest(("sort",))
    with pytest.raises(OracleUnavailable):
        oracle.Oracle()
    assert not no_bwrap.exists()


@pytest.mark.skipif(not HAVE_BWRAP, reason="bwrap not installed")
def test_harvest_asks_only_system_programs(monkeypatch: pytest.MonkeyPatch,
                                           outside_tmp: Path) -> None:
    """A ``sort`` planted first on PATH answers nothing: the sandbox's PATH is the system's,
    and a rule's path (``./x``, ``/abs/x``) is never run."""
    marker = outside_tmp / "ran"
    bindir = outside_tmp / "bin"
    planted = _plant(bindir, "sort", marker)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    got = harvest_all([("sort",), (str(planted),)], cache=False)
    assert "--planted-by-path" not in {f.name for u in got.values() for f in u.flags}
    assert "--output" in {f.name for f in got[("sort",)].flags}
    assert got[(str(planted),)].flags == ()
    assert not marker.exists()


@pytest.mark.skipif(not HAVE_BWRAP, reason="bwrap not installed")
def test_harvest_hides_home_and_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                outside_tmp: Path) -> None:
    home = outside_tmp / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("CANARY-KEY-1234\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "CANARY-ENV-5678")
    out = flags._run(["/bin/sh", "-c", f'cat {home}/.ssh/id_rsa; [ -e {home}/.ssh ] && echo SEEN; '
                      'echo "HOME=$HOME" "$(ls -A "$HOME" | wc -l)"; env'], sandbox_binary())
    assert "CANARY-KEY-1234" not in out and "SEEN" not in out, out
    assert "CANARY-ENV-5678" not in out, out
    assert "HOME=/tmp/home 0" in out  # an empty fake home
