"""Red-team findings against the bash core (parser, expansion scanner, zsh reading), each shown
with the real shell.

``corpus/red3_parse.jsonl``: every line is decided in a scratch git workspace with an empty HOME
(``test_verdict``), and run by its real shell, ``bash -c`` or ``zsh -f -c``, in the same kind of
tree (``test_real_shell``): a line marked ``effect`` creates ``./pwned`` — the oracle shows that
the reading the line was once allowed under was wrong — and a read-only line runs under
``strace -f`` with no effect (``test_readers_strace._effects``). The three findings:

* a here-document delimiter spelled with ``$'…'``: bash decodes it before the body is read, so
  ``<<$'E\\x4fF'`` ends at a line ``EOF`` (``_lex._quote_remove``);
* a single quote inside ``$(( … ))``: the expansion scanner took the text for a command
  substitution while bash (and the lexer) read arithmetic, and evaluated ``_``
  (``expansions._Scan.arith_close``);
* zsh evaluates the arguments of ``exit``, ``return``, ``break``, ``continue``, ``shift``,
  ``printf``'s numeric conversions and ``-t`` as arithmetic, running ``$(…)`` in a subscript
  (``readonly/zsh.math_operands``).

The lexer and the expansion scanner must also agree on every ``$((`` (``test_scanner_reads_
arithmetic_as_the_lexer``). Skipped, with the reason, where strace or a shell is missing.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import load
from hypothesis import given
from hypothesis import strategies as st
from test_readers_strace import EFFECT_SYSCALLS, STRACE, _effects

from shellgate.bash.analysis import analyse
from shellgate.bash.commands import expansions
from shellgate.bash.facts import Context
from shellgate.bash.parse import _lex

CASES = load("red3_parse.jsonl")
_ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
_EXECVE = re.compile(r' execve\("[^"]*/([^"/]+)", .* = 0$')


def _ids(case: dict) -> str:
    return f"{case['shell']}:{case['cmd'][:60]!r}"


def _tree(base: Path) -> tuple[Path, Path]:
    ws, home = base / "ws", base / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("CANARY-ssh-key\n")
    ws.mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True, env={**_ENV, "HOME": str(home)})
    return ws, home


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_verdict(case: dict, tmp_path: Path) -> None:
    ws, home = _tree(tmp_path)
    a = analyse(case["cmd"], Context(cwd=ws, workspace=ws, home=home, terminal=False))
    assert a.readonly == case["readonly"], [r.message for r in a.reasons]
    if not case["readonly"]:
        spans = [case["cmd"][r.span[0]:r.span[1]] for r in a.reasons if r.span is not None]
        assert any(case["word"] in s for s in spans), ([r.message for r in a.reasons], spans)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_real_shell(case: dict, tmp_path: Path) -> None:
    """The oracle: what the real shell does with the line."""
    shell = shutil.which(case["shell"])
    if shell is None:
        pytest.skip(f"{case['shell']} is not installed")
    if STRACE is None:
        pytest.skip("strace is not installed")
    ws, home = _tree(tmp_path)
    argv = [shell, "-f", "-c", case["cmd"]] if case["shell"] == "zsh" else [shell, "-c", case["cmd"]]
    trace = tmp_path / "trace"
    subprocess.run([STRACE, "-f", "-qq", "-o", str(trace), "-e", EFFECT_SYSCALLS, *argv], cwd=ws,
                   env={**_ENV, "HOME": str(home)}, capture_output=True, timeout=30,
                   stdin=subprocess.DEVNULL)
    assert (ws / "pwned").exists() == bool(case.get("effect")), case["why"]
    if case["readonly"]:   # it runs only the programs the analysis listed, and changes nothing
        listed = {c.name for c in analyse(case["cmd"], Context(cwd=ws, workspace=ws, home=home,
                                                               terminal=False)).script.commands}
        lines = trace.read_text().splitlines()[1:]   # the first is strace's own exec of the shell
        found = [ln for ln in _effects("\n".join(lines), Path(shell).name)
                 if not ((m := _EXECVE.search(ln)) and m.group(1) in listed)]
        assert found == []


# --- the lexer and the expansion scanner read `$((` alike ------------------------------------------

_PIECES = ["'", "'", '"', "_", "1", " ", "+", "(", ")", "$((", "$(", "`", "\\", "${x}", "$'a'", "a"]


def _lexer_arith(word: str) -> str | None:
    """The body of the ``$((…))`` the lexer reads at the start of ``echo WORD``, or None when it
    reads no arithmetic there (or cannot lex the line)."""
    try:
        pp = _lex.prepass(f"echo {word}")
    except _lex.LexError:
        return None
    op = pp.opaques.get(5)
    if op is None or op.kind != "arith":
        return None
    return pp.src[op.inner[0]:op.inner[1]]


@given(st.lists(st.sampled_from(_PIECES), max_size=10))
def test_scanner_reads_arithmetic_as_the_lexer(pieces: list[str]) -> None:
    """Arithmetic the lexer reads with a name or a quote in it is never inert to the scanner."""
    word = "$((" + "".join(pieces) + "))"
    body = _lexer_arith(word)
    if body is None or expansions.arith_problem(body) is None:
        return
    op = _lex.prepass(f"echo {word}").opaques[5]
    assert expansions.problems(word[:op.span[1] - 5]), (word, body)
