"""Remembered confined lines (sandbox/enforce.py, sandbox/disk.py): a hook reuses the line
around the command only while the disk gives every answer the line was built from.

The property: after any change to the workspace, HOME or the repository, the line a hook hands
out equals the line built from nothing. Each case below changes one thing the policy rests on
(a secret file appears, a symlink to a key is committed, a link is re-pointed, a masked file in
HOME appears, a virtualenv's ``.pth`` appears, ``.git`` becomes a worktree pointer …); the test
fails if a stale remembered line were used.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from shellgate.sandbox import disk as disk_mod
from shellgate.sandbox import enforce, locations
from shellgate.sandbox.enforce import confine, confine_grant, hook_tier

RACY_NS = disk_mod.RACY_NS   # before the fixture sets it to 0

pytestmark = pytest.mark.skipif(str(hook_tier().tier) == "none",
                                reason="no sandbox tier on this machine: nothing is confined")


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    home, work = tmp_path / "home", tmp_path / "work"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("KEY\n")
    (work / "docs").mkdir(parents=True)
    (work / "docs" / "guide.md").write_text("guide\n")
    (work / "src" / "deep").mkdir(parents=True)
    (work / "src" / "deep" / "server.pem").write_text("PEM\n")
    (home / ".npmrc").write_text("//r/:_authToken=x\n")
    (home / "notes").mkdir()
    (home / "notes" / ".env").write_text("S=1\n")   # hidden only when a link leads here
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setattr(disk_mod, "RACY_NS", 0)   # remember lines of a just-made tree
    return {"home": home, "work": work, "root": tmp_path}


def fresh(work: Path, write: bool) -> str:
    """The line built from nothing (no remembered one)."""
    policy, _ = locations.grant_policy(work, write=write, network=False)
    return confine("ls", policy, cwd=work).line


def _link_key(w: dict[str, Path]) -> None:
    os.symlink(w["home"] / "notes" / ".env", w["work"] / "docs" / "settings.txt")


def _repoint(w: dict[str, Path]) -> None:
    (w["home"] / "plain.txt").write_text("x\n")
    link = w["work"] / "docs" / "later.txt"
    os.symlink(w["home"] / "plain.txt", link)
    enforce.confine_grant("ls", w["work"], w["work"], write=False, network=False)
    tmp = w["work"] / "docs" / ".tmp-link"
    os.symlink(w["home"] / "notes" / ".env", tmp)
    os.replace(tmp, link)


def _worktree_pointer(w: dict[str, Path]) -> None:
    main = w["root"] / "main"
    subprocess.run(["git", "init", "-q", str(main)], check=True)
    subprocess.run(["git", "-C", str(main), "-c", "user.email=t@e", "-c", "user.name=t",
                    "commit", "-q", "--allow-empty", "-m", "i"], check=True)
    subprocess.run(["rm", "-rf", str(w["work"] / ".git")], check=True)
    subprocess.run(["git", "-C", str(main), "worktree", "add", "-q", "--detach",
                    str(w["root"] / "wt")], check=True)
    (w["work"] / ".git").write_text((w["root"] / "wt" / ".git").read_text())


CHANGES: list[tuple[str, Callable[[dict[str, Path]], None]]] = [
    ("a .env appears deep in the tree", lambda w: (w["work"] / "src" / "deep" / ".env").write_text("S=1\n")),
    ("a key file appears at the top", lambda w: (w["work"] / "id_ed25519").write_text("K\n")),
    ("a symlink to a secret elsewhere is committed", _link_key),
    ("a harmless link is re-pointed at a secret", _repoint),
    ("a masked file appears in HOME", lambda w: (w["home"] / ".netrc").write_text("machine x\n")),
    ("a credentials file appears in HOME", lambda w: (
        (w["home"] / ".aws").mkdir(), (w["home"] / ".aws" / "credentials").write_text("K\n"))),
    ("a masked file in HOME is removed", lambda w: (w["home"] / ".npmrc").unlink()),
    ("a virtualenv .pth appears", lambda w: (
        (w["work"] / ".venv/lib/python3.11/site-packages").mkdir(parents=True),
        (w["work"] / ".venv/lib/python3.11/site-packages/evil.pth").write_text("import os\n"))),
    ("an implant file appears", lambda w: (w["work"] / ".envrc").write_text("# direnv\n")),
    (".git becomes a linked worktree's pointer", _worktree_pointer),
    ("core.hooksPath is set", lambda w: (
        (w["work"] / "githooks").mkdir(),
        subprocess.run(["git", "-C", str(w["work"]), "config", "core.hooksPath", "githooks"],
                       check=True))),
    ("a directory is renamed", lambda w: (w["work"] / "src").rename(w["work"] / "lib")),
]


@pytest.mark.parametrize("write", [False, True], ids=["read", "write"])
@pytest.mark.parametrize("change", [c for _, c in CHANGES], ids=[n for n, _ in CHANGES])
def test_a_remembered_line_is_never_stale(world, change, write):
    work = world["work"]
    first = confine_grant("ls", work, work, write=write, network=False).line
    assert first == fresh(work, write)
    change(world)
    after = confine_grant("ls", work, work, write=write, network=False).line
    assert after == fresh(work, write)


def test_an_unchanged_disk_reuses_the_line_without_building_a_policy(world, monkeypatch):
    work = world["work"]
    first = confine_grant("ls", work, work, write=False, network=False)

    def refuse(*_a, **_k):
        raise AssertionError("the policy was built again")

    monkeypatch.setattr(locations, "grant_policy", refuse)
    again = confine_grant("git log", work, work, write=False, network=False)
    assert again.line == first.line.replace("bash ls", "bash 'git log'")
    assert again.notes == first.notes


def test_a_tree_changed_just_now_is_not_remembered(world, monkeypatch):
    monkeypatch.setattr(disk_mod, "RACY_NS", RACY_NS)
    work = world["work"]
    (work / "docs" / "new.md").write_text("now\n")   # within the last two seconds
    confine_grant("ls", work, work, write=False, network=False)
    assert not list((locations.cache_dir() / "lines").glob("*.json"))


@pytest.mark.parametrize("garbage", [b"", b"{", b"[]", b'{"key": 1}', b"\xff\xfe",
                                     b'{"key": [], "head": 1, "tail": "", "notes": [], "seen": []}'])
def test_a_damaged_remembered_line_is_built_anew(world, garbage):
    work = world["work"]
    good = confine_grant("ls", work, work, write=False, network=False).line
    for f in (locations.cache_dir() / "lines").glob("*.json"):
        f.write_bytes(garbage)
    assert confine_grant("ls", work, work, write=False, network=False).line == good


def test_a_remembered_line_for_other_inputs_is_not_used(world, monkeypatch):
    """The file name is a crc32 of the key; the key inside decides."""
    work = world["work"]
    confine_grant("ls", work, work, write=False, network=False)
    (path,) = (locations.cache_dir() / "lines").glob("*.json")
    monkeypatch.setattr(enforce, "_line_file", lambda key: path)
    other = world["root"] / "other"
    other.mkdir()
    line = confine_grant("ls", other, other, write=True, network=False).line
    assert line == fresh(other, True)


def test_a_remembered_line_that_does_not_start_as_lines_do_is_built_anew(world):
    """A damaged file whose head no longer starts with the scrub and the runner is not used."""
    import json

    work = world["work"]
    good = confine_grant("ls", work, work, write=False, network=False).line
    (path,) = (locations.cache_dir() / "lines").glob("*.json")
    saved = json.loads(path.read_text())
    saved["head"] = ""          # the bare command: it would run unconfined
    path.write_text(json.dumps(saved))
    assert confine_grant("ls", work, work, write=False, network=False).line == good
