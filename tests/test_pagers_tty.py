"""``corpus/pagers.jsonl``: dmesg -H, systemd-delta and journalctl run ``$PAGER`` when their
stdout is a terminal. Each line runs on a real pty (the controlling terminal) with ``PAGER``
a canary; what shellgate calls read-only on a terminal must not have started it, and the
lines marked ``pager`` show that the canary works (the oracle's premise)."""

from __future__ import annotations

import json
import shlex
import shutil
from pathlib import Path

import pytest
from conftest import CORPUS
from test_git_pager import _run_on_a_terminal

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

LINES = [json.loads(x) for x in (CORPUS / "pagers.jsonl").read_text().splitlines()
         if x.strip() and not x.startswith("//")]


@pytest.mark.skipif(shutil.which("setsid") is None, reason="needs util-linux setsid (-c)")
@pytest.mark.parametrize("line", LINES, ids=[x["cmd"] for x in LINES])
def test_read_only_means_no_pager_on_a_real_terminal(line: dict, tmp_path: Path) -> None:
    program = line["cmd"].split()[0]
    if shutil.which(program) is None:
        pytest.skip(f"{program} is not installed")
    home, canary = tmp_path / "home", tmp_path / "paged"
    home.mkdir()
    pager = tmp_path / "pager"
    pager.write_text(f"#!/bin/sh\ntouch {shlex.quote(str(canary))}\nexec cat >/dev/null\n")
    pager.chmod(0o755)
    setup = f"unset SYSTEMD_PAGER; export SYSTEMD_PAGERSECURE=0 PAGER={shlex.quote(str(pager))}"
    _run_on_a_terminal(f"{setup}; {line['cmd']}", tmp_path, home)
    assert canary.exists() is line["pager"], "the table's premise: the program's own behaviour"
    a = analyse(line["cmd"], Context(cwd=tmp_path, workspace=tmp_path, home=home))
    assert not (a.readonly and canary.exists())
    assert a.readonly is not line["pager"], [r.message for r in a.reasons]
