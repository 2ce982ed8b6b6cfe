"""The program-key table (shellgate/bash/git/keys.py) against the installed git's documentation.

``git help -m config`` is git-config(1): its Variables section lists every documented key with
a description. Every key whose description mentions a program, command, shell, helper,
executable, hook or script must be classified — as a program key (what it runs, which forms
run it) or as reviewed and harmless (why) — so that a git release documenting a new one fails
here until someone decides about it. The page is read from git's own man path (roff, parsed
here: no ``man`` formatter needed); without the page the test is skipped and says so.
"""

from __future__ import annotations

import gzip
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from shellgate.bash.git import keys as gitkeys

GIT = shutil.which("git")
_MENTIONS = re.compile(r"\b(?:program|command|shell|helper|executable|hook|script)s?\b", re.I)


def _man_page() -> Path | None:
    dirs = [Path("/usr/share/man")]
    if GIT is not None:
        out = subprocess.run([GIT, "--man-path"], capture_output=True, text=True, check=False).stdout
        if out.strip():
            dirs.insert(0, Path(out.strip()))
    for d in dirs:
        for name in ("git-config.1.gz", "git-config.1"):
            if (d / "man1" / name).is_file():
                return d / "man1" / name
    return None


def _text(roff: str) -> str:
    """Plain words of a roff line: fonts, escapes and special characters removed."""
    s = re.sub(r"\\f(?:\[[^]]*\]|\(..|.)", "", roff)
    s = s.replace("\\&", "").replace("\\-", "-").replace("\\e", "\\")
    return re.sub(r"\\\(..|\\\*\(..|\\\*.|\\h'[^']*'|\\c", "", s)


def documented(roff: str) -> list[tuple[list[str], str]]:
    """(names, description) of every entry of the Variables section: a ``.PP`` at the outer
    level, the term lines up to ``.RS``, the description down to the matching ``.RE``."""
    start = roff.index('.SS "Variables"')
    end = roff.find("\n.SH ", start)
    lines = roff[start:end if end > 0 else None].splitlines()
    out: list[tuple[list[str], str]] = []
    depth, i = 0, 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith(".RS"):
            depth += 1
        elif line.startswith(".RE"):
            depth -= 1
        elif line == ".PP" and depth == 0:
            terms: list[str] = []
            while i < len(lines) and not lines[i].startswith(".RS"):
                if not lines[i].startswith("."):
                    terms += [t.strip() for t in _text(lines[i]).split(",") if t.strip()]
                i += 1
            i += 1
            inner, desc = 1, []
            while i < len(lines) and inner:
                if lines[i].startswith(".RS"):
                    inner += 1
                elif lines[i].startswith(".RE"):
                    inner -= 1
                elif not lines[i].startswith("."):
                    desc.append(_text(lines[i]))
                i += 1
            out.append((terms, " ".join(desc)))
    return out


def _name(term: str) -> str:
    return re.sub(r"<[^>]*>", "*", term).lower()


@pytest.fixture(scope="module")
def program_mentions() -> list[str]:
    page = _man_page()
    if page is None:
        reason = "git-config(1) is not installed here (no man1/git-config.1[.gz] under git --man-path)"
        print(reason)
        pytest.skip(reason)
    raw = page.read_bytes()
    roff = (gzip.decompress(raw) if page.suffix == ".gz" else raw).decode("utf-8", "replace")
    entries = documented(roff)
    assert len(entries) > 300, f"the Variables section of {page} was not understood"
    return [_name(t) for terms, desc in entries if _MENTIONS.search(desc) for t in terms]


def test_every_documented_program_mention_is_classified(program_mentions: list[str]) -> None:
    assert len(program_mentions) > 50
    missing = sorted({n for n in program_mentions if gitkeys.classified(n) is None})
    assert not missing, ("documented keys that mention a program and are in neither table of "
                         f"shellgate/bash/git/keys.py: {missing}")


def test_the_documented_program_keys_are_program_keys(program_mentions: list[str]) -> None:
    """The ones whose documentation says outright that they run something."""
    for name in ("core.sshcommand", "core.fsmonitor", "core.pager", "core.editor", "credential.helper",
                 "diff.external", "diff.*.textconv", "filter.*.clean", "gpg.program",
                 "gpg.*.program", "remote.*.uploadpack", "remote.*.receivepack", "merge.*.driver",
                 "mergetool.*.cmd", "difftool.*.cmd", "sequence.editor", "core.askpass",
                 "core.gitproxy", "uploadpack.packobjectshook", "sendemail.tocmd"):
        assert name in program_mentions, name
        assert gitkeys.classified(name) == "program", name


def test_tables_are_consistent() -> None:
    names = [k.name.lower() for k in gitkeys.PROGRAM_KEYS]
    assert len(names) == len(set(names))
    assert not set(names) & set(gitkeys.REVIEWED_KEYS)
    for k in gitkeys.PROGRAM_KEYS:
        assert k.runs and k.when in gitkeys.WHEN and k.why and k.used_by, k
        assert 2 <= len(k.name.split(".")) <= 3, k
