"""Wrappers seen from the read-only side: a wrapper is read-only only when its own options are
on its positive list and every command it runs is read-only.

The parser's walker (``wrappers.py``) emits each inner command as its own ``Command`` with
``parent`` = the wrapper; the classifier checks those like any other command. Here we read the
wrapper's options with our own tables, find where *we* think the inner command starts, and
insist that the walker emitted exactly that command. If the walker could not tell (an option
it does not know, a dynamic word), or if it disagrees with us, the wrapper is refused: we
never let a command through whose inner command nobody identified.

``sudo``/``doas``/``su``/``pkexec``/``runuser``/``chroot`` are never read-only; ``nohup``
writes ``nohup.out``; ``env NAME=value cmd`` is a prefix assignment in disguise (PAGER, PATH,
LD_PRELOAD …); ``env -S``/``-C`` and ``exec -a`` change what or where the inner command runs;
``env -i``/``-u`` and ``exec -c`` run it without variables the checks read (``_CLEARS``).
``bash -c``/``sh -c``/``dash -c`` are read-only when the script is static and every command in
it is (for ``sh``/``dash``, also when it holds nothing that dash reads differently from bash).
A login shell (``-l``, ``--login``: ``bash -lc`` is how Codex runs every command) reads the
user's profile first: that is the user's own configuration, which no agent may write (the
profile files are implants: the classifier asks and every sandbox binds them read-only), and
the harness runs it for every command anyway, so it does not make the script less read-only.
Interactive shells (``-i``) are refused: they also read ``~/.bashrc`` and rewrite the history
file when they exit. So is ``zsh`` (it always reads ``~/.zshenv``). ``xargs`` appends its
input as arguments: the classifier marks its inner command ``wild_tail`` so only commands
without unsafe options pass, unless ``bash/xargsnames.py`` proves the input plain file names.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..ir import Via, Word
from .spec import Call, Command, Finding, Flag, Parsed, Takes, read_args, write_targets

V = Takes.VALUE

# The checks read the gate's own environment (PATH to find programs, HOME, GIT_CONFIG_GLOBAL,
# GIT_CONFIG_NOSYSTEM …); a command run without some of it is not the command they checked:
# `env -i bash -c tree` runs ./tree (bash's PATH when none is set ends in `.`), `env -u
# GIT_CONFIG_GLOBAL git status` reads a ~/.gitconfig nobody looked at.
_CLEARS = "runs the command without variables of the environment the checks read (PATH, HOME, GIT_*)"

_PRIVILEGED = {
    "sudo": "runs a command as another user", "doas": "runs a command as another user",
    "su": "runs a shell as another user", "pkexec": "runs a command as another user",
    "runuser": "runs a command as another user", "chroot": "runs a command in another root",
    "nohup": "writes nohup.out and keeps the command running after the session",
    "setsid": "runs a command detached in a new session",
}

_SPECS: dict[str, tuple[Command, int, Via]] = {
    # name: (option table, fixed operands before the command, via of the inner command)
    "timeout": (Command("timeout", reads=False, permute=False, safe=[
        Flag("-s", "--signal", takes=V), Flag("-k", "--kill-after", takes=V), Flag("--preserve-status"),
        Flag("--foreground"), Flag("-v", "--verbose")]), 1, Via.WRAPPER),
    "nice": (Command("nice", reads=False, permute=False, numeric=True,
                     safe=[Flag("-n", "--adjustment", takes=V)]),
             0, Via.WRAPPER),
    "ionice": (Command("ionice", reads=False, permute=False, safe=[
        Flag("-c", "--class", takes=V), Flag("-n", "--classdata", takes=V), Flag("-t", "--ignore")]),
        0, Via.WRAPPER),
    "stdbuf": (Command("stdbuf", reads=False, permute=False, safe=[
        Flag("-i", "--input", takes=V), Flag("-o", "--output", takes=V), Flag("-e", "--error", takes=V)]),
        0, Via.WRAPPER),
    "command": (Command("command", reads=False, permute=False, safe=[Flag("-p"), Flag("-v"), Flag("-V")]),
                0, Via.WRAPPER),
    "builtin": (Command("builtin", reads=False, permute=False), 0, Via.WRAPPER),
    "exec": (Command("exec", reads=False, permute=False, safe=[Flag("-l")],
                     unsafe={Flag("-a", takes=V): "sets the program's name (argv[0])",
                             Flag("-c"): _CLEARS}), 0, Via.WRAPPER),
    "time": (Command("time", reads=False, permute=False,
                     safe=[Flag("-p", "--portability"), Flag("-v", "--verbose"), Flag("-q", "--quiet"),
                           Flag("-f", "--format", takes=V)],
                     unsafe={Flag("-o", "--output", takes=Takes.WRITE_PATH): "writes its report to a file",
                             Flag("-a", "--append"): "appends its report to a file"}), 0, Via.WRAPPER),
    "env": (Command("env", reads=False, permute=False, safe=[Flag("-0", "--null"), Flag("-v", "--debug")],
        unsafe={Flag("-i", "--ignore-environment"): _CLEARS, Flag("-u", "--unset", takes=V): _CLEARS,
                Flag("-S", "--split-string", takes=V): "splits a string into a command line",
                Flag("-C", "--chdir", takes=V): "runs the command in another directory",
                Flag("--block-signal", takes=V, optional=True): "changes signal handling",
                Flag("--default-signal", takes=V, optional=True): "changes signal handling",
                Flag("--ignore-signal", takes=V, optional=True): "changes signal handling"}),
            0, Via.WRAPPER),
    "xargs": (Command("xargs", reads=False, permute=False, safe=[
        Flag("-0", "--null"), Flag("-r", "--no-run-if-empty"), Flag("-t", "--verbose"),
        Flag("-x", "--exit"), Flag("-n", "--max-args", takes=V), Flag("-L", takes=V),
        Flag("-P", "--max-procs", takes=V), Flag("-d", "--delimiter", takes=V),
        Flag("-E", takes=V), Flag("-s", "--max-chars", takes=V),
        # GNU xargs: --eof[=END] and --max-lines[=N] take their value only attached (the
        # short -E and -L need one): in `xargs --eof rm` rm is the command.
        Flag("--eof", takes=V, optional=True), Flag("--max-lines", takes=V, optional=True),
        Flag("-I", takes=V), Flag("-i", "--replace", takes=V, optional=True),
        Flag("-a", "--arg-file", takes=Takes.PATH),
        Flag("-p", "--interactive"), Flag("-o", "--open-tty")],
        unsafe={Flag("--process-slot-var", takes=V): "sets an environment variable for the command"}),
        0, Via.XARGS),
}


def children(call: Call, via: Via) -> list[tuple[int, Word | None]]:
    """Commands the walker emitted as run directly by this one through ``via``."""
    out = []
    # the child's chain is the wrapper's chain (without TOP) plus `via`, then (for a nested
    # script) the script's own structure: pipelines, subshells …
    depth = len([v for v in call.command.via if v is not Via.TOP])
    for k, c in enumerate(call.script.commands):
        if c.parent == call.index and len(c.via) > depth and c.via[depth] is via:
            out.append((k, c.words[0] if c.words else None))
    return out


def _same(a: Sequence[Word], b: Sequence[Word]) -> bool:
    return len(a) == len(b) and all(x.span == y.span and x.text == y.text for x, y in zip(a, b, strict=True))


def wrapper(call: Call) -> list[Finding]:
    name = call.command.name or ""
    if name in _PRIVILEGED:
        return [Finding(f"{name} {_PRIVILEGED[name]}", call.command.words[0].span, "readonly.wrapper")]
    spec, fixed, via = _SPECS[name]
    p = read_args(spec, call.command.args, wild_tail=call.wild_tail, cwds=call.cwds)
    out = [*p.findings, *write_targets(spec, p, call)]   # `\time -o F`: where F lies
    if any(f.rule == "readonly.unknown_flag" for f in out):
        return out
    operands = list(p.operands)
    if name == "env" and operands and "=" in operands[0].text:
        a = operands[0]
        return [*out, Finding(f"env {a.text.split('=', 1)[0]}=… sets an environment variable for the "
                              "command it runs", a.span, "readonly.assignment")]
    if name == "command" and p.has("-v", "-V"):
        return out  # `command -v git` only looks the name up
    inner = operands[fixed:]
    if len(operands) < fixed:
        return [*out, Finding(f"{name} without a command", call.command.span, "readonly.operand")]
    if not inner:
        if call.wild_tail and name != "xargs":
            # `xargs env`: the words xargs reads become the command env runs
            out.append(Finding(f"xargs makes its input the command that {name} runs", call.command.span,
                               "readonly.wild"))
        return out  # `env`, `nice`, `xargs` with no command only print
    if name == "xargs" and (undone := _replace_undone(p)) is not None:
        return [*out, undone]
    kids = [call.script.commands[k] for k, _ in children(call, via)]
    if len(kids) != 1 or not _same(kids[0].words, inner):
        out.append(Finding(f"the command run by {name} could not be identified", call.command.span,
                           "readonly.wrapper"))
    return out


_ONE = re.compile(r"[ \t\n\v\f\r]*\+?0*1")   # a count of 1 as strtol reads it


def _replace_undone(p: Parsed) -> Finding | None:
    """An ``-L``/``--max-lines`` or ``-n N`` (N not 1) after xargs's ``-I``: GNU xargs then
    drops the replacement and appends the input, BSD xargs keeps it (``wrappers._replace_string``
    refuses to guess which words get the names)."""
    replacing = False
    for o in p.opts:
        names = o.flag.names
        if "-I" in names or "-i" in names:
            replacing = True
        elif replacing and ("-L" in names or "--max-lines" in names or "-n" in names and not (
                o.value is not None and _ONE.fullmatch(o.value.text))):
            return Finding(f"xargs {o.spelled} after -I: GNU xargs then appends its input instead of "
                           "replacing, BSD xargs still replaces (which words get the names is not known)",
                           o.word.span, "readonly.wrapper")
    return None


_SHELL_FLAGS = set("euxvcfCl")
_SHELL_O = {"pipefail", "errexit", "nounset", "xtrace", "noglob", "posix"}


def shell(call: Call) -> list[Finding]:
    """``bash -c SCRIPT [name args…]``: only ``-c`` with harmless option letters."""
    name = call.command.name or ""
    args = call.command.args
    out: list[Finding] = []
    has_c = False
    i = 0
    while i < len(args):
        w = args[i]
        t = w.text
        if not w.static or w.glob:
            out.append(Finding(f"{name} argument only known at run time (an option, or the script)",
                               w.span, "readonly.wild"))
            return out
        if t in ("--norc", "--noprofile", "--posix", "--login"):
            i += 1
            continue
        if t in ("--", "-"):  # the end of the options: the script is the next word
            i += 1
            break
        if len(t) >= 2 and t[0] in "-+" and t[1] != "-":
            letters = t[1:]
            if not set(letters) <= _SHELL_FLAGS | {"o"}:
                out.append(Finding(f"{name} {t}: option not on the read-only list (-i reads ~/.bashrc "
                                   "and rewrites the history file, -s reads commands from stdin)",
                                   w.span, "readonly.flag"))
                return out
            has_c = has_c or (t[0] == "-" and "c" in letters)
            if "o" in letters:
                i += 1
                if i >= len(args) or args[i].text not in _SHELL_O:
                    out.append(Finding(f"{name} -o with an option not on the read-only list", w.span,
                                       "readonly.flag"))
                    return out
            i += 1
            continue
        break
    if not has_c or (call.wild_tail and i >= len(args)):
        return [Finding(f"{name} without -c runs a script file or reads commands from its input",
                        call.command.span, "readonly.program")]
    if i >= len(args):
        return [Finding(f"{name} -c without a script", call.command.span, "readonly.operand")]
    script = args[i]
    if not script.static:
        return [Finding(f"{name} -c with a script only known at run time", script.span, "readonly.program")]
    if script.text.strip() and not children(call, Via.SHELL_C):
        return [Finding(f"the script run by {name} -c could not be read", script.span, "readonly.wrapper")]
    if name in POSIX_SHELLS:  # every reading must be read-only: bash's (the walker's) and dash's
        out.extend(Finding(f"{name} -c: {why}", script.span, "readonly.dialect")
                   for why in posix_differences(script.text))
    return out


# `sh` is often dash, which has none of bash's extensions: the script bash reads (and the walker
# parsed) may be another script to dash. Each construct below reads differently there, so a
# script that holds one is refused unless it is run by bash itself. Matched on the text (and on
# it with line continuations joined, as both shells join them): quoted occurrences are refused
# too, which costs little (4 read-only `sh -c`/`dash -c` commands in ../shared/corpus-data).
POSIX_SHELLS = frozenset({"sh", "dash"})
_BASH_ONLY = tuple((re.compile(pat), why) for pat, why in (
    (r"\$'", "$'…' is one quoted word in bash, a '$' and a single-quoted string in dash"),
    (r"(?<![^\s;&|()])\[\[", "[[ … ]] is a test in bash, a command with redirections and "
     "operators in dash"),
    (r"(?<!\$)\(\(", "(( … )) is arithmetic in bash, nested subshells in dash"),
    (r"[<>]\(", "<(…) and >(…) are process substitutions in bash, redirections in dash"),
    (r"&>", "&> redirects both outputs in bash; dash runs the command in the background and "
     "truncates the file"),
    (r"\|&", "|& pipes both outputs in bash, a syntax error or another command in dash"),
    (r"<<<", "<<< is a here-string in bash, a here-document in dash"),
    (r";;?&", ";& and ;;& continue a case in bash, not in dash"),
    (r"(?<![^\s;&|()])(?:function|select|coproc)(?=\s)", "function, select and coproc are reserved "
     "words in bash, command names in dash"),
    (r"[\w\]]\+?=\(", "name=(…) assigns an array in bash, not in dash"),
))


def posix_differences(script: str) -> list[str]:
    """Why ``script`` may run differently under dash than under bash (empty: it reads the same)."""
    texts = {script, script.replace("\\\n", "")}
    return [f"{why} (sh may be dash)" for rx, why in _BASH_ONLY if any(rx.search(t) for t in texts)]


def eval_(call: Call) -> list[Finding]:
    words = call.command.args
    if call.wild_tail:
        return [Finding("xargs makes its input the text eval runs", call.command.span, "readonly.wild")]
    if any(not w.static for w in words):
        return [Finding("eval of text only known at run time", call.command.span, "readonly.program")]
    text = " ".join(w.text for w in words)
    if text.strip() and not children(call, Via.SHELL_C):
        return [Finding("the text run by eval could not be read", call.command.span, "readonly.wrapper")]
    return []


CUSTOM: dict[str, Callable[[Call], list[Finding]]] = {
    **dict.fromkeys(_PRIVILEGED, wrapper), **dict.fromkeys(_SPECS, wrapper),
    "bash": shell, "sh": shell, "dash": shell, "eval": eval_,
}
