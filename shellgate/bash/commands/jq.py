"""jq: a JSON filter language with no way to run programs or write files — but a program may
read files and the environment.

Every jq flag is read-only (``--rawfile``/``--slurpfile`` read files, which the
sensitive-path scanner sees as operands; ``-f`` is a switch that makes the first operand the
program's file). jq matches long options exactly (no abbreviations)
and bundles short ones (``-rc``).

The program text is read too (:func:`program_text`): ``import``/``include`` and ``modulemeta``
read any ``.jq``/``.json`` file on the module search path (``-L``, ``~/.jq``, or the path the
directive names: ``import "../../home/u/.aws/x" as $c;``), and a ``$__…`` variable is jq's own
internals: such a program is not read-only. A program only known at run time may hold any of
these, so it is not read-only either; a program file (``-f``) is read and checked the same way
(and its environment reads count there, unseen by the secret check), unless the same line
writes it. So is ``~/.jq`` when it is not a directory: jq (1.6 and 1.7, linker.c) includes that
file in every program, and its definitions replace builtins (measured: a ``~/.jq`` holding
``def keys: $ENV;`` made ``jq keys p.json`` print the environment, secrets included); a
directory there is only a module search path, for the ``import`` refused above. ``env`` and ``$ENV`` print
the environment: :func:`env_reads` says which variables (a named one, ``env.HOME``, or all of
them), for the environment-secret check (``envsecrets.py``) to judge.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from ..ir import Word
from .spec import Call, Command, Finding, Flag, Parsed, Takes, read_args

V = Takes.VALUE
P = Takes.PATH

_SAFE = [
    Flag("-c", "--compact-output"), Flag("-r", "--raw-output"), Flag("--raw-output0"),
    Flag("-j", "--join-output"), Flag("-a", "--ascii-output"), Flag("-n", "--null-input"),
    Flag("-e", "--exit-status"), Flag("-s", "--slurp"), Flag("-S", "--sort-keys"),
    Flag("-C", "--color-output"), Flag("-M", "--monochrome-output"), Flag("--tab"),
    Flag("--indent", takes=V), Flag("--unbuffered"), Flag("--stream"), Flag("--stream-errors"),
    Flag("--seq"), Flag("-R", "--raw-input"), Flag("-b", "--binary"),
    Flag("-f", "--from-file"), Flag("-L", "--library-path", takes=P),
    Flag("--arg", takes=V, nargs=2), Flag("--argjson", takes=V, nargs=2),
    Flag("--slurpfile", takes=P, nargs=2), Flag("--rawfile", takes=P, nargs=2),
    Flag("--args"), Flag("--jsonargs"),
    Flag("-h", "--help"), Flag("-V", "--version"), Flag("--build-configuration"),
]


def program_text(parsed: Parsed) -> Word | None:
    """The word holding the jq program (the first operand), or None when ``-f`` makes that
    operand a file to read it from (jq's ``-f`` is a switch: ``jq -fn prog.jq`` reads
    ``prog.jq``, ``jq -n -f -r prog.jq`` too) or there is none."""
    if parsed.has("-f", "--from-file") or not parsed.operands:
        return None
    return parsed.operands[0]


def program_file(parsed: Parsed) -> Word | None:
    """The operand naming the program file under ``-f``, or None."""
    if not parsed.has("-f", "--from-file") or not parsed.operands:
        return None
    return parsed.operands[0]


def _string(program: str, i: int) -> tuple[str, int, bool]:
    """Read a string literal's text from ``i`` (just past its opening quote, or past the ``)``
    of an interpolation): (contents, where reading stopped, whether at an interpolation ``\\(``)."""
    buf: list[str] = []
    n = len(program)
    while i < n and program[i] != '"':
        if program[i] == "\\" and i + 1 < n:
            if program[i + 1] == "(":
                return "".join(buf), i + 2, True
            buf.append(program[i + 1])
            i += 2
            continue
        buf.append(program[i])
        i += 1
    return "".join(buf), i + 1, False


def _code(program: str) -> tuple[str, list[str]]:
    """``program`` with every string literal replaced by ``"#<n>"`` and comments dropped (string
    interpolation ``\\(…)`` is code again, so a string inside one is a string too), and the
    literals' contents."""
    out: list[str] = []
    strings: list[str] = []
    resume: list[int] = []   # the depth at which each open interpolation returns to its string
    i, n, depth = 0, len(program), 0
    while i < n:
        c = program[i]
        if c == '"' or (c == ")" and resume and depth == resume[-1]):
            if c == ")":
                resume.pop()
            text, i, interpolates = _string(program, i + 1)
            strings.append(text)
            out.append(f' "#{len(strings) - 1}" ')
            if interpolates:
                resume.append(depth)
            continue
        if c == "#":  # a comment, to the end of the line
            j = program.find("\n", i)
            i = n if j < 0 else j
            continue
        depth += (c == "(") - (c == ")")
        out.append(c)
        i += 1
    return "".join(out), strings


# jq 1.6 lexes `$` and the name as two tokens: `$ ENV`, `$ __prog` (blanks between) are the same.
_READS_FILES = re.compile(r"(?<![\w$.])(import|include|modulemeta)\b|\$\s*__(?!loc__\b)\w+")
_ENV = re.compile(r"(?<![\w$.])(?:env\b(?!\s*:)|\$\s*ENV\b)"
                  r"(?:\s*\.\s*([A-Za-z_]\w*)|\s*\.?\s*\[\s*\"#(\d+)\"\s*\]|\s*\.\s*\"#(\d+)\")?")


def env_reads(program: str) -> list[str | None]:
    """The environment variables ``program`` reads through ``env`` / ``$ENV``: a name for
    ``env.NAME``, ``$ENV["NAME"]``, ``env."NAME"``; None for anything else (``env``, ``$ENV |
    keys``, ``env[$k]``: every variable). An object key ``{env: …}`` and a field ``.env`` are
    not the builtin."""
    code, strings = _code(program)
    out: list[str | None] = []
    for m in _ENV.finditer(code):
        if m.group(1):
            out.append(m.group(1))
        elif m.group(2) or m.group(3):
            out.append(strings[int(m.group(2) or m.group(3))])
        else:
            out.append(None)
    return out


_MAX_PROGRAM = 65536  # bytes of a -f program file read to check it


def _problem(text: str) -> str | None:
    """Why the jq program ``text`` reads more than its operands, or None."""
    m = _READS_FILES.search(_code(text)[0])
    if m is not None:
        return (f"uses {m.group(1)} (it reads .jq/.json files from anywhere)" if m.group(1) else
                f"uses jq's internal variable {m.group(0)}")
    if env_reads(text):
        return "reads the environment (env, $ENV)"
    return None


def _program_file(word: Word, call: Call) -> str:
    """The text of a ``-f`` program file, as it is now (nothing for a file jq could not open
    either). Raises ``ValueError`` with the reason when it cannot be known: a run-time name, a
    file this very line writes, one too large to read here."""
    from .targets import resolve

    paths = resolve(word.text, call) if word.static else None
    if paths is None:
        raise ValueError("is only known at run time")
    return "\n".join(sorted({_text_of(path, call) for path in paths}))


def _text_of(path: str, call: Call) -> str:
    """The text of the jq source file ``path`` as it is now ("" when jq could not open it
    either); ``ValueError`` when that cannot be known (the line writes it, too large)."""
    if call.line_writes is None or any(path == w or path.startswith(w.rstrip("/") + "/")
                                       for w in call.line_writes):
        raise ValueError("may be written by this very line")
    from ..._plain import NotPlain, read_head

    try:
        data = read_head(path, _MAX_PROGRAM + 1)
    except NotPlain:   # a FIFO: jq waits for whatever program a writer sends it
        raise ValueError("is not a regular file (its text is not known now)") from None
    except OSError:
        return ""  # missing or unreadable: jq cannot read a program there either
    if len(data) > _MAX_PROGRAM:
        raise ValueError("is too large to check")
    return data.decode("utf-8", "replace")


def _home_library(call: Call) -> Finding | None:
    """``~/.jq`` when it is not a directory: jq includes it in every program (the module
    docstring), so it is checked as a ``-f`` program file is."""
    path = os.path.join(str(call.ctx.home), ".jq")
    try:
        if os.path.isdir(path):
            return None
        why = _problem(_text_of(path, call)) if os.path.isfile(path) or not os.path.lexists(path) \
            else "is not a regular file (reading it may block)"
    except ValueError as exc:
        why = str(exc)
    if not why:
        return None
    return Finding(f"jq includes ~/.jq in every program, and it {why}", call.command.words[0].span,
                   "readonly.config")


def _check(p: Parsed, call: Call) -> Iterable[Finding]:
    home = _home_library(call)
    if home is not None:
        yield home
    if p.has("-f", "--from-file"):
        for w in filter(None, [program_file(p)]):
            try:
                why = _problem(_program_file(w, call))
            except ValueError as exc:
                why = f"comes from a file that {exc}"
            if why:
                yield Finding(f"the jq program in {w.text} {why}", w.span, "readonly.program")
        return
    program = program_text(p)
    if program is None:
        return
    if not program.static:
        yield Finding("the jq program is only known at run time (it could import files)", program.span,
                      "readonly.program")
        return
    m = _READS_FILES.search(_code(program.text)[0])
    if m is not None:
        why = (f"uses {m.group(1)} (it reads .jq/.json files from anywhere)" if m.group(1) else
               f"uses jq's internal variable {m.group(0)}")
        yield Finding(f"the jq program {why}", program.span, "readonly.program")


JQ = Command("jq", abbrev=False, wild=True, pattern_from=("-f", "--from-file"), safe=_SAFE, check=_check)

COMMANDS = (JQ,)


def jq_env_reads(args: tuple[Word, ...]) -> list[str | None] | None:
    """:func:`env_reads` of a jq command line's program, read with jq's own table; None when
    the program is not there to read (``-f``, a run-time word)."""
    program = program_text(read_args(JQ, args))
    if program is None or not program.static:
        return None
    return env_reads(program.text)
