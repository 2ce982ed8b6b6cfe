"""The command's environment: built from an allowlist, never inherited wholesale.

An inherited environment leaks tokens (a cluster-admin token in anthropic-experimental/
sandbox-runtime#58). The environment is passed as envp, never as argv (`bwrap --setenv` would
put values in world-readable /proc/*/cmdline).
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..bash.paths.envsecrets import SECRET_ENV_NAMES

ALLOWED: tuple[str, ...] = (
    "PATH", "LANG", "LANGUAGE", "LC_*", "TERM", "COLORTERM", "NO_COLOR", "USER", "LOGNAME",
    "SHELL", "TZ",
    # How output looks and whether Python leaves bytecode behind: without them a session's
    # `git show --stat` is laid out for another width and `git add -A` picks up __pycache__.
    "COLUMNS", "LINES", "CLICOLOR", "CLICOLOR_FORCE", "FORCE_COLOR", "PYTHONDONTWRITEBYTECODE",
    "PYTHONUNBUFFERED", "PYTHONIOENCODING", "PYTHONUTF8", "VIRTUAL_ENV",
)

# Variables that make a program run other code (loaders, shell start-up, interpreters' hooks)
# or re-point git: never inherited, whatever their value.
INJECTION: tuple[str, ...] = (
    "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "BASH_ENV", "ENV", "PROMPT_COMMAND",
    "BASH_FUNC_*", "PYTHONSTARTUP", "PERL5OPT", "NODE_OPTIONS", "GIT_*",
)

# Refused even when a user asks to pass them through by name or pattern: the classifier's one
# table of secret-named variables (bash/paths/envsecrets.py) and the injection names above.
DENIED: tuple[str, ...] = SECRET_ENV_NAMES + INJECTION


@functools.lru_cache(maxsize=64)
def _compile(patterns: tuple[str, ...]) -> re.Pattern[str]:
    """One case-insensitive regex for a tuple of glob patterns (env building is per command)."""
    return re.compile("|".join(f"(?:{fnmatch.translate(p.upper())})" for p in patterns) or "(?!)")


def _match(name: str, patterns: tuple[str, ...]) -> bool:
    return _compile(patterns).match(name.upper()) is not None


def denied(name: str) -> bool:
    return _match(name, DENIED)


@functools.lru_cache(maxsize=1024)
def _admitted(name: str, passthrough: tuple[str, ...]) -> bool:
    """Allowed and not denied (per name: the same few dozen names come back every command)."""
    upper = name.upper()
    return (_compile(ALLOWED + passthrough).match(upper) is not None
            and _compile(DENIED).match(upper) is None)


def build_env(source: Mapping[str, str], *, home: Path, tmpdir: Path, cwd: Path,
              passthrough: Iterable[str] = (), explicit: Iterable[tuple[str, str]] = ()) -> dict[str, str]:
    """Allowed variables of ``source`` (minus denied ones), then HOME/TMPDIR/PWD, then ``explicit``."""
    extra = tuple(passthrough)
    env = {k: v for k, v in source.items() if _admitted(k, extra) and "\0" not in v}
    env.setdefault("PATH", os.defpath)
    env.update(HOME=str(home), TMPDIR=str(tmpdir), PWD=str(cwd))
    env.update(explicit)
    return env
