"""Sandbox holes closed in the sandbox itself (corpus/sandbox_caps.jsonl), each run for real
under every tier this machine has.

``guard``: Landlock cannot keep ``.git/hooks`` read-only inside a writable workspace (a right on
a directory holds for everything below it; ``link(2)`` needs only MAKE_REG on the new name's
directory, and REFER, which the workspace has, across directories), so the guard restores the
hook after the command. It used to put back a new inode: a hook the user hard-links from
``~/githooks`` kept the command's bytes under that other name, run by every repository that
links it. Now the bytes go back into the very inode, and a name the command gave the hook
(``ln .git/hooks/pre-commit h``) is cut off from it.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest
from _helpers import sandbox_or_skip
from conftest import load

from shellgate.sandbox import build_policy

ROWS = load("sandbox_caps.jsonl")
GUARD = [r for r in ROWS if r["kind"] == "guard"]
HOOK = "#!/bin/sh\nexit 0\n"
TIERS = ["bwrap", "bwrap-fresh", "landlock"]


def _linked_hook_world(tmp: Path) -> tuple[Path, Path, Path]:
    """(workspace, home, the user's shared hook): ``ws/.git/hooks/pre-commit`` is a hard link
    of ``home/githooks/pre-commit``."""
    ws, home = tmp / "ws", tmp / "home"
    (home / "githooks").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(ws)], check=True)
    for k, v in (("user.email", "t@example.invalid"), ("user.name", "t")):
        subprocess.run(["git", "-C", str(ws), "config", k, v], check=True)
    shared = home / "githooks" / "pre-commit"
    shared.write_text(HOOK)
    shared.chmod(0o755)
    os.link(shared, ws / ".git" / "hooks" / "pre-commit")
    (ws / "a").write_text("a\n")
    return ws, home, shared


def _names_of(root: Path, ino: int) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if p.is_file() and not p.is_symlink() and p.stat().st_ino == ino)


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("row", GUARD, ids=[r["why"] for r in GUARD])
def test_a_hooks_other_names_keep_its_bytes(tmp_path, tier, row):
    sb = sandbox_or_skip(tier)
    ws, home, shared = _linked_hook_world(tmp_path)
    hook = ws / ".git" / "hooks" / "pre-commit"
    try:
        r = sb.run(row["cmd"], build_policy(ws, home=home), ws)
    finally:
        sb.close()
    assert r.exit_code is not None, r.stderr
    assert shared.read_text() == HOOK, (r.violations, r.stderr)
    assert stat.S_IMODE(shared.stat().st_mode) == 0o755
    assert hook.read_text() == HOOK
    assert _names_of(ws, hook.stat().st_ino) == [".git/hooks/pre-commit"], r.violations
    assert not (home / "pwned").exists()


def test_a_written_hook_keeps_the_users_hard_link(tmp_path):
    """Written through its own name and put back, the hook is still the user's shared file."""
    sb = sandbox_or_skip("landlock")
    ws, home, shared = _linked_hook_world(tmp_path)
    try:
        r = sb.run("echo 'touch $HOME/pwned' >> .git/hooks/pre-commit",
                   build_policy(ws, home=home), ws)
    finally:
        sb.close()
    assert r.violations
    assert os.path.samefile(shared, ws / ".git" / "hooks" / "pre-commit")


# --------------------------------------------------------------------------- scratch

SCRATCH = [r for r in ROWS if r["kind"] == "scratch"]
CAP = 64 * 1024 * 1024


def _usage(path: Path) -> int:
    return sum(p.lstat().st_blocks * 512 for p in path.rglob("*"))


def _capped(ws: Path, home: Path):
    from shellgate.sandbox import Limits

    return build_policy(ws, home=home, limits=Limits(scratch_size=CAP))


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("row", SCRATCH, ids=[r["why"] for r in SCRATCH])
def test_the_scratch_space_is_capped(tmp_path, tier, row):
    sb = sandbox_or_skip(tier)
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    try:
        r = sb.run(row["cmd"], _capped(ws, home), ws)
        held = _usage(sb.tmpdir())
        if row["stop"] == "total":   # over its cap, the scratch still serves what empties it
            freed = sb.run('rm -f "${TMPDIR:-/tmp}"/f*; echo freed', _capped(ws, home), ws)
            assert freed.stdout == "freed\n" and _usage(sb.tmpdir()) < CAP, freed.notes
    finally:
        sb.close()
    if row["stop"] == "file":
        assert r.exit_code != 0
        assert "File size limit exceeded" in r.stderr, r.stderr
        assert all(p.stat().st_size <= CAP for p in ws.rglob("*"))
    elif row["stop"] == "total":
        assert r.signal == 9 and any("scratch_size" in n for n in r.notes), (r.notes, r.stderr)
    else:
        assert r.exit_code == 0 and r.stdout.strip() == str(row["asked"]), r.stderr
    if row["stop"] != "none":
        assert held < row["asked"] or not row["asked"]
        assert held <= 2 * CAP   # the total's look overshoots by one interval's writes at most


def test_the_hook_lines_tmpfs_is_capped(tmp_path):
    """A hook's bwrap line makes /tmp itself: the kernel caps it (ENOSPC), in memory."""
    from shellgate.sandbox.enforce import confine, hook_tier
    from shellgate.sandbox.probe import Tier

    if hook_tier().tier is not Tier.BWRAP:
        pytest.skip("the hook tier here is not bwrap: its /tmp is the host's")
    ws, home = tmp_path / "ws", tmp_path / "home"
    ws.mkdir()
    home.mkdir()
    cmd = "df -B1 --output=size /tmp | tail -1; yes | head -c 200M > /tmp/big; echo rc=$?"
    line = confine(cmd, _capped(ws, home), cwd=ws).line
    done = subprocess.run(["bash", "-c", line], cwd=ws, capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)
    size, rc = done.stdout.split()
    assert int(size) == CAP and rc == "rc=1", done.stdout
    assert "No space left on device" in done.stderr


def test_scratch_size_is_a_setting():
    from shellgate.sandbox import Limits
    from shellgate.tools.settings import parse_section

    assert Limits().scratch_size == Limits().file_cap == 1 << 30
    assert parse_section({"scratch_size": 0}).limits.scratch_size is None
    assert parse_section({"scratch_size": 0}).limits.file_cap is None
    capped = parse_section({"scratch_size": 5 << 20, "file_size": 7 << 20}).limits
    assert (capped.scratch_size, capped.file_cap) == (5 << 20, 7 << 20)
    with pytest.raises(ValueError, match="scratch_size"):
        parse_section({"scratch_size": -1})


def test_a_bwrap_without_size_still_confines(tmp_path, monkeypatch):
    """bwrap before 0.7 (Ubuntu 22.04's 0.6) and a setuid bwrap refuse ``--size``: the probe
    tries the recipe without it, keeps the bwrap tier and says /tmp is not capped, and the hook
    line leaves ``--size`` out (else every confined allow would fail to start). The old bwrap
    is the real one behind a wrapper that refuses ``--size`` as 0.6 does."""
    import importlib

    from shellgate.sandbox.bwrap import mount_args
    from shellgate.sandbox.trusted import Trusted

    probe_mod = importlib.import_module("shellgate.sandbox.probe")   # the package's probe() hides it
    found, _ = probe_mod.find_bwrap()
    if not found or probe_mod._try_bwrap(found[0].path, probe_mod.find_bash()) is not None:
        pytest.skip("no working bwrap here: nothing to compare with")
    old = tmp_path / "bwrap-0.6"
    old.write_text("#!/bin/bash\nfor a; do [ \"$a\" = --size ] && "
                   "{ echo 'bwrap: Unknown option --size' >&2; exit 1; }; done\n"
                   f"exec {found[0].path} \"$@\"\n")
    old.chmod(0o755)
    monkeypatch.setattr(probe_mod, "find_bwrap", lambda: ([Trusted(str(old), "test")], []))
    got = probe_mod.probe(refresh=True)
    try:
        assert got.tier is probe_mod.Tier.BWRAP and got.tmpfs_size is False, got
        assert any("not capped" in n for n in got.notes), got.notes
    finally:
        monkeypatch.undo()
        probe_mod.probe(refresh=True)
    ws = tmp_path / "ws"
    ws.mkdir()
    policy = _capped(ws, tmp_path)
    assert "--size" not in mount_args(policy, tmpdir=None, sized=False)
    assert "--size" in mount_args(policy, tmpdir=None, sized=True)
