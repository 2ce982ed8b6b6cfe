"""find: read-only when its expression only tests and prints.

find's expression is a small language with single-dash long names and no abbreviations, so it
has its own reader here: ``find [-H|-L|-P] [-D opts] [-Olevel] [start…] [expression]``.
``-delete`` deletes, ``-fprint*``/``-fls`` write files. ``-exec``/``-execdir``/``-ok``/``-okdir``
run a command: the parser's walker emits that command (``Via.FIND_EXEC``, parent = this find),
and the classifier checks it like any other command — so ``find . -exec grep -l x {} +`` is
read-only and ``find . -exec rm {} \\;`` is not. Here we only make sure the walker did emit a
command for every ``-exec``, and that the start points cannot become an expression word, so that
``{}`` can only become a path starting with a start point, never an option of the inner command.
``-files0-from`` breaks that: GNU find takes the start points it reads as written, ``-o`` or
``--files0-from=.env`` too (a file so named must exist), and ``-exec``/``-ok`` pass them on as
``{}``; ``-execdir``/``-okdir`` pass ``./NAME``.

A start point is static, or ``$HOME`` (``${HOME}``, quoted or not, maybe with a plain path
after it: the context's home, the value bash gives ``~`` too, when it holds no blank or glob
character; any assignment of HOME in the line already makes it not read-only), or a word whose
only expansions are ``$HOME``, ``$PWD`` or ``$(pwd)`` with clean values (``spec.known_texts``:
``find "$(pwd)/src" -name x``, ``find $PWD -type d``), or a plain glob
proved to expand to names find takes for start points (``find * -name x``: ``glob_operands``,
and no name it may match is ``(``, ``)``, ``!`` or ``,``, which find would read as an
operator).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence

from ..ir import Via, Word
from .environment import date_tz_problem
from .spec import Call, Finding, expanded_here, glob_operands, is_wild, known_texts, may_split

# Primaries and how many argument words each takes (the warnings read find's expression with it).
PRIMARIES: dict[str, int] = {
    **dict.fromkeys((
        "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex",
        "-lname", "-ilname", "-type", "-xtype", "-size", "-mtime", "-mmin", "-atime", "-amin",
        "-ctime", "-cmin", "-newer", "-anewer", "-cnewer", "-perm", "-user", "-group", "-uid",
        "-gid", "-links", "-inum", "-samefile", "-maxdepth", "-mindepth", "-regextype", "-used",
        "-fstype", "-context", "-printf", "-files0-from",
    ), 1),
    **dict.fromkeys((
        "-empty", "-readable", "-writable", "-executable", "-nouser", "-nogroup", "-depth",
        "-mount", "-xdev", "-noleaf", "-ignore_readdir_race", "-noignore_readdir_race",
        "-daystart", "-follow", "-warn", "-nowarn", "-true", "-false", "-print", "-print0",
        "-ls", "-prune", "-quit", "-not", "-a", "-and", "-o", "-or", "-d", "-help", "--help",
        "-version", "--version", "(", ")", "!", ",",
    ), 0),
}
_NEWER_XY = re.compile(r"-newer[aBcmt][aBcmt]")
_WRITES = {"-fprint": 1, "-fprint0": 1, "-fprintf": 2, "-fls": 1}
_EXECS = ("-exec", "-execdir", "-ok", "-okdir")


_OPTIMISE = re.compile(r"-O\d+")


def leading_options(words: Sequence[Word]) -> tuple[tuple[str, ...], int]:
    """find's leading options as GNU find reads them (``process_leading_options``): any number
    of ``-H``, ``-L``, ``-P``, ``-D DEBUGOPTS``, ``-OLEVEL`` (digits), up to the first other word
    or a ``--``, which ends them and is skipped. Returns the options read and the index of the
    first start point. The one reader of them (the check below, the path scanner, the xargs
    proof): a reader that stops at ``-P`` takes the cwd for the start point of
    ``find -P ../other``. A word bash still expands is not an option here."""
    seen: list[str] = []
    i = 0
    while i < len(words) and words[i].static:
        t = words[i].text
        if t == "--":
            return tuple(seen), i + 1
        if t in ("-H", "-L", "-P") or _OPTIMISE.fullmatch(t):
            i += 1
        elif t == "-D" and i + 1 < len(words):
            i += 2
        else:
            break
        seen.append(t)
    return tuple(seen), i


_OPERATORS = frozenset({"(", ")", "!", ","})
_HOME_WORD = re.compile(r'(?P<q>"?)(?:\$HOME|\$\{HOME\})(?P<rest>(?:/[A-Za-z0-9._+@%,=:~-]*)*)(?P=q)')
_CLEAN_HOME = re.compile(r"/[A-Za-z0-9._+@%,=:/-]*")
_MAX_SCAN = 5000


def _literal_head(w: Word) -> bool:
    """A static glob or brace word whose first character is a literal that no expression word
    starts with: every word it may become starts with it too (``“*.jpg”``, ``src*``,
    ``a{b,c}``), so none is an operator or a ``-…`` primary."""
    return w.static and w.text[:1] not in ("", "-", "(", ")", "!", ",", "*", "?", "[", "{", "\\",
                                            "~", "^", "#", "=")


def _known_start(w: Word, call: Call) -> bool:
    """Whether a start point bash still expands can only become start points (module
    docstring): ``$HOME`` with a plain tail, a glob that starts with a literal character, or a
    proved plain glob."""
    if _literal_head(w):
        return True
    ctx = call.ctx
    if not w.glob and _HOME_WORD.fullmatch(w.raw):
        return (_CLEAN_HOME.fullmatch(str(ctx.home)) is not None
                and (ctx.inherited is None or all(n != "HOME" for n, _ in ctx.inherited.variables)))
    texts = known_texts(w, call)  # `$PWD`, `$(pwd)/src`: one word, each cwd's
    if texts is not None:
        return all(t[:1] not in ("", "-", "(", ")", "!", ",") for t in texts)
    if not (w.glob and expanded_here(call.command.via)
            and glob_operands(w, call.cwds, call.line_writes)):
        return False
    for d in call.cwds or ():   # (glob_operands needs them known)
        try:
            with os.scandir(d) as it:
                for budget, e in enumerate(it):
                    if budget > _MAX_SCAN or e.name in _OPERATORS:
                        return False
        except OSError:
            return False
    writes = call.line_writes or ()
    return not any(os.path.basename(p) in _OPERATORS for p in writes)


def _may_split_value(w: Word, call: Call) -> bool:
    """Whether a primary's value may become several words (``-size $(echo 1 -delete)``,
    ``-name *e*`` with files ``+e`` and ``-delete``: ``-name +e -delete``): an unquoted
    expansion, or a glob not proved like a start point (a plain name more is a parse error for
    find, a ``-…`` word or an operator would be read as the expression)."""
    if w.glob:
        return not _known_start(w, call)
    return not w.static and may_split(w) and known_texts(w, call) is None


def _split_value(primary: str, w: Word, call: Call) -> Finding:
    return Finding(f"find {primary} {w.text!r}: the value may split into more expression words "
                   "(-delete, -exec …)", w.span, "readonly.wild")


def _check(call: Call) -> list[Finding]:
    args: Sequence[Word] = call.command.args
    out: list[Finding] = []
    if call.wild_tail:
        out.append(Finding("xargs appends its input to find's expression (-delete, -exec …)",
                           call.command.span, "readonly.wild"))
    n = len(args)
    i = leading_options(args)[1]
    # start points: up to the first word that starts an expression
    while i < n:
        w = args[i]
        if w.static and (w.text.startswith("-") or w.text in ("(", "!", ")", ",")):
            break
        if is_wild(w) and not _known_start(w, call):
            out.append(Finding(f"find start point {w.text!r} may expand to an expression primary",
                               w.span, "readonly.wild"))
        i += 1
    execs = 0
    verbatim = any(w.static and w.text == "-files0-from" for w in args[i:])
    while i < n:
        w = args[i]
        i += 1
        t = w.text
        if not w.static:
            if is_wild(w):
                out.append(Finding(f"find expression word {t!r} is only known at run time",
                                   w.span, "readonly.wild"))
            continue
        if t == "-files0-from" and i < n and not args[i].static:
            out.append(Finding("find -files0-from reads its start points from a file only known at run "
                               "time (it could be a secret)", args[i].span, "readonly.dynamic_path"))
        if t in PRIMARIES or _NEWER_XY.fullmatch(t):
            k = PRIMARIES.get(t, 1)
            out.extend(_split_value(t, v, call) for v in args[i:i + k] if _may_split_value(v, call))
            if t.startswith("-newer") and t.endswith("t") and i < n and (why := date_tz_problem(args[i])):
                out.append(Finding(f"find {t}: {why}", args[i].span, "readonly.operand"))
            i += k
        elif t == "-delete":
            out.append(Finding("find -delete deletes files", w.span, "readonly.flag"))
        elif t in _WRITES:
            out.append(Finding(f"find {t} writes a file", w.span, "readonly.flag"))
            i += _WRITES[t]
        elif t in _EXECS:
            execs += 1
            if verbatim and t in ("-exec", "-ok"):
                out.append(Finding(f"find {t} with -files0-from: those start points are used as written, "
                                   "so '{}' may be a word starting with '-' (an option of the command run: "
                                   "du --files0-from=.env, tree -o FILE)", w.span, "readonly.wild"))
            # `+` ends the command only right after `{}` (as find reads it)
            while i < n and not (args[i].static and (args[i].text == ";" or (
                    args[i].text == "+" and args[i - 1].text == "{}"))):
                i += 1
            if i >= n:
                out.append(Finding(f"find {t} without a terminating ';' or '+'", w.span,
                                   "readonly.flag"))
            i += 1
        else:
            out.append(Finding(f"find: unknown primary {t} (not on the read-only list)", w.span,
                               "readonly.unknown_flag"))
    if execs:
        children = [c for c in call.script.commands
                    if c.parent == call.index and c.via and c.via[-1] is Via.FIND_EXEC]
        if len(children) < execs:
            out.append(Finding("find -exec runs a command that could not be identified",
                               call.command.span, "readonly.wrapper"))
    return out


def check(call: Call) -> list[Finding]:
    """Entry point used by the registry (find is not table-driven)."""
    return _check(call)
