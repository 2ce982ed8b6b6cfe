"""Words zsh expands differently from bash, refused for every command.

The agent's shell is often zsh (the default shell of Claude Code and Codex users on macOS), and
the script it runs is the one the parser read with bash's rules: every reading must be safe,
so a word zsh would read otherwise is refused unless both readings are known to agree. This is
done always, not only when ``$SHELL`` is zsh: it costs no read-only verdict on the commands of
``../shared/corpus-data`` (measured with ``bench/readonly_share.py``; see the README).

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
* a command of redirections only, ``<file``, runs ``$READNULLCMD`` (a pager) in zsh.

Not refused: ``#`` inside a word (an ``extendedglob`` repetition that can only match files; common
in URLs), zsh's different word splitting of ``$x`` (a dynamic word is handled as such already).
"""

from __future__ import annotations

import re

from .._lazyre import lazy_compile
from .ir import Command, Word

_QUALIFIER = lazy_compile(r"[*?+@!]\(")
_EQUALS = lazy_compile(r"=[A-Za-z0-9_./+-]")
_FLAG_PARAM = lazy_compile(r"\$[~=^]")
_MODIFIER = lazy_compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9#?$!*@-]):[aAceghlpPqQrstux&]")
_OPERATORS = frozenset({"=", "==", "=~", "!="})
QUOTED = "\0"  # stands for a quoted character in the masked texts


def problems(cmd: Command) -> list[tuple[str, Word | None]]:
    """Why zsh may run ``cmd`` differently from bash: (reason, the word) pairs."""
    out: list[tuple[str, Word | None]] = []
    words = [*cmd.words, *(a.value for a in cmd.assignments),
             *(r.target for r in cmd.redirects if r.target is not None and r.op not in ("<<", "<<-"))]
    for w in words:
        out.extend((why, w) for why in word_problems(w.raw))
    if not cmd.words and not cmd.assignments and any(r.op == "<" for r in cmd.redirects):
        out.append(("a command of redirections only runs $READNULLCMD (a pager) in zsh", None))
    return out


def word_problems(raw: str) -> list[str]:
    """Why zsh may expand the word spelled ``raw`` differently from bash."""
    if raw in _OPERATORS:
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
    return out


def _masks(raw: str) -> tuple[str, str]:
    """``raw`` with quoted characters replaced by ``QUOTED``: in the first also those inside
    double quotes (globs and ``=`` are inert there), in the second only single-quoted,
    ``$'…'`` and backslash-escaped ones (parameters still expand inside double quotes)."""
    unq, exp = [], []
    i, n, dq = 0, len(raw), False
    while i < n:
        c = raw[i]
        if c == "\\" and i + 1 < n:
            unq += QUOTED * 2
            exp += QUOTED * 2
            i += 2
            continue
        if c == '"':
            dq = not dq
            unq.append(QUOTED)
            exp.append(QUOTED)
            i += 1
            continue
        if not dq and (c == "'" or raw.startswith("$'", i)):
            start = i + (2 if c == "$" else 1)
            end = _quote_end(raw, start, ansi=c == "$")
            unq += QUOTED * (end - i)
            exp += QUOTED * (end - i)
            i = end
            continue
        unq.append(QUOTED if dq else c)
        exp.append(c)
        i += 1
    return "".join(unq), "".join(exp)


_ANSI_END = re.compile(r"(?:[^'\\]|\\.)*'", re.S)


def _quote_end(raw: str, k: int, *, ansi: bool) -> int:
    """The offset after the single quote closing a quote whose text starts at ``k``."""
    if ansi:
        m = _ANSI_END.match(raw, k)
        return m.end() if m else len(raw)
    e = raw.find("'", k)
    return len(raw) if e < 0 else e + 1
