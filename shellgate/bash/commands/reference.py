"""Reference lookups: calendars, errno names, the ASCII table, the manual-page index, graph
generators. Each only prints what it computes or looks up; every form here was run under
``strace -f`` (``tests/test_readers_strace.py``): no program started, nothing opened for
writing, no socket.

Measured refusals: ``errno -S`` runs ``sh -c "locale -a"`` (a shell and a program found on
PATH); ``gvgen -o FILE`` writes FILE; ``apropos``/``whatis -C FILE`` read a man-db
configuration, whose ``DEFINE`` lines name programs (refused rather than modelled).
"""

from __future__ import annotations

from .spec import Command, Flag, Takes

V = Takes.VALUE
P = Takes.PATH

# Debian's ncal 12 (BSD getopt, short options only): `-h` turns highlighting off, it is no
# help. Operands: [[month] year]. util-linux's cal (other distributions) prints as well.
_CAL_FLAGS = [
    *(Flag(f"-{c}") for c in "13bCeJjhMNopSwy"), Flag("-A", takes=V), Flag("-B", takes=V),
    Flag("-d", takes=V), Flag("-H", takes=V), Flag("-m", takes=V), Flag("-s", takes=V),
    Flag("-W", takes=V)]
CAL = Command("cal", reads=False, max_operands=2, abbrev=False, aliases=("ncal",), safe=_CAL_FLAGS)

# moreutils errno: a table compiled into the program. -S searches every installed locale by
# running `sh -c "locale -a"` (strace).
ERRNO = Command("errno", reads=False, safe=[Flag("-l", "--list"), Flag("-s", "--search")],
                unsafe={Flag("-S", "--search-all-locales"):
                        "runs sh -c 'locale -a' (a program found on PATH)"})

# ascii 3.18: a table compiled into the program; operands are characters or names.
ASCII = Command("ascii", reads=False, abbrev=False, safe=[
    *(Flag(f"-{c}") for c in "tsadxobhv"), Flag("-?")])

# man-db 2.11 apropos/whatis (argp: long options abbreviate): they read index.db of each manpath
# directory and print one line per page.
_MANDB = [
    Flag("-d", "--debug"), Flag("-v", "--verbose"), Flag("-r", "--regex"), Flag("-w", "--wildcard"),
    Flag("-l", "--long"), Flag("-L", "--locale", takes=V), Flag("-m", "--systems", takes=V),
    Flag("-M", "--manpath", takes=P), Flag("-s", "--sections", "--section", takes=V),
    Flag("-?", "--help"), Flag("--usage"), Flag("-V", "--version")]
_MANDB_UNSAFE = {Flag("-C", "--config-file", takes=P):
                 "reads a man-db configuration (its DEFINE lines name programs)"}
APROPOS = Command("apropos", reads=False, safe=[*_MANDB, Flag("-e", "--exact"), Flag("-a", "--and")],
                  unsafe=_MANDB_UNSAFE)
WHATIS = Command("whatis", reads=False, safe=_MANDB, unsafe=_MANDB_UNSAFE)

# graphviz gvgen: prints a generated graph in DOT; every generator takes its size attached or as
# the next word (getopt). -o FILE writes the graph there.
GVGEN = Command("gvgen", reads=False, max_operands=0, abbrev=False, safe=[
    *(Flag(f"-{c}", takes=V) for c in "cCgGhkbBimMnNprRsStTw"), Flag("-d"), Flag("-v"), Flag("-?")],
    unsafe={Flag("-o", takes=Takes.WRITE_PATH): "writes the graph into a file"})

# GNU bc 1.07: the language computes and prints (no shell escape, no file access; dc's `!` runs
# a shell, so dc is not here). Operands are program files it reads, then stdin.
BC = Command("bc", safe=[
    Flag("-h", "--help"), Flag("-i", "--interactive"), Flag("-l", "--mathlib"), Flag("-q", "--quiet"),
    Flag("-s", "--standard"), Flag("-w", "--warn"), Flag("-v", "--version")])

COMMANDS = (BC, CAL, ERRNO, ASCII, APROPOS, WHATIS, GVGEN)
