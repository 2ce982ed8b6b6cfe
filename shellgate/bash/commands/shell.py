"""Shell builtins and tiny utilities that only print or change the shell's own state harmlessly.

``cd`` is read-only here: it changes the shell's working directory and nothing on disk. The
classifier follows static ``cd`` targets (so a later ``git status`` is checked against the
repository it will really run in, and relative write targets resolve correctly); ``cd -`` and
``popd`` go somewhere unknown, after which relative write targets are refused.

``set`` may only toggle the error/trace options agents use (``set -euo pipefail``).
``printf -v`` assigns (and evaluates ``a[$(cmd)]`` subscripts), ``test -v``/``-R`` evaluate
subscripts too (verified in bash 5.2); the ``test``/``[`` builtins do not evaluate arithmetic
for ``-eq`` (only ``[[ ]]`` does, see ``readonly.py``).
"""

from __future__ import annotations

from collections.abc import Iterable

from .spec import Call, Command, Finding, Flag, Parsed, Takes, is_wild, may_split

V = Takes.VALUE

CD = Command("cd", reads=False, max_operands=1, permute=False,
             safe=[Flag("-L"), Flag("-P"), Flag("-e"), Flag("-@")])
PUSHD = Command("pushd", reads=False, max_operands=1, permute=False, safe=[Flag("-n")])
DIRS = Command("dirs", reads=False, free=True)


POPD = Command("popd", reads=False, max_operands=0, safe=[Flag("-n")])

ECHO = Command("echo", reads=False, free=True)
TRUE = Command("true", reads=False, free=True, aliases=(":",))
FALSE = Command("false", reads=False, free=True)
SLEEP = Command("sleep", reads=False, free=True)
# Their numeric arguments are read with legal_number (no arithmetic evaluation; checked in bash 5.2).
EXIT = Command("exit", reads=False, free=True, aliases=("return", "break", "continue", "shift", "times"))
WAIT = Command("wait", reads=False, safe=[Flag("-n"), Flag("-f")],
               unsafe={Flag("-p", takes=V): "assigns a variable (and evaluates a[$(cmd)] subscripts)"})
JOBS = Command("jobs", reads=False, safe=[Flag("-l"), Flag("-n"), Flag("-p"), Flag("-r"), Flag("-s")],
               unsafe={Flag("-x"): "runs a command"})

# printf stops at its first operand (the format); -v NAME assigns.
PRINTF = Command("printf", reads=False, permute=False,
                 unsafe={Flag("-v", takes=V): "assigns a variable (and evaluates a[$(cmd)] subscripts)"})

# help [-dms] [PATTERN …]: bash prints the built-in help text of every builtin whose name matches
# a PATTERN (a glob matched against builtin names, not files); strace: it opens nothing.
HELP = Command("help", reads=False, permute=False, abbrev=False,
               safe=[Flag("-d"), Flag("-m"), Flag("-s"), Flag("--help")])

TYPE = Command("type", reads=False, safe=[Flag("-a"), Flag("-f"), Flag("-p"), Flag("-P"), Flag("-t")])
HASH = Command("hash", reads=False, max_operands=0, safe=[Flag("-l"), Flag("-t")],
               extra_operand="remembers command locations (changes which program runs)")


# history: the list alone or its last N entries (in bash -c the list is empty; zsh reads it as
# fc -l). The options read, write or change the list and its file (strace: history and
# history N open no file).
def _history(p: Parsed, call: Call) -> Iterable[Finding]:
    return [Finding(f"history {w.text!r}: only a count of entries is read-only", w.span,
                    "readonly.operand") for w in p.operands if not w.text.isdigit()]


_HIST = "the history file"
HISTORY = Command("history", reads=False, max_operands=1, permute=False, check=_history, unsafe={
    Flag("-c"): "clears the history list", Flag("-d", takes=V): "deletes history entries",
    Flag("-a"): f"appends to {_HIST}", Flag("-w"): f"writes {_HIST}",
    Flag("-r"): f"reads {_HIST} into the list", Flag("-n"): f"reads {_HIST} into the list",
    Flag("-p"): "performs history expansion", Flag("-s"): "adds an entry to the history list"})


# unary file/string tests (not -a/-o, which are also the binary and/or)
_UNARY = frozenset(["-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-p", "-r", "-s", "-t", "-u",
                    "-w", "-x", "-O", "-G", "-L", "-N", "-S", "-n", "-z"])
_BINARY = frozenset(["=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt",
                     "-ot", "-ef"])


def _test(p: Parsed, call: Call) -> Iterable[Finding]:
    """``test``/``[``: ``-v``/``-R`` evaluate a variable name (and its subscript). An expansion
    could itself become ``-v`` — bash decides what is an operator after expanding — so a
    dynamic word is accepted only as the operand of a static operator (``-f "$x"``,
    ``"$x" = y`` with exactly three words), and a word that may split or vanish not at all."""
    words = list(call.command.args)
    out: list[Finding] = []
    if call.command.name == "[":
        if not words or words[-1].text != "]" or not words[-1].static:
            return [Finding("'[' without a closing ']'", call.command.span, "readonly.operand")]
        words = words[:-1]
    for k, w in enumerate(words):
        if w.static and not w.glob:
            if w.text in ("-v", "-R"):
                out.append(Finding(f"test {w.text} evaluates a variable name (a[$(cmd)] runs cmd)",
                                   w.span, "readonly.expansion"))
            continue
        if may_split(w):
            out.append(Finding(f"{w.text!r} may split or vanish and turn into a test operator "
                               "(test -v runs a[$(cmd)])", w.span, "readonly.wild"))
            continue
        prev = words[k - 1] if k else None
        ok = (prev is not None and prev.static and prev.text in _UNARY) or (
            len(words) == 3 and k in (0, 2) and words[1].static and words[1].text in _BINARY)
        if not ok:
            out.append(Finding(f"{w.text!r} could become a test operator (test -v runs a[$(cmd)])",
                               w.span, "readonly.wild"))
    return out


TEST = Command("test", reads=False, free=True, check=_test, wild=True, aliases=("[",))

_SET_OPTIONS = {"errexit", "nounset", "pipefail", "xtrace", "verbose", "noglob", "noclobber"}


def _set(p: Parsed, call: Call) -> Iterable[Finding]:
    words = call.command.args
    out: list[Finding] = []
    i = 0
    while i < len(words):
        w = words[i]
        i += 1
        t = w.text
        if not w.static or is_wild(w):
            out.append(Finding("set with an argument only known at run time", w.span, "readonly.operand"))
        elif t[:1] in ("-", "+") and t[1:] and set(t[1:]) <= set("euxvfCo"):
            if "o" in t[1:]:
                if i >= len(words) or words[i].text not in _SET_OPTIONS:
                    out.append(Finding(f"set {t} with an option not on the read-only list", w.span,
                                       "readonly.flag"))
                i += 1
        else:
            out.append(Finding(f"set {t} changes shell options or positional parameters",
                               w.span, "readonly.flag"))
    return out


SET = Command("set", reads=False, free=True, check=_set)
# expr evaluates its words as an expression and prints the result (only --help/--version as its
# one word are options; a regex match is data). It opens nothing (strace).
EXPR = Command("expr", reads=False, free=True)
# util-linux getopt parses the words after its own options and prints them quoted for a shell.
GETOPT = Command("getopt", reads=False, permute=False, safe=[
    Flag("-a", "--alternative"), Flag("-l", "--longoptions", takes=V), Flag("-n", "--name", takes=V),
    Flag("-o", "--options", takes=V), Flag("-q", "--quiet"), Flag("-Q", "--quiet-output"),
    Flag("-s", "--shell", takes=V), Flag("-T", "--test"), Flag("-u", "--unquoted"),
    Flag("-h", "--help"), Flag("-V", "--version")])

COMMANDS = (CD, PUSHD, POPD, DIRS, ECHO, TRUE, FALSE, SLEEP, EXIT, WAIT, JOBS, PRINTF, TYPE, HASH, HISTORY,
            TEST, SET, EXPR, GETOPT, HELP)
