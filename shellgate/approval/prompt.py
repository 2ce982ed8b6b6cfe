"""Approvers: the callbacks that put a :class:`Prompt` to a person (or a test).

``console_approver()`` asks on the controlling terminal; ``scripted()`` answers from a list
and keeps every prompt it was shown (tests, demos). Both return a :class:`DecisionKind`.
Destructive-command warnings are shown on every prompt: they are the cognitive checkpoint
before "yes", in every mode.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import IO, Any

from .._visible import visible
from ..permission import DecisionKind, Prompt

_KEYS: dict[DecisionKind, tuple[str, str]] = {
    DecisionKind.ALLOW_ONCE: ("y", "allow once"),
    DecisionKind.ALLOW_SESSION: ("s", "allow for this session"),
    DecisionKind.ALLOW_ALWAYS: ("a", "always allow"),
    DecisionKind.DENY: ("n", "deny"),
}


def offered(prompt: Prompt, *, session: bool = True) -> tuple[DecisionKind, ...]:
    """The answers put to the person: the prompt's choices, without "for this session" where
    a session is one command (``shellgate run``)."""
    return tuple(c for c in prompt.choices if c in _KEYS
                 and (session or c is not DecisionKind.ALLOW_SESSION))


def render_prompt(prompt: Prompt, *, preview_lines: int = 40, session: bool = True) -> str:
    """The prompt as plain text (the CLI may render it richer). Every text from the call is
    passed through :func:`visible`: a control sequence in a command cannot redraw the prompt.
    A command is shown whole, line by line (``Prompt.command``), never as its summary."""
    if prompt.command is None:
        lines = [f"{visible(prompt.tool or 'tool')} wants to run: {visible(prompt.summary)}"]
    else:  # every line of it, uncut: a digest could read as another command than what runs
        lines = [f"{visible(prompt.tool or 'tool')} wants to run:"]
        lines += [f"    {x}" for x in visible(prompt.command, multiline=True).split("\n")]
    if prompt.reason:
        lines.append(f"  why asked: {visible(prompt.reason)}")
    for w in prompt.warnings:
        lines.append(f"  WARNING: {visible(w)}")
    if prompt.preview:
        body = visible(prompt.preview, multiline=True).splitlines()
        lines.append("  preview:")
        lines += [f"    {x}" for x in body[:preview_lines]]
        if len(body) > preview_lines:
            lines.append(f"    … {len(body) - preview_lines} more lines")
    choices = offered(prompt, session=session)
    if prompt.remember and DecisionKind.ALLOW_ALWAYS in choices:
        lines.append(f"  'always' remembers: {visible(', '.join(prompt.remember))}")
        lines.append("    (exactly these words; a final * stands for any further words)")
    lines.append("  " + "  ".join(f"[{_KEYS[c][0]}] {_KEYS[c][1]}" for c in choices))
    return "\n".join(lines)


def parse_answer(text: str, choices: Iterable[DecisionKind]) -> DecisionKind | None:
    """The answer ``text`` names among ``choices`` (its key, its label or its kind), or None."""
    t = text.strip().lower()
    for kind in choices:
        key, label = _KEYS.get(kind, ("", ""))
        if t in (key, label, str(kind)):
            return kind
    return None


@contextmanager
def open_terminal() -> Iterator[tuple[IO[str], IO[str]]]:
    """The controlling terminal as a reader and a writer; ``OSError`` when there is none.

    Two handles, not one ``"r+"``: a text-mode ``r+`` open builds a random-access buffer,
    which wants a seekable file, and on a tty raises ``io.UnsupportedOperation``."""
    path = os.ctermid()
    with open(path, encoding="utf-8", errors="replace") as fin, \
            open(path, "w", encoding="utf-8", errors="replace") as fout:
        yield fin, fout


def has_terminal() -> bool:
    """Whether a prompt could be put on the controlling terminal (no: CI, pipes, hooks)."""
    try:
        with open_terminal():
            return True
    except OSError:
        return False


def _ask(prompt: Prompt, fin: IO[str], fout: IO[str], session: bool) -> DecisionKind:
    choices = offered(prompt, session=session)
    fout.write(render_prompt(prompt, session=session) + "\n")
    for _ in range(3):
        fout.write("> ")
        fout.flush()
        line = fin.readline()
        if not line:
            return DecisionKind.DENY
        got = parse_answer(line, choices)
        if got is not None:
            return got
        keys = "/".join(_KEYS[c][0] for c in choices)
        fout.write(f"  answer {keys}\n")
    return DecisionKind.DENY


def console_approver(stdin: IO[str] | None = None, stdout: IO[str] | None = None, *,
                     session: bool = True) -> Callable[[Prompt], DecisionKind]:
    """Ask on the controlling terminal (or the given streams). No terminal, EOF or an unknown
    answer three times -> deny. ``session=False`` leaves out "allow for this session" (one
    command per process: ``shellgate run``)."""

    def approve(prompt: Prompt) -> DecisionKind:
        try:
            if stdin is not None and stdout is not None:
                return _ask(prompt, stdin, stdout, session)
            with open_terminal() as (fin, fout):
                return _ask(prompt, stdin or fin, stdout or fout, session)
        except OSError:
            return DecisionKind.DENY

    return approve


class scripted:  # noqa: N801 - used like a function: scripted("allow_once", "deny")
    """An approver answering from a list (the last answer repeats); ``prompts`` keeps every
    prompt shown."""

    def __init__(self, *answers: DecisionKind | str | Callable[[Prompt], Any]) -> None:
        self.answers = list(answers) or [DecisionKind.DENY]
        self.prompts: list[Prompt] = []

    def __call__(self, prompt: Prompt) -> DecisionKind:
        self.prompts.append(prompt)
        i = min(len(self.prompts) - 1, len(self.answers) - 1)
        answer = self.answers[i]
        if callable(answer):
            answer = answer(prompt)
        return DecisionKind(answer)
