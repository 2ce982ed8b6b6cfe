"""Where a write lands: inside the workspace or a scratch directory (a WRITE) or anywhere else
(EXEC).

A target counts as inside only when it is static text (no expansion, glob or brace), resolves
against every directory the command may run in (``Call.cwds``), stays under the workspace after
``..`` is normalised, and still does after symlinks of the part that exists are followed (so a
link to ``/etc`` inside the workspace is not a way out), the kernel's way too: a link, then
``..`` from where it points. Writes into a ``.git`` directory are
never plain edits: hooks and config there run code later.

The filesystem is looked at as it is before the line runs, so a path an earlier command of
the same line may turn into a link (``cp -a link copy``, ``mv dir other``: ``Call.line_links``)
is no longer known: a write at, below or through it is not a plain edit either.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable

from ..._record import replace
from ..facts import Context, Effect
from ..ir import Command as IRCommand
from ..ir import Via, Word
from .spec import Call, Finding

# Special files a write to is no file change at all.
NULL_SINKS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"})

_ORDER = (Effect.READ, Effect.WRITE, Effect.NETWORK, Effect.EXEC)


def worst(effects: Iterable[Effect]) -> Effect:
    """The strongest of ``effects`` (READ < WRITE < NETWORK < EXEC)."""
    return max(effects, key=_ORDER.index, default=Effect.READ)


def expand_home(text: str, ctx: Context) -> str:
    if text == "~":
        return str(ctx.home)
    if text.startswith("~/"):
        return str(ctx.home) + text[1:]
    return text


def _inside(path: str, roots: Iterable[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def resolve(text: str, call: Call) -> list[str] | None:
    """Absolute, normalised paths ``text`` may name (one per possible cwd), or None."""
    text = expand_home(text, call.ctx)
    if os.path.isabs(text):
        return [os.path.normpath(text)]
    if call.cwds is None:
        return None
    return [os.path.normpath(os.path.join(str(c), text)) for c in call.cwds]


_PWD_SUBST = re.compile(r"\$\(\s*pwd\s*\)|`\s*pwd\s*`")  # `$(pwd)`: the cwd, as $PWD
_STILL_DYNAMIC = re.compile(r"[$`{]|^~[^/]")  # an expansion or a brace left, or `~user`


def resolve_word(word: Word, call: Call) -> list[str] | None:
    """Absolute, normalised paths ``word`` may name (one per possible cwd), or None when the
    gate cannot know them before the command runs.

    A static word goes to :func:`resolve`. A word with expansions is resolved only when every
    expansion has a value the gate knows — ``$HOME`` / ``${HOME}`` (the context's home),
    ``$PWD`` / ``${PWD}`` / ``$(pwd)`` / backquoted pwd (each candidate cwd) — through the
    sensitive-path check's own :func:`~shellgate.bash.paths.expand_variables`. ``$OLDPWD``,
    any other variable or substitution, ``~user``, a brace (``$PWD/{a,../x}`` is two paths)
    and a word with quoting the plain text cannot show (a backslash, single quotes:
    ``"\\$HOME"`` is literal) are unknown: None.
    """
    if word.static:
        return resolve(word.text, call)
    if call.cwds is None or "\\" in word.raw or "'" in word.raw:
        return None
    from ..paths.resolve import expand_variables
    from ..paths.tables import KNOWN_VARIABLES

    out = []
    for cwd in call.cwds:
        ctx = replace(call.ctx, cwd=cwd)
        text = expand_variables(_PWD_SUBST.sub(lambda _m, c=str(cwd): c, word.text), ctx,
                                KNOWN_VARIABLES)
        if _STILL_DYNAMIC.search(text):
            return None
        out.append(os.path.normpath(os.path.join(str(cwd), expand_home(text, ctx))))
    return out


def roots(call: Call) -> tuple[set[str], set[str]]:
    """(every root a write may land under as spelled, their real paths): the workspace and the
    scratch directories."""
    ws = str(call.ctx.workspace)
    real_roots = {os.path.realpath(ws), *(os.path.realpath(s) for s in call.ctx.scratch)}
    return {os.path.normpath(ws), *(os.path.normpath(s) for s in call.ctx.scratch), *real_roots}, real_roots


def leaves(real: str, real_roots: Iterable[str]) -> bool:
    """Whether the real path ``real`` lies outside ``real_roots`` or in a ``.git`` directory."""
    return not _inside(real, real_roots) or ".git" in real.split("/")


# Commands that may run more than once (their own earlier run may have made a link).
_REPEATS = frozenset({Via.LOOP, Via.FUNCTION, Via.XARGS, Via.FIND_EXEC})
# Where a command runs in the order it is written, one after the other (anything else, a
# pipeline's stages, a substitution, a background job, may run before or alongside another).
_IN_ORDER = frozenset({Via.TOP, Via.GROUP, Via.SUBSHELL, Via.CONDITION, Via.WRAPPER})


def _in_order(cmd: IRCommand) -> bool:
    return not cmd.background and _IN_ORDER.issuperset(cmd.via)


def _through_line_link(text: str, call: Call) -> tuple[int, str] | None:
    """(index of the command, path) of a link another command of the line may make first
    (``Call.line_links``) that a write to ``text`` lands at, below or goes through
    (``made/../x`` too), or None. A link of a command written later counts unless both run in
    written order; a command's own links only when it may run again (a loop, a function,
    xargs, find -exec)."""
    cmds = call.script.commands
    own = bool(_REPEATS.intersection(call.command.via))
    ordered = _in_order(call.command)
    links = [(i, p) for i, p in call.line_links
             if (own if i == call.index else i < call.index or not (ordered and _in_order(cmds[i])))]
    if not links:
        return None
    text = expand_home(text, call.ctx)
    if os.path.isabs(text):
        return _first_through(text, links)
    # the cwds are known from the tree before the line ran too: `cd -P made/..` goes elsewhere
    texts = [text, *(expand_home(w.text, call.ctx) for c in cmds
                     if c.name in ("cd", "pushd") for w in c.args[-1:] if w.static)]
    return next((hit for c in call.cwds or () for t in texts
                 if (hit := _first_through(os.path.join(str(c), t), links)) is not None), None)


def _first_through(path: str, links: Iterable[tuple[int, str]]) -> tuple[int, str] | None:
    """The first of ``links`` that ``path`` (absolute, not normalised) reaches on its way:
    a prefix of it, ``..`` taken as text after each, at or below a link."""
    parts = path.split("/")
    for k in range(2, len(parts) + 1):
        prefix = os.path.normpath("/".join(parts[:k]))
        hit = next((link for link in links if _inside(prefix, (link[1],))), None)
        if hit is not None:
            return hit
    return None


def where(word: Word, call: Call, *, sink: bool = True) -> tuple[Effect, str]:
    """(effect, why) of writing to ``word``: READ for a null sink, WRITE inside, EXEC outside.

    ``sink``: the write goes *into* the file (a redirection, ``tee``, ``sort -o``), so
    ``/dev/null`` swallows it. A command that removes, renames or replaces the name itself
    (``rm``, ``mv``, ``sed -i``, ``touch``, ``cp``) would replace the device, as root: outside.
    """
    if not word.static or word.glob:
        return Effect.EXEC, "a path that is only known at run time"
    if "{}" in word.text and Via.FIND_EXEC in call.command.via:
        return Effect.EXEC, "the files find chooses at run time"
    if word.text in NULL_SINKS:
        return (Effect.READ, "") if sink else (Effect.EXEC, f"{word.text} (a device, not a file)")
    if word.text.startswith(("/dev/tcp/", "/dev/udp/")):
        return Effect.NETWORK, "a network socket"
    paths = resolve(word.text, call)
    if paths is None:
        return Effect.EXEC, ("a relative path in a directory known only at run time (a cd to an unknown "
                             "one, find -execdir)")
    spelled_roots, real_roots = roots(call)
    for p in paths:
        if ".git" in p.split("/"):  # the same test as on Path(p).parts
            return Effect.EXEC, f"{p} (inside a .git directory)"
        if not _inside(p, spelled_roots):
            return Effect.EXEC, f"{p} (outside the workspace)"
        try:
            real = os.path.realpath(p)
        except (OSError, ValueError):
            return Effect.EXEC, f"{p} (cannot be resolved)"
        if not _inside(real, real_roots):
            return Effect.EXEC, f"{p} (a symlink leads outside the workspace)"
        if ".git" in real.split("/"):
            return Effect.EXEC, f"{p} (inside a .git directory)"
    if ".." in word.text.split("/"):
        # The kernel follows a link before going up: `awl/../x` with `awl -> ~/.aws/cli` is
        # `~/.aws/x`, whatever the normalised text says.
        text = expand_home(word.text, call.ctx)
        for c in ([""] if os.path.isabs(text) else call.cwds or ()):
            try:
                real = os.path.realpath(os.path.join(str(c), text))
            except (OSError, ValueError):
                return Effect.EXEC, f"{word.text} (cannot be resolved)"
            if leaves(real, real_roots):
                return Effect.EXEC, f"{word.text} (a symlink before `..` leads to {real})"
    if call.line_links and (made := _through_line_link(word.text, call)) is not None:
        name = call.script.commands[made[0]].name
        return Effect.EXEC, f"{word.text} ({name} in this line may leave a link to anywhere at {made[1]})"
    return Effect.WRITE, paths[0]


def write_findings(words: Iterable[Word], call: Call, what: str, *,
                   sink: bool = False) -> list[Finding]:
    """One finding per written path: ``what`` is the verb phrase, e.g. ``"sed -i edits"``;
    ``sink`` as for :func:`where` (only ``tee`` writes into its files)."""
    out: list[Finding] = []
    for w in words:
        effect, why = where(w, call, sink=sink)
        if effect is Effect.READ:
            continue
        if effect is Effect.WRITE:
            out.append(Finding(f"{what} {w.text}", w.span, "readonly.write", Effect.WRITE,
                               tuple(resolve(w.text, call) or ())))
        else:
            out.append(Finding(f"{what} {why}", w.span, "readonly.write", effect))
    return out


# Directory entries a recursive copy's destination is searched at most for links (~2 us each).
MAX_LANDING_ENTRIES = 10_000


def landings(targets: Iterable[Word], sources: Iterable[Word], call: Call, what: str, *,
             recursive: bool, parents: bool, no_target_dir: bool) -> list[Finding]:
    """Where ``cp`` really writes, beyond the target word :func:`where` judged: into an
    existing directory it writes ``DIR/basename(SOURCE)`` (``DIR/SOURCE`` with ``--parents``),
    and a recursive copy every path below that. An entry already there that is a symlink is
    written through (``cp f g/`` with ``g/f -> ~/.bashrc`` changes ``~/.bashrc``), so each name
    must land inside too, and a tree copied onto an existing one must meet no link out below
    it. A source whose name is not static (a glob) may be any entry of the directory."""
    sources = list(sources)
    out: list[Finding] = []
    for t in targets:
        if where(t, call, sink=False)[0] is not Effect.WRITE:
            continue  # the target itself is reported already
        paths = resolve(t.text, call) or []
        into = not no_target_dir and any(os.path.isdir(p) for p in paths)
        if not into:
            if recursive:
                out += _links_below(paths, t, call, what, depth=None)
            continue
        for s in sources:
            if not s.static or s.glob:
                out += _links_below(paths, t, call, what, depth=None if recursive else 1)
                continue
            name = expand_home(s.text, call.ctx).rstrip("/")
            name = name if parents else os.path.basename(name)
            if not name:
                continue
            land = replace(t, text=t.text.rstrip("/") + "/" + name)
            effect, why = where(land, call, sink=False)
            if effect is not Effect.WRITE:
                out.append(Finding(f"{what} {why}", t.span, "readonly.write", effect))
            elif recursive:
                out += _links_below(resolve(land.text, call) or [], t, call, what, depth=None)
    return out


def _links_below(dirs: Iterable[str], target: Word, call: Call, what: str,
                 depth: int | None) -> list[Finding]:
    """A finding for the first symlink below each of ``dirs`` (``depth`` levels, None: all)
    that leads out of the workspace or into a ``.git`` directory; past the bound, one that
    says so (what was not seen may be such a link)."""
    _, real_roots = roots(call)
    seen = 0
    for top in dirs:
        if not os.path.isdir(top) or os.path.islink(top):
            continue
        todo = [(top, 1)]
        while todo:
            here, level = todo.pop()
            try:
                with os.scandir(here) as it:
                    entries = list(it)
            except OSError:
                continue
            seen += len(entries)
            if seen > MAX_LANDING_ENTRIES:
                return [Finding(f"{what} into {target.text}: more than {MAX_LANDING_ENTRIES} entries "
                                "below it to search for a symbolic link out", target.span, "readonly.write")]
            for e in entries:
                try:
                    link = e.is_symlink()
                    deeper = not link and (depth is None or level < depth) and e.is_dir(follow_symlinks=False)
                except OSError:   # gone, or of no known type: what it is cannot be ruled out
                    return [Finding(f"{what} into {target.text}: {e.path} could not be checked for a "
                                    "symbolic link out", target.span, "readonly.write")]
                if link:
                    real = os.path.realpath(e.path)
                    if leaves(real, real_roots):
                        return [Finding(f"{what} into {target.text}, where {e.path} is a symbolic link "
                                        f"to {real}", target.span, "readonly.write")]
                elif deeper:
                    todo.append((e.path, level + 1))
    return []
