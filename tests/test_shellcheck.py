"""shellcheck (``shellgate/bash/commands/shellcheck.py``; #17): each row of
``corpus/shellcheck.jsonl`` is decided in a planted tree; read-only rows run for real under
``strace -f`` (no effect, no canary), ``effect`` rows print the canary for real (the refusal is
needed). Skipped without shellcheck (Debian package ``shellcheck``) or strace."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load
from test_readers_strace import traced_effects

from shellgate import Gate

ROWS = load("shellcheck.jsonl")
CANARY = "CANARY-sc17-51c2"
SHELLCHECK = shutil.which("shellcheck")
STRACE = shutil.which("strace")
# the line runs bash, which runs shellcheck: bash's own exec is no effect of shellcheck's
_BASH_EXEC = re.compile(r'execve\("[^"]*/bash"')

_FILES = {
    "s.sh": "#!/bin/bash\nsource ./lib.sh\n. ./.env\necho \"$x\"\n",
    "lib.sh": "x=1\n",
    ".env": f"API_KEY={CANARY}\n",
    "d.sh": "#!/bin/bash\n# shellcheck source=../home/.ssh/id_rsa\nsource \"$f\"\n",
    "p.sh": "#!/bin/bash\nsource id_rsa\n",
    "other/t.sh": "#!/bin/bash\n# shellcheck source=../home/.ssh/id_rsa\nsource \"$f\"\n",  # cwd-relative
}


def _tree(tmp: Path, row: dict) -> tuple[Path, Path]:
    ws, home = tmp / "ws", tmp / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(f"-----BEGIN {CANARY} PRIVATE KEY-----\nb3BlbnNzaC1r\n"
                                          "-----END OPENSSH PRIVATE KEY-----\n")
    for name, text in _FILES.items():
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        (ws / name).write_text(text)
    (ws / "lnk.sh").symlink_to("other/t.sh")
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    for name, text in row.get("rc", {}).items():
        path = home / name[2:] if name.startswith("~/") else ws / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if text.startswith("->"):
            path.symlink_to(text[2:])
        else:
            path.write_bytes(text.encode())
    return ws, home


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("XDG_CONFIG_HOME", "SHELLCHECK_OPTS")}
    return {**env, "HOME": str(home)}


@pytest.mark.parametrize("row", ROWS, ids=[r["cmd"][:60] + (" rc" if "rc" in r else "") for r in ROWS])
def test_shellcheck_verdict(row, tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("SHELLCHECK_OPTS", raising=False)
    ws, home = _tree(tmp_path, row)
    v = Gate(ws, mode="balanced", home=home).check(row["cmd"], cwd=ws)
    assert v.analysis.readonly is row["readonly"], v.reason
    if not row["readonly"]:
        assert v.decision != "allow" and v.analysis.reasons
    if "accept_edits" in row:
        edits = Gate(ws, mode="accept-edits", home=home).check(row["cmd"], cwd=ws)
        assert edits.decision == row["accept_edits"], edits.reason
    if SHELLCHECK is None:
        pytest.skip("shellcheck is not installed: the verdict was checked, not the real run")
    if row["readonly"]:
        if STRACE is None:
            pytest.skip("strace is not installed")
        out = subprocess.run(["bash", "-c", row["cmd"]], cwd=ws, env=_env(home), capture_output=True,
                             text=True, timeout=60)
        assert CANARY not in out.stdout + out.stderr
        found = traced_effects(["bash", "-c", row["cmd"]], "shellcheck", tmp_path / "trace", cwd=ws,
                               env=_env(home))
        assert [line for line in found if not _BASH_EXEC.search(line)] == []
    elif row.get("effect") == "canary":
        out = subprocess.run(["bash", "-c", row["cmd"]], cwd=ws, env=_env(home), capture_output=True,
                             text=True, timeout=60)
        assert CANARY in out.stdout + out.stderr, out.stdout + out.stderr


def test_shellcheck_opts_in_the_environment_voids_it(tmp_path, monkeypatch):
    """``SHELLCHECK_OPTS=-x`` inherited from the gate's environment holds options."""
    ws, home = _tree(tmp_path, {})
    assert Gate(ws, mode="balanced", home=home).check("shellcheck s.sh", cwd=ws).analysis.readonly
    monkeypatch.setenv("SHELLCHECK_OPTS", "-x")
    v = Gate(ws, mode="balanced", home=home).check("shellcheck s.sh", cwd=ws)
    assert not v.analysis.readonly and "SHELLCHECK_OPTS" in _reasons(v)


def test_xdg_config_home_is_searched(tmp_path, monkeypatch):
    ws, home = _tree(tmp_path, {})
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    (xdg / "shellcheckrc").write_text("external-sources=true\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    v = Gate(ws, mode="balanced", home=home).check("shellcheck -a d.sh", cwd=ws)
    assert not v.analysis.readonly and str(xdg / "shellcheckrc") in _reasons(v)
    if SHELLCHECK:
        out = subprocess.run([SHELLCHECK, "-a", "d.sh"], cwd=ws, capture_output=True, text=True,
                             env={**_env(home), "XDG_CONFIG_HOME": str(xdg)}, timeout=60)
        assert CANARY in out.stdout


@pytest.mark.parametrize(("cmd", "word"), [("shellcheck -x s.sh", "-x"), ("shellcheck s.sh --ext", "--ext"),
                                           ("shellcheck -P dir s.sh", "-P"), ("shellcheck */t.sh", "*/t.sh")])
def test_the_refusing_word_is_named(cmd, word, tmp_path):
    ws, home = _tree(tmp_path, {})
    v = Gate(ws, mode="balanced", home=home).check(cmd, cwd=ws)
    assert any(r.span and cmd[r.span[0]:r.span[1]] == word for r in v.analysis.reasons), v.analysis.reasons


def _reasons(v) -> str:
    return "; ".join(r.message for r in v.analysis.reasons)
