"""Where a write lands: inside the workspace or a scratch directory (a WRITE) or anywhere else
(EXEC).

A target counts as inside only when it is static text (no expansion, glob or brace), resolves
against every directory the command may run in (``Call.cwds``), stays under the workspace after
``..`` is normalised, and still does after symlinks of the part that exists are followed (so a
link to ``/etc`` inside the workspace is not a way out), the kernel's way too: a link, then
``..`` from where it points. Writes into a ``.git`` directory are
never plain edits: hooks and config there run code later.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from ..._record import replace
from ..facts import Context, Effect
from ..ir import Via, Word
from .spec import Call, Finding

# Special files a write to is no file change at all.
NULL_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"})

_ORDER = (Effect.READ, Effect.WRITE, Effect.NETWORK, Effect.EXEC)


def worst(effects: Iterable[Effect]) -> Effect:
    """The strongest of ``effects`` (READ < WRITE < NETWORK < EXEC)."""
    return max(effects, key=_ORDER.index, default=Effect.READ)


def expand_home(text: str, ctx: Context) -> str:
    if text == "~":
        return str(ctx.home)
    if text.startswith("~/"):
        return str(ctx.home) + text[1:]
    return text


def _inside(path: str, roots: Iterable[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def resolve(text: str, call: Call) -> list[str] | None:
    """Absolute, normalised paths ``text`` may name (one per possible cwd), or None."""
    text = expand_home(text, call.ctx)
    if os.path.isabs(text):
        return [os.path.normpath(text)]
    if call.cwds is None:
        return None
    return [os.path.normpath(os.path.join(str(c), text)) for c in call.cwds]


_PWD_SUBST = re.compile(r"\$\(\s*pwd\s*\)|`\s*pwd\s*`")  # `$(pwd)`: the cwd, as $PWD
_STILL_DYNAMIC = re.compile(r"[$`{]|^~[^/]")  # an expansion or a brace left, or `~user`


def resolve_word(word: Word, call: Call) -> list[str] | None:
    """Absolute, normalised paths ``word`` may name (one per possible cwd), or None when the
    gate cannot know them before the command runs.

    A static word goes to :func:`resolve`. A word with expansions is resolved only when every
    expansion has a value the gate knows — ``$HOME`` / ``${HOME}`` (the context's home),
    ``$PWD`` / ``${PWD}`` / ``$(pwd)`` / backquoted pwd (each candidate cwd) — through the
    sensitive-path check's own :func:`~shellgate.bash.paths.expand_variables`. ``$OLDPWD``,
    any other variable or substitution, ``~user``, a brace (``$PWD/{a,../x}`` is two paths)
    and a word with quoting the plain text cannot show (a backslash, single quotes:
    ``"\\$HOME"`` is literal) are unknown: None.
    """
    if word.static:
        return resolve(word.text, call)
    if call.cwds is None or "\\" in word.raw or "'" in word.raw:
        return None
    from ..paths.resolve import expand_variables
    from ..paths.tables import KNOWN_VARIABLES

    out = []
    for cwd in call.cwds:
        ctx = replace(call.ctx, cwd=cwd)
        text = expand_variables(_PWD_SUBST.sub(lambda _m, c=str(cwd): c, word.text), ctx,
                                KNOWN_VARIABLES)
        if _STILL_DYNAMIC.search(text):
            return None
        out.append(os.path.normpath(os.path.join(str(cwd), expand_home(text, ctx))))
    return out


def where(word: Word, call: Call, *, sink: bool = True) -> tuple[Effect, str]:
    """(effect, why) of writing to ``word``: READ for a null sink, WRITE inside, EXEC outside.

    ``sink``: the write goes *into* the file (a redirection, ``tee``, ``sort -o``), so
    ``/dev/null`` swallows it. A command that removes, renames or replaces the name itself
    (``rm``, ``mv``, ``sed -i``, ``touch``, ``cp``) would replace the device, as root: outside.
    """
    if not word.static or word.glob:
        return Effect.EXEC, "a path that is only known at run time"
    if "{}" in word.text and Via.FIND_EXEC in call.command.via:
        return Effect.EXEC, "the files find chooses at run time"
    if word.text in NULL_SINKS:
        return (Effect.READ, "") if sink else (Effect.EXEC, f"{word.text} (a device, not a file)")
    if word.text.startswith(("/dev/tcp/", "/dev/udp/")):
        return Effect.NETWORK, "a network socket"
    paths = resolve(word.text, call)
    if paths is None:
        return Effect.EXEC, "a relative path after a cd to an unknown directory"
    ws = str(call.ctx.workspace)
    real_ws = os.path.realpath(ws)
    real_roots = {real_ws, *(os.path.realpath(s) for s in call.ctx.scratch)}
    roots = {os.path.normpath(ws), *(os.path.normpath(s) for s in call.ctx.scratch), *real_roots}
    for p in paths:
        if ".git" in p.split("/"):  # the same test as on Path(p).parts
            return Effect.EXEC, f"{p} (inside a .git directory)"
        if not _inside(p, roots):
            return Effect.EXEC, f"{p} (outside the workspace)"
        try:
            real = os.path.realpath(p)
        except (OSError, ValueError):
            return Effect.EXEC, f"{p} (cannot be resolved)"
        if not _inside(real, real_roots):
            return Effect.EXEC, f"{p} (a symlink leads outside the workspace)"
        if ".git" in real.split("/"):
            return Effect.EXEC, f"{p} (inside a .git directory)"
    if ".." in word.text.split("/"):
        # The kernel follows a link before going up: `awl/../x` with `awl -> ~/.aws/cli` is
        # `~/.aws/x`, whatever the normalised text says.
        text = expand_home(word.text, call.ctx)
        for c in ([""] if os.path.isabs(text) else call.cwds or ()):
            try:
                real = os.path.realpath(os.path.join(str(c), text))
            except (OSError, ValueError):
                return Effect.EXEC, f"{word.text} (cannot be resolved)"
            if not _inside(real, real_roots) or ".git" in real.split("/"):
                return Effect.EXEC, f"{word.text} (a symlink before `..` leads to {real})"
    return Effect.WRITE, paths[0]


def write_findings(words: Iterable[Word], call: Call, what: str, *,
                   sink: bool = False) -> list[Finding]:
    """One finding per written path: ``what`` is the verb phrase, e.g. ``"sed -i edits"``;
    ``sink`` as for :func:`where` (only ``tee`` writes into its files)."""
    out: list[Finding] = []
    for w in words:
        effect, why = where(w, call, sink=sink)
        if effect is Effect.READ:
            continue
        if effect is Effect.WRITE:
            out.append(Finding(f"{what} {w.text}", w.span, "readonly.write", Effect.WRITE,
                               tuple(resolve(w.text, call) or ())))
        else:
            out.append(Finding(f"{what} {why}", w.span, "readonly.write", effect))
    return out
