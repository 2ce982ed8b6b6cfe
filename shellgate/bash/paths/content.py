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
from ..git.config import CREDENTIAL_URL as _CREDENTIAL_URL

_MAX_TEXT = 1 << 20   # bigger than this: a credential for a reader (not looked at)

# npm's .npmrc (`//host/:_authToken=…`, `_auth`, `_password`), Yarn 1's .yarnrc (the same keys,
# space-separated) and Yarn 2+'s .yarnrc.yml (`npmAuthToken:`, `npmAuthIdent:`): a key naming a
# credential, then its separator and value.
_NPM_KEY = re.compile(r"(?:_auth\w*|_password|npmauth\w*|\w*token|\w*password)[\"']?\s*[=:\s]\s*(.*)", re.I)
# A value that only names a variable of the environment (npm and Yarn expand it at run time).
_ENV_REF = re.compile(r"[\"']?\$\{[A-Za-z_][A-Za-z0-9_]*\}[\"']?\s*")
# Bundler's credentials sit under a key naming the host, dots as double underscores
# (`BUNDLE_GEMS__EXAMPLE__COM: "user:password"`, `BUNDLE_MIRROR__…`).
_BUNDLE_HOST_KEY = re.compile(r"^\s*[\"']?BUNDLE_\w*__\w*[\"']?\s*:", re.I | re.M)


def _text(path: str) -> str | None:
    """The file's text; "" for a missing file; None when it is not plain UTF-8 within the bound."""
    try:
        return read_plain(path, _MAX_TEXT, follow=True).decode("utf-8")
    except (FileNotFoundError, NotADirectoryError):
        return ""
    except (OSError, ValueError):   # a FIFO, a device, a directory, too large, not UTF-8
        return None


def _npm_config(path: str) -> bool:
    text = _text(path)
    if text is None or _CREDENTIAL_URL.search(text):
        return True
    for line in text.splitlines():
        m = _NPM_KEY.search(line)
        if m is not None and not _ENV_REF.fullmatch(m.group(1)):
            return True
    return False


def _bundle_config(path: str) -> bool:
    text = _text(path)
    return text is None or bool(_CREDENTIAL_URL.search(text) or _BUNDLE_HOST_KEY.search(text))


# An Authorization header anywhere in a git config's text (a comment's too: a reader prints it).
_AUTH_HEADER = re.compile(r"\bauthorization\s*:\s*\S", re.I)


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
