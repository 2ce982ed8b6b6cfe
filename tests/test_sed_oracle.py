"""sed scripts against real GNU sed: a script shellgate calls read-only must not run a command,
write a file or read one the command line does not name. The rows are where a label ends: GNU
``read_label`` stops at a blank, ``;``, ``}``, ``#`` or a newline, and what follows a blank is
the next command (``:a e id`` runs ``id``)."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

SED = shutil.which("sed")
SECRET = "CANARY-sed-label"
# (script, whether GNU sed shows an effect with it: a file made in the cwd, or the secret printed)
SCRIPTS = [
    (":a e touch ran", True), ("v 4.2 e touch ran", True), ("t end e touch ran\n:end", True),
    (":a w made", True), (":x r secret", True), ("t end\te touch ran\n:end", True),
    (":a;N;$!ba;s/\\n/ /g", False), ("/x/{:a;n;p;ba}", False), (":a s/x/y/;ta", False),
    ("b end; s/a/b/; :end", False), (":a#comment\np", False), ("1{b a};:a;p", False),
]


@pytest.mark.skipif(SED is None, reason="sed is not installed")
@pytest.mark.parametrize(("script", "effect"), SCRIPTS, ids=[s for s, _ in SCRIPTS])
def test_a_label_ends_where_gnu_sed_ends_it(script: str, effect: bool, tmp_path: Path) -> None:
    (tmp_path / "in.txt").write_text("hello\n")
    (tmp_path / "secret").write_text(f"{SECRET}\n")
    before = set(tmp_path.iterdir())
    out = subprocess.run([SED, "-n", script, "in.txt"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=10).stdout
    seen = bool(set(tmp_path.iterdir()) - before) or SECRET in out
    assert seen == effect, "the oracle disagrees with the row"
    a = analyse(f"sed -n {shlex.quote(script)} in.txt", Context(cwd=tmp_path, workspace=tmp_path,
                                                                home=tmp_path / "home"))
    assert a.readonly is not effect, [r.message for r in a.reasons]
