"""Glob-against-glob matching for the sensitive-path scanner.

``cat ~/.ss?/*`` reads a private key although neither word names one. The question is not
"does this path match that pattern" but "is there a file name both globs could match". This
module answers it for bash globs (``*``, ``?``, ``[…]``) on path segments, and for whole paths
where either side may contain ``**`` (any number of directories).

Answers err towards "yes" (a false hit costs a prompt, a miss costs a secret): huge character
ranges count as "any character", and the only bash rule honoured that makes a glob match *less*
is the leading-dot rule (``*`` does not match ``.ssh`` unless ``dotglob`` is set), because
ignoring it would make every ``cat *`` in a project with a ``.env`` a hit.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from ..._record import record

GLOB_CHARS = frozenset("*?[")

# Token kinds of a compiled segment.
_LIT, _ANY, _STAR, _CLASS = 0, 1, 2, 3
_MAX_RANGE = 512  # a wider `[a-…]` range counts as "any character"

Token = tuple  # (_LIT, ch) | (_ANY,) | (_STAR,) | (_CLASS, frozenset, negated)


@record
class Seg:
    """One compiled path segment (no ``/``): a literal name or a glob."""

    text: str
    tokens: tuple[Token, ...]
    literal: bool
    vague: bool = False  # a glob that names nothing in particular: `*`, `.*`, `.[!.]*`, `?*.*`

    @property
    def wild_start(self) -> bool:
        """True when the first character is not a literal: bash then refuses a leading dot."""
        return bool(self.tokens) and self.tokens[0][0] != _LIT


STARSTAR = "**"      # any number of directories; on the user's side it honours the dot rule


def has_glob(text: str) -> bool:
    return not GLOB_CHARS.isdisjoint(text)


def _parse_class(text: str, i: int) -> tuple[Token, int] | None:
    """Parse ``[…]`` starting at ``text[i] == '['``; None when unterminated (then literal)."""
    j = i + 1
    negated = j < len(text) and text[j] in "!^"
    if negated:
        j += 1
    chars: set[str] = set()
    first = True
    wide = False
    while j < len(text):
        c = text[j]
        if c == "]" and not first:
            if wide:
                return ((_ANY,) if not negated else (_CLASS, frozenset(), True)), j + 1
            return (_CLASS, frozenset(chars), negated), j + 1
        first = False
        if c == "[" and text.startswith("[:", j):  # [:alpha:] and friends: any character
            end = text.find(":]", j + 2)
            if end != -1:
                wide = True
                j = end + 2
                continue
        if j + 2 < len(text) and text[j + 1] == "-" and text[j + 2] != "]":
            lo, hi = ord(c), ord(text[j + 2])
            if hi - lo > _MAX_RANGE:
                wide = True
            else:
                chars.update(chr(k) for k in range(lo, hi + 1))
            j += 3
            continue
        chars.add(c)
        j += 1
    return None


@lru_cache(maxsize=4096)
def compile_seg(text: str, glob: bool = True) -> Seg:
    """Compile one segment. With ``glob`` false every character is literal."""
    if not glob or not has_glob(text):
        return Seg(text, tuple((_LIT, c) for c in text), True)
    tokens: list[Token] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "*":
            if not tokens or tokens[-1][0] != _STAR:
                tokens.append((_STAR,))
            i += 1
        elif c == "?":
            tokens.append((_ANY,))
            i += 1
        elif c == "[" and (parsed := _parse_class(text, i)) is not None:
            tokens.append(parsed[0])
            i = parsed[1]
        elif c == "\\" and i + 1 < len(text):
            tokens.append((_LIT, text[i + 1]))
            i += 2
        else:
            tokens.append((_LIT, c))
            i += 1
    literal = all(t[0] == _LIT for t in tokens)
    lits = "".join(t[1] if t[0] == _LIT else " " for t in tokens)
    vague = not literal and not re.search(r"[A-Za-z0-9]{2}", lits)
    return Seg(text, tuple(tokens), literal, vague)


def _char_ok(a: Token, b: Token) -> bool:
    """Is there one character both single-character tokens accept?"""
    ka, kb = a[0], b[0]
    if ka == _ANY or kb == _ANY:
        if ka == _ANY and kb == _ANY:
            return True
        other = b if ka == _ANY else a
        return other[0] == _LIT or other[2] or bool(other[1])
    if ka == _LIT and kb == _LIT:
        return a[1] == b[1]
    if ka == _LIT:
        return (a[1] in b[1]) != b[2]
    if kb == _LIT:
        return (b[1] in a[1]) != a[2]
    sa, na, sb, nb = a[1], a[2], b[1], b[2]
    if na and nb:
        return True
    if na:
        return bool(sb - sa)
    if nb:
        return bool(sa - sb)
    return bool(sa & sb)


def _both_end(la: int, lb: int,
              moves: Callable[[int, int, Callable[[tuple[int, int]], None]], None]) -> bool:
    """Whether two token sequences of lengths ``la`` and ``lb`` can be consumed together: a
    depth-first search over position pairs ``(i, j)`` from ``(0, 0)`` to ``(la, lb)``, where
    ``moves(i, j, push)`` pushes the pairs one step on. Shared by the segment and path levels,
    which differ only in their steps."""
    seen: set[tuple[int, int]] = set()
    stack = [(0, 0)]
    push = stack.append
    while stack:
        ij = stack.pop()
        if ij in seen:
            continue
        seen.add(ij)
        i, j = ij
        if i == la and j == lb:
            return True
        moves(i, j, push)
    return False


def seg_intersects(a: Seg, b: Seg, dot_rule: bool = True) -> bool:
    """Could some single file name match both ``a`` and ``b``?

    ``a`` is the user's word, ``b`` the pattern. With ``dot_rule``, a wildcard at the start
    of ``a`` cannot stand for a leading ``.`` (bash without ``dotglob``).
    """
    ta, tb = a.tokens, b.tokens
    if dot_rule and a.wild_start and tb and tb[0] == (_LIT, "."):
        return False
    la, lb = len(ta), len(tb)

    def moves(i: int, j: int, push: Callable[[tuple[int, int]], None]) -> None:
        a_star = i < la and ta[i][0] == _STAR
        b_star = j < lb and tb[j][0] == _STAR
        if a_star:
            push((i + 1, j))          # the star matches nothing more
            if j < lb and not b_star:
                push((i, j + 1))      # the star eats b's character
        if b_star:
            push((i, j + 1))
            if i < la and not a_star:
                push((i + 1, j))
        if a_star and b_star:
            return
        if i < la and j < lb and not a_star and not b_star and _char_ok(ta[i], tb[j]):
            push((i + 1, j + 1))

    return _both_end(la, lb, moves)


def path_intersects(a: tuple[Seg | str, ...], b: tuple[Seg | str, ...], dot_rule: bool = True,
                    strict: bool = False) -> bool:
    """Could some path match both segment sequences? ``"**"`` (STARSTAR) stands for any
    number of directories (zero included). On ``a`` (the user's side) it honours the dot
    rule; on ``b`` (the pattern side) it matches anything. With ``strict``, a vague glob on
    the user's side (``*``, ``.*``) does not stand for a literal name on the pattern side:
    ``mv .[!.]* dest`` is not taken to mean ``.shellgate``."""
    la, lb = len(a), len(b)
    any_name = compile_seg("*")

    def moves(i: int, j: int, push: Callable[[tuple[int, int]], None]) -> None:
        ai = a[i] if i < la else None
        bj = b[j] if j < lb else None
        if ai == STARSTAR:
            push((i + 1, j))
            if bj == STARSTAR or (bj is not None and seg_intersects(any_name, bj, dot_rule)):  # type: ignore[arg-type]
                push((i, j + 1))
            return
        if bj == STARSTAR:
            push((i, j + 1))
            if ai is not None:
                push((i + 1, j))
            return
        if ai is None or bj is None:
            return
        if strict and ai.vague and bj.literal:  # type: ignore[union-attr]
            return
        if seg_intersects(ai, bj, dot_rule):  # type: ignore[arg-type]
            push((i + 1, j + 1))

    return _both_end(la, lb, moves)


def literal_ends(text: str) -> tuple[str, str]:
    """The literal text every name matching the segment glob ``text`` starts with, and the
    literal text it ends with (either may be empty)."""
    tokens = compile_seg(text).tokens
    k = 0
    while k < len(tokens) and tokens[k][0] == _LIT:
        k += 1
    head = "".join(t[1] for t in tokens[:k])
    if k == len(tokens):
        return head, head
    j = len(tokens)
    while tokens[j - 1][0] == _LIT:
        j -= 1
    return head, "".join(t[1] for t in tokens[j:])


def seg_regex(text: str) -> str:
    """A regex (no anchors) for one pattern segment, for matching literal names fast."""
    out: list[str] = []
    for tok in compile_seg(text).tokens:
        kind = tok[0]
        if kind == _LIT:
            out.append(re.escape(tok[1]))
        elif kind == _ANY:
            out.append("[^/]")
        elif kind == _STAR:
            out.append("[^/]*")
        else:
            chars = "".join(re.escape(c) for c in sorted(tok[1]))
            if tok[2]:
                out.append(f"[^/{chars}]")
            else:
                out.append(f"[{chars}]" if chars else "(?!)")
    return "".join(out)


def expand_braces(text: str, limit: int = 64) -> list[str]:
    """Bash brace expansion (``{a,b}`` and ``{1..3}``), bounded; malformed braces stay literal."""
    out: list[str] = []
    todo = [text]
    while todo and len(out) < limit:
        s = todo.pop(0)
        m = _find_brace(s)
        if m is None:
            out.append(s)
            continue
        start, end, alts = m
        for alt in alts:
            if len(todo) + len(out) >= limit:
                break
            todo.append(s[:start] + alt + s[end:])
    return out or [text]


def _find_brace(s: str) -> tuple[int, int, list[str]] | None:
    """The first expandable ``{…}`` in ``s``: its span and alternatives."""
    i = s.find("{")
    while i != -1:
        depth, j, commas = 0, i, []
        while j < len(s):
            c = s[j]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    break
            elif c == "," and depth == 1:
                commas.append(j)
            j += 1
        if j < len(s):
            body = s[i + 1:j]
            if commas:
                parts, prev = [], i + 1
                for k in commas:
                    parts.append(s[prev:k])
                    prev = k + 1
                parts.append(s[prev:j])
                return i, j + 1, parts
            seq = re.fullmatch(r"(-?\d+)\.\.(-?\d+)", body) or re.fullmatch(r"([a-zA-Z])\.\.([a-zA-Z])", body)
            if seq:
                lo, hi = seq.group(1), seq.group(2)
                if lo.lstrip("-").isdigit():
                    a, b = int(lo), int(hi)
                    step = 1 if b >= a else -1
                    vals = [str(k) for k in range(a, b + step, step)][:64]
                else:
                    a, b = ord(lo), ord(hi)
                    step = 1 if b >= a else -1
                    vals = [chr(k) for k in range(a, b + step, step)][:64]
                return i, j + 1, vals
        i = s.find("{", i + 1)
    return None
