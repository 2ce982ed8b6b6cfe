"""diff reads the files directly inside a directory operand (``corpus/fuzz_diff_dirs.jsonl``).

The fuzz campaign (seed 20261208) found ``diff -N . /srv/empty`` judged read-only while it
printed the workspace's ``.env``: GNU diff compares the files of two directories, and with
``-N`` prints one missing on the other side whole. Each line is judged by the gate and run for
real under ``strace`` in the same world, so that both the verdict and the effect it rests on
(a canary printed, a secret opened, none) are checked; a read-only line must open no secret.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

CASES = load("fuzz_diff_dirs.jsonl")
STRACE = shutil.which("strace")
DIFF = shutil.which("diff")

# ws-relative (or "../peer/…") path -> contents; a secret's holds a canary.
FILES = {
    ".env": "TOKEN=CANARY-ws-env\n",
    "a.txt": "a\n",
    "b.txt": "b\n",
    "src/x.py": "x = 1\n",
    "other/x.py": "x = 2\n",
    "dir1/f": "one\n",
    "dir2/f": "two\n",
    "app/.env": "TOKEN=CANARY-app-env\n",
    "deep/sub/.env": "TOKEN=CANARY-deep-env\n",
    "repo/.git/config": '[remote "o"]\n\turl = https://CANARY-git-token@example.com/x\n',
    "../peer/.env": "TOKEN=CANARY-pe-env\n",   # the size of ws/.env: diff -q opens both
    "../peer/a.txt": "peer\n",
}
_OPENED = re.compile(r'openat\(AT_FDCWD, "([^"]+)", [^)]*\) = \d+$')


def _world(tmp: Path, links: dict[str, str]) -> tuple[Path, Path]:
    ws, home = tmp / "ws", tmp / "home"
    for d in (ws / "emptydir", home):
        d.mkdir(parents=True)
    for rel, text in FILES.items():
        path = ws / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for name, target in links.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).symlink_to(target)
    return ws, home


def _run(cmd: str, ws: Path, home: Path, trace: Path) -> tuple[str, set[str]]:
    """What real diff printed, and the real paths of the files it opened."""
    out = subprocess.run([STRACE or "strace", "-f", "-qq", "-o", str(trace), "-e", "trace=openat",
                          "bash", "-c", cmd], cwd=ws, capture_output=True, text=True, timeout=30,
                         stdin=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin", "HOME": str(home),
                                                        "LC_ALL": "C"})
    opened = set()
    for line in trace.read_text().splitlines():
        m = _OPENED.search(line)
        if m:
            opened.add(os.path.realpath(ws / m.group(1)))
    return out.stdout, opened


def _ids(case: dict) -> str:
    return case["cmd"]


@pytest.mark.skipif(DIFF is None, reason="diff (diffutils) is not installed")
@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_diff_directory_operands(case: dict, tmp_path: Path) -> None:
    ws, home = _world(tmp_path, case.get("links", {}))
    a = analyse(case["cmd"], Context(cwd=ws, workspace=ws, home=home))
    messages = [r.message for r in a.reasons]
    assert a.readonly is case["readonly"], messages
    if not case["readonly"]:
        assert any(case["names"] in m for m in messages), messages
    if STRACE is None:
        pytest.skip("strace is not installed: the verdict is checked, the effect is not")
    printed, opened = _run(case["cmd"], ws, home, tmp_path / "trace")
    secrets = {os.path.realpath(ws / rel) for rel, text in FILES.items() if "CANARY" in text}
    assert ("CANARY" in printed) is (case["effect"] == "prints"), printed
    assert bool(opened & secrets) is (case["effect"] != "none"), sorted(opened & secrets)
