"""The pieces that judge a search by the tree it reads (the hook tests drive them end to end:
tests/test_hooks_search.py): which (directory, glob) pairs a search reads, when a path rule
meets that tree, and when the sensitive-path table does."""

from __future__ import annotations

import pytest

from shellgate.approval.classifier import search_scope
from shellgate.bash.facts import Context
from shellgate.bash.paths.resolve import check_search
from shellgate.permission.pattern import PathPattern


@pytest.mark.parametrize("globs,want", [
    ([], [("/ws", "**")]),
    (["*.py"], [("/ws", "**/*.py")]),                      # no slash: any depth (ripgrep)
    (["src/**/*.ts"], [("/ws/src", "**/*.ts")]),           # the literal head becomes the root
    (["*.{ts,tsx}"], [("/ws", "**/*.ts"), ("/ws", "**/*.tsx")]),
    (["*.js *.ts"], [("/ws", "**/*.js *.ts"), ("/ws", "**/*.js"), ("/ws", "**/*.ts")]),
    (["/etc/*.conf"], [("/etc", "*.conf")]),               # absolute: its own root
    (["~/.ssh/*"], [("~/.ssh", "*")]),
    (["../other/*.py"], [("/other", "*.py")]),             # a .. in the head leaves the root
    (["a/*/../x"], [("/", "**")]),                         # a .. after a wildcard: everything
    (["~/../../etc/*"], [("/", "**")]),                    # ~/.. is not for normpath to say
    (["/etc/../home/u/.ssh/*"], [("/home/u/.ssh", "*")]),
    (["docs/"], [("/ws", "**/docs/**")]),                  # a plain name may be a directory
    (["!*.env"], [("/ws", "**")]),                         # an exclusion alone: everything
    ([""], [("/ws", "**")]),
    (["{" + ",".join(f"a{i}" for i in range(70)) + "}"], [("/ws", "**")]),  # too many
])
def test_search_scope(globs, want):
    assert search_scope("/ws", globs) == want


@pytest.mark.parametrize("rule,root,below,meets", [
    ("~/.ssh/**", "/home/u", "**", True),
    ("~/.ssh/**", "/home/u", "**/*.py", True),       # ~/.ssh/x.py is both
    ("~/.ssh/**", "/home/u", "src/*.py", False),
    ("~/.ssh/**", "/home/u/.ssh/keys", "**", True),  # a search below the rule's directory
    ("~/.ssh/**", "/ws", "**", False),
    ("~/.ssh/**", "/", "**", True),
    ("~/.ssh/**", "/home", "*/.SSH/id_rsa", True),   # case is ignored (searches may ignore it)
    (".env", "/ws", "**", True),                     # a name rule: at any depth under the cwd
    (".env", "/ws", "**/*.py", True),                # … where a directory .env/ may hold a.py
    ("./.env", "/ws", "**/*.py", False),             # one path, no directory there: the file
    ("./.env", "/ws", "**/*", True),                 # a wildcard may stand for a leading dot
    ("//etc/**", "/", "usr/**", False),
    ("/secrets/**", "/ws", "**/*.txt", True),        # base-relative
    ("~/notes/[x].md", "/home/u/notes", "*.md", True),  # `[` is a plain character in a rule
])
def test_rule_meets_tree(rule, root, below, meets):
    """(/ws does not exist here: a rule naming one path under it names no directory.)"""
    pat = PathPattern.compile(rule)
    assert pat.meets(root, below, home="/home/u", base="/ws", cwd="/ws") is meets


def test_a_rule_naming_a_directory_covers_what_is_below(tmp_path):
    (tmp_path / "conf").mkdir()
    pat = PathPattern.compile("./conf")
    assert pat.meets(str(tmp_path), "**/*.py", home="/h", base="/b", cwd=str(tmp_path))
    (tmp_path / "conf").rmdir()
    (tmp_path / "conf").write_text("a file: nothing below it")
    assert not pat.meets(str(tmp_path), "**/*.py", home="/h", base="/b", cwd=str(tmp_path))


@pytest.fixture
def tree(tmp_path):
    home, ws = tmp_path / "home", tmp_path / "ws"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("k")
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "app.py").write_text("x")
    (ws / ".env").write_text("T=1")
    return {"home": str(home), "ws": str(ws),
            "ctx": Context.here(cwd=str(ws), workspace=str(ws), home=str(home))}


@pytest.mark.parametrize("root,below,hit", [
    ("{home}", "**", ".ssh"),               # the home holds ~/.ssh
    ("{home}", "**/*.md", ".ssh"),          # ~/.ssh/** is all secret: ~/.ssh/x.md too
    ("{home}", "src/*.py", None),           # anchored below the home, away from ~/.ssh
    ("{home}", "**/*", ".ssh"),
    ("{ws}", "**", ".env"),                 # a walk finds the .env
    ("{ws}", "**/*.py", None),              # … which *.py leaves out
    ("{ws}", "**/.e*", ".env"),
    ("{ws}/src", "**", None),
    ("{home}/.ssh/id_rsa", "**/*.py", "id_rsa"),  # a file given is read whatever the filter
])
def test_check_search(tree, root, below, hit):
    got = check_search(root.format(**tree), below, tree["ctx"])
    if hit is None:
        assert got is None, got
    else:
        assert got is not None and (hit in got.path or hit in got.pattern), got


def test_check_search_counts_a_link_whatever_its_name(tree):
    import os

    os.symlink(os.path.join(tree["home"], ".ssh", "id_rsa"), os.path.join(tree["ws"], "src", "a.md"))
    got = check_search(os.path.join(tree["ws"], "src"), "**/*.py", tree["ctx"])
    assert got is not None and got.path.endswith("id_rsa")
