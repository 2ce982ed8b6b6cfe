"""journalctl's ``-b`` and ``-n`` take an optional value that may be the next word: journalctl
tries that word as a boot descriptor or a count and leaves it in place when that fails. The
reader's ``peek`` patterns must take a word only where real journalctl does (the word is then
a value, not an option or a match the tables check), so each word below is run through the
installed journalctl as the oracle."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from shellgate.bash.commands.info import JOURNALCTL
from shellgate.bash.commands.spec import read_args
from shellgate.bash.ir import Word

HEX = "0123456789abcdef0123456789abcdef"
WORDS = {  # option -> words after it, taken or not (the reader decides; journalctl judges)
    "-b": ["-1", "+2", "0", "-0", "7", "all", HEX, f"{HEX}-1", HEX.upper(), "foo", "1x", "+-1",
           "ALL", "-x", "_PID=1", "--vacuum-size=1"],
    "--boot": ["-1", "all", "foo"],
    "-n": ["5", "+5", "05", "all", "-5", "foo", "five", "--rotate"],
    "--lines": ["20", "all", "x"],
}


def _word(text: str) -> Word:
    return Word(text=text, raw=text, span=(0, len(text)), static=True)


def _taken(option: str, word: str) -> bool:
    """Whether the reader reads ``word`` as the value of ``option``."""
    p = read_args(JOURNALCTL, [_word("--no-pager"), _word(option), _word(word)])
    return [w.text for w in p.values_of(option)] == [word]


def _journalctl_takes(option: str, word: str) -> bool:
    """Whether real journalctl took ``word`` as the value: a word left in place is an option
    (``invalid option``, or a switch it then acts on) or a match (``Failed to add match``)."""
    run = subprocess.run(["journalctl", "--no-pager", "--quiet", option, word, "--no-pager"],
                         capture_output=True, text=True, timeout=30,
                         env={"PATH": "/usr/bin:/bin", "LC_ALL": "C", "SYSTEMD_PAGER": "cat"})
    out = run.stdout + run.stderr
    if word.startswith("-") and not word[1:].isdigit():
        return False  # a flag-like word that is no number: journalctl reads it as an option
    return "invalid option" not in out and "Failed to add match" not in out \
        and "unrecognized option" not in out


CASES = [(o, w) for o, ws in WORDS.items() for w in ws]


@pytest.mark.parametrize(("option", "word"), CASES)
def test_reader_takes_a_word_only_where_journalctl_does(option: str, word: str) -> None:
    if shutil.which("journalctl") is None:
        pytest.skip("journalctl is not installed: its optional values cannot be checked")
    mine = _taken(option, word)
    if mine:
        assert _journalctl_takes(option, word), f"reader takes {word!r} after {option}; journalctl does not"


def test_words_journalctl_leaves_are_still_read() -> None:
    """What the pattern does not take is read as before: an option after ``-b`` is checked."""
    for option, word in [("-b", "--vacuum-size=1"), ("-n", "--rotate"), ("-b", "-x"), ("-n", "-5")]:
        assert not _taken(option, word)
    assert _taken("-b", "-1") and _taken("-n", "+5") and _taken("-b", f"{HEX}-1")
