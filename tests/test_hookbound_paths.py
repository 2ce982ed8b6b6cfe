"""A directory whose name merely holds "proc" (``process/``, ``procs/``, ``myproc/``) is not
/proc: the names a tree copy lands there take the disk-less first step like any other place
(shellgate/bash/paths/landing.py tested ``"proc" in path`` as a substring, sending every one to
the full check), and are still judged the same. Table: corpus/hookbound_paths.jsonl, in the
world of tests/test_tree_copy_implants.py; each line also run by the real bash."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load
from test_tree_copy_implants import _files, _world

from shellgate.bash.paths import landing
from shellgate.check import Gate

CASES = load("hookbound_paths.jsonl")
BASH = shutil.which("bash")


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed (the world is a repository)")
@pytest.mark.parametrize("case", CASES, ids=[c["cmd"] for c in CASES])
def test_proc_in_a_name_is_not_proc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: dict) -> None:
    home, ws = _world(Path(os.path.realpath(tmp_path)))
    full: list[str] = []
    real = landing.hits_for_text

    def counted(text: str, *args: object, **kwargs: object) -> object:
        full.append(text)   # the real check still runs: this only counts the calls
        return real(text, *args, **kwargs)

    monkeypatch.setattr(landing, "hits_for_text", counted)
    verdict = Gate(ws, mode="accept-edits", home=home).check(case["cmd"]).to_json()
    assert (verdict["decision"] == "allow") == case["allow"], verdict
    assert (not full) == case["fast"], full
    if BASH is None:
        print("bash is not installed: the effect is not shown")
        return
    before = _files(ws)
    subprocess.run([BASH, "-c", case["cmd"]], cwd=ws, check=True, env={"PATH": os.environ["PATH"],
                                                                        "HOME": str(home)})
    made = _files(ws) - before
    if case["allow"]:
        assert not {f for f in made if f.endswith((".envrc", "settings.json"))}, made
    else:
        assert case["implant"] in made, made
