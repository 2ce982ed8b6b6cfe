"""File operations that are a WRITE (not EXEC) when every target lies inside the workspace.

These are never read-only; their effect is what ``accept-edits`` lets through: ``mkdir``,
``touch``, ``cp``, ``mv``, ``rm`` (of files: ``-r`` is never a plain edit), ``rmdir``, ``tee``.
``cp -l``/``-s`` make links (a later write "inside" would change a file outside), so they are
EXEC. Targets must be static paths; see ``targets.py`` for how they are resolved.
"""

from __future__ import annotations

from collections.abc import Iterable

from .spec import Call, Command, Finding, Flag, Parsed, Takes
from .targets import write_findings

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


def _copy_like(verb: str, sources_written: bool):
    """cp/mv: the target is ``-t DIR`` or the last operand; mv also removes its sources."""
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
        if sources_written:
            out += write_findings(sources, call, "mv removes")
        return out
    return check


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
