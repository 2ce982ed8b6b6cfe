"""The "never" table: commands no mode, rule, stored approval or answer may let through.

A destructive warning only informs a person; some commands are catastrophes nobody means to
approve in passing — one "yes" (or trust mode) away from deleting a home directory or
formatting a disk. Those are listed here, as data, and the permission kernel denies them
before any allow, approval or mode is looked at (``chain.never``). Every entry is on by
default; a user turns one off by name in their own config::

    [never]
    off = ["rm-workspace-parent"]

Targets are resolved the way the workspace boundary resolves them
(:func:`~shellgate.bash.commands.targets.resolve_word`: ``~``, ``$HOME``, ``$PWD``,
``$(pwd)``, ``..``, every directory a ``cd`` may lead to). A word the gate cannot resolve is
no "never" hit: it counts as outside the workspace and is asked instead.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from .._record import record
from .facts import Context
from .ir import Script, Span, Word

if TYPE_CHECKING:  # the command modules load only when a command line is checked
    from .commands.spec import Call

# Where a recursive delete / permission change is a catastrophe (see ``_place``).
ROOT, SYSTEM, HOME, PARENT = "the root directory", "a top-level directory", \
    "your home directory", "a directory holding the workspace"
_TEMP_TOP = frozenset({"/tmp"})  # a top-level directory whose contents are anyone's to clean
_FORMATTERS = frozenset({"mkfs", "mke2fs", "mkswap", "mkdosfs", "mkntfs", "newfs", "wipefs",
                         "blkdiscard", "sgdisk", "sfdisk", "parted"})  # and every mkfs.*
_OVERWRITERS = frozenset({"dd", "shred"})  # their operands (dd: of=) are written over
_WRITE_OPS = frozenset({">", ">>", ">|", "&>", "&>>", "<>"})
# find expressions that keep every file: with only these (and a delete), nothing is spared
_FIND_KEEP_ALL = frozenset({"-depth", "-d", "-xdev", "-mount", "-print", "-print0", "-noleaf",
                            "-ignore_readdir_race", "-mindepth", "-maxdepth"})
_FIND_VALUED = frozenset({"-mindepth", "-maxdepth"})
_NEEDS_CWDS = frozenset({"recursive", "find_delete"})  # matchers that resolve path operands


@record
class Entry:
    """One line of the table. ``name`` is the config switch; ``reason`` ends up in the deny;
    ``how`` names the matcher in ``_MATCHERS``; ``programs`` (none: any command) and
    ``places`` parametrise it."""

    name: str
    reason: str
    how: str
    programs: frozenset[str] = frozenset()
    places: frozenset[str] = frozenset()


NEVER: tuple[Entry, ...] = (
    Entry("rm-root", "deletes the root or a top-level system directory", "recursive",
          frozenset({"rm"}), frozenset({ROOT, SYSTEM})),
    Entry("rm-home", "deletes your home directory", "recursive", frozenset({"rm"}),
          frozenset({HOME})),
    Entry("rm-workspace-parent", "deletes a directory that holds the workspace", "recursive",
          frozenset({"rm"}), frozenset({PARENT})),
    Entry("chmod-recursive-root", "changes the permissions or owner of the whole system, your "
          "home or a parent of the workspace", "recursive", frozenset({"chmod", "chown", "chgrp"}),
          frozenset({ROOT, SYSTEM, HOME, PARENT})),
    Entry("find-delete", "deletes every file under the root, a top-level directory, your home "
          "or a parent of the workspace", "find_delete", frozenset({"find"}),
          frozenset({ROOT, SYSTEM, HOME, PARENT})),
    Entry("disk-format", "formats or wipes a block device", "device_operand", _FORMATTERS),
    Entry("disk-overwrite", "overwrites a block device", "device_write"),
    Entry("fork-bomb", "starts a fork bomb", "fork_bomb"),
)
NAMES = frozenset(e.name for e in NEVER)


@record
class NeverHit:
    """A command the table refuses: which entry, the words, where."""

    entry: Entry
    what: str            # "`rm -rf ~` names /home/u, your home directory"
    span: Span | None

    @property
    def message(self) -> str:
        return f"never allowed ({self.entry.name}): {self.entry.reason} — {self.what}"


def disabled(section: object) -> frozenset[str]:
    """The entries a ``[never]`` config section turns off; ``ValueError`` for a bad one (a typo
    must not pass for a switch that did nothing)."""
    if section is None:
        return frozenset()
    if not isinstance(section, dict) or set(section) - {"off"}:
        raise ValueError("[never] takes one key: off = [entry names]")
    off = section.get("off", [])
    if not isinstance(off, list) or not all(isinstance(x, str) for x in off):
        raise ValueError("[never] off must be a list of entry names")
    unknown = sorted(set(off) - NAMES)
    if unknown:
        raise ValueError(f"[never] off: unknown entries {unknown} (known: {sorted(NAMES)})")
    return frozenset(off)


def find(script: Script, ctx: Context, off: Iterable[str] = ()) -> NeverHit | None:
    """The first command of ``script`` the table refuses, or None. Never raises."""
    if not script.ok or not script.commands:
        return None
    skip = frozenset(off)
    entries = [e for e in NEVER if e.name not in skip]
    if not entries:
        return None
    try:
        return next(_hits(script, ctx, entries), None)
    except Exception:  # the bash core's internals moved: no hit, the rest of the chain decides
        return None


def _hits(script: Script, ctx: Context, entries: list[Entry]) -> Iterator[NeverHit]:
    from .commands.spec import Call
    from .readonly.classify import candidate_cwds, command_cwds
    from .warnings.args import prog_name, resolve

    cwds: tuple | None | bool = False  # computed on the first command that needs it
    for i, cmd in enumerate(script.commands):
        prog, words = resolve(prog_name(cmd.name or ""), cmd.words[1:]) if cmd.words \
            else ("", ())
        for e in entries:
            if e.programs and not _runs(prog, e.programs):
                continue
            if e.how in _NEEDS_CWDS and cwds is False:  # only path operands need the cwds
                cwds = candidate_cwds(script, ctx)
            call = Call(cmd, i, script, ctx, None if cwds is False else command_cwds(script, i, cwds))  # type: ignore[arg-type]
            hit = _MATCHERS[e.how](e, call, prog, tuple(words))
            if hit is not None:
                yield NeverHit(e, hit[0], hit[1])


def _runs(prog: str, programs: frozenset[str]) -> bool:
    return prog in programs or (prog.startswith("mkfs.") and "mkfs" in programs)


# --- matchers: (entry, call, program, its own words) -> (what, span) or None --------------

Match = tuple[str, Span | None] | None


def _recursive(e: Entry, call: Call, prog: str, words: tuple[Word, ...]) -> Match:
    from .warnings.args import parse_args

    a = parse_args(words)
    if not (a.has("-r") or a.has("-R") or a.has("--recursive")):
        return None
    return _named_place(e, call, a.positionals, lambda w: f"{prog} … {w.text}")


def _named_place(e: Entry, call: Call, words: Iterable[Word], shown: Callable[[Word], str]) -> Match:
    """The first of ``words`` that names one of ``e``'s places, as the deny's words."""
    from .commands.targets import resolve_word

    for w in words:
        for path in resolve_word(w, call) or ():
            place = _place(path, call.ctx)
            if place in e.places:
                return f"`{shown(w)}` names {path}, {place}", w.span
    return None


def _find_delete(e: Entry, call: Call, prog: str, words: tuple[Word, ...]) -> Match:
    """``find START… -delete`` (or ``-exec rm … {} +``) with no test that spares a file."""
    k = 0
    while k < len(words) and words[k].text in ("-H", "-L", "-P"):
        k += 1
    starts = []
    while k < len(words) and not words[k].text.startswith(("-", "(", "!")):
        starts.append(words[k])
        k += 1
    deletes = False
    while k < len(words):
        t = words[k].text
        if t in ("-exec", "-execdir"):
            if k + 1 >= len(words) or words[k + 1].text.rsplit("/", 1)[-1] != "rm":
                return None  # another program: not this entry's business
            deletes = True
            while k < len(words) and words[k].text not in (";", "+"):
                k += 1
        elif t == "-delete":
            deletes = True
        elif t not in _FIND_KEEP_ALL:
            return None  # a test (-name, -type, -mtime …) or another action: files are chosen
        k += 1 + (t in _FIND_VALUED)
    return _named_place(e, call, starts, lambda w: f"find {w.text} …") if deletes else None


def _device_operand(e: Entry, call: Call, prog: str, words: tuple[Word, ...]) -> Match:
    for w in words:
        if _is_device(w.text.partition("=")[2] if w.text.startswith("-") else w.text):
            return f"`{prog} … {w.text}`", w.span
    return None


def _device_write(e: Entry, call: Call, prog: str, words: tuple[Word, ...]) -> Match:
    """``dd of=DEV``, ``shred DEV``, or any command's output redirected onto a device."""
    for w in words if prog in _OVERWRITERS else ():
        key, eq, val = w.text.partition("=")
        if _is_device(val if prog == "dd" and key == "of" and eq else
                      (w.text if prog != "dd" else "")):
            return f"`{prog} … {w.text}`", w.span
    for r in call.command.redirects:
        if r.op in _WRITE_OPS and r.target is not None and _is_device(r.target.text):
            return f"`{r.op} {r.target.text}`", r.span
    return None


def _fork_bomb(e: Entry, call: Call, prog: str, words: tuple[Word, ...]) -> Match:
    from .warnings.destructive import is_fork_bomb

    if is_fork_bomb(call.script, call.index):
        return f"the function `{call.command.name}` starts itself in the background", \
            call.command.span
    return None


_MATCHERS: dict[str, Callable[[Entry, Call, str, tuple[Word, ...]], Match]] = {
    "recursive": _recursive, "find_delete": _find_delete, "device_operand": _device_operand,
    "device_write": _device_write, "fork_bomb": _fork_bomb,
}


def _is_device(text: str) -> bool:
    from .warnings.targets import is_disk

    return bool(text) and is_disk(posixpath.normpath(text))


def _place(path: str, ctx: Context) -> str | None:
    """What ``path`` (absolute, normalised; maybe a glob) is, if deleting it recursively is a
    catastrophe: the root, a top-level directory (not ``/tmp``), the home directory or one
    above it, a directory above the workspace. ``D/*`` counts as ``D``; a glob over ``/``'s
    entries (``/u*``) as a top-level directory."""
    from .paths.globs import has_glob

    path = "/" + path.lstrip("/")  # `//` is the root too (POSIX normpath keeps two slashes)
    parts = path.split("/")
    for k, seg in enumerate(parts):
        if has_glob(seg):
            if k == len(parts) - 1 and seg in ("*", ".*"):
                path = "/".join(parts[:k]) or "/"
                break
            return SYSTEM if k == 1 else None
    path = posixpath.normpath(path)
    if path == "/":
        return ROOT
    homes = _forms(str(ctx.home))
    if path in homes or any(h.startswith(path + "/") for h in homes):
        return HOME
    spaces = _forms(str(ctx.workspace))
    if any(w.startswith(path + "/") for w in spaces):
        return PARENT
    inside = any(path == w or path.startswith(w + "/") for w in spaces)
    return SYSTEM if path.count("/") == 1 and path not in _TEMP_TOP and not inside else None


def _forms(path: str) -> tuple[str, ...]:
    """A directory as spelled and as the kernel reaches it (symlinks followed)."""
    norm = posixpath.normpath(path)
    real = os.path.realpath(norm)
    return (norm,) if real == norm else (norm, real)
