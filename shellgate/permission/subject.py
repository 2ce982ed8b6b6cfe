"""What a command line looks like to rules and stored approvals: its executed sub-commands.

Rules and approvals never see the raw string. The command is parsed by ``shellgate.bash``
and every command bash would run (nested ones and the inner commands of wrappers included)
becomes a :class:`SubCommand`.

Allow side (allow rules, skill allows, stored approvals) — fail closed:
- an unparsed script (``Script.error``) is never covered;
- *every* executed sub-command must be covered on its own by some allow source, or be known
  read-only (``Metadata.readonly_commands``, judged per command by the bash core), or be inert
  (function definitions, ``[[ ]]``, ``(( ))``, a bare ``x=1``), or be a transparent wrapper
  whose inner command is present (``timeout``, ``time``, ``nice``, ``nohup``, ``stdbuf``,
  ``command``, ``builtin``, ``noglob``, flag-less ``xargs`` — the wrappers Claude Code
  strips). Any other wrapper (``sudo``, ``env``, ``bash -c``, ``find -exec``, ``eval`` …)
  must itself be covered or be judged read-only in its position (the harness credits
  ``bash -c 'npm test'``, never ``sudo``), and its inner command is covered on its own in any
  case: ``Bash(npm test *)`` alone never allows ``sudo npm test``;
- a sub-command with prefix assignments (``PATH=… npm test``) or an output redirect into a
  file (``npm test > log``) is never covered: both change what it does. Nor is one a
  persistent session shadows (``Metadata.shadowed``: ``npm() { …; }`` earlier, an alias, a
  carried variable): its text is not what runs. Such a command is never a transparent wrapper.
  Nor is any sub-command of a line that may run outside an approval's workspace or that
  changes how names resolve (an assignment, a function, ``hash`` …): :mod:`.scope`.

Deny side (deny and ask rules): any sub-command matches, wrappers included (so a deny of
``sudo *`` catches ``sudo rm x`` and a deny of ``rm *`` catches it too), assignments and
redirects ignored, words compared loosely (see :mod:`.pattern`). When the parser refused the
script, bash may still run part of it (the lines before a syntax error), so the deny side
also looks at a rough split of the text: every segment between ``; & | ( ) { } `` ` `` and
``$(``, at every word position (``x sudo rm`` -> ``rm``). More deny matches is the safe side.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum
from typing import Any

from .._lazyre import lazy_compile
from .._record import record
from .pattern import CommandPattern

TRANSPARENT_WRAPPERS = frozenset({"timeout", "time", "nice", "nohup", "stdbuf", "command",
                                  "builtin", "noglob"})
_WRAPPED_VIA = frozenset({"wrapper", "shell_c", "xargs", "find_exec"})
_FILE_WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})
_DUP_TARGET = lazy_compile(r"\d+-?|-")


@record
class _Appended:
    """The words ``xargs`` appends to the command it runs: unknown, so on the allow side only a
    pattern's trailing ``*`` matches them (``Bash(git diff)`` covers ``git diff`` exactly, not
    ``… | xargs git diff``, which may be ``git diff --output=~/.bashrc``)."""

    text: str = "<words xargs appends>"
    static: bool = False
    glob: bool = False


_APPENDED = _Appended()


@record
class SubCommand:
    index: int
    words: tuple[Any, ...]         # shellgate.bash.ir.Word
    name: str | None
    has_assignments: bool
    writes_file: bool
    transparent: bool
    readonly: bool
    inert: bool
    shadowed: bool = False
    appended: bool = False         # run by xargs: more words follow, read from its input

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @property
    def cover_words(self) -> tuple[Any, ...]:
        """The words an allow source must match: ``words``, and xargs' input after them."""
        return (*self.words, _APPENDED) if self.appended else self.words

    @property
    def needs_cover(self) -> bool:
        return not (self.inert or self.transparent or self.readonly)

    def coverable(self) -> bool:
        """May an allow source cover this sub-command at all?"""
        return (self.name is not None and not self.has_assignments and not self.writes_file
                and not self.shadowed)


@record
class _RoughWord:
    text: str
    static: bool = True
    glob: bool = False


_ROUGH_SPLIT = lazy_compile(r"\$\(|<\(|>\(|[;&|\n(){}`]")
# One shell-like word (``shlex.split(posix=True)`` rules): quoted parts, escapes, plain runs.
# The alternatives start with distinct characters, so matching is linear (shlex itself grows
# its token one character at a time, quadratic on a long word).
_ROUGH_WORD = lazy_compile(r"""(?:'[^']*'|"(?:\\[\s\S]|[^"\\])*"|\\[\s\S]|[^\s'"\\]+)+""")
_ROUGH_PART = lazy_compile(r"""'([^']*)'|"((?:\\[\s\S]|[^"\\])*)"|\\([\s\S])|([^\s'"\\]+)""")
_DQ_ESCAPE = lazy_compile(r"""\\(["\\])""")


def _unquote(part: Any) -> str:
    single, double, escaped, plain = part.groups()
    if single is not None:
        return single
    if double is not None:
        return _DQ_ESCAPE.sub(r"\1", double)
    return escaped if escaped is not None else plain


def rough_split(seg: str) -> list[str]:
    """``shlex.split(seg)`` in linear time; ValueError on an unclosed quote or a trailing
    backslash, as shlex."""
    words = []
    end = 0
    for m in _ROUGH_WORD.finditer(seg):
        if seg[end:m.start()].strip():
            raise ValueError("no closing quotation")
        end = m.end()
        words.append("".join(_unquote(p) for p in _ROUGH_PART.finditer(m.group())))
    if seg[end:].strip():
        raise ValueError("no closing quotation")
    return words


def rough_segments(source: str) -> tuple[tuple[_RoughWord, ...], ...]:
    """Word lists for the deny side of an unparsed script (see the module docstring); each is
    matched at every word position."""
    out = []
    for seg in _ROUGH_SPLIT.split(source):
        try:
            words = rough_split(seg)
        except ValueError:
            words = seg.replace("'", " ").replace('"', " ").replace("\\", "").split()
        if words:
            out.append(tuple(_RoughWord(w) for w in words if w))
    return tuple(out)


@record
class CommandView:
    source: str
    ok: bool
    error: str
    commands: tuple[SubCommand, ...]
    rough: tuple[tuple[_RoughWord, ...], ...] = ()

    def to_cover(self) -> tuple[SubCommand, ...] | None:
        """The sub-commands an allow must cover; ``None`` when nothing may be allowed
        (unparsed script, or a sub-command no allow can cover)."""
        if not self.ok:
            return None
        need = tuple(c for c in self.commands if c.needs_cover)
        if any(not c.coverable() for c in need):
            return None
        return need

    def any_match(self, pattern: CommandPattern) -> SubCommand | None:
        """Deny side: the first sub-command (wrappers included) the pattern matches loosely."""
        for c in self.commands:
            if c.words and pattern.matches(c.words, strict=False):
                return c
        for words in self.rough:
            if pattern.matches(words, strict=False, anywhere=True):
                return SubCommand(-1, words, words[0].text, False, False, False, False, False)
        return None


def _writes_file(redirects: Iterable[Any]) -> bool:
    for r in redirects:
        if r.op not in _FILE_WRITE_OPS and r.op != ">&":
            continue
        t = r.target
        if t is None or not t.static:
            return True
        if r.op == ">&" and _DUP_TARGET.fullmatch(t.text):
            continue
        if t.text != "/dev/null":
            return True
    return False


def _str(v: Any) -> str:
    """``str(v)``; a ``StrEnum`` member (the IR's kinds) already compares as its value."""
    return v if isinstance(v, StrEnum) or type(v) is str else str(v)


def view(script: Any, readonly: Iterable[int] = (), shadowed: Iterable[int] = ()) -> CommandView:
    """Build the view of a parsed ``shellgate.bash.ir.Script``."""
    ro, shadow = frozenset(readonly), frozenset(shadowed)
    cmds = script.commands
    wrapped_parents = {c.parent for c in cmds
                       if c.parent is not None and c.via and _str(c.via[-1]) in _WRAPPED_VIA}
    out = []
    for i, c in enumerate(cmds):
        kind = _str(c.kind)
        name = c.name
        writes = _writes_file(c.redirects) if c.redirects else False
        inert = kind in ("funcdef", "test", "arith") or (not c.words and not writes)
        transparent = False
        if i in wrapped_parents and name is not None:
            if name in TRANSPARENT_WRAPPERS:
                transparent = True
            elif name == "xargs":
                transparent = not any(w.text.startswith("-") for w in c.words[1:2])
        out.append(SubCommand(i, tuple(c.words), name, bool(c.assignments), writes,
                              transparent and not c.assignments and not writes and i not in shadow,
                              i in ro, inert, i in shadow, bool(c.via) and _str(c.via[-1]) == "xargs"))
    if script.error is None:
        return CommandView(script.source, True, "", tuple(out))
    return CommandView(script.source, False, script.error.reason, tuple(out),
                       rough_segments(script.source))


def parse_view(command: str, script: Any = None, readonly: Iterable[int] = (),
               shadowed: Iterable[int] = ()) -> CommandView:
    """Parse ``command`` (unless ``script`` is given) and build its view. Never raises."""
    try:
        if script is None:
            from ..bash.parse.parser import parse

            script = parse(command)
        return view(script, readonly, shadowed)
    except Exception as exc:  # a parser bug must not open the gate
        return CommandView(command, False, f"cannot parse: {type(exc).__name__}: {exc}", (),
                           rough_segments(command))
