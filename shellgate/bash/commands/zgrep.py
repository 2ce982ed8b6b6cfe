"""gzip's ``zgrep`` (and ``zegrep``/``zfgrep``, one-line scripts that ``exec zgrep -E``/``-F``):
a shell script that reads its own options, then runs ``gzip -cdfq -- FILE | grep OPTIONS --
PATTERN`` for each file (``-`` when none). The table is gzip 1.12's script, measured with
``strace -f``: it execs zgrep, gzip, grep, expr (to split a bundle such as ``-in``) and sed (to
quote a word), each found on PATH, and writes nothing.

Read-only only when zgrep and grep read every word alike, since zgrep decides which words are
files (it hands them to gzip) and grep only sees the options and the pattern:

* zgrep takes the next word as a value only for ``-A -B -C -D -X -d -e -f -m`` and the long
  ``--binary-*``, ``--file``, ``--la*``/``--ma*`` and ``--reg*``. Any other long option's value
  must be attached: ``zgrep --group-separator K secret a.gz`` makes ``secret`` a file (gzip
  prints it through ``grep --group-separator -- K``), where grep's own table would read K as the
  value and ``secret`` as the pattern. So ``--context``, ``--after-context``,
  ``--before-context``, ``--group-separator`` and ``--color`` take ``=VALUE`` only here, and
  long options are not abbreviated (``--m 1`` is grep's ``--max-count`` but a switch to zgrep).
* ``-f``/``--file`` copies a pattern file that is not a regular file (``-f -``) to a
  ``mktemp`` file in TMPDIR (strace: ``O_CREAT`` then ``unlink``): not declared.
* ``-r``/``-R``/``-d``/``-z``/``-Z``, ``--exclude*``/``--include``/``--null*``: zgrep refuses
  them; ``-D``/``-X`` and the rest of grep's table are left out (not needed, not measured).
* ``GREP`` in the environment is the grep program, put through ``eval`` (``GREP=./evil zgrep x
  a.gz`` runs ./evil): a prefix assignment is refused by the classifier (not a harmless one), a
  session's exported one by ``readonly/inherited.py``, and the gate's own environment here.
* ``POSIXLY_CORRECT`` in the environment ends zgrep's options at the first operand (``zgrep x
  a.gz -e k`` then reads a file ``k``), so it voids the reading above.
* Each program the script runs by name is looked up on PATH like the command itself
  (``pathsearch.cwd_first``): a relative PATH entry would run a workspace file as ``gzip``.
* gzip ``-d`` opens ``NAME.gz``, ``NAME.z``, ``NAME-z``, ``NAME.Z`` when NAME does not exist
  (``archive._gz_names``), so each file operand's suffixed names are checked as reads too.

xzgrep/lzgrep, bzgrep and zstdgrep are other scripts (``compgrep.py``: xzgrep quotes as zgrep
does and shares this table and check; bzgrep and zstdgrep expand options unquoted); zcmp and
zdiff stay off the list.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from .archive import _gz_names
from .grep import GREP_SAFE
from .pathsearch import cwd_first
from .spec import Call, Command, Finding, Flag, Parsed, Takes

V = Takes.VALUE

# grep's switches that zgrep passes on as they are (or, -H/-h/-l/-L, also reads itself).
_SWITCHES = frozenset({
    "-E", "-F", "-G", "-P", "-i", "-y", "--no-ignore-case", "-v", "-w", "-x", "-c", "-L", "-l",
    "-o", "-q", "-s", "-b", "-H", "-h", "-n", "-T", "-a", "--no-group-separator", "-I",
    "--line-buffered", "-U", "-u", "-V", "--help"})
# long options zgrep knows to take a value only with `=` (it passes the word on whole)
_ATTACHED = ("--after-context", "--before-context", "--context", "--group-separator", "--color",
             "--colour")

ZGREP_SAFE = [
    *(f for f in GREP_SAFE if f.takes is Takes.NONE and set(f.names) & _SWITCHES),
    Flag("-e", "--regexp", takes=V), Flag("-m", "--max-count", takes=V), Flag("--label", takes=V),
    Flag("--binary-files", takes=V),
    Flag("-A", takes=V), Flag("-B", takes=V), Flag("-C", takes=V),
    *(Flag(n, takes=V, optional=True) for n in _ATTACHED),
]
# what the script runs by name besides itself (zegrep/zfgrep exec zgrep)
_RUNS = ("zgrep", "gzip", "grep", "expr", "sed")
_PATTERN_FROM = ("-e", "--regexp")


def env_findings(name: str, variables: Iterable[str], call: Call) -> Iterable[Finding]:
    """The gate's own environment (which the command inherits) holds a variable the script
    reads to pick its programs or its files: the reading of its words does not hold."""
    span = call.command.words[0].span
    for var in variables:
        if var in os.environ:
            yield Finding(f"{name} reads {var} (it is set in the environment): it changes which "
                          "program runs or which words are files", span, "readonly.environment")


def path_findings(name: str, progs: Iterable[str], call: Call,
                  usr_first: bool = False) -> Iterable[Finding]:
    """Each program the script runs by name is looked up on PATH like the command itself
    (``usr_first``: the script puts /usr/bin first, so only a program missing there is)."""
    span = call.command.words[0].span
    for prog in progs:
        if usr_first and os.access(f"/usr/bin/{prog}", os.X_OK):
            continue
        if (why := cwd_first(prog)) is not None:
            yield Finding(f"{name} runs {prog} by name: {why} (a file of the workspace may run)", span,
                          "readonly.path_command")


def quoting_check(default: str, env: tuple[str, ...], runs: tuple[str, ...]) -> object:
    """The check of a script that quotes what it hands grep (zgrep, xzgrep): its environment,
    the programs it runs, and each file operand's gzip suffixes (gzip opens them)."""
    def check(p: Parsed, call: Call) -> Iterable[Finding]:
        name = call.command.name or default
        yield from env_findings(name, env, call)
        yield from path_findings(name, runs, call)
        files = p.operands if p.has(*_PATTERN_FROM) else p.operands[1:]
        yield from _gz_names(Parsed(opts=p.opts, operands=list(files)), call)
    return check


ZGREPS = tuple(Command(n, safe=ZGREP_SAFE, numeric=True, abbrev=False, pattern_from=_PATTERN_FROM,
                       check=quoting_check("zgrep", ("GREP", "POSIXLY_CORRECT"), _RUNS))  # type: ignore[arg-type]
               for n in ("zgrep", "zegrep", "zfgrep"))
COMMANDS = ZGREPS
