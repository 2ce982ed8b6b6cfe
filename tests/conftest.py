"""Shared test setup: a fixed hypothesis profile, and helpers to read the labeled corpus."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
CORPUS_DATA = ROOT.parent / "shared" / "corpus-data"

settings.register_profile(
    "ci", deadline=None, max_examples=200, derandomize=True, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def load(name: str) -> list[dict]:
    """The JSON lines of ``corpus/<name>`` (blank lines and ``//`` comments skipped)."""
    lines = (CORPUS / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(s) for s in lines if s.strip() and not s.lstrip().startswith("//")]


@pytest.fixture(autouse=True)
def _private_xdg(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads or writes the real user's shellgate config, approvals or audit log."""
    base = tmp_path_factory.mktemp("xdg")
    for var in ("XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        (base / var).mkdir()
        monkeypatch.setenv(var, str(base / var))


@pytest.fixture(scope="session", autouse=True)
def _no_sandbox_left_behind() -> Iterator[None]:
    """The session ends with no pre-spawned sandbox still running (BashTool users close them)."""
    yield
    import gc

    from shellgate.sandbox import prespawn

    gc.collect()
    assert prespawn.live_servers() == []


_INHERITED: set = set()  # pre-spawned sandboxes a module found alive (not its own to judge)


def live_sandboxes() -> list:
    """Pre-spawned sandboxes alive now that the running module did not inherit."""
    from shellgate.sandbox import prespawn

    return [s for s in prespawn.live_servers() if s not in _INHERITED]


def _bwraps() -> list:
    import psutil

    return [p for p in psutil.Process().children(recursive=True) if p.name() == "bwrap"]


@pytest.fixture(scope="module")
def no_leaked_sandboxes() -> Iterator[None]:
    """After a sandbox test module: none of its pre-spawned sandboxes left, and no bwrap of its
    own left among our descendants (alive or zombie)."""
    import gc

    from shellgate.sandbox import prespawn

    gc.collect()
    _INHERITED.update(prespawn.live_servers())
    before = {p.pid for p in _bwraps()}
    yield
    gc.collect()
    assert live_sandboxes() == []
    assert [(p.pid, p.status()) for p in _bwraps() if p.pid not in before] == []



def zombie_children() -> list[int]:
    """This process's children that have exited and wait to be reaped."""
    me = str(os.getpid()).encode()
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue
            fields = stat[stat.rindex(b")") + 2:].split()
            if fields[0] == b"Z" and fields[1] == me:
                out.append(int(entry))
    return out


def reap_orphans() -> int:
    """Reap the zombie children of this process that no live ``subprocess.Popen`` will wait
    for, and say how many. Once a test has made pytest a subreaper (``reaper.enable()``, as
    BashTool does), every orphan of a sandbox test is re-parented here: the init of a killed
    bwrap, each hook line's detached undo watcher. Nobody waits for them (hundreds by the end
    of the sandbox tests). A Popen's own child is left to its ``wait`` (reaped here, it would
    read as exit 0)."""
    import gc
    import subprocess

    zombies = zombie_children()
    if not zombies:
        return 0
    held = {o.pid for o in gc.get_objects() if isinstance(o, subprocess.Popen) and o.returncode is None}
    reaped = 0
    for pid in zombies:
        if pid not in held:
            with contextlib.suppress(ChildProcessError):
                reaped += os.waitpid(pid, os.WNOHANG)[0] == pid
    return reaped


@pytest.fixture(scope="module", autouse=True)
def _no_orphan_zombies() -> Iterator[None]:
    """After each test module, the orphans it left here are reaped (:func:`reap_orphans`), and
    its garbage is collected: a framework's event loop left for the collector (pydantic-ai's,
    the MCP client's) otherwise runs ``BaseEventLoop.__del__`` wherever the next collection
    happens — inside ``ast.parse`` of a later module, CPython 3.11 then raises "AST constructor
    recursion depth mismatch" (tests/test_import_graph.py did, after the adapter tests)."""
    yield
    reap_orphans()
    import gc

    gc.collect()

