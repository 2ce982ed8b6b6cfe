"""Tool -> capability: the harness's half of "the kernel knows capabilities, never tools".

Five buckets (the write-up's table, SPEC §5)::

    read / glob / grep / ls            -> read
    write / edit / multi_edit / …      -> write
    bash                               -> exec, or read when read-only (key "exec:readonly:…"),
                                          or the finer write / network capability of the bash core
    web_fetch / web_search             -> read  (GET only, no local side effect)
    skill / ask_user / task_* / …      -> internal
    anything else                      -> unknown (asked like exec)

Tool names are compared in snake case, so Claude Code's ``WebFetch`` / ``ExitPlanMode`` and
our ``web_fetch`` / ``exit_plan_mode`` are the same tool. A tool object may override the
capability, key and summary with ``permission_metadata()`` (see ``adapter.extract_metadata``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .._lazyre import lazy_compile
from .._record import record, replace
from ..bash.facts import Context, Effect, PathOp
from ..permission import Capability, Metadata, PathAccess, Request

if TYPE_CHECKING:
    from ..permission.rules import Rule

READ, WRITE, INTERNAL = Capability.READ, Capability.WRITE, Capability.INTERNAL

TOOLS: dict[str, Capability] = {
    "read": READ, "glob": READ, "grep": READ, "ls": READ, "notebook_read": READ,
    "web_fetch": READ, "web_search": READ,
    "write": WRITE, "edit": WRITE, "multi_edit": WRITE, "notebook_edit": WRITE,
    "skill": INTERNAL, "ask_user": INTERNAL, "ask_user_question": INTERNAL, "subagent": INTERNAL,
    "task": INTERNAL, "agent": INTERNAL, "todo_write": INTERNAL, "todo_read": INTERNAL,
    "exit_plan_mode": INTERNAL, "enter_plan_mode": INTERNAL, "tool_search": INTERNAL,
}
INTERNAL_PREFIXES = ("task_",)
BASH_TOOLS = frozenset({"bash", "shell"})
PATH_ARGS = ("file_path", "path", "notebook_path")
PATH_TOOLS: dict[str, PathOp] = {
    "read": PathOp.READ, "notebook_read": PathOp.READ, "glob": PathOp.READ, "grep": PathOp.READ,
    "ls": PathOp.READ, "write": PathOp.WRITE, "edit": PathOp.WRITE, "multi_edit": PathOp.WRITE,
    "notebook_edit": PathOp.WRITE,
}
# Tools whose missing path means "the cwd" (they search); the others need a path.
SEARCH_TOOLS = frozenset({"glob", "grep", "ls"})
# Searches read every file under their path that their glob allows (``PathAccess.below``):
# the argument holding that glob, as Claude Code's tools name it. A hook passes the glob(s) it
# read from any agent's payload as ``search`` (a list), which wins; no glob: the whole tree.
SEARCH_GLOB_ARGS: dict[str, tuple[str, ...]] = {"glob": ("pattern",), "grep": ("glob",)}
_MAX_GLOBS = 64    # more alternatives than this (braces, lists) and the search reads everything
EFFECT_CAPABILITY = {Effect.READ: Capability.READ, Effect.WRITE: Capability.WRITE,
                     Effect.NETWORK: Capability.NETWORK, Effect.EXEC: Capability.EXEC}
_NOT_FILES = lazy_compile(r"/dev/(null|stdout|stderr|stdin|tty|fd/\d+)")
_FILE_WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})


@lru_cache(maxsize=256)  # a handful of tool names, asked on every call; a pure function
def tool_name(name: str) -> str:
    """``WebFetch`` -> ``web_fetch``; ``LS`` -> ``ls``; ``exit-plan-mode`` -> ``exit_plan_mode``."""
    s = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name.strip())
    return re.sub(r"[\s-]+", "_", s).lower()


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


@record
class Classified:
    metadata: Metadata
    analysis: Any = None          # shellgate.bash.analysis.Analysis for bash calls
    context: Context | None = None


def file_paths(name: str, args: Any) -> tuple[PathAccess, ...]:
    """The paths a file tool touches (``file_path`` / ``path`` / ``notebook_path``); for a
    search (``grep``, ``glob``, or any read given ``search`` globs) each directory it reads
    below and the glob of what it reads there (:func:`search_scope`)."""
    op = PATH_TOOLS.get(name)
    if op is None or not hasattr(args, "get"):
        return ()
    found = [str(args[k]) for k in PATH_ARGS if isinstance(args.get(k), str) and args.get(k)]
    if not found and name in SEARCH_TOOLS:
        found = ["."]
    globs = search_globs(name, args) if op is PathOp.READ else None
    if globs is not None:
        return tuple(dict.fromkeys(PathAccess(root, op, below=below) for p in found
                                   for root, below in search_scope(p, globs)))
    return tuple(PathAccess(p, op) for p in found)


def search_globs(name: str, args: Any) -> list[str] | None:
    """The globs a search call filters its files with (``[]``: none, it reads all), or None
    for a call that is no search. Fail closed: a glob argument that is not a string (or list
    of strings) counts as no filter."""
    given = args.get("search")
    if given is None and name in SEARCH_GLOB_ARGS:
        given = next((args[k] for k in SEARCH_GLOB_ARGS[name] if args.get(k) is not None), [])
    if given is None:
        return None
    if isinstance(given, str):
        given = [given]
    if not isinstance(given, (list, tuple)) or not all(isinstance(g, str) for g in given):
        return []
    return list(given)


def search_scope(root: str, globs: Iterable[str]) -> list[tuple[str, str]]:
    """``(directory, glob relative to it)`` for each part of what a search under ``root``
    filtered by ``globs`` may read: a superset, never less. No glob, an empty one or an
    exclusion (``!x``, which only narrows) reads the whole tree (``**``); braces and lists
    (``*.{ts,tsx}``, ``"*.js *.ts"``, ``"a,b"``: both readings kept) are expanded; a glob
    without ``/`` matches at any depth (ripgrep's reading, wider than minimatch's); an
    absolute or ``~`` glob, or one whose literal head leaves ``root`` (``../x/*``), is rooted
    where its literal head leads; a plain name (``docs/``, ``README.md``) may be a directory,
    so all below it counts; a ``..`` after a wildcard reads everything from ``/``."""
    from ..bash.paths.globs import expand_braces, has_glob

    pieces: list[str] = []
    for g in globs:
        parts = [g, *g.split()]
        parts += [x for p in parts if "{" not in p and "," in p for x in p.split(",")]
        for part in dict.fromkeys(parts):
            pieces.extend(expand_braces(part, limit=_MAX_GLOBS + 1) if "{" in part else [part])
    if not pieces or len(pieces) > _MAX_GLOBS or any(not p or p.startswith("!") for p in pieces):
        return [(root, "**")]
    out: list[tuple[str, str]] = []
    for piece in pieces:
        if piece.startswith(("/", "~")):
            base, rest = "", piece
        else:
            base, rest = root, piece if "/" in piece.rstrip("/") else "**/" + piece
        segs = [x for x in rest.split("/") if x]
        k = 0
        while k < len(segs) and segs[k] != "**" and not has_glob(segs[k]):
            k += 1
        head = "/".join(segs[:k])
        if piece.startswith("/"):
            head = "/" + head
        where = os.path.join(base, head) if base else head
        tail = segs[k:]
        if not has_glob(piece) and "**" not in piece:
            tail.append("**")   # a plain name may be a directory: all of it is read
        # where `~/..` leads is the engine's to resolve (normpath would make it relative)
        if ".." in tail or (where.startswith("~") and ".." in where.split("/")):
            out.append(("/", "**"))
        else:
            out.append((os.path.normpath(where), "/".join(tail) or "**"))
    return list(dict.fromkeys(out))


def classify(req: Request, *, workspace: str, cwd: str, home: str,
             scratch: tuple[str, ...] = (), loopback: bool = False,
             watched: tuple[str, ...] = (), inherited: Any = None,
             terminal: bool = True) -> Classified:
    """Default classification of ``req``, then the tool's own hints (``req.metadata``) on top.
    ``scratch``: the caller's sandbox's private scratch directories (see ``Context.scratch``);
    ``loopback``: its commands have a loopback of their own (see ``Context.loopback``);
    ``watched``: the policy's read rules, for a command's reads (see ``Context.watched``);
    ``inherited``: a persistent session's state the command runs with (``Context.inherited``);
    ``terminal``: false when the caller's runner gives no terminal (``Context.terminal``)."""
    name = tool_name(req.tool_name)
    args = req.args if hasattr(req.args, "get") else {}
    if name in BASH_TOOLS:
        command = args.get("command")
        got = classify_bash(command if isinstance(command, str) else "", Context.here(
            cwd=cwd, workspace=workspace, home=home, scratch=scratch, loopback=loopback,
            watched=watched, inherited=inherited, terminal=terminal))
    else:
        got = Classified(_classify_tool(name, args, cwd, home))
    hints = req.metadata
    meta = got.metadata
    if hints.capability is None and not hints.key and not hints.summary:
        return got  # nothing on top: the same record
    meta = replace(meta, capability=hints.capability or meta.capability,
                   key=hints.key or meta.key, summary=hints.summary or meta.summary)
    return Classified(meta, got.analysis, got.context)


def _classify_tool(name: str, args: Any, cwd: str, home: str) -> Metadata:
    cap = TOOLS.get(name)
    if cap is None:
        cap = INTERNAL if name.startswith(INTERNAL_PREFIXES) else Capability.UNKNOWN
    paths = file_paths(name, args)
    hosts: tuple[str, ...] = ()
    key = name
    summary = name
    if paths:
        shown = paths[0].path
        raw = home + shown[1:] if shown == "~" or shown.startswith("~/") else shown
        absolute = os.path.normpath(os.path.join(cwd, raw))
        below = paths[0].below
        within = f" ({below})" if below not in (None, "**") else ""
        key = f"{name}:{absolute}{within}"
        summary = f"{name} {shown}{within}" if below is None else (
            f"{name}: every file{within or ''} under {shown}")
    elif name in PATH_TOOLS:
        summary = f"{name} (no path given)"
    url = args.get("url") if hasattr(args, "get") else None
    if isinstance(url, str) and url:
        host = (urlsplit(url).hostname or "").lower()
        hosts = (host,) if host else ()
        key = f"{name}:{host}" if host else key
        summary = f"{name} {_short(url, 120)}"
    query = args.get("query") if hasattr(args, "get") else None
    if isinstance(query, str) and not paths and not hosts:
        summary = f"{name}: {_short(query, 120)}"
    return Metadata(capability=cap, key=key, summary=summary, paths=paths,
                    paths_complete=bool(paths), hosts=hosts,
                    # a file tool without its path is not understood: never remember it
                    persistable=bool(paths) or name not in PATH_TOOLS)


# -- bash -----------------------------------------------------------------------------------

def _redirect_targets(cmd: Any) -> list[Any]:
    """The words a command's output redirects write to (``>&2`` and ``>&-`` are no files)."""
    out = []
    for r in cmd.redirects:
        if r.op not in _FILE_WRITE_OPS and r.op != ">&":
            continue
        t = r.target
        if t is not None and not (r.op == ">&" and re.fullmatch(r"\d+-?|-", t.text)):
            out.append(t)
    return out


def _target_texts(word: Any, *, option: bool) -> list[str]:
    """The paths a static written word may name (a glob is kept: every file it can match lies
    under its text). An ``option`` word ``--output=F`` names F; ``-oF`` may also be a file named
    so (after ``--``): both readings count. A word with expansions: see ``write_paths``."""
    texts = [word.text]
    if option and word.text.startswith("--") and "=" in word.text:
        texts = [word.text.split("=", 1)[1]]
    elif option and word.text.startswith("-") and len(word.text) > 2:
        texts.append(word.text[2:])
    return [t for t in texts if t and not _NOT_FILES.fullmatch(t)]


def write_paths(analysis: Any, ctx: Context) -> list[PathAccess]:
    """Every file the bash core knows the command writes, as absolute paths: redirect targets
    and the targets the read-only classifier found (its ``readonly.write`` reasons point at
    the words: ``cp``/``mv`` (sources too), ``touch``, ``mkdir``, ``rm``, ``rmdir``, ``tee``,
    ``sed -i``, a writing option's file such as ``sort -o F`` outside the workspace). A
    relative target is resolved against every directory the command may run in (``cd /etc &&
    touch x`` writes ``/etc/x``). More paths only ever mean more prompts: bash never sets
    ``paths_complete``, so no allow depends on this list."""
    from ..bash.commands.spec import Call  # the bash core's command modules: bash calls only

    script = analysis.script
    if not script.ok:
        return []
    spans = {r.span for r in analysis.reasons if r.rule == "readonly.write" and r.span}
    cwds: Any = False  # not computed yet: most commands write nothing
    out = []
    for i, c in enumerate(script.commands):
        words = [(w, False) for w in _redirect_targets(c)] if c.redirects else []
        if spans:
            words += [(w, True) for w in c.words if w.span in spans]
        if words:
            if cwds is False:
                cwds = _cwds(analysis, ctx)
            call = Call(c, i, script, ctx, cwds)
            out += [a for w, option in words for a in _word_paths(w, call, option)]
    return out


def _word_paths(word: Any, call: Any, option: bool) -> list[PathAccess]:
    """The written paths of one word. A word with expansions is resolved the bash core's way
    (``resolve_word``: ``$HOME``, ``$PWD``, ``$(pwd)``); one the gate cannot resolve, a brace
    that may spell ``..``, or a relative path after ``cd -`` / ``cd $X`` is an unresolved
    access, which the kernel counts as outside the workspace."""
    from ..bash.commands.targets import resolve, resolve_word

    braces = word.glob and "{" in word.text
    if not word.static or braces:
        # an option word (`--output=$F`) is not resolved as a whole: its file is unknown
        paths = None if braces or word.text.startswith("-") else resolve_word(word, call)
        if paths is None:
            return [PathAccess(word.text, PathOp.WRITE, resolved=False)]
        return [PathAccess(p, PathOp.WRITE) for p in paths]
    out = []
    for t in _target_texts(word, option=option):
        paths = resolve(t, call)  # None: relative, after a cd to a directory nobody knows
        out += [PathAccess(t, PathOp.WRITE, resolved=False)] if paths is None else [
            PathAccess(p, PathOp.WRITE) for p in paths]
    return out


def _write_targets(script: Any) -> list[PathAccess]:
    """Redirect targets alone, unresolved: the fallback when the bash core's helpers fail."""
    return [PathAccess(t, PathOp.WRITE) for c in script.commands for w in _redirect_targets(c)
            for t in _target_texts(w, option=False)]


def _cwds(analysis: Any, ctx: Context) -> Any:
    """The candidate cwds the read-only check used (the same function of the same script and
    context), computed again only when it did not record them."""
    checks = getattr(analysis, "checks", None)
    if checks is not None:
        return checks.cwds
    from ..bash.readonly import classify as readonly

    return readonly.candidate_cwds(analysis.script, ctx)


def _inside(span: Any, outer: Any) -> bool:
    return span is not None and outer is not None and outer[0] <= span[0] and span[1] <= outer[1]


def readonly_commands(analysis: Any, ctx: Context) -> frozenset[int]:
    """Indices of the sub-commands that are read-only on their own, so that an allow rule
    for the rest suffices (``npm test | grep x`` with ``Bash(npm test *)``).

    Each command is judged by the bash core's per-command check in the context of the whole
    script (the directories ``cd`` may lead to included). Fail closed: nothing for an
    unparsed script or a sensitive hit without a span; a command whose text holds a
    sensitive hit is never credited.
    """
    script = analysis.script
    cmds = script.commands
    if not script.ok or not cmds:
        return frozenset()
    if analysis.readonly:
        return frozenset(range(len(cmds)))
    if len(cmds) == 1 or any(h.span is None for h in analysis.sensitive):
        return frozenset()
    from ..bash.readonly import classify as readonly

    try:
        checks = getattr(analysis, "checks", None)
        if checks is not None:  # the read-only check already judged each command: reuse it
            clean = checks.clean
        else:
            per = readonly.command_findings(script, ctx, _cwds(analysis, ctx))
            clean = frozenset(i for i, found in enumerate(per) if not found)
        return frozenset(i for i in clean
                         if not any(_inside(h.span, cmds[i].span) for h in analysis.sensitive))
    except Exception:  # the bash core's internals moved: credit nothing
        return frozenset()


def _hit_access(path: str, op: PathOp) -> PathAccess:
    """A sensitive read as the kernel's path rules should meet it: a directory read whole
    (`grep -r x ~`) or a glob left as text (`cat ~/priv*/x`, nothing on disk to expand it) is
    a search of what lies below its literal part, so a deny rule that may match any of it
    does; anything else is the path itself."""
    if op is not PathOp.READ or not path.startswith("/"):
        return PathAccess(path, op)
    from ..bash.paths.globs import has_glob

    segs = path.split("/")
    k = next((i for i, seg in enumerate(segs) if has_glob(seg)), None)
    if k is not None:
        return PathAccess("/".join(segs[:k]) or "/", op, below="/".join(segs[k:]))
    return PathAccess(path, op, below="**" if os.path.isdir(path) else None)


def classify_bash(command: str, ctx: Context) -> Classified:
    """Analyse a bash command: capability from the bash core's effect, never READ when the
    command is not understood, sensitive paths and every known write target as paths."""
    summary = f"bash: {_short(command)}"
    try:
        from ..bash import analysis as bash_analysis  # not loaded for the other tools' calls

        analysis = bash_analysis.analyse(command, ctx)  # looked up per call: tests replace it
    except Exception as exc:  # the bash core missing or broken: ask, never allow by itself
        reason = f"bash analysis unavailable: {type(exc).__name__}: {exc}"
        return Classified(Metadata(Capability.EXEC, f"exec:{command}", summary, command=command,
                                   reasons=(reason,), persistable=False), None, ctx)
    script = analysis.script
    cap = EFFECT_CAPABILITY.get(analysis.effect, Capability.EXEC)
    if not script.ok or (cap is Capability.READ and (not analysis.readonly or analysis.sensitive)):
        cap = Capability.EXEC
    key = f"exec:readonly:{command}" if cap is Capability.READ else f"{cap}:{command}"
    try:
        paths = write_paths(analysis, ctx)
    except Exception:  # the bash core's internals moved: redirect targets at least
        paths = _write_targets(script) if script.ok else []
    sensitive = analysis.sensitive
    if sensitive:
        paths += [_hit_access(h.path, h.op) for h in sensitive
                  if h.path.startswith(("/", "~")) and not h.path.startswith("<")]
    reasons = tuple([r.message for r in analysis.reasons])
    if script.error is not None and not reasons:
        reasons = (f"cannot parse: {script.error.reason}",)
    warnings = analysis.warnings
    shadowed = _shadowed(script, ctx)
    meta = Metadata(
        cap, key, summary, command=command, script=script,
        readonly_commands=readonly_commands(analysis, ctx), shadowed=shadowed,
        paths=tuple(dict.fromkeys(paths)) if paths else (),
        warnings=tuple(dict.fromkeys([w.message for w in warnings])) if warnings else (),
        reasons=reasons,
        sensitive=tuple(dict.fromkeys([h.path for h in sensitive])) if sensitive else (),
        persistable=script.ok and not sensitive and not shadowed)
    return Classified(meta, analysis, ctx)


def _shadowed(script: Any, ctx: Context) -> frozenset[int]:
    """The commands a persistent session changes (``Metadata.shadowed``); all of them when
    that cannot be worked out."""
    if ctx.inherited is None or not script.ok:
        return frozenset()
    try:
        from ..bash.readonly import inherited

        return inherited.shadowed(script, ctx)
    except Exception:  # the bash core's internals moved: no allow may cover any of them
        return frozenset(range(len(script.commands)))


def rule_notices(rules: Iterable[Rule]) -> list[str]:
    """Rules that load but can never do what they seem to say (``shellgate doctor`` lists them):
    a tool name no agent shellgate knows sends (``Foo(x)``; MCP tools are ``mcp__server__tool``),
    or a Bash pattern without a wildcard that ends in options (``Bash(rm -rf)`` matches the
    exact command ``rm -rf`` only, never ``rm -rf build``)."""
    out: list[str] = []
    for r in rules:
        where = f"{r.source}:{r.line}" if r.line is not None else r.source
        name = tool_name(r.tool)
        if not (name in TOOLS or name in BASH_TOOLS or name.startswith(("mcp__", *INTERNAL_PREFIXES))):
            out.append(f"{where}: {r.action} rule {r.text!r} names no tool shellgate knows "
                       f"({', '.join(sorted({*TOOLS, *BASH_TOOLS}))} or mcp__…): it matches "
                       "only calls of a tool spelled exactly so")
            continue
        spec = r.specifier or ""
        words = spec.split()
        if name in BASH_TOOLS and r.command is not None and "*" not in spec \
                and len(words) > 1 and all(w.startswith("-") for w in words[1:]):
            out.append(f"{where}: {r.action} rule {r.text!r} matches only the exact command "
                       f"{spec!r}; write {r.tool}({spec} *) for it followed by more words")
    return out
