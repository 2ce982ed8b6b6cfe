"""Whether a command's stdout may be a terminal when it runs: git starts its pager only then
(``git_pager`` asks ``isatty(1)``), so its pager keys run nothing otherwise.

What stdout is, fd by fd, starting from what the command inherits:

* the runner's streams: ``Context.terminal`` false means fds 0–2 are no terminal (BashTool's
  pipes; Claude Code's Bash tool, which has no pty) — ``/dev/tty`` may still be one;
* stdout piped into a next stage is no terminal; captured by ``$(…)`` neither, unless the line
  may move the shell's own streams first (``exec >/dev/tty``, a sourced file, a command named
  at run time: ``_MAY_MOVE``) or the ``$(…)`` lies outside the function body the command sits
  in; a body's streams are those of wherever it is called (``f >/dev/tty``);
* then its redirects. The IR lists a command's own redirects before those of the groups,
  subshells and loops around it, while bash applies the outermost first; so the order is not
  trusted: fd 1 may be a terminal when *any* redirect that sets it may make it one, and a dup
  (``1>&2``) may copy fd 2 as inherited or as any redirect sets it. A file target counts as no
  terminal only when it surely reaches ``/dev/null`` or a regular file (``_plain_file``).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..ir import Redirect, Via, Word
from .spec import Call
from .targets import expand_home

# Commands that may point the shell's own streams elsewhere before this command runs.
_MAY_MOVE = frozenset({None, "exec", "source", "."})
_OUT = frozenset({">", ">>", ">|"})
_IN = frozenset({"<", "<>"})
_HERE = frozenset({"<<", "<<-", "<<<"})

# What a redirect puts on an fd: a file (its target word), nothing (closed, a here-doc's pipe),
# a copy of another fd, or something not read here.
_Source = tuple[str, object]


def stdout_may_be_terminal(call: Call) -> bool:
    """Whether fd 1 of ``call``'s command may be a terminal when it runs (module docstring)."""
    cmd, script = call.command, call.script
    via = cmd.via
    in_body = Via.FUNCTION in via
    if in_body:   # only what lies inside the body is known
        via = via[len(via) - via[::-1].index(Via.FUNCTION):]
    moved = any(c.name in _MAY_MOVE for c in script.commands)
    streams = call.ctx.terminal or moved or in_body
    # A stage's stdout is its pipe whatever the shell's is; a $(…)'s is its pipe unless an
    # `exec` inside it moves it first.
    captured = script.stdout_piped(call.index) or (Via.CMDSUB in via and not moved)
    inherited = {0: streams, 1: streams and not captured, 2: streams}
    sets: dict[int, list[_Source]] = {}
    for r in cmd.redirects:
        for fd, source in _effects(r):
            sets.setdefault(fd, []).append(source)

    def may(fd: int, seen: frozenset[int]) -> bool:
        if fd in seen:
            return True
        sources = sets.get(fd)
        if not sources:
            return inherited.get(fd, True)
        return any(_source_may(s, fd, seen) for s in sources)

    def _source_may(s: _Source, fd: int, seen: frozenset[int]) -> bool:
        kind, what = s
        if kind == "file":
            return not _plain_file(what, call)  # type: ignore[arg-type]
        if kind == "none":
            return False
        if kind == "dup":   # a copy of fd `what` as inherited, or as one of its redirects sets it
            d = int(what)  # type: ignore[call-overload]
            return inherited.get(d, True) or may(d, seen | {fd})
        return True

    return may(1, frozenset())


def _effects(r: Redirect) -> list[tuple[int, _Source]]:
    op, t = r.op, r.target
    word = t if t is not None and t.static and not t.glob else None
    if op in _OUT:
        return [(1 if r.fd is None else r.fd, ("file", word))]
    if op in _IN:
        return [(0 if r.fd is None else r.fd, ("file", word))]
    if op in _HERE:
        return [(0 if r.fd is None else r.fd, ("none", None))]
    if op in ("&>", "&>>") and r.fd is None:
        return [(1, ("file", word)), (2, ("file", word))]
    if op in (">&", "<&"):
        fd = r.fd if r.fd is not None else (1 if op == ">&" else 0)
        if word is None:
            return [(fd, ("unknown", None))]
        if word.text == "-":
            return [(fd, ("none", None))]
        if word.text.isdigit():
            return [(fd, ("dup", int(word.text)))]
        if op == ">&" and r.fd is None:   # `>&file` is `&>file`
            return [(1, ("file", word)), (2, ("file", word))]
        return [(fd, ("unknown", None))]
    return [(1 if r.fd is None else r.fd, ("unknown", None))]


def _plain_file(target: Word | None, call: Call) -> bool:
    """Whether a redirect to ``target`` surely reaches ``/dev/null`` or a regular file (or one
    the redirect makes), never a device: a link planted earlier in the line may point at
    ``/dev/tty``."""
    if target is None:
        return False
    if target.text == "/dev/null":
        return True
    text = expand_home(target.text, call.ctx)
    if not text or call.cwds is None:
        return False
    alone = len(call.script.commands) == 1   # else the line's writes (its own too) may plant it
    if not alone and call.line_writes is None:
        return False
    try:
        for d in call.cwds:
            p = Path(text) if text.startswith("/") else d / text
            real = os.path.realpath(p)
            if real.startswith(("/dev/", "/proc/", "/sys/")) or not alone and any(
                    w == str(p) or w == real for w in call.line_writes or ()):
                return False
            if os.path.lexists(p) and not os.path.isfile(p):
                return False
    except (OSError, ValueError):   # a NUL in the name, a loop of links
        return False
    return True
