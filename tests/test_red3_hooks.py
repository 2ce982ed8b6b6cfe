"""Red team 3 (hooks, approvals, the approval prompt): the findings shown with the real programs.

The prompt of ``shellgate run``: corpus/red3_hooks.jsonl's commands are put to a person on a
real pseudo-terminal (``python -m shellgate run -- CMD`` as the session leader of a new pty,
the helper of tests/test_approval_tty.py), answered ``y``, and run for real in the sandbox.
The prompt used to show a one-line summary of the command — whitespace folded into single
spaces and cut at 200 characters — so ``echo building docs`` NEWLINE ``touch made.txt`` read
as one ``echo`` and a long first line hid everything after it, while the whole command ran.
Each line of the command must now be on the prompt as a line of its own (control characters
escaped), and the file the command makes must exist afterwards: what was shown is what ran.
"""

from __future__ import annotations

import pytest
from conftest import load
from test_approval_tty import drive, place  # noqa: F401 - place is a fixture used below

from shellgate.sandbox.probe import Tier, probe

CASES = load("red3_hooks.jsonl")


def _prompt_lines(out: str) -> list[str]:
    """The lines the terminal showed before the first ``> `` (the prompt), unindented."""
    shown = out.replace("\r\n", "\n").split("\n> ", 1)[0]
    return [line.strip(" ") for line in shown.split("\n")]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_the_prompt_shows_every_line_that_runs(place, case):  # noqa: F811 - the fixture
    if probe().tier is Tier.NONE:
        pytest.skip("no sandbox tier here: shellgate run would not run the command")
    ws, env = place
    out, code = drive(["run", "--", case["cmd"]], ["y"], ws, env)
    lines = _prompt_lines(out)
    for want in case["shown"]:
        assert want in lines, (want, out)
    assert not any(line.startswith("bash: ") for line in lines), out   # no folded summary
    assert code == 0 and (ws / case["made"]).exists(), out
