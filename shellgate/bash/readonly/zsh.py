"""Words zsh expands differently from bash, refused for every command.

The agent's shell is often zsh (the default shell of Claude Code and Codex users on macOS), and
the script it runs is the one the parser read with bash's rules: every reading must be safe,
so a word zsh would read otherwise is refused unless both readings are known to agree. This is
done always, not only when ``$SHELL`` is zsh: it costs 18 read-only verdicts of the 54,880
commands of ``../shared/corpus-data``, 14 of them ``grep ^x`` (``bench/readings.py``).

Modelled differences (zsh 5.9 defaults, plus ``extendedglob`` for ``^``):

* glob qualifiers: ``*(e:'touch x':)``, ``*(+cmd)`` run code; bash (with extglob) reads ``*(…)``,
  ``?(…)``, ``+(…)``, ``@(…)``, ``!(…)`` as a pattern — every such group is refused;
* ``=cmd`` at the start of a word is the path of ``cmd`` (``EQUALS``); ``=(…)`` is a syntax
  error to bash, so a parse failure already;
* ``$~x``, ``$=x``, ``$^x`` switch globbing, splitting and brace expansion of the value on; bash
  reads a literal ``$`` there (the braced ``${~x}`` … are refused by ``commands/expansions.py``);
* modifiers ``$x:h``, ``$x:t``, ``$x:s/a/b/`` … change the path a word names; bash appends the
  text (``$HOME:h/.ssh/id_rsa`` reads a secret under zsh only);
* ``^`` at the start of a word negates a pattern under ``extendedglob``;
* ``$x[…]``, a subscript after an unbraced parameter, is evaluated as arithmetic (and expanded
  again, single quotes or not: ``$PWD['$(id)']`` runs ``id``); bash appends the text;
* a command of redirections only, ``<file``, runs ``$READNULLCMD`` (a pager) in zsh;
* ``2>&-#x``: bash closes fd 2 and reads ``#x`` as a comment, zsh writes a file ``-#x``;
* arguments zsh evaluates as arithmetic where bash reads a plain number (or none): those of
  ``exit``, ``return``, ``break``, ``continue``, ``shift``, ``logout``, the operand of ``-t`` in
  ``test``, ``[`` and ``[[ ]]``, and the arguments of ``printf``'s numeric conversions and ``*``
  widths. zsh evaluates a parameter name in them again and expands its subscript, so
  ``exit 'PWD[$(id)]'`` runs ``id``; each must be a literal number (``$?``, ``$#``, ``$$`` and
  ``$!`` are numbers too).

Not refused: ``#`` inside a word (an ``extendedglob`` repetition that can only match files; common
in URLs), zsh's different word splitting of ``$x`` (a dynamic word is handled as such already).
"""

from __future__ import annotations

import re

from ..._lazyre import lazy_compile
from ..commands.expansions import arith_problem
from ..ir import Command, CommandKind, Word

_QUALIFIER = lazy_compile(r"[*?+@!]\(")
_EQUALS = lazy_compile(r"=[A-Za-z0-9_./+-]")
_FLAG_PARAM = lazy_compile(r"\$[~=^]")
_MODIFIER = lazy_compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9#?$!*@-]):[aAceghlpPqQrstux&]")
# zsh reads `[` right after an unbraced parameter as a subscript, evaluated as arithmetic and
# expanded again (`$PWD['$(id)']` runs id, quotes and all); bash appends the text.
_SUBSCRIPT = lazy_compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9#?$!*@-])\[")
_OPERATORS = frozenset({"=", "==", "=~", "!="})
_DUP_HASH = lazy_compile(r"[<>]&[-0-9]*#")
_ANY = lazy_compile(r"[*?+@!]\(|^[=^]|\$[~=^]|\$[\w#?$!*@-]+[:\[]")  # maybe one of the above, quoted or not
_PIECE = lazy_compile(r"""\\[\s\S]|"|\$'(?:[^'\\]|\\[\s\S])*'?|'[^']*'?|[^\\"'$]+|[\s\S]""")
_PIECE_DQ = lazy_compile(r"""\\[\s\S]|"|[^\\"]+|[\s\S]""")  # inside double quotes
QUOTED = "\0"  # stands for a quoted character in the masked texts

# Builtins whose every argument zsh 5.9 evaluates as arithmetic (mathevali); bash takes a number.
_MATH_ARGS = frozenset({"exit", "return", "break", "continue", "shift", "logout"})
_TESTS = frozenset({"test", "[", "[["})
# printf's conversions that take their argument as a string; every other one is numeric in zsh
_PRINTF_TEXT = frozenset("sbqc%")
_PRINTF_SPEC = re.compile(r"%(?:\d+\$)?[-+ #0']*(\*(?:\d+\$)?|\d+)?(?:\.(\*(?:\d+\$)?|\d*))?(.?)",
                          re.S)
_NUMBER_PARAM = lazy_compile(r'"?\$(?:[?#$!]|\{[?#$!]\})"?')
_NUMBER = lazy_compile(r"\s*[-+]?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*")


def problems(cmd: Command, source: str = "") -> list[tuple[str, Word | None]]:
    """Why zsh may run ``cmd`` differently from bash: (reason, the word) pairs. ``source``: the
    text the command's spans index (for what bash reads as a comment after a redirection)."""
    out: list[tuple[str, Word | None]] = []
    for r in cmd.redirects:   # `2>&-#x`: bash closes fd 2, `#x` a comment; zsh writes `-#x`
        # (the span's text and the next character: in a nested script the span is the whole word)
        if r.op in (">&", "<&") and _DUP_HASH.search(source, r.span[0], r.span[1] + 1):
            out.append(("'#' right after a redirection: a comment to bash, part of the file name to "
                        "zsh", r.target))
    words = [*cmd.words, *(a.value for a in cmd.assignments),
             *(r.target for r in cmd.redirects if r.target is not None and r.op not in ("<<", "<<-"))]
    for w in words:
        out.extend((why, w) for why in word_problems(w.raw))
    out.extend(("zsh evaluates this argument as arithmetic (a parameter's subscript in it runs "
                "$(…)): only a literal number is safe", w) for w in math_operands(cmd)
               if not literal_number(w))
    if not cmd.words and not cmd.assignments and any(r.op == "<" for r in cmd.redirects):
        out.append(("a command of redirections only runs $READNULLCMD (a pager) in zsh", None))
    return out


def word_problems(raw: str) -> list[str]:
    """Why zsh may expand the word spelled ``raw`` differently from bash."""
    if raw in _OPERATORS or not _ANY.search(raw):  # one regex step for the common word
        return []
    unquoted, expanded = _masks(raw)
    out = []
    if _QUALIFIER.search(unquoted):
        out.append("a pattern group '(…)' after a glob character is a glob qualifier in zsh "
                   "(*(e:…:) runs code)")
    if _EQUALS.match(unquoted):
        out.append("a word starting with '=' expands to a command's path in zsh")
    if unquoted.startswith("^") and len(unquoted) > 1:
        out.append("a word starting with '^' is a negated pattern in zsh (extendedglob)")
    if _FLAG_PARAM.search(expanded):
        out.append("$~, $= and $^ turn on globbing, splitting or brace expansion of a value "
                   "in zsh")
    if _MODIFIER.search(expanded):
        out.append("a ':' modifier after a parameter ($x:h, $x:t …) changes the value in zsh")
    if _SUBSCRIPT.search(expanded):
        out.append("'[' right after a parameter ($x[…]) is a subscript zsh evaluates as arithmetic "
                   "(it runs $(…) inside it)")
    return out


def _masks(raw: str) -> tuple[str, str]:
    """``raw`` with quoted characters replaced by ``QUOTED``: in the first also those inside
    double quotes (globs and ``=`` are inert there), in the second only single-quoted,
    ``$'…'`` and backslash-escaped ones (parameters still expand inside double quotes). Read
    a run at a time (``_PIECE``), not a character at a time."""
    unq, exp = [], []
    dq, i = False, 0
    while i < len(raw):
        piece = (_PIECE_DQ if dq else _PIECE).match(raw, i).group()
        i += len(piece)
        if piece == '"':
            dq = not dq
            unq.append(QUOTED)
            exp.append(QUOTED)
        elif piece[0] == "\\" or (not dq and (piece[0] == "'" or piece.startswith("$'"))):
            unq.append(QUOTED * len(piece))
            exp.append(QUOTED * len(piece))
        else:
            unq.append(QUOTED * len(piece) if dq else piece)
            exp.append(piece)
    return "".join(unq), "".join(exp)


def literal_number(w: Word) -> bool:
    """Whether ``w`` is arithmetic without a name in every shell: digits and operators only
    (``arith_problem``), a hexadecimal or decimal literal (``0xFF``, ``3.5e2``), or one of the
    special parameters that are always a number."""
    if w.static:
        return not w.glob and (arith_problem(w.text) is None or _NUMBER.fullmatch(w.text) is not None)
    return _NUMBER_PARAM.fullmatch(w.raw) is not None


def math_operands(cmd: Command) -> list[Word]:
    """The words of ``cmd`` that zsh evaluates as arithmetic (see the module docstring)."""
    name = cmd.name
    if cmd.kind is CommandKind.TEST:
        words = list(cmd.words)
    elif name in _TESTS:
        words = list(cmd.args)
        if name == "[" and words and words[-1].static and words[-1].text == "]":
            words.pop()
    elif name in _MATH_ARGS:
        return list(cmd.args)
    elif name == "printf":
        return _printf_numbers(list(cmd.args))
    else:
        return []
    return [b for a, b in zip(words, words[1:], strict=False)
            if a.static and not a.quoted and a.text == "-t"]


def _printf_numbers(args: list[Word]) -> list[Word]:
    """The arguments zsh's printf reads as numbers: those of numeric conversions and ``*``
    widths, the format reused while arguments remain. All of them when the format is not
    static text or numbers its arguments (``%2$d``)."""
    if args and args[0].static and args[0].text == "--":
        args = args[1:]
    if not args:
        return []
    fmt, rest = args[0], args[1:]
    if not fmt.static or fmt.glob:
        return rest
    slots: list[bool] = []   # per argument the format takes: is it read as a number?
    for m in _PRINTF_SPEC.finditer(fmt.text):
        width, precision, conv = m.groups()
        if "$" in m.group():
            return rest
        slots.extend(True for part in (width, precision) if part and part.startswith("*"))
        if conv != "%":
            slots.append(conv not in _PRINTF_TEXT)
    if not slots:
        return []
    return [w for k, w in enumerate(rest) if slots[k % len(slots)]]
