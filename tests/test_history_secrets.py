"""git forms that print contents print history too (``corpus/history_secrets.jsonl``): after
``git rm --cached .env`` the index no longer names it, but every earlier commit, the reflog,
the stash and the object store still hold it, and ``git log -p``, ``git show HEAD~1``, ``git
grep PAT HEAD~1`` print it. The classifier reads every tree of the store
(``shellgate.bash.git.objects``, remembered by ``shellgate.bash.git.history``). Real git is the
oracle: each corpus line runs in the same repositories and its label must say whether the
canary was printed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from _helpers import assert_git_leak_verdict, assert_git_oracle
from conftest import load

from shellgate.bash.git import objects
from shellgate.check import Gate

CASES = load("history_secrets.jsonl")
GIT = shutil.which("git") or "git"
CANARY = "CANARY-history-5b2c"
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="no git")

_LEAK = (f"echo 'API_KEY={CANARY}' > .env && echo '# readme' > README.md && git add -A && "
         "git commit -qm one && git rm -q --cached .env && echo .env > .gitignore && git add .gitignore && "
         "git commit -qm two")
_SCRIPTS = {
    "hist": _LEAK,
    "packed": _LEAK + " && for i in 1 2; do echo $i >> README.md && git commit -qam $i; done && git gc -q",
    "reflog": f"echo '# r' > README.md && git add -A && git commit -qm one && "
              f"echo 'API_KEY={CANARY}' > .env && git add .env && git commit -qm two && "
              "git reset -q --hard HEAD~1",
    "stashed": f"echo '# r' > README.md && git add -A && git commit -qm one && "
               f"echo 'API_KEY={CANARY}' > .env && git add .env && git stash -q",
    "clean": _LEAK.replace(".env", "settings.txt").replace(f"API_KEY={CANARY}", "colour = 1"),
}


def _env(home: Path) -> dict[str, str]:
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@e"}


def _repo(path: Path, script: str, env: dict[str, str]) -> Path:
    subprocess.run([GIT, "init", "-q", str(path)], env=env, check=True)
    subprocess.run(["bash", "-c", script], cwd=path, env=env, check=True, capture_output=True)
    return path


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    base = Path(os.path.realpath(tmp_path_factory.mktemp("githistory")))
    home, ws = base / "home", base / "ws"
    home.mkdir()
    env = _env(home)
    for name, script in _SCRIPTS.items():
        _repo(ws / name, script, env)
    assert list((ws / "packed/.git/objects/pack").glob("*.pack")), "git gc left no pack"
    return home, ws, env


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['dir']}:{c['cmd']}")
def test_content_forms_read_the_history(repos: tuple[Path, Path, dict[str, str]], case: dict) -> None:
    home, ws, _ = repos
    assert_git_leak_verdict(ws, home, case)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['dir']}:{c['cmd']}")
def test_label_agrees_with_git(repos: tuple[Path, Path, dict[str, str]], case: dict) -> None:
    _, ws, env = repos
    assert_git_oracle(ws, env, case, CANARY)


def test_the_reason_names_the_history(repos: tuple[Path, Path, dict[str, str]]) -> None:
    home, ws, _ = repos
    verdict = Gate(ws, mode="balanced", home=home).check("git log -p", cwd=ws / "hist")
    hit = verdict.to_json()["sensitive"][0]
    assert hit["path"].endswith("/hist/.env") and "history" in hit["pattern"], hit


def test_a_new_commit_is_seen_after_the_answer_was_remembered(tmp_path: Path) -> None:
    """The remembered answer is keyed by the store: the leak committed after a first (allowed)
    check is asked about at the next one."""
    env = _env(tmp_path)
    repo = _repo(tmp_path / "r", "echo x > a.txt && git add -A && git commit -qm a", env)
    gate = Gate(repo, mode="balanced", home=tmp_path)
    assert gate.check("git log -p", cwd=repo).decision == "allow"
    subprocess.run(["bash", "-c", _LEAK], cwd=repo, env=env, check=True, capture_output=True)
    run = subprocess.run([GIT, "log", "-p"], cwd=repo, env=env, capture_output=True, check=True)
    assert CANARY.encode() in run.stdout
    assert Gate(repo, mode="balanced", home=tmp_path).check("git log -p", cwd=repo).decision == "ask"


def test_a_store_past_the_bound_is_asked_about(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail closed: a store not read exactly (here: more objects than the bound) makes a
    content form a leak-class read, with the reason; a names-only form stays allowed."""
    env = _env(tmp_path)
    repo = _repo(tmp_path / "r", "echo x > a.txt && git add -A && git commit -qm a", env)
    monkeypatch.setattr(objects, "MAX_OBJECTS", 1)
    gate = Gate(repo, mode="balanced", home=tmp_path)
    verdict = gate.check("git log -p", cwd=repo)
    assert verdict.decision == "ask" and "not read exactly" in verdict.to_json()["sensitive"][0]["pattern"]
    assert gate.check("git log --oneline", cwd=repo).decision == "allow"


def test_a_partial_clone_is_asked_about(tmp_path: Path) -> None:
    """A promisor pack: git fetches what the store lacks, which no reading of it can judge."""
    env = _env(tmp_path)
    src = _repo(tmp_path / "src", "echo x > a.txt && git add -A && git commit -qm a", env)
    subprocess.run([GIT, "-c", "uploadpack.allowFilter=1", "clone", "-q", "--no-local", "--filter=blob:none",
                    f"file://{src}", str(tmp_path / "part")], env=env, check=True, capture_output=True)
    assert list((tmp_path / "part/.git/objects/pack").glob("*.promisor"))
    verdict = Gate(tmp_path / "part", mode="balanced", home=tmp_path).check("git show", cwd=tmp_path / "part")
    assert verdict.decision == "ask" and "partial clone" in verdict.to_json()["sensitive"][0]["pattern"]


def test_every_name_git_lists_is_found_in_packs_and_deltas(tmp_path: Path) -> None:
    """The reader against git itself over a packed history with deltified trees: every path of
    every commit (``log --all -m --root --name-only``) is among the paths it reports."""
    env = _env(tmp_path)
    script = ("for i in $(seq 1 40); do d=d$((i % 4))/e$((i % 3)); mkdir -p $d; echo $i > $d/f$i; "
              "echo $i >> top.txt; git add -A; git commit -qm $i; "
              "if [ $((i % 7)) = 0 ]; then git rm -qr --cached d$((i % 4)); git commit -qm rm$i; fi; "
              "done; "
              "git gc -q --aggressive")
    repo = _repo(tmp_path / "r", script, env)
    argv = [GIT, "log", "--all", "--reflog", "-m", "--root", "--no-renames", "--format=", "--name-only"]
    out = subprocess.run(argv, cwd=repo, env=env, capture_output=True, text=True, check=True).stdout
    want = set(out.split())
    assert len(want) > 40
    got = set(objects.names_ever_held(repo / ".git/objects", 20, lambda n: True))
    assert want <= got, sorted(want - got)


def test_malformed_stores_are_unread_not_errors(tmp_path: Path) -> None:
    """Odd stores end in Unread (the forms ask), never in another exception: a tree that is no
    run of entries (parsed entry by entry: an unanchored search rescanned the rest at every
    position, quadratic in a crafted tree's size), and an alternates line with a NUL byte."""
    with pytest.raises(objects.Unread):
        objects._entries(b"100644 " * 20000, 20)
    (tmp_path / "info").mkdir()
    (tmp_path / "info" / "alternates").write_bytes(b"a\0b\n")
    with pytest.raises(objects.Unread):
        objects.store_dirs(tmp_path)
