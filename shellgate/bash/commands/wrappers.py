"""Wrappers: commands whose arguments hold another command that they run.

The walker (``walk.py``) keeps the wrapper in ``Script.commands`` and adds the inner command
as a new :class:`~shellgate.bash.ir.Command` with ``via + (WRAPPER|XARGS|FIND_EXEC|SHELL_C,)``
and ``parent`` = the wrapper's index. This module only says *where* the inner command is.

Table semantics (:class:`Wrapper`):

* options are read getopt-style until the first operand or ``--``: ``value`` options take an
  argument (``-u USER``, ``-uUSER``, ``--user USER``, ``--user=USER``), ``flags`` take none;
  long options may be abbreviated to any unambiguous prefix, as GNU getopt allows;
* ``noexec`` options mean the operands are not a command (``sudo -e FILE``, ``command -v``):
  there is no inner command;
* an option not in the table, a dynamic word (``$x``) before the command, or anything else
  that cannot be read statically gives *no* inner command — never a guessed one. The
  classifier then refuses the wrapper itself, since it does not know what it runs;
* ``operands`` fixed operands come before the command (``timeout DURATION``, ``chroot DIR``);
  ``assignments``: ``NAME=VALUE`` words may come before it (``env``);
* ``shell``: the inner command is a script string (``bash -c SCRIPT``, ``eval ARGS…``); the
  walker parses it again when the words are static, else the inner stays unknown.

``find`` (``-exec``/``-execdir``/``-ok``/``-okdir`` … ``;`` or ``{} +``), ``xargs`` (whose
command also gets arguments from stdin), the shells, ``watch`` (``sh -c`` of its joined
arguments, or the argv itself with ``-x``), ``trap ACTION SIGNAL…`` (the action is a script
run later) and ``let`` (each argument is arithmetic, where ``a[$(cmd)]`` runs ``cmd`` even
from single-quoted text: ``Inner.via`` is ARITH and the walker parses ``((ARG))``) are
special-cased below. ``source`` and ``.`` are not wrappers (they run a file the classifier
must refuse).
"""

from __future__ import annotations

import re

from ..._record import record, replace
from ..ir import Via, Word


@record
class Wrapper:
    name: str
    value: frozenset[str] = frozenset()     # options that take an argument
    flags: frozenset[str] = frozenset()     # options that take none
    noexec: frozenset[str] = frozenset()    # options after which nothing is run
    optional: frozenset[str] = frozenset()  # options whose value may only be attached
    operands: int = 0                       # fixed operands before the command
    assignments: bool = False               # NAME=VALUE words before the command
    numeric_flags: bool = False             # `nice -10 cmd`: -N is an option
    via: Via = Via.WRAPPER


@record
class Inner:
    """One command a wrapper runs: ``words`` its argv, or ``script`` (SHELL_C) the words
    whose static texts joined by a space form a script to parse."""

    via: Via
    words: tuple[Word, ...] = ()
    script: tuple[Word, ...] = ()


def _f(*names: str) -> frozenset[str]:
    return frozenset(names)


WRAPPERS: dict[str, Wrapper] = {w.name: w for w in (
    Wrapper("sudo",
            value=_f("-u", "--user", "-g", "--group", "-p", "--prompt", "-C", "--close-from",
                     "-r", "--role", "-t", "--type", "-U", "--other-user", "-D", "--chdir",
                     "-R", "--chroot", "-T", "--command-timeout", "--host"),
            flags=_f("-A", "--askpass", "-b", "--background", "-E", "--preserve-env", "-H",
                     "--set-home", "-n", "--non-interactive", "-P", "--preserve-groups",
                     "-S", "--stdin", "-s", "--shell", "-i", "--login", "-k", "--reset-timestamp",
                     "-B", "--bell", "-N", "--no-update"),
            noexec=_f("-e", "--edit", "-l", "--list", "-v", "--validate", "-V", "--version",
                      "-K", "--remove-timestamp", "-h", "--help"),
            assignments=True),
    Wrapper("doas", value=_f("-u"), flags=_f("-n", "-s"), noexec=_f("-C", "-L")),
    Wrapper("env",
            value=_f("-u", "--unset", "-C", "--chdir", "--block-signal", "--default-signal",
                     "--ignore-signal"),
            flags=_f("-i", "--ignore-environment", "-0", "--null", "-v", "--debug", "-"),
            noexec=_f("--help", "--version", "--list-signal-handling"),
            assignments=True),  # -S/--split-string is not listed: its command is unknown
    Wrapper("command", flags=_f("-p"), noexec=_f("-v", "-V")),
    Wrapper("builtin"),
    Wrapper("exec", value=_f("-a"), flags=_f("-c", "-l")),
    Wrapper("nice", value=_f("-n", "--adjustment"), noexec=_f("--help", "--version"),
            numeric_flags=True),
    Wrapper("nohup", noexec=_f("--help", "--version")),
    Wrapper("busybox", noexec=_f("--help", "--list", "--list-full", "--install")),
    Wrapper("toybox", noexec=_f("--help", "--version", "--long")),
    Wrapper("timeout", value=_f("-s", "--signal", "-k", "--kill-after"),
            flags=_f("--preserve-status", "--foreground", "-v", "--verbose"),
            noexec=_f("--help", "--version"), operands=1),
    Wrapper("time", value=_f("-f", "--format", "-o", "--output"),
            flags=_f("-p", "--portability", "-v", "--verbose", "-a", "--append", "-q", "--quiet"),
            noexec=_f("--help", "-V", "--version")),
    Wrapper("stdbuf", value=_f("-i", "--input", "-o", "--output", "-e", "--error"),
            noexec=_f("--help", "--version")),
    Wrapper("ionice", value=_f("-c", "--class", "-n", "--classdata"),
            flags=_f("-t", "--ignore"), noexec=_f("-p", "--pid", "-P", "--pgid", "-u", "--uid",
                                                 "-h", "--help", "-V", "--version")),
    Wrapper("setsid", flags=_f("-c", "--ctty", "-f", "--fork", "-w", "--wait"),
            noexec=_f("-h", "--help", "-V", "--version")),
    Wrapper("chroot", value=_f("--userspec", "--groups"), flags=_f("--skip-chdir"),
            noexec=_f("--help", "--version"), operands=1),
    Wrapper("xargs",
            value=_f("-I", "-n", "--max-args", "-P", "--max-procs", "-d",
                     "--delimiter", "-E", "-L", "-s", "--max-chars",
                     "-a", "--arg-file", "--process-slot-var"),
            flags=_f("-0", "--null", "-r", "--no-run-if-empty", "-t", "--verbose", "-p",
                     "--interactive", "-x", "--exit", "-o", "--open-tty"),
            noexec=_f("--help", "--version", "--show-limits"),
            optional=_f("-i", "--replace", "--eof", "--max-lines"),   # value only as --eof=END
            via=Via.XARGS),
)}

_WATCH = Wrapper("watch", value=_f("-n", "--interval", "-q", "--equexit"),
                 flags=_f("-d", "--differences", "-t", "--no-title", "-b", "--beep", "-e",
                          "--errexit", "-g", "--chgexit", "-c", "--color", "-C", "--no-color",
                          "-p", "--precise", "-w", "--no-wrap", "-r", "--no-rerun", "-x",
                          "--exec"),
                 noexec=_f("-h", "--help", "-v", "--version"))

SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "mksh", "busybox-sh"})
_SHELL_VALUE = frozenset("oO")     # -o OPTION, -O SHOPT (also +o/+O)
_SHELL_LONG = frozenset({"--login", "--norc", "--noprofile", "--posix", "--noediting",
                         "--restricted", "--verbose", "--debugger", "--dump-strings",
                         "--dump-po-strings", "--pretty-print"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
# find options that come before the paths
_FIND_PRE = frozenset({"-H", "-L", "-P"})


class _Unknown(Exception):
    """The inner command cannot be determined statically."""


def _basename(name: str) -> str:
    return name.rsplit("/", 1)[-1]


def _long(opt: str, known: frozenset[str]) -> str | None:
    """Resolve a long option or its unambiguous abbreviation (getopt_long rules)."""
    if opt in known:
        return opt
    hits = [k for k in known if k.startswith("--") and k.startswith(opt)]
    return hits[0] if len(hits) == 1 else None


def _options(w: Wrapper, words: tuple[Word, ...], i: int,
             seen: list[tuple[str, str]] | None = None) -> int | None:
    """Skip the wrapper's options from ``words[i]``; the index of the first operand, or None
    when an option means nothing is run. Raises _Unknown on anything unrecognised. ``seen``
    collects each option that takes a value, with its value (``""`` for an optional one
    given none), in the order given: a later option may undo an earlier one (xargs)."""
    known = w.value | w.flags | w.noexec | w.optional
    seen = [] if seen is None else seen
    while i < len(words):
        word = words[i]
        if not word.static or word.glob:
            raise _Unknown
        t = word.text
        if t == "--":
            return i + 1
        if t == "-" and "-" in w.flags:
            i += 1
            continue
        if not t.startswith("-") or t == "-":
            return i
        if t.startswith("--"):
            name, eq, _ = t.partition("=")
            opt = _long(name, known)
            if opt is None:
                raise _Unknown
            if opt in w.noexec:
                return None
            if opt in w.value:
                if not eq and i + 1 >= len(words):
                    raise _Unknown
                seen.append((opt, t.partition("=")[2] if eq else words[i + 1].text))
                i += 1 if eq else 2
            elif opt in w.optional:
                seen.append((opt, t.partition("=")[2]))
                i += 1
            elif eq:
                raise _Unknown
            else:
                i += 1
            continue
        if w.numeric_flags and t[1:].isdigit():
            i += 1
            continue
        j = 1
        while j < len(t):
            opt = "-" + t[j]
            if opt in w.noexec:
                return None
            if opt in w.value:
                if j + 1 >= len(t) and i + 1 >= len(words):
                    raise _Unknown
                seen.append((opt, t[j + 1:] if j + 1 < len(t) else words[i + 1].text))
                i += 1 if j + 1 < len(t) else 2
                break
            if opt in w.optional:
                seen.append((opt, t[j + 1:]))
                i += 1
                break
            if opt not in w.flags:
                raise _Unknown
            j += 1
        else:
            i += 1
    return i


def _generic(w: Wrapper, words: tuple[Word, ...]) -> tuple[Inner, ...]:
    seen: list[tuple[str, str]] = []
    i = _options(w, words, 1, seen)
    if i is None:
        return ()
    i += w.operands
    if w.assignments:
        while i < len(words) and "=" in words[i].text and not words[i].text.startswith("="):
            if not words[i].static:
                raise _Unknown
            i += 1
    if i >= len(words):
        return ()
    inner = words[i:]
    if w.name == "xargs":
        inner = (inner[0], *_spliced(inner[1:], _replace_string(seen), whole=True))
    return (Inner(w.via, words=inner),)


def _replace_string(seen: list[tuple[str, str]]) -> str | None:
    """The string xargs replaces with each input line (``-I R``, ``-i[R]``, ``--replace[=R]``;
    ``{}`` by default), or None without one. A later ``-I`` wins over an earlier ``-L``/``-n``
    in every xargs, and ``-n 1`` after ``-I`` changes nothing (one line per command anyway).
    But GNU xargs (findutils 4.9, measured) lets a later ``-L N``/``--max-lines[=N]``, or
    ``-n N``/``--max-args=N`` with N other than 1, cancel the replacement ("--replace and -L
    are mutually exclusive, ignoring previous --replace value": ``xargs -I {} -L 2 cat {}``
    runs ``cat {} a b``, ``{}`` a literal name, the input appended), while BSD xargs keeps
    it: which words get the names depends on the xargs, so no inner command is known."""
    pattern: str | None = None
    for opt, v in seen:
        if opt in ("-I", "-i", "--replace"):
            pattern = v or "{}" if opt != "-I" else v
            if pattern == "":  # an empty replace string: what would it replace?
                raise _Unknown
        elif opt in ("-L", "--max-lines") and pattern is not None:
            raise _Unknown
        elif opt in ("-n", "--max-args") and pattern is not None:
            count = _COUNT.fullmatch(v)   # read as strtol does: ' 1' and '+1' are 1
            if count is None or int(count.group(1)) != 1:
                raise _Unknown
    return pattern


_COUNT = re.compile(r"[ \t\n\v\f\r]*\+?(\d+)")


def _spliced(words: tuple[Word, ...], placeholder: str | None, *, whole: bool = False) -> tuple[Word, ...]:
    """The inner words with every word that holds ``placeholder`` made dynamic (``pasted``):
    find and xargs paste a file name or input line there at run time, so a script
    (``sh -c 'echo {}'``, ``awk '/{}/'``, ``sed 's/{}/x/'``) is data turned code, and an option
    word is the name's letters (``xargs -I n sort -n x`` runs ``sort -ofoo x`` for a name
    ``ofoo``: ``spec.is_wild``). ``whole`` (xargs): a word that is just the placeholder too —
    xargs replaces it in every argument (not in the command name: GNU xargs ``-t`` shows it
    kept) with a line of its input, and only the proof of ``paths/xargsnames.py`` says what
    that line is and where the command may take it (a file operand, never a script, filter or
    option value). find's ``{}`` alone stays as it is: one argument, a path starting with a
    start point that find names (where it is a program, the classifier refuses it — see
    ``spec.run_checks``)."""
    if not placeholder:
        return words
    return tuple(replace(w, static=False, pasted=placeholder)
                 if placeholder in w.text and (whole or w.text != placeholder) else w for w in words)


def _shell(words: tuple[Word, ...]) -> tuple[Inner, ...]:
    """``bash [options] -c SCRIPT [name [args…]]``. Without ``-c`` it runs a file or reads
    stdin: no inner command is known."""
    i, has_c = 1, False
    while i < len(words):
        word = words[i]
        if not word.static:
            raise _Unknown
        t = word.text
        if t == "--" or t == "-":
            i += 1
            break
        if t.startswith("--"):
            if t not in _SHELL_LONG:
                raise _Unknown
            i += 1
            continue
        if len(t) < 2 or t[0] not in "-+":
            break
        letters = t[1:]
        if any(c in _SHELL_VALUE for c in letters):
            if letters[-1] not in _SHELL_VALUE or sum(c in _SHELL_VALUE for c in letters) > 1:
                raise _Unknown
            i += 2
        else:
            i += 1
        if not letters.replace("c", "").isalpha() and letters != "c":
            raise _Unknown
        if t[0] == "-" and "c" in letters:
            has_c = True
    if not has_c or i >= len(words):
        return ()
    return (Inner(Via.SHELL_C, script=(words[i],)),)


def _find(words: tuple[Word, ...]) -> tuple[Inner, ...]:
    out: list[Inner] = []
    i = 1
    while i < len(words):
        t = words[i].text
        if not words[i].static and words[i].text in _FIND_EXEC:
            raise _Unknown
        if t in _FIND_EXEC and words[i].static:
            j = i + 1
            while j < len(words):
                tj = words[j].text
                if words[j].static and tj == ";":
                    break
                if words[j].static and tj == "+" and words[j - 1].text == "{}":
                    break
                j += 1
            else:
                raise _Unknown  # unterminated -exec: find itself refuses to run
            if j == i + 1:
                raise _Unknown
            out.append(Inner(Via.FIND_EXEC, words=_spliced(words[i + 1:j], "{}")))
            i = j + 1
            continue
        i += 1
    return tuple(out)


def _watch(words: tuple[Word, ...]) -> tuple[Inner, ...]:
    i = _options(_WATCH, words, 1)
    if i is None or i >= len(words):
        return ()
    opts = [w.text for w in words[1:i]]
    exec_ = any(t == "--exec" or (t.startswith("-") and not t.startswith("--") and "x" in t)
                for t in opts)
    if exec_:
        return (Inner(Via.WRAPPER, words=words[i:]),)
    return (Inner(Via.SHELL_C, script=words[i:]),)


def _trap(words: tuple[Word, ...]) -> tuple[Inner, ...]:
    args = list(words[1:])
    if args and args[0].static and args[0].text == "--":
        args = args[1:]
    if len(args) < 2 or (args[0].static and args[0].text in ("-", "-l", "-p", "")):
        return ()
    return (Inner(Via.SHELL_C, script=(args[0],)),)


def unwrap(words: tuple[Word, ...]) -> tuple[Inner, ...]:
    """The commands that a simple command with argv ``words`` runs itself (empty if it is
    not a wrapper, runs nothing, or what it runs is not statically known)."""
    if not words or not words[0].static or words[0].glob:
        return ()
    name = _basename(words[0].text)
    try:
        if name in WRAPPERS:
            return _generic(WRAPPERS[name], words)
        if name in SHELLS:
            return _shell(words)
        if name == "eval":
            if len(words) < 2:
                return ()
            return (Inner(Via.SHELL_C, script=words[1:]),)
        if name == "find":
            return _find(words)
        if name == "watch":
            return _watch(words)
        if name == "trap":
            return _trap(words)
        if name == "let":
            return tuple(Inner(Via.ARITH, script=(w,)) for w in words[1:])
    except _Unknown:
        return ()
    return ()
