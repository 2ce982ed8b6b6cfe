"""Approvers: the callbacks that put a :class:`Prompt` to a person (or a test).

``console_approver()`` asks on the controlling terminal; ``scripted()`` answers from a list
and keeps every prompt it was shown (tests, demos). Both return a :class:`DecisionKind`.
Destructive-command warnings are shown on every prompt: they are the cognitive checkpoint
before "yes", in every mode.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import IO, Any

from ..permission import DecisionKind, Prompt

_KEYS: dict[DecisionKind, tuple[str, str]] = {
    DecisionKind.ALLOW_ONCE: ("y", "yes, once"),
    DecisionKind.ALLOW_SESSION: ("s", "yes, for this session"),
    DecisionKind.ALLOW_ALWAYS: ("a", "yes, always"),
    DecisionKind.DENY: ("n", "no"),
}


def render_prompt(prompt: Prompt, *, preview_lines: int = 40) -> str:
    """The prompt as plain text (the CLI may render it richer)."""
    lines = [f"{prompt.tool or 'tool'} wants to run: {prompt.summary}"]
    if prompt.reason:
        lines.append(f"  why asked: {prompt.reason}")
    for w in prompt.warnings:
        lines.append(f"  WARNING: {w}")
    if prompt.preview:
        body = prompt.preview.splitlines()
        lines.append("  preview:")
        lines += [f"    {x}" for x in body[:preview_lines]]
        if len(body) > preview_lines:
            lines.append(f"    … {len(body) - preview_lines} more lines")
    if prompt.remember:
        lines.append(f"  'always' remembers: {', '.join(prompt.remember)}")
        lines.append("    (exactly these words; a final * stands for any further words)")
    lines.append("  " + "  ".join(f"[{_KEYS[c][0]}] {_KEYS[c][1]}" for c in prompt.choices
                                  if c in _KEYS))
    return "\n".join(lines)


def parse_answer(text: str, choices: Iterable[DecisionKind]) -> DecisionKind | None:
    t = text.strip().lower()
    for kind in choices:
        key, label = _KEYS.get(kind, ("", ""))
        if t in (key, label, str(kind)):
            return kind
    return None


def console_approver(stdin: IO[str] | None = None, stdout: IO[str] | None = None,
                     ) -> Callable[[Prompt], DecisionKind]:
    """Ask on ``/dev/tty`` (or the given streams). No terminal, EOF or an unknown answer
    three times -> deny."""

    def approve(prompt: Prompt) -> DecisionKind:
        fin, fout, opened = stdin, stdout, None
        try:
            if fin is None or fout is None:
                opened = open(os.ctermid(), "r+", encoding="utf-8")  # noqa: SIM115
                fin, fout = fin or opened, fout or opened
            fout.write(render_prompt(prompt) + "\n")
            for _ in range(3):
                fout.write("> ")
                fout.flush()
                line = fin.readline()
                if not line:
                    return DecisionKind.DENY
                got = parse_answer(line, prompt.choices)
                if got is not None:
                    return got
            return DecisionKind.DENY
        except OSError:
            return DecisionKind.DENY
        finally:
            if opened is not None:
                opened.close()

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
