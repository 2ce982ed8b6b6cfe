"""The small language the command tables are written in, and the getopt-like reader for it.

A :class:`Command` lists the flags that keep a command read-only (``safe``) and the flags that
do not (``unsafe``, each with the reason shown to the user). Unsafe flags are listed so that
their abbreviations (``sort --out=x``, ``--compress-prog``) are recognised and refused with a
precise message; a flag on neither list is refused as unknown. That is the positive-list rule:
nothing is read-only because a deny-list missed it.

:func:`read_args` reads an argument list through ``getopt.split``, the one reader of option
syntax (the path roles and the warnings read through it too), the way GNU ``getopt_long``
does: bundled short flags (``-abc``), attached values (``-k2``, ``--key=2``), optional values
(``-i.bak``), unique prefixes of long options (an ambiguous or unknown prefix is refused),
``--`` ending the options, and permutation (flags after operands) unless the command stops at
its first operand. A table's syntax is ``Command.syntax``, built from its flags once.

An abbreviation is resolved (so an abbreviated unsafe flag is refused with its reason) but never
accepted, even of a safe flag: the sensitive-path scanner, the destructive warnings and the
user's rules match options by their full names.

Words bash may still change — an unquoted expansion that can split, a glob or brace expansion
that may produce a word starting with ``-`` — are *wild*: they may become any flag. A command
accepts wild words only when it has no unsafe flag at all (``wild_ok``); when one of its
read-only flags takes a file (``diff --from-file=F``), only a wild glob that no name starting
with ``-`` in the command's cwd matches (``may_match_option``), never an expansion. A command
with unsafe flags but no check of its own (``wc``, ``sort``, ``rg``), or a check that handles
glob operands (``Command.globs``), accepts a glob that is *proved* to give operands only
(``glob_operands``: a plain unquoted glob, expanded by the
parsed shell itself, whose every possible match in every candidate cwd was read and none starts
with ``-``, and no write of the line may add one).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from ..._record import field, record, replace
from ..facts import Context, Effect, PathOp, SensitiveHit
from ..ir import Span, Via, Word
from .getopt import Arity, Item, Kind, Option, Syntax, split

if TYPE_CHECKING:
    from ..ir import Command as IRCommand
    from ..ir import Script


class Takes(StrEnum):
    """What a flag's value (or a command's operands) means."""

    NONE = "none"              # a switch
    VALUE = "value"            # inert data: a number, a pattern, a format
    PATH = "path"              # a file the command reads
    PATHS = "paths"            # files the command reads, separated by colons (`file -m a:b`)
    WRITE_PATH = "write_path"  # a file the command writes
    PROGRAM = "program"        # a program or shell command the command runs
    SCRIPT = "script"          # program text in an embedded language (sed, awk)


@record(init=False)
class Flag:
    """One option and its spellings (``Flag("-o", "--output", takes=Takes.PATH)``).

    ``optional``: the value may only be attached (``-i.bak``, ``--in-place=.bak``), as for
    getopt's ``optional_argument``. ``nargs``: how many separate words a value takes
    (``jq --arg name value`` takes two). ``lastarg``: the value may be missing when the flag is
    the last word (git's ``--merged [commit]``). ``peek``: an optional value may also be the
    next word when that word matches this pattern whole (``journalctl -b -1``).
    """

    names: tuple[str, ...]
    takes: Takes
    optional: bool
    nargs: int
    lastarg: bool
    peek: str

    def __init__(self, *names: str, takes: Takes = Takes.NONE, optional: bool = False,
                 nargs: int = 1, lastarg: bool = False, peek: str = "") -> None:
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "takes", takes)
        object.__setattr__(self, "optional", optional or bool(peek))
        object.__setattr__(self, "nargs", nargs)
        object.__setattr__(self, "lastarg", lastarg)
        object.__setattr__(self, "peek", peek)

    @property
    def long(self) -> str:
        """The best name for messages: the first long spelling, else the first."""
        return next((n for n in self.names if n.startswith("--")), self.names[0])

    @property
    def has_value(self) -> bool:
        return self.takes is not Takes.NONE


@record
class Finding:
    """Why one command is not read-only, and how bad it is."""

    message: str
    span: Span | None
    rule: str
    effect: Effect = Effect.EXEC
    writes: tuple[str, ...] = ()   # a WRITE: the absolute paths it writes, when known
    # absolute paths where the write may leave a link to anywhere (a symlink copied or moved
    # there, a tree holding some, a moved file with other names): what a later write of the
    # line there reaches is not known before the line runs (``Call.line_links``)
    links: tuple[str, ...] = ()


@record
class Call:
    """Everything a command check may look at: the IR command, where it sits, and the context.

    ``cwds`` are the directories the command may run in (the context's cwd plus every static
    ``cd`` target of the script); ``None`` when a ``cd`` went somewhere unknown.
    ``wild_tail``: ``xargs`` appends words read from its input to this command.
    ``line_writes``: the files the line's plain writes (``touch``, ``cp``, ``>``, ``sed -i`` …,
    this command's own included) may create or change before or while this command runs —
    absolute paths, or None when one of them is not known (see ``readonly.line_writes``): a
    glob may then expand to a name made a moment earlier, git may read a config written then.
    ``line_links``: (command index, absolute path) of each write of the line that may make a
    link there (``Finding.links``); a write at, below or through one is not a plain edit.
    """

    command: IRCommand
    index: int
    script: Script
    ctx: Context
    cwds: tuple[Path, ...] | None
    wild_tail: bool = False
    line_writes: tuple[str, ...] | None = ()
    line_links: tuple[tuple[int, str], ...] = ()


@record
class Opt:
    """One option as read: the flag, how it was spelled, its token and its value words."""

    flag: Flag
    spelled: str
    word: Word
    values: tuple[Word, ...] = ()

    @property
    def value(self) -> Word | None:
        return self.values[0] if self.values else None


@record(frozen=False)
class Parsed:
    opts: list[Opt] = field(default_factory=list)
    operands: list[Word] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)

    def has(self, *names: str) -> bool:
        return any(n in o.flag.names for o in self.opts for n in names)

    def values_of(self, *names: str) -> list[Word]:
        return [v for o in self.opts if any(n in o.flag.names for n in names) for v in o.values]


Check = Callable[[Parsed, Call], Iterable[Finding]]


@record(eq=False)
class Command:
    """A command family's whole truth: its read-only flags, its refused flags, its operands.

    * ``unsafe``: flag -> reason, or (reason, effect) when the flag is a plain file edit
      (``sed -i``: a WRITE); a WRITE_PATH flag is a WRITE when its file lies in the workspace.
    * ``max_operands`` / ``extra_operand``: more operands than that is refused with the reason
      (``uniq in out`` writes ``out``).
    * ``permute=False``: options end at the first operand (POSIX utilities, wrappers, git).
    * ``numeric``: ``-NUM`` is a flag (``head -20``).
    * ``abbrev=False``: long options must be spelled in full (the program does not abbreviate,
      or we do not know its full option list well enough to resolve prefixes as it would).
    * ``free``: no option parsing at all; every word is data (``echo``, ``true``).
    * ``attach=False``: a short flag's value is never the rest of its bundle but the next word,
      in order (``tree -La 2``, old ``tar tfv x.tar``), as those programs read it.
    * ``check``: extra logic for what a table cannot say (sed scripts, git subcommands).
    * ``effect``: what the command is when it passes (READ, or NETWORK for network clients).
    * ``wild``: whether words bash may still expand are acceptable; by default only when no
      flag is unsafe and no check interprets operands.
    * ``globs``: the check reads each operand on its own and takes a glob word for every name
      it may become, or (no match) for the pattern bash then passes as it is (zcat's
      ``_gz_names``). A glob proved to give operands only (``glob_operands``) is then accepted
      as for a table with no check; a check that reads operands by position (a glob may stand
      for several) or as one literal name must not say so.
    * ``reads``: whether the command prints the content of the files its operands name (or a
      function of the parsed flags: ``grep -l`` prints names only). Such a command is not
      read-only when an operand is only known at run time (``cat $(echo ~/.ssh/id_rsa)``,
      ``… | xargs cat``): the sensitive-path scanner cannot see that path.
    * ``pattern_from``: the first operand is a pattern or program, not a path, unless one of
      these flags gives it (``grep -e``).
    * ``dashdash=False``: ``--`` does not end the options (Info-ZIP's ``unzip``, ``zipinfo``
      read it as an option): it is read as an unknown flag. ``tests/test_double_dash.py``
      checks every table against the installed program.
    * ``response_files``: a word ``@FILE`` anywhere in argv is a response file — the program
      reads more arguments, options included, from FILE (GNU binutils' ``expandargv``:
      strings, nm, readelf, objdump …; checked by running them). Such a word is refused, a
      word bash still expands must be a glob proved to give no name starting with ``@``
      (``glob_operands``), and the xargs proof hands such a command no name starting with ``@``.
    * ``hyphen_values``: the program parses with clap, not getopt: a separate value word that
      starts with ``-`` is taken only by these options (clap's ``allow_hyphen_values``); for the
      others clap reads it as an option, and clap 2 even lets a later override excuse the
      missing value (rg 13: ``rg -E -uu always --no-encoding`` searches hidden files, while the
      getopt reading saw the encoding ``-uu``). Such a value — or one bash still expands — is
      refused: which reading holds depends on the program's version. None: getopt.
    """

    name: str
    safe: Sequence[Flag] = ()
    unsafe: Mapping[Flag, str | tuple[str, Effect]] = field(default_factory=dict)
    max_operands: int | None = None
    extra_operand: str = "takes too many operands"
    min_operands: int = 0
    permute: bool = True
    numeric: bool = False
    abbrev: bool = True
    free: bool = False
    attach: bool = True
    check: Check | None = None
    effect: Effect = Effect.READ
    wild: bool | None = None
    globs: bool = False
    reads: bool | Callable[[Parsed], bool] = True
    pattern_from: tuple[str, ...] | None = None
    dashdash: bool = True
    response_files: bool = False
    hyphen_values: frozenset[str] | None = None
    aliases: tuple[str, ...] = ()
    syntax: Syntax = field(init=False, repr=False, compare=False, default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        object.__setattr__(self, "syntax", syntax_of(self.name, (*self.safe, *self.unsafe),
                                                     dashdash=self.dashdash, permute=self.permute,
                                                     abbrev=self.abbrev, numeric=self.numeric,
                                                     attach=self.attach))

    @property
    def wild_ok(self) -> bool:
        if self.wild is not None:
            return self.wild
        return not self.unsafe and self.check is None

    def flag_of(self, name: str) -> Flag | None:
        """The flag spelled ``name`` in full (``-k``, ``--key``), if the table has one."""
        opt = self.syntax.long.get(name) if name.startswith("--") else self.syntax.short.get(name[1:])
        return None if opt is None else opt.key  # type: ignore[return-value]


def option_of(flag: Flag) -> Option:
    """A flag's syntax for the reader (``getopt.split``)."""
    arity = Arity.NONE if not flag.has_value else Arity.OPTIONAL if flag.optional else Arity.REQUIRED
    return Option(flag, arity, flag.nargs, flag.lastarg, re.compile(flag.peek) if flag.peek else None)


def syntax_of(name: str, flags: Iterable[Flag], **how: bool) -> Syntax:
    """The reader's syntax for a table's flags; ``how``: ``Syntax``'s switches."""
    short: dict[str, Option] = {}
    long: dict[str, Option] = {}
    for flag in flags:
        opt = option_of(flag)
        for n in flag.names:
            if n.startswith("--"):
                long[n] = opt
            elif n.startswith("-") and len(n) == 2:
                short[n[1]] = opt
            else:
                raise ValueError(f"{name}: bad flag spelling {n!r}")
    return Syntax(short, long, **how)


# --- wildness ---------------------------------------------------------------------------------

def unquoted_expansion(raw: str) -> bool:
    """Whether ``raw`` holds an expansion outside double quotes (so bash splits its result)."""
    i, n = 0, len(raw)
    dq = False
    while i < n:
        c = raw[i]
        if c == "\\":
            i += 2
            continue
        if c == "'" and not dq:
            j = raw.find("'", i + 1)
            i = n if j < 0 else j + 1
            continue
        if c == '"':
            dq = not dq
        elif c in "$`" and not dq:
            if c == "$" and i + 1 < n and raw[i + 1] in "'\"":
                i += 1
                continue
            return True
        i += 1
    return False


def may_split(word: Word) -> bool:
    """Whether bash may turn ``word`` into several words (unquoted expansion, glob, braces)."""
    return word.glob or (not word.static and unquoted_expansion(word.raw))


def is_wild(word: Word) -> bool:
    """Whether bash may turn ``word`` into words we cannot see, one of them maybe a flag; or
    xargs ``-I`` / ``find -exec`` pastes a name into an option word (``-n`` with ``-I n``:
    its letters are the name's)."""
    if word.pasted and word.text[:1] == "-":
        return True
    if word.glob and word.text[:1] in ("*", "?", "[", "{", "@", "!", "+", ""):
        return True
    if word.static:
        return False
    if unquoted_expansion(word.raw):
        return True
    return word.text[:1] in ("$", "`", "")


# `$HOME`, `${HOME}`, `$PWD`, `${PWD}`, `$(pwd)`, backquoted pwd: expansions whose value the gate
# knows (the context's home, each candidate cwd), as ``targets.resolve_word`` takes them.
_KNOWN_EXPANSION = re.compile(r"\$\{(HOME|PWD)\}|\$(HOME|PWD)(?![A-Za-z0-9_])|\$\(\s*pwd\s*\)|`\s*pwd\s*`")
_CLEAN_VALUE = re.compile(r"/[A-Za-z0-9._+@%,=:/-]*")


def known_texts(word: Word, call: Call) -> list[str] | None:
    """The one word each candidate cwd makes of ``word``, when every expansion in it is one the
    gate knows the value of (``_KNOWN_EXPANSION``) and that value is a clean absolute path (no
    blank, glob or quote character: unquoted, it neither splits nor globs); None otherwise.

    So ``find "$PWD" -name x``, ``tree -L 1 "$(pwd)"`` or ``grep -r x $HOME/src`` hand the
    program one word that starts with ``/`` (or the word's literal head): never an option.
    A backslash, single quotes, a brace, a glob, a tilde, any other expansion, or a session
    that carries HOME or PWD (``Context.inherited``) leaves the word unknown."""
    if word.static or word.glob or call.cwds is None or "\\" in word.raw or "'" in word.raw:
        return None
    rest = _KNOWN_EXPANSION.sub("", word.text)
    if "$" in rest or "`" in rest or "{" in rest or word.text.startswith("~"):
        return None
    state = call.ctx.inherited
    if state is not None and any(n in ("HOME", "PWD") for n, _ in state.variables):
        return None
    home = str(call.ctx.home)
    if not _CLEAN_VALUE.fullmatch(home):
        return None
    out: list[str] = []
    for cwd in call.cwds:
        if not _CLEAN_VALUE.fullmatch(str(cwd)):
            return None
        out.append(_KNOWN_EXPANSION.sub(
            lambda m, c=str(cwd): home if (m.group(1) or m.group(2)) == "HOME" else c, word.text))
    return out


_PLAIN_HEAD = re.compile(r"[A-Za-z0-9_./]")


def known_path(word: Word, call: Call) -> bool:
    """Whether ``word`` is one word the gate knows (:func:`known_texts`) that starts like a
    path: with ``/`` (the expansion first) or a letter, digit, ``_`` or ``.`` — never an
    option, nor ``@FILE``/``+N`` (``@$PWD/x`` is a response file)."""
    texts = known_texts(word, call)
    return texts is not None and all(_PLAIN_HEAD.match(t) for t in texts)


_MAX_OPTION_SCAN = 5000  # directory entries read per glob before it counts as "may be an option"


def reads_by_option(cmd: Command) -> bool:
    """Whether a read-only flag of ``cmd`` takes a file or program (``diff --from-file=F``)."""
    return any(f.takes not in (Takes.NONE, Takes.VALUE) for f in cmd.safe)


def within(path: str, top: str) -> bool:
    """Whether ``path`` is ``top`` or lies below it (both absolute and normalised)."""
    return path == top or path.startswith(top.rstrip("/") + "/")


def creates_option_name(writes: Sequence[str] | None, cwds: Sequence[Path] | None,
                        leads: str = "-") -> bool:
    """Whether a write of the line may put a name starting with ``-`` (or another of ``leads``:
    ``@`` for a command that reads response files) into one of ``cwds``
    (where a glob's first segment is expanded): a path right below it whose first name starts
    with ``-`` (``touch -- --from-file=x``), a new directory on the way to one, or the
    directory itself (or one above it) written whole (``cp -r src/. .``). Unknown writes or cwds
    may."""
    if writes is None or (writes and cwds is None):
        return True
    for d in map(str, cwds or ()):
        for p in writes:
            if within(d, p):
                return True
            if within(p, d):
                first = p[len(d.rstrip("/")) + 1:].split("/", 1)[0]
                if first[:1] and first[0] in leads:
                    return True
    return False


# A glob proved by `glob_operands`: literal characters that mean the same to bash and zsh in any
# option setting, `*` and `?`. Not `[…]` (quoting and `[^…]` read differently), `{…}` (bounded
# expansion), `(`, `!`, `^`, `~`, `#` (extglob, zsh's extendedglob), and not `**` (globstar and
# zsh make `**/-r` the word `-r`).
_PLAIN_GLOB = re.compile(r"[A-Za-z0-9_.,+=%@:/*?-]+")
_NESTED = frozenset({Via.SHELL_C, Via.XARGS, Via.FIND_EXEC})


def expanded_here(via: Sequence[Via]) -> bool:
    """Whether the command runs with the words the parsed shell expanded, in one of the line's
    candidate cwds: not a ``bash -c``/``eval`` script (its text is re-read, its spans are the
    whole word), nor a command xargs or ``find -exec`` runs (more words are appended or
    spliced in, ``-execdir`` runs elsewhere)."""
    return _NESTED.isdisjoint(via)


def glob_operands(word: Word, cwds: Sequence[Path] | None, line_writes: Sequence[str] | None,
                  leads: str = "-") -> bool:
    """Whether the glob ``word`` can only expand to words that do not start with ``-`` (so a
    getopt reader takes each for an operand; nor with another of ``leads``: ``@`` for a
    command that reads ``@FILE`` as a response file): it is static, unquoted (``raw`` is ``text``),
    plain (``_PLAIN_GLOB``), its first segment does not start with ``-``, every candidate cwd
    could be read in full within the scan budget and holds no name starting with ``-`` that the
    first segment matches (case-insensitively: ``nocaseglob`` may be set through BASHOPTS), and
    no write of the line may create such a name. A glob with no match stays itself (or is
    removed by ``nullglob``): not an option either. Anything else: False (fail closed)."""
    from ..paths.globs import seg_regex

    text = word.text
    if not word.static or not word.glob or word.raw != text or "**" in text \
            or not _PLAIN_GLOB.fullmatch(text) or cwds is None:
        return False
    head = text.split("/", 1)[0]
    if head[0] in leads or creates_option_name(line_writes, cwds, leads):
        return False
    rx = re.compile(seg_regex(head), re.IGNORECASE)
    for d in cwds:
        budget = _MAX_OPTION_SCAN
        try:
            with os.scandir(d) as it:
                for e in it:
                    budget -= 1
                    if budget < 0 or (e.name[:1] in leads and rx.fullmatch(e.name)):
                        return False
        except OSError:  # unreadable or missing: we cannot say what bash would see there
            return False
    return True


def may_match_option(word: Word, cwds: Sequence[Path] | None) -> bool:
    """Whether a glob (or brace) word may expand to a word starting with ``-``: a brace
    alternative spelled so, or a name in one of ``cwds`` (bash expands in the command's cwd)
    that its first segment matches, as the filesystem is now (bounded). True when the cwds are
    unknown. A name the same line creates is :func:`creates_option_name`'s question."""
    from ..paths.globs import expand_braces, has_glob, seg_regex

    for alt in expand_braces(word.text) if "{" in word.text else [word.text]:
        head = alt.split("/", 1)[0]
        if head.startswith("-"):
            return True
        if not has_glob(head):
            continue
        if cwds is None:
            return True
        rx = re.compile(seg_regex(head))
        budget = _MAX_OPTION_SCAN
        for d in cwds:
            try:
                with os.scandir(d) as it:
                    for e in it:
                        budget -= 1
                        if budget < 0 or (e.name[:1] == "-" and rx.fullmatch(e.name)):
                            return True
            except OSError:
                continue
    return False


# --- the reader ----------------------------------------------------------------------------------

def read_args(cmd: Command, args: Sequence[Word], *, wild_tail: bool = False,
              cwds: Sequence[Path] | None = None, line_writes: Sequence[str] | None = (),
              globs_here: bool = False, known: Callable[[Word], bool] | None = None) -> Parsed:
    """Read ``args`` against ``cmd``'s tables (through ``getopt.split``). Never raises; every
    problem is a Finding. ``cwds``: where the command may run (globs are expanded there); None
    when unknown. ``line_writes``: what the line writes (``Call.line_writes``). ``globs_here``:
    the words are expanded by the parsed shell in one of ``cwds`` (:func:`expanded_here`), so a
    glob may be proved to give operands only (:func:`glob_operands`). ``known``: a word bash
    expands that is nevertheless one known word and no option (:func:`known_path`)."""
    p = Parsed()
    if cmd.free:
        p.operands.extend(args)
        return p
    opaque = is_wild if known is None else (lambda w: is_wild(w) and not known(w))
    reading = split(args, cmd.syntax, opaque=opaque)
    for it in reading.items:
        if it.kind is Kind.OPTION or it.kind is Kind.MISSING or it.kind is Kind.NO_VALUE:
            _option(cmd, p, it)
        elif it.kind is Kind.OPAQUE:
            _wild(cmd, p, it.word, cwds, line_writes, globs_here)
        elif it.kind is Kind.UNKNOWN or it.kind is Kind.AMBIGUOUS:
            _unknown(cmd, p, it)
    p.operands.extend(reading.operands)
    if wild_tail and not cmd.wild_ok:
        p.findings.append(Finding(
            f"xargs appends its input as arguments to {cmd.name}, "
            + ("which has unsafe options" if cmd.unsafe else "whose operands its own check must see"),
            None, "readonly.wild"))
    elif wild_tail and cmd.max_operands is not None:   # `… | xargs hostname`: sets the host name
        p.findings.append(Finding(
            f"xargs may give {cmd.name} more than {cmd.max_operands} operand(s), and {cmd.name} "
            f"{cmd.extra_operand}", None, "readonly.operand"))
    _operand_count(cmd, p)
    return p


def _wild(cmd: Command, p: Parsed, w: Word, cwds: Sequence[Path] | None,
          line_writes: Sequence[str] | None, globs_here: bool) -> None:
    """A word that may expand to any option: refused when the command has an unsafe one (unless
    the word is a glob proved to give operands only), or a read-only one that reads a file and
    the word may be spelled like it, or reads ``@FILE`` as a response file (unless a glob
    proved to give no such word)."""
    if cmd.response_files:
        if not (globs_here and glob_operands(w, cwds, line_writes, "-@")):
            p.findings.append(Finding(
                f"{w.text!r} may expand to '@FILE', which {cmd.name} reads as a response file "
                "(more arguments, options included, from that file)", w.span, "readonly.wild"))
        return
    if not cmd.wild_ok:
        if globs_here and cmd.wild is None and (cmd.check is None or cmd.globs) \
                and cmd.effect is Effect.READ and glob_operands(w, cwds, line_writes):
            return  # every name it may become is an operand: the table reads it as one
        what = ("an option of {} (which has unsafe options)" if cmd.unsafe else
                "words of {} that must be seen (another operand or an option)")
        p.findings.append(Finding(f"{w.text!r} may expand to {what.format(cmd.name)}", w.span,
                                  "readonly.wild"))
    elif reads_by_option(cmd) and (not w.static or may_match_option(w, cwds)
                                   or creates_option_name(line_writes, cwds)):
        why = ("known only at run time" if not w.static else
               "a name starting with '-' matches it" if may_match_option(w, cwds) else
               "a command of this line may create a file named like an option there")
        p.findings.append(Finding(
            f"{w.text!r} may expand to an option of {cmd.name} that reads a file ({why})",
            w.span, "readonly.wild"))


def _unknown(cmd: Command, p: Parsed, it: Item) -> None:
    w, spelled = it.word, it.spelled
    short = len(spelled) == 2  # `-x`, or the `-` letter of `-a-b`; a long one is longer
    if "$" in spelled or "`" in spelled:
        what = "option" if short else "option name"
        p.findings.append(Finding(f"{what} {w.text!r} of {cmd.name} is not static", w.span, "readonly.wild"))
        return
    if short:
        p.findings.append(Finding(f"{cmd.name}: unknown option {spelled} (not on the read-only list)",
                                  w.span, "readonly.unknown_flag"))
        return
    if not cmd.abbrev:
        full = sorted(n for n in cmd.syntax.long if n.startswith(spelled))
        if full:
            p.findings.append(Finding(
                f"{cmd.name}: {spelled} abbreviates {' or '.join(full[:3])}; options must be spelled "
                "in full here", w.span, "readonly.unknown_flag"))
            return
    what = "ambiguous abbreviation" if it.kind is Kind.AMBIGUOUS else "unknown option"
    p.findings.append(Finding(f"{cmd.name}: {what} {spelled} (not on the read-only list)",
                              w.span, "readonly.unknown_flag"))


def _option(cmd: Command, p: Parsed, it: Item) -> None:
    """Record one option read, with what its spelling and value words cost."""
    flag: Flag = it.option.key  # type: ignore[union-attr, assignment]
    w, spelled = it.word, it.spelled
    if it.abbreviated and cmd.unsafe.get(flag) is None:
        # getopt would accept it, but the other analyses (sensitive paths, warnings, user rules)
        # match options by their full names: `grep --dereference-re` must not slip past them.
        p.findings.append(Finding(f"{cmd.name}: {spelled} abbreviates {flag.long}; spell options in full",
                                  w.span, "readonly.abbreviation"))
    values = it.values
    if it.kind is Kind.NO_VALUE:
        p.findings.append(Finding(f"{cmd.name} {spelled} does not take a value", w.span, "readonly.flag"))
        values = ()
    for k, v in enumerate(values):
        if k == 0 and it.attached:
            if may_split(w) and not cmd.wild_ok:
                p.findings.append(Finding(f"{w.text!r} may split into several words, one of them an "
                                          "option", w.span, "readonly.wild"))
        elif may_split(v) and not cmd.wild_ok:
            p.findings.append(Finding(f"{v.text!r} may split into several words, one of them an "
                                      "option", v.span, "readonly.wild"))
        elif v.static and v.text.startswith("--") and len(v.text) > 2:
            p.findings.append(Finding(f"the value of {cmd.name} {spelled} looks like an option "
                                      f"({v.text}); attach it with '='", v.span, "readonly.flag"))
        elif (cmd.hyphen_values is not None and cmd.hyphen_values.isdisjoint(flag.names)
              and (not v.static or (v.text.startswith("-") and len(v.text) > 1))):
            p.findings.append(Finding(
                f"{cmd.name} {spelled} {v.text}: {cmd.name} parses with clap, which reads a value "
                "starting with - as an option (or, from an expansion, may); attach it with '='",
                v.span, "readonly.flag"))
    if it.kind is Kind.MISSING:
        p.findings.append(Finding(f"{cmd.name} {spelled} is missing its value", w.span, "readonly.flag"))
    p.opts.append(Opt(flag, spelled, w, values))
    reason = cmd.unsafe.get(flag)
    if reason is None:
        return
    effect = Effect.WRITE if flag.takes is Takes.WRITE_PATH else Effect.EXEC
    if isinstance(reason, tuple):
        reason, effect = reason
    shown = spelled if spelled in flag.names else f"{spelled} (= {flag.long})"
    p.findings.append(Finding(f"{cmd.name} {shown} {reason}", w.span, "readonly.flag", effect))


def _operand_count(cmd: Command, p: Parsed) -> None:
    for o in p.opts:  # `grep -v -e ~/.ssh/* x`: the first name is the value, the others operands
        for v in o.values:
            # (an attached value, `--include=*.py`, only matches names spelled like the option;
            # told by its text, not its span: in a nested script every span is the whole word)
            attached = v is not o.word and len(o.word.text) > len(v.text) and o.word.text.endswith(v.text)
            if may_split(v) and not attached:
                p.findings.append(Finding(
                    f"{v.text!r}, the value of {o.spelled}, may expand to several words, the rest "
                    f"of them operands nobody has seen", v.span, "readonly.operand"))
                return
    if cmd.max_operands is None:
        return
    if len(p.operands) > cmd.max_operands:
        extra = p.operands[cmd.max_operands]
        p.findings.append(Finding(f"{cmd.name} {cmd.extra_operand}", extra.span, "readonly.operand"))
        return
    for w in p.operands:
        if may_split(w):  # `uniq *.txt`: the glob may name two files, the second an output
            p.findings.append(Finding(f"{w.text!r} may expand to several operands; {cmd.name} "
                                      f"{cmd.extra_operand}", w.span, "readonly.operand"))
            return


def run_checks(cmd: Command, call: Call, args: Sequence[Word] | None = None) -> list[Finding]:
    """Read the arguments of ``call`` (or ``args``) against ``cmd`` and run its check."""
    words = call.command.args if args is None else args
    parsed = read_args(cmd, words, wild_tail=call.wild_tail, cwds=call.cwds, line_writes=call.line_writes,
                       globs_here=expanded_here(call.command.via), known=lambda w: known_path(w, call))
    out = list(parsed.findings)
    if call.wild_tail and cmd.wild_ok and (cmd.response_files or reads_by_option(cmd)):
        # the appended words are as unseen as a wild word (_wild): `echo --files0-from=.env |
        # xargs du` and `echo @.env | xargs c++filt` print the file, a path nobody checked
        out.append(Finding(
            f"xargs appends its input as arguments to {cmd.name}, and a word of it may be "
            + ("'@FILE', a response file it reads" if cmd.response_files else
               "an option of it that reads a file (a path nobody checked)"),
            call.command.words[0].span, "readonly.wild"))
    out.extend(write_targets(cmd, parsed, call))
    out.extend(_dynamic_reads(cmd, parsed, call))
    out.extend(_placeholder_programs(cmd, parsed, call))
    if cmd.response_files:
        out.extend(Finding(f"{cmd.name} reads {w.text!r} as a response file: more arguments, options "
                           "included, from that file", w.span, "readonly.response_file")
                   for w in words if w.text.startswith("@"))
    if cmd.check is not None and not any(f.rule == "readonly.unknown_flag" for f in out):
        out.extend(cmd.check(_globs_as_run_time(cmd, _find_names_as_run_time(parsed, call)), call))
    if len(parsed.operands) < cmd.min_operands:
        out.append(Finding(f"{cmd.name} needs {cmd.min_operands} operand(s) here",
                           call.command.span, "readonly.operand"))
    return out


def _globs_as_run_time(cmd: Command, parsed: Parsed) -> Parsed:
    """``parsed`` as a check that does not read globs (``Command.globs``) must see it: each glob
    word a word known only at run time, which it is — bash hands the program the names it
    matches, not the pattern. ``sysctl kernel.domainname*`` passed a check that looks for ``=``
    in a name, and bash expanded it to a file ``kernel.domainname=pwned`` of the cwd: sysctl
    wrote the setting. (A glob that may become an option is :func:`_wild`'s question; the path
    scanner still reads the pattern.)"""
    if cmd.globs:
        return parsed

    def run_time(w: Word) -> Word:
        return replace(w, static=False) if w.glob and w.static else w

    if not any(w.glob for w in parsed.operands) and not any(v.glob for o in parsed.opts for v in o.values):
        return parsed
    return Parsed(opts=[replace(o, values=tuple(map(run_time, o.values))) for o in parsed.opts],
                  operands=[run_time(w) for w in parsed.operands], findings=parsed.findings)


def _find_names_as_run_time(parsed: Parsed, call: Call) -> Parsed:
    """``parsed`` as a command's own check must see it under ``find -exec``: each ``{}`` word a
    word known only at run time, which it is. The static text ``{}`` only says the name starts
    with a start point, and that start point may be all of it: ``find kernel.hostname=x -exec
    sysctl {} +`` wrote the host name and ``find init -exec tput {} +`` ran the terminfo entry's
    iprog, where a check that reads operands as names, settings or capabilities saw ``{}``.
    (The path scanner and ``_dynamic_reads`` still read ``{}`` as find's path.)"""
    if Via.FIND_EXEC not in call.command.via:
        return parsed

    def run_time(w: Word) -> Word:
        return replace(w, static=False, pasted="{}") if w.static and w.text == "{}" else w

    return Parsed(opts=[replace(o, values=tuple(map(run_time, o.values))) for o in parsed.opts],
                  operands=[run_time(w) for w in parsed.operands], findings=parsed.findings)


def _dynamic_reads(cmd: Command, parsed: Parsed, call: Call) -> list[Finding]:
    """Paths only known at run time, read by a command that prints what it reads."""
    out: list[Finding] = []
    for o in parsed.opts:
        if o.flag.takes not in (Takes.PATH, Takes.PATHS):
            continue
        for v in o.values:
            if not v.static:
                out.append(Finding(f"{cmd.name} {o.spelled} reads a file only known at run time "
                                   "(it could be a secret)", v.span, "readonly.dynamic_path"))
                continue
            # the scanner looks at words; these values may hide in --flag=PATH
            pieces = v.text.split(":") if o.flag.takes is Takes.PATHS else [v.text]
            hit = sensitive_read(pieces, call, v.span)
            if hit is not None:
                out.append(Finding(f"{cmd.name} {o.spelled} reads a sensitive path: {hit.path} "
                                   f"({hit.cls.value})", v.span, "readonly.sensitive"))
    reads = cmd.reads(parsed) if callable(cmd.reads) else cmd.reads
    if not reads:
        return out
    operands = list(parsed.operands)
    if cmd.pattern_from is not None and operands and not parsed.has(*cmd.pattern_from):
        operands = operands[1:]
    for w in operands:
        if not w.static and not w.raw.startswith(("<(", ">(")) and not _proved_name(w, call) \
                and known_texts(w, call) is None:  # a known one: the path scanner judged it
            out.append(Finding(f"{cmd.name} reads {w.text!r}, a path only known at run time (it could be "
                               "a secret)", w.span, "readonly.dynamic_path"))
    if call.wild_tail:
        out.append(Finding(f"xargs gives {cmd.name} file names read from its input (they could name "
                           "a secret)", call.command.span, "readonly.dynamic_path"))
    return out


def sensitive_read(paths: Iterable[str], call: Call, span: Span | None) -> SensitiveHit | None:
    """The first of ``paths`` (relative ones in each directory the command may run in) that
    the sensitive-path scanner calls a secret to read, or None: for the paths a command reads
    that are not words of its own (an option's value, a name it derives from an operand)."""
    from ..paths import resolve  # the scanner: not needed to read a table

    return next((h for c in call.cwds or (call.ctx.cwd,) for path in paths if path
                 if (h := resolve.check_path(path, PathOp.READ, replace(call.ctx, cwd=c), span))), None)


def _proved_name(w: Word, call: Call) -> bool:
    """A word that is xargs's ``-I`` placeholder, whole, in the command xargs runs itself, when
    ``paths/xargsnames.py`` proved the lines xargs reads plain names of files that are no
    secret, each pasted where this command takes a file operand (``find src | xargs -I{} grep
    -l x {}``; the classifier clears ``wild_tail`` only then): it is such a name."""
    return bool(w.pasted) and w.text == w.pasted and call.command.via[-1:] == (Via.XARGS,) \
        and not call.wild_tail


def _placeholder_programs(cmd: Command, parsed: Parsed, call: Call) -> list[Finding]:
    """``find -exec awk {} \\;``: the program is a file name find chooses at run time (data
    turned code). ``{}`` inside more text is dynamic already (``wrappers._spliced``)."""
    if Via.FIND_EXEC not in call.command.via:
        return []
    programs = [v for o in parsed.opts if o.flag.takes is Takes.SCRIPT for v in o.values]
    if cmd.pattern_from is not None and parsed.operands and not parsed.has(*cmd.pattern_from):
        programs.append(parsed.operands[0])
    return [Finding(f"the {cmd.name} program holds a file name find chooses at run time", w.span,
                    "readonly.program") for w in programs if "{}" in w.text]


def write_targets(cmd: Command, parsed: Parsed, call: Call) -> list[Finding]:
    """An unsafe flag that writes a file (``sort -o F``) is a WRITE only when F lies inside the
    workspace; elsewhere (or unknown) it is worse."""
    out: list[Finding] = []
    for o in parsed.opts:
        if o.flag.takes is not Takes.WRITE_PATH or o.flag not in cmd.unsafe:
            continue
        from .targets import resolve, where  # targets imports this module

        if not o.values:
            out.append(Finding(f"{cmd.name} {o.spelled} writes a file in an unknown place", o.word.span,
                               "readonly.write"))
        for v in o.values:
            effect, why = where(v, call)
            if effect is Effect.WRITE:
                out.append(Finding(f"{cmd.name} {o.spelled} writes {v.text}", v.span, "readonly.write",
                                   effect, tuple(resolve(v.text, call) or ())))
            elif effect is not Effect.READ:
                out.append(Finding(f"{cmd.name} {o.spelled} writes to {why}", v.span, "readonly.write",
                                   effect))
    return out


def flags(*specs: str | tuple[str, ...], takes: Takes = Takes.NONE) -> list[Flag]:
    """Shorthand for many flags of one kind: ``flags("-a", ("-b", "--bytes"), takes=...)``."""
    return [Flag(*(s if isinstance(s, tuple) else (s,)), takes=takes) for s in specs]
