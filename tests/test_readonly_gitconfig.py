"""git's read forms are read-only only in repositories whose configuration runs no program.

Real repositories made with git itself (init, worktree add, bare, submodule-like gitdir files)
in a temp dir, a fake HOME for the global config. Each test changes one thing and checks that
``git status`` (or ``git log``/``git diff``) flips from read-only to not read-only.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context
from shellgate.bash.git import config as gitconfig


def _git(*args: str, cwd: Path, home: Path) -> None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x"}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    home.mkdir()
    ws = tmp_path / "repo"
    ws.mkdir()
    _git("init", "-q", cwd=ws, home=home)
    (ws / "a.txt").write_text("a\n")
    _git("add", "a.txt", cwd=ws, home=home)
    _git("commit", "-q", "-m", "init", cwd=ws, home=home)
    return ws, home


def _ro(cmd: str, cwd: Path, home: Path, workspace: Path | None = None) -> tuple[bool, list[str]]:
    a = analyse(cmd, Context(cwd=cwd, workspace=workspace or cwd, home=home))
    return a.readonly, [r.message for r in a.reasons]


def test_clean_repo_is_readonly(repo: tuple[Path, Path]) -> None:
    ws, home = repo
    for cmd in ("git status", "git log --oneline -5", "git diff", "git show HEAD", "git branch -a"):
        ok, why = _ro(cmd, ws, home)
        assert ok, (cmd, why)


@pytest.mark.parametrize("key,value,cmd", [
    ("core.fsmonitor", "./fsmon.sh", "git status"),
    ("core.fsmonitor", "true", "git status"),
    ("core.pager", "sh -c id", "git log"),
    ("pager.log", "sh", "git log"),
    ("diff.external", "./d.sh", "git diff"),
    ("diff.pdf.textconv", "./t.sh", "git diff"),
    ("diff.pdf.command", "./t.sh", "git show HEAD"),
    ("filter.lfs.clean", "git-lfs clean -- %f", "git status"),
    ("filter.x.process", "./p.sh", "git status"),
    ("core.alternateRefsCommand", "./a.sh", "git log --alternate-refs"),
    ("log.showSignature", "true", "git log"),
    ("trace2.eventTarget", "/tmp/trace", "git status"),
])
def test_program_running_key_makes_git_not_readonly(repo: tuple[Path, Path], key: str, value: str,
                                                    cmd: str) -> None:
    ws, home = repo
    assert _ro(cmd, ws, home)[0]
    _git("config", key, value, cwd=ws, home=home)
    ok, why = _ro(cmd, ws, home)
    assert not ok
    assert any(key.split(".")[0] in w for w in why), why


def test_false_values_stay_readonly(repo: tuple[Path, Path]) -> None:
    ws, home = repo
    _git("config", "core.fsmonitor", "false", cwd=ws, home=home)
    _git("config", "pager.log", "false", cwd=ws, home=home)
    _git("config", "log.showSignature", "false", cwd=ws, home=home)
    assert _ro("git status", ws, home)[0]
    assert _ro("git log", ws, home)[0]


def test_subdirectory_finds_the_repository(repo: tuple[Path, Path]) -> None:
    ws, home = repo
    sub = ws / "deep" / "er"
    sub.mkdir(parents=True)
    _git("config", "core.fsmonitor", "./x", cwd=ws, home=home)
    assert not _ro("git status", sub, home, workspace=ws)[0]


def test_worktree_uses_the_main_repository_config(repo: tuple[Path, Path], tmp_path: Path) -> None:
    ws, home = repo
    wt = tmp_path / "wt"
    _git("worktree", "add", "-q", str(wt), cwd=ws, home=home)
    assert (wt / ".git").is_file()
    assert _ro("git status", wt, home)[0]
    _git("config", "core.fsmonitor", "./x", cwd=ws, home=home)
    ok, why = _ro("git status", wt, home)
    assert not ok and any("fsmonitor" in w for w in why)


def test_worktree_config_file(repo: tuple[Path, Path], tmp_path: Path) -> None:
    ws, home = repo
    wt = tmp_path / "wt2"
    _git("worktree", "add", "-q", str(wt), cwd=ws, home=home)
    _git("config", "extensions.worktreeConfig", "true", cwd=ws, home=home)
    _git("config", "--worktree", "diff.external", "./d.sh", cwd=wt, home=home)
    assert not _ro("git diff", wt, home)[0]
    assert _ro("git diff", ws, home)[0]  # only that worktree's config.worktree says so


def test_include_path_is_followed(repo: tuple[Path, Path]) -> None:
    ws, home = repo
    (ws / ".git" / "extra.inc").write_text("[core]\n\tfsmonitor = ./evil\n")
    _git("config", "include.path", "extra.inc", cwd=ws, home=home)
    ok, why = _ro("git status", ws, home)
    assert not ok and any("extra.inc" in w for w in why)


def test_include_if_is_followed_whatever_the_condition(repo: tuple[Path, Path], tmp_path: Path) -> None:
    ws, home = repo
    inc = tmp_path / "cond.inc"
    inc.write_text("[diff]\n\texternal = ./d\n")
    _git("config", "includeIf.gitdir:/nowhere/.path", str(inc), cwd=ws, home=home)
    assert not _ro("git diff", ws, home)[0]


def test_nested_include_in_home(repo: tuple[Path, Path]) -> None:
    ws, home = repo
    (home / ".gitconfig").write_text("[include]\n\tpath = ~/.gitconfig.d/extra\n")
    (home / ".gitconfig.d").mkdir()
    (home / ".gitconfig.d" / "extra").write_text("[core]\n\tpager = delta\n")
    ok, why = _ro("git log", ws, home)
    assert not ok and any("core.pager" in w for w in why)


def test_global_and_xdg_config(repo: tuple[Path, Path]) -> None:
    ws, home = repo
    assert _ro("git log", ws, home)[0]
    (home / ".config" / "git").mkdir(parents=True)
    (home / ".config" / "git" / "config").write_text('[filter "lfs"]\n\tclean = git-lfs clean -- %f\n')
    assert not _ro("git status", ws, home)[0]


def test_global_config_applies_outside_a_repository(tmp_path: Path) -> None:
    home = tmp_path / "h"
    home.mkdir()
    (home / ".gitconfig").write_text("[diff]\n\texternal = ./x\n")
    outside = tmp_path / "plain"
    outside.mkdir()
    assert not _ro("git diff --no-index a b", outside, home)[0]


def test_malformed_config_fails_closed(repo: tuple[Path, Path]) -> None:
    ws, home = repo
    with open(ws / ".git" / "config", "a") as f:
        f.write('[core\n\tfsmonitor = "unterminated\n')
    ok, why = _ro("git status", ws, home)
    assert not ok and any("could not be read" in w for w in why)


def test_post_index_change_hook(repo: tuple[Path, Path]) -> None:
    ws, home = repo
    hook = ws / ".git" / "hooks" / "post-index-change"
    hook.write_text("#!/bin/sh\nid\n")
    hook.chmod(0o755)
    assert not _ro("git status", ws, home)[0]


def test_hooks_path_elsewhere(repo: tuple[Path, Path]) -> None:
    ws, home = repo
    hooks = ws / ".husky"
    hooks.mkdir()
    _git("config", "core.hooksPath", ".husky", cwd=ws, home=home)
    assert _ro("git status", ws, home)[0]  # a hooks dir without post-index-change is fine
    (hooks / "post-index-change").write_text("#!/bin/sh\n")
    assert not _ro("git status", ws, home)[0]


def test_gitdir_file_pointing_to_an_evil_gitdir(repo: tuple[Path, Path], tmp_path: Path) -> None:
    ws, home = repo
    evil = tmp_path / "evil.git"
    _git("init", "-q", "--bare", str(evil), cwd=tmp_path, home=home)
    _git("config", "core.fsmonitor", "./x", cwd=evil, home=home)
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / ".git").write_text(f"gitdir: {evil}\n")
    assert not _ro("git status", checkout, home)[0]


def test_inside_a_bare_repository(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    bare = tmp_path / "b.git"
    _git("init", "-q", "--bare", str(bare), cwd=tmp_path, home=home)
    assert _ro("git log", bare, home)[0]
    _git("config", "core.pager", "sh", cwd=bare, home=home)
    assert not _ro("git log", bare, home)[0]
    assert not _ro("git log", bare / "refs", home, workspace=bare)[0]


def test_submodule_config_is_checked(repo: tuple[Path, Path]) -> None:
    ws, home = repo
    mod = ws / ".git" / "modules" / "lib"
    mod.mkdir(parents=True)
    (mod / "HEAD").write_text("ref: refs/heads/main\n")
    (mod / "config").write_text("[core]\n\tfsmonitor = ./x\n")
    ok, why = _ro("git status", ws, home)
    assert not ok and any("modules" in w for w in why)


def test_cd_into_an_evil_repository(repo: tuple[Path, Path], tmp_path: Path) -> None:
    ws, home = repo
    evil = ws / "vendor" / "evil"
    evil.mkdir(parents=True)
    _git("init", "-q", cwd=evil, home=home)
    _git("config", "core.fsmonitor", "./x", cwd=evil, home=home)
    assert _ro("git status", ws, home)[0]
    assert not _ro("cd vendor/evil && git status", ws, home)[0]
    assert not _ro("git -C vendor/evil status", ws, home)[0]
    assert not _ro("(cd vendor/evil; git log)", ws, home)[0]


def test_cache_sees_changes(repo: tuple[Path, Path]) -> None:
    ws, home = repo
    assert _ro("git status", ws, home)[0]
    cfg = ws / ".git" / "config"
    before = cfg.stat().st_mtime_ns
    cfg.write_text(cfg.read_text() + "[core]\n\tfsmonitor = ./x\n")
    os.utime(cfg, ns=(before + 10**9, before + 10**9))
    assert not _ro("git status", ws, home)[0]


def test_network_forms_are_not_readonly_even_in_a_clean_repo(repo: tuple[Path, Path]) -> None:
    ws, home = repo
    for cmd in ("git fetch", "git pull", "git push", "git ls-remote origin"):
        a = analyse(cmd, Context(cwd=ws, workspace=ws, home=home))
        assert not a.readonly and a.effect.value == "network", cmd


# --- the config reader on its own ---

def test_parse_config_syntax() -> None:
    text = ('# comment\n[core]\n\tfsmonitor = "a b" ; trailing comment\n  bare\n'
            '[diff "PDF"]\n\ttextconv = x \\\n  y\n[Section.Sub]\nKey=v\n')
    entries = gitconfig.parse_config(text)
    assert gitconfig.Entry("core", None, "fsmonitor", "a b") in entries
    assert gitconfig.Entry("core", None, "bare", None) in entries
    assert gitconfig.Entry("diff", "PDF", "textconv", "x   y") in entries
    assert gitconfig.Entry("section", "sub", "key", "v") in entries


@pytest.mark.parametrize("bad", ['[core\nx=1\n', 'x = 1\n', '[core]\nx = "open\n', '[core]\n9x = 1\n',
                                 '[core]\nx = a\\q\n'])
def test_parse_config_errors(bad: str) -> None:
    with pytest.raises(gitconfig.ConfigError):
        gitconfig.parse_config(bad)


def test_program_keys() -> None:
    E = gitconfig.Entry
    assert gitconfig.program_key(E("core", None, "fsmonitor", "hook")) is not None
    assert gitconfig.program_key(E("core", None, "fsmonitor", "false")) is None
    assert gitconfig.program_key(E("core", None, "editor", "vim")) is None
    assert gitconfig.program_key(E("credential", None, "helper", "store")) is None
    assert gitconfig.program_key(E("filter", "lfs", "smudge", "x")) is not None


def test_parser_agrees_with_git(tmp_path: Path) -> None:
    """Differential check against `git config --list` on a file full of syntax corners."""
    text = ('# c\n[core]\n\tfsmonitor = "a b" ; c\n  bare\n[diff "PDF"]\n\ttextconv = x \\\n  y\n'
            '[Section.Sub]\nKey=v\n[a "b\\"c"] k = v1\n[x]k=  "  spaced  "  tail  \n'
            '\tk2 = a\\tb\\\\c\\"d\n\tk3 = "# not comment" # comment\n')
    cfg = tmp_path / "t.cfg"
    cfg.write_text(text)
    out = subprocess.run(["git", "config", "-f", str(cfg), "--list", "-z"], capture_output=True,
                         check=True).stdout.decode()
    theirs = []
    for item in out.split("\0"):
        if item:
            key, _, value = item.partition("\n")
            theirs.append((key, value if "\n" in item else None))
    ours = []
    for e in gitconfig.parse_config(text):
        name = ".".join(p for p in (e.section, e.subsection, e.key) if p is not None)
        ours.append((name, e.value))
    assert [(k.lower(), v) for k, v in theirs] == [(k.lower(), v) for k, v in ours]


def test_dotted_section_names_split_as_git_splits_them() -> None:
    """`[diff.x "y"]` is the variable diff.x.y.textconv: driver x.y, the same as `[diff "x.y"]`
    (git's parse_config_key splits at the first and the last dot)."""
    for text in ('[diff.x "y"]\n\ttextconv = t\n', '[diff "x.y"]\n\ttextconv = t\n',
                 '[Diff.X "y"]\n\ttextconv = t\n', '[diff.x.y]\n\ttextconv = t\n'):
        (e,) = gitconfig.parse_config(text)
        assert (e.section, e.subsection.lower()) == ("diff", "x.y"), text
        assert gitconfig.program_key(e) is not None, text
    (e,) = gitconfig.parse_config('[remote.origin "x"]\n\tpromisor = true\n')
    assert (e.section, e.subsection, e.key) == ("remote", "origin.x", "promisor")
    assert gitconfig.program_key(e) is not None


@pytest.mark.parametrize("value", [
    "true", "tRuE", "yes", "On", "false", "NO", "off", "0", "1", "2", "-1", "-0", "+1", "1k", "1K",
    "0k", "1g", "2g", "01m", "010", "08", "0x10", "0X1F", "+0x1f", "0x", "k", "-k", "m",
    "2147483647", "2147483648", "-2147483647", "-2147483648", "-0x80000000",
    "99999999999999999999", '""', '" "', '" 1"', '"\\t1"', '"1 "', '"0 "', '" yes "', '" false"',
    '"1 k"', '"1kb"', "treu"])
def test_booleans_read_as_git_reads_them(tmp_path: Path, value: str) -> None:
    """keys.git_bool against `git config --bool` (git_config_bool): true, false, or rejected."""
    from shellgate.bash.git.keys import git_bool

    cfg = tmp_path / "b.cfg"
    cfg.write_text(f"[x]\n\tb = {value}\n")
    run = subprocess.run(["git", "config", "-f", str(cfg), "--bool", "x.b"], capture_output=True, text=True)
    theirs = {"true": True, "false": False}.get(run.stdout.strip()) if run.returncode == 0 else None
    (e,) = gitconfig.parse_config(cfg.read_text())
    assert git_bool(e.value) == theirs, (value, run.stdout, run.stderr)


def test_signature_placeholders() -> None:
    from shellgate.bash.git.keys import shows_signatures

    for fmt in ("%G?", "%+G?", "%-GS", "% GK", "%<(9)%GF", "tformat:%h%n%GP", "%%%GT", "%Gx", "%GG",
                "%(signature)"):
        assert shows_signatures(fmt), fmt
    for fmt in ("%h %s", "%%G?", "%gd %gs", "%+gs", "format:%H%%GS", "G?"):
        assert not shows_signatures(fmt), fmt


def test_alias_named_like_a_read_form(repo: tuple[Path, Path]) -> None:
    """If a newer git dropped a subcommand, git would run an alias of that name instead."""
    ws, home = repo
    assert _ro("git whatchanged -1", ws, home)[0]
    _git("config", "alias.whatchanged", "!sh -c id", cwd=ws, home=home)
    assert not _ro("git whatchanged -1", ws, home)[0]
    _git("config", "alias.lg", "!sh -c id", cwd=ws, home=home)  # other aliases are irrelevant


def test_environment_git_reads(repo: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """A GIT_* variable the checks do not model makes the read forms not read-only, naming it;
    reviewed ones do not; GIT_PAGER/PAGER count only where a pager may start and names a
    program other than git's own default (git_pager starts none for "" or "cat", and runs less
    with nothing set). tests/test_git_setup_oracle.py runs git."""
    ws, home = repo
    for name, value, pager, counts in (("GIT_DIR", "/x", False, True), ("GIT_TRACE", "1", False, True),
                                       ("GIT_AUTHOR_NAME", "a", False, False),
                                       ("GIT_SSL_CAINFO", "/c", False, False),
                                       ("PAGER", "most", True, True), ("PAGER", "less -R", True, True),
                                       ("PAGER", "most", False, False), ("PAGER", "less", True, False),
                                       ("GIT_PAGER", "cat", True, False)):
        with monkeypatch.context() as m:
            m.setenv(name, value)
            problems = gitconfig.check(ws, home, pager=pager)
        assert any(name in p for p in problems) == counts, (name, value, problems)
