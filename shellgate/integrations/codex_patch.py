"""Codex ``apply_patch`` text, read the way Codex's own parser reads it.

The files a patch writes decide the hook's answer, so shellgate must find exactly the hunks
Codex applies. Codex (``codex-rs/apply-patch/src/parser.rs``, lenient mode, which every model
gets) reads a patch so:

- the whole text is trimmed (Rust's ``str::trim``: Unicode White_Space) and split into lines
  at ``\\n`` (a ``\\r`` before it dropped);
- the first line, trimmed, must be ``*** Begin Patch`` and the last, trimmed,
  ``*** End Patch``; failing that, a first line of exactly ``<<EOF``, ``<<'EOF'`` or
  ``<<"EOF"`` and a last line ending in ``EOF`` (at least four lines) are a heredoc wrapper
  around such a patch;
- a hunk header is read from its line *trimmed*: ``*** Add File: P`` (then every following
  line that starts with ``+``), ``*** Delete File: P``, ``*** Update File: P`` — so
  `` *** Add File: ~/.bashrc`` is a header Codex applies;
- after an update header, ``*** Move to: P`` is recognised *untrimmed*, on the next line only;
  then chunks: blank lines between them skipped, a line starting with ``*`` ends the hunk,
  each chunk opens with ``@@`` / ``@@ context`` (optional for the first) and holds lines
  starting with `` ``, ``+``, ``-`` (or empty), ending at ``*** End of File`` or at the first
  other line; an update without chunks is an error;
- anything else where a header is due is an error (Codex applies nothing).

Stricter than Codex, because a deny costs a retry and a miss costs a planted file: a path that
is empty or starts or ends with whitespace, a line that reads as a header once trimmed but
that Codex takes as patch content (`` *** Move to: x`` is a context line to Codex, a rename to
a reader that trims), and text that is not valid Unicode are all errors. Paths are returned as
written: Codex joins them to its cwd (``~`` included, literally); the engine's path rules are
the stricter reading.
"""

from __future__ import annotations

from enum import StrEnum

from .._record import record

# Rust's char::is_whitespace (Unicode White_Space). Python's str.strip() also strips
# U+001C..U+001F, which Rust keeps: a header padded with them is not a header to Codex.
RUST_WHITESPACE = ("\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                   "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")

BEGIN = "*** Begin Patch"
END = "*** End Patch"
MOVE_TO = "*** Move to: "
END_OF_FILE = "*** End of File"
HEREDOC_OPENERS = ("<<EOF", "<<'EOF'", '<<"EOF"')

# Every spelling that is a header somewhere in the grammar: a line that trims to one of these
# but is read as content is refused.
HEADER_LOOKALIKES = (BEGIN, END, "*** Add File:", "*** Delete File:", "*** Update File:",
                     MOVE_TO.rstrip(), END_OF_FILE)


class Op(StrEnum):
    ADD = "add"
    DELETE = "delete"
    UPDATE = "update"


HEADERS: tuple[tuple[str, Op], ...] = (
    ("*** Add File: ", Op.ADD), ("*** Delete File: ", Op.DELETE), ("*** Update File: ", Op.UPDATE),
)


class Mode(StrEnum):
    STRICT = "strict"    # the text as is
    LENIENT = "lenient"  # also the heredoc-wrapped form (what Codex uses for every model)


class PatchError(ValueError):
    """Codex would refuse this patch, or shellgate cannot be sure how Codex reads it."""


@record
class Hunk:
    """One file operation: ``line`` is its header's 1-based line in the patch body."""

    op: Op
    path: str
    line: int
    move_to: str | None = None


def _trim(s: str) -> str:
    return s.strip(RUST_WHITESPACE)


def _lines(text: str) -> list[str]:
    """Rust's ``str::lines`` on already-trimmed text."""
    if not text:
        return []
    parts = text.split("\n")
    return [p[:-1] if p.endswith("\r") else p for p in parts[:-1]] + [parts[-1]]


def _body(lines: list[str], mode: Mode) -> list[str]:
    """The hunk lines between the markers, or :class:`PatchError`."""
    if (len(lines) >= 2 and _trim(lines[0]) == BEGIN and _trim(lines[-1]) == END):
        return lines[1:-1]
    if (mode is Mode.LENIENT and len(lines) >= 4 and lines[0] in HEREDOC_OPENERS
            and lines[-1].endswith("EOF")):
        return _body(lines[1:-1], Mode.STRICT)
    if not lines or _trim(lines[0]) != BEGIN:
        raise PatchError("the first line of the patch must be '*** Begin Patch'")
    raise PatchError("the last line of the patch must be '*** End Patch'")


def _path(text: str, line: int) -> str:
    if not text or _trim(text) != text:
        raise PatchError(f"line {line}: the path {text!r} is empty or padded with whitespace")
    return text


def _content(line: str, number: int) -> None:
    """A content line that a trimming reader would take for a header is refused."""
    if line[:1] in RUST_WHITESPACE and _trim(line).startswith(HEADER_LOOKALIKES):
        raise PatchError(f"line {number}: {line!r} looks like a header but Codex reads it as "
                         "patch content")


def _chunk(lines: list[str], at: int, number: int, first: bool) -> int:
    """How many lines the update chunk starting at ``lines[at]`` takes."""
    head = lines[at]
    start = 1 if head == "@@" or head.startswith("@@ ") else 0
    if not start and not first:
        raise PatchError(f"line {number}: expected an '@@' context marker, got {head!r}")
    taken = 0
    for line in lines[at + start:]:
        if line == END_OF_FILE:
            if not taken:
                break
            return start + taken + 1
        if line[:1] not in ("", " ", "+", "-"):
            break
        _content(line, number + start + taken)
        taken += 1
    if not taken:
        raise PatchError(f"line {number}: an update chunk without lines")
    return start + taken


def _update(lines: list[str], at: int, number: int, path: str) -> tuple[Hunk, int]:
    """The update hunk whose header is ``lines[at]``, and the lines it takes."""
    i = at + 1
    move = None
    if i < len(lines) and lines[i].startswith(MOVE_TO):
        move = _path(lines[i][len(MOVE_TO):], number + 1)
        i += 1
    chunks = 0
    while i < len(lines):
        line = lines[i]
        if not _trim(line):
            i += 1
            continue
        if line.startswith("*"):
            break
        i += _chunk(lines, i, number + i - at, chunks == 0)
        chunks += 1
    if not chunks:
        raise PatchError(f"line {number}: the update of {path!r} has no chunk")
    return Hunk(Op.UPDATE, path, number, move), i - at


def _hunk(lines: list[str], at: int, number: int) -> tuple[Hunk, int]:
    """The hunk whose header is ``lines[at]`` (trimmed, as Codex reads it), and its length."""
    header = _trim(lines[at])
    for marker, op in HEADERS:
        if not header.startswith(marker):
            continue
        path = _path(header[len(marker):], number)
        if op is Op.ADD:
            n = 1
            while at + n < len(lines) and lines[at + n].startswith("+"):
                n += 1
            return Hunk(op, path, number), n
        if op is Op.DELETE:
            return Hunk(op, path, number), 1
        return _update(lines, at, number, path)
    raise PatchError(f"line {number}: {header!r} is not a valid hunk header")


def parse(patch: str, mode: Mode = Mode.LENIENT) -> tuple[Hunk, ...]:
    """Every hunk of ``patch`` in order, or :class:`PatchError`."""
    try:
        patch.encode("utf-8")
    except UnicodeEncodeError:
        raise PatchError("the patch is not valid Unicode text") from None
    body = _body(_lines(_trim(patch)), mode)
    hunks: list[Hunk] = []
    at = 0
    while at < len(body):
        hunk, taken = _hunk(body, at, at + 2)
        hunks.append(hunk)
        at += taken
    return tuple(hunks)


def written_paths(patch: str, mode: Mode = Mode.LENIENT) -> tuple[str, ...]:
    """Every path the patch adds, deletes, updates or moves to, each once, in order."""
    out: dict[str, None] = {}
    for hunk in parse(patch, mode):
        out[hunk.path] = None
        if hunk.move_to is not None:
            out[hunk.move_to] = None
    return tuple(out)
