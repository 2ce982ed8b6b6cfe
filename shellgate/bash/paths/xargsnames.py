"""``find D … | xargs R …`` and ``git ls-files | xargs R …``: when the words xargs appends are
proved to be plain file names.

xargs splits its input at blanks and reads quotes and backslashes, so a file named
``x --files0-from=~/.ssh/id_rsa`` becomes an option of the command it runs, and a name may be a
secret. Without more, the command xargs runs gets words nobody has seen (``wild_tail``: only
commands without unsafe options, and no reader of files, pass). Here a pipeline is proved
plain when all of this holds:

* the stage feeding xargs (through ``|``, not ``|&``) is a ``find`` that only tests and prints
  names (no ``-printf``/``-ls``/``-exec``/``-L`` …), with static start points;
* xargs reads that pipe (no ``-a``, no redirect of its stdin: ``xargs cat <<EOF`` reads the
  names from the here-doc), splits as usual, at newlines only (``-d '\\n'``) or at NULs (no
  other ``-d``: ``-d x`` cuts ``src/ax--files0-from=k`` into an option) — at NULs (the last
  of ``-0``/``-d`` is ``-0``) exactly when the producer ends its names with NULs
  (``find -print0``, ``git ls-files -z``, ``rg -0``, ``grep -lZ``): ``xargs -0`` reading
  newline-ended names takes a name ``src\n`` whole, and the walk never calls that a name
  below ``src``;
* the command xargs runs is a table command that reads its operands as files (not git or a
  wrapper: an appended word could pick a subcommand or a program; not ``tee``, ``cp``, ``rm``:
  the path roles say it writes them; not ``finger`` or ``ss``: only a command the path roles
  say reads or looks at its operands as files, ``roles.operands_are_files``), given its
  pattern or program already (``sed``'s script is never a name find printed: a directory
  named ``e`` would be sed's "execute" command); with ``-I R``/``-i``/``--replace`` each
  word holding R is R alone and a file operand of it (``_reads_given_names``: never a
  script, filter, option or option value);
* every entry below every start point — a full walk, links not followed, as find walks — has a
  plain name: no blank, quote, backslash or control character, none starting with ``-``
  (at most ``BUDGET`` entries; past that nothing is proved);
* the recursive secret check a reader such as ``grep -r`` gets (``paths.leaks_below``) finds
  no secret below them, and — skipping nothing, since ``find src | xargs cat`` reads
  ``src/node_modules/pkg/.env`` and ``find . -type f`` prints ``.git/config`` — no entry the
  producer may print is a secret by name, a link to one, or a directory with one below
  (``_walk_ok``, ``resolve.leak_at``; ``_Prints``: find's ``-name``/``-iname``/``-type``/depth
  conjunction and rg's files, hidden ones only with ``--hidden`` or a ``!`` whitelist, bound
  what may be printed, so ``find . -name '*.py'`` is not refused for ``.git/config``);
* for a command that reads ``@FILE`` as a response file (``strings``), no name starts with
  ``@`` (``_response_files``);
* no write of the same line lands below them (``line_writes``): the walk sees the tree as it is
  when the gate decides, and ``touch './a --files0-from=k'`` first would add a name with a blank.

Then the appended words are names of files below the start points, and the command reads them
as ``grep -r`` would read that tree.

``rg --files [DIR …]`` and ``rg -l PATTERN [DIR …]`` are producers like find (their names are
paths below the directories walked). Line filters may stand between a producer and xargs
(``grep -v``, ``rg -v``, ``sort``, ``uniq``, ``head``/``tail -n``: ``_FILTERS``): each prints
some of its input lines, whole.

A chain is proved link by link: ``find D … | xargs grep -l X | xargs grep -l Y`` feeds the
second xargs the names the first one's grep printed, and ``grep -l`` prints some of the names
it was given, each whole, as given (``_NAMES_GREP``: no ``-r`` — without operands it would walk
the cwd —, no ``-L``, which names stdin ``(standard input)``, NUL-ended with ``-Z`` only for
``xargs -0``). So the second xargs appends names below the first one's roots, proved the same
way.

``git ls-files [--cached] [PATHSPEC …]`` feeding xargs is proved the same way, with the
index in place of the walk: it prints index entries (relative to the cwd, so below it), and
every entry of the repository's index (``git/index.py``, read without running git) must have
plain components — a tracked ``-rf`` or ``a b`` voids it, on disk or not, and so do ``.``,
``..`` and ``.git``, which git never adds but reads from a hand-made index
(``../home/.ssh/id_rsa``) — and no name a leak rule names (``resolve.leak_among``), nor a
tracked link to a secret or directory with one below (``_tracked_leak``, wherever it lies).
Pathspecs must be plain relative paths (no ``..``, no ``:`` magic, no glob), the line may
write nothing (a ``git add`` first would change the index), and the secret check runs over
the cwd as for ``find .``. git's own configuration is judged on the ``git`` command itself.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from pathlib import Path

from ..._lazyre import lazy_compile
from ..._plain import read_head
from ..._record import record, replace
from ..facts import Context, PathOp
from ..ir import Script, Via, Word

BUDGET = 10_000
_PLAIN = lazy_compile(r"[A-Za-z0-9._+@%,=:^~][A-Za-z0-9._+@%,=:^~-]*")

# xargs options that change neither where its input comes from nor how it is split.
_XARGS_FLAGS = frozenset({"-0", "--null", "-r", "--no-run-if-empty", "-t", "--verbose", "-x",
                          "--exit"})
_XARGS_VALUED = frozenset({"-n", "-L", "-P", "-s", "-I", "-E"})
_XARGS_LONG_VALUED = ("--max-args=", "--max-lines=", "--max-procs=", "--max-chars=", "--eof=")
# A bundle of those switches (``-r0``, ``-0r``, ``-rt``): getopt reads ``-r0`` as ``-r -0``. Only
# letters that take no value: ``-0n1`` or ``-0i`` would need xargs's value rules here too.
_XARGS_BUNDLE = lazy_compile(r"-[0rtx]{2,}")
# find words that print something other than names, follow links or run programs.
_FIND_REFUSED = frozenset({"-printf", "-fprintf", "-ls", "-fls", "-fprint", "-fprint0", "-exec",
                           "-execdir", "-ok", "-okdir", "-delete", "-files0-from", "-L", "-follow",
                           "-H", "-D"})
_FIND_EXPR_START = re.compile(r"^[-(!),]")


def proved(script: Script, index: int, ctx: Context, cwds: tuple[Path, ...] | None,
           line_writes: tuple[str, ...] | None = ()) -> bool:
    """Whether the words xargs appends to command ``index`` are plain names of files below a
    find's start points, none of them a secret (the module docstring). ``line_writes``: what
    the line writes (``readonly.line_writes``; None: unknown). Never raises."""
    try:
        return _proved(script, index, ctx, cwds, line_writes)
    except (OSError, ValueError, IndexError):
        return False


def roots(script: Script, index: int) -> list[str] | None:
    """find's start points when command ``index`` is run by an xargs that a find feeds in the
    shape the module docstring requires (the filesystem not looked at); else None. What the
    path scanner takes the appended names to lie below. Never raises."""
    try:
        return _roots(script, index)
    except (ValueError, IndexError):
        return None


def _roots(script: Script, index: int) -> list[str] | None:
    cmd = script.commands[index]
    if not cmd.via or cmd.via[-1] is not Via.XARGS or cmd.parent is None or not cmd.words:
        return None
    xargs = script.commands[cmd.parent]
    if not xargs.words or cmd.words[0].span[0] <= xargs.words[0].span[1]:
        return None   # spans that cannot tell where the inner command starts (a nested script)
    null: set[bool] = set()
    if xargs.name != "xargs" or not _xargs_ok(xargs.words[1:], cmd.words[0], null) \
            or any(_stdin(r) for r in (*xargs.redirects, *cmd.redirects)):
        return None
    feeder, filtered = _producer(script, cmd.parent)
    if feeder is None or (filtered and null):   # the filters split lines, not NUL-ended names
        return None
    if feeder.name == "xargs":
        inner = _names_grep(script, feeder, null=bool(null))
        starts = None if inner is None else _roots(script, inner)
    elif feeder.name == "git":
        starts = ["."] if _ls_files_plain(feeder.args, null=bool(null)) else None
    elif feeder.name == "rg":
        starts = _rg_starts(feeder.args, null=bool(null))
    else:
        starts = _find_starts(feeder.args, null=bool(null))
    return starts if starts is not None and _reads_given_names(cmd) else None


def _proved(script: Script, index: int, ctx: Context, cwds: tuple[Path, ...] | None,
            line_writes: tuple[str, ...] | None) -> bool:
    starts = _roots(script, index)
    if starts is None or line_writes is None:
        return False
    from .resolve import check_path, leaks_below

    origin = _origin(script, index)
    at = _response_files(script.commands[index])
    if origin.name == "git":
        return not line_writes and all(
            _index_plain(c, ctx, at=at) and leaks_below(str(c), str(ctx.home)) == ((), True)
            for c in cwds or (ctx.cwd,))
    if at and any(s.startswith("@") for s in starts):
        return False   # find @a: every name starts with it
    prints = _prints(origin)
    if prints is None or not prints.hidden and _rg_whitelists(starts, cwds or (ctx.cwd,), ctx):
        return False
    for c in cwds or (ctx.cwd,):
        for s in starts:
            root = os.path.join(str(c), str(ctx.home) + s[1:] if s == "~" or s.startswith("~/") else s)
            top = os.path.normpath(root)
            if any(w == top or w.startswith(top.rstrip("/") + "/") for w in line_writes):
                return False
            if not os.path.lexists(root) or os.path.islink(root) or not _walk_ok(root, s, prints, ctx):
                return False   # (a linked start point: find names the link, R reads its target)
            if at and origin.name == "rg" and s == "." and any(n.startswith("@") for n in os.listdir(root)):
                return False   # rg --files prints the cwd's names bare: `@a`
            if os.path.isdir(root):
                found, complete = leaks_below(root, str(ctx.home))
                if found or not complete:
                    return False
            elif check_path(root, PathOp.READ, replace(ctx, cwd=c)) is not None:
                return False   # a start point that is a file is itself a name xargs passes on
    return True


def _response_files(cmd) -> bool:
    """Whether command ``cmd`` reads a word ``@FILE`` as a response file (``spec.Command``'s
    ``response_files``: binutils' strings): a name xargs hands it must not start with ``@``."""
    from ..commands import registry
    from ..commands.spec import Command

    spec = registry.lookup(cmd.name or "")
    return isinstance(spec, Command) and spec.response_files


def _stdin(r) -> bool:
    """A redirect that replaces xargs's stdin (``xargs cat <<EOF``, ``< list``): the names then
    come from it, not from the producer's pipe."""
    return r.fd == 0 or (r.fd is None and r.op.startswith("<"))


def _xargs_ok(words: tuple[Word, ...], first_inner: Word, null: set[bool]) -> bool:
    """xargs's options before ``first_inner`` only choose how many names a command gets, or
    how the input splits in a way the proof knows: at NULs (``-0``) or at newlines only
    (``-d '\\n'``: no quotes, no blanks read; each line of a producer's output whole). The last
    of ``-0``/``-d`` holds (GNU xargs 4.9, measured); ``null`` receives True when it is ``-0``."""
    i, delims = 0, []
    while i < len(words) and words[i].span != first_inner.span:
        w = words[i]
        t = w.text
        if not w.static:
            return False
        if t in ("-0", "--null") or _XARGS_BUNDLE.fullmatch(t) and "0" in t:
            delims.append("\0")
        if t in ("-d", "--delimiter") and i + 1 < len(words):
            delims.append(_delimiter(words[i + 1]))
            i += 2
        elif t.startswith(("--delimiter=", "-d")) and t not in ("-d", "--delimiter="):
            delims.append(_delimiter(replace(w, text=t.split("=", 1)[1] if t[1] == "-" else t[2:])))
            i += 1
        elif t == "--":
            i += 1
            break
        elif t in _XARGS_FLAGS or t.startswith(_XARGS_LONG_VALUED) or _XARGS_BUNDLE.fullmatch(t):
            i += 1
        elif t in _XARGS_VALUED:
            i += 2
        elif t[:2] in _XARGS_VALUED and len(t) > 2 or t.startswith("-i") or t.startswith("--replace"):
            i += 1
        else:
            return False     # -a, -p, --process-slot-var, an unknown option, a stray word
    if None in delims or i >= len(words) or words[i].span != first_inner.span:
        return False
    if delims and delims[-1] == "\0":
        null.add(True)
    return True


def _delimiter(w: Word) -> str | None:
    """The input delimiter a static ``-d`` value gives, when the proof knows it: a newline
    (``\\n`` as xargs reads the escape, or the character itself); None for any other."""
    return "\n" if w.static and w.text in ("\\n", "\n") else None


def _origin(script: Script, index: int):
    """The find, rg or git whose names reach command ``index`` (run by an xargs that
    :func:`_roots` accepts), through any chain of ``xargs grep -l``."""
    feeder = _producer(script, script.commands[index].parent)[0]
    while feeder is not None and feeder.name == "xargs":
        inner = _names_grep(script, feeder, null=None)
        feeder = None if inner is None else _producer(script, script.commands[inner].parent)[0]
    return feeder


def _producer(script: Script, xi: int):
    """(the find, rg, git — or the ``xargs grep -l`` of a chain — feeding xargs ``xi``, whether
    line filters stand between them): each filter prints a subset of its input lines, whole, so
    the names stay the producer's (``find … | grep -v x | sort | xargs …``)."""
    j, filtered = xi, False
    while (p := _stage_before(script, j)) is not None:
        j, cmd = p
        if cmd.name in ("find", "git", "xargs") or cmd.name == "rg" and any(
                w.text in ("--files", "-l", "--files-with-matches") for w in cmd.args):
            return cmd, filtered
        if not _line_filter(cmd):
            break
        filtered = True
    return None, filtered


def _stage_before(script: Script, xi: int):
    """(index, command) of the stage whose stdout is command ``xi``'s stdin through a plain
    ``|``, with only its stderr sent elsewhere (``2>/dev/null``)."""
    x = script.commands[xi]
    for j in range(xi - 1, -1, -1):
        p = script.commands[j]
        if p.parent != x.parent or p.via != x.via:
            continue
        gap = script.source[p.span[1]:x.span[0]]
        if gap.strip() != "|" or not all(_stderr_away(r) for r in p.redirects):
            return None
        return j, p
    return None


def _stderr_away(r) -> bool:
    """A redirect of stderr alone, not into the pipe (``2>/dev/null``; ``2>&1`` joins it)."""
    return r.fd == 2 and not (r.op in (">&", "<&") and (r.target is None or r.target.text != "-"))


# Filters that print some of their input lines, each whole, and read no file: (letters of
# switches, options taking a value, how many operands).
_FILTERS: dict[str, tuple[str, frozenset[str], int]] = {
    "grep": ("viEFwx", frozenset({"-e"}), 1),   # the pattern, unless given with -e
    "rg": ("viFwxsS", frozenset({"-e"}), 1),    # reading the pipe: lines as they are
    "sort": ("rnufVhbd", frozenset({"-k", "-t"}), 0),
    "uniq": ("", frozenset(), 0),
    "head": ("", frozenset({"-n"}), 0),
    "tail": ("", frozenset({"-n"}), 0),
}
_COUNT = lazy_compile(r"\+?\d+")


def _line_filter(cmd) -> bool:
    spec = _FILTERS.get(cmd.name or "")
    if spec is None or cmd.assignments:
        return False
    letters, valued, operands = spec
    words = list(cmd.args)
    given_e = False
    while words and words[0].text.startswith("-") and words[0].text != "-":
        w = words.pop(0)
        t = w.text
        if not w.static or w.glob:
            return False
        if t in valued and words and words[0].static:
            value = words.pop(0).text
            if t == "-n" and not _COUNT.fullmatch(value):
                return False
            given_e = given_e or t == "-e"
        elif not _switch(cmd.name, t, letters):
            return False
    return len(words) == (0 if given_e else operands) and all(w.static and not w.glob for w in words)


def _switch(name: str, t: str, letters: str) -> bool:
    """A bundle of switches from ``letters``, or head's and tail's ``-N``/``-nN``."""
    if name in ("head", "tail"):
        return bool(_COUNT.fullmatch(t[1:]) or t.startswith("-n") and _COUNT.fullmatch(t[2:]))
    return bool(letters) and all(c in letters for c in t[1:])


# grep run by the first xargs of a chain: options that only choose which of the given files
# match, with -l making the output those names (no -r/-R/-d: they walk the cwd when xargs
# gives no name; no -L: stdin, /dev/null under xargs, is "(standard input)"; no -c/-o/-n …:
# -l wins over them in GNU grep, but a line is then more than a name in other greps).
_NAMES_GREP_SWITCHES = frozenset("ilsEFGPwxIUv")
_NAMES_GREP_LONG = frozenset({"--files-with-matches", "--ignore-case", "--no-messages",
                              "--extended-regexp", "--fixed-strings", "--basic-regexp",
                              "--perl-regexp", "--word-regexp", "--line-regexp",
                              "--invert-match", "--binary", "--null"})


def _names_grep(script: Script, xargs, *, null: bool | None) -> int | None:
    """The index of the ``grep -l PATTERN`` that ``xargs`` (a stage of the line) runs, when it
    prints names only, as it was given them: ``-Z``/``--null`` exactly when the xargs reading
    its output splits at NULs (``null``; None: either). None for anything else."""
    inner = [i for i, c in enumerate(script.commands)
             if c.parent is not None and script.commands[c.parent] is xargs and c.via
             and c.via[-1] is Via.XARGS]
    if len(inner) != 1 or not _one_at_a_time(xargs.words[1:]):
        return None
    cmd = script.commands[inner[0]]
    if cmd.name != "grep" or cmd.assignments or cmd.redirects:
        return None
    letters: set[str] = set()
    longs: set[str] = set()
    words = list(cmd.args)
    pattern = False
    while words and words[0].text.startswith("-") and words[0].text != "-":
        w = words.pop(0)
        t = w.text
        if not w.static or w.glob:
            return None
        if t == "--":
            break
        if t in ("-e", "--regexp") and words and words[0].static:
            words.pop(0)
            pattern = True
        elif t.startswith("--"):
            if t not in _NAMES_GREP_LONG:
                return None
            longs.add(t)
        elif all(c in _NAMES_GREP_SWITCHES or c == "Z" for c in t[1:]):
            letters.update(t[1:])
        else:
            return None
    zero = "Z" in letters or "--null" in longs
    if not ("l" in letters or "--files-with-matches" in longs) or (null is not None and zero != null):
        return None
    if not pattern:   # the pattern, then no operand: the names are xargs's
        if not words or not words[0].static or words[0].glob:
            return None
        words.pop(0)
    return inner[0] if not words else None


def _one_at_a_time(words: tuple[Word, ...]) -> bool:
    """No ``-P N`` other than 1 among xargs's words: parallel greps share the pipe and flush
    their buffers at any byte, so one name could end in the middle of another (``src/a-rf``
    read as ``src/a`` and ``-rf``)."""
    for i, w in enumerate(words):
        t = w.text
        value = (words[i + 1].text if t == "-P" and i + 1 < len(words) else t[2:] if t.startswith("-P")
                 else t.split("=", 1)[1] if t.startswith("--max-procs=") else None)
        if t == "--max-procs" or value is not None and value != "1":
            return False
    return True


# ripgrep listing names (``--files``, ``-l``): switches that only choose which files, and
# options whose value does the same. No -L (links followed), no --pre/-z (programs run).
_RG_SWITCHES = frozenset({"--files", "-l", "--files-with-matches", "--hidden", "-.", "--no-ignore",
                          "-u", "-uu", "-i", "--ignore-case", "-S", "--smart-case", "-s",
                          "--case-sensitive", "-F", "--fixed-strings", "-w", "--word-regexp",
                          "-x", "--line-regexp", "--no-messages"})
_RG_VALUED = frozenset({"-t", "--type", "-T", "--type-not", "-g", "--glob", "--iglob", "-d",
                        "--max-depth", "-e", "--regexp"})


def _rg_starts(args: tuple[Word, ...], *, null: bool) -> list[str] | None:
    """Where ``rg --files [DIR …]`` or ``rg -l PATTERN [DIR …]`` walks (its names are paths
    below those, the cwd's without ``./``); None for any other form."""
    words, flags, pattern = list(args), set(), False
    operands: list[Word] = []
    while words:
        w = words.pop(0)
        t = w.text
        if not w.static or w.glob:
            return None
        if t in _RG_VALUED and words and words[0].static:
            words.pop(0)
            pattern = pattern or t in ("-e", "--regexp")
        elif t in _RG_SWITCHES or (t in ("-0", "--null") and null):
            flags.add(t)
        elif t.startswith("-"):
            return None
        else:
            operands.append(w)
    lists = "--files" in flags
    if lists == bool(flags & {"-l", "--files-with-matches"}) or null != bool({"-0", "--null"} & flags):
        return None   # exactly one of the two forms; NUL-ended names only for xargs -0
    if not lists and not pattern:
        if not operands:
            return None
        operands = operands[1:]   # the pattern
    if any(not _plain_start(w.text) for w in operands):
        return None
    return [w.text for w in operands] or ["."]


def _find_starts(args: tuple[Word, ...], *, null: bool) -> list[str] | None:
    """Where find walks — its start points after its leading options (``find.leading_options``:
    ``find -P ../other`` walks ../other, not the cwd; -H/-L follow links, -D prints more) —
    when its expression only tests and prints names, as xargs splits them; else None."""
    from ..commands.find import leading_options

    opts, i = leading_options(args)
    if set(opts) & {"-H", "-L", "-D"}:
        return None
    starts: list[str] = []
    while i < len(args) and not _FIND_EXPR_START.match(args[i].text):
        w = args[i]
        if not w.static or w.glob or not _plain_start(w.text):
            return None
        starts.append(w.text)
        i += 1
    expr = args[i:]
    if any(not w.static or w.text in _FIND_REFUSED for w in expr):
        return None
    prints = {w.text for w in expr} & {"-print", "-print0"}
    if prints != ({"-print0"} if null else prints - {"-print0"}):
        return None   # every name NUL-ended exactly when xargs splits at NULs (`src\n` is a name)
    return starts or ["."]


def _ls_files_plain(args: tuple[Word, ...], *, null: bool) -> bool:
    """``ls-files``, then only ``-c``/``--cached`` (``-z`` exactly when xargs splits at NULs),
    an optional ``--`` and plain relative pathspecs: the output is index entries, one a line."""
    if not args or not args[0].static or args[0].text != "ls-files":
        return False
    if null != any(w.text == "-z" for w in args[1:]):
        return False
    for w in args[1:]:
        t = w.text
        if not w.static or w.glob:
            return False
        if t in ("-c", "--cached", "--") or (t == "-z" and null):
            continue
        parts = [p for p in t.split("/") if p]
        if t.startswith(("-", ":", "/")) or not parts or ".." in parts or not _plain_start(t):
            return False
    return True


_NOT_IN_INDEX = frozenset({".", "..", ".git"})   # components git never adds (folded case)


def _index_plain(cwd: Path, ctx: Context, *, at: bool = False) -> bool:
    """Every entry of the index of ``cwd``'s repository has plain components (what ``git
    ls-files`` may print there) and is no secret by name (``resolve.leak_among``); false
    when there is no work tree or the index is not read. git checks the names it adds, not
    the names it reads: a hand-made index may hold ``../home/.ssh/id_rsa`` or ``.git/config``,
    and the walk of the cwd on disk never meets them — so ``.``, ``..`` and ``.git`` (any
    case) void the proof, and the names themselves go through the leak rules. ``at``: the
    command reads ``@FILE`` as a response file, so a component starting with ``@`` voids it
    too (the first one of a name relative to the cwd is what counts; any is a superset)."""
    from ..git import index
    from .resolve import leak_among

    found = index.tracked(cwd, BUDGET)
    if found is None or found[1] is None:
        return False
    top, names = found
    try:
        parts = [p for n in names for p in n.decode("ascii").split("/")]
    except UnicodeDecodeError:
        return False
    if not all(_PLAIN.fullmatch(p) and p.lower() not in _NOT_IN_INDEX and not (at and p[0] == "@")
               for p in parts) or leak_among(str(top), names, ctx) is not None:
        return False
    return not any(_tracked_leak(os.path.join(str(top), n.decode("ascii")), ctx) for n in names)


def _tracked_leak(path: str, ctx: Context) -> bool:
    """Whether the work-tree file of an index entry is a link to a secret, or a directory (a
    submodule's) with one below — wherever it lies (the walk of the cwd skips
    ``node_modules``): ``resolve.leak_at``."""
    from .resolve import leak_at

    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return False
    if not (stat.S_ISLNK(mode) or stat.S_ISDIR(mode)):
        return False
    return leak_at(path, ctx, link=stat.S_ISLNK(mode), below=True) is not None


def _plain_start(text: str) -> bool:
    parts = [p for p in text.split("/") if p]
    return text[:1] != "-" and all(_PLAIN.fullmatch(p) for p in parts) and (parts or text == "/")


def _reads_given_names(cmd) -> bool:
    """A table command that takes any number of operands (``xxd IN OUT`` writes its second,
    ``uniq`` too), each the path of a file it reads or looks at (``roles.operands_are_files``:
    ``finger``'s are users at hosts, ``ss dst``'s host names), and, if it has a pattern or
    program, is given it already: the appended words are then more operands of the same
    kind. With ``xargs -I R`` nothing is appended: xargs pastes each name into every word
    holding R (``Word.pasted``), so each such word must be R alone and one of the command's
    file operands as its table reads them — not its pattern or program (``sed -n R R`` with a
    name ``1e.`` runs the sed command ``e``, ``jq R R`` with a name ``env`` prints the
    environment), not an option's value (``grep -e R``), not an option (``sort -n`` with
    ``-I n`` is ``sort -ofoo``: ``spec.is_wild``)."""
    from ..commands import registry
    from ..commands.spec import Command, is_wild, read_args
    from .roles import operands_are_files

    spec = registry.lookup(cmd.name or "")
    if not isinstance(spec, Command) or spec.free or spec.max_operands is not None:
        return False
    if not operands_are_files(cmd.name or ""):
        return False   # `xargs tee` truncates each file, `xargs finger` connects to u@host
    parsed = read_args(spec, cmd.args)
    given = spec.pattern_from is None or parsed.has(*spec.pattern_from)
    pasted = [w for w in cmd.args if w.pasted]
    if not pasted:
        return given or bool(parsed.operands)
    files = parsed.operands if given else parsed.operands[1:]
    return all(w.text == w.pasted and not is_wild(w) and any(w is f for f in files) for w in pasted)


@record
class _Prints:
    """Which entries of the walk of a start point the producer may print — a superset: find's
    expression read as far as it is a conjunction of the tests below (anything else: every
    entry), rg's files. ``tests``: find's ``-name``/``-iname``/``-type`` before its first
    ``-print``, each of which must hold; ``mindepth``/``maxdepth`` find's; ``dirs``: a
    directory may be printed (rg prints files only); ``hidden``: an entry with a name starting
    with ``.`` on its way may be printed (rg without ``--hidden``, with no whitelist: no)."""

    tests: tuple[tuple[str, str], ...] = ()
    mindepth: int = 0
    maxdepth: int | None = None
    dirs: bool = True
    hidden: bool = True

    def match(self, name: str, depth: int, kind: str, hidden: bool) -> bool:
        """Whether the entry ``name`` at ``depth`` (0: the start point), of ``kind`` (find's
        ``-type`` letter, ``?`` unknown), below a dot-name (``hidden``) may be printed."""
        if depth < self.mindepth or (self.maxdepth is not None and depth > self.maxdepth):
            return False
        if (kind == "d" and not self.dirs) or (hidden and not self.hidden):
            return False
        for test, value in self.tests:
            if test == "-type":
                if kind != "?" and kind not in value.split(","):
                    return False
            elif not any(c in value for c in "[\\"):   # a class or an escape: maybe
                fold = str.lower if test == "-iname" else str
                if not fnmatch.fnmatchcase(fold(name), fold(value)):
                    return False
        return True


_FIND_TESTS = frozenset({"-name", "-iname", "-type", "-maxdepth", "-mindepth"})
_RG_HIDDEN = frozenset({"--hidden", "-.", "-uu"})


def _prints(origin) -> _Prints | None:
    """The entries ``origin`` (a find or rg that :func:`_roots` accepted) may print."""
    if origin is None:
        return None
    if origin.name == "rg":
        return _Prints(dirs=False, hidden=any(w.text in _RG_HIDDEN for w in origin.args))
    from ..commands.find import leading_options

    args = origin.args
    i = leading_options(args)[1]
    while i < len(args) and not _FIND_EXPR_START.match(args[i].text):
        i += 1
    tests: list[tuple[str, str]] = []
    depth = {"-mindepth": 0, "-maxdepth": None}
    expr = args[i:]
    k = 0
    while k < len(expr):
        t = expr[k].text
        if t in ("-print", "-print0"):
            break
        if t in ("-a", "-and"):
            k += 1
            continue
        if t not in _FIND_TESTS or k + 1 >= len(expr):
            return _Prints()   # -o, !, (, -path … : every entry may be printed
        value = expr[k + 1].text
        if t in depth:
            if not value.isdigit():
                return _Prints()
            depth[t] = int(value)
        else:
            tests.append((t, value))
        k += 2
    return _Prints(tuple(tests), depth["-mindepth"] or 0, depth["-maxdepth"])


_IGNORE_FILES = (".gitignore", ".ignore", ".rgignore")


def _whitelist(path: str) -> bool:
    """Whether the ignore file ``path`` has a line starting with ``!``, which makes rg list
    the hidden names it matches (``!.env`` lists ``.env``); an unreadable one may."""
    try:
        return any(line.startswith(b"!") for line in read_head(path, 1 << 20).splitlines())
    except FileNotFoundError:
        return False
    except OSError:
        return True


def _rg_whitelists(starts: list[str], cwds: tuple[Path, ...], ctx: Context) -> bool:
    """Whether an ignore file rg reads outside its walk may whitelist a hidden name: in a
    directory above a start point (rg reads parents' ``.gitignore``/``.ignore``/``.rgignore``),
    a repository's ``.git/info/exclude`` there, or the user's global git excludes (any
    ``excludesfile`` setting counts). The walk itself voids the proof at such a file below."""
    home = str(ctx.home)
    if _whitelist(os.path.join(home, ".config", "git", "ignore")):
        return True
    for config in (os.path.join(home, ".gitconfig"), os.path.join(home, ".config", "git", "config")):
        try:
            if b"excludesfile" in read_head(config, 1 << 20).lower():
                return True
        except FileNotFoundError:
            continue
        except OSError:
            return True
    for c in cwds:
        for s in starts:
            d = os.path.realpath(os.path.join(str(c), s))
            while True:
                d = os.path.dirname(d)
                if any(_whitelist(os.path.join(d, n)) for n in _IGNORE_FILES) \
                        or _whitelist(os.path.join(d, ".git", "info", "exclude")):
                    return True
                if d == "/":
                    break
    return False


def _kind(e: os.DirEntry) -> str:
    """find's ``-type`` letter of a walked entry (links not followed); ``?`` for the others."""
    if e.is_symlink():
        return "l"
    if e.is_dir(follow_symlinks=False):
        return "d"
    return "f" if e.is_file(follow_symlinks=False) else "?"


def _walk_ok(root: str, start: str, prints: _Prints, ctx: Context) -> bool:
    """Every name below ``root`` (the start point ``start``, itself included) plain, within
    ``BUDGET`` entries, links not followed (find does not follow them either); and no entry
    the producer may print (``prints``) a secret by the leak rules, skipping nothing
    (``resolve.leak_at``: the recursive reader's check skips ``node_modules`` and ``.git``,
    but ``find src | xargs cat`` reads ``src/node_modules/pkg/.env``): by its name, where it
    links to, and — a directory the command may recurse into — anything below it. For rg, an
    ignore file below that whitelists (``!``) voids it: rg would list hidden names."""
    from .resolve import leak_at

    is_dir = os.path.isdir(root) and not os.path.islink(root)
    name = os.path.basename(start.rstrip("/")) or start
    covered = prints.match(name, 0, "d" if is_dir else "f", False)
    if covered and leak_at(root, ctx, link=False, below=is_dir) is not None:
        return False
    if not is_dir:
        return True
    budget = BUDGET
    todo = [(root, 1, covered, False)]
    while todo:
        d, depth, covered, hidden = todo.pop()
        with os.scandir(d) as it:
            for e in it:
                budget -= 1
                if budget < 0 or not _PLAIN.fullmatch(e.name):
                    return False
                if not prints.hidden and (e.name in _IGNORE_FILES or e.name == "exclude"
                                          and d.endswith("/.git/info")) and _whitelist(e.path):
                    return False
                kind = _kind(e)
                below = hidden or e.name.startswith(".")
                printed = not covered and prints.match(e.name, depth, kind, below)
                if printed and leak_at(e.path, ctx, link=kind == "l", below=kind == "d") is not None:
                    return False
                if kind == "d":
                    todo.append((e.path, depth + 1, covered or printed, below))
    return True
