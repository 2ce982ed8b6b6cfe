"""The sandbox holds where the classifier cannot see a path: a write through a hard link of an
implant or secret file (shellgate/sandbox/links.py). corpus/sandbox_hardlinks.jsonl's lines run
as ``python3 -c`` through BashTool in accept-edits (which allows a confined exec: the program
text names no path the gate can read) in a scratch HOME, under each tier this machine has, and
through the hook's confined line; the protected file must keep its bytes, a plain write must
land, and a store's hard link that is no implant stays writable."""

from __future__ import annotations

import os
import re
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from _helpers import git_workspace, home_with_key, sandbox_or_skip
from conftest import load

from shellgate.bash.paths import hardlinks
from shellgate.sandbox import Sandbox
from shellgate.tools import BashTool

CASES = load("sandbox_hardlinks.jsonl")
CANARY = "CANARY-hardlink-key"
TIERS = ["bwrap", "bwrap-fresh", "landlock"]


def _world(tmp: Path, case: dict) -> dict[str, Path]:
    ws = git_workspace(tmp / "ws")
    home = home_with_key(tmp / "home", CANARY + "\n")
    (home / ".bashrc").write_text("echo rc\n")
    (home / ".profile").write_text("echo profile\n")
    (tmp / "store").mkdir()
    (tmp / "store" / "index.js").write_text("module.exports = 0\n")
    for name, target in case.get("hard", {}).items():
        src = home / target[2:] if target.startswith("~/") else tmp / target[3:]
        (ws / name).parent.mkdir(parents=True, exist_ok=True)
        os.link(src, ws / name)
    for rel, mode in case.get("mode", {}).items():
        (home / rel[2:]).chmod(mode)
    return {"ws": ws, "home": home}


def _kept(w: dict[str, Path], case: dict) -> dict[str, tuple[bytes, int]]:
    """Content and permission bits of each protected file (a chmod through a link of a key
    exposes it as surely as a write)."""
    return {p: ((f := w["home"] / p[2:]).read_bytes(), stat.S_IMODE(f.stat().st_mode))
            for p in case.get("kept", ())}


def _py(code: str, *flags: str) -> str:
    """``python3 -c CODE`` with every quoted string spelled in hex, decoded at run time: the
    gate reads no path in it (as it reads none in a program it cannot parse), so the command is
    allowed and the sandbox alone must hold."""
    hidden = re.sub(r"'([^']*)'", lambda m: f"bytes.fromhex({m[1].encode().hex()!r}).decode()", code)
    return shlex.join([sys.executable, *flags, "-c", hidden])


def _tool(w: dict[str, Path], tier: str) -> BashTool:
    name, _, variant = tier.partition("-")
    sandbox = Sandbox(name, prespawn=False) if variant == "fresh" else name
    return BashTool(w["ws"], "accept-edits", home=w["home"], audit=False, store=False,
                    user_config=False, sandbox=sandbox)


def _check(w: dict[str, Path], case: dict, before: dict[str, bytes], out: str) -> None:
    assert _kept(w, case) == before, "a protected file changed through its hard link"
    for name, text in case.get("made", {}).items():
        assert (w["ws"] / name).read_text() == text
    if case.get("no_canary"):
        assert CANARY not in out


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c["why"][:60])
def test_bashtool(case: dict, tier: str, tmp_path: Path) -> None:
    if tier not in case.get("tiers", TIERS):
        pytest.skip(f"{tier}: {case['why']}")
    sandbox_or_skip(tier).close()
    w = _world(tmp_path, case)
    before = _kept(w, case)
    tool = _tool(w, tier)
    try:
        r = tool.run(_py(case["py"]))
    finally:
        tool.close()
    assert r.decision == "allow" and r.ran, r.reason   # the sandbox is what holds
    _check(w, case, before, r.stdout)


@pytest.mark.parametrize("tier", ["", "landlock"], ids=["probed", "landlock"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c["why"][:60])
def test_hook_line(case: dict, tier: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook's confined line for a write grant, run by bash."""
    from shellgate.sandbox.enforce import HookTier, confine_grant, hook_tier
    from shellgate.sandbox.probe import Tier, landlock_usable

    probed = hook_tier()
    if probed.tier is Tier.NONE:
        pytest.skip("no sandbox tier on this machine")
    if tier == "landlock" and (why := landlock_usable()):
        pytest.skip(f"Landlock does not work here: {why}")
    name = "landlock" if tier or probed.tier is Tier.LANDLOCK else "bwrap"
    if name not in case.get("tiers", TIERS):
        pytest.skip(f"{name}: {case['why']}")
    w = _world(tmp_path, case)
    monkeypatch.setenv("HOME", str(w["home"]))
    forced = HookTier(Tier.LANDLOCK, None, probed.bash) if tier else None
    cmd = _py(case["py"], "-I")
    line = confine_grant(cmd, w["ws"], w["ws"], write=True, network=False, tier=forced).line
    before = _kept(w, case)
    done = subprocess.run(["bash", "-c", line], cwd=w["ws"], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60, env={**os.environ, "HOME": str(w["home"])})
    _check(w, case, before, done.stdout)


@pytest.mark.parametrize("tier", ["bwrap", "landlock"])
def test_a_walk_cut_short_does_not_run(tier: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the walk's bound another name may be anywhere in the workspace: the line does not
    run with write access, and the reason names the file and the way out."""
    sandbox_or_skip(tier).close()
    w = _world(tmp_path, {"hard": {"notes.txt": "~/.bashrc"}})
    for i in range(30):
        (w["ws"] / f"f{i}").write_text("x")
    monkeypatch.setattr(hardlinks, "MAX_ENTRIES", 10)
    tool = _tool(w, tier)
    try:
        r = tool.run(_py("open('new.txt','w').write('x')"))
    finally:
        tool.close()
    assert not r.ran and not (w["ws"] / "new.txt").exists()
    assert f"{w['home']}/.bashrc has more than one name" in r.reason, r.reason
    assert "-samefile" in r.reason


def test_the_common_case_looks_at_no_workspace_entry(tmp_path: Path) -> None:
    """No protected file with a second name: the workspace is not walked (a policy is built
    at every command), the links add nothing."""
    from shellgate.sandbox.disk import Disk
    from shellgate.sandbox.locations import build_policy

    w = _world(tmp_path, {"hard": {"lib/index.js": "../store/index.js"}})
    disk = Disk(record=True)
    policy = build_policy(w["ws"], home=w["home"], disk=disk)
    assert policy.linked == () and not any(str(p).startswith(str(w["ws"] / "lib")) for p in policy.readonly)
    listed = {p for kind, p, _ in disk.seen or () if kind == "d"}
    assert str(w["ws"] / "lib") not in listed


@pytest.mark.parametrize("linked", [False, True], ids=["plain-workspace", "workspace-with-links"])
def test_a_home_too_big_to_list_asks_the_workspace(linked: bool, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """HOME's sensitive trees past the bound (a big ~/.emacs.d or browser profile) do not stop
    every write: a workspace holding no file with a second name cannot hold a link of one of
    theirs, so the policy is built; one that holds such a file (a pnpm store link here) fails
    closed, since its other name may be any protected file."""
    from shellgate.sandbox.links import LinkedUnknown
    from shellgate.sandbox.locations import build_policy

    w = _world(tmp_path, {"hard": {"lib/index.js": "../store/index.js"}} if linked else {})
    elisp = w["home"] / ".emacs.d" / "elpa"
    elisp.mkdir(parents=True)
    for i in range(40):
        (elisp / f"p{i}.el").write_text("(message 1)\n")
    monkeypatch.setattr(hardlinks, "MAX_ENTRIES", 30)
    monkeypatch.setattr(hardlinks.enumerate_secrets, "__defaults__", (30,))
    if linked:
        with pytest.raises(LinkedUnknown, match="more than 30 entries under HOME"):
            build_policy(w["ws"], home=w["home"])
    else:
        assert build_policy(w["ws"], home=w["home"]).linked == ()
