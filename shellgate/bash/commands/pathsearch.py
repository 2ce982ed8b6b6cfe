"""Which file bash runs for a command name: its PATH search, over the gate's own environment
(a hook runs with the agent's environment, which its commands get too).

An empty or relative PATH entry searches the cwd or a directory below it, so a name found there
first is whatever the workspace holds (``PATH=":$PATH"``, or no PATH at all: bash then searches
its built-in default, which ends in ``.``). Builtins are not searched for.
"""

from __future__ import annotations

import functools
import os

# bash 5.2's PATH when the environment has none (`env -i bash -c 'echo $PATH'`).
BASH_DEFAULT_PATH = "/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:."
# Builtins (bash 5.2 ``enable -a``): PATH does not choose what they run.
BUILTINS = frozenset({
    ".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command",
    "compgen", "complete", "compopt", "continue", "declare", "dirs", "disown", "echo", "enable",
    "eval", "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash", "help", "history",
    "jobs", "kill", "let", "local", "logout", "mapfile", "popd", "printf", "pushd", "pwd", "read",
    "readarray", "readonly", "return", "set", "shift", "shopt", "source", "suspend", "test",
    "times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "wait"})


@functools.lru_cache(maxsize=8)
def _dirs(path: str | None) -> tuple[tuple[str, ...], bool]:
    dirs = tuple((BASH_DEFAULT_PATH if path is None else path).split(os.pathsep))
    return dirs, all(os.path.isabs(d) for d in dirs)


def lookup(name: str) -> tuple[str | None, str]:
    """The file PATH finds first for ``name`` (and ""), or None and why not: a relative entry
    searched before any absolute one holds it, or no entry holds it."""
    for d in _dirs(os.environ.get("PATH"))[0]:
        if not os.path.isabs(d):
            where = d or "empty: the cwd"
            return None, f"PATH searches a relative directory ({where}) before it finds {name}"
        path = os.path.join(d, name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path, ""
    return None, f"{name} is not on PATH"


def cwd_first(name: str) -> str | None:
    """Why bash may run a file of the cwd (or below it) for the plain name ``name``, or None.
    Costs nothing when PATH holds only absolute directories (the usual case)."""
    if name in BUILTINS or _dirs(os.environ.get("PATH"))[1]:
        return None
    path, why = lookup(name)
    return why if path is None and why.startswith("PATH searches") else None


def not_elf(name: str) -> str | None:
    """Why the ``name`` that PATH finds first is not a program like one measured here (an ELF
    binary), or None: a script (a PyPI console script, whose Python start-up runs a venv's
    ``.pth`` files; a pyenv or asdf shim, which runs its manager's scripts and reads version
    files in the cwd), a relative PATH entry, or nothing found."""
    path, why = lookup(name)
    if path is None:
        return why
    from ..._plain import read_head

    try:
        head = read_head(path, 4)   # replaced by a FIFO since the lookup: NotPlain
    except OSError as exc:
        return f"{path} could not be read ({type(exc).__name__})"
    return None if head == b"\x7fELF" else f"{path} is a script, not the binary measured"
