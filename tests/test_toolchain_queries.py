"""Toolchain queries (corpus/toolchain_queries.jsonl, shellgate/bash/commands/toolchain.py).

The verdicts go through the real gate in a tree with hostile workspace config. The real tools
are the oracle: each read-only line with a ``probe`` runs under ``strace -f`` there and must exec
only itself and its toolchain, write nothing and connect nowhere; each ``shows`` line re-measures
what its refusal says (a rust-toolchain.toml ``path`` runs a workspace program, ``npm ls``
writes its log where a workspace .npmrc says, pip runs a venv's .pth files)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import load

from shellgate.check import Gate

CASES = load("toolchain_queries.jsonl")
STRACE = shutil.which("strace")
REAL_HOME = Path.home()
RUSTUP_HOME = Path(os.environ.get("RUSTUP_HOME", REAL_HOME / ".rustup"))
CARGO_HOME = Path(os.environ.get("CARGO_HOME", REAL_HOME / ".cargo"))


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = Path(os.path.realpath(tmp_path_factory.mktemp("toolchain")))
    ws, home = base / "ws", base / "home"
    plain, pinned = ws / "plain", ws / "pinned"
    for d in (plain / "sub", plain / "logs", pinned / "sub", pinned / "evil" / "bin", home):
        d.mkdir(parents=True)
    canary = ws / "canary.sh"
    canary.write_text(f"#!/bin/sh\necho ran >> {ws}/RAN\necho fake 1.0\n")
    canary.chmod(0o755)
    npmrc = (f"git={canary}\nscript-shell={canary}\nnode-options=--require {ws}/r.js\n"
             f"onload-script={ws}/r.js\nlogs-dir={plain}/logs\n")
    (ws / "r.js").write_text(f"require('fs').writeFileSync('{ws}/RAN', 'js')\n")
    (plain / ".npmrc").write_text(npmrc)
    (home / ".npmrc").write_text(npmrc)
    (plain / ".cargo").mkdir()
    (plain / ".cargo" / "config.toml").write_text(
        f'[build]\nrustc = "{canary}"\nrustc-wrapper = "{canary}"\n')
    for tool in ("cargo", "rustc"):
        shutil.copy(canary, pinned / "evil" / "bin" / tool)
    (pinned / "rust-toolchain.toml").write_text(f'[toolchain]\npath = "{pinned / "evil"}"\n')
    return ws, home


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['dir']}:{c['cmd']}")
def test_verdict(tree: tuple[Path, Path], case: dict) -> None:
    ws, home = tree
    verdict = Gate(ws, mode="balanced", home=home).check(case["cmd"], cwd=ws / case["dir"])
    assert (verdict.decision == "allow") == case["readonly"], verdict.to_json()
    if not case["readonly"]:
        assert verdict.to_json()["reasons"], "a refusal must say why"


def _env(home: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
            "RUSTUP_HOME": str(RUSTUP_HOME), "CARGO_HOME": str(CARGO_HOME), "LC_ALL": "C"}


_OK = re.compile(r"= \d+")


def _trace(argv: list[str], cwd: Path, home: Path, log: Path) -> list[str]:
    """The calls of every process (``-ff``: one file each, so no call is split in two)."""
    subprocess.run([STRACE or "strace", "-f", "-ff", "-qq", "-e",
                    "trace=execve,openat,connect,unlink,unlinkat,rename,renameat2,mkdir,mkdirat",
                    "-o", str(log), *argv], cwd=cwd, env=_env(home), capture_output=True,
                   stdin=subprocess.DEVNULL, check=False)
    return [line for f in sorted(log.parent.glob(log.name + ".*")) for line in f.read_text().splitlines()]


@pytest.mark.skipif(STRACE is None, reason="no strace")
@pytest.mark.parametrize("case", [c for c in CASES if "probe" in c], ids=lambda c: c["cmd"])
def test_probe_execs_writes_connects_nothing(tree: tuple[Path, Path], case: dict, tmp_path: Path) -> None:
    ws, home = tree
    argv = case["probe"]
    tool = shutil.which(argv[0])
    if tool is None or (argv[0] in ("cargo", "rustc") and not RUSTUP_HOME.is_dir()):
        pytest.skip(f"no {argv[0]}")
    lines = _trace(argv, ws / case["dir"], home, tmp_path / "strace.log")
    allowed = {tool, os.path.realpath(tool), shutil.which("node") or "", "/usr/bin/env"}
    for line in lines:
        call = line
        if not _OK.search(call.rsplit(")", 1)[-1]):
            continue  # a failed call changed nothing
        if call.startswith("execve("):
            path = call.split('"')[1]
            assert path in allowed or path.startswith(str(RUSTUP_HOME) + "/"), line
        elif call.startswith("openat("):
            if re.search(r"O_WRONLY|O_RDWR|O_CREAT", call):
                assert call.split('"')[1].startswith("/dev/"), line
        elif call.startswith("connect("):
            assert "AF_UNIX" in call, line
        else:
            pytest.fail(f"changes the filesystem: {line}")
    assert not (ws / "RAN").exists()


@pytest.mark.skipif(STRACE is None, reason="no strace")
def test_shows_toolchain_path_runs_a_workspace_program(tree: tuple[Path, Path]) -> None:
    ws, home = tree
    if shutil.which("cargo") is None or not RUSTUP_HOME.is_dir():
        pytest.skip("no rustup cargo")
    ran = ws / "RAN"
    ran.unlink(missing_ok=True)
    run = subprocess.run(["cargo", "--version"], cwd=ws / "pinned" / "sub", env=_env(home),
                         capture_output=True, text=True, check=False)
    assert ran.exists(), run.stdout + run.stderr
    ran.unlink()


def test_shows_npm_ls_writes_where_the_workspace_npmrc_says(tree: tuple[Path, Path]) -> None:
    ws, home = tree
    if shutil.which("npm") is None:
        pytest.skip("no npm")
    logs = ws / "plain" / "logs"
    before = set(logs.iterdir())
    subprocess.run(["npm", "ls"], cwd=ws / "plain", env=_env(home), capture_output=True, check=False,
                   stdin=subprocess.DEVNULL)
    assert set(logs.iterdir()) - before


def test_shows_pip_runs_the_venvs_pth_files(tmp_path: Path) -> None:
    """Even ``pip --version``: the venv's site runs its .pth files before pip starts."""
    venv = tmp_path / "v"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages", str(venv)],
                   check=True, capture_output=True)
    site = next(venv.glob("lib/python3*/site-packages"))
    ran = tmp_path / "PTH_RAN"
    (site / "evil.pth").write_text(f"import pathlib; pathlib.Path({str(ran)!r}).write_text('x')\n")
    run = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "--version"], capture_output=True,
                         text=True, check=False, cwd=tmp_path)
    if "No module named pip" in run.stderr:
        pytest.skip("no pip for this interpreter")
    assert ran.exists(), run.stdout + run.stderr
    ran.unlink()
    subprocess.run([str(venv / "bin" / "python"), "--version"], check=True, capture_output=True)
    assert not ran.exists()  # python --version (read-only) does not run site
