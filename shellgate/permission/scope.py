"""Whether an allow source that matches a sub-command's words covers what the line runs.

A person who answers "always" to ``make test`` in workspace W approved the project's test
target, run in W, by the ``make`` the shell finds. The words alone do not say that. Two more
things must hold for a stored approval (or a rule, or a skill allow) to cover a line:

- **Where it runs.** Every directory the line's commands may run in (the analysis' candidate
  cwds: the hook's cwd plus every ``cd``/``pushd`` target, ``bash.readonly.classify.
  candidate_cwds``) lies inside the approval's workspace. An unknown one (``cd "$X"``,
  ``popd``) does not: ``cd /tmp; make test`` runs /tmp's Makefile.
- **What the words resolve to.** No part of the line changes how a name or a word is looked
  up: no assignment (``PATH=.:$PATH; git fetch`` runs ``./git``), no function definition, no
  builtin that changes the shell's state (``export``, ``alias``, ``hash``, ``source``,
  ``shopt`` … — everything not in :data:`NEUTRAL_BUILTINS`), no arithmetic (``((PATH=0))``,
  ``$((…))``, ``[[ a -eq b ]]`` and ``${a[…]}`` may assign), no ``${x:=…}``, no dynamic command
  name. The whole line counts, not just what comes before: a loop or a function runs a later
  part first.

Positive lists: a builtin is neutral only when listed; an unlisted one changes state. The
refusal names the command or word and its span.
"""

from __future__ import annotations

import os
from typing import Any

from .._lazyre import lazy_compile
from .._record import record

# bash builtins that change nothing a later command's name or words resolve through (the
# cwd-changing ones are judged by where the line runs, not here). ``printf -v`` assigns.
NEUTRAL_BUILTINS = frozenset({
    "echo", "printf", "true", "false", ":", "test", "[", "pwd", "type", "jobs", "wait", "kill",
    "times", "help", "exit", "return", "break", "continue", "dirs", "cd", "pushd", "popd",
    "command", "builtin",
})
# zsh builtins and keywords that change its state but are not bash builtins (their names would
# otherwise count as external programs, which cannot change the shell's state).
ZSH_STATE = frozenset({
    "setopt", "unsetopt", "emulate", "rehash", "unhash", "autoload", "zmodload", "unfunction",
    "functions", "disable", "integer", "float", "private", "vared", "zparseopts", "chdir",
    "limit", "unlimit", "sched", "noglob",
})
_ARITH_TEST = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
# `$((`, `$[` (arithmetic: may assign), `${x:=…}` / `${x=…}` / `${a[…]}` (assign, or an
# arithmetic subscript).
_ASSIGNING = lazy_compile(r"\$\(\(|\$\[|\$\{[^}]*[=\[]")


@record
class ScopeIssue:
    """Why no allow source covers the line: ``what`` in the source at ``span``."""

    why: str
    span: tuple[int, int] | None = None


def resolution_change(script: Any) -> ScopeIssue | None:
    """The first part of ``script`` (a ``bash.ir.Script``) that may change how a command name
    or word of the line resolves, or None."""
    from ..bash.commands.pathsearch import BUILTINS
    from ..bash.ir import CommandKind

    for cmd in script.commands:
        src = script.source[cmd.span[0]:cmd.span[1]] if cmd.span else ""
        if cmd.kind is CommandKind.FUNCDEF:
            return ScopeIssue(f"`{src}` defines a function: a later name may run it", cmd.span)
        if cmd.kind is CommandKind.ARITH:
            return ScopeIssue(f"`{src}` is arithmetic, which may assign a variable (PATH …)",
                              cmd.span)
        if cmd.kind is CommandKind.TEST:
            w = next((w for w in cmd.words if w.static and w.text in _ARITH_TEST), None)
            if w is not None:
                return ScopeIssue(f"`{w.text}` in `{src}` evaluates arithmetic, which may "
                                  "assign a variable", w.span)
        if not cmd.words and cmd.assignments:
            a = cmd.assignments[0]
            return ScopeIssue(f"`{script.source[a.span[0]:a.span[1]]}` assigns {a.name}: the "
                              "line's commands may resolve or behave otherwise", a.span)
        name = cmd.name
        if cmd.words and name is None:
            w = cmd.words[0]
            return ScopeIssue(f"the command name `{w.raw}` is not known before it runs", w.span)
        if name is not None and ((name in BUILTINS and name not in NEUTRAL_BUILTINS)
                                 or name in ZSH_STATE):
            w = cmd.words[0] if cmd.words else None
            return ScopeIssue(f"`{name}` changes the shell's state (variables, names, options "
                              "or what runs next)", w.span if w else cmd.span)
        if name == "printf" and any(w.text.startswith("-v") for w in cmd.words[1:]):
            w = next(w for w in cmd.words[1:] if w.text.startswith("-v"))
            return ScopeIssue("`printf -v` assigns a variable", w.span)
        if name in BUILTINS and cmd.assignments:
            a = cmd.assignments[0]
            return ScopeIssue(f"`{script.source[a.span[0]:a.span[1]]}` before the builtin "
                              f"`{name}` may stay assigned (POSIX special builtins)", a.span)
        raws = [(w.raw, w.span) for w in cmd.words]
        raws += [(r.target.raw, r.target.span) for r in cmd.redirects if r.target is not None]
        raws += [(a.value.raw, a.value.span) for a in cmd.assignments]
        for raw, span in raws:
            if _ASSIGNING.search(raw):
                return ScopeIssue(f"`{raw}` may assign a variable as it expands", span)
    return None


def outside(cwds: Any, workspace: str) -> str | None:
    """The first of ``cwds`` not inside ``workspace`` (or its real path), "an unknown
    directory" when ``cwds`` is None, or None when all are inside."""
    from ..bash.commands.spec import within

    if cwds is None:
        return "an unknown directory"
    roots = {os.path.normpath(workspace), os.path.realpath(workspace)}
    return next((c for c in map(str, cwds) if not any(within(c, r) for r in roots)), None)
