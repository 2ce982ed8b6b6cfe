"""A persistent session's shell state: dumped after each command, restored before the next.

``BashTool(persistent=True)`` (the Anthropic adapter's contract: one shell session) runs every
command in a fresh bash, as always, and carries over what a session would keep: variables
(exported or not), functions, aliases with ``expand_aliases``. The command's EXIT trap calls
:data:`SAVE`'s function, which writes them NUL-separated to a file in the sandbox's private tmp
directory (builtins only, no fork); :func:`read` takes that file back and :meth:`State.prelude`
is the bash line that restores it in front of the next command.

The file is written from inside the sandbox, by code the command could replace: it is
untrusted input. :func:`read` never raises and never trusts it — a name must be a name, the
size is bounded, a file that is a link or has other links is refused, and the function text
must parse (with the bash core's parser, the one the decisions use) as function definitions
and nothing else, or it is dropped with a note. The prelude is built from the parsed values,
quoted here, never from the file's text — except the function bodies, which are exactly what
the classifier was told exists (``Inherited.functions``: a call of one is never read-only).
Secret-named variables (``SECRET_ENV_NAMES``) are not carried. Bash's own variables, arrays and
namerefs are not carried either, nor shell options other than ``expand_aliases``. Nor are the
functions when one is named like a builtin or like our own ``__sg_`` names: the restore line, the
dump and the EXIT trap call builtins (``builtin``, ``local``, ``printf`` …), and a function of that
name would run in every later command, whatever its decision.

:meth:`State.inherited` is what the gate is told (``Context.inherited``): see
``shellgate.bash.readonly.inherited`` for how a later command is judged with it.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
from functools import lru_cache
from pathlib import Path

from .._record import record
from ..bash.commands.pathsearch import BUILTINS
from ..bash.facts import Inherited

MAX_STATE = 1 << 20  # bytes: more is not a session we restore

# Variable names are listed by prefix ("${!a@}" …): a builtin expansion, so no fork, and no
# word splitting (the user's IFS may be anything). Our own names start with __sg_.
_PREFIXES = " ".join(f'"${{!{c}@}}"' for c in
                     "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
SAVE = ("__sg_save() { builtin unset -f __sg_save; local __sg_n; for __sg_n in " + _PREFIXES + "; do "
        "[[ $__sg_n == __sg_* ]] && continue; [[ -v $__sg_n ]] || continue; "
        "builtin printf 'v\\0%s\\0%s\\0%s\\0' \"$__sg_n\" \"${!__sg_n@a}\" \"${!__sg_n}\"; done; "
        "for __sg_n in \"${!BASH_ALIASES[@]}\"; do "
        "builtin printf 'a\\0%s\\0%s\\0' \"$__sg_n\" \"${BASH_ALIASES[$__sg_n]}\"; done; "
        "builtin printf 'F\\0'; builtin declare -f; builtin printf '\\0'; "
        "if builtin shopt -q expand_aliases; then builtin printf 'o\\0expand_aliases\\0'; fi; }")

# Managed by bash itself (dynamic, read-only or set at start): never carried.
_BASH_OWN = frozenset({
    "BASH", "BASHOPTS", "BASHPID", "BASH_ALIASES", "BASH_ARGC", "BASH_ARGV", "BASH_ARGV0",
    "BASH_CMDS", "BASH_COMMAND", "BASH_EXECUTION_STRING", "BASH_LINENO", "BASH_REMATCH",
    "BASH_SOURCE", "BASH_SUBSHELL", "BASH_VERSINFO", "BASH_VERSION", "DIRSTACK", "EPOCHREALTIME",
    "EPOCHSECONDS", "EUID", "FUNCNAME", "GROUPS", "HISTCMD", "HOSTNAME", "HOSTTYPE", "LINENO",
    "MACHTYPE", "OLDPWD", "OSTYPE", "PIPESTATUS", "PPID", "PWD", "RANDOM", "SECONDS", "SHELLOPTS",
    "SHLVL", "SRANDOM", "UID", "_"})
# Shell variables bash sets at start when the environment has none: (name -> its value; None:
# any value, bash does not read it). Carried only when changed (or exported).
_BASH_DEFAULTS: dict[str, str | None] = {
    "IFS": " \t\n", "PS4": "+ ", "OPTERR": "1", "OPTIND": "1", "TERM": "dumb", "SHELL": None,
    "COMP_WORDBREAKS": " \t\n\"'@><=;|&(:", "HISTFILE": None, "MAILCHECK": None,
    "BASH_LOADABLES_PATH": "/usr/local/lib/bash:/usr/lib/bash:/opt/local/lib/bash:"
                           "/usr/pkg/lib/bash:/opt/pkg/lib/bash:.",
}
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_ATTRS = re.compile(r"[a-zA-Z]*")
# What bash accepts as an alias name that we also restore: no quoting or expansion characters.
_ALIAS = re.compile(r"[A-Za-z0-9_.:@%+,-]+")


@record
class State:
    """One session's carried state, parsed. ``variables``: (name, value, exported); ``unset``:
    names of the sandbox's own environment the session removed; ``functions``: the text of
    their definitions (``declare -f``), ``function_names`` what it defines."""

    variables: tuple[tuple[str, str, bool], ...] = ()
    unset: tuple[str, ...] = ()
    functions: str = ""
    function_names: tuple[str, ...] = ()
    aliases: tuple[tuple[str, str], ...] = ()
    expand_aliases: bool = False

    @property
    def empty(self) -> bool:
        return not (self.variables or self.unset or self.function_names or self.aliases
                    or self.expand_aliases)

    def prelude(self) -> str:
        """One bash line that restores this state (every value quoted here). The functions
        come first: ``eval`` reads their text anew, and once an alias is defined with
        ``expand_aliases`` (or ``POSIXLY_CORRECT`` is set, which expands aliases too) an alias
        named like a function would be expanded there — ``alias f='touch x; g'`` turns
        ``f () { …; }`` into a command run in front of every later one. In a fresh bash with
        nothing restored yet, the text is read as the parser checked it."""
        parts = [f"builtin eval {_quote(self.functions)}"] if self.functions else []
        parts += [f"builtin declare {'-x' if x else '--'} {n}={_quote(v)}" for n, v, x in self.variables]
        parts += [f"builtin unset -v {n}" for n in self.unset]
        if self.expand_aliases:
            parts.append("builtin shopt -s expand_aliases")
        parts += [f"builtin alias {n}={_quote(v)}" for n, v in self.aliases]
        return "; ".join(parts)

    def inherited(self, base_path: str, anchored: tuple[str, ...]) -> Inherited:
        """What the gate is told. A PATH that only puts absolute directories inside
        ``anchored`` (the workspace and writable roots: the same files inside the sandbox and
        out) in front of ``base_path`` is told as those directories; any other PATH change
        is a variable like the rest."""
        variables = [(n, v) for n, v, _ in self.variables]
        exported = {n for n, _, x in self.variables if x}
        path_dirs: tuple[str, ...] = ()
        path = next((v for n, v, _ in self.variables if n == "PATH"), None)
        if path is not None and "PATH" in exported and base_path:
            front = path[:-len(base_path)].rstrip(":").split(":") if path.endswith(":" + base_path) \
                else None
            if front and all(d.startswith("/") and _inside(d, anchored) for d in front):
                path_dirs = tuple(os.path.normpath(d) for d in front)
                variables = [(n, v) for n, v in variables if n != "PATH"]
        return Inherited(
            variables=tuple(variables) + tuple((n, None) for n in self.unset),
            exported=frozenset(exported), functions=self.function_names,
            aliases=tuple(n for n, _ in self.aliases) if self.expand_aliases else (),
            path_dirs=path_dirs)


def read(host_file: Path, base_env: dict[str, str]) -> tuple[State | None, tuple[str, ...]]:
    """The state the trap dumped to ``host_file`` (then removed), against the environment
    the sandbox gave the command; None when there is no dump (the trap did not run: the
    caller keeps what it had). Never raises; what is refused is said in the notes."""
    try:
        fd = os.open(host_file, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return None, ()
    except OSError as exc:
        _remove(host_file)
        return State(), (f"the session's state could not be read ({exc.strerror}); "
                         "the next command starts a fresh session",)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1 or st.st_size > MAX_STATE:
            return State(), ("the session's state file was not one plain file of at most "
                             f"{MAX_STATE} bytes; the next command starts a fresh session",)
        data = os.read(fd, MAX_STATE + 1)
    except OSError as exc:
        return State(), (f"the session's state could not be read ({exc.strerror}); "
                         "the next command starts a fresh session",)
    finally:
        os.close(fd)
        _remove(host_file)
    return parse(data, base_env)


def parse(data: bytes, base_env: dict[str, str]) -> tuple[State, tuple[str, ...]]:
    """:func:`read`'s parser (a dump as the trap writes it). Never raises: a malformed dump
    is an empty state with a note."""
    try:
        return _parse(data, base_env)
    except (ValueError, IndexError, UnicodeError) as exc:
        return State(), (f"the session's state was malformed ({exc}); the next command starts a "
                         "fresh session",)


def _parse(data: bytes, base_env: dict[str, str]) -> tuple[State, tuple[str, ...]]:
    if len(data) > MAX_STATE:
        raise ValueError("too large")
    fields = data.decode("utf-8", "surrogateescape").split("\0")
    if fields[-1] != "":
        raise ValueError("truncated")
    fields.pop()
    variables: dict[str, tuple[str, bool]] = {}
    aliases: dict[str, str] = {}
    functions, names, expand, notes = "", (), False, []
    dropped: list[str] = []
    seen: set[str] = set()
    i = 0
    while i < len(fields):
        tag = fields[i]
        if tag == "v":
            name, attrs, value = fields[i + 1:i + 4]
            i += 4
            if not _NAME.fullmatch(name) or not _ATTRS.fullmatch(attrs):
                raise ValueError(f"not a variable name: {name[:40]!r}")
            seen.add(name)
            if _carried(name, attrs, value, base_env, dropped):
                variables[name] = (value, "x" in attrs)
        elif tag == "a":
            name, value = fields[i + 1:i + 3]
            i += 3
            if not _ALIAS.fullmatch(name):
                raise ValueError(f"not an alias name: {name[:40]!r}")
            aliases[name] = value
        elif tag == "F":
            functions = fields[i + 1]
            i += 2
        elif tag == "o" and fields[i + 1] == "expand_aliases":
            expand, i = True, i + 2
        else:
            raise ValueError(f"unknown record {tag[:10]!r}")
    if functions.strip():
        names = _function_names(functions)
        if names is None:
            notes.append("the session's functions could not be read exactly; they are not kept")
            functions, names = "", ()
        elif shadowing := [n for n in names if n in BUILTINS or n.startswith("__sg_")]:
            notes.append("the session's functions are not kept: they replace "
                         f"{', '.join(shadowing[:8])}, which restoring and saving the session "
                         "call in every later command")
            functions, names = "", ()
    if dropped:
        notes.append(f"not kept for the next command (secret-looking names): {', '.join(dropped[:8])}")
    unset = tuple(n for n in base_env if n not in variables and _NAME.fullmatch(n)
                  and n not in _BASH_OWN and n not in seen)
    return State(tuple((n, v, x) for n, (v, x) in variables.items()), unset,
                 functions if names else "", names or (), tuple(aliases.items()), expand), tuple(notes)


def _carried(name: str, attrs: str, value: str, base: dict[str, str], dropped: list[str]) -> bool:
    from ..bash.paths.envsecrets import secret_pattern

    if name in _BASH_OWN or set(attrs) & {"a", "A", "n"}:
        return False
    exported = "x" in attrs
    if exported and base.get(name) == value:
        return False  # the sandbox sets it so anyway
    if not exported and name not in base and name in _BASH_DEFAULTS \
            and _BASH_DEFAULTS[name] in (None, value):
        return False
    if secret_pattern(name) is not None:
        dropped.append(name)
        return False
    return True


@lru_cache(maxsize=16)  # a session dumps the same functions after every command
def _function_names(text: str) -> tuple[str, ...] | None:
    """The names ``text`` defines, when the bash core reads it as function definitions and
    nothing else (every command is a definition at the top or inside one); None otherwise."""
    from ..bash.ir import CommandKind, Via
    from ..bash.parse.parser import parse

    script = parse(text)
    if not script.ok:
        return None
    names = []
    for c in script.commands:
        if c.via == (Via.TOP,) and c.kind is CommandKind.FUNCDEF and c.words:
            names.append(c.words[0].text)
        elif Via.FUNCTION not in c.via:
            return None
    return tuple(dict.fromkeys(names))


def _quote(s: str) -> str:
    """``s`` as one bash word, on one line: ``$'…'`` with every control, quote, backslash and
    non-UTF-8 byte escaped."""
    out = []
    for ch in s:
        o = ord(ch)
        if ch in "\\'":
            out.append("\\" + ch)
        elif 0xDC80 <= o <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
            out.append(f"\\x{o - 0xDC00:02x}")
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\x{o:02x}")
        else:
            out.append(ch)
    return "$'" + "".join(out) + "'"


def _inside(path: str, roots: tuple[str, ...]) -> bool:
    p = os.path.normpath(path)
    return any(p == r or p.startswith(r.rstrip("/") + "/") for r in roots)


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


__all__ = ["MAX_STATE", "SAVE", "State", "parse", "read"]
