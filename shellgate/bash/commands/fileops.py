"""File operations that are a WRITE (not EXEC) when every target lies inside the workspace.

These are never read-only; their effect is what ``accept-edits`` lets through: ``mkdir``,
``touch``, ``cp``, ``mv``, ``rm`` (of files: ``-r`` is never a plain edit), ``rmdir``, ``tee``.
``cp -l``/``-s`` make links (a later write "inside" would change a file outside), so they are
EXEC. Targets must be static paths; see ``targets.py`` for how they are resolved. ``mv`` and a
``cp`` that keeps symlinks may still leave links at their targets: a later write of the same
line there is judged unknown (``Finding.links``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from ..._record import replace
from ..facts import Effect
from ..ir import Via, Word
from .spec import Call, Command, Finding, Flag, Parsed, Takes
from .targets import landings, write_findings

V = Takes.VALUE
P = Takes.PATH
W = Takes.WRITE_PATH
HELP = [Flag("--help"), Flag("--version")]
CONTEXT = [Flag("-Z"), Flag("--context", takes=V, optional=True)]


def _all_operands(verb: str, need: int = 1, sink: bool = False):
    def check(p: Parsed, call: Call) -> Iterable[Finding]:
        if len(p.operands) < need:
            return [Finding(f"{call.command.name} without a target", call.command.span,
                            "readonly.operand")]
        return write_findings(p.operands, call, verb, sink=sink)
    return check


# cp options that copy a symlink as a symlink (recursion keeps the ones below the sources).
_KEEPS_LINKS = ("-a", "-d", "-P", "-R")


def _copy_like(verb: str, sources_written: bool):
    """cp/mv: the target is ``-t DIR`` or the last operand; mv also removes its sources.
    Both may leave a link at the target (mv always: a moved symlink, or a file with other
    names, stays one), and cp writes below it too (``targets.landings``)."""
    def check(p: Parsed, call: Call) -> Iterable[Finding]:
        target_dir = p.values_of("-t", "--target-directory")
        operands = list(p.operands)
        if target_dir:
            targets, sources = target_dir, operands
        elif len(operands) >= 2:
            targets, sources = operands[-1:], operands[:-1]
        else:
            return [Finding(f"{call.command.name} needs a source and a target", call.command.span,
                            "readonly.operand")]
        out = write_findings(targets, call, verb)
        if sources_written or p.has(*_KEEPS_LINKS):
            into = bool(target_dir) or len(sources) > 1 or targets[0].text.endswith("/")
            out = [replace(f, links=_left_at(f.writes, sources, p, into, call)) if f.effect is Effect.WRITE
                   else f for f in out]
        if sources_written:
            out += write_findings(sources, call, "mv removes")
        else:
            out += landings(targets, sources, call, verb, recursive=p.has("-R", "-a"),
                            parents=p.has("--parents"), no_target_dir=p.has("-T"))
        return out
    return check


def _left_at(targets: tuple[str, ...], sources: list[Word], p: Parsed, into: bool,
             call: Call) -> tuple[str, ...]:
    """Where a cp/mv to ``targets`` (absolute) may leave links: ``DIR/basename(SOURCE)`` when
    it copies into a directory (``into``: ``-t``, several sources or a trailing ``/``; or one
    that exists) and every source name is static, else the targets themselves (and all below
    them). A name find or xargs pastes in is not static (``{}``)."""
    names = [s.text.rstrip("/") for s in sources if s.static and not s.glob and not s.pasted
             and not ("{}" in s.text and Via.FIND_EXEC in call.command.via)]
    if not p.has("--parents"):
        names = [os.path.basename(n) for n in names]
    if p.has("-T") or len(names) < len(sources) or not all(n not in ("", ".", "..") for n in names) \
            or not (into or any(os.path.isdir(t) for t in targets)):
        return targets
    return tuple(os.path.normpath(f"{t}/{n}") for t in targets for n in names)


MKDIR = Command("mkdir", reads=False, check=_all_operands("mkdir creates"), safe=[
    Flag("-m", "--mode", takes=V), Flag("-p", "--parents"), Flag("-v", "--verbose"), *CONTEXT, *HELP])

TOUCH = Command("touch", reads=False, check=_all_operands("touch writes"), safe=[
    Flag("-a"), Flag("-c", "--no-create"), Flag("-d", "--date", takes=V), Flag("-f"),
    Flag("-h", "--no-dereference"), Flag("-m"), Flag("-r", "--reference", takes=P),
    Flag("-t", takes=V), Flag("--time", takes=V), *HELP])

_BACKUP = [Flag("-b"), Flag("--backup", takes=V, optional=True), Flag("-S", "--suffix", takes=V)]

CP = Command(
    "cp", check=_copy_like("cp writes", sources_written=False),
    safe=[
        Flag("-a", "--archive"), Flag("--attributes-only"), *_BACKUP, Flag("--copy-contents"),
        Flag("-d"), Flag("-f", "--force"), Flag("-i", "--interactive"), Flag("-H"),
        Flag("-L", "--dereference"), Flag("-n", "--no-clobber"), Flag("-P", "--no-dereference"),
        Flag("-p"), Flag("--preserve", takes=V, optional=True), Flag("--no-preserve", takes=V),
        Flag("--parents"), Flag("-R", "-r", "--recursive"), Flag("--reflink", takes=V, optional=True),
        Flag("--remove-destination"), Flag("--sparse", takes=V), Flag("--strip-trailing-slashes"),
        Flag("-t", "--target-directory", takes=W), Flag("-T", "--no-target-directory"),
        Flag("-u"), Flag("--update", takes=V, optional=True), Flag("-v", "--verbose"),
        Flag("-x", "--one-file-system"), Flag("--debug"), Flag("--keep-directory-symlink"),
        *CONTEXT, *HELP,
    ],
    unsafe={
        Flag("-l", "--link"): "makes hard links (a later edit would change the original file)",
        Flag("-s", "--symbolic-link"): "makes symbolic links that may point outside the workspace",
    },
)

MV = Command("mv", reads=False, check=_copy_like("mv writes", sources_written=True), safe=[
    *_BACKUP, Flag("-f", "--force"), Flag("-i", "--interactive"), Flag("-n", "--no-clobber"),
    Flag("--strip-trailing-slashes"), Flag("-t", "--target-directory", takes=W),
    Flag("-T", "--no-target-directory"), Flag("-u"), Flag("--update", takes=V, optional=True),
    Flag("-v", "--verbose"), Flag("--exchange"), Flag("--no-copy"), Flag("--debug"), *CONTEXT, *HELP])

RM = Command(
    "rm", check=_all_operands("rm deletes"),
    safe=[
        Flag("-f", "--force"), Flag("-i"), Flag("-I"), Flag("--interactive", takes=V, optional=True),
        Flag("--one-file-system"), Flag("--preserve-root", takes=V, optional=True),
        Flag("-d", "--dir"), Flag("-v", "--verbose"), *HELP,
    ],
    unsafe={
        Flag("-r", "-R", "--recursive"): "deletes directories recursively",
        Flag("--no-preserve-root"): "may delete /",
    },
)

RMDIR = Command("rmdir", reads=False, check=_all_operands("rmdir removes"), safe=[
    Flag("--ignore-fail-on-non-empty"), Flag("-p", "--parents"), Flag("-v", "--verbose"), *HELP])

TEE = Command("tee", reads=False, check=_all_operands("tee writes", need=0, sink=True), safe=[
    Flag("-a", "--append"), Flag("-i", "--ignore-interrupts"), Flag("-p"),
    Flag("--output-error", takes=V, optional=True), *HELP])

COMMANDS = (MKDIR, TOUCH, CP, MV, RM, RMDIR, TEE)
