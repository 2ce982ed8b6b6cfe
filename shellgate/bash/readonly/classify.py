"""Is a parsed script read-only? And if not, what is the strongest thing it may do?

``classify`` walks every command the parser's walker listed (top-level, nested, wrapper
inners) and asks of each, in order:

1. How it runs: a function definition (it could shadow a command) or a coprocess is refused.
2. Assignments: ``VAR=x cmd`` and bare ``VAR=x`` change what later programs do (PAGER, PATH,
   GIT_*, LD_PRELOAD …): refused.
3. Expansions in words, redirect targets, assignment values and unquoted here-doc bodies:
   ``${x@P}``, ``${!x}``, ``${x:=…}``, non-literal subscripts/offsets, arithmetic on anything
   but literal numbers are refused (``commands/expansions.py``). Plain ``$x``, ``"$x"`` and
   ``$(…)`` are fine here: the commands inside a substitution are listed and checked on their
   own, and an expansion that could become an option is handled by the command's table
   (``spec.is_wild``).
4. ``[[ ]]`` and ``(( ))``: arithmetic operands must be literal numbers; ``-v``/``-R`` refused.
5. Redirects: only ``>/dev/null``-style sinks, fd duplications (``2>&1``, ``>&2``), closing an fd,
   and input (``<`` file, here-docs, here-strings) keep a command read-only. An output redirect
   into the workspace is a WRITE, anywhere else (or ``/dev/tcp``) worse.
6. The command name: dynamic names, path-qualified names (``./cat``, ``/bin/cat``), names of
   functions the script defines, and names not on a list are refused; otherwise the command's
   table (``commands/``) decides — including that a command printing file content may not
   read a path only known at run time (``cat $(echo ~/.ssh/id_rsa)``, ``… | xargs cat``): the
   sensitive-path scanner cannot see such a path.
7. Other shells: a word zsh expands differently from bash (glob qualifiers, ``=cmd``, ``$~x``,
   ``$x:h`` …, ``zsh.py``) is refused, whatever the agent's shell.
8. Loops: ``for NAME in …`` assigns NAME (``for PATH in /tmp/evil; do ls; done``): only
   lower-case, non-proxy names are accepted. ``{var}>file`` redirections assign too.

Sensitive-path hits from ``paths.scan`` make the script not read-only and EXEC (the same
scanner guards both decisions, as in the design write-up). A parse error is EXEC.

The effect is the strongest finding: READ < WRITE < NETWORK < EXEC. ``readonly`` is true exactly
when there is no finding at all.

``cd``: static targets are followed (every candidate directory is kept, a superset), so git's
config check and relative write targets use the directories the commands may really run in;
``cd -``, ``popd`` and dynamic targets make the directory unknown. A target is resolved as bash
does: ``..`` logically (as text) by default, physically (after links) for ``cd -P`` or when the
logical path does not exist.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ..._lazyre import lazy_compile
from ..._record import record, replace
from ..commands import expansions, registry
from ..commands.environment import harmless_assignment
from ..commands.pathsearch import cwd_first
from ..commands.spec import Call, Command, Finding, run_checks
from ..commands.targets import expand_home, resolve, where, worst
from ..facts import Context, Effect, PathOp, Reason, SensitiveHit
from ..ir import Command as IRCommand
from ..ir import CommandKind, Redirect, Script, Via, Word, xargs_tail
from ..paths import xargsnames
from . import inherited, zsh

_ARITH_CMP = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
_INPUT_OPS = frozenset({"<", "<<", "<<-", "<<<"})
_OUTPUT_OPS = frozenset({">", ">>", ">|", "&>", "&>>"})
_DUP_OPS = frozenset({">&", "<&"})
_MAX_CWDS = 16


@record
class CommandChecks:
    """What :func:`classify` found per command, kept so that the harness reuses it instead of
    checking every command again: the candidate cwds it used (None: a ``cd`` went somewhere
    unknown) and the indices of the commands whose own check found nothing."""

    cwds: tuple[Path, ...] | None
    clean: frozenset[int]


@record
class ReadonlyResult:
    readonly: bool
    effect: Effect
    reasons: tuple[Reason, ...]
    checks: CommandChecks | None = None  # None when the script was not checked command by command
    # Sensitive hits found only from a directory a `cd` leads to (`cd ~/.aws && cat credentials`):
    # the scan the caller ran saw the context's cwd alone.
    more_sensitive: tuple[SensitiveHit, ...] = ()


def classify(script: Script, ctx: Context, sensitive: tuple[SensitiveHit, ...]) -> ReadonlyResult:
    """Classify ``script``; see the module docstring. Never raises."""
    try:
        return _classify(script, ctx, sensitive)
    except Exception as exc:  # a bug here must fail closed
        return ReadonlyResult(False, Effect.EXEC, (Reason(
            f"internal error in the read-only check: {type(exc).__name__}: {exc}", None,
            "readonly.internal"),))


def _classify(script: Script, ctx: Context, sensitive: tuple[SensitiveHit, ...]) -> ReadonlyResult:
    if script.error is not None:
        return ReadonlyResult(False, Effect.EXEC, (Reason(
            f"the command could not be fully parsed: {script.error.reason}", script.error.span,
            "readonly.parse"),))
    cwds = candidate_cwds(script, ctx)
    per = command_findings(script, ctx, cwds)
    findings = [f for found in per for f in found]
    clean = [i for i, found in enumerate(per) if not found]
    findings.extend(_loop_variables(script))
    more = _rescan(script, ctx, cwds, findings)
    sensitive = tuple(sensitive) + more
    for hit in sensitive:
        if hit.op in (PathOp.READ, PathOp.WRITE):
            verb = "reads" if hit.op is PathOp.READ else "writes"
            shown = hit.pattern.rsplit(" (", 1)[0] if hit.pattern.startswith(f"{hit.path} is a hard link ") \
                else hit.path   # a hard link of a secret: both names (or that the others are unknown)
            findings.append(Finding(f"{verb} a sensitive path: {shown} ({hit.cls.value})", hit.span,
                                    "readonly.sensitive", Effect.EXEC))
    checks = CommandChecks(cwds, frozenset(clean))
    if not findings:
        return ReadonlyResult(True, Effect.READ, (), checks)
    reasons = tuple(dict.fromkeys([Reason(f.message, f.span, f.rule) for f in findings]))
    return ReadonlyResult(False, worst([f.effect for f in findings]), reasons, checks, more)


def command_findings(script: Script, ctx: Context, cwds: tuple[Path, ...] | None) -> list[list[Finding]]:
    """Each command's own findings, in the context of the whole line: a second look knows what
    the line writes (a glob operand, git's config, ``jq -f`` may meet a file an earlier command
    creates). The one way to judge commands one by one: the harness's view of which commands
    are read-only on their own must equal the line's."""
    runs_in = [command_cwds(script, i, cwds) for i in range(len(script.commands))]
    tails = [xargs_tail(cmd.via) and not xargsnames.proved(script, i, ctx, runs_in[i])
             for i, cmd in enumerate(script.commands)]
    per = [check_command(Call(cmd, i, script, ctx, runs_in[i], wild_tail=tails[i]))
           for i, cmd in enumerate(script.commands)]
    writes = line_writes(per)
    if writes != ():
        links = line_links(per)
        tails = [xargs_tail(cmd.via) and not xargsnames.proved(script, i, ctx, runs_in[i], writes)
                 for i, cmd in enumerate(script.commands)]
        per = [check_command(Call(cmd, i, script, ctx, runs_in[i], wild_tail=tails[i], line_writes=writes,
                                  line_links=links))
               for i, cmd in enumerate(script.commands)]
    return per


def line_links(per_command: list[list[Finding]]) -> tuple[tuple[int, str], ...]:
    """(command index, path) of each plain write of the line that may make a link there
    (``Finding.links``: ``cp -a``, ``cp -r``, ``mv``). The gate judges a later write by the
    tree as it is before the line runs: ``cp -a rc copy; echo x >> copy`` appends to wherever
    ``rc`` leads, though ``copy`` does not exist yet."""
    return tuple(dict.fromkeys((i, p) for i, found in enumerate(per_command) for f in found
                               if f.effect is Effect.WRITE for p in f.links))


def line_writes(per_command: list[list[Finding]]) -> tuple[str, ...] | None:
    """The files the line's plain writes touch: the paths of every WRITE finding (a write
    inside the workspace), or None when one of them does not say (fail closed). A WRITE flag
    (``sed -i``, ``sort -o``) is covered by its command's own per-file findings. Writes of
    commands that are worse than WRITE are left out: a command allowed to run programs could
    plant anything itself, and otherwise the line is asked about anyway."""
    out: list[str] = []
    for found in per_command:
        writes = [f for f in found if f.effect is Effect.WRITE]
        known = any(f.writes for f in writes)
        for f in writes:
            if f.writes:
                out.extend(f.writes)
            elif not (known and f.rule == "readonly.flag"):
                return None
    return tuple(dict.fromkeys(out))


_SAFE_LOOP_VAR = lazy_compile(r"[a-z_][a-z0-9_]*")
_LOWER_ENV = frozenset({"http_proxy", "https_proxy", "ftp_proxy", "all_proxy", "no_proxy"})


def _loop_variables(script: Script) -> list[Finding]:
    """``for NAME in …`` (and ``select``) assigns NAME: ``for PATH in /tmp/evil; do ls; done``
    would run another ``ls``, so only lower-case names that are not proxy settings are
    accepted. The names are the parser's loop headers (``Script.loop_names``, those of nested
    scripts — ``bash -c``, backticks, ``$( )`` — included), not a scan of the source text: a
    loop nobody walked has no judged commands, and ``grep "test for CLI" f`` assigns nothing."""
    out: list[Finding] = []
    for w in script.loop_names:
        name = w.text
        if not w.static or not _SAFE_LOOP_VAR.fullmatch(name) or name in _LOWER_ENV:
            out.append(Finding(f"the loop assigns {name} (an environment variable name)", w.span,
                               "readonly.assignment"))
    return out


_NAMED_FD = lazy_compile(r"\{[^{}\s]*\}$")


def _rescan(script: Script, ctx: Context, cwds: tuple[Path, ...] | None,
            findings: list[Finding]) -> tuple[SensitiveHit, ...]:
    """The sensitive-path scan resolves relative paths against the context's cwd; after a
    ``cd`` they may name other files (``cd ~/.aws && cat credentials``): scan again from every
    candidate directory. An unknown ``cd`` target leaves relative paths unresolvable."""
    if cwds is None:
        findings.append(Finding("cd to a directory only known at run time: relative paths after it "
                                "cannot be checked", None, "readonly.cd"))
        return ()
    if len(cwds) < 2:
        return ()  # no cd: the scan already ran from the only cwd
    from ..paths import resolve as paths

    extra: list[SensitiveHit] = []
    for c in cwds[1:]:
        extra.extend(paths.scan(script, replace(ctx, cwd=c)))
    return tuple(extra)


# --- where commands run ----------------------------------------------------------------------------

_CD_OPTS = frozenset({"-L", "-P", "-e", "-@", "--", "-n"})


def _logical_cd_works(spelled: str) -> bool:
    """Does bash's logical ``cd`` (the default) go to the ``..``-normalised text of ``spelled``
    ($PWD joined with the target)? Only when each prefix a ``..`` removes and the result are
    directories (``sh_canonpath`` with PATH_CHECKDOTDOT|PATH_CHECKEXISTS); otherwise bash
    chdirs to ``spelled`` itself and the kernel resolves it physically: with ``awl ->
    ~/.aws/cli`` and no ``./cli``, ``cd awl/../cli`` lands in ``~/.aws/cli``."""
    here = ""
    for name in spelled.split("/"):
        if name in ("", "."):
            continue
        if name == "..":
            if not os.path.isdir(here or "/"):
                return False
            here = here.rpartition("/")[0]
        else:
            here = f"{here}/{name}"
    return os.path.isdir(here or "/")


def candidate_cwds(script: Script, ctx: Context) -> tuple[Path, ...] | None:
    """The context's cwd plus every static ``cd``/``pushd`` target (resolved against each
    candidate so far, in order); None when a ``cd`` goes somewhere unknown.

    Each is also taken as the kernel sees it (``realpath``): bash's ``$PWD`` keeps the symlinks
    a logical ``cd`` went through, but every program asks ``getcwd()`` and walks up from there
    (rustup's rust-toolchain.toml, npm's .npmrc), and a relative ``..`` opened by a program
    goes up the physical path. A relative target that names no ``.``/``..`` first is looked up in
    ``$CDPATH`` first (bash, dash and zsh all do), so each of its entries is a candidate too."""
    here = str(ctx.cwd)
    norm = os.path.normpath(here)
    # the context's cwd is normally already normal: keep that Path, do not build an equal one
    cwds: list[Path] = [ctx.cwd if norm == here and isinstance(ctx.cwd, Path) else Path(norm)]
    cdpath = os.environ["CDPATH"].split(":") if os.environ.get("CDPATH") else []
    for cmd in script.commands:
        name = cmd.name
        if name not in ("cd", "pushd", "popd") or cmd.kind is not CommandKind.SIMPLE:
            continue
        if name == "popd":
            return None
        args = list(cmd.args)
        opts = set()
        while args and args[0].static and args[0].text in _CD_OPTS:  # options end at `--` or a name
            opts.add(args.pop(0).text)
            if "--" in opts:
                break
        if not args:
            target = "~"
        elif len(args) == 1 and args[0].static and not args[0].glob and args[0].text != "-" \
                and not re.fullmatch(r"[+-]\d+", args[0].text):  # `pushd +1` rotates the stack
            target = args[0].text
        else:
            return None
        target = expand_home(target, ctx)
        physical = "-P" in opts
        dotdot = ".." in target.split("/")  # the cwds so far are normalised: only the target's count
        bases = cwds
        if cdpath and not target.startswith("/") and target.split("/", 1)[0] not in (".", ".."):
            bases = [*cwds, *(Path(e) if os.path.isabs(e) else c / e for e in cdpath if e for c in cwds)]
        new: list[Path] = []
        for c in bases:
            spelled = os.path.join(str(c), target)
            if not physical or "-L" in opts:
                new.append(Path(os.path.normpath(spelled)))
            if physical or (dotdot and not _logical_cd_works(spelled)):
                new.append(Path(os.path.realpath(spelled)))
        cwds = list(dict.fromkeys([*cwds, *new]))
        if len(cwds) > _MAX_CWDS:
            return None
    return tuple(_with_physical(cwds))   # bash's next `cd ..` starts from $PWD; programs do not


_ELSEWHERE = frozenset({"-execdir", "-okdir"})


def command_cwds(script: Script, index: int, cwds: tuple[Path, ...] | None) -> tuple[Path, ...] | None:
    """The directories command ``index`` may run in: the line's ``cwds``, or None (unknown)
    when it is run, however deeply nested, by a ``find -execdir``/``-okdir``: find runs it in
    the directory of each file found, so neither a relative path nor ``$PWD`` or ``$(pwd)``
    is taken against the line's cwds (``find /opt -name f -execdir rm f \\;`` deletes under
    /opt, and ``sh -c 'find $PWD'`` there splits on a found directory's blanks)."""
    c = script.commands[index]
    while c.parent is not None:
        parent = script.commands[c.parent]
        if c.via and c.via[-1] is Via.FIND_EXEC and any(w.text in _ELSEWHERE for w in parent.words):
            return None
        c = parent
    return cwds


def _with_physical(cwds: list[Path]) -> list[Path]:
    """``cwds`` and, after each, its ``realpath`` where a symlink makes that another path."""
    out: list[Path] = []
    for c in cwds:
        out.append(c)
        real = os.path.realpath(c)
        if real != str(c):
            out.append(Path(real))
    return list(dict.fromkeys(out))


# --- one command -----------------------------------------------------------------------------------

def check_command(call: Call) -> list[Finding]:
    cmd = call.command
    out: list[Finding] = []
    if call.ctx.inherited is not None:
        out.extend(inherited.findings(call))
    if cmd.kind is CommandKind.FUNCDEF:
        name = cmd.words[0].text if cmd.words else "?"
        return out + [Finding(f"defines a function '{name}' (it could shadow a command)", cmd.span,
                              "readonly.funcdef")]
    if Via.COPROC in cmd.via:
        out.append(Finding("runs a coprocess", cmd.span, "readonly.coproc"))
    if cmd.assignments:
        out.extend(_assignments(cmd))
    out.extend(_expansions(cmd))
    out.extend(Finding(why, (w or cmd).span, "readonly.dialect")
               for why, w in zsh.problems(cmd, call.script.source))
    if cmd.redirects:
        out.extend(_redirects(cmd, call))
    if cmd.kind is CommandKind.TEST:
        return out + _double_bracket(cmd)
    if cmd.kind is CommandKind.ARITH:
        return out + _arith_command(cmd)
    if not cmd.words:
        return out
    return out + _named(call)


def _assignments(cmd: IRCommand) -> list[Finding]:
    out = []
    for a in cmd.assignments:
        if cmd.words and not a.array and harmless_assignment(a.name, a.value):
            continue
        if cmd.words:
            out.append(Finding(f"prefix assignment {a.name}=… changes the environment of "
                               f"{cmd.words[0].text}", a.span, "readonly.assignment"))
        else:
            out.append(Finding(f"assignment {a.name}=… changes a shell variable (later commands may "
                               "use it)", a.span, "readonly.assignment"))
    return out


def _word_expansions(w: Word) -> list[Finding]:
    if w.static:
        return []
    return [Finding(why, w.span, "readonly.expansion") for why in expansions.problems(w.raw)]


def _expansions(cmd: IRCommand) -> list[Finding]:
    if cmd.kind is CommandKind.ARITH:
        return []  # checked as a whole below
    out: list[Finding] = []
    for w in cmd.words:
        out.extend(_word_expansions(w))
    for a in cmd.assignments:
        out.extend(_word_expansions(a.value))
    for r in cmd.redirects:
        if r.target is not None and r.op not in ("<<", "<<-"):
            out.extend(_word_expansions(r.target))
        if r.heredoc is not None and not r.heredoc_quoted:
            out.extend(Finding(f"here-document: {why}", r.span, "readonly.expansion")
                       for why in expansions.problems(r.heredoc, heredoc=True))
    return out


def _double_bracket(cmd: IRCommand) -> list[Finding]:
    out: list[Finding] = []
    words = cmd.words
    for k, w in enumerate(words):
        if w.static and w.text in ("-v", "-R") and not w.quoted:
            out.append(Finding(f"[[ {w.text} ]] evaluates a variable name (a[$(cmd)] runs cmd)", w.span,
                               "readonly.expansion"))
        if w.static and not w.quoted and w.text in _ARITH_CMP:
            for nb in (words[k - 1] if k else None, words[k + 1] if k + 1 < len(words) else None):
                if nb is None or not (nb.static and nb.text.strip().lstrip("+-").isdigit()):
                    span = nb.span if nb is not None else w.span
                    out.append(Finding(f"[[ … {w.text} … ]] evaluates its operands as arithmetic "
                                       "(a value like a[$(cmd)] runs cmd)", span, "readonly.expansion"))
    return out


def _arith_command(cmd: IRCommand) -> list[Finding]:
    text = " ".join(w.raw for w in cmd.words)
    why = expansions.arith_problem(text)
    return [Finding(f"(( )) {why}", cmd.span, "readonly.expansion")] if why else []


def _redirects(cmd: IRCommand, call: Call) -> list[Finding]:
    out: list[Finding] = []
    for r in cmd.redirects:
        out.extend(_redirect(r, call))
    return out


def _redirect(r: Redirect, call: Call) -> list[Finding]:
    op, t = r.op, r.target
    if _NAMED_FD.search(call.script.source, 0, r.span[0]):
        return [Finding("redirection {name}> assigns a file descriptor to a variable", r.span,
                        "readonly.redirect")]
    if op in ("<<", "<<-", "<<<"):
        return []
    if t is None:
        return [Finding(f"redirection {op} without a target", r.span, "readonly.redirect")]
    if op in _DUP_OPS:
        if t.static and (t.text.isdigit() or t.text == "-"):
            return []
        if op == ">&":  # `>&file` is `&>file`
            op = "&>"
        else:
            return [Finding(f"redirection {op}{t.text} duplicates an unknown descriptor", r.span,
                            "readonly.redirect")]
    if op == "<":
        if not t.static or t.glob:
            return [Finding("input redirection from a path only known at run time", r.span,
                            "readonly.redirect")]
        if t.text.startswith(("/dev/tcp/", "/dev/udp/")):
            return [Finding(f"< {t.text} opens a network connection", r.span, "readonly.redirect",
                            Effect.NETWORK)]
        return []
    if op in _OUTPUT_OPS or op == "<>":
        effect, why = where(t, call)
        if effect is Effect.READ:
            return []
        if effect is Effect.WRITE:
            return [Finding(f"redirects output into {t.text}", r.span, "readonly.redirect", Effect.WRITE,
                            tuple(resolve(t.text, call) or ()))]
        return [Finding(f"redirects output into {why}", r.span, "readonly.redirect", effect)]
    return [Finding(f"redirection {op} is not on the read-only list", r.span, "readonly.redirect")]


def _loopback_only(spec: Command, call: Call) -> bool:
    """The network family's own judgement (loaded already: only its commands have an effect)."""
    from ..commands.network import loopback_only

    return loopback_only(spec, call)


def _offline(call: Call) -> bool:
    from ..commands.network import offline

    return offline(call)


def _named(call: Call) -> list[Finding]:
    cmd = call.command
    name = cmd.name
    first = cmd.words[0]
    if name is None:
        return [Finding("the command name is only known at run time", first.span, "readonly.dynamic_name")]
    if "/" in name:
        return [Finding(f"runs {name} by path (only plain command names are trusted)", first.span,
                        "readonly.path_command")]
    if name in call.script.functions:
        return [Finding(f"calls the function '{name}' defined in this command", first.span,
                        "readonly.function_call")]
    spec = registry.lookup(name)
    if spec is None:
        why = registry.refusal(name)
        msg = f"{name} {why}" if why else f"unknown command '{name}' (not on the read-only list)"
        return [Finding(msg, first.span, "readonly.unknown_command")]
    if (why := cwd_first(name)) is not None:
        return [Finding(f"{name}: {why} (a file of the workspace may run)", first.span,
                        "readonly.path_command")]
    if isinstance(spec, Command):
        found = run_checks(spec, call)
        if spec.effect is Effect.READ or _offline(call):
            return found
        if call.ctx.loopback and _loopback_only(spec, call):
            found.append(Finding(f"{name} talks only to the sandbox's own loopback", first.span,
                                 "readonly.loopback", Effect.EXEC))
        else:
            found.append(Finding(f"{name} talks to the network", first.span, "readonly.network",
                                 spec.effect))
        return found
    return spec(call)
