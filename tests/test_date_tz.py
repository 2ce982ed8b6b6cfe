"""A ``TZ="…"`` at the head of a GNU date string names a time-zone file glibc opens: ``date -d``
and ``find -newerXt`` read it through gnulib's ``parse_datetime``. Real date and find under
strace are the oracle: a form that opens the canary must not be read-only, and the plain-zone
forms shellgate allows open nothing outside the system's zone directory."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

STRACE = shutil.which("strace")
# (command, whether it opens {key}); {key} is an absolute canary path, {rel} the same from TZDIR.
CASES = [
    ("date -d 'TZ=\"{key}\" now'", True),
    ("date --debug --date='TZ=\"{key}\" 2020-01-01'", True),
    ("date -d ' TZ=\"{rel}\" now'", True),
    ("date -d 'TZ=\":{key}\" now'", True),
    ("find . -maxdepth 0 -newermt 'TZ=\"{key}\" 2020-01-01'", True),
    ("find . -maxdepth 0 -newerct 'TZ=\"{rel}\" 2020-01-01'", True),
    ("date -d 'TZ=\"Europe/Paris\" now'", False),
    ("date -d 'TZ=\"UTC\" 2020-01-01 12:00'", False),
    ("date -d 'next monday'", False),
    ("find . -maxdepth 0 -newermt 'TZ=\"America/New_York\" 2020-01-01'", False),
    ("find . -maxdepth 0 -newermt 2020-01-01", False),
]


@pytest.mark.skipif(STRACE is None, reason="strace is not installed")
@pytest.mark.parametrize(("template", "opens"), CASES, ids=[c for c, _ in CASES])
def test_a_tz_prefix_that_opens_a_file_is_not_read_only(template: str, opens: bool, tmp_path: Path) -> None:
    key = tmp_path / "home" / "id_rsa"
    key.parent.mkdir()
    key.write_bytes(b"TZif-not-really\n")
    rel = "../../../.." + str(key)      # relative to /usr/share/zoneinfo
    cmd = template.format(key=key, rel=rel)
    trace = tmp_path / "trace"
    subprocess.run([STRACE, "-f", "-qq", "-o", str(trace), "-e", "trace=openat", "bash", "-c", cmd],
                   cwd=tmp_path, capture_output=True, timeout=30)
    opened = str(key) in trace.read_text() or "id_rsa" in trace.read_text()
    assert opened == opens, "the oracle disagrees with the case"
    a = analyse(cmd, Context(cwd=tmp_path, workspace=tmp_path, home=tmp_path / "home"))
    assert a.readonly is not opens, [r.message for r in a.reasons]


@pytest.mark.parametrize("cmd", ['date -d "$WHEN"', 'find . -newermt "$WHEN"'])
def test_a_date_only_known_at_run_time_is_not(cmd: str, tmp_path: Path) -> None:
    assert not analyse(cmd, Context(cwd=tmp_path, workspace=tmp_path, home=tmp_path)).readonly
