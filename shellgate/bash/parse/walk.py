"""Walk the parsed script and list every command bash may run, nested ones included.

Input: the pre-pass tables (``_lex.Prepass``) and the bashlex trees of each region's masked
text. Output: flat :class:`~shellgate.bash.ir.Command` records with spans into the original
string, the chain of :class:`~shellgate.bash.ir.Via` by which each is reached, and the index
of the command that holds it (``parent``).

What is reached: list elements, ``&``, pipeline stages, subshells, groups, function bodies,
loops (header words and bodies), ``if``/``case``/``[[ ]]``/``(( ))``, command and process
substitutions wherever they stand (words, assignments, redirect targets, here-strings,
unquoted here-doc bodies, ``${x:-…}``, subscripts, arithmetic, array values, extglob
patterns), ``coproc``, and the inner commands of wrappers (``commands/wrappers.py``),
including the scripts of ``bash -c`` and ``eval`` when they are static text.

Redirections written on a compound command (``{ a; b; } > f``, ``while …; done < f``,
``case … esac > f``) are copied onto every command inside it, so a classifier that reads
``Command.redirects`` sees them. The ``time`` keyword is syntax, not a command: its pipeline
is walked as if it were not there.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..._lazyre import lazy_compile
from ..._record import replace
from ..commands.wrappers import unwrap
from ..ir import Assignment, Command, CommandKind, Redirect, Span, Via, Word
from . import _fast, _lex
from ._bashlex import load as _load_bashlex
from ._decode import _PLAIN_WORD as _TEXT_IS_SOURCE  # its text is its source
from ._decode import DecodeError, decode_word
from ._lex import LexError, Opaque, Prepass

FAST = True            # try the hand-written fast path (_fast.py) before bashlex
PLAIN = True           # ... and before it, the plain-words path (Walker.plain); needs FAST
MAX_SCRIPT_DEPTH = 8   # bash -c 'bash -c "…"' / eval / backticks nested this deep at most

_REDIR_RE = lazy_compile(r"(\d*)(&>>|&>|<<<|<<-|<<|<&|<>|>>|>&|>\||<|>)")
_ASSIGN_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[.*\])?\+?=", re.S)
_ARITH_CMP = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
# operators whose operand text bash evaluates again (arithmetic, `a[sub]` of -v/-R): a
# `$(…)` in *static* text there still runs, e.g. [[ 'a[$(id)]' -eq 1 ]]
_EVALUATING = _ARITH_CMP | {"-v", "-R"}
_SPECIAL_WORD = frozenset({"test", "arithcmd", "case"})

# Simple commands of plain words — letters, digits, ``./:,@%+=^~*?[]-`` and quoted text without
# an expansion, escape or newline; blanks between — joined by ``|``, ``&&``, ``||`` or ``;``:
# about four fifths of real agent commands. Nothing in them is expanded or redirected and no
# construct needs the lexer (no parenthesis, brace, ``$``, backtick, ``#``, backslash), so the
# lexer and the structure pass have nothing to do (Walker.plain); the decoder reads each word.
_PLAIN_WORD = re.compile(r"""(?:[\w./:,@%+=^~*?\[\]-]|'[^'\n]*'|"[^"$`\\\n]*")+""")
_PLAIN_CMD = rf"[ \t]*{_PLAIN_WORD.pattern}(?:[ \t]+{_PLAIN_WORD.pattern})*[ \t]*"
_PLAIN_LINE = re.compile(rf"{_PLAIN_CMD}(?:(?:\|\||&&|\||;){_PLAIN_CMD})*")
_PLAIN_TOKEN = re.compile(rf"({_PLAIN_WORD.pattern})|\|\||&&|\||;")

_BASHLEX: list = []


def _bashlex():
    """bashlex, imported on first use: the fast path handles most commands without it."""
    if not _BASHLEX:
        _BASHLEX.append(_load_bashlex())
    return _BASHLEX[0]


class Unsupported(Exception):
    """The script cannot be walked exactly; ``reason`` says why."""

    def __init__(self, reason: str, span: Span | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.span = span


def _top(via: tuple[Via, ...]) -> tuple[Via, ...]:
    return via or (Via.TOP,)


def _strip_top(via: tuple[Via, ...]) -> tuple[Via, ...]:
    return tuple(v for v in via if v is not Via.TOP)


class Walker:
    """Collects commands in source order (a command before the substitutions it holds)."""

    def __init__(self, src: str, pp: Prepass, depth: int = 0) -> None:
        self.src = src
        self.pp = pp
        self.depth = depth
        self.commands: list[Command] = []
        self.functions: list[str] = []
        self.loose_words: list[Word] = []  # see Script.loose_words
        self.loop_names: list[Word] = []  # see Script.loop_names
        self.seen: set[Span] = set()   # word spans decoded, checked against the lexer's
        self.visited: set[int] = set()  # constructs expanded, checked against the lexer's
        self._plain: list[tuple[tuple[Word, ...], tuple[Via, ...]]] = []  # see Walker.plain

    @classmethod
    def plain(cls, src: str) -> Walker | None:
        """A walker for ``src`` when it is simple commands of plain words joined by ``|``,
        ``&&``, ``||`` or ``;`` (see ``_PLAIN_LINE``), to be finished with :meth:`run_plain`;
        None otherwise — a first word that may be an assignment, reserved words anywhere, very
        long lines, anything the decoder does not take as one static word: :meth:`run` reads
        those."""
        if not (PLAIN and FAST) or not _PLAIN_LINE.fullmatch(src):
            return None
        tokens = list(_PLAIN_TOKEN.finditer(src))
        if 2 * len(tokens) >= _lex.MAX_TOKENS:
            return None
        spans: list[Span] = []
        stages: list[list[Word]] = [[]]  # the commands of the current pipeline
        plain: list[tuple[tuple[Word, ...], tuple[Via, ...]]] = []
        reserved, text_only = _lex._ALL_RESERVED, _TEXT_IS_SOURCE.fullmatch
        for m in tokens:
            raw = m.group(1)
            if raw is None:  # an operator: every command has words (_PLAIN_LINE)
                if m.group() == "|":
                    stages.append([])
                    continue
                via = (Via.PIPELINE,) if len(stages) > 1 else (Via.TOP,)
                plain.extend((tuple(ws), via) for ws in stages)
                stages = [[]]
                continue
            span = m.span()
            if raw in reserved or (not stages[-1] and "=" in raw):
                return None
            if text_only(raw):  # what decode_word gives such a word, without the call
                w = Word(raw, raw, span)  # text, raw, span: positional (a hot path)
            else:
                try:
                    w, subs = decode_word(src, span[0], span[1], {})
                except DecodeError:
                    return None
                if subs or not w.static:
                    return None
            stages[-1].append(w)
            spans.append(span)
        via = (Via.PIPELINE,) if len(stages) > 1 else (Via.TOP,)
        plain.extend((tuple(ws), via) for ws in stages)
        walker = cls(src, Prepass(src, list(src), {}, [], {}, set(), spans))
        walker._plain = plain
        return walker

    def run_plain(self) -> None:
        """What :meth:`run` does for a :meth:`plain` script, whose words are decoded already:
        each command is added and unwrapped in order as :meth:`simple` does, then the alias
        check. ``tests/test_parser_plain.py`` checks that both paths give the same script."""
        self.seen.update(self.pp.words)
        for words, via in self._plain:
            idx = self.add(Command(words, (words[0].span[0], words[-1].span[1]), via))
            self.unwrap(idx)
        self.check_aliases()

    # ------------------------------------------------------------------ regions
    def run(self) -> None:
        self.region(0, len(self.src), (), None)
        lexed = set(self.pp.words)
        if self.seen != lexed:
            odd = sorted(self.seen ^ lexed)[0]
            raise Unsupported("internal: the lexer and bashlex disagree on the word at "
                              f"{odd[0]}-{odd[1]}", odd)
        missed = [o for o in self.pp.opaques.values()
                  if o.kind != "extglob" and o.span[0] not in self.visited]
        if missed:
            raise Unsupported(f"internal: {missed[0].kind} at {missed[0].span[0]} not reached",
                              missed[0].span)
        self.check_aliases()

    def check_aliases(self) -> None:
        """bash reads (and alias-expands) a script a line at a time: an alias defined on one
        line may turn a later line's command into something else. Refuse that."""
        for c in self.commands:
            if c.name == "alias" and any("=" in w.text or not w.static for w in c.args):
                nl = self.src.find("\n", c.span[1])
                if nl >= 0 and any(d.span[0] > nl for d in self.commands):
                    raise Unsupported("an alias is defined before later lines: their commands "
                                      "may be aliases", c.span)

    def region(self, start: int, end: int, via: tuple[Via, ...], parent: int | None) -> None:
        text = self.pp.text(start, end)
        if not text.strip(" \t\n"):  # bash blanks only: a lone \v or \f is a word
            return
        nodes = _fast.nodes(text) if FAST else None
        if nodes is not None:
            for node in nodes:
                self.node(node, start, via, parent, False)
            return
        bashlex = _bashlex()
        try:
            nodes = bashlex.parse(text)
        except bashlex.errors.ParsingError as exc:
            pos = getattr(exc, "position", None)
            span = (start + pos, start + pos + 1) if isinstance(pos, int) else None
            raise Unsupported(f"syntax error: {exc.message}", span) from None
        except NotImplementedError as exc:
            raise Unsupported(f"unsupported construct: {exc}", (start, end)) from None
        for node in nodes:
            self.node(node, start, via, parent, False)

    def node(self, n, off: int, via: tuple[Via, ...], parent: int | None, bg: bool) -> None:
        kind = n.kind
        start = n.pos[0] + off
        if start in self.pp.coproc and kind in ("command", "compound"):
            via = (*via, Via.COPROC)
        if kind == "list":
            parts = n.parts
            for k, p in enumerate(parts):
                if p.kind in ("operator", "reservedword", "pipe"):
                    continue
                self.node(p, off, via, parent, bg or _backgrounded(parts, k))
        elif kind == "pipeline":
            stages = [p for p in n.parts if p.kind not in ("pipe", "reservedword")]
            sub = (*via, Via.PIPELINE) if len(stages) > 1 else via
            for p in stages:
                self.node(p, off, sub, parent, bg)
        elif kind == "command":
            self.simple(n, off, via, parent, bg)
        elif kind == "compound":
            self.compound(n, off, via, parent, bg)
        elif kind in ("if", "while", "until", "for"):
            self.clause(n, off, via, parent, bg)
        elif kind == "function":
            self.function(n, off, via, parent, bg)
        elif kind in ("operator", "reservedword", "pipe"):
            return
        else:
            raise Unsupported(f"unsupported construct: {kind}", (start, n.pos[1] + off))

    def compound(self, n, off: int, via: tuple[Via, ...], parent: int | None, bg: bool) -> None:
        first = len(self.commands)
        head = n.list[0] if n.list else None
        sub = via
        if head is not None and head.kind == "reservedword":
            sub = (*via, Via.SUBSHELL if head.word == "(" else Via.GROUP)
        for p in n.list:
            if p.kind != "reservedword":
                self.node(p, off, sub, parent, bg)
        self.attach_redirects(first, getattr(n, "redirects", []) or [], off, via, parent)

    def attach_redirects(self, first: int, rnodes: list, off: int, via: tuple[Via, ...],
                         parent: int | None) -> None:
        """Redirects of a compound command apply to every command inside it."""
        if not rnodes:
            return
        built = [self.redirect(r, off) for r in rnodes]
        redirects = tuple(r for r, _, _ in built)
        last = len(self.commands)
        if last == first:  # nothing inside runs (`case x in esac > f`): bash still opens f
            self.commands.append(Command(words=(), span=(redirects[0].span[0], redirects[-1].span[1]),
                                         via=via, redirects=redirects, parent=parent))
        for k in range(first, last):
            c = self.commands[k]
            self.commands[k] = replace(c, redirects=c.redirects + redirects)
        for _, subs, extra in built:
            for op in subs:
                self.sub(op, (*via, extra), parent)

    def clause(self, n, off: int, via: tuple[Via, ...], parent: int | None, bg: bool) -> None:
        sub = (*via, Via.CONDITION if n.kind == "if" else Via.LOOP)
        if n.kind == "for":
            self.for_header(n, off, sub, parent)
        for p in n.parts:
            if p.kind == "reservedword" and p.word == "in":  # the lexer read it as a word
                self.seen.add((p.pos[0] + off, p.pos[1] + off))
            if p.kind in ("reservedword", "word", "operator"):
                continue
            self.node(p, off, sub, parent, bg)

    def for_header(self, n, off: int, via: tuple[Via, ...], parent: int | None) -> None:
        words = [p for p in n.parts if p.kind == "word"]
        if not words:
            raise Unsupported("for loop without a name", (n.pos[0] + off, n.pos[1] + off))
        name = words[0]
        s, e = name.pos[0] + off, name.pos[1] + off
        op = self.pp.opaques.get(s)
        if op is not None and op.kind == "forarith" and op.span[0] == s:
            self.arith_command(op, via, parent, False)
        else:
            self.loop_names.append(self.word(s, e)[0])
        for w in words[1:]:
            word, subs = self.word(w.pos[0] + off, w.pos[1] + off)
            self.loose_words.append(word)
            for o in subs:
                self.sub(o, via, parent)

    def function(self, n, off: int, via: tuple[Via, ...], parent: int | None, bg: bool) -> None:
        name_node = next(p for p in n.parts if p.kind == "word")
        s, e = name_node.pos[0] + off, name_node.pos[1] + off
        word, subs = self.word(s, e)
        if subs or not word.static:
            raise Unsupported("function name with an expansion", (s, e))
        idx = self.add(Command(words=(word,), span=(n.pos[0] + off, n.pos[1] + off),
                               via=_top(via), kind=CommandKind.FUNCDEF, parent=parent,
                               background=bg))
        self.functions.append(word.text)
        body = [p for p in n.parts if p.kind not in ("word", "reservedword")]
        for p in body:
            self.node(p, off, (*via, Via.FUNCTION), idx, False)

    # ----------------------------------------------------------- simple commands
    def simple(self, n, off: int, via: tuple[Via, ...], parent: int | None, bg: bool) -> None:
        parts = list(n.parts)
        span = (n.pos[0] + off, n.pos[1] + off)
        special = None
        for k, p in enumerate(parts):
            if p.kind in ("word", "assignment"):
                op = self.pp.opaques.get(p.pos[0] + off)
                if op is not None and op.kind in _SPECIAL_WORD \
                        and op.span == (p.pos[0] + off, p.pos[1] + off):
                    if k != 0 or any(q.kind in ("word", "assignment") for q in parts[1:]):
                        raise Unsupported(f"unexpected word next to '{self.src[op.span[0]:op.span[0]+4]}…'",
                                          op.span)
                    special = op
                break
        if special is not None:
            self.special(special, parts[1:], off, via, parent, bg)
            return

        words: list[Word] = []
        assigns: list[Assignment] = []
        redirects: list[Redirect] = []
        pending: list[tuple[Opaque, tuple[Via, ...]]] = []
        for p in parts:
            s, e = p.pos[0] + off, p.pos[1] + off
            if p.kind == "redirect":
                r, subs, extra = self.redirect(p, off)
                redirects.append(r)
                if subs:
                    pending.extend((o, (extra,)) for o in subs)
            elif p.kind in ("word", "assignment"):
                m = None if words else _ASSIGN_RE.match(self.src[s:e])
                if m:
                    a, subs = self.assignment(s, e, m.end())
                    assigns.append(a)
                    if subs:
                        pending.extend((o, (Via.ASSIGNMENT,)) for o in subs)
                else:
                    if p.kind == "assignment" and not words:
                        raise Unsupported("ambiguous assignment word", (s, e))
                    w, subs = self.word(s, e)
                    words.append(w)
                    if subs:
                        pending.extend((o, ()) for o in subs)
            else:
                raise Unsupported(f"unsupported part of a command: {p.kind}", (s, e))
        if words and words[0].text in ("[[", "((", "case", "esac", "]]", "coproc", "select") \
                and words[0].static and not words[0].quoted:
            raise Unsupported(f"unexpected reserved word '{words[0].text}'", words[0].span)
        idx = self.add(Command(words=tuple(words), span=span, via=_top(via),
                               assignments=tuple(assigns), redirects=tuple(redirects),
                               parent=parent, background=bg))
        for op, extra in pending:
            self.sub(op, (*via, *extra), idx)
        self.unwrap(idx)

    def special(self, op: Opaque, rest: list, off: int, via: tuple[Via, ...],
                parent: int | None, bg: bool) -> None:
        """``[[ … ]]``, ``(( … ))`` or ``case … esac`` standing as a command."""
        self.visited.add(op.span[0])
        if op.kind == "case":
            first = len(self.commands)
            cvia = (*via, Via.CONDITION)
            spans = [op.subject] if op.subject else []
            for pats, _ in op.clauses:
                spans.extend(pats)
            for s, e in spans:
                word, subs = self.word(s, e)
                self.loose_words.append(word)
                for o in subs:
                    self.sub(o, cvia, parent)
            for _, (bs, be) in op.clauses:
                self.region(bs, be, cvia, parent)
            self.attach_redirects(first, [r for r in rest if r.kind == "redirect"], off, via,
                                  parent)
            return
        rnodes = [r for r in rest if r.kind == "redirect"]
        built = [self.redirect(r, off) for r in rnodes]
        redirects = tuple(r for r, _, _ in built)
        if op.kind == "arithcmd":
            idx = self.arith_command(op, via, parent, bg, redirects)
        else:
            idx = self.test_command(op, via, parent, bg, redirects)
        for _, subs, extra in built:
            for o in subs:
                self.sub(o, (*via, extra), idx)

    def arith_command(self, op: Opaque, via: tuple[Via, ...], parent: int | None, bg: bool,
                      redirects: tuple[Redirect, ...] = ()) -> int:
        self.visited.add(op.span[0])
        s, e = op.inner
        text = self.src[s:e]
        word = Word(text=text, raw=text, span=(s, e), static="$" not in text and "`" not in text,
                    glob=False, quoted=False)
        idx = self.add(Command(words=(word,), span=op.span, via=_top(via), kind=CommandKind.ARITH,
                               redirects=redirects, parent=parent, background=bg))
        for o in op.children:
            self.sub(o, (*via, Via.ARITH), idx)
        return idx

    def test_command(self, op: Opaque, via: tuple[Via, ...], parent: int | None, bg: bool,
                     redirects: tuple[Redirect, ...]) -> int:
        decoded = [self.word(s, e) for s, e in op.words]
        words = tuple(w for w, _ in decoded)
        for k, w in enumerate(words):
            if w.static and not w.quoted and w.text in _EVALUATING:
                before = words[k - 1] if k and w.text in _ARITH_CMP else None
                after = words[k + 1] if k + 1 < len(words) else None
                for nb in (before, after):
                    if nb is not None and nb.static and ("$(" in nb.text or "`" in nb.text):
                        raise Unsupported(f"[[ {w.text} ]] evaluates a subscript or arithmetic "
                                          "that holds a command substitution", nb.span)
        idx = self.add(Command(words=words, span=op.span, via=_top(via), kind=CommandKind.TEST,
                               redirects=redirects, parent=parent, background=bg))
        for _, subs in decoded:
            for o in subs:
                self.sub(o, (*via, Via.CONDITION), idx)
        return idx

    def word(self, s: int, e: int) -> tuple[Word, list[Opaque]]:
        self.seen.add((s, e))
        try:
            return decode_word(self.src, s, e, self.pp.opaques)
        except DecodeError as exc:
            raise Unsupported(str(exc), (s, e)) from None

    def assignment(self, s: int, e: int, head: int) -> tuple[Assignment, list[Opaque]]:
        self.seen.add((s, e))
        raw = self.src[s:e]
        name = raw[:head].rstrip("=").rstrip("+")
        subs = [o for o in self.pp._inside(s, s + head)]
        try:
            value, vsubs = decode_word(self.src, s + head, e, self.pp.opaques, assignment=True)
        except DecodeError as exc:
            raise Unsupported(str(exc), (s, e)) from None
        array = any(o.kind == "array" and o.span[0] == s + head for o in vsubs)
        return Assignment(name=name, value=value, span=(s, e), array=array), subs + vsubs

    def redirect(self, r, off: int) -> tuple[Redirect, list[Opaque], Via]:
        s, e = r.pos[0] + off, r.pos[1] + off
        m = _REDIR_RE.match(self.src, s)
        if not m:
            raise Unsupported("unrecognised redirection", (s, e))
        op = m.group(2)
        fd = int(m.group(1)) if m.group(1) else None
        out = r.output if hasattr(r, "output") else None
        if out is not None and hasattr(out, "pos"):
            ws, we = out.pos[0] + off, out.pos[1] + off
        else:
            ws = m.end()
            while ws < e and (self.src[ws] in " \t" or self.src.startswith("\\\n", ws)):
                ws += 1 if self.src[ws] != "\\" else 2  # a line continuation is blank too
            we = e
        if ws >= we:
            return Redirect(op=op, target=None, span=(s, e), fd=fd), [], Via.REDIRECT
        if op in ("<<", "<<-"):
            hd = self.pp.heredocs.get(we)
            if hd is None or not s <= hd.target[0] < we:
                raise Unsupported("here-document not recognised", (s, e))
            ws = hd.target[0]
            self.seen.add((ws, we))
            target = Word(text=hd.delim, raw=self.src[ws:we], span=(ws, we), static=True,
                          quoted=hd.quoted)
            body = self.src[hd.body[0]:hd.body[1]]
            if hd.strip_tabs:
                body = "".join(line.lstrip("\t") for line in body.splitlines(keepends=True))
            subs = [] if hd.quoted else sorted(self.pp._inside(*hd.body), key=lambda o: o.span)
            return (Redirect(op=op, target=target, span=(s, e), fd=fd, heredoc=body,
                             heredoc_quoted=hd.quoted), subs, Via.HEREDOC)
        if r.type in ("<", "<<", "<<-") and op != r.type and op not in ("<", "<<<"):
            raise Unsupported("redirection mismatch", (s, e))
        target, subs = self.word(ws, we)
        extra = Via.HERESTRING if op == "<<<" else Via.REDIRECT
        return Redirect(op=op, target=target, span=(s, e), fd=fd), subs, extra

    # ------------------------------------------------------------ substitutions
    def sub(self, op: Opaque, via: tuple[Via, ...], parent: int | None) -> None:
        self.visited.add(op.span[0])
        kind = op.kind
        if kind == "cmdsub":
            self.region(*op.inner, (*via, Via.CMDSUB), parent)
        elif kind == "procsub":
            self.region(*op.inner, (*via, Via.PROCSUB), parent)
        elif kind == "backtick":
            s, e = op.inner
            text = _unbacktick(self.src[s:e], op.dq)
            mapper = _offset(s) if text == self.src[s:e] else _const(op.span)
            self.nested(text, (*via, Via.CMDSUB), parent, mapper)
        elif kind in ("param", "arith", "extglob"):
            extra = {"param": (Via.PARAM,), "arith": (Via.ARITH,), "extglob": ()}[kind]
            for o in op.children:
                self.sub(o, (*via, *extra), parent)
        elif kind == "array":
            for s, e in op.words:
                _, subs = self.word(s, e)
                for o in subs:
                    self.sub(o, via, parent)
        else:
            raise Unsupported(f"unexpected {kind} inside a word", op.span)

    # ------------------------------------------------------------------ wrappers
    def unwrap(self, idx: int) -> None:
        cmd = self.commands[idx]
        if len(cmd.via) > 2 * _lex.MAX_DEPTH:  # each level copies the via chain: quadratic
            raise Unsupported("commands nested too deep (wrappers)", cmd.span)
        for inner in unwrap(cmd.words):
            via = (*_strip_top(cmd.via), inner.via)
            if inner.words:
                ws = inner.words
                new = self.add(Command(words=ws, span=(ws[0].span[0], ws[-1].span[1]), via=via,
                                       parent=idx, background=cmd.background))
                self.unwrap(new)
            elif inner.script and all(w.static for w in inner.script):
                text = " ".join(w.text for w in inner.script)
                first, last = inner.script[0], inner.script[-1]
                if inner.via is Via.ARITH:  # `let EXPR`: parse it as `((EXPR))`
                    if "$" in text or "`" in text:
                        self.nested(f"(( {text} ))", via, idx, _const(first.span))
                    continue
                if len(inner.script) == 1 and first.raw == first.text:
                    mapper = _offset(first.span[0])
                elif len(inner.script) == 1 and first.raw == f"'{first.text}'":
                    mapper = _offset(first.span[0] + 1)
                else:
                    mapper = _const((first.span[0], last.span[1]))
                self.nested(text, via, idx, mapper)

    def nested(self, text: str, via: tuple[Via, ...], parent: int | None,
               mapper: Callable[[Span], Span]) -> None:
        """Parse ``text`` (a backtick body, a ``bash -c`` script) and graft its commands."""
        if self.depth + 1 > MAX_SCRIPT_DEPTH:
            raise Unsupported("nested scripts too deep", mapper((0, len(text))))
        try:
            if "\\\n" in text:  # bash -c joins its script's line continuations too
                text, pp, removed = _lex.joined(text)
                outer, back = mapper, _lex.unjoin(removed)
                mapper = lambda s: outer(back(s))  # noqa: E731
            else:
                pp = _lex.prepass(text)
        except LexError as exc:
            raise Unsupported(f"in a nested script: {exc.reason}", mapper((0, len(text)))) from None
        inner = Walker(text, pp, self.depth + 1)
        try:
            inner.run()
        except Unsupported as exc:
            raise Unsupported(f"in a nested script: {exc.reason}", mapper((0, len(text)))) from None
        base = len(self.commands)
        for c in inner.commands:
            self.commands.append(_map_command(c, mapper, _strip_top(via), base, parent))
        self.functions.extend(inner.functions)
        self.loose_words.extend(_map_word(w, mapper) for w in inner.loose_words)
        self.loop_names.extend(_map_word(w, mapper) for w in inner.loop_names)

    def add(self, cmd: Command) -> int:
        self.commands.append(cmd)
        return len(self.commands) - 1


def _backgrounded(parts: list, k: int) -> bool:
    """Whether list element ``k`` runs in the background: the first operator after it that
    ends its and-or list (``;``, ``&``, newline) is ``&`` (``a && b &`` backgrounds both)."""
    for p in parts[k + 1:]:
        if p.kind == "operator" and p.op not in ("&&", "||"):
            return p.op == "&"
    return False


def _unbacktick(text: str, dq: bool) -> str:
    """Inside backticks a backslash quotes only ``$ ` \\`` (and ``"`` within double quotes)."""
    if "\\" not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    specials = '$`\\"' if dq else "$`\\"
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n and text[i + 1] in specials:
            out.append(text[i + 1])
            i += 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _offset(k: int) -> Callable[[Span], Span]:
    return lambda s: (s[0] + k, s[1] + k)


def _const(span: Span) -> Callable[[Span], Span]:
    return lambda s: span


def _map_word(w: Word, f: Callable[[Span], Span]) -> Word:
    return replace(w, span=f(w.span))


def _map_command(c: Command, f: Callable[[Span], Span], prefix: tuple[Via, ...], base: int,
                 parent: int | None) -> Command:
    return replace(
        respan(c, f),
        via=_top((*prefix, *_strip_top(c.via))),
        parent=parent if c.parent is None else c.parent + base,
    )


def respan(c: Command, f: Callable[[Span], Span]) -> Command:
    """``c`` with every span mapped by ``f``."""
    return replace(
        c,
        words=tuple(_map_word(w, f) for w in c.words),
        span=f(c.span),
        assignments=tuple(replace(a, value=_map_word(a.value, f), span=f(a.span))
                          for a in c.assignments),
        redirects=tuple(replace(r, span=f(r.span),
                                target=_map_word(r.target, f) if r.target else None)
                        for r in c.redirects),
    )
