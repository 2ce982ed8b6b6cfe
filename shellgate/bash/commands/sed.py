"""sed: read-only when its script only prints, deletes, substitutes and moves text.

The script is an embedded language: ``e`` and ``s///e`` run commands, ``w``/``W`` and
``s///w`` write files, ``r``/``R`` read files the sensitive-path scanner cannot see. A small
scanner reads the script the way GNU sed's ``compile.c`` does (addresses, ``s`` with any
delimiter, ``y``, text commands, labels) and refuses those commands; anything it does not
understand is refused too. ``-i`` makes sed a file edit: WRITE when every file lies inside the
workspace.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

from ..facts import Effect, PathOp
from .spec import Call, Command, Finding, Flag, Parsed, Takes, is_wild
from .targets import write_findings

_NO_ARGS = set("=dDgGhHnNpPxzF")
_OPT_NUM = set("lLqQ")
_TEXT = set("aic")
_LABEL = set("btT")
_FILE_READ = {"r": "reads a file", "R": "reads a file"}
_FILE_WRITE = {"w": "writes a file", "W": "writes a file"}


class SedScriptError(Exception):
    pass


def script_problems(script: str) -> list[str]:
    """Why a sed script is not read-only: one plain-words reason per refused command.

    GNU sed 4.9 (and BSD sed) skip ``[…]`` bracket expressions when looking for the end of a
    regex (``s/[/]/x/``); older GNU seds do not. The bracket-aware reading decides; the naive
    reading adds its refusals when it also parses (``s/[/]/e;#/`` runs ``e`` on an old sed).
    A naive reading that does not parse is a compile error for such a sed: nothing runs.
    """
    try:
        out = _Sed(script, brackets=True).run()
    except SedScriptError as exc:
        return [f"sed script not understood ({exc})"]
    except (IndexError, ValueError):
        return ["sed script not understood (unterminated)"]
    try:
        naive = _Sed(script, brackets=False).run()
    except (SedScriptError, IndexError, ValueError):
        naive = []
    return out + [f for f in naive if f not in out]


def script_files(script: str) -> list[tuple[PathOp, str, tuple[int, int]]]:
    """The files a sed script reads (``r``, ``R``) and writes (``w``, ``W``, ``s///w``): (op,
    name, span of the name in ``script``), for the sensitive-path scanner.

    GNU sed takes a file name from the first non-blank to the end of the line (``1r a;p``
    reads ``a;p``; trailing blanks are kept; several ``-e`` scripts are one script joined by
    newlines). Both readings of ``script_problems`` count; a script not understood gives the
    files found before the point it stopped being understood (sed would compile none of it).
    """
    found: list[tuple[PathOp, str, tuple[int, int]]] = []
    for brackets in (True, False):
        sed = _Sed(script, brackets=brackets)
        with contextlib.suppress(SedScriptError, IndexError, ValueError):
            sed.run()
        found.extend(f for f in sed.files if f not in found)
    return found


class _Sed:
    def __init__(self, s: str, brackets: bool) -> None:
        self.s = s
        self.i = 0
        self.out: list[str] = []
        self.files: list[tuple[PathOp, str, tuple[int, int]]] = []
        self.brackets = brackets

    def peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def skip_ws(self) -> None:
        while self.peek() in (" ", "\t") and self.peek():
            self.i += 1

    def run(self) -> list[str]:
        s = self.s
        while True:
            while self.peek() and self.peek() in " \t\n;":
                self.i += 1
            if not self.peek():
                return self.out
            if self.peek() == "#":
                self._to_eol()
                continue
            self._address()
            self.skip_ws()
            while self.peek() == "!":
                self.i += 1
                self.skip_ws()
            if not self.peek():
                raise SedScriptError("missing command")
            cmd = s[self.i]
            self.i += 1
            self._command(cmd)

    # --- addresses ---
    def _address(self) -> None:
        if self._one_address():
            self.skip_ws()
            if self.peek() == ",":
                self.i += 1
                self.skip_ws()
                if self.peek() in ("+", "~"):
                    self.i += 1
                    self._digits(required=True)
                elif not self._one_address():
                    raise SedScriptError("bad second address")

    def _one_address(self) -> bool:
        c = self.peek()
        if c.isdigit():
            self._digits(required=True)
            if self.peek() == "~":
                self.i += 1
                self._digits(required=True)
            return True
        if c == "$":
            self.i += 1
            return True
        if c in ("/", "\\"):
            if c == "\\":
                self.i += 1
                delim = self.s[self.i]
            else:
                delim = "/"
            self.i += 1
            self._slash(delim, regex=True)
            while self.peek() in ("I", "M") and self.peek():
                self.i += 1
            return True
        return False

    def _digits(self, required: bool) -> None:
        start = self.i
        while self.peek().isdigit() and self.peek():
            self.i += 1
        if required and self.i == start:
            raise SedScriptError("number expected")

    def _slash(self, delim: str, regex: bool) -> None:
        """Skip to the unescaped ``delim`` (GNU ``match_slash``: no bracket special case)."""
        if delim in ("\n", "\\", ""):
            raise SedScriptError("bad delimiter")
        s = self.s
        while True:
            c = s[self.i]
            self.i += 1
            if c == "\\":
                self.i += 1
            elif c == "[" and regex and self.brackets:
                self._bracket()
            elif c == delim:
                return
            elif c == "\n" and regex:
                raise SedScriptError("newline in regex")

    def _bracket(self) -> None:
        """Skip a bracket expression after its ``[`` (``[]a]``, ``[^]a]``, ``[[:alpha:]]``)."""
        s = self.s
        if s[self.i] == "^":
            self.i += 1
        if s[self.i] == "]":
            self.i += 1
        while s[self.i] != "]":
            if s[self.i] == "[" and s[self.i + 1] in ".:=":
                end = s.index(s[self.i + 1] + "]", self.i + 2)
                self.i = end + 2
                continue
            if s[self.i] == "\n":
                raise SedScriptError("newline in bracket expression")
            self.i += 1
        self.i += 1

    def _to_eol(self) -> str:
        j = self.s.find("\n", self.i)
        j = len(self.s) if j < 0 else j
        text = self.s[self.i:j]
        self.i = j
        return text

    def _end_of_command(self) -> None:
        self.skip_ws()
        c = self.peek()
        if c and c not in ";\n}#":
            raise SedScriptError(f"unexpected {c!r} after a command")

    # --- commands ---
    def _command(self, c: str) -> None:
        if c in "{":
            return
        if c == "}":
            self._end_of_command()
            return
        if c in _NO_ARGS:
            self._end_of_command()
        elif c in _OPT_NUM:
            self.skip_ws()
            self._digits(required=False)
            self._end_of_command()
        elif c in _TEXT:
            self._text()
        elif c == ":":
            self.skip_ws()
            label = self._label()
            if not label:
                raise SedScriptError("empty label")
        elif c in _LABEL:
            self.skip_ws()
            self._label()
        elif c in _FILE_READ or c in _FILE_WRITE:
            target = self._file_name(PathOp.READ if c in _FILE_READ else PathOp.WRITE)
            why = _FILE_READ.get(c) or _FILE_WRITE[c]
            self.out.append(f"sed command '{c} {target}' {why}")
        elif c == "e":
            cmdline = self._to_eol().strip()
            self.out.append(f"sed command 'e{(' ' + cmdline) if cmdline else ''}' runs a shell command")
        elif c == "s":
            self._substitute()
        elif c == "y":
            delim = self.s[self.i]
            self.i += 1
            self._slash(delim, regex=False)
            self._slash(delim, regex=False)
            self._end_of_command()
        elif c == "v":
            self._label()
        elif c == "#":
            self._to_eol()
        else:
            raise SedScriptError(f"unknown command {c!r}")

    def _file_name(self, op: PathOp) -> str:
        """The file name of ``r``/``w``/``s///w`` (GNU ``read_filename``: blanks skipped, then to
        the end of the line), recorded in ``files``; returned stripped, for messages."""
        self.skip_ws()
        start = self.i
        name = self._to_eol()
        if name:
            self.files.append((op, name, (start, self.i)))
        return name.strip()

    def _label(self) -> str:
        """A label of ``:``, ``b``, ``t``, ``T`` (or ``v``'s version): GNU ``read_label`` skips
        blanks, then reads to a blank, ``;``, ``}``, ``#`` or newline (sed 4.9, seen) — what
        follows a blank is the next command (``:a e id`` runs ``id``)."""
        self.skip_ws()
        start = self.i
        while self.peek() and self.peek() not in ";}# \t\n\v\f\r":
            self.i += 1
        return self.s[start:self.i]

    def _text(self) -> None:
        """``a``/``i``/``c`` text: to the first unescaped newline (``a\\`` continues lines)."""
        s = self.s
        while self.i < len(s):
            c = s[self.i]
            if c == "\\":
                self.i += 2
                continue
            if c == "\n":
                return
            self.i += 1

    def _substitute(self) -> None:
        delim = self.s[self.i]
        self.i += 1
        self._slash(delim, regex=True)
        self._slash(delim, regex=False)
        while True:
            c = self.peek()
            if c in ("g", "p", "i", "I", "m", "M") and c:
                self.i += 1
            elif c.isdigit() and c:
                self._digits(required=True)
            elif c == "e":
                self.i += 1
                self.out.append("sed s///e runs the pattern space as a shell command")
            elif c == "w":
                self.i += 1
                target = self._file_name(PathOp.WRITE)
                self.out.append(f"sed s///w {target} writes a file")
                return
            else:
                self._end_of_command()
                return


def _check(p: Parsed, call: Call) -> Iterable[Finding]:
    scripts = p.values_of("-e", "--expression")
    operands = list(p.operands)
    if not scripts and not p.has("-f", "--file"):
        if not operands:
            return [Finding("sed without a script", call.command.span, "readonly.operand")]
        scripts = [operands.pop(0)]
    out: list[Finding] = []
    for w in scripts:
        if not w.static or is_wild(w):
            out.append(Finding("the sed script is not static text", w.span, "readonly.program"))
            continue
    joined = "\n".join(w.text for w in scripts if w.static)
    for why in script_problems(joined):
        span = scripts[0].span if len(scripts) == 1 else call.command.span
        out.append(Finding(why, span, "readonly.program"))
    inplace = [o for o in p.opts if "-i" in o.flag.names]
    if inplace:
        if not operands:
            out.append(Finding("sed -i without a file", inplace[0].word.span, "readonly.flag"))
        out.extend(write_findings(operands, call, "sed -i edits"))
    return out


SED = Command(
    "sed",
    safe=[
        Flag("-n", "--quiet", "--silent"), Flag("-e", "--expression", takes=Takes.SCRIPT),
        Flag("-E", "-r", "--regexp-extended"), Flag("-s", "--separate"),
        Flag("-u", "--unbuffered"), Flag("-z", "--null-data"), Flag("--posix"),
        Flag("-l", "--line-length", takes=Takes.VALUE), Flag("--debug"), Flag("--sandbox"),
        Flag("-b", "--binary"), Flag("--follow-symlinks"), Flag("--help"), Flag("--version"),
    ],
    unsafe={
        # A WRITE by itself; the check adds one finding per edited file (worse outside).
        Flag("-i", "--in-place", takes=Takes.VALUE, optional=True): ("edits files in place", Effect.WRITE),
        Flag("-f", "--file", takes=Takes.PATH): "runs a sed script from a file that is not checked",
    },
    check=_check,
    pattern_from=("-e", "--expression", "-f", "--file"),
)

COMMANDS = (SED,)

