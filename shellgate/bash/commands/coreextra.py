"""Small readers from coreutils 9.1, util-linux 2.38, e2fsprogs 1.47 and ncurses 6.4 that
people and agents run and that asked only for want of a table (#17): ``numfmt``, ``factor``,
``tsort``, ``basenc``, ``pinky``, ``users``, ``namei``, ``lsattr``, ``tput``.

Each read-only form was run under ``strace -f`` in a scratch HOME and cwd
(tests/test_coreextra.py, corpus/coreextra.jsonl): it executes only itself, opens nothing to
write, makes or removes nothing and connects nowhere. What they read besides their operands:
``pinky -l`` each named user's ``~/.plan`` and ``~/.project`` (checked as reads: a link there
may lead to a secret), ``users`` the utmp file (or its
operand), ``tput`` the terminfo database (``$TERMINFO``, ``~/.terminfo``).

What asks: ``tput init`` and ``tput reset`` run the program the terminfo entry names in
``iprog`` and print the file it names in ``if`` (ncurses tput_init.c; ``~/.terminfo`` is the
agent's to write), and ``tput -S`` reads capability names, ``init`` among them, from stdin.
ncurses tput takes several capabilities in one call, so every operand is looked at, and one
known only at run time may be ``init``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from .spec import Call, Command, Finding, Flag, Parsed, Takes, sensitive_read

V = Takes.VALUE
_GNU = [Flag("--help"), Flag("--version")]

# numfmt: NUMBER operands (or stdin lines); no option names a file.
NUMFMT = Command("numfmt", reads=False, safe=[
    Flag("--debug"), Flag("-d", "--delimiter", takes=V), Flag("--field", takes=V),
    Flag("--format", takes=V), Flag("--from", takes=V), Flag("--from-unit", takes=V),
    Flag("--grouping"), Flag("--header", takes=V, optional=True), Flag("--invalid", takes=V),
    Flag("--padding", takes=V), Flag("--round", takes=V), Flag("--suffix", takes=V),
    Flag("--to", takes=V), Flag("--to-unit", takes=V), Flag("-z", "--zero-terminated"), *_GNU])
# factor: NUMBER operands (or stdin). 9.1 has no -h/--exponents.
FACTOR = Command("factor", reads=False, safe=_GNU)
# tsort: one FILE (or stdin), whose words it prints in order.
TSORT = Command("tsort", max_operands=1, safe=_GNU)
# basenc: base64's reader with an encoding to choose; one FILE (or stdin).
BASENC = Command("basenc", max_operands=1, safe=[
    Flag("--base64"), Flag("--base64url"), Flag("--base32"), Flag("--base32hex"), Flag("--base16"),
    Flag("--base2msbf"), Flag("--base2lsbf"), Flag("--z85"), Flag("-d", "--decode"),
    Flag("-i", "--ignore-garbage"), Flag("-w", "--wrap", takes=V), *_GNU])
# pinky: USER operands (looked up in passwd, matched in utmp).


def _pinky(p: Parsed, call: Call) -> Iterable[Finding]:
    """``pinky -l USER`` prints USER's ``~/.plan`` and ``~/.project`` whole (coreutils 9.1:
    fopen, links followed, no owner check; ``-p``/``-h`` leave them out, the last of
    ``-l``/``-s`` picks the format). USER's home is theirs to plant: a ``.plan`` linked to
    ~/.ssh/id_rsa printed the invoking user's key (strace). So each file is checked as a
    read, found through passwd as pinky finds it, and a user known only at run time asks."""
    fmt = [o.flag.names[0] for o in p.opts if o.flag.names[0] in ("-l", "-s")]
    files = [f for f, skip in ((".plan", "-p"), (".project", "-h")) if not p.has(skip)]
    if not fmt or fmt[-1] != "-l" or not files:
        return
    if call.wild_tail:
        yield Finding("xargs gives pinky -l user names read from its input, whose ~/.plan and "
                      "~/.project it prints (they could be links to a secret)",
                      call.command.words[0].span, "readonly.dynamic_path")
    import pwd  # the user database, only when a long format reads homes

    for w in p.operands:
        if not w.static:
            yield Finding(f"pinky -l {w.text}: a user known only at run time, whose ~/.plan and "
                          "~/.project it prints (they could be links to a secret)", w.span,
                          "readonly.dynamic_path")
            continue
        try:
            home = pwd.getpwnam(w.text).pw_dir
        except (KeyError, ValueError):
            continue   # no such user: pinky opens nothing for it
        hit = sensitive_read([os.path.join(home, f) for f in files], call, w.span)
        if hit is not None:
            yield Finding(f"pinky -l {w.text} prints {hit.path} (the user's {', '.join(files)}): "
                          f"{hit.cls.value}", w.span, "readonly.sensitive")


PINKY = Command("pinky", reads=False, check=_pinky,
                safe=[*(Flag(f"-{c}") for c in "lbhpsfwiq"), *_GNU])
# users: the utmp file, or the one FILE operand, read as utmp records.
USERS = Command("users", max_operands=1, safe=_GNU)
# namei: follows each PATHNAME operand, component by component (lstat and readlink only).
NAMEI = Command("namei", reads=False, safe=[
    Flag("-x", "--mountpoints"), Flag("-m", "--modes"), Flag("-o", "--owners"), Flag("-l", "--long"),
    Flag("-n", "--nosymlinks"), Flag("-v", "--vertical"),
    Flag("-h", "--help"), Flag("-V", "--version")])
# lsattr: the ext2 attribute flags of each FILE (an ioctl on a file opened to read; a device
# or FIFO is not opened: fgetflags checks the type first). -R walks directories.
LSATTR = Command("lsattr", reads=False, abbrev=False,
                 safe=[*(Flag(f"-{c}") for c in "RVadlpv")])

# --- tput -------------------------------------------------------------------------------------

_TPUT_RUNS = frozenset({"init", "reset"})


def _tput(p: Parsed, call: Call) -> Iterable[Finding]:
    for w in p.operands:
        if not w.static:
            yield Finding(f"tput {w.text}: a capability known only at run time may be init or reset, "
                          "which run the terminfo entry's iprog", w.span, "readonly.operand")
        elif w.text in _TPUT_RUNS:
            yield Finding(f"tput {w.text} runs the program the terminfo entry names (iprog) and prints "
                          "the file it names (if); ~/.terminfo is writable", w.span, "readonly.operand")


# ncurses 6.4 tput: getopt "ST:Vx" (glibc, permuted); -T names the terminal type (a name
# holding a / is refused by ncurses, as for clear).
TPUT = Command("tput", reads=False, abbrev=False, check=_tput, safe=[
    Flag("-T", takes=V), Flag("-V"), Flag("-x")],
    unsafe={Flag("-S"): "reads capability names from stdin, init and reset among them (they run "
                        "the terminfo entry's iprog)"})

COMMANDS = (NUMFMT, FACTOR, TSORT, BASENC, PINKY, USERS, NAMEI, LSATTR, TPUT)
