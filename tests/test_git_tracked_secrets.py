"""git forms that print file contents read what the repository tracks
(``corpus/git_tracked_secrets.jsonl``): in a repository whose index tracks a file of the leak
table, ``git log -p``, ``git show``, ``git diff``, ``git grep``, ``git cat-file --batch`` are
leak-class reads, while the forms that print names, counts or messages are not, and a
repository without a secret is not affected. Real git is the oracle: each line runs in the same
repositories and its label must say whether the canary was printed. A hook's confined line does
not help here (the object store is not masked): the classifier must ask."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from _helpers import assert_git_leak_verdict, assert_git_oracle
from conftest import load

from shellgate.bash.paths.roles import GIT_READ
from shellgate.check import Gate

CASES = load("git_tracked_secrets.jsonl")
GIT = shutil.which("git")
CANARY = "CANARY-tracked-7d1e"
pytestmark = pytest.mark.skipif(GIT is None, reason="no git")


@pytest.fixture(scope="module")
def repos(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, str]]:
    base = Path(os.path.realpath(tmp_path_factory.mktemp("gittracked")))
    home, ws = base / "home", base / "ws"
    home.mkdir()
    (ws / "nogit").mkdir(parents=True)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e"}
    for name, secret in (("tracked", ".env"), ("clean", "settings.txt")):
        repo = ws / name
        subprocess.run([GIT or "git", "init", "-q", str(repo)], env=env, check=True)
        (repo / "README.md").write_text("# readme\n")
        for step in range(3):   # two commits, then a change left in the work tree
            (repo / secret).write_text(f"API_KEY={CANARY}-{step}\n" if name == "tracked"
                                       else f"colour = {step}\n")
            if step < 2:
                subprocess.run(["bash", "-c", f"git add -A && git commit -qm 'step {step}'"], cwd=repo,
                               env=env, check=True)
    ini = ws / "ini"   # a secret in config syntax: `git config --blob` prints it
    subprocess.run([GIT or "git", "init", "-q", str(ini)], env=env, check=True)
    (ini / ".env").write_text(f"[api]\n\tvalue = {CANARY}\n")
    subprocess.run(["bash", "-c", "git add -A && git commit -qm ini"], cwd=ini, env=env, check=True)
    sup = ws / "super"   # no secret of its own; its submodule (its own repository in the work tree) has one
    script = (f"git init -q && echo '# super' > README.md && git init -q sub && "
              f"echo 'API_KEY={CANARY}-sub' > sub/.env && git -C sub add .env && git -C sub commit -qm s && "
              "git add README.md && git submodule -q add \"$PWD/sub\" sub && git commit -qm super")
    sup.mkdir()
    subprocess.run(["bash", "-c", script], cwd=sup, env=env, check=True, capture_output=True)
    return home, ws, env


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['dir']}:{c['cmd']}")
def test_content_forms_read_what_is_tracked(repos: tuple[Path, Path, dict[str, str]], case: dict) -> None:
    home, ws, _ = repos
    assert_git_leak_verdict(ws, home, case)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['dir']}:{c['cmd']}")
def test_label_agrees_with_git(repos: tuple[Path, Path, dict[str, str]], case: dict) -> None:
    _, ws, env = repos
    assert_git_oracle(ws, env, case, CANARY)


def test_an_index_past_the_bound_counts_as_unread(tmp_path: Path, monkeypatch) -> None:
    """Fail closed: an index that is not read exactly (here: past the bound) makes a content
    form a leak-class read, since what it tracks is not known."""
    from shellgate.bash.paths import implicit

    subprocess.run([GIT or "git", "init", "-q", str(tmp_path)], check=True)
    for n in ("a.txt", "b.txt"):
        (tmp_path / n).write_text("x\n")
    subprocess.run([GIT or "git", "-C", str(tmp_path), "add", "-A"], check=True)
    gate = Gate(tmp_path, mode="balanced", home=tmp_path)
    assert gate.check("git log -p").decision == "allow"
    monkeypatch.setattr(implicit, "TRACKED_BOUND", 1)
    verdict = Gate(tmp_path, mode="balanced", home=tmp_path).check("git log -p")
    assert verdict.decision == "ask" and "not read exactly" in verdict.to_json()["sensitive"][0]["pattern"]


@pytest.mark.parametrize("opt", sorted(GIT_READ.data_opts))
def test_a_read_form_option_that_hides_the_next_word_takes_it_in_git(repos, opt: str) -> None:
    """The path scan skips the word after a value option of git's read forms: real git must
    take that word as the value (or refuse the option), never print ``HEAD:.env`` after it."""
    _, ws, env = repos
    run = subprocess.run([GIT or "git", "show", opt, "HEAD:.env"], cwd=ws / "tracked", env=env,
                         capture_output=True, stdin=subprocess.DEVNULL)
    assert CANARY.encode() not in run.stdout


@pytest.mark.parametrize("opt", ["-s", "-m", "-b", "-B", "-u", "-X", "--pretty", "-F"])
def test_a_switch_of_the_read_forms_hides_no_operand(repos, opt: str) -> None:
    """Switches in git show (it prints the blob after each): the scan must still see the blob
    they are followed by."""
    home, ws, env = repos
    verdict = Gate(ws, mode="balanced", home=home).check(f"git show {opt} HEAD:.env", cwd=ws / "tracked")
    assert verdict.decision != "allow", verdict.to_json()
