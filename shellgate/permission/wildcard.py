"""Wildcard matching without backtracking, for patterns that come from files nobody vetted.

A rule pattern may arrive with a cloned repository (``.shellgate/config.toml``). Translated to
a backtracking regex, ``*e*e*e…*Z`` takes exponential time on a word of forty ``e``: longer
than the agent waits for the hook, and ``re`` holds the GIL, so not even the deadline thread
runs. The two matchers here never go back:

- :class:`Wildcard` (``*`` only: command words, hosts, keys) cuts the pattern at its stars and
  finds each piece at its leftmost place after the previous one. With nothing but ``*`` between
  pieces, the leftmost place is never worse than a later one, so one forward pass decides:
  ``str.find`` scans the text once, and the Python work is one step per piece.
- :class:`PathGlob` (``*`` and ``?`` within one path segment, ``**`` across them) simulates its
  automaton on all states at once, one character at a time, the set of states held as the bits
  of an int: a handful of integer operations per character, whatever the pattern.

Both are exact: tests compare them with ``fnmatch`` and with the regex translation they replace.
Pattern size is still bounded (:func:`check_size`, called when a rule is parsed): a pattern over
the limits is a rule error, and a rule error makes the whole config file an error — every call
is then refused with the file and line named. A deny rule is never dropped quietly.
"""

from __future__ import annotations

from collections.abc import Mapping

from .._record import record

MAX_PATTERN_CHARS = 512   # characters in one specifier (Claude Code's rules are a few dozen)
MAX_WILDCARDS = 32        # `*` and `?` in one specifier
MAX_PATTERN_WORDS = 64    # words in one command pattern


def check_size(spec: str) -> None:
    """Raise ``ValueError`` saying which limit ``spec`` is over, if any (before it is split
    into words: splitting is not linear either). With the limits, a match costs at most a few
    thousand steps per word or path."""
    if len(spec) > MAX_PATTERN_CHARS:
        raise ValueError(f"the pattern is {len(spec)} characters long, over the limit of "
                         f"{MAX_PATTERN_CHARS}")
    stars = spec.count("*") + spec.count("?")
    if stars > MAX_WILDCARDS:
        raise ValueError(f"the pattern has {stars} wildcards (* and ?), over the limit of "
                         f"{MAX_WILDCARDS}")


def check_words(count: int) -> None:
    """Raise ``ValueError`` when a command pattern has more words than the limit."""
    if count > MAX_PATTERN_WORDS:
        raise ValueError(f"the pattern has {count} words, over the limit of {MAX_PATTERN_WORDS}")


@record
class Wildcard:
    """A full-match pattern where only ``*`` is special; it matches anything, ``/`` and
    newlines included."""

    pieces: tuple[str, ...]            # the text between the stars; one piece: no star

    @classmethod
    def compile(cls, pattern: str) -> Wildcard:
        return cls(tuple(pattern.split("*")))

    def match(self, text: str) -> bool:
        pieces = self.pieces
        first = pieces[0]
        if len(pieces) == 1:
            return text == first
        last = pieces[-1]
        end = len(text) - len(last)
        if end < len(first) or not text.startswith(first) or not text.endswith(last):
            return False
        pos = len(first)
        for piece in pieces[1:-1]:
            found = text.find(piece, pos, end)
            if found < 0:
                return False
            pos = found + len(piece)
        return True


# -- path globs -----------------------------------------------------------------------------
# Each state of the automaton has at most: a loop (consume a character, stay), a step (consume
# a character, go to the next state) and an empty move to the next state. An empty move is
# either taken whenever the state is active (`*`, `**`) or only when the state was just entered
# (`**/`, which matches nothing or anything ending in `/`: looping there must not leave it).

_WILD = frozenset({"**/", "**", "*", "?"})


@record
class PathGlob:
    """A gitignore-style glob over a path relative to its anchor: ``*`` is ``[^/]*``, ``?`` is
    ``[^/]``, ``**/`` is ``(?:.*/)?`` and any other ``**`` is ``.*`` (the translation this
    replaces). :meth:`match` also accepts a parent directory of the text."""

    prefix: str                        # the literal text before the first wildcard
    needle: str                        # its longest literal run: a match contains it
    first: int                         # the state after the prefix
    accept: int                        # the bit of the final state
    loop: Mapping[str, int]            # character -> states that loop on it
    step: Mapping[str, int]            # character -> states that step forward on it
    loop_other: int                    # for characters the pattern does not name
    step_other: int
    empty_always: int
    empty_on_entry: int

    @classmethod
    def compile(cls, glob: str) -> PathGlob:
        kinds = _tokens(glob)
        chars = {k for k in kinds if k not in _WILD} | {"/"}
        loop = {c: 0 for c in chars}
        step = {c: 0 for c in chars}
        loop_other = step_other = always = on_entry = 0
        for i, kind in enumerate(kinds):
            bit = 1 << i
            if kind in ("*", "**", "**/"):
                for c in chars:
                    if c != "/" or kind != "*":
                        loop[c] |= bit
                loop_other |= bit
            if kind == "?":
                for c in chars - {"/"}:
                    step[c] |= bit
                step_other |= bit
            elif kind == "**/":
                step["/"] |= bit
                on_entry |= bit
            elif kind in ("*", "**"):
                always |= bit
            else:
                step[kind] |= bit
        literal = 0
        while literal < len(kinds) and kinds[literal] not in _WILD:
            literal += 1
        runs = "".join("\0" if k in _WILD else k for k in kinds).split("\0")
        return cls("".join(kinds[:literal]), max(runs, key=len), literal, 1 << len(kinds), loop,
                   step, loop_other, step_other, always, on_entry)

    def match(self, text: str, *, parent_of_empty: bool = False) -> bool:
        """Does the glob match ``text``, or ``text`` cut before one of its ``/``?
        ``parent_of_empty``: the empty text counts as a parent too (the anchor is ``/``)."""
        if not text.startswith(self.prefix) or self.needle not in text:
            return False  # (then the empty text cannot match either)
        return self._accepts(1 << self.first, text, len(self.prefix), parent_of_empty)

    def _accepts(self, states: int, text: str, pos: int, at_start: bool = True) -> bool:
        loop, step, accept = self.loop, self.step, self.accept
        always, every = self.empty_always, self.empty_always | self.empty_on_entry
        states = _close(states, every)
        if at_start and pos == 0 and states & accept:
            return True
        for i in range(pos, len(text)):
            c = text[i]
            if c == "/" and states & accept and i > 0:
                return True
            stay = states & loop.get(c, self.loop_other)
            entered = ((states & step.get(c, self.step_other)) << 1) | ((stay & always) << 1)
            states = stay | _close(entered, every)
            if not states:
                return False
        return bool(states & accept)


def _close(states: int, empty: int) -> int:
    """``states`` plus every state reachable from them by empty moves (bit i to bit i+1 where
    ``empty`` has bit i). Adding a run's lowest active bit to the run carries through the rest
    of it and one state beyond; the XOR keeps exactly the bits the carry changed."""
    return states | ((empty + (states & empty)) ^ empty)


def _tokens(glob: str) -> list[str]:
    """``**/``, ``**``, ``*``, ``?`` or one literal character per state."""
    out: list[str] = []
    i = 0
    while i < len(glob):
        for kind in ("**/", "**", "*"):
            if glob.startswith(kind, i):
                out.append(kind)
                i += len(kind)
                break
        else:
            out.append(glob[i])
            i += 1
    return out
