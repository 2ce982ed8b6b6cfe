"""Red-team round 5: the read-only tables added for #17 (``coreextra.py``, ``kernelstats.py``).

* ``find -exec R {}``: a check that reads R's operands as names, settings or capabilities saw
  the static text ``{}``, while find passes the start point itself first. ``find init -exec tput
  {} +`` is ``tput init`` (the terminfo entry's iprog runs) and ``find kernel.hostname=pwned
  -exec sysctl {} +`` writes the host name. ``spec._find_names_as_run_time``: a check sees
  ``{}`` as a word known only at run time.
* ``pinky -l USER`` prints USER's ``~/.plan`` and ``~/.project`` through any link: another
  user's ``.plan`` linked to ~/.ssh/id_rsa printed the invoking user's key. The files are
  checked as reads (``coreextra._pinky``).

``corpus/red5.jsonl`` is decided and run in one planted world inside user, mount, UTS and
network namespaces (``unshare -Urmun``), so that /etc/passwd can name the planted user for the
gate and for pinky alike, and a host name written stays in the namespace. Skipped, with the
reason, where unshare, strace, script (bsdutils), tic or a program is missing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import load
from test_readers_strace import EFFECT_SYSCALLS, _effects

CASES = load("red5.jsonl")
REPO = Path(__file__).resolve().parent.parent
_NEEDED = ("unshare", "strace", "script", "tic", "tput", "sysctl", "pinky", "find", "zgrep", "namei",
           "lsattr", "tsort")
_ZGREP_RUNS = ("gzip", "grep", "expr", "sed")   # what zgrep's script runs (zgrep.py)
_EXEC = re.compile(r'execve\("[^"]*/([^"/]+)"')
# what the decision sees and what the run shows, one line each, read back by the tests
_DECIDE = """
import json, sys
from pathlib import Path
from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context
ws, home = Path(sys.argv[1]), Path(sys.argv[2])
for cmd in json.loads(sys.stdin.read()):
    a = analyse(cmd, Context(cwd=ws, workspace=ws, home=home, terminal=False))
    words = [cmd[r.span[0]:r.span[1]] for r in a.reasons if r.span is not None]
    print(json.dumps({"cmd": cmd, "readonly": a.readonly, "words": words,
                      "reasons": [r.message for r in a.reasons]}))
"""


def _missing() -> str | None:
    gone = next((p for p in _NEEDED if shutil.which(p) is None), None)
    if gone:
        return f"{gone} is not installed"
    probe = subprocess.run(["unshare", "-Urmun", "true"], capture_output=True, text=True)
    return None if probe.returncode == 0 else f"unshare -Urmun fails here: {probe.stderr.strip()}"


def _plant(base: Path) -> dict[str, Path]:
    ws, home, mallory = base / "ws", base / "home", base / "mallory"
    for d in (ws, home / ".ssh", mallory):
        d.mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("CANARY-ssh\n")
    (ws / "a.txt").write_text("hello\n")
    (ws / "deps.txt").write_text("a b\nb c\n")
    for name in ("init", "mallory", "kernel.hostname=pwned"):
        (ws / name).touch()
    (mallory / ".plan").symlink_to(home / ".ssh" / "id_rsa")
    (mallory / ".project").write_text("a project\n")
    prog = base / "prog"
    prog.write_text(f"#!/bin/sh\ntouch {base / 'RAN'}\n")
    prog.chmod(0o755)
    (base / "evil.src").write_text(f"evil|evil term,\n\tcols#80, lines#24, iprog={prog},\n")
    subprocess.run(["tic", "-o", str(home / ".terminfo"), str(base / "evil.src")], check=True,
                   capture_output=True)
    passwd = base / "passwd"
    passwd.write_text(Path("/etc/passwd").read_text()
                      + f"mallory:x:4242:4242:Mallory:{mallory}:/bin/sh\n")
    return {"base": base, "ws": ws, "home": home, "passwd": passwd}


def _env(w: dict[str, Path], **more: str) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(w["home"]), "TERM": "evil",
            "LC_ALL": "C", "SHELL": "/bin/sh", **more}


def _in_namespaces(w: dict[str, Path], script: str, *args: str, **run: object) -> subprocess.CompletedProcess:
    """``script`` run by sh in new user, mount, UTS and network namespaces, with the planted
    passwd bound over /etc/passwd."""
    return subprocess.run(["unshare", "-Urmun", "sh", "-c",
                           f'mount --bind "$0" /etc/passwd || exit 99\n{script}', str(w["passwd"]), *args],
                          capture_output=True, text=True, timeout=120, **run)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    if (why := _missing()) is not None:
        pytest.skip(why)
    w = _plant(tmp_path_factory.mktemp("red5"))
    env = _env(w, PYTHONPATH=str(REPO))
    run = _in_namespaces(w, 'exec "$1" -c "$2" "$3" "$4"', sys.executable, _DECIDE, str(w["ws"]),
                         str(w["home"]), input=json.dumps([c["cmd"] for c in CASES]), env=env, cwd=w["ws"])
    assert run.returncode == 0, run.stderr
    return {d["cmd"]: d for d in map(json.loads, run.stdout.splitlines())}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:60])
def test_verdict(case: dict, verdicts: dict[str, dict]) -> None:
    got = verdicts[case["cmd"]]
    assert got["readonly"] == case["readonly"], got["reasons"]
    if not case["readonly"]:
        assert any(case["word"] in word for word in got["words"]), (got["reasons"], got["words"])


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:60])
def test_real_run(case: dict, tmp_path: Path) -> None:
    """The oracle: the line run by bash on a terminal (``script``; tput init needs one) under
    ``strace -f``, in the namespaces, then the host name read back."""
    if (why := _missing()) is not None:
        pytest.skip(why)
    w = _plant(tmp_path)
    trace = tmp_path / "trace"
    inner = f'strace -f -qq -o {trace} -e {EFFECT_SYSCALLS} bash -c "$RED5_CMD" </dev/null'
    run = _in_namespaces(w, 'hostname before\nscript -qec "$1" /dev/null\necho "@@host=$(hostname)"', inner,
                         env=_env(w, RED5_CMD=case["cmd"]), cwd=w["ws"], stdin=subprocess.DEVNULL)
    assert run.returncode == 0 and "@@host=" in run.stdout, run.stderr
    effects = {"runs": (tmp_path / "RAN").exists(), "host": "@@host=pwned" in run.stdout,
               "leak": "CANARY-ssh" in run.stdout}
    assert effects == {k: k == case.get("effect") for k in effects}, run.stdout
    if case["readonly"]:
        allowed = {p for p in case["cmd"].split() if shutil.which(p)} | {"bash", *_ZGREP_RUNS}
        found = [e for e in _effects(trace.read_text(), "bash")
                 if not ((m := _EXEC.search(e)) and m.group(1) in allowed)]
        assert found == [], found
        assert sorted(p.name for p in w["ws"].iterdir()) == ["a.txt", "deps.txt", "init",
                                                             "kernel.hostname=pwned", "mallory"]
