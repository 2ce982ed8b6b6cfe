"""What a persistent session's state does to a later command (``Context.inherited``).

A bash tool that keeps one shell session restores, in front of each command, what the earlier
commands left: variables, functions, aliases. None of it is in the command's text, yet each
can change what a read-only-looking command does — ``export GIT_EXTERNAL_DIFF=./x`` before
``git diff``, ``export PAGER=…``, ``LD_PRELOAD``, ``BASH_ENV``, ``IFS``, ``ls() { rm -rf ~; }``,
an alias, a PATH that now searches a directory the agent can write first. So every command of a
line is judged against it, and anything not known to be inert is a finding on that command:

- a variable, unless its value holds no ``[``/``]`` (arithmetic evaluates subscripts of a
  variable's value: ``x='a[$(id)]'; (( x ))`` runs ``id``) and it is one no read-only program
  or bash reads — a name of the locale table (with a value it accepts, ``harmless_value``), one
  of ``_SESSION_ONLY`` (what a venv's ``activate`` sets besides PATH), or a shell variable that
  is not exported and is not bash's own (bash's are all-caps, plus ``_BASH_LOWER``; a command
  that expands ``$x`` is already judged as not knowing its value);
- a call of a function the session defined (every command, for ``command_not_found_handle``);
- every command, when the session expands aliases and has one (an alias changes the parse);
- a command found through ``path_dirs`` (the directories a changed PATH searches first) when a
  file of its name is there now, or a write of the line may land there.

Fail closed: anything the session carries that is not in these tables makes every command of
the line not read-only; it then runs only as the mode allows for exec.
"""

from __future__ import annotations

import os

from ..commands.environment import harmless_value
from ..commands.pathsearch import BUILTINS
from ..commands.spec import Call, Finding
from ..facts import Context, Inherited
from ..ir import CommandKind, Script

# Set by a venv's activate script or for prompts; read by no read-only program and, outside an
# interactive shell, not by bash.
_SESSION_ONLY = frozenset({"PS1", "PS2", "VIRTUAL_ENV", "VIRTUAL_ENV_PROMPT", "_OLD_VIRTUAL_PATH",
                           "_OLD_VIRTUAL_PS1", "_OLD_VIRTUAL_PYTHONHOME"})
# Bash's own variables that are not all-caps.
_BASH_LOWER = frozenset({"auto_resume", "histchars"})


def inert(name: str, value: str | None, exported: bool) -> bool:
    """Whether a session's ``name`` (set to ``value``, None: unset) leaves every read-only
    command as read-only as in a fresh shell."""
    if value is not None and ("[" in value or "]" in value):
        return False
    if name in _SESSION_ONLY or _plain_shell_var(name, exported and value is not None):
        return True
    return harmless_value(name, "C" if value is None else value)


def _plain_shell_var(name: str, exported: bool) -> bool:
    return not exported and name != name.upper() and name not in _BASH_LOWER


def tainting(state: Inherited) -> list[str]:
    """The variables of ``state`` that make every command not read-only, as ``NAME``."""
    return [n for n, v in state.variables if not inert(n, v, n in state.exported)]


def findings(call: Call) -> list[Finding]:
    """The findings the session's state gives ``call``'s command (none without a session)."""
    state = call.ctx.inherited
    if state is None:
        return []
    cmd = call.command
    out = [Finding(f"the session carries {n} from an earlier command (it may change what this "
                   "command does)", cmd.span, "readonly.session_variable")
           for n in tainting(state)]
    if state.aliases:
        out.append(Finding(f"the session expands aliases ({', '.join(state.aliases[:3])}): they "
                           "change how the command is read", cmd.span, "readonly.session_alias"))
    if cmd.kind is not CommandKind.SIMPLE or not cmd.words:
        return out
    name = cmd.name
    if "command_not_found_handle" in state.functions:
        out.append(Finding("the session defined command_not_found_handle", cmd.span,
                           "readonly.session_function"))
    if name is not None and name in state.functions:
        out.append(Finding(f"calls the function '{name}' an earlier command defined", cmd.words[0].span,
                           "readonly.session_function"))
    if name is not None and state.path_dirs and "/" not in name and name not in BUILTINS:
        out.extend(_path_finding(call, name, state.path_dirs))
    return out


def shadowed(script: Script, ctx: Context) -> frozenset[int]:
    """The commands of ``script`` whose meaning the session changes as it stands now: a
    variable not known inert, an alias, a session function of its name, a file of its name on
    a PATH dir searched first. An allow rule or a remembered approval names a command by its
    text; for these the text is not what runs, so none may cover them (``permission.subject``).
    A file the same line would plant there is left to that planting command's own cover."""
    if ctx.inherited is None:
        return frozenset()
    return frozenset(i for i, cmd in enumerate(script.commands)
                     if findings(Call(cmd, i, script, ctx, None)))


def _path_finding(call: Call, name: str, dirs: tuple[str, ...]) -> list[Finding]:
    span = call.command.words[0].span
    for d in dirs:
        if os.path.lexists(os.path.join(d, name)):
            return [Finding(f"{name} is found in {d}, which the session's PATH searches first",
                            span, "readonly.session_path")]
    writes = call.line_writes
    if writes is None or any(w == d or w.startswith(d.rstrip("/") + "/") for w in writes for d in dirs):
        return [Finding(f"a write of this line may put {name} into a directory the session's PATH "
                        "searches first", span, "readonly.session_path")]
    return []
