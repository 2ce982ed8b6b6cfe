"""Variables do not skip the workspace boundary: ``$HOME``, ``$PWD``, ``$(pwd)``, ``~user``,
``$OLDPWD``, ``..`` and unknown expansions, under an allow rule and in trust mode.

Fed by ``corpus/boundary_vars.jsonl``. Two checks per line: the decision the line expects
(allow when every path resolves inside the workspace, an outside-roots ask otherwise, also in
trust mode), and real bash as the oracle — the command runs under bash with ``rm``/``mv``/
``cp``/``touch`` replaced by functions that print their cwd and arguments, and whenever the
gate allows, every argument bash really passed must lie inside the workspace.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load

from shellgate.approval import CallContext, load_engine

CASES = load("boundary_vars.jsonl")
RULES = '[permissions]\nallow = ["Bash(rm *)", "Bash(mv *)", "Bash(cp *)", "Bash(touch *)"]\n'
BASH = shutil.which("bash")
# Each stand-in prints its cwd, then its arguments, NUL-separated, one record per call.
STUBS = "".join(f'{n}() {{ printf "%s\\0" "$PWD" "$@"; printf "\\n\\0"; }}; '
                for n in ("rm", "mv", "cp", "touch"))


@pytest.fixture
def place(tmp_path: Path) -> dict[str, Path]:
    ws, home = tmp_path / "ws", tmp_path / "home"
    (ws / "sub").mkdir(parents=True)
    (ws / "a.txt").write_text("a")
    (ws / "sub" / "b.txt").write_text("b")
    home.mkdir()
    cfg = tmp_path / "rules.toml"
    cfg.write_text(RULES)
    return {"ws": ws, "home": home, "cfg": cfg}


def _decide(place: dict[str, Path], case: dict, mode: str, config: Path | None):
    engine = load_engine(place["ws"], mode, str(config) if config else None, home=place["home"],
                         audit=False, store=False, user_config=False, ask_as_deny=False)
    cwd = (place["ws"] / case.get("cwd", ".")).resolve()
    return engine.decide_bash(case["cmd"], CallContext(cwd=str(cwd)))


@pytest.mark.parametrize("mode", ["balanced", "trust"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:40])
def test_boundary(place: dict[str, Path], case: dict, mode: str) -> None:
    d = _decide(place, case, mode, place["cfg"] if mode == "balanced" else None)
    assert d.verdict == case["expect"], d
    if case["expect"] == "ask":   # a tree removed below another home holds secrets: a forced ask
        assert d.rule == case.get("rule", "chain.outside_roots"), d


def _bash_paths(place: dict[str, Path], case: dict) -> list[str]:
    """The operands real bash passes, each joined to the cwd bash ran the command in
    (``$TARGET`` and ``$OLDPWD`` are set outside the workspace: an unknown variable may be
    anything)."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(place["home"]), "TARGET": "/etc/x",
           "OLDPWD": str(place["home"])}
    cwd = place["ws"] / case.get("cwd", ".")
    out = subprocess.run([BASH, "-c", STUBS + case["cmd"]], cwd=cwd, env=env,
                         capture_output=True, check=False).stdout.decode()
    paths = []
    for record in out.split("\n\0"):
        fields = [f for f in record.split("\0") if f]
        if fields:
            here, *args = fields
            paths += [os.path.normpath(os.path.join(here, a)) for a in args if not a.startswith("-")]
    return paths


@pytest.mark.skipif(BASH is None, reason="needs bash")
@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:40])
def test_bash_agrees(place: dict[str, Path], case: dict) -> None:
    """Allowed means inside, by bash's own expansion (the gate may ask for more)."""
    paths = _bash_paths(place, case)
    assert paths, "the stand-ins saw no call"
    ws = str(place["ws"].resolve())
    inside = all(os.path.realpath(p) == ws or os.path.realpath(p).startswith(ws + "/")
                 for p in paths)
    assert inside == (case["expect"] == "allow") or case["expect"] == "ask", (paths, ws)
    d = _decide(place, case, "balanced", place["cfg"])
    if d.verdict == "allow":
        assert inside, (paths, d)
