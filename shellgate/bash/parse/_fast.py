"""A fast path around bashlex for the common shape of command: simple commands joined by
``|``, ``|&``, ``&&``, ``||``, ``;``, ``&`` and newlines, with redirections.

It works on the *masked* text of a region (``_lex.Prepass.text``), where quotes, escapes,
substitutions, here-doc bodies and comments are already gone, so a word is just a run of
non-separator characters. It returns node objects shaped like the bashlex nodes the walker
reads (kind, pos, parts, op, type, output) — or None, and the caller uses bashlex, as soon as
it sees anything else: a reserved word, a parenthesis, ``;;``, a redirection without a
target, an operator where a command should be. ``tests/test_parser_fast.py`` checks on the
corpus that both paths give identical scripts.
"""

from __future__ import annotations

import re

from ..._lazyre import lazy_compile

_TOKEN = re.compile(r"""
    (?P<ws>[ \t]+)
  | (?P<nl>\n)
  | (?P<bad>[()]|<<(?!<))
  | (?P<close>\d*[<>]&[ \t]*-)
  | (?P<redir>\d*(?:<<<|<&|<>|>>|>&|>\||<|>)|&>>|&>)
  | (?P<op>&&|\|\||\|&|;;|;&|[;&|])
  | (?P<word>[^ \t\n;&|<>()]+)
""", re.X)
_RESERVED = frozenset({
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until",
    "do", "done", "in", "function", "time", "coproc", "{", "}", "!", "[[", "]]",
})
_ASSIGN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_FD = lazy_compile(r"\d+")


class Node:
    """Just the attributes of a bashlex node that the walker reads."""

    __slots__ = ("kind", "pos", "parts", "op", "type", "output", "input", "word")

    def __init__(self, kind: str, pos: tuple[int, int], parts: list[Node] | None = None,
                 op: str | None = None, type: str | None = None,  # noqa: A002 - bashlex's names
                 output: Node | None = None, input: int | None = None) -> None:  # noqa: A002
        self.kind = kind
        self.pos = pos
        self.parts = [] if parts is None else parts
        self.op = op
        self.type = type
        self.output = output
        self.input = input
        self.word = None


def _close_command(parts: list[Node]) -> Node:
    return Node("command", (parts[0].pos[0], parts[-1].pos[1]), parts=parts)


def nodes(text: str) -> list[Node] | None:
    """Nodes for ``text``, or None when bashlex must parse it."""
    toks = [(g, m.start(), m.end()) for m in _TOKEN.finditer(text) if (g := m.lastgroup) != "ws"]
    out: list[Node] = []
    items: list[Node] = []      # the current list: pipelines/commands and operators
    stages: list[Node] = []     # the current pipeline: commands and pipes
    parts: list[Node] = []      # the current simple command
    words = 0
    after: str | None = None    # last operator read ("&&", "|", …) or None
    k, n = 0, len(toks)

    def end_command() -> bool:
        nonlocal parts, words
        if not parts:
            return False
        stages.append(_close_command(parts))
        parts, words = [], 0
        return True

    def end_pipeline() -> bool:
        nonlocal stages
        if not stages:
            return False
        cmds = [s for s in stages if s.kind == "command"]
        node = stages[0] if len(stages) == 1 else \
            Node("pipeline", (stages[0].pos[0], stages[-1].pos[1]), parts=stages)
        if len(cmds) != (len(stages) + 1) // 2:
            return False
        items.append(node)
        stages = []
        return True

    def end_list() -> None:
        nonlocal items
        if items:
            out.append(items[0] if len(items) == 1 else
                       Node("list", (items[0].pos[0], items[-1].pos[1]), parts=items))
        items = []

    while k < n:
        kind, s, e = toks[k]
        k += 1
        if kind == "nl":
            if after in ("&&", "||", "|", "|&"):
                continue
            if parts and not end_command():
                return None
            if stages and not end_pipeline():
                return None
            end_list()
            after = None
            continue
        if kind == "bad":
            return None
        if kind == "word":
            w = text[s:e]
            if w in _RESERVED:
                return None
            node = Node("assignment" if not words and _ASSIGN.match(w) else "word", (s, e))
            if node.kind == "word":
                words += 1
            parts.append(node)
            after = None
            continue
        if kind in ("redir", "close"):
            m = _FD.match(text, s)
            op = text[m.end():e] if m else text[s:e]
            if kind == "close":  # `2>&-`: bash reads the `-` as a token of its own, so a
                op, ws, we = op[:2], e - 1, e  # word right after it (`2>&-x`) is the next word
            elif k >= n or toks[k][0] != "word":
                return None
            else:
                _, ws, we = toks[k]
                k += 1
            target = Node("word", (ws, we))
            parts.append(Node("redirect", (s, we), type=op, output=target,
                              input=int(text[s:m.end()]) if m else None))
            after = None
            continue
        # an operator
        op = text[s:e]
        if op in (";;", ";&") or not parts:
            return None
        end_command()
        if op in ("|", "|&"):
            stages.append(Node("pipe", (s, e), op=op))
        else:
            if not end_pipeline():
                return None
            items.append(Node("operator", (s, e), op=op))
        after = op
    if after in ("&&", "||", "|", "|&"):
        return None
    if parts:
        end_command()
    if stages and not end_pipeline():
        return None
    end_list()
    return out
