"""Sensitive paths in bash scripts (paths.scan), driven by corpus/paths_bash.jsonl, plus
symlinks on a real filesystem and robustness on arbitrary input."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from conftest import load
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.bash.facts import Context, PathClass, PathOp
from shellgate.bash.parse.parser import parse
from shellgate.bash.paths import resolve as paths

CTX = Context(cwd=Path("/srv/ws/proj"), workspace=Path("/srv/ws/proj"), home=Path("/home/tester"))
CASES = load("paths_bash.jsonl")


def _kinds(cmd: str, ctx: Context = CTX) -> set[tuple[str, str]]:
    return {(h.cls.value, h.op.value) for h in paths.scan(parse(cmd), ctx)}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["cmd"][:50])
def test_scan(case: dict) -> None:
    want = {(h["class"], h["op"]) for h in case["hits"]}
    hits = paths.scan(parse(case["cmd"]), CTX)
    assert {(h.cls.value, h.op.value) for h in hits} == want, hits


def test_corpus_is_big_enough() -> None:
    assert len(CASES) >= 40
    assert sum(1 for c in CASES if c["hits"]) >= 20 and sum(1 for c in CASES if not c["hits"]) >= 20


def test_hit_spans_point_at_the_word() -> None:
    cmd = "ls && cat  ~/.ssh/id_rsa"
    (hit,) = paths.scan(parse(cmd), CTX)
    assert cmd[hit.span[0]:hit.span[1]] == "~/.ssh/id_rsa"
    assert hit.path == "/home/tester/.ssh/id_rsa" and hit.pattern == "~/.ssh/**"


def test_redirect_span() -> None:
    cmd = "echo x >> ~/.profile"
    (hit,) = paths.scan(parse(cmd), CTX)
    assert hit.cls is PathClass.IMPLANT and "~/.profile" in cmd[hit.span[0]:hit.span[1]]


def test_cwd_decides_relative_paths() -> None:
    home_ctx = Context(cwd=Path("/home/tester"), workspace=Path("/home/tester"), home=Path("/home/tester"))
    assert _kinds("echo x >> .bashrc", home_ctx) == {("implant", "write")}
    assert _kinds("echo x >> .bashrc") == set()
    assert _kinds("grep -r foo .", home_ctx) == {("leak", "read")}
    assert _kinds("grep -r foo .") == set()


def test_symlink_in_workspace_to_a_fake_home_key(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")
    ws = tmp_path / "ws"
    ws.mkdir()
    os.symlink(home / ".ssh" / "id_rsa", ws / "notes.txt")
    os.symlink(home / ".ssh", ws / "keys")
    ctx = Context(cwd=ws, workspace=ws, home=home)
    (hit,) = paths.scan(parse("cat notes.txt"), ctx)
    assert hit.cls is PathClass.LEAK and hit.path == os.path.realpath(home / ".ssh" / "id_rsa")
    assert _kinds("cat keys/id_rsa", ctx) == {("leak", "read")}
    assert _kinds("cat not*.txt", ctx) == {("leak", "read")}  # the glob expands to the link
    assert paths.check_path(str(ws / "notes.txt"), PathOp.READ, ctx) is not None
    assert _kinds("cat other.txt", ctx) == set()


def test_symlinked_hooks_dir_is_seen_through(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".git" / "hooks").mkdir(parents=True)
    os.symlink(ws / ".git" / "hooks", ws / "h")
    ctx = Context(cwd=ws, workspace=ws, home=tmp_path / "home")
    assert _kinds("cp x.sh h/post-checkout", ctx) == {("implant", "write")}


def test_glob_expands_against_the_filesystem(tmp_path: Path) -> None:
    (tmp_path / "prod.key").write_text("k")
    (tmp_path / "a.txt").write_text("a")
    ctx = Context(cwd=tmp_path, workspace=tmp_path, home=tmp_path / "home")
    assert _kinds("cat *", ctx) == {("leak", "read")}
    (tmp_path / "prod.key").unlink()
    assert _kinds("cat *", ctx) == set()


@settings(deadline=None)
@given(st.text(max_size=120))
def test_scan_never_raises(src: str) -> None:
    for hit in paths.scan(parse(src), CTX):
        assert not hit.pattern.startswith("internal-error"), hit


_TOKENS = ["cat", "cp", "-r", "~/.ssh/", "$HOME", ">", ">>", "|", ";", "tee", "git", "config", "--global",
           "find", "-exec", "{}", "\\;", ".env", "*", "'", '"', "$(", ")", "sudo", "dd", "of=x", "-t",
           "--", "a=b", "@x", "ln", "-s", ".git/hooks/x", "<", "<<EOF"]


@settings(deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), max_size=12))
def test_scan_never_raises_on_shell_like_text(parts: list[str]) -> None:
    for hit in paths.scan(parse(" ".join(parts)), CTX):
        assert not hit.pattern.startswith("internal-error"), hit


def test_tree_reads_find_a_real_secret_below(tmp_path: Path) -> None:
    """Recursive readers see hidden files: `grep -r` next to a `.env` reads it; rg skips it
    unless something includes hidden entries (a flag, a glob, a type, or a `!.env` line of an
    ignore file: tests/test_rg_hidden.py; rg reads every other file, a `keys/id_rsa` too);
    dependency caches and `.git` are not walked; a plain `ls` and `rg --files` (names only)
    never count."""
    home, ws = tmp_path / "home", tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("x")
    ctx = Context(cwd=ws, workspace=ws, home=home)
    assert _kinds("grep -rn token .", ctx) == set()
    (ws / "node_modules" / "lib").mkdir(parents=True)
    (ws / "node_modules" / "lib" / "test-key.pem").write_text("k")
    (ws / ".git").mkdir()
    (ws / ".git" / "config").write_text("[core]")
    assert _kinds("grep -rn token .", ctx) == set()
    (ws / "src" / ".env").write_text("TOKEN=1")
    assert _kinds("grep -rn token .", ctx) == {("leak", "read")}
    assert _kinds("grep -r token", ctx) == {("leak", "read")}
    assert _kinds("grep -rn token src/app.py", ctx) == set()
    assert _kinds("rg token", ctx) == set()
    assert _kinds("rg -g '*.py' token", ctx) == {("leak", "read")}
    (ws / ".ignore").write_text("!.env\n")
    assert _kinds("rg token", ctx) == {("leak", "read")}
    (ws / ".ignore").unlink()
    assert _kinds("rg --files", ctx) == set()
    assert _kinds("rg --hidden token", ctx) == {("leak", "read")}
    assert _kinds("tar czf /tmp/out.tgz .", ctx) == {("leak", "read")}
    assert _kinds("find . -type f -exec cat {} +", ctx) == {("leak", "read")}
    assert _kinds("find . -name '*.py' -exec du -h {} +", ctx) == set()
    assert _kinds("git ls-files | xargs wc -l", ctx) == {("leak", "read")}
    assert _kinds("ls -R", ctx) == set()
    (hit,) = paths.scan(parse("grep -r token ."), ctx)
    assert hit.path == str(ws / "src" / ".env")
