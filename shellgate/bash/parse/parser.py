"""Parse a bash command string into the IR.

Pipeline: ``_lex.py`` reads the text once with bash's lexical rules (quotes, here-docs,
substitutions, ``[[ ]]``, ``(( ))``, ``case``, arrays …) and masks what bashlex cannot parse,
offsets unchanged; the structure of each region then comes from ``_fast.py`` (plain lists
and pipelines, most real commands) or bashlex (``_bashlex.py`` loads it with prebuilt
tables); ``walk.py`` turns it into the flat list of every command bash would run, decoding
each word from the original text (``_decode.py``) and unwrapping wrappers
(``commands/wrappers.py``). The walker cross-checks that the lexer and the parser saw the
same words and reached every substitution, so a disagreement fails instead of hiding a
command.

Limits: ``MAX_SOURCE`` characters, ``_lex.MAX_TOKENS`` words and operators,
``_lex.MAX_DEPTH`` nesting levels, ``walk.MAX_SCRIPT_DEPTH`` re-parsed scripts.

:func:`parse` never raises. Whatever it cannot read exactly — bash syntax errors, constructs
it does not support, inputs over the limits, NUL bytes, invalid UTF-8 — comes back as a
``Script`` with ``error`` set (a :class:`~shellgate.bash.ir.ParseFailure` with a reason), so
the caller fails closed.
"""

from __future__ import annotations

from collections.abc import Callable

from ..._record import replace
from ..ir import Command, ParseFailure, Script, Span
from ._lex import LexError, joined, prepass, unjoin
from .walk import Unsupported, Walker, respan

MAX_SOURCE = 256 * 1024   # characters; longer commands are refused outright


def _fail(source: str, reason: str, span=None, commands=(), functions=()) -> Script:
    return Script(source=source, commands=tuple(commands), error=ParseFailure(reason, span),
                  functions=tuple(functions))


def parse(source: str) -> Script:
    """Parse ``source``; see the module docstring. Never raises."""
    try:
        return _parse(source)
    except Exception as exc:  # last line of defence: a bug must fail closed, not crash
        text = source if isinstance(source, str) else ""
        return _fail(text, f"internal parser error: {type(exc).__name__}: {exc}")


def _parse(source: str | bytes) -> Script:
    if isinstance(source, bytes | bytearray):
        try:
            source = bytes(source).decode("utf-8")
        except UnicodeDecodeError as exc:
            return _fail(bytes(source).decode("utf-8", "replace"),
                         f"invalid UTF-8 at byte {exc.start}")
    if not isinstance(source, str):
        return _fail(str(source), f"not a string: {type(source).__name__}")
    if len(source) > MAX_SOURCE:
        return _fail(source, f"command too long ({len(source)} characters; limit {MAX_SOURCE})")
    nul = source.find("\x00")
    if nul >= 0:
        return _fail(source, "NUL byte in command (bash cannot receive it)", (nul, nul + 1))
    if not source.isascii():  # only non-ASCII text can hold a lone surrogate
        try:
            source.encode("utf-8")
        except UnicodeEncodeError as exc:
            return _fail(source, "invalid UTF-8 (lone surrogate)", (exc.start, exc.end))
    walker: Walker | None = None
    back = _same  # spans of the text walked -> spans of the source
    try:
        walker = Walker.plain(source)
        if walker is not None:  # plain words, plain operators: nothing to lex
            walker.run_plain()
        elif "\\\n" in source:  # bash reads the text with its line continuations joined
            text, pp, removed = joined(source)
            back = unjoin(removed)
            walker = Walker(text, pp)
            walker.run()
        else:
            pp = prepass(source)
            walker = Walker(source, pp)
            walker.run()
    except LexError as exc:
        span = back((exc.pos, exc.pos + 1)) if exc.pos is not None else None
        return _fail(source, exc.reason, span)
    except Unsupported as exc:
        return _fail(source, exc.reason, exc.span and back(exc.span),
                     _respan(walker, back), walker.functions if walker else ())
    except RecursionError:
        return _fail(source, "nesting too deep")
    except NotImplementedError as exc:
        return _fail(source, f"unsupported construct: {exc}")
    except Exception as exc:  # bashlex raises AttributeError, IndexError … on odd input
        return _fail(source, f"syntax error: {type(exc).__name__}: {exc}",
                     None, _respan(walker, back), walker.functions if walker else ())
    return Script(source=source, commands=_respan(walker, back), error=None,
                  functions=tuple(walker.functions),
                  loose_words=tuple(replace(w, span=back(w.span)) for w in walker.loose_words),
                  loop_names=tuple(replace(w, span=back(w.span)) for w in walker.loop_names))


def _same(span: Span) -> Span:
    return span


def _respan(walker: Walker | None, back: Callable[[Span], Span]) -> tuple[Command, ...]:
    """The walker's commands with spans into the source (see ``_lex.joined``)."""
    if walker is None:
        return ()
    if back is _same:
        return tuple(walker.commands)
    return tuple(respan(c, back) for c in walker.commands)
