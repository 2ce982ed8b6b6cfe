"""Whether a file the path table names with ``when`` holds a secret now (``PathRule.when``).

Some secrets live inside config files a tool reads at every run: a token in a git remote URL
or an ``http.extraHeader`` of ``~/.gitconfig``, an ``_authToken`` in a project's ``.npmrc``,
``user:password`` for a gem server in its ``.bundle/config``. Calling the file a secret whatever
it holds would ask before every ``cat ~/.gitconfig`` and hide the file from its tool in the
sandbox (git commits without ``user.name``, Yarn without its ``yarnPath``, Bundler without
``BUNDLE_PATH``); not calling it one lets a command print the token. So the leak holds where
the file's text holds a credential. Each check fails closed: a file that cannot be read as
plain UTF-8 text within the bound counts as holding one, and so does a credential-named key
whose value is anything but a reference to an environment variable (``${NPM_TOKEN}``).
Comments count: a reader prints them too.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

from ..._lazyre import lazy_compile
from ..._plain import read_plain

_MAX_TEXT = 1 << 20   # bigger than this: a credential for a reader (not looked at)


def _text(path: str) -> str | None:
    """The file's text; "" for a missing file; None when it is not plain UTF-8 within the bound."""
    try:
        return read_plain(path, _MAX_TEXT, follow=True).decode("utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return ""
    except (OSError, ValueError):   # a FIFO, a device, a directory, too large, not UTF-8
        return None


# npm's .npmrc (`//host/:_authToken=…`, `_auth`, `_password`), Yarn 1's .yarnrc (the same keys,
# space-separated) and Yarn 2+'s .yarnrc.yml (`npmAuthToken:`, `npmAuthIdent:`): a word naming a
# credential anywhere in a line — a comment's too (a reader prints it), a value's (a YAML anchor
# names a key elsewhere: `a: &k npmAuthToken`).
_NPM_WORD = lazy_compile(r"_auth|_password|npmauth|token|password", re.I)
# A line that only sets a key to a variable of the environment (npm and Yarn expand it at run
# time): the one line a credential word may stand in.
_ENV_LINE = lazy_compile(r"[ \t]*([\"']?)[\w@./:~+-]+\1[ \t]*[=: \t][ \t]*([\"']?)\$\{[A-Za-z_]\w*\}\2[ \t]*")
# The lines a reading by words is sure of: npm's ini parser trims a key with JavaScript's
# trim() (a form feed or U+2028 before the `=` vanishes), JSON-decodes a quoted one
# (`"_auth\u0054oken"`), cuts an unquoted one at `;` or `#` (`_authToken#x=`), drops a `[]`
# suffix and replaces `${X?}` in it by nothing (`_auth${X?}Token`); YAML decodes `\x54` in a
# double-quoted key and joins one across a line ending in a backslash; a `?` line is a key of
# its own. So a line is read only when it is blank, a comment, an ini section, a YAML document
# marker, or a key of plain characters (quoted or not, after YAML list dashes) with a separator
# and a value holding no backslash, no `!` (a YAML tag) and no `$` but in a `${NAME}`; the text
# is printable ASCII, lines ending at CR or LF as npm and YAML end them. Any other line: a
# credential may hide in it.
_NPM_TEXT = lazy_compile(r"[\t\r\n\x20-\x5b\x5d-\x7e]*")
_NPM_LINE = lazy_compile(r"""[ \t]*(?:
      [#;].*                                              # a comment
    | \[[\w@./:~+-]*\][ \t]*                              # an ini section
    | (?:---|\.\.\.)[ \t]*                                  # a YAML document marker
    | (?:-[ \t]+)*(?:[\w@./:~+-]+|"[\w@./:~+*^ -]*"|'[\w@./:~+*^ -]*')   # a key
      (?:[ \t]*[=: \t][ \t]*(?:[^\\$!]|\$\{[A-Za-z_]\w*\})*)?     # its separator and value
    | -[ \t]*                                              # an empty YAML list item
)?""", re.X)


def _npm_config(path: str) -> bool:
    from ..git.config import CREDENTIAL_URL as _CREDENTIAL_URL

    text = _text(path)
    if text is None or _CREDENTIAL_URL.search(text) or not _NPM_TEXT.fullmatch(text):
        return True
    for line in re.split(r"[\r\n]", text):
        if not _NPM_LINE.fullmatch(line):
            return True
        if _NPM_WORD.search(line) and not _ENV_LINE.fullmatch(line):
            return True
    return False


# Bundler's credentials sit under a key naming the host, dots as double underscores
# (`BUNDLE_GEMS__EXAMPLE__COM: "user:password"`, `BUNDLE_MIRROR__…`).
_BUNDLE_HOST_KEY = lazy_compile(r"^\s*[\"']?BUNDLE_\w*__\w*[\"']?\s*:", re.I | re.M)


def _bundle_config(path: str) -> bool:
    from ..git.config import CREDENTIAL_URL as _CREDENTIAL_URL

    text = _text(path)
    return text is None or bool(_CREDENTIAL_URL.search(text) or _BUNDLE_HOST_KEY.search(text))


# Bun's bunfig.toml: `[install] registry = { url = …, token = "…" }`, `[install.scopes]` entries
# (`myorg = { token = "…", url = … }`, `myorg = "https://user:pass@…"`), a value Bun expands from
# the environment (`"$NPM_TOKEN"`, `"${NPM_TOKEN}"`) being no token.
_BUN_KEY = lazy_compile(r"token|password|_auth|secret", re.I)
_BUN_ENV = lazy_compile(r"\$\{?[A-Za-z_][A-Za-z0-9_]*\}?")


def _bunfig(path: str) -> bool:
    """TOML as Bun reads it (a file that does not parse: fail closed): a string under a
    credential-named key that is not an environment reference, a URL with a user part anywhere
    in the text, a credential key in a comment (a reader prints it)."""
    text = _text(path)
    if not text:   # None: not readable as plain text; "": missing or empty (the usual case)
        return text is None
    from ..git.config import CREDENTIAL_URL as _CREDENTIAL_URL

    if _CREDENTIAL_URL.search(text):
        return True
    if any(_NPM_WORD.search(line.partition("#")[2]) for line in text.splitlines()):
        return True
    import tomllib  # (here: a hook's policy looks for ~/bunfig.toml, nearly always missing)

    try:
        return _bun_credential(tomllib.loads(text), "")
    except (tomllib.TOMLDecodeError, RecursionError):
        return True


def _bun_credential(node: object, key: str) -> bool:
    if isinstance(node, dict):
        return any(_bun_credential(v, str(k)) for k, v in node.items())
    if isinstance(node, list):
        return any(_bun_credential(v, key) for v in node)
    return isinstance(node, str) and bool(_BUN_KEY.search(key)) and not _BUN_ENV.fullmatch(node)


def _git_config(path: str) -> bool:
    """git's own reading of the file (values joined across continuation lines) through
    ``gitconfig.credential_entry``, and the text's URLs and headers, comments included. Its
    includes are not read: a reader prints this file alone (``git config`` forms follow them:
    ``gitconfig.credential_source``)."""
    from ..git.config import AUTH_HEADER, CREDENTIAL_URL, ConfigError, credential_entry, parse_config

    text = _text(path)
    if text is None or CREDENTIAL_URL.search(text) or AUTH_HEADER.search(text):
        return True
    try:
        return any(credential_entry(e) for e in parse_config(text.removeprefix("\ufeff")))
    except (ConfigError, RecursionError):
        return True


# The content checks by the name a table entry gives in ``when``.
CHECKS: dict[str, Callable[[str], bool]] = {
    "git-config": _git_config,
    "npm-config": _npm_config,
    "bundle-config": _bundle_config,
    "bunfig": _bunfig,
}


def holds_credential(path: str, when: str) -> bool:
    """Does ``path`` hold a credential by the check ``when`` names? A check not known here
    (a table entry naming one that was removed) answers yes."""
    check = CHECKS.get(when)
    return True if check is None else check(path)


# --- files a git config includes ------------------------------------------------------------------
# `[include] path = ~/.gitconfig-work` or `[includeIf "gitdir:~/work/"] path = …` puts git
# configuration — a token in a remote URL or an http.extraHeader — in a file of any name, which
# no table entry can name: the files the configuration git reads includes are secrets where their
# text holds a credential, found from the files that include them.

Note = Callable[[str, str], None]
_INCLUDE_WORD = lazy_compile(rb"include", re.I)
_MAX_ROOT = 8 << 20   # git.config's bound of one config file


def _roots_superset(dirs: Iterable[Path], home: Path, note: Note | None) -> list[str] | None:
    """A superset of the config files git run in each of ``dirs`` reads before any include,
    found without git's discovery (each ``.git`` directory up from a directory, the user's and
    the system's files whatever the environment picks); None where the exact reading must decide
    (a ``.git`` that is a file or a link, a git dir with a ``commondir``)."""
    env = os.environ
    files = [env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig", f"{home}/.gitconfig",
             f"{home}/.config/git/config"]
    files += [f"{env[n]}/git/config" if n == "XDG_CONFIG_HOME" else env[n]
              for n in ("GIT_CONFIG_GLOBAL", "XDG_CONFIG_HOME") if env.get(n)]
    for d in dirs:
        for up in (d, *d.parents):
            if note is not None:
                note("l", str(up / ".git"))
            try:
                st = os.lstat(up / ".git")
            except FileNotFoundError:
                files += [str(up / "config"), str(up / "config.worktree")]   # a bare repository's
                if os.path.lexists(up / "HEAD"):   # its linked worktrees' and submodules' too
                    configs, complete = git_dir_configs(str(up), note)
                    if not complete:
                        return None
                    files += configs
                continue
            except OSError:
                return None
            if not stat.S_ISDIR(st.st_mode) or os.path.lexists(up / ".git" / "commondir"):
                return None
            configs, complete = git_dir_configs(str(up / ".git"), note)
            if not complete:
                return None
            files += configs
            break
    return files


_MAX_GIT_DIRS = 200   # directories of a git dir listed for its worktrees' and submodules' configs


def git_dir_configs(gitdir: str, note: Note | None = None) -> tuple[list[str], bool]:
    """The config files a git dir holds that exist: its ``config`` and ``config.worktree``, each
    linked worktree's ``worktrees/<id>/config.worktree``, and each submodule's (``modules/<name>``,
    a name with slashes nested, their own ``modules`` in turn): git reads each of them when it
    runs in that worktree or submodule. With whether all could be listed (past
    ``_MAX_GIT_DIRS`` directories, not: the caller fails closed)."""
    out = [f"{gitdir}/config", f"{gitdir}/config.worktree"]
    todo = [(f"{gitdir}/worktrees", False), (f"{gitdir}/modules", True)]
    listed = 0
    while todo:
        d, deeper = todo.pop()
        if note is not None:
            note("d", d)
        try:
            with os.scandir(d) as it:
                subs = [e.path for e in it if e.is_dir(follow_symlinks=False)]
        except OSError:
            continue
        listed += 1
        if listed > _MAX_GIT_DIRS:
            return [p for p in out if os.path.lexists(p)], False
        for sub in subs:
            out.append(f"{sub}/config.worktree")
            if not deeper:
                continue
            out.append(f"{sub}/config")
            if os.path.lexists(f"{sub}/HEAD"):   # a submodule's git dir: its own submodules
                todo.append((f"{sub}/modules", True))
            else:   # a step of a name with slashes (modules/libs/foo)
                todo.append((sub, True))
    return [p for p in out if os.path.lexists(p)], True


def may_include(dirs: Iterable[Path], home: Path, note: Note | None = None) -> bool:
    """Whether the configuration git reads in any of ``dirs`` may include another file: the
    cheap test before :func:`git_included_secrets` (no parse, no import of the git modules; a
    file that cannot be read says yes). ``note``: as there."""
    files = _roots_superset(dirs, home, note)
    if files is None:
        return True
    for f in dict.fromkeys(files):
        if note is not None:
            note("f", f)
        if file_may_include(f):
            return True
    return False


def file_may_include(path: str | Path) -> bool:
    """Whether the config file at ``path`` may name another file: the word ``include``
    anywhere in it (no parse); a missing one does not, one that cannot be read as a plain file
    within git's bound may (its reading decides)."""
    try:
        return bool(_INCLUDE_WORD.search(read_plain(path, _MAX_ROOT, follow=True)))
    except (FileNotFoundError, NotADirectoryError):
        return False
    except (OSError, ValueError):
        return True


def git_included_secrets(dirs: Iterable[Path], home: Path, note: Note | None = None) -> tuple[str, ...]:
    """The files the configuration git reads in each of ``dirs`` (the user's and the
    repository's: ``gitconfig.config_files``) includes that hold a credential by the git
    config check (one that cannot be read counts), each as named and as its real path; with
    the including files whose includes were not all followed (past the bounds: fail closed).
    ``note`` is told of every file read ("f", path) and ``.git`` looked at ("l"): the sandbox's
    remembered lines are built anew when one changes. Never raises."""
    dirs = tuple(dirs)
    if not may_include(dirs, home, note):
        return ()
    from ..git import config as gitconfig

    roots: list[Path] = []
    unlisted: list[Path] = []   # git dirs whose config files could not all be listed
    for d in dirs:
        user, commondir = gitconfig.config_files(d, home)
        roots += user
        if commondir is not None:   # every worktree's and submodule's config: git reads each there
            configs, complete = git_dir_configs(str(commondir), note)
            roots += [Path(c) for c in configs]
            unlisted += [] if complete else [commondir / "config"]
    roots = list(dict.fromkeys(roots))
    try:
        files, stopped = gitconfig.included(roots, home)
    except (OSError, ValueError, RecursionError):   # what they include is not known: they are
        files, stopped = [], roots
    stopped += unlisted
    out: list[str] = []
    for f in roots + files:
        if note is not None:
            note("f", str(f))
    for f in files:
        if _git_config(str(f)):
            out += [str(f), os.path.realpath(f)]
    for f in stopped:
        out += [str(f), os.path.realpath(f)]
    return tuple(dict.fromkeys(out))
