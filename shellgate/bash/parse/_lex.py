"""Pre-pass lexer: find what bashlex cannot parse and mask it, keeping every offset.

bashlex 0.18 fails or silently mis-parses on quoted here-doc delimiters, ``[[ ]]``, ``(( ))``,
``$(( ))``, ``case``, arrays, ``&&`` inside ``$( )``, ``$'…'`` and more (research/parsers.md).
This module reads the source once, with bash's own lexical rules, and produces:

* a *masked base text* of the same length, where quoted text, escapes and comments are
  replaced by ``%``/spaces so bashlex only sees the command structure; here-docs become a
  plain ``<`` redirect and their bodies blank lines (we read the bodies ourselves);
* a table of :class:`Opaque` constructs (substitutions, ``[[ ]]``, ``(( ))``, ``case``,
  array values, C-style ``for`` headers, extglob groups) keyed by start offset, with nested
  constructs as children. Each is masked as one ``%`` word in the text of the region that
  contains it; the walker expands it from this table;
* the here-documents (delimiter, quoted or not, body span) and ``coproc`` starts.

:meth:`Prepass.text` gives the masked text of any region (the whole source, the inside of a
``$( )``, a ``case`` clause body) ready for ``bashlex.parse``. Offsets stay those of the source
string, so every span indexes the original command.

Anything this lexer cannot read exactly raises :class:`LexError` with a precise reason;
the parser turns it into a ``ParseFailure``. It never guesses.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from ..._lazyre import lazy_compile
from ..._record import field, record
from ..ir import Span
from ._decode import decode_ansi_c

MASK = "%"
_META = frozenset(" \t\n;&|<>()")
_BLANK = frozenset(" \t")
_RESERVED_OPEN = frozenset({"if", "then", "else", "elif", "while", "until", "do", "{", "!"})
_RESERVED_CLOSE = frozenset({"fi", "done", "}"})
_COMPOUND_START = frozenset({"{", "(", "while", "until", "if", "for", "select", "case", "[[", "(("})
_DECL = frozenset({"declare", "typeset", "local", "export", "readonly"})
_ASSIGN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[.*\])?\+?=", re.S)
_NAME_RE = lazy_compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FDVAR_RE = lazy_compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}(?=[<>])")
_REDIR_OPS = ("&>>", "&>", "<<<", "<<-", "<<", "<&", "<>", "<", ">>", ">&", ">|", ">")
_CASE_STOPS = (";;&", ";;", ";&")
_NOT_NL = lazy_compile(r"[^\n]")
_SPECIAL_PARAMS = frozenset("@*#?-$!0123456789")
_CONTINUED = lazy_compile(r"(?:[^ \t\n;&|<>()\"'`$\\]|\\\n)+")
_ALL_RESERVED = frozenset({"if", "then", "else", "elif", "fi", "case", "esac", "for", "select",
                           "while", "until", "do", "done", "in", "function", "time", "coproc",
                           "{", "}", "!", "[[", "]]"})
_DQ_RUN = lazy_compile(r'[^"\\$`]+')
_HEREDOC_RUN = lazy_compile(r"[^\\$`]+")
_ANSI_BODY = lazy_compile(r"(?:[^'\\]|\\.)*'", re.S)
_UNQUOTED_RUN = re.compile(r"[^ \t\n;&|<>()\"'`$\\]*")
_PLAIN_RUN = re.compile(r"[^ \t\n;&|<>()\\'\"$`]+")
MAX_DEPTH = 100      # nested substitutions, subshells and compound commands
MAX_TOKENS = 5000    # words and operators; bashlex slows down badly on long inputs
_OPENERS = frozenset({"if", "while", "until", "for", "select", "case", "{"})
_CLOSERS = frozenset({"fi", "done", "esac", "}"})


class LexError(Exception):
    """The source cannot be read exactly; ``reason`` says why, ``pos`` where."""

    def __init__(self, reason: str, pos: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.pos = pos


@record(frozen=False)
class Opaque:
    """A construct the walker expands itself.

    kinds: ``cmdsub`` ``$( )``, ``backtick``, ``procsub`` ``<( )``/``>( )``, ``arith``
    ``$(( ))``/``$[ ]``, ``param`` ``${ }``, ``extglob`` ``@( )``…, ``test`` ``[[ ]]``,
    ``arithcmd`` ``(( ))``, ``forarith`` the ``((…))`` of ``for ((…))``, ``case`` the whole
    ``case … esac``, ``array`` the ``(…)`` of ``a=(…)``.
    ``inner`` is the text between the delimiters. ``words`` holds word spans (test operands,
    array elements); ``clauses`` holds ``(pattern spans, body span)`` for ``case`` and
    ``subject`` its word. ``fill`` is the mask character used for it in its parent's text.
    """

    kind: str
    span: Span
    inner: Span
    words: list[Span] = field(default_factory=list)
    clauses: list[tuple[list[Span], Span]] = field(default_factory=list)
    subject: Span | None = None
    children: list[Opaque] = field(default_factory=list)
    fill: str = MASK
    dq: bool = False  # a backtick inside double quotes: `\\"` is unescaped too


@record(frozen=False)
class Heredoc:
    """A here-document. ``target`` is the delimiter word span; ``body`` the body text without
    the terminator line; ``quoted``: the delimiter was quoted, so the body is inert."""

    target: Span
    delim: str
    quoted: bool
    strip_tabs: bool
    body: Span = (0, 0)
    terminated: bool = False


@record(frozen=False)
class Prepass:
    src: str
    base: list[str]
    opaques: dict[int, Opaque]       # every construct, by start offset
    top: list[Opaque]                 # constructs not nested in another construct
    heredocs: dict[int, Heredoc]     # by the end offset of the delimiter word
    coproc: set[int]                  # start offsets of commands run by `coproc`
    words: list[Span]                 # every word read, to cross-check bashlex's words
    literal: list[Span] = field(default_factory=list)  # where `\\⏎` is no continuation:
    # closed intervals [lo, hi] of single quotes, `$'…'`, comments and quoted here-docs

    def text(self, start: int, end: int) -> str:
        """The masked text of ``src[start:end]`` for bashlex: constructs inside it (but not
        the region itself) become one ``%`` word each. Only the region's own characters go
        through the character list; a masked construct is one string product, so a nest of
        d regions costs d fast copies rather than d passes over every character."""
        base, parts, pos = self.base, [], start
        for op in sorted(self._inside(start, end), key=_start_of):
            s, e = op.span
            mask = op.fill * (e - s)
            if op.kind == "forarith":  # `for ((…))do` is fine for bash: keep a separator
                mask = mask[:-1] + " "
            parts += ("".join(base[pos:s]), mask)
            pos = e
        parts.append("".join(base[pos:end]))
        return "".join(parts)

    def _inside(self, start: int, end: int) -> list[Opaque]:
        """The outermost constructs within ``[start, end)`` (siblings are sorted by start and
        do not overlap, so each level is a binary search)."""
        out: list[Opaque] = []
        levels = [self.top]
        while levels:
            ops = levels.pop()
            k = bisect.bisect_right(ops, start, key=_end_of)
            while k < len(ops) and ops[k].span[0] < end:
                op = ops[k]
                if start <= op.span[0] and op.span[1] <= end:
                    out.append(op)
                else:
                    levels.append(op.children)
                k += 1
        return out


def _end_of(op: Opaque) -> int:
    return op.span[1]


def _start_of(op: Opaque) -> int:
    return op.span[0]


class _Scanner:
    def __init__(self, src: str) -> None:
        self.src = src
        self.n = len(src)
        self.base = list(src)
        self.opaques: dict[int, Opaque] = {}
        self.top: list[Opaque] = []
        self.stack: list[Opaque] = []      # constructs being read (for children)
        self.heredocs: dict[int, Heredoc] = {}
        self.pending: list[tuple[Heredoc, int]] = []   # (heredoc, nesting level)
        self.level = 0
        self.coproc: set[int] = set()
        self.not_arith: set[int] = set()
        self.depth = 0
        self.words: list[Span] = []
        self.tokens = 0
        self.compound = 0
        self.literal: list[Span] = []  # single quotes, `$'…'`, comments, quoted here-docs

    # ----------------------------------------------------------------- helpers
    def mask(self, s: int, e: int, ch: str = MASK) -> None:
        if ch == MASK:
            self.base[s:e] = MASK * (e - s)
            return
        for k in range(s, e):
            if self.base[k] != "\n":
                self.base[k] = ch

    def open(self, kind: str, start: int, inner_start: int) -> Opaque:
        if len(self.stack) >= MAX_DEPTH:
            raise LexError("nesting too deep", start)
        op = Opaque(kind, (start, start), (inner_start, inner_start))
        (self.stack[-1].children if self.stack else self.top).append(op)
        self.opaques[start] = op
        self.stack.append(op)
        return op

    def close(self, op: Opaque, inner_end: int, end: int) -> None:
        op.inner = (op.inner[0], inner_end)
        op.span = (op.span[0], end)
        popped = self.stack.pop()
        assert popped is op

    def skip_blanks(self, i: int) -> int:
        src, n = self.src, self.n
        while i < n:
            c = src[i]
            if c in _BLANK:
                i += 1
            elif c == "\\" and i + 1 < n and src[i + 1] == "\n":
                self.base[i] = " "
                self.base[i + 1] = " "
                i += 2
            else:
                break
        return i

    def skip_comment(self, i: int) -> int:
        j = self.src.find("\n", i)
        j = self.n if j < 0 else j
        self.mask(i, j, " ")
        self.literal.append((i + 1, j))
        return j

    # ------------------------------------------------------------------ lists
    def scan_list(self, i: int, closers: tuple[str, ...] = ()) -> tuple[int, str | None]:
        """Read a command list from ``i`` until EOF or one of ``closers`` (``)``, ``esac``,
        ``;;``…). Returns the offset of the closer (or ``n``) and which closer it was."""
        self.enter(i)
        try:
            return self._scan_list(i, closers)
        finally:
            self.depth -= 1

    def nested_list(self, k: int, inner: int, what: str) -> int:
        """The command list of a subshell, ``$(…)`` or ``<(…)``/``>(…)`` opened at ``k``: read
        from ``inner`` one nesting level down; returns the offset of its ``)``."""
        self.level += 1
        e, stop = self.scan_list(inner, (")",))
        self.level -= 1
        if stop != ")":
            raise LexError(f"unterminated {what}", k)
        return e

    def _scan_list(self, i: int, closers: tuple[str, ...]) -> tuple[int, str | None]:
        src, n = self.src, self.n
        cmd = True          # the next word is in command position
        pipe_start = True   # ... and starts a pipeline (`time`, `!`, `coproc` allowed)
        nwords = 0          # words of the current simple command
        decl = False        # the command is declare/local/export/…: `x=(…)` args are arrays
        after_funcname = False
        in_for = False      # in a for/select header: `do` ends it
        closed = False      # just after `done`/`fi`/`}`/`)`…: a reserved word may follow
        prefix = False      # an assignment or redirection came first: no reserved words
        while True:
            while i < n and src[i] in _BLANK:
                i += 1
            if i < n and src[i] == "\\":  # maybe a line continuation: blank too
                i = self.skip_blanks(i)
            if i >= n:
                return n, None
            c = src[i]
            if c == "\n":
                i = self.newline(i)
                cmd = pipe_start = True
                closed = prefix = False
                nwords, decl, after_funcname = 0, False, False
                continue
            if c == "#":
                i = self.skip_comment(i)
                continue
            if c == ")":
                if ")" in closers:
                    return i, ")"
                raise LexError("unexpected ')'", i)
            if c == "(":
                if after_funcname or (not cmd and nwords == 1):
                    j = self.skip_blanks(i + 1)
                    if j < n and src[j] == ")":
                        i, cmd, pipe_start, after_funcname = j + 1, True, True, False
                        nwords = 0
                        continue
                    raise LexError("expected ')' in function definition", j)
                if cmd and src.startswith("((", i):
                    end = self.try_arith("arithcmd", i, i + 2)
                    if end is not None:
                        i, cmd, pipe_start, nwords, closed = end, False, False, 1, True
                        continue
                if not cmd:
                    raise LexError("unexpected '('", i)
                j = self.nested_list(i, i + 1, "subshell '('")
                i, cmd, pipe_start, nwords, closed = j + 1, False, False, 1, True
                continue
            op = self.operator(i) if c in ";&|" else None
            if op:
                self.count(i)
                if op in _CASE_STOPS:
                    if op in closers:
                        return i, op
                    raise LexError(f"unexpected '{op}'", i)
                i += len(op)
                cmd, closed, prefix = True, False, False
                pipe_start = op not in ("|", "|&")
                nwords, decl, after_funcname, in_for = 0, False, False, False
                continue
            # a redirection, maybe with an fd number or {var} before it
            j = i
            while j < n and src[j].isdigit():
                j += 1
            if j > i and j < n and src[j] in "<>" and not src.startswith("<(", j) \
                    and not src.startswith(">(", j):
                i = self.redirect(j)
                prefix = prefix or cmd
                continue
            m = _FDVAR_RE.match(src, i) if c == "{" else None
            if m and not src.startswith("<(", m.end()) and not src.startswith(">(", m.end()):
                self.mask(i, m.end(), " ")
                i = self.redirect(m.end())
                prefix = prefix or cmd
                continue
            if (c in "<>" and not (i + 1 < n and src[i + 1] == "(")) or src.startswith("&>", i):
                i = self.redirect(i)
                prefix = prefix or cmd
                continue
            # a word
            if (cmd and not prefix) or closed or (in_for and _peek_word(src, i) == "do"):
                res = self.reserved(i, closers, pipe_start)
                closed = False
                if res is not None:
                    kind, i = res
                    after_funcname = False
                    if kind == "close":
                        return i, "esac"
                    prefix = False
                    if kind == "open":
                        cmd, pipe_start, in_for = True, True, False
                    elif kind == "time":
                        cmd = True
                    elif kind == "function":
                        cmd, after_funcname, nwords = True, True, 0
                    elif kind == "for":
                        cmd, pipe_start, nwords, in_for = False, False, 1, True
                    else:  # "end", "test", "case"
                        cmd, pipe_start, nwords, closed = False, False, 1, True
                    continue
            after_funcname = False
            j = self.read_word(i, array_ok=cmd or decl)
            word = src[i:j]
            if cmd and _ASSIGN_RE.match(word):
                i, prefix = j, True
                continue  # a prefix assignment keeps command position
            if cmd:
                decl = word in _DECL
                if word == "time":  # a plain command here (not at a pipeline's start)
                    self.mask(i, j)
                cmd, pipe_start = False, False
                nwords = 1
            else:
                nwords += 1
                if word in ("{", "}"):
                    self.base[i] = MASK  # an argument; bashlex would take it as reserved
            i = j

    def operator(self, i: int) -> str | None:
        src = self.src
        c = src[i]
        if c == ";":
            for op in (";;&", ";;", ";&"):
                if src.startswith(op, i):
                    return op
            return ";"
        if c == "&":
            if src.startswith("&&", i):
                return "&&"
            if src.startswith("&>", i):
                return None
            return "&"
        if c == "|":
            for op in ("||", "|&"):
                if src.startswith(op, i):
                    return op
            return "|"
        return None

    def redirect(self, i: int) -> int:
        src = self.src
        for op in _REDIR_OPS:
            if src.startswith(op, i):
                break
        else:  # pragma: no cover - callers check src[i] in "<>&"
            raise LexError("bad redirection", i)
        op_start = i
        i = self.skip_blanks(i + len(op))
        if i >= self.n or src[i] == "#" or \
                (src[i] in _META and not src.startswith(("<(", ">("), i)):
            raise LexError(f"missing target after '{op}'", op_start)
        if op in ("<&", ">&") and src[i] == "-":
            # bash's read_token returns this `-` as a token of its own (close the fd): what
            # follows it, even `x` in `2>&-x` or a `#`, starts the next token
            self.words.append((i, i + 1))
            self.count(i)
            return i + 1
        j = self.read_word(i)
        if op in ("<<", "<<-"):
            self.heredoc(op_start, op, i, j)
        return j

    def heredoc(self, op_start: int, op: str, ws: int, we: int) -> None:
        raw = self.src[ws:we]
        if "$(" in raw or "`" in raw or "${" in raw:
            raise LexError("here-document delimiter with a substitution", ws)
        delim, quoted = _quote_remove(raw, ws)
        hd = Heredoc((ws, we), delim, quoted, op == "<<-")
        self.heredocs[we] = hd
        self.pending.append((hd, self.level))
        # `<<-'EOF'` -> `<%%%%%%%%`: a plain input redirect for bashlex
        self.base[op_start] = "<"
        self.mask(op_start + 1, we, MASK)

    def newline(self, i: int) -> int:
        """At a newline token: read the bodies of pending here-documents."""
        if not self.pending:
            return i + 1
        if any(level != self.level for _, level in self.pending):
            raise LexError("here-document body across a multi-line substitution", i)
        pos = i + 1
        for hd, _ in self.pending:
            pos = self.heredoc_body(hd, pos)
        self.pending.clear()
        return pos

    def heredoc_body(self, hd: Heredoc, pos: int) -> int:
        src, n = self.src, self.n
        start = pos
        while True:
            if pos >= n:
                hd.body, hd.terminated = (start, n), False
                end = n
                break
            line_start = pos
            line_end = src.find("\n", pos)
            line_end = n if line_end < 0 else line_end
            if not hd.quoted:  # backslash-newline joins lines before the delimiter check
                while line_end < n and _odd_backslashes(src, line_end):
                    nxt = src.find("\n", line_end + 1)
                    line_end = n if nxt < 0 else nxt
            line = src[line_start:line_end].replace("\\\n", "") if not hd.quoted \
                else src[line_start:line_end]
            if hd.strip_tabs:
                line = line.lstrip("\t")
            if line == hd.delim:
                hd.body, hd.terminated = (start, line_start), True
                end = line_end
                pos = min(line_end + 1, n)
                break
            pos = line_end + 1
        keep: list[Opaque] = []
        if hd.quoted:  # bash reads these lines raw: no line continuation, terminator included
            self.literal.append((start, end))
        if not hd.quoted:
            container = self.stack[-1].children if self.stack else self.top
            before = len(container)
            self.scan_dq(hd.body[0], hd.body[1], heredoc=True)
            keep = container[before:]
            for op in keep:
                op.fill = " "  # in the parent's text the body is blank lines
        self.blank(start, end, keep)
        return pos if hd.terminated else n

    def blank(self, s: int, e: int, keep: list[Opaque]) -> None:
        """Blank ``[s, e)`` to spaces (newlines stay), except the constructs in ``keep``."""
        k = s
        for op in sorted(keep, key=lambda o: o.span):
            self.base[k:op.span[0]] = _NOT_NL.sub(" ", self.src[k:op.span[0]])
            k = op.span[1]
        self.base[k:e] = _NOT_NL.sub(" ", self.src[k:e])

    # --------------------------------------------------------- reserved words
    def reserved(self, i: int, closers: tuple[str, ...], pipe_start: bool) -> tuple[str, int] | None:
        """Handle a reserved word at command position; None when the word is not one."""
        src, n = self.src, self.n
        j = _UNQUOTED_RUN.match(src, i).end()  # up to a metacharacter, quote or expansion
        if src.startswith("\\\n", j):
            if j + 2 >= n or src[j + 2] in _META:
                self.base[j] = self.base[j + 1] = " "  # `do\⏎ cmd`: the word ends here
            else:
                m = _CONTINUED.match(src, i)
                if m and m.group().replace("\\\n", "") in _ALL_RESERVED:
                    raise LexError("reserved word split by a line continuation", i)
                return None
        elif j < n and src[j] not in _META:
            return None  # quoted or expanded: not a reserved word
        if src.startswith(("<(", ">("), j):
            return None  # `fi<(x)`: a process substitution continues the word
        if src.startswith("!(", j - 1) and j - 1 == i:
            raise LexError("'!(' at the start of a command: an extglob pattern or a negated "
                           "subshell, depending on shell options", i)
        if j > i and j < n and src[j] == "(" and src[j - 1] in "@+*?":
            return None  # an extglob pattern word
        w = src[i:j]
        if w == "esac" and "esac" in closers:
            return "close", i
        self.count(i)
        if w in _OPENERS:
            self.compound += 1
            if self.compound > MAX_DEPTH:
                raise LexError("nesting too deep", i)
        elif w in _CLOSERS:
            self.compound -= 1
        if w in _RESERVED_OPEN:
            return "open", j
        if w in _RESERVED_CLOSE:
            return "end", j
        if w == "[[":
            return "test", self.test(i)
        if w == "case":
            return "case", self.case(i)
        if w in ("for", "select"):
            if w == "select":
                self.base[i:j] = list("for   ")
            k = self.skip_blanks(j)
            if src.startswith("((", k):
                end = self.try_arith("forarith", k, k + 2)
                if end is None:
                    raise LexError("bad arithmetic for loop header", k)
                return "for", end
            return "for", j
        if w == "time" and pipe_start:
            self.mask(i, j, " ")
            k = self.skip_blanks(j)
            if src.startswith("-p", k) and (k + 2 >= n or src[k + 2] in _META):
                self.mask(k, k + 2, " ")
                k += 2
            if src.startswith("--", k) and (k + 2 >= n or src[k + 2] in _META):
                self.mask(k, k + 2, " ")
                k += 2
            return "time", k
        if w == "coproc":
            return "open", self.coproc_head(i, j)
        if w == "function":
            k = self.skip_blanks(j)
            m = re.compile(r"[^ \t\n;&|<>()'\"`$\\]+").match(src, k)
            if not m:
                raise LexError("bad function name", k)
            self.words.append((k, m.end()))
            return "function", m.end()
        return None

    def coproc_head(self, i: int, j: int) -> int:
        src = self.src
        self.mask(i, j, " ")
        k = self.skip_blanks(j)
        first = _peek_word(src, k)
        if first in _COMPOUND_START or src.startswith("((", k) or src.startswith("(", k):
            self.coproc.add(k)
            return k
        m = _NAME_RE.fullmatch(first or "")
        if m:
            k2 = self.skip_blanks(k + len(first))
            second = _peek_word(src, k2)
            if second in _COMPOUND_START or src.startswith("(", k2):
                self.mask(k, k + len(first), " ")
                self.coproc.add(k2)
                return k2
        self.coproc.add(k)
        return k

    def test(self, i: int) -> int:
        """``[[ … ]]``: record operand word spans; ``<``/``>``/``(``/``)`` are operators."""
        src, n = self.src, self.n
        op = self.open("test", i, i + 2)
        k = i + 2
        regex = False
        while True:
            k = self.skip_blanks(k)
            if k >= n:
                raise LexError("unterminated '[['", i)
            c = src[k]
            if c == "\n":
                if self.pending:
                    raise LexError("here-document pending inside '[['", k)
                k += 1
                continue
            if src.startswith("]]", k) and (k + 2 >= n or src[k + 2] in _META):
                self.close(op, k, k + 2)
                return k + 2
            if src.startswith("&&", k) or src.startswith("||", k):
                k += 2
                continue
            if c in "()":
                k += 1
                continue
            if c in "<>" and not _procsub_at(src, k):
                op.words.append((k, k + 1))
                self.words.append((k, k + 1))
                k += 1
                continue
            if c in ";&|#":
                raise LexError(f"unexpected '{c}' inside '[['", k)
            e = self.read_regex(k) if regex else self.read_word(k, test=True)
            op.words.append((k, e))
            regex = src[k:e] == "=~"
            k = e

    def read_regex(self, i: int) -> int:
        """The right side of ``=~``: parentheses nest and may hold blanks and ``|``."""
        src, n = self.src, self.n
        depth = 0
        k = i
        while k < n:
            c = src[k]
            if _procsub_at(src, k):
                k = self.procsub(k)
            elif c == "(":
                depth += 1
                k += 1
            elif c == ")":
                if depth == 0:
                    break
                depth -= 1
                k += 1
            elif depth == 0 and (c in " \t\n" or c in ";&<>" or (c == "|" and depth == 0)):
                break
            elif c in "\\'\"$`":
                k = self.word_char(k, False)
            else:
                k += 1
        if k == i:
            raise LexError("missing regular expression after '=~'", i)
        self.words.append((i, k))
        return k

    def case(self, i: int) -> int:
        src, n = self.src, self.n
        op = self.open("case", i, i + 4)
        k = self.skip_blanks(i + 4)
        if k >= n or (src[k] in _META and not _procsub_at(src, k)) or src[k] == "#":
            raise LexError("missing word after 'case'", k)
        e = self.read_word(k)
        op.subject = (k, e)
        k = self.skip_space(e)
        if not (src.startswith("in", k) and (k + 2 >= n or src[k + 2] in _META)):
            raise LexError("expected 'in' after case word", k)
        k += 2
        while True:
            k = self.skip_space(k)
            if k >= n:
                raise LexError("unterminated 'case'", i)
            if src.startswith("esac", k) and (k + 4 >= n or src[k + 4] in _META):
                self.close(op, k, k + 4)
                return k + 4
            if src[k] == "(":
                k = self.skip_blanks(k + 1)
            pats: list[Span] = []
            while True:
                k = self.skip_blanks(k)
                if k >= n or (src[k] in _META and not _procsub_at(src, k)) or src[k] == "#":
                    raise LexError("bad case pattern", k)
                e = self.read_word(k)
                pats.append((k, e))
                k = self.skip_blanks(e)
                if k < n and src[k] == "|":
                    k += 1
                    continue
                if k < n and src[k] == ")":
                    k += 1
                    break
                raise LexError("expected ')' after case pattern", k)
            body_start = k
            e, stop = self.scan_list(k, (*_CASE_STOPS, "esac"))
            if stop is None:
                raise LexError("unterminated 'case'", i)
            op.clauses.append((pats, (body_start, e)))
            if stop == "esac":
                self.close(op, e, e + 4)
                return e + 4
            k = e + len(stop)

    def skip_space(self, k: int) -> int:
        """Blanks, newlines (with here-doc bodies) and comments."""
        src, n = self.src, self.n
        while True:
            k = self.skip_blanks(k)
            if k < n and src[k] == "\n":
                k = self.newline(k)
            elif k < n and src[k] == "#":
                k = self.skip_comment(k)
            else:
                return k

    # ------------------------------------------------------------------ words
    def read_word(self, i: int, *, array_ok: bool = False, test: bool = False) -> int:
        """Read one word from ``i``; return its end. Masks quotes/escapes, records constructs."""
        src, n = self.src, self.n
        k = i
        while k < n:
            m = _PLAIN_RUN.match(src, k)
            if m:
                k = m.end()
                if k >= n:
                    break
            c = src[k]
            if c == "(" and k > i and src[k - 1] in "@!+*?" and not _escaped(src, k - 1):
                k = self.extglob(k - 1)
                continue
            if c == "(" and array_ok and k > i and src[k - 1] == "=" \
                    and _ASSIGN_RE.fullmatch(src, i, k):
                k = self.array(k)
                continue
            if _procsub_at(src, k):
                k = self.procsub(k)
                continue
            if c in _META:
                break
            if test and c in "<>":
                break
            if c == "\\" and src.startswith("\n", k + 1):
                if k + 2 >= n or src[k + 2] in _META:
                    self.base[k] = self.base[k + 1] = " "  # a line continuation ends the word
                    break
                self.base[k] = self.base[k + 1] = MASK  # ... or joins its two halves
                k += 2
                continue
            k = self.word_char(k, False)
        if k == i:
            raise LexError(f"unexpected '{src[i]}'", i)
        self.words.append((i, k))
        self.count(i)
        return k

    def procsub(self, k: int) -> int:
        """``<(…)`` or ``>(…)`` at ``k`` (see :func:`_procsub_at`); returns the offset after it."""
        op = self.open("procsub", k, k + 2)
        e = self.nested_list(k, k + 2, "process substitution")
        self.close(op, e, e + 1)
        return e + 1

    def word_char(self, k: int, dq: bool) -> int:
        """One word element at ``k`` outside double quotes: quote, escape, expansion or char."""
        src, n = self.src, self.n
        c = src[k]
        if c == "\\":
            if k + 1 >= n:
                self.base[k] = MASK  # a final lone backslash is a literal backslash
                return k + 1
            if src[k + 1] == "\n":
                prev_word = k > 0 and src[k - 1] not in _META
                nxt = src[k + 2] if k + 2 < n else ""
                fill = MASK if prev_word and nxt and nxt not in _META else " "
                self.base[k] = self.base[k + 1] = fill
                return k + 2
            self.base[k] = self.base[k + 1] = MASK
            return k + 2
        if c == "'":
            e = src.find("'", k + 1)
            if e < 0:
                raise LexError("unterminated single quote", k)
            self.mask(k, e + 1)
            self.literal.append((k + 1, e))
            return e + 1
        if c == '"':
            return self.dquote(k)
        if c == "$":
            return self.dollar(k, dq)
        if c == "`":
            return self.backtick(k)
        return k + 1

    def dquote(self, k: int) -> int:
        """``"…"`` at ``k``; returns the offset after the closing quote."""
        e = self.scan_dq(k + 1, self.n, heredoc=False)
        self.base[k] = MASK
        return e

    def scan_dq(self, k: int, end: int, *, heredoc: bool) -> int:
        """Double-quoted text (or an unquoted here-doc body) from ``k``: records the
        substitutions in it. Returns the offset after the closing ``"`` (or ``end``)."""
        src = self.src
        run = _HEREDOC_RUN if heredoc else _DQ_RUN
        while k < end:
            m = run.match(src, k, end)
            if m:
                if not heredoc:
                    self.base[k:m.end()] = MASK * (m.end() - k)
                k = m.end()
                if k >= end:
                    break
            c = src[k]
            if c == '"' and not heredoc:
                self.base[k] = MASK
                return k + 1
            if c == "\\":
                if not heredoc:
                    self.base[k] = MASK
                    if k + 1 < end:
                        self.base[k + 1] = MASK
                k += 2
            elif c == "$":
                if src.startswith("$'", k) or src.startswith('$"', k):
                    if not heredoc:
                        self.base[k] = MASK
                    k += 1  # `$'` is not special inside double quotes
                    continue
                k = self.dollar(k, True)
            elif c == "`":
                k = self.backtick(k, not heredoc)
        if heredoc:
            return end
        raise LexError("unterminated double quote", k)

    def dollar(self, k: int, dq: bool) -> int:
        src, n = self.src, self.n
        nxt = src[k + 1] if k + 1 < n else ""
        if nxt == "'" and not dq:
            m = _ANSI_BODY.match(src, k + 2)
            if not m:
                raise LexError("unterminated $'…'", k)
            self.mask(k, m.end())
            self.literal.append((k + 2, m.end() - 1))
            return m.end()
        if nxt == '"' and not dq:
            self.base[k] = MASK
            return self.dquote(k + 1)
        if nxt == "(":
            if src.startswith("((", k + 1):
                end = self.try_arith("arith", k, k + 3)
                if end is not None:
                    return end
            op = self.open("cmdsub", k, k + 2)
            e = self.nested_list(k, k + 2, "'$('")
            self.close(op, e, e + 1)
            return e + 1
        if nxt == "[":
            op = self.open("arith", k, k + 2)
            e = self.matched(k + 2, "[", "]", mode="arith")
            self.close(op, e, e + 1)
            return e + 1
        if nxt == "{":
            op = self.open("param", k, k + 2)
            e = self.matched(k + 2, "{", "}", mode="param", dq=dq)
            self.close(op, e, e + 1)
            return e + 1
        if nxt and nxt in _SPECIAL_PARAMS:
            return k + 2  # `$$`, `$#`, `$1`…: a `(` or `{` after it is not an expansion
        return k + 1

    def backtick(self, k: int, dq: bool = False) -> int:
        """Old-style substitution: ends at the first unescaped backtick."""
        src, n = self.src, self.n
        e = k + 1
        while e < n and src[e] != "`":
            e += 2 if src[e] == "\\" else 1
        if e >= n:
            raise LexError("unterminated backtick", k)
        op = self.open("backtick", k, k + 1)
        op.dq = dq
        self.close(op, e, e + 1)
        return e + 1

    def matched(self, k: int, open_: str, close: str, *, mode: str, dq: bool = False) -> int:
        """The offset of the ``close`` matching an already-open ``open_`` (depth 1), reading
        quotes and nested substitutions (which are recorded).

        ``mode`` ``arith``: single quotes are plain characters, because bash runs ``$(…)``
        inside them in ``$(( ))``, ``(( ))`` and subscripts. ``param``: quotes delimit text for
        finding the brace, but substitutions inside single quotes are still recorded (they run
        in subscripts and in double-quoted ``${…}``; elsewhere this over-reports, failing
        closed). ``plain``: quotes work as usual."""
        src, n = self.src, self.n
        self.enter(k)
        depth = 1
        while k < n:
            c = src[k]
            if c == close:
                depth -= 1
                if depth == 0:
                    self.depth -= 1
                    return k
                k += 1
            elif c == open_:
                depth += 1
                k += 1
            elif c == "\\":
                k += 2
            elif c == "'" and mode != "arith":
                e = src.find("'", k + 1)
                if e < 0:
                    raise LexError("unterminated single quote", k)
                if mode == "plain":
                    self.literal.append((k + 1, e))
                if mode == "param":
                    j = k + 1
                    while j < e:
                        if src[j] == "$":
                            j = self.dollar(j, True)
                        elif src[j] == "`":
                            j = self.backtick(j)
                        else:
                            j += 1
                    if j > e:
                        raise LexError("substitution across a quote inside ${…}", k)
                k = e + 1
            elif c == '"':
                k = self.dquote(k)
            elif c == "$":
                k = self.dollar(k, dq)
            elif c == "`":
                k = self.backtick(k, dq)
            else:
                k += 1
        raise LexError(f"unterminated '{open_}'", k)

    def count(self, k: int) -> None:
        self.tokens += 1
        if self.tokens > MAX_TOKENS:
            raise LexError(f"command too complex (more than {MAX_TOKENS} words and operators)", k)

    def enter(self, k: int) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise LexError("nesting too deep", k)

    def try_arith(self, kind: str, k: int, inner: int) -> int | None:
        """``$((…))`` or ``((…))``: bash reads a matched pair after ``((`` and needs ``)``
        right after it; otherwise it is a command substitution / two subshells. Returns the
        end offset, or None (with everything recorded meanwhile rolled back)."""
        if k in self.not_arith:
            return None
        src, n = self.src, self.n
        op = self.open(kind, k, inner)
        saved = (self.level, self.depth, len(self.pending), len(self.words))
        try:
            close: int | None = self.matched(inner, "(", ")", mode="arith")
        except LexError:
            close = None
        if close is not None and close + 1 < n and src[close + 1] == ")":
            self.close(op, close, close + 2)
            if kind == "arithcmd" and close + 2 < n and src[close + 2] not in _META:
                raise LexError("unexpected text after '))'", close + 2)
            return close + 2
        while self.stack and self.stack[-1] is not op:
            self.stack.pop()
        self.stack.pop()
        (self.stack[-1].children if self.stack else self.top).remove(op)
        todo = [op]
        while todo:
            o = todo.pop()
            self.opaques.pop(o.span[0], None)
            todo.extend(o.children)
        self.level, self.depth = saved[0], saved[1]
        del self.pending[saved[2]:]
        del self.words[saved[3]:]
        self.not_arith.add(k)
        return None

    def extglob(self, k: int) -> int:
        """``@(…)``, ``!(…)``, ``+(…)``, ``*(…)``, ``?(…)`` at ``k``."""
        op = self.open("extglob", k, k + 2)
        e = self.matched(k + 2, "(", ")", mode="plain")
        self.close(op, e, e + 1)
        return e + 1

    def array(self, k: int) -> int:
        """The ``(…)`` of ``name=(…)``: elements are words, separated by blanks/newlines."""
        src, n = self.src, self.n
        op = self.open("array", k, k + 1)
        j = k + 1
        while True:
            j = self.skip_space(j)
            if j >= n:
                raise LexError("unterminated array assignment", k)
            if src[j] == ")":
                self.close(op, j, j + 1)
                return j + 1
            e = self.read_word(j)
            op.words.append((j, e))
            j = e


def _procsub_at(src: str, k: int) -> bool:
    """Whether a process substitution starts at ``k``: bash's tokenizer reads ``<(``/``>(``
    as the start of a word wherever an operator ``<``/``>`` could stand — a ``[[ ]]`` operand,
    an ``=~`` regex, a ``case`` word or pattern — and expansion runs it there."""
    return src.startswith("<(", k) or src.startswith(">(", k)


def _escaped(src: str, k: int) -> bool:
    b = 0
    k -= 1
    while k >= 0 and src[k] == "\\":
        b += 1
        k -= 1
    return b % 2 == 1


def _odd_backslashes(src: str, end: int) -> bool:
    return _escaped(src, end)


def _peek_word(src: str, k: int) -> str:
    m = re.compile(r"[^ \t\n;&|<>()]+").match(src, k)
    return m.group(0) if m else ""


def _quote_remove(raw: str, pos: int) -> tuple[str, bool]:
    """Quote removal for a here-doc delimiter (bash does no expansion on it). ``$'…'`` is
    decoded as in any word: bash's lexer replaces it by its ANSI-C decoded text before the
    here-document reads its delimiter, so ``<<$'E\\x4fF'`` ends at a line ``EOF``. A delimiter
    whose decoding depends on the locale or holds raw bytes raises LexError (at ``pos``)."""
    out: list[str] = []
    quoted = False
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        if c == "\\" and i + 1 < n:
            out.append(raw[i + 1])
            quoted = True
            i += 2
        elif c == "'":
            e = raw.find("'", i + 1)
            if e < 0:  # the lexer read the word: cannot happen, but never loop on it
                raise LexError("unterminated quote in a here-document delimiter", pos + i)
            out.append(raw[i + 1:e])
            quoted = True
            i = e + 1
        elif c == '"':
            e = i + 1
            buf: list[str] = []
            while e < n and raw[e] != '"':
                if raw[e] == "\\" and e + 1 < n and raw[e + 1] in '$`"\\':
                    buf.append(raw[e + 1])
                    e += 2
                else:
                    buf.append(raw[e])
                    e += 1
            out.append("".join(buf))
            quoted = True
            i = e + 1
        elif c == "$" and i + 1 < n and raw[i + 1] == "'":
            m = _ANSI_BODY.match(raw, i + 2)
            if not m:
                raise LexError("unterminated $'…' in a here-document delimiter", pos + i)
            text, exact = decode_ansi_c(raw[i + 2:m.end() - 1])
            if not exact:
                raise LexError("here-document delimiter whose $'…' depends on the locale", pos + i)
            out.append(text)
            quoted = True
            i = m.end()
        elif c == "$" and i + 1 < n and raw[i + 1] == '"':
            quoted = True  # $"…" without a message catalogue is "…"
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out), quoted


def prepass(src: str) -> Prepass:
    """Lex ``src`` and build the masked text and construct tables. Raises LexError."""
    sc = _Scanner(src)
    end, stop = sc.scan_list(0)
    if stop is not None:  # pragma: no cover - top level has no closers
        raise LexError(f"unexpected '{stop}'", end)
    if sc.pending:  # here-doc at the very end with no newline: empty body (bash warns)
        for hd, _ in sc.pending:
            hd.body, hd.terminated = (len(src), len(src)), False
        sc.pending.clear()
    return Prepass(src, sc.base, sc.opaques, sc.top, sc.heredocs, sc.coproc, sc.words,
                   sc.literal)


# ------------------------------------------------------------------ line continuations
MAX_JOIN_ROUNDS = 3


def joined(src: str) -> tuple[str, Prepass, list[int]]:
    """What bash reads from ``src`` after line continuations, its pre-pass, and where the
    removed ``\\⏎`` pairs were (offsets into the joined text, ascending; see :func:`unjoin`).

    bash drops an unescaped backslash-newline in its input layer, before any token is read,
    everywhere except inside single quotes, ``$'…'``, comments and quoted here-documents: so
    ``"$\\⏎(id)"`` is a command substitution and ``i\\⏎f`` the word ``if``. Which pairs are
    in those places depends on the joined text itself, so this is a fixed point: join the
    pairs outside the literal regions of one reading (the text as written, or — when that
    does not lex — every pair), lex the result, and accept only if its own literal regions
    hold every remaining pair and none of the removed ones. Raises LexError otherwise."""
    try:
        keep = _literal_mask(src, prepass(src).literal)
    except LexError:
        keep = bytearray(len(src) + 1)  # it may only lex once joined (`$\\⏎(…)` unquoted)
    text, removed = src, []
    for _ in range(MAX_JOIN_ROUNDS):
        cut = [k for k in _pairs(text) if not keep[k]]
        text, removed = _cut(text, cut, removed)
        pp = prepass(text)
        inside = _literal_mask(text, pp.literal)
        if any(inside[q] for q in removed):
            raise LexError("a line continuation joins text that bash then reads as quoted or "
                           "as a comment: not supported", None)
        left = [k for k in _pairs(text) if not inside[k]]
        if not left:
            return text, pp, removed
        keep = inside
    raise LexError("line continuations that change how the command reads: not supported", None)


def unjoin(removed: list[int]) -> Callable[[Span], Span]:
    """The map from spans of :func:`joined` text back to the source: a span that covers a
    removed pair covers it in the source too."""
    def back(k: int) -> int:
        return k + 2 * bisect.bisect_right(removed, k)

    def span(s: Span) -> Span:
        a, b = s
        return (back(a), back(b - 1) + 1) if b > a else (back(a), back(a))
    return span


def _pairs(text: str) -> list[int]:
    """Offsets of the backslashes of unescaped backslash-newline pairs."""
    out, k = [], text.find("\\\n")
    while k >= 0:
        if not _escaped(text, k):
            out.append(k)
        k = text.find("\\\n", k + 2)
    return out


def _literal_mask(text: str, regions: list[Span]) -> bytearray:
    """One byte per offset (and one past the end): 1 inside a literal region."""
    mask = bytearray(len(text) + 1)
    for lo, hi in regions:
        if hi >= lo:
            mask[lo:hi + 1] = b"\x01" * (min(hi, len(text)) - lo + 1)
    return mask


def _cut(text: str, cut: list[int], removed: list[int]) -> tuple[str, list[int]]:
    """``text`` without the pairs at ``cut``, and the removed offsets of both rounds in the
    new text's coordinates."""
    if not cut:
        return text, removed
    parts, pos, new = [], 0, []
    for n, k in enumerate(cut):
        parts.append(text[pos:k])
        new.append(k - 2 * n)
        pos = k + 2
    parts.append(text[pos:])
    shift = [bisect.bisect_left(cut, q) for q in removed]  # earlier rounds' offsets move too
    old = [q - 2 * m for q, m in zip(removed, shift, strict=True)]
    return "".join(parts), sorted(old + new)
