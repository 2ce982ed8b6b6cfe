"""shellcheck: a linter that prints the lines of the scripts it reads; read-only as long as it
reads only its operands.

Measured with ``strace -f`` (ShellCheck 0.9.0, Debian 12; tests/test_shellcheck.py):

* it opens each FILE operand (``-`` is stdin) and nothing else of the workspace, except:
* ``-x``/``--external-sources`` follows ``source``/``.`` lines to any file, a
  ``# shellcheck source=PATH`` directive in the script naming it, and ``-P``/``--source-path``
  adds directories to look in: a script holding ``source ~/.ssh/id_rsa`` or
  ``# shellcheck source=../home/.ssh/id_rsa`` makes it open the key, and with ``-a``
  (``--check-sourced``) it prints the key's first line, as it prints ``API=…`` of a sourced
  ``.env``. Without them it only stats a sourced name (and opens it when it is an operand too);
* unless ``--norc``, it looks for ``.shellcheckrc`` then ``shellcheckrc`` in the directory of
  each script (its real path: a linked script's target directory; the cwd for ``-`` or a
  missing file's lexical directory) and every parent up to ``/``, then ``~/.shellcheckrc`` and
  ``$XDG_CONFIG_HOME/shellcheckrc`` (``~/.config``), and reads the first found. An rc line
  ``external-sources=true`` does what ``-x`` does (and ``source-path=`` what ``-P`` does):
  plain ``shellcheck -a d.sh`` printed the key. Several ``key=value`` on one line (blanks or
  tabs between) each count; a ``#`` line is a comment;
* ``SHELLCHECK_OPTS`` in the environment holds more options (``-x``).

So ``-x``, ``-P`` and ``--rcfile`` (0.10: reads the rc file named) are refused, and without
``--norc`` the gate reads every rc file shellcheck may read (all candidates, not just the first:
a superset) when it decides: each must be printable ASCII whose lines are comments or only
``disable=``/``enable=``/``shell=`` keys with plain values, no write of the line may land on one,
and every operand's directory must be known (a static word, or a glob whose directory part is
static; a glob may match any link there, so each link's target directory is searched too).
Anything else is refused, naming the rc file or word. ``-f diff`` prints a diff (it
applies nothing); every ``-f`` format only prints.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from ..._plain import read_plain
from .spec import Call, Command, Finding, Flag, Parsed, Takes, within
from .zgrep import env_findings

V = Takes.VALUE

_RC_NAMES = (".shellcheckrc", "shellcheckrc")
_RC_LIMIT = 64 * 1024
# What an rc line may hold: keys that only choose checks or the dialect, with plain values.
_RC_KEY = re.compile(r"(?:disable|enable|shell)=[A-Za-z0-9_,.+-]+")
_RC_TEXT = re.compile(r"[\x20-\x7e\t\n]*")
_GLOB = re.compile(r"[*?\[{]")


def _rc_problem(data: bytes) -> str | None:
    """Why shellcheck may read more files with this rc text, or None when every line is a
    comment or whitelisted ``key=value`` words (fail closed: anything else is a problem)."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        return "it is not plain ASCII text"
    if not _RC_TEXT.fullmatch(text):
        return "it holds control characters"
    for line in text.split("\n"):
        s = line.strip(" \t")
        if not s or s.startswith("#"):
            continue
        for tok in re.split(r"[ \t]+", s):
            if not _RC_KEY.fullmatch(tok):
                return f"it sets {tok.split('=', 1)[0]!r} (only disable=, enable= and shell= are understood)"
    return None


def _dirs(p: Parsed, call: Call) -> tuple[list[str], Finding | None]:
    """The directories shellcheck starts its rc search from: each operand's lexical and real
    directory in every candidate cwd; or a Finding when one is not known."""
    if call.cwds is None:
        return [], Finding("shellcheck looks for .shellcheckrc above its scripts, and the directory "
                           "this runs in is not known", call.command.words[0].span, "readonly.config")
    if call.wild_tail:
        return [], Finding("xargs gives shellcheck script names nobody has seen: where it looks for "
                           ".shellcheckrc is not known", call.command.words[0].span, "readonly.config")
    out: list[str] = []
    home = str(call.ctx.home)
    for w in p.operands:
        text = w.text
        if text == "~" or text.startswith("~/"):
            text = home + text[1:]
        head = os.path.dirname(text)
        if not w.static or w.pasted or text.startswith("~") or _GLOB.search(head):
            return [], Finding(f"shellcheck looks for .shellcheckrc above {w.text!r}, whose directory is "
                               "not known before it runs", w.span, "readonly.config")
        for c in call.cwds:
            path = os.path.normpath(os.path.join(str(c), text))
            if text == "-":
                out += [str(c), os.path.realpath(c)]
            else:
                out += [os.path.dirname(path), os.path.dirname(os.path.realpath(path))]
            if w.glob:
                linked = _linked_dirs(os.path.dirname(path), call)
                if linked is None:
                    return [], Finding(f"shellcheck looks for .shellcheckrc above each script {w.text!r} "
                                       "matches, and a match that is a link has its rc files where it "
                                       "leads: the matches are not known before it runs", w.span,
                                       "readonly.config")
                out += linked
    return out, None


_MAX_SCAN = 5000  # directory entries read for one glob operand before its matches count as unknown


def _linked_dirs(d: str, call: Call) -> list[str] | None:
    """The directories the links in ``d`` lead to: a glob operand there may match any of them
    (every entry is taken as a match, a superset), and shellcheck searches for rc files from a
    linked script's target directory, not from ``d``; None when ``d`` cannot be read in full
    within ``_MAX_SCAN`` entries or a write of the line may put a link in it."""
    writes = call.line_writes
    here = (d, os.path.realpath(d))
    if writes is None or any(os.path.dirname(os.path.normpath(w)) in here for w in writes):
        return None
    out: list[str] = []
    budget = _MAX_SCAN
    try:
        with os.scandir(d) as it:
            for e in it:
                budget -= 1
                if budget < 0:
                    return None
                if e.is_symlink():
                    out.append(os.path.dirname(os.path.realpath(e.path)))
    except (FileNotFoundError, NotADirectoryError):
        return []     # no such directory: the glob matches nothing and stays itself
    except OSError:
        return None
    return out


def _candidates(dirs: Iterable[str], home: str) -> list[str]:
    """Every rc path shellcheck may open for scripts in ``dirs``: each one and its parents,
    then HOME's and the XDG config directory's."""
    out: dict[str, None] = {}
    for d in dirs:
        while True:
            for n in _RC_NAMES:
                out[os.path.join(d, n)] = None
            up = os.path.dirname(d)
            if up == d:
                break
            d = up
    out[os.path.join(home, ".shellcheckrc")] = None
    out[os.path.join(home, ".config", "shellcheckrc")] = None
    xdg = os.environ.get("XDG_CONFIG_HOME")
    if xdg:
        out[os.path.join(xdg, "shellcheckrc")] = None
    return list(out)


def _rc_findings(p: Parsed, call: Call) -> list[Finding]:
    dirs, unknown = _dirs(p, call)
    if unknown is not None:
        return [unknown]
    span = call.command.words[0].span
    writes = call.line_writes
    if writes is None:
        return [Finding("shellcheck reads .shellcheckrc files, and a write of this line is not known "
                        "(it could create one)", span, "readonly.config")]
    if not dirs:
        return []   # no script: shellcheck prints its usage
    for rc in _candidates(dirs, str(call.ctx.home)):
        if hit := next((w for w in writes if within(rc, w)), None):
            return [Finding(f"shellcheck may read {rc}, which this line writes ({hit})", span,
                            "readonly.config")]
        try:
            data = read_plain(rc, _RC_LIMIT, follow=True)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as e:
            return [Finding(f"shellcheck may read {rc}, which the gate cannot read ({e.strerror or e})",
                            span, "readonly.config")]
        if (why := _rc_problem(data)) is not None:
            return [Finding(f"shellcheck may read {rc}: {why}; an rc file can make it follow `source` "
                            "lines to any file (external-sources=, source-path=)", span, "readonly.config")]
    return []


def _check(p: Parsed, call: Call) -> Iterable[Finding]:
    yield from env_findings("shellcheck", ("SHELLCHECK_OPTS",), call)
    if not p.has("--norc") and not p.has("--list-optional", "-V", "--help"):
        yield from _rc_findings(p, call)


_FOLLOWS = ("follows `source` lines to files the gate does not see (a script may source "
            "~/.ssh/id_rsa; with -a shellcheck prints its lines)")

SHELLCHECK = Command(
    "shellcheck",
    safe=[Flag("-a", "--check-sourced"), Flag("-C", "--color", takes=V, optional=True),
          Flag("-i", "--include", takes=V), Flag("-e", "--exclude", takes=V),
          Flag("-f", "--format", takes=V), Flag("--list-optional"), Flag("--norc"),
          Flag("-o", "--enable", takes=V), Flag("-s", "--shell", takes=V),
          Flag("-S", "--severity", takes=V), Flag("-V", "--version"),
          Flag("-W", "--wiki-link-count", takes=V), Flag("--help")],
    unsafe={Flag("-x", "--external-sources"): _FOLLOWS,
            Flag("-P", "--source-path", takes=V): "looks up sourced files in these directories "
                                                  "(with external-sources it reads them)",
            Flag("--rcfile", takes=V): "reads the rc file named (it may set external-sources)"},
    check=_check, globs=True)

COMMANDS = [SHELLCHECK]
