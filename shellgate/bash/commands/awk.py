"""awk (gawk, mawk, nawk): read-only when the program cannot run, write or open anything.

The program is an embedded language. A conservative tokenizer (strings, regex literals,
comments understood) refuses a program containing ``system``, ``getline`` (from a command or
from a file the sensitive-path scanner cannot see), any ``|`` pipe, a ``>``/``>>`` inside a
``print``/``printf`` statement (output redirection; ``$3 > 100`` elsewhere is a comparison),
``ARGV``/``ARGC`` (which redirect the files read) or gawk's ``@`` (``@load``, ``@include``,
indirect calls such as ``@f()`` with ``f = "system"``).
"""

from __future__ import annotations

from collections.abc import Iterable

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


class AwkProgramError(Exception):
    pass


def _tokens(src: str) -> list[tuple[str, str]]:
    """(kind, text) tokens; kinds: name, number, string, regex, op, nl."""
    out: list[tuple[str, str]] = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if c in " \t\r":
            i += 1
        elif c == "\\" and i + 1 < n and src[i + 1] == "\n":
            i += 2
        elif c == "\n":
            out.append(("nl", c))
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
            out.append(("string", src[i:j + 1]))
            i = j + 1
        elif c == "/" and (not out or out[-1][0] not in _OPERAND_END):
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
                    break
                j += 1
            out.append(("regex", src[i:j + 1]))
            i = j + 1
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            out.append(("name", src[i:j]))
            i = j
        elif c.isdigit() or (c == "." and i + 1 < n and src[i + 1].isdigit()):
            j = i
            while j < n and (src[j].isalnum() or src[j] in "._"):
                j += 1
            out.append(("number", src[i:j]))
            i = j
        else:
            three, two = src[i:i + 3], src[i:i + 2]
            if three in (">>=", "<<=", "**="):
                tok = three
            elif two in ("||", "&&", ">>", ">=", "<=", "==", "!=", "++", "--", "+=", "-=", "*=",
                         "/=", "%=", "^=", "|&", "**"):
                tok = two
            else:
                tok = c
            kind = "incr" if tok in ("++", "--") else tok if tok in (")", "]", "$") else "op"
            out.append((kind, tok))
            i += len(tok)
    return out


def program_problems(src: str) -> list[str]:
    """Why an awk program is not read-only (empty when it only computes and prints)."""
    try:
        toks = _tokens(src)
    except AwkProgramError as exc:
        return [f"awk program not understood ({exc})"]
    out: list[str] = []
    in_print = False
    depth = 0
    for kind, text in toks:
        if kind == "name" and text in _BANNED_NAMES:
            out.append(_BANNED_NAMES[text])
        elif kind == "op" and text == "@":
            out.append("gawk @-directives and indirect calls can load code or call system()")
        elif kind == "op" and text in ("|", "|&"):
            out.append("awk pipes output to or input from a shell command")
        if kind == "name" and text in ("print", "printf"):
            in_print, depth = True, 0
            continue
        if not in_print:
            continue
        if text in ("(", "["):
            depth += 1
        elif text in (")", "]"):
            depth -= 1
        elif kind == "nl" or text in (";", "}", "{"):
            in_print = False
        elif depth <= 0 and text in (">", ">>"):
            out.append("awk print > file writes a file")
    return sorted(set(out), key=out.index)


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
