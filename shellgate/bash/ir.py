"""The IR of a bash command string: every command bash would execute, flattened.

The parser (``parse/parser.py``) produces a :class:`Script`; the walker (``parse/walk.py``) fills
``Script.commands`` with one :class:`Command` per command bash may start — top-level ones,
nested ones (substitutions, here-doc bodies, ``${x:-$(…)}``, arithmetic), and the inner
commands of wrappers (``sudo``, ``xargs``, ``find -exec``, ``bash -c``, ``eval`` …).

Everything carries a :data:`Span` into the original text so that every reason given to a user
can underline the token that caused it. The IR is analysis-only: nothing here is executable.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from .._record import field, record

Span = tuple[int, int]
"""Half-open ``[start, end)`` offsets into :attr:`Script.source`."""


class Via(StrEnum):
    """How a command is reached. A command nested twice carries the whole chain."""

    TOP = "top"                    # a plain command of the script (lists, `&`, `;` included)
    PIPELINE = "pipeline"          # a stage of `a | b` or `a |& b`
    SUBSHELL = "subshell"          # `( … )`
    GROUP = "group"                # `{ …; }`
    FUNCTION = "function"          # the body of a function definition
    LOOP = "loop"                  # for / while / until / select (header words or body)
    CONDITION = "condition"        # if / elif / case / `[[ ]]` / `(( ))` operands
    COPROC = "coproc"              # `coproc …`
    CMDSUB = "cmdsub"              # `$( … )` or backticks
    PROCSUB = "procsub"            # `<( … )` / `>( … )`
    HEREDOC = "heredoc"            # a substitution inside an unquoted here-doc body
    HERESTRING = "herestring"      # a substitution inside a `<<<` word
    PARAM = "param"                # a substitution inside `${x:-…}` or an array subscript
    ARITH = "arith"                # a substitution inside `$(( ))`, `$[ ]`, `(( ))`
    REDIRECT = "redirect"          # a substitution inside a redirect target
    ASSIGNMENT = "assignment"      # a substitution inside `x=…`
    WRAPPER = "wrapper"            # the inner command of sudo/env/nice/timeout/time/exec/…
    SHELL_C = "shell_c"            # the script of `bash -c '…'` / `sh -c` / `eval`
    XARGS = "xargs"                # the command xargs runs
    FIND_EXEC = "find_exec"        # the command of `find -exec/-execdir/-ok/-okdir`


def xargs_tail(via: tuple[Via, ...]) -> bool:
    """Whether xargs appends its input to this command's argv: it is xargs's inner command,
    possibly through more wrappers (``xargs timeout 5 sort``)."""
    if Via.XARGS not in via:
        return False
    last = len(via) - 1 - via[::-1].index(Via.XARGS)
    return all(v in (Via.WRAPPER, Via.XARGS) for v in via[last + 1:])


class CommandKind(StrEnum):
    SIMPLE = "simple"      # argv words (maybe empty: `x=1` or a bare redirect)
    TEST = "test"          # `[[ … ]]`: words are its operands; name is "[["
    ARITH = "arith"        # `(( … ))` / `let`-like arithmetic command; name is "(("
    FUNCDEF = "funcdef"    # `f() { … }`: defines, runs nothing by itself; name is the function


@record
class Word:
    """One shell word after quote removal.

    ``text`` is what bash would pass as the argument when ``static`` is true: quotes,
    backslashes and ``$'…'`` decoded from the source slice. When the word contains an
    expansion (``$x``, ``$(…)``, backticks, arithmetic, `~user`) ``static`` is false and
    ``text`` holds the decoded literal parts with expansions kept in their source spelling —
    good for display and prefix checks, never for trusting. ``glob`` is true when an
    unquoted ``*``, ``?`` or ``[`` may make bash expand the word into other words.
    ``pasted`` is the placeholder xargs ``-I`` or ``find -exec`` replaces inside the word with
    a name or input line at run time (``wrappers._spliced``): such a word is not static, its
    ``text`` shows the placeholder, and what it becomes is only as safe as the names are.
    """

    text: str
    raw: str
    span: Span
    static: bool = True
    glob: bool = False
    quoted: bool = False  # some part of the word was quoted or escaped
    pasted: str = ""      # the run-time placeholder inside the word ("" when none)


@record
class Assignment:
    """``name=value`` (or ``name+=value``, ``name=(…)``) before a command or alone."""

    name: str
    value: Word
    span: Span
    array: bool = False


@record
class Redirect:
    """A redirection. ``op`` is bash's spelling: ``>``, ``>>``, ``<``, ``<>``, ``>|``, ``&>``,
    ``&>>``, ``>&``, ``<&``, ``<<``, ``<<-``, ``<<<``. ``fd`` is the explicit source fd, if any.
    For here-docs ``target`` is the delimiter and ``heredoc`` the body (``heredoc_quoted``: the
    delimiter was quoted, so the body is inert text)."""

    op: str
    target: Word | None
    span: Span
    fd: int | None = None
    heredoc: str | None = None
    heredoc_quoted: bool = False


@record
class Command:
    """One command bash may execute.

    ``via`` is the chain from the top of the script to this command (outermost first), e.g.
    ``(Via.PIPELINE, Via.CMDSUB)``. ``parent`` is the index in :attr:`Script.commands` of the
    command whose argument this command came from (the wrapper for WRAPPER/SHELL_C/XARGS/
    FIND_EXEC) or whose words/redirects/assignments held the substitution; ``None`` at top.
    """

    words: tuple[Word, ...]
    span: Span
    via: tuple[Via, ...] = (Via.TOP,)
    kind: CommandKind = CommandKind.SIMPLE
    assignments: tuple[Assignment, ...] = ()
    redirects: tuple[Redirect, ...] = ()
    parent: int | None = None
    background: bool = False

    @property
    def name(self) -> str | None:
        """The command name when it is static text, else None (a dynamic command name)."""
        if self.kind is CommandKind.TEST:
            return "[["
        if self.kind is CommandKind.ARITH:
            return "(("
        if not self.words:
            return None
        first = self.words[0]
        return first.text if first.static and not first.glob else None

    @property
    def args(self) -> tuple[Word, ...]:
        return self.words[1:]

    @property
    def argv(self) -> tuple[str, ...]:
        return tuple(w.text for w in self.words)


def words_after(words: Sequence[Word], w: Word) -> tuple[Word, ...]:
    """The words after ``w`` in ``words``, found by identity: in a nested script whose quoting
    the source does not show one to one every span is the whole word, so ``span > w.span``
    would find none (``eval '…; ssh host rm -rf /'`` lost its remote command). A word the
    option reader cut out of a longer one (``-cCMD``) is found by its span, as before."""
    for k, x in enumerate(words):
        if x is w:
            return tuple(words[k + 1:])
    return tuple(x for x in words if x.span[0] > w.span[0])


def own_args(cmd: Command, inner_start: int | None) -> tuple[Word, ...]:
    """The arguments of ``cmd`` that are its own: those before the first word of a command it
    runs (``find … -exec cat {} +``, ``sudo rm …``) that starts at source offset
    ``inner_start``. When the spans cannot tell — a nested script whose quoting the source does
    not show one to one (``eval 'echo '\\''x'\\''; find ~/.ssh -exec cat {} +'``) has every span
    on its whole word — all of them count: a reader of paths or a warning must see them all."""
    args = cmd.words[1:]
    if inner_start is None or not cmd.words or inner_start <= cmd.words[0].span[1]:
        return args
    return tuple(w for w in args if w.span[1] <= inner_start)


@record
class ParseFailure:
    """Why the front-end refused a command. Never raised: returned in :attr:`Script.error`."""

    reason: str
    span: Span | None = None


@record
class Script:
    """The result of parsing one command string.

    When ``error`` is set the script was not fully understood: ``commands`` may hold what was
    found before the failure (useful for display and warnings), but nothing may be concluded
    from it about safety.
    """

    source: str
    commands: tuple[Command, ...] = ()
    error: ParseFailure | None = None
    functions: tuple[str, ...] = field(default=())  # names defined by `f() { … }`
    # Words bash expands that belong to no command: a for/select list, a case subject and its
    # patterns. Nothing runs them, but their expansions happen (`for x in $TOKEN; do echo $x`).
    loose_words: tuple[Word, ...] = field(default=())
    # The name word of every for/select header, nested scripts' too: the variable each loop
    # assigns (`for PATH in /tmp/evil; do ls; done` runs another ls).
    loop_names: tuple[Word, ...] = field(default=())

    @property
    def ok(self) -> bool:
        return self.error is None

    def stdout_piped(self, i: int) -> bool:
        """Whether command ``i``'s stdout is the pipe into the next stage of its pipeline
        (``a | b``, ``a |& b``): the next command with the same parent and chain, with nothing
        but that operator between their spans in the source. False when the spans cannot tell
        (a nested script's spans are collapsed, so the text between them is empty)."""
        c = self.commands[i]
        if not c.via or c.via[-1] is not Via.PIPELINE:
            return False
        nxt = next((d for d in self.commands[i + 1:] if d.parent == c.parent and d.via == c.via), None)
        return nxt is not None and self.source[c.span[1]:nxt.span[0]].strip() in ("|", "|&")
