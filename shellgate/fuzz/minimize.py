"""Shrinking a finding to the shortest command that still shows it, and naming its cause.

:func:`minimize` is delta debugging (Zeller's ddmin) over raw shell tokens, followed by
passes that step inside one token — the script of ``bash -c '…'``, the body of ``$(…)`` — and
that drop quoting. A candidate is kept only when the caller's predicate holds: still allowed
by the gate *and* still showing the same kind of effect.

:func:`cause` names what a minimized finding is about — effect kind, program, its options in
canonical spelling (abbreviations resolved, values dropped) and redirect operators — so that
``sort -o a``, ``sort --out=b`` and ``sort -ob`` count as one bug.
"""

from __future__ import annotations

import contextlib
import re
import shlex
from collections.abc import Callable, Mapping

from . import tokens
from .flags import Universe

Predicate = Callable[[str], bool]


class _Budget:
    def __init__(self, test: Predicate, limit: int) -> None:
        self.test, self.left = test, limit
        self.cache: dict[str, bool] = {}

    def __call__(self, cmd: str) -> bool:
        if cmd in self.cache:
            return self.cache[cmd]
        if self.left <= 0 or not cmd.strip():
            return False
        self.left -= 1
        ok = bool(self.test(cmd))
        self.cache[cmd] = ok
        return ok


def ddmin(toks: list[str], test: Callable[[list[str]], bool]) -> list[str]:
    """The classic ddmin: a 1-minimal sub-list of ``toks`` for which ``test`` holds."""
    n = 2
    while len(toks) >= 2:
        size = max(1, len(toks) // n)
        chunks = [toks[i:i + size] for i in range(0, len(toks), size)]
        reduced = False
        for i in range(len(chunks)):
            rest = [t for j, c in enumerate(chunks) if j != i for t in c]
            if rest and test(rest):
                toks, n, reduced = rest, max(n - 1, 2), True
                break
        if not reduced:
            if n >= len(toks):
                break
            n = min(len(toks), n * 2)
    return toks


def _drop_runs(toks: list[str], test: Callable[[list[str]], bool], longest: int = 4) -> list[str]:
    """Try removing runs of 2..``longest`` adjacent tokens: ddmin is 1-minimal, but a clause
    like ``-exec id \\;`` only goes away as a whole."""
    for size in range(2, longest + 1):
        i = 0
        while i + size <= len(toks) and len(toks) > size:
            cand = toks[:i] + toks[i + size:]
            if test(cand):
                toks = cand
            else:
                i += 1
    return toks


_INNER = re.compile(r"^(?:\$\((.*)\)|`(.*)`|<\((.*)\)|>\((.*)\)|'(.*)'|\"(.*)\""
                    r"|\$\{\w*:?[-=+?](.*)\})$", re.S)


def _inner_candidates(tok: str) -> list[str]:
    """Commands hidden inside one token: a quoted script, a substitution's body."""
    m = _INNER.match(tok)
    if not m:
        return []
    body = next(g for g in m.groups() if g is not None)
    out = [body]
    if tok.startswith("'") or tok.startswith('"'):
        with contextlib.suppress(ValueError):
            out.append(" ".join(shlex.quote(w) for w in shlex.split(body)))
    return out


def _plain(tok: str) -> str | None:
    """``tok`` without quotes/backslashes when it is a plain word in disguise."""
    try:
        words = shlex.split(tok.replace("\\\n", ""))   # a line continuation joins the word
    except ValueError:
        return None
    if len(words) == 1 and re.fullmatch(r"[\w./=+,:@%~-]+", words[0]) and words[0] != tok:
        return words[0]
    return None


def minimize(cmd: str, still: Predicate, max_tests: int = 150) -> str:
    """The shortest command found that keeps ``still`` true (``cmd`` itself when none).

    ``still`` is called at most ``max_tests`` times; results are cached by command text.
    """
    test = _Budget(still, max_tests)
    best = cmd
    for _ in range(8):   # repeat: a pass that steps inside a token opens new removals
        before = best
        toks = tokens.split(best)
        toks = ddmin(toks, lambda ts: test(tokens.join(ts)))
        toks = _drop_runs(toks, lambda ts: test(tokens.join(ts)))
        best = tokens.join(toks)
        for i, tok in enumerate(list(toks)):
            for inner in _inner_candidates(tok):
                for cand in (inner, tokens.join(toks[:i] + tokens.split(inner) + toks[i + 1:])):
                    if len(cand) < len(best) and test(cand):
                        best = cand
                        break
        toks = tokens.split(best)
        for i, tok in enumerate(toks):
            plain = _plain(tok)
            if plain is not None:
                cand = tokens.join(toks[:i] + [plain] + toks[i + 1:])
                if test(cand):
                    toks[i] = plain
                    best = cand
        if best == before:
            break
    return best


_REDIR = re.compile(r"^(\d*)(>>|>\||>&|&>>|&>|<>|<<<|<<-|<<|<&|>|<)")


def cause(cmd: str, kind: str, universes: Mapping[tuple[str, ...], Universe]) -> str:
    """A stable name for why ``cmd`` (minimized) shows an effect of ``kind``."""
    toks = tokens.split(cmd)
    out: list[str] = []
    at_start = True
    prefix: tuple[str, ...] = ()
    i = 0
    while i < len(toks):
        t = toks[i]
        if tokens.is_operator(t):
            out.append(t if t in ("|", "|&") else ";")
            at_start, prefix = True, ()
            i += 1
            continue
        plain = _plain(t) or t
        if at_start:
            if re.match(r"^[A-Za-z_]\w*=", plain):   # VAR=value before the command
                out.append(plain.split("=", 1)[0] + "=")
                i += 1
                continue
            nxt = _plain(toks[i + 1]) if i + 1 < len(toks) else None
            two = (plain, nxt or (toks[i + 1] if i + 1 < len(toks) else ""))
            if two in universes:
                prefix = two
                out += list(two)
                i += 2
            else:
                prefix = (plain,)
                out.append(plain)
                i += 1
            at_start = False
            continue
        r = _REDIR.match(t)
        if r:
            out.append(r.group(2) + ("/dev/null" if t.rstrip().endswith("/dev/null") else ""))
        elif plain.startswith("-") and len(plain) > 1 and plain != "--":
            u = universes.get(prefix)
            name = u.canonical(plain) if u else plain.split("=", 1)[0]
            out.append(name)
            flag = u.get(name) if u else None
            if flag is not None and flag.arg and not flag.optional and "=" not in plain \
                    and (u.get(plain) is not None or u.resolve(plain) is not None):
                i += 1   # the next word is this flag's value, not an option
        elif t.startswith(("$(", "`", "<(", ">(")):
            out.append(t[:2] + "…")
        i += 1
    return kind + ":" + " ".join(out)
