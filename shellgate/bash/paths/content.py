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

import re
from collections.abc import Callable

from ..._plain import read_plain
from ..git.config import AUTH_HEADER as _AUTH_HEADER
from ..git.config import CREDENTIAL_URL as _CREDENTIAL_URL

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
_NPM_WORD = re.compile(r"_auth|_password|npmauth|token|password", re.I)
# A line that only sets a key to a variable of the environment (npm and Yarn expand it at run
# time): the one line a credential word may stand in.
_ENV_LINE = re.compile(r"[ \t]*([\"']?)[\w@./:~+-]+\1[ \t]*[=: \t][ \t]*([\"']?)\$\{[A-Za-z_]\w*\}\2[ \t]*")
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
_NPM_TEXT = re.compile(r"[\t\r\n\x20-\x5b\x5d-\x7e]*")
_NPM_LINE = re.compile(r"""[ \t]*(?:
      [#;].*                                              # a comment
    | \[[\w@./:~+-]*\][ \t]*                              # an ini section
    | (?:---|\.\.\.)[ \t]*                                  # a YAML document marker
    | (?:-[ \t]+)*(?:[\w@./:~+-]+|"[\w@./:~+*^ -]*"|'[\w@./:~+*^ -]*')   # a key
      (?:[ \t]*[=: \t][ \t]*(?:[^\\$!]|\$\{[A-Za-z_]\w*\})*)?     # its separator and value
    | -[ \t]*                                              # an empty YAML list item
)?""", re.X)


def _npm_config(path: str) -> bool:
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
_BUNDLE_HOST_KEY = re.compile(r"^\s*[\"']?BUNDLE_\w*__\w*[\"']?\s*:", re.I | re.M)


def _bundle_config(path: str) -> bool:
    text = _text(path)
    return text is None or bool(_CREDENTIAL_URL.search(text) or _BUNDLE_HOST_KEY.search(text))


def _git_config(path: str) -> bool:
    """git's own reading of the file (values joined across continuation lines) through
    ``gitconfig.credential_entry``, and the text's URLs and headers, comments included. Its
    includes are not read: a reader prints this file alone (``git config`` forms follow them:
    ``gitconfig.credential_source``)."""
    from ..git.config import ConfigError, credential_entry, parse_config

    text = _text(path)
    if text is None or _CREDENTIAL_URL.search(text) or _AUTH_HEADER.search(text):
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
}


def holds_credential(path: str, when: str) -> bool:
    """Does ``path`` hold a credential by the check ``when`` names? A check not known here
    (a table entry naming one that was removed) answers yes."""
    check = CHECKS.get(when)
    return True if check is None else check(path)
