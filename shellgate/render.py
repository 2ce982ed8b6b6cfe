"""Human output for ``check`` and ``explain``: decisions in colour, spans underlined.

rich honours ``NO_COLOR`` and plain pipes by itself; nothing here runs on the hook path.
"""

from __future__ import annotations

from typing import IO

from rich.console import Console
from rich.text import Text

from ._visible import visible
from .bash.facts import Reason
from .check import Verdict

_STYLE = {"allow": "bold green", "ask": "bold yellow", "deny": "bold red"}


def underline(source: str, span: tuple[int, int] | None, indent: int = 4) -> list[str]:
    """The source line holding ``span`` and a caret line under the span (multi-line aware)."""
    if span is None or not source:
        return []
    start, end = max(0, min(span[0], len(source))), max(0, min(span[1], len(source)))
    line_start = source.rfind("\n", 0, start) + 1
    line_end = source.find("\n", start)
    line_end = len(source) if line_end == -1 else line_end
    line = source[line_start:line_end]
    # measured on the escaped text, which is what is printed (an ESC is four columns: \x1b)
    offset = len(visible(line[:start - line_start]))
    width = max(1, len(visible(source[start:min(end, line_end)])))
    pad = " " * indent
    return [pad + visible(line), pad + " " * offset + "^" * width]


def _reason_lines(console: Console, source: str, label: str, style: str,
                  reasons: tuple[Reason, ...] | list[Reason]) -> None:
    for r in reasons:
        console.print(Text.assemble(("  " + label + " ", style), visible(r.message),
                                    (f"  [{r.rule}]", "dim")))
        for line in underline(source, r.span):
            console.print(Text(line, style="dim" if "^" not in line else style))


def print_verdict(verdict: Verdict, file: IO[str] | None = None) -> None:
    console = Console(file=file, highlight=False, soft_wrap=True)
    a = verdict.analysis
    src = verdict.command
    console.print(Text.assemble((f"{verdict.decision:<5}", _STYLE.get(verdict.decision, "bold")),
                                "  ", visible(src.split("\n", 1)[0]),
                                (" …" if "\n" in src else "", "dim")))
    console.print(Text(f"  capability: {verdict.capability}   read-only: "
                       f"{'yes' if a.readonly else 'no'}   decided by: {verdict.rule}", style="dim"))
    if verdict.reason:
        console.print(Text("  " + visible(verdict.reason)))
    if a.script.error is not None:
        _reason_lines(console, src, "parse:", "red",
                      [Reason(a.script.error.reason, a.script.error.span, "parse.error")])
    _reason_lines(console, src, "why:", "yellow", a.reasons)
    for h in a.sensitive:
        console.print(Text.assemble(("  secret: ", "red"),
                                    visible(f"{h.op} of {h.path} ({h.cls} class, matches "
                                            f"{h.pattern})")))
        for line in underline(src, h.span):
            console.print(Text(line, style="red" if "^" in line else "dim"))
    _reason_lines(console, src, "warning:", "magenta", a.warnings)
    rules = verdict.covering_rules()
    if rules:
        console.print(Text.assemble(("  to allow it: ", "green"), visible(
            f"add {', '.join(repr(r) for r in rules)} to [permissions] allow in "
            "~/.config/shellgate/config.toml, or store it with `shellgate approvals add` "
            "(what answering \"always\" does)")))


def print_explain(verdict: Verdict, file: IO[str] | None = None) -> None:
    """``shellgate explain``: the verdict, then every executed command with how it is reached,
    its words (static or not) and its redirects, each underlined in the source."""
    console = Console(file=file, highlight=False, soft_wrap=True)
    print_verdict(verdict, file=file)
    script = verdict.analysis.script
    src = verdict.command
    console.print(Text(f"\n  {len(script.commands)} command(s) bash would run:", style="bold"))
    for i, cmd in enumerate(script.commands):
        via = " > ".join(str(v) for v in cmd.via)
        parent = f" (from #{cmd.parent})" if cmd.parent is not None else ""
        console.print(Text.assemble((f"  #{i} ", "bold"), (visible(cmd.name or "<dynamic>"), "cyan"),
                                    (f"  [{cmd.kind}] via {via}{parent}", "dim")))
        for line in underline(src, cmd.span, indent=6):
            console.print(Text(line, style="cyan" if "^" in line else "dim"))
        for w in cmd.words[1:]:
            flags = [n for n, on in (("dynamic", not w.static), ("glob", w.glob),
                                     ("quoted", w.quoted)) if on]
            console.print(Text(visible(f"      arg {w.text!r}") + (f"  ({', '.join(flags)})"
                                                               if flags else ""), style="dim"))
        for a in cmd.assignments:
            console.print(Text(visible(f"      assign {a.name}={a.value.text!r}"), style="dim"))
        for r in cmd.redirects:
            tgt = "" if r.target is None else r.target.text
            body = " (here-doc, inert)" if r.heredoc_quoted else (" (here-doc)" if r.heredoc else "")
            console.print(Text(visible(f"      redirect {'' if r.fd is None else r.fd}{r.op} "
                                       f"{tgt!r}{body}"), style="dim"))
