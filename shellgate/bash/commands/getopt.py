"""The one reader of option syntax: which words are options, which take values, where the
operands start. Every analysis of the bash core reads a command's arguments through
:func:`split` — the read-only tables (``spec.read_args``), the sensitive-path roles
(``pathscan._parse_opts``) and the destructive warnings (``warnargs.parse_args``); each keeps
its own table of what an option *means* for it, none its own loop over the words.

It reads the way GNU ``getopt_long`` does: bundled short flags (``-abc``), attached values
(``-k2``, ``--key=2``, ``--key=``), optional values that may only be attached (``-i.bak``,
``--color=auto``; ``--color auto`` leaves ``auto`` an operand), unique prefixes of long options
(an ambiguous or unknown prefix is an error item), ``--`` ending the options (where the program
does so: ``dashdash``), permutation (options after operands) unless the program stops at its
first operand (``permute=False``), ``-NUM`` (``numeric``), and the old style of a bundle whose
value letters take the following words in order (``attach=False``: ``tree -La 2``).

Where each reader's syntax comes from: the read-only tables build theirs from their flags
(``spec.Command.syntax``); the path roles take the options of their ``pathroles`` entry, with
the arity, ``--`` and ``-NUM`` of the command's read-only table where it declares the option
(``pathscan._syntax``); git's global options are one table (``gitglobal.GLOBAL``) read by all
three. Still declared twice: which options exist, in ``pathroles`` (what a value *is* for the
path scan: read, written, data) and in the read-only tables (safe or refused, and why); and the
warnings' per-tool value options (``warnings_table.VALUED``), for tools with no read-only table
(kubectl, docker, terraform …), per tool rather than per subcommand (docker's ``-f`` is
``--file`` for compose and ``--force`` for ``rm``).

It never decides anything: an option it does not know is an :attr:`Kind.UNKNOWN` item (or, with
``unknown_flags``, a switch, for readers to whom an unknown option only adds flags), and the
caller says what that costs (not read-only; an unsure path role from there on).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from enum import Enum

from ..._record import field, record
from ..ir import Word


class Arity(Enum):
    NONE = 0      # a switch
    REQUIRED = 1  # the rest of the word, else the next word(s)
    OPTIONAL = 2  # only attached (getopt's optional_argument), or a next word ``peek`` matches


@record(eq=False)
class Option:
    """One option's syntax. ``key``: what the caller wants back (a ``Flag``, a name).
    ``nargs``: how many words a required value takes (``jq --arg name value``); ``lastarg``: the
    value may be missing when the option is the last word (git's ``--merged [commit]``);
    ``peek``: an optional value not attached is the next word when that word is static and
    matches this pattern whole (journalctl's ``-b -1``, ``-n 20``: it tries the next word as the
    value and leaves it in place when that fails)."""

    key: object
    arity: Arity = Arity.NONE
    nargs: int = 1
    lastarg: bool = False
    peek: re.Pattern[str] | None = None


@record(eq=False)
class Syntax:
    """A program's option syntax: ``short`` letter -> option, ``long`` ``--name`` -> option."""

    short: Mapping[str, Option]
    long: Mapping[str, Option]
    dashdash: bool = True       # `--` ends the options
    permute: bool = True        # options may follow operands
    abbrev: bool = True         # a unique prefix of a long option is that option
    numeric: bool = False       # `-20` is an option (head, tail)
    attach: bool = True         # a short option's value may be the rest of its bundle
    unknown_flags: bool = False  # an unknown option is a switch, not an error


class Kind(Enum):
    OPTION = "option"        # a known option (maybe abbreviated), with its value words
    END = "end"              # the `--` that ended the options
    NUMERIC = "numeric"      # `-20` of a numeric program
    OPAQUE = "opaque"        # a word the caller cannot read as syntax (may be any option)
    UNKNOWN = "unknown"      # an option not in the syntax (the rest of a bundle is not read)
    AMBIGUOUS = "ambiguous"  # a prefix of several long options
    MISSING = "missing"      # a required value ran out at the end of the words
    NO_VALUE = "no_value"    # `--switch=x`: a value given to an option that takes none


@record(frozen=False)
class Item:
    """One reading: ``spelled`` as written (``--ke``, ``-k``), ``name`` resolved (``--key``),
    ``values`` its value words (an attached one is a sub-word of ``word``, ``attached``)."""

    kind: Kind
    word: Word
    option: Option | None = None
    spelled: str = ""
    name: str = ""
    values: tuple[Word, ...] = ()
    attached: bool = False

    @property
    def abbreviated(self) -> bool:
        return self.option is not None and self.spelled != self.name


@record(frozen=False)
class Reading:
    """The options as read (``items``, in order) and the operands (opaque words among them).
    ``ended``: how many operands came before the ``--`` that ended the options, if one did."""

    items: list[Item] = field(default_factory=list)
    operands: list[Word] = field(default_factory=list)
    ended: int | None = None

    @property
    def exact(self) -> bool:
        """Whether every word was read as the syntax says (no unknown, ambiguous, opaque,
        missing or misplaced value)."""
        return all(it.kind in _EXACT for it in self.items)


_EXACT = frozenset({Kind.OPTION, Kind.END, Kind.NUMERIC})


def sub_word(word: Word, text: str) -> Word:
    """A value attached to an option token (``-k2``'s ``2``): same span and staticness."""
    return Word(text=text, raw=text, span=word.span, static=word.static, glob=word.glob,
                quoted=word.quoted)


def resolve_long(syntax: Syntax, name: str) -> tuple[str, Option | None, Kind]:
    """``--name`` -> (full name, option, OPTION | UNKNOWN | AMBIGUOUS): an exact match first,
    then (``abbrev``) a unique prefix, as getopt_long."""
    opt = syntax.long.get(name)
    if opt is not None:
        return name, opt, Kind.OPTION
    if not syntax.abbrev:
        return name, None, Kind.UNKNOWN
    hits = [n for n in syntax.long if n.startswith(name)]
    if len({id(syntax.long[n]) for n in hits}) == 1:
        return hits[0], syntax.long[hits[0]], Kind.OPTION
    return name, None, Kind.AMBIGUOUS if hits else Kind.UNKNOWN


def split(words: Sequence[Word], syntax: Syntax, *,
          opaque: Callable[[Word], bool] | None = None) -> Reading:
    """Read ``words`` against ``syntax``. ``opaque``: words the caller cannot read as option
    syntax (an expansion that may split); while options are open each is an OPAQUE item and an
    operand. Never raises."""
    r = Reading()
    items = r.items
    i, n = 0, len(words)
    open_ = True
    while i < n:
        w = words[i]
        i += 1
        t = w.text
        if not open_:
            r.operands.append(w)
            continue
        if opaque is not None and opaque(w):
            items.append(Item(Kind.OPAQUE, w))
            r.operands.append(w)
            continue
        if t == "--" and syntax.dashdash:
            items.append(Item(Kind.END, w, None, "--", "--"))
            r.ended = len(r.operands)
            open_ = False
            continue
        if len(t) > 2 and t.startswith("--"):
            i = _long(syntax, words, i, w, items)
        elif len(t) > 1 and t[0] == "-":
            if syntax.numeric and t[1:].isdigit():
                items.append(Item(Kind.NUMERIC, w, None, t, t))
                continue
            i = _short(syntax, words, i, w, items)
        else:
            r.operands.append(w)
            if not syntax.permute:
                open_ = False
    return r


def _values(words: Sequence[Word], i: int, item: Item) -> int:
    """The separate value words of a required value (after an attached one, if any)."""
    opt = item.option
    assert opt is not None
    vals = list(item.values)
    while len(vals) < opt.nargs:
        if i >= len(words):
            if not opt.lastarg:
                item.kind = Kind.MISSING
            break
        vals.append(words[i])
        i += 1
    item.values = tuple(vals)
    return i


def _peek(words: Sequence[Word], i: int, item: Item) -> int:
    """An optional value that is not attached: the next word, when ``peek`` takes it."""
    opt = item.option
    if opt is not None and opt.peek is not None and i < len(words) and words[i].static \
            and opt.peek.fullmatch(words[i].text):
        item.values = (words[i],)
        return i + 1
    return i


def _long(syntax: Syntax, words: Sequence[Word], i: int, w: Word, items: list[Item]) -> int:
    spelled, eq, attached = w.text.partition("=")
    name, opt, kind = resolve_long(syntax, spelled)
    if opt is None and syntax.unknown_flags:
        opt, kind = Option(None), Kind.OPTION
    item = Item(kind, w, opt, spelled, name)
    items.append(item)
    if opt is None:
        return i
    if eq:
        item.values, item.attached = (sub_word(w, attached),), True
        if opt.arity is Arity.NONE and not syntax.unknown_flags:
            item.kind = Kind.NO_VALUE
        elif opt.arity is Arity.REQUIRED and opt.nargs > 1:
            return _values(words, i, item)
        return i
    if opt.arity is Arity.REQUIRED:
        return _values(words, i, item)
    return _peek(words, i, item)


def _short(syntax: Syntax, words: Sequence[Word], i: int, w: Word, items: list[Item]) -> int:
    t = w.text
    pending: list[Item] = []
    j = 1
    while j < len(t):
        ch = t[j]
        j += 1
        opt = syntax.short.get(ch)
        if opt is None and syntax.unknown_flags:
            opt = Option(None)
        if opt is None:
            items.append(Item(Kind.UNKNOWN, w, None, "-" + ch, "-" + ch))
            return i
        item = Item(Kind.OPTION, w, opt, "-" + ch, "-" + ch)
        items.append(item)
        if opt.arity is Arity.NONE:
            continue
        if not syntax.attach:  # every value letter takes the next word, optional or not
            pending.append(item)
            continue
        if j < len(t):
            item.values, item.attached = (sub_word(w, t[j:]),), True
            if opt.nargs > 1 and opt.arity is Arity.REQUIRED:
                return _values(words, i, item)
            return i
        if opt.arity is Arity.REQUIRED:
            return _values(words, i, item)
        return _peek(words, i, item)
    for item in pending:
        i = _values(words, i, item)
    return i
