"""awk (gawk, mawk, nawk): read-only when the program cannot run, write or open anything.

The program is an embedded language. A conservative tokenizer (strings, regex literals,
comments understood; an ambiguous ``/`` read both as regex and division) refuses a program
containing ``system``, ``getline`` (from a command or from a file the sensitive-path scanner
cannot see), any ``|`` pipe, a ``>``/``>>`` inside a ``print``/``printf`` statement (output
redirection; ``$3 > 100`` elsewhere is a comparison), ``ARGV``/``ARGC`` (which redirect the
files read) or gawk's ``@`` (``@load``, ``@include``, indirect calls such as ``@f()`` with
``f = "system"``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ..facts import PathOp
from .spec import Call, Command, Finding, Flag, Parsed, Takes, is_wild

_BANNED_NAMES = {
    "system": "awk system() runs a shell command",
    "getline": "awk getline reads from a command or a file",
    "ARGV": "awk ARGV can change which files are read",
    "ARGC": "awk ARGC can change which files are read",
    "PROCINFO": "gawk PROCINFO can change how I/O is done",
    "SYMTAB": "gawk SYMTAB can change ARGV and other variables indirectly",
    "FUNCTAB": "gawk FUNCTAB lists functions for indirect calls",
}
_OPERAND_END = {"name", "number", "string", "regex", ")", "]", "$", "incr"}
# gawk's hex constants, decimals with an exponent: the longest number any awk reads (mawk reads
# `0x1` as 0 and the name x1; neither reading hides a name after the number).
_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# After these a newline continues the statement (awk's newline_opt): `print "a",⏎"b" > f`.
_CONTINUES = frozenset({",", "{", "&&", "||", "do", "else", "?", ":"})   # gawk: also after ?:
Token = tuple[str, str, int]


class AwkProgramError(Exception):
    pass


MAX_READINGS = 64  # ways to read the program's `/`s; past this it is not understood


def _readings(src: str) -> list[list[Token]]:
    """Every way awk may tokenize ``src``: (kind, text, offset) tokens; kinds: name, number,
    string, regex, op, nl.

    A ``/`` where an operand may end (after a name, a number, ``)`` …) is a division to this
    tokenizer's grammar-free eye, but awk's parser decides: after ``print``, ``printf``,
    ``return``, ``if (…)`` it starts a regex (``print /#/; system(…)``: the ``#`` is no
    comment). So both readings go on from there, each to its end; a reading that cannot be
    tokenized (an unterminated regex or string) is one awk would reject, and is dropped."""
    done: list[list[Token]] = []
    todo: list[tuple[int, list[Token], str]] = [(0, [], "")]
    while todo:
        i, out, slash = todo.pop()
        try:
            fork = _scan(src, i, out, slash)
        except AwkProgramError:
            if not done and not todo:
                raise
            continue
        if fork is None:
            done.append(out)
        else:  # a `/` at `fork` that may be either: read it both ways
            todo.append((fork, list(out), "division"))
            todo.append((fork, out, "regex"))
        if len(done) + len(todo) > MAX_READINGS:
            raise AwkProgramError(f"more than {MAX_READINGS} ways to read its '/'s as regex "
                                  "or division")
    return done


def _scan(src: str, i: int, out: list[Token], slash: str) -> int | None:
    """Tokenize ``src`` from ``i`` onto ``out``; ``slash`` (``regex``, ``division`` or empty)
    says how to read a ``/`` at ``i``. Returns the offset of the next ``/`` that may be a regex
    or a division, or None at the end."""
    n = len(src)
    while i < n:
        c = src[i]
        if c in " \t\r":
            i += 1
        elif c == "\\" and i + 1 < n and src[i + 1] == "\n":
            i += 2
        elif c == "\n":
            out.append(("nl", c, i))
            i += 1
        elif c == "#":
            while i < n and src[i] != "\n":
                i += 1
        elif c == '"':
            j = i + 1
            while True:
                if j >= n:
                    raise AwkProgramError("unterminated string")
                if src[j] == "\\":
                    j += 2
                    continue
                if src[j] == '"':
                    break
                if src[j] == "\n":
                    raise AwkProgramError("newline in string")
                j += 1
            out.append(("string", src[i:j + 1], i))
            i = j + 1
        elif c == "/" and slash != "division" and \
                (slash == "regex" or not out or out[-1][0] not in _OPERAND_END):
            j = _regex_end(src, i)
            out.append(("regex", src[i:j + 1], i))
            i, slash = j + 1, ""
        elif c == "/" and not slash:
            return i
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            out.append(("name", src[i:j], i))
            i = j
        elif c.isdigit() or (c == "." and i + 1 < n and src[i + 1].isdigit()):
            # a number ends where awk's own reading ends it: `1system(…)` is 1, then system
            j = _NUMBER.match(src, i).end()  # type: ignore[union-attr]
            out.append(("number", src[i:j], i))
            i = j
        else:
            slash = ""
            three, two = src[i:i + 3], src[i:i + 2]
            if three in (">>=", "<<=", "**="):
                tok = three
            elif two in ("||", "&&", ">>", ">=", "<=", "==", "!=", "++", "--", "+=", "-=", "*=",
                         "/=", "%=", "^=", "|&", "**"):
                tok = two
            else:
                tok = c
            kind = "incr" if tok in ("++", "--") else tok if tok in (")", "]", "$") else "op"
            out.append((kind, tok, i))
            i += len(tok)
    return None


def _regex_end(src: str, i: int) -> int:
    """The offset of the ``/`` that closes the regex literal opened at ``i``."""
    n = len(src)
    j = i + 1
    in_bracket = False
    while True:
        if j >= n or src[j] == "\n":
            raise AwkProgramError("unterminated regex")
        ch = src[j]
        if ch == "\\":
            j += 2
            continue
        if ch == "[" and not in_bracket:
            in_bracket = True
            if src[j + 1:j + 2] == "]":
                j += 1
        elif ch == "]" and in_bracket:
            in_bracket = False
        elif ch == "/" and not in_bracket:
            return j
        j += 1


def program_problems(src: str) -> list[str]:
    """Why an awk program is not read-only (empty when it only computes and prints)."""
    try:
        readings = _readings(src)
    except AwkProgramError as exc:
        return [f"awk program not understood ({exc})"]
    found = [_problems(toks) for toks in readings]
    out = [why for whys in found for why in whys]
    if len(readings) > 1:  # a reason only some readings give says so
        out = [why if all(why in whys for whys in found) else
               f"{why}, in one of the ways awk may read a '/' (regex or division)" for why in out]
    return sorted(set(out), key=out.index)


def _problems(toks: list[Token]) -> list[str]:
    out: list[str] = []
    redirects = set(_print_redirects(toks))
    for k, (kind, text, _) in enumerate(toks):
        if kind == "name" and text in _BANNED_NAMES:
            out.append(_BANNED_NAMES[text])
        elif kind == "op" and text == "@":
            out.append("gawk @-directives and indirect calls can load code or call system()")
        elif kind == "op" and text in ("|", "|&"):
            out.append("awk pipes output to or input from a shell command")
        elif k in redirects:
            out.append("awk print > file writes a file")
    return out


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
_STATEMENT_END = frozenset({";", "}", "{", "\n"})


def program_files(src: str) -> list[tuple[PathOp, str, tuple[int, int]]]:
    """The files an awk program names as string literals: ``getline [var] < "FILE"`` reads,
    ``print``/``printf … > "FILE"`` (or ``>>``) writes. Each as (op, name, span of its literal
    text in ``src``), for the sensitive-path scanner.

    Only a name made of string literals is known (``"a" "b"`` is ``ab``); a computed one
    (``getline < $1``, ``print > x``, ``"/tmp/" n``) cannot be, so it gives nothing here — that is
    no claim the program is safe (``program_problems`` refuses every ``getline`` and ``print >``
    whatever the name). ``"cmd" | getline`` and ``print | "cmd"`` run commands: not paths.
    A program not understood gives nothing.
    """
    try:
        readings = _readings(src)
    except AwkProgramError:
        return []
    found = [f for toks in readings for f in _files(toks)]
    return list(dict.fromkeys(found))


def _files(toks: list[Token]) -> list[tuple[PathOp, str, tuple[int, int]]]:
    out: list[tuple[PathOp, str, tuple[int, int]]] = []
    redirects = set(_print_redirects(toks))
    for k, (kind, text, _) in enumerate(toks):
        if kind == "name" and text == "getline":
            j = _skip_lvalue(toks, k + 1)
            if j < len(toks) and toks[j][1] == "<":
                # mawk reads `getline < "a" "b"` from "a"; a grammar taking the concatenation
                # reads "ab": both count.
                out.extend((PathOp.READ, n, sp) for n, sp in _literal_names(toks, j + 1, first=True))
        elif k in redirects:
            out.extend((PathOp.WRITE, n, sp) for n, sp in _literal_names(toks, k + 1, first=False))
    return out


def _print_redirects(toks: list[Token]) -> Iterator[int]:
    """Indices of the ``>``/``>>`` tokens that send a ``print``/``printf`` statement to a file
    (a ``>`` inside parentheses or brackets there is a comparison)."""
    in_print, depth, last = False, 0, ""
    for k, (kind, text, _) in enumerate(toks):
        before, last = last, (last if kind == "nl" else text)
        if kind == "name" and text in ("print", "printf"):
            in_print, depth = True, 0
        elif not in_print:
            continue
        elif text in ("(", "["):
            depth += 1
        elif text in (")", "]"):
            depth -= 1
        elif kind == "nl" and before in _CONTINUES:
            continue
        elif kind == "nl" or text in _STATEMENT_END:
            in_print = False
        elif depth <= 0 and text in (">", ">>"):
            yield k
            in_print = False


def _skip_lvalue(toks: list[Token], j: int) -> int:
    """The index after the optional variable of ``getline var`` (``x``, ``a[i]``, ``$2``)."""
    if j < len(toks) and toks[j][0] == "$":
        j += 1
    if j < len(toks) and toks[j][0] in ("name", "number"):
        j += 1
        if j < len(toks) and toks[j][1] == "[":
            level = 0
            while j < len(toks):
                level += {"[": 1, "]": -1}.get(toks[j][1], 0)
                j += 1
                if level == 0:
                    break
    return j


def _literal_names(toks: list[Token], j: int, first: bool) -> list[tuple[str, tuple[int, int]]]:
    """The names an output/input redirection's expression at ``toks[j]`` can only be: string
    literals, maybe in parentheses, concatenated. ``first``: the first literal alone also
    counts (the file of ``getline <`` is a single primary in mawk). Anything computed: none."""
    opened = 0
    while j < len(toks) and toks[j][1] == "(":
        opened, j = opened + 1, j + 1
    lits: list[Token] = []
    while j < len(toks) and toks[j][0] == "string":
        lits.append(toks[j])
        j += 1
    if not lits:
        return []
    closed = 0
    while closed < opened and j < len(toks) and toks[j][1] == ")":
        closed, j = closed + 1, j + 1
    out: list[tuple[str, tuple[int, int]]] = []
    if first and not opened:
        out.append((_string_value(lits[0][1]), _literal_span(lits[0])))
    rest = toks[j] if j < len(toks) else ("nl", "\n", 0)
    ends = rest[0] == "nl" or rest[1] in _STATEMENT_END or (first and rest[0] not in ("string", "name",
                                                                                     "number", "$"))
    if closed == opened and (len(lits) > 1 or opened) and (opened or ends or first):
        start, stop = lits[0][2], lits[-1][2] + len(lits[-1][1])
        out.append(("".join(_string_value(t[1]) for t in lits), (start, stop)))
    elif closed == opened and not first and ends:
        out.append((_string_value(lits[0][1]), _literal_span(lits[0])))
    return list(dict.fromkeys(out))


def _literal_span(tok: Token) -> tuple[int, int]:
    """Where a string literal's text (inside its quotes) lies."""
    return tok[2] + 1, tok[2] + len(tok[1]) - 1


def _string_value(lit: str) -> str:
    """The value of an awk string literal: quotes removed, escapes decoded (``\\/`` is ``/``)."""
    body = lit[1:-1]
    if "\\" not in body:
        return body
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\" or i + 1 >= len(body):
            out.append(c)
            i += 1
            continue
        j = i + 1
        while j < len(body) and j < i + 4 and body[j] in "01234567":
            j += 1
        if j > i + 1:
            out.append(chr(int(body[i + 1:j], 8)))
            i = j
            continue
        out.append(_ESCAPES.get(body[i + 1], body[i + 1]))
        i += 2
    return "".join(out)


def _check(p: Parsed, call: Call) -> Iterable[Finding]:
    programs = p.values_of("-e", "--source")
    operands = list(p.operands)
    if not programs and not p.has("-f", "--file"):
        if not operands:
            return [Finding("awk without a program", call.command.span, "readonly.operand")]
        programs = [operands.pop(0)]
    out: list[Finding] = []
    for w in programs:
        if not w.static or is_wild(w):
            out.append(Finding("the awk program is not static text", w.span, "readonly.program"))
            continue
        out.extend(Finding(why, w.span, "readonly.program") for why in program_problems(w.text))
    return out


_SAFE = [
    Flag("-F", "--field-separator", takes=Takes.VALUE), Flag("-v", "--assign", takes=Takes.VALUE),
    Flag("-e", "--source", takes=Takes.SCRIPT),
    Flag("-b", "--characters-as-bytes"), Flag("-c", "--traditional"), Flag("-P", "--posix"),
    Flag("-r", "--re-interval"), Flag("-S", "--sandbox"), Flag("-n", "--non-decimal-data"),
    Flag("-O", "--optimize"), Flag("-s", "--no-optimize"), Flag("-t", "--lint-old"),
    Flag("-L", "--lint", takes=Takes.VALUE, optional=True), Flag("-M", "--bignum"),
    Flag("-N", "--use-lc-numeric"), Flag("-V", "--version"), Flag("-h", "--help"),
    Flag("-C", "--copyright"), Flag("-g", "--gen-pot"),
]
_UNSAFE = {
    Flag("-f", "--file", takes=Takes.PATH): "runs an awk program file that is not checked",
    Flag("-i", "--include", takes=Takes.PATH): "includes awk source that is not checked",
    Flag("-l", "--load", takes=Takes.PATH): "loads a shared library into awk",
    Flag("-E", "--exec", takes=Takes.PATH): "runs an awk program file that is not checked",
    Flag("-d", "--dump-variables", takes=Takes.WRITE_PATH, optional=True): "writes a variables file",
    Flag("-D", "--debug", takes=Takes.VALUE, optional=True): "starts the interactive debugger",
    Flag("-o", "--pretty-print", takes=Takes.WRITE_PATH, optional=True): "writes a file",
    Flag("-p", "--profile", takes=Takes.WRITE_PATH, optional=True): "writes a profile file",
    Flag("-W", takes=Takes.VALUE): "passes an implementation option (mawk -W exec runs a file)",
}

COMMANDS = tuple(
    Command(name, safe=_SAFE, unsafe=_UNSAFE, check=_check, permute=False,
            pattern_from=("-e", "--source", "-f", "--file", "-E", "--exec"))
    for name in ("awk", "gawk", "mawk", "nawk")
)
