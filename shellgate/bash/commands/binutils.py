"""GNU binutils' inspectors: readelf, objdump, nm, size and c++filt; addr2line is refused.

Measured under ``strace -f`` (binutils 2.40, ``tests/test_binutils.py``). Each reads the files
it is given and prints; none writes, connects or runs a program (nm dlopens the system's LTO
plug-ins from ``/usr/lib/bfd-plugins``, a fixed directory). Three ways out were found, all
through *paths named inside the file*, which the agent can craft and the sensitive-path
scanner never sees:

* **Separate debug files.** ``.gnu_debuglink`` / ``.gnu_debugaltlink`` name another file
  (``../../x``, an absolute path), and the debug-dump forms open and read it (its CRC is
  computed over the whole file); a debuginfod-enabled build also asks the servers in
  ``DEBUGINFOD_URLS`` and fills ``~/.cache/debuginfod_client``. Measured here: readelf
  ``-w…``/``--debug-dump``/``-P`` and objdump ``-W…``/``--dwarf``/``-g``/``-e``/``-L`` open it;
  ``-wN`` (``--debug-dump=no-follow-links``) stops them, a later ``-wK`` turns it back on, and
  so does a later bare ``-w``/``--debug-dump`` (objdump ``-W``/``--dwarf``): "all" sets
  follow-links too (dwarf.c ``dwarf_select_sections_all``; measured: ``readelf -wN -w`` and
  ``objdump -WN -W`` opened the linked file). The last of them, letters and names read in
  order, is the one that holds.
  Newer readelf (``might_need_separate_debug_info``) also loads it for ``-s``, ``-u``, ``-a``
  and the section dumps (``-x``, ``-p``, ``-R``, ``--ctf``, ``--sframe``): those are read-only
  here only with ``-wN`` too, and never with ``-wK``/``follow-links``/``-P``/``-L``. BFD's own
  line lookup follows the link whatever ``-WN`` says (objdump ``-l``, nm ``-l``, every
  addr2line lookup: measured on a stripped binary), so those are refused.
* **Source files.** objdump ``-S`` prints lines of the source files the DWARF names: a crafted
  object naming ``~/.ssh/id_rsa`` prints the key (measured). Refused, with its helpers.
* **Thin archives.** A ``!<thin>`` archive names its members by path; every one of these tools
  opens them (objdump also inside an ordinary archive). An operand that is, or whose ordinary
  archive holds, a thin archive is refused; so is one the same line may write, or a glob the
  line's writes may change. With no operand nm, size and objdump read ``a.out``. Names xargs
  appends count too: ``find objs -name '*.a' | xargs nm`` (allowed when ``paths/xargsnames.py``
  proved them plain names of no secret) had nm open the file a thin archive below ``objs``
  names (measured), so every file below find's start points is checked the same way.

``@FILE`` is a response file for all six (``Command.response_files``); ``nm --plugin`` loads a
shared object (refused).
"""

from __future__ import annotations

import glob as globmod
import os
import re
from collections.abc import Iterable, Sequence
from typing import BinaryIO

from ..._plain import NotPlain, open_plain
from ..ir import Via, Word
from .spec import Call, Check, Command, Finding, Flag, Opt, Parsed, Takes
from .targets import expand_home

V = Takes.VALUE

# dwarf.c's debug_option_table: the letters of -w/-W and the names of --debug-dump/--dwarf.
_LETTERS = frozenset("aArcLfFgiompstRlOuTUkKN")
_NAMES = frozenset({
    "abbrev", "addr", "ranges", "aranges", "cu_index", "decodedline", "frames", "frames-interp",
    "gdb_index", "info", "line", "rawline", "links", "loc", "macro", "pubnames", "pubtypes",
    "Ranges", "str", "str-offsets", "trace_abbrev", "trace_aranges", "trace_info", "follow-links",
    "no-follow-links"})
_FOLLOW = "follow-links"
_NO_FOLLOW = "no-follow-links"
_LINKS = ("follows .gnu_debuglink/.gnu_debugaltlink to a file named inside the object (any path; "
          "a debuginfod-enabled build also asks the servers in DEBUGINFOD_URLS)")
_SOURCE = "prints the source files named in the object's debug info (any path: a secret too)"
_NEEDS_S = "only matters with -S, which prints source files named inside the object"

_THIN = b"!<thin>\n"
_ARCH = b"!<arch>\n"
_MAX_MEMBERS = 4096
_MAX_GLOB = 256
_MAX_WALK = 10_000   # files below an xargs producer's start points checked at most


def _dump_values(opt_word: Word, spelled: str, values: Sequence[Word]) -> tuple[list[str], str | None]:
    """The debug-dump selections of one ``-w``/``--debug-dump`` option, in the order the
    program applies them, as names (letters mapped: K -> follow-links, N -> no-follow-links,
    k -> links; no value -> all, which turns follow-links on too), or why it is not understood."""
    if not values:
        return ["all", _FOLLOW], None
    v = values[0]
    if not v.static:
        return [], f"the debug-dump selection {v.text!r} is only known at run time"
    if spelled.startswith("--"):
        names = v.text.split(",")
        bad = sorted(set(names) - _NAMES)
        return names, (f"unknown debug-dump name {bad[0]!r}" if bad else None)
    bad = sorted(set(v.text) - _LETTERS)
    names = [{"K": _FOLLOW, "N": _NO_FOLLOW, "k": "links"}.get(c, c) for c in v.text]
    return names, (f"unknown debug-dump letter {bad[0]!r}" if bad else None)


def _links_check(tool: str, dump: tuple[str, ...], loaders: tuple[str, ...],
                 process_links: tuple[str, ...]) -> Check:
    """A check: the options that may load separate debug files pass only when the last
    follow-links setting (``-wN``/``-wK``, a name, or a bare ``-w``, which selects all and
    follows) says no-follow-links; process-links always follows; every other option never
    loads them."""
    def check(p: Parsed, call: Call) -> Iterable[Finding]:
        out: list[Finding] = []
        follow: list[Finding] = []
        setting: tuple[bool, Opt] | None = None   # the last follow-links setting: (follows, option)
        loading: list[tuple[str, Word]] = []
        for o in p.opts:
            names = set(o.flag.names)
            if names & set(dump):
                sel, bad = _dump_values(o.word, o.spelled, o.values)
                if bad is not None:
                    out.append(Finding(f"{tool} {o.spelled}: {bad}", o.word.span, "readonly.flag"))
                for name in sel:
                    if name in (_FOLLOW, _NO_FOLLOW):
                        setting = (name == _FOLLOW, o)
                if set(sel) - {_FOLLOW, _NO_FOLLOW}:
                    loading.append((o.word.text, o.word))
            elif names & set(process_links):
                follow.append(Finding(f"{tool} {o.spelled} {_LINKS}", o.word.span, "readonly.flag"))
            elif names & set(loaders):
                loading.append((o.spelled, o.word))
        out.extend(follow)
        if setting is not None and setting[0]:
            o = setting[1]
            what = "selects every dump, follow-links included," if not o.values else "turns follow-links on"
            out.append(Finding(f"{tool} {o.word.text} {what} and no later no-follow-links turns it off: "
                               f"it {_LINKS}",
                               o.word.span, "readonly.flag"))
        elif setting is None and not follow:
            dn = "-wN" if tool == "readelf" else "-WN"
            out.extend(Finding(f"{tool} {spelled} may follow .gnu_debuglink/.gnu_debugaltlink to a file "
                               f"named inside the object (any path; debuginfod servers too): add {dn} "
                               "to make it read-only", w.span, "readonly.flag") for spelled, w in loading)
        out.extend(_thin_archives(tool, p, call))
        return out
    return check


def _thin_archives(tool: str, p: Parsed, call: Call) -> list[Finding]:
    """Refuse operands that are thin archives (or ordinary archives holding one), or that this
    line may write: the tool would open paths named inside them. Names xargs appends are
    checked where they come from (``_appended``)."""
    words: list[Word | None] = list(p.operands) or ([None] if tool != "readelf" else [])
    out: list[Finding] = _appended(tool, call)
    for w in words:
        text = "a.out" if w is None else w.text
        span = call.command.words[0].span if w is None else w.span
        if w is not None and not w.static:
            continue  # refused already: a path only known at run time (Command.reads)
        why = _operand_problem(text, bool(w is not None and w.glob), call)
        if why is not None:
            out.append(Finding(f"{tool} reads {text}: {why}", span, "readonly.operand"))
    return out


def _appended(tool: str, call: Call) -> list[Finding]:
    """The names an ``xargs`` running this tool appends: files below find's (or rg's, git
    ls-files') start points (``xargsnames.roots``), each of which must not be a thin archive
    or hold one. Unproved names are refused already (``Command.reads``: ``wild_tail``)."""
    if call.command.via[-1:] != (Via.XARGS,):
        return []
    from ..paths import xargsnames  # only for a tool xargs runs

    span = call.command.words[0].span
    starts = xargsnames.roots(call.script, call.index)
    if starts is None:
        return [Finding(f"xargs gives {tool} names nobody has seen (one could be a thin archive)", span,
                        "readonly.operand")]
    budget = [_MAX_WALK]   # one bound for every start point in every cwd
    for base in call.cwds or (call.ctx.cwd,):
        for start in starts:
            why = _tree_problem(os.path.join(str(base), expand_home(start, call.ctx)), budget)
            if why is not None:
                return [Finding(f"xargs gives {tool} the files below {start}, and {why}", span,
                                "readonly.operand")]
    return []


def _tree_problem(root: str, budget: list[int]) -> str | None:
    """Why a file at or below ``root`` (links to directories not followed, as find walks)
    makes the tool read other paths, or None. ``budget``: entries (files and directories)
    still to look at, shared by the caller's walks."""
    if not os.path.isdir(root) or os.path.islink(root):
        why = _archive_problem(root)
        return None if why is None else f"{root}: {why}"
    try:
        for top, dirs, files in os.walk(root, onerror=_raise):
            budget[0] -= len(dirs) + len(files)
            if budget[0] < 0:
                return f"more than {_MAX_WALK} entries are below it (not all checked for thin archives)"
            for name in files:
                why = _archive_problem(os.path.join(top, name))
                if why is not None:
                    return f"{os.path.join(top, name)}: {why}"
    except OSError as exc:
        return f"it could not be walked now ({type(exc).__name__})"
    return None


def _raise(exc: OSError) -> None:
    raise exc


def _operand_problem(text: str, is_glob: bool, call: Call) -> str | None:
    text = expand_home(text, call.ctx)
    cwds = call.cwds
    if cwds is None and not os.path.isabs(text):
        return "the directory it runs in is not known (it could be a thin archive)"
    writes = call.line_writes
    bases = [""] if os.path.isabs(text) else [str(c) for c in cwds or ()]
    for base in bases:
        pattern = os.path.join(base, text) if base else text
        if is_glob:
            if writes is None or writes:
                return "this line writes files, which may change what the glob names"
            paths = globmod.glob(pattern)
            if len(paths) > _MAX_GLOB:
                return f"the glob names more than {_MAX_GLOB} files (not all checked for thin archives)"
        else:
            paths = [os.path.normpath(pattern)]
            if writes is None or paths[0] in writes:
                return "this line may write it first (it could become a thin archive)"
        for path in paths:
            why = _archive_problem(path)
            if why is not None:
                return why
    return None


def _archive_problem(path: str) -> str | None:
    """Why the file at ``path`` makes the tool read other paths, or None: a thin archive names
    its members by path (objdump opens one nested in an ordinary archive too)."""
    try:   # one open, no stat first: a name swapped for a FIFO in between would block it
        fd, st = open_plain(path, None, follow=True)
    except NotPlain:
        return None if os.path.isdir(path) else "not a regular file (its content is not known now)"
    except (FileNotFoundError, NotADirectoryError):
        return None  # missing: the tool only says so
    except OSError:
        return "it could not be read now"
    with os.fdopen(fd, "rb") as f:
        if st.st_size < 8:
            return None
        try:
            head = f.read(8)
            if head == _THIN:
                return "a thin archive: its members are other files, named by path inside it"
            if head != _ARCH:
                return None
            return _members_problem(f, st.st_size)
        except OSError:
            return "it could not be read now"


_DECIMAL = re.compile(rb" *([0-9]+) *")


def _number(field: bytes) -> int | None:
    """A decimal header field as BFD and readelf read it (``sscanf %u``/``strtoul``: they stop
    at the first other byte), or None unless it is plain digits padded with spaces: Python's
    ``int`` takes ``8_000`` for 8000 where BFD reads 8, and an archive whose member sizes the
    two read differently hid a nested thin archive from this walk (measured: objdump opened
    the file it names)."""
    m = _DECIMAL.fullmatch(field)
    return int(m.group(1)) if m is not None else None


def _members_problem(f: BinaryIO, size: int) -> str | None:
    """Walk an ordinary archive's member headers: a member that is itself an archive."""
    pos = 8
    for _ in range(_MAX_MEMBERS):
        if pos + 60 > size:
            return None
        f.seek(pos)
        hdr = f.read(60)
        if len(hdr) < 60 or hdr[58:60] != b"`\n":
            return "an archive whose member headers are not understood"
        length = _number(hdr[48:58])
        if length is None:
            return "an archive whose member headers are not understood"
        name = hdr[:16]
        data_at = pos + 60
        if name.startswith(b"#1/"):  # BSD long names precede the data
            skip = _number(name[3:])
            if skip is None:
                return "an archive whose member headers are not understood"
            data_at += skip
        f.seek(data_at)
        if f.read(8) in (_THIN, _ARCH):
            return "an archive holding another archive (a thin one names other files by path)"
        pos += 60 + length + (length & 1)
    return f"an archive of more than {_MAX_MEMBERS} members (not all checked)"


_DEMANGLE = [Flag("-C"), Flag("--demangle", takes=V, optional=True), Flag("--no-demangle"),
             Flag("--recurse-limit", "--recursion-limit"), Flag("--no-recurse-limit", "--no-recursion-limit")]

_READELF_LOADERS = ("-s", "-u", "-x", "-p", "-R", "--ctf", "--sframe", "-a")
READELF = Command(
    "readelf", response_files=True, safe=[
        Flag("-a", "--all"), Flag("-h", "--file-header"), Flag("-l", "--program-headers", "--segments"),
        Flag("-S", "--section-headers", "--sections"), Flag("-g", "--section-groups"),
        Flag("-t", "--section-details"), Flag("-e", "--headers"), Flag("-s", "--syms", "--symbols"),
        Flag("--dyn-syms"), Flag("--lto-syms"), Flag("--sym-base", takes=V, optional=True), *_DEMANGLE,
        Flag("-U", "--unicode", takes=V), Flag("-n", "--notes"), Flag("-r", "--relocs"),
        Flag("-u", "--unwind"), Flag("-d", "--dynamic"), Flag("-V", "--version-info"),
        Flag("-A", "--arch-specific"), Flag("-c", "--archive-index"), Flag("-D", "--use-dynamic"),
        Flag("-L", "--lint", "--enable-checks"), Flag("-x", "--hex-dump", takes=V),
        Flag("-p", "--string-dump", takes=V), Flag("-R", "--relocated-dump", takes=V),
        Flag("-z", "--decompress"), Flag("-w", "--debug-dump", takes=V, optional=True),
        Flag("--dwarf-depth", takes=V), Flag("--dwarf-start", takes=V), Flag("--dwarf-check"),
        Flag("--ctf", takes=V), Flag("--ctf-parent", takes=V), Flag("--ctf-symbols", takes=V),
        Flag("--ctf-strings", takes=V), Flag("--sframe", takes=V, optional=True),
        Flag("-I", "--histogram"), Flag("-W", "--wide"), Flag("-T", "--silent-truncation"),
        Flag("-H", "--help"), Flag("-v", "--version")],
    unsafe={Flag("-P", "--process-links"): _LINKS},
    check=_links_check("readelf", ("-w",), _READELF_LOADERS, ("-P",)),
    globs=True,   # _thin_archives globs the disk itself (a match may be a thin archive)
)

OBJDUMP = Command(
    "objdump", response_files=True, safe=[
        Flag("-a", "--archive-headers"), Flag("-f", "--file-headers"), Flag("-p", "--private-headers"),
        Flag("-P", "--private", takes=V), Flag("-h", "--section-headers", "--headers"),
        Flag("-x", "--all-headers"), Flag("-d"), Flag("--disassemble", takes=V, optional=True),
        Flag("-D", "--disassemble-all"), Flag("-s", "--full-contents"), Flag("-g", "--debugging"),
        Flag("-e", "--debugging-tags"), Flag("-G", "--stabs"),
        Flag("-W", "--dwarf", takes=V, optional=True), Flag("--ctf", takes=V, optional=True),
        Flag("--sframe", takes=V, optional=True), Flag("-t", "--syms"), Flag("-T", "--dynamic-syms"),
        Flag("-r", "--reloc"), Flag("-R", "--dynamic-reloc"), Flag("-v", "--version"), Flag("-i", "--info"),
        Flag("-H", "--help"), Flag("-b", "--target", takes=V), Flag("-m", "--architecture", takes=V),
        Flag("-j", "--section", takes=V), Flag("-M", "--disassembler-options", takes=V),
        Flag("-E", "--endian", takes=V), Flag("-F", "--file-offsets"), *_DEMANGLE, Flag("-w", "--wide"),
        Flag("-U", "--unicode", takes=V), Flag("-z", "--disassemble-zeroes"),
        Flag("--start-address", takes=V), Flag("--stop-address", takes=V), Flag("--no-addresses"),
        Flag("--prefix-addresses"), Flag("--show-raw-insn"), Flag("--no-show-raw-insn"),
        Flag("--insn-width", takes=V), Flag("--adjust-vma", takes=V), Flag("--show-all-symbols"),
        Flag("--special-syms"), Flag("--inlines"), Flag("--dwarf-depth", takes=V),
        Flag("--dwarf-start", takes=V), Flag("--dwarf-check"), Flag("--ctf-parent", takes=V),
        Flag("--visualize-jumps", takes=V, optional=True), Flag("--disassembler-color", takes=V)],
    unsafe={
        Flag("-S", "--source"): _SOURCE,
        Flag("--source-comment", takes=V, optional=True): _SOURCE,
        Flag("-l", "--line-numbers"): "looks up line numbers through BFD, which " + _LINKS,
        Flag("-L", "--process-links"): _LINKS,
        Flag("-I", "--include", takes=V): _NEEDS_S, Flag("--prefix", takes=V): _NEEDS_S,
        Flag("--prefix-strip", takes=V): _NEEDS_S, Flag("--file-start-context"): _NEEDS_S,
    },
    check=_links_check("objdump", ("-W",), ("-g", "-e"), ("-L",)),
    globs=True,   # _thin_archives globs the disk itself (a match may be a thin archive)
)

NM = Command(
    "nm", response_files=True, safe=[
        Flag("-a", "--debug-syms"), Flag("-A", "-o", "--print-file-name"), Flag("-B"), *_DEMANGLE,
        Flag("--no-cplus"), Flag("-D", "--dynamic"), Flag("-e"), Flag("-f", "--format", takes=V),
        Flag("-g", "--extern-only"), Flag("--ifunc-chars", takes=V), Flag("-j", "--just-symbols"),
        Flag("-n", "--numeric-sort"), Flag("-p", "--no-sort"), Flag("-P", "--portability"),
        Flag("-r", "--reverse-sort"), Flag("-S", "--print-size"), Flag("-s", "--print-armap"),
        Flag("--quiet"), Flag("--size-sort"), Flag("--special-syms"), Flag("--synthetic"),
        Flag("-t", "--radix", takes=V), Flag("--target", takes=V), Flag("-u", "--undefined-only"),
        Flag("-U", "--defined-only"), Flag("--unicode", takes=V), Flag("-W", "--no-weak"),
        Flag("--with-symbol-versions"), Flag("--without-symbol-versions"), Flag("-X", takes=V),
        Flag("-h", "--help"), Flag("-V", "--version")],
    unsafe={
        Flag("--plugin", takes=V): "loads a shared object as a plug-in (runs its code)",
        Flag("-l", "--line-numbers"): "looks up line numbers through BFD, which " + _LINKS,
    },
    check=lambda p, call: _thin_archives("nm", p, call),
    globs=True,   # _thin_archives globs the disk itself (a match may be a thin archive)
)

SIZE = Command(
    "size", response_files=True, safe=[
        Flag("-A"), Flag("-B"), Flag("-G"), Flag("--format", takes=V), Flag("-o"), Flag("-d"), Flag("-x"),
        Flag("--radix", takes=V), Flag("-t", "--totals"), Flag("-f"), Flag("--common"),
        Flag("--target", takes=V), Flag("-h", "-H", "--help"), Flag("-v", "-V", "--version")],
    check=lambda p, call: _thin_archives("size", p, call),
    globs=True,   # _thin_archives globs the disk itself (a match may be a thin archive)
)

# Operands are mangled names, echoed or demangled; with none it reads stdin. No file is opened.
CXXFILT = Command(
    "c++filt", response_files=True, reads=False, safe=[
        Flag("-_", "--strip-underscore"),
        Flag("-n", "--no-strip-underscore", "--no-strip-underscores"), Flag("-p", "--no-params"),
        Flag("-i", "--no-verbose"), Flag("-R", "--recurse-limit", "--recursion-limit"),
        Flag("-r", "--no-recurse-limit", "--no-recursion-limit"), Flag("-t", "--types"),
        Flag("-s", "--format", takes=V), Flag("-h", "--help"), Flag("-v", "--version")])

COMMANDS = (READELF, OBJDUMP, NM, SIZE, CXXFILT)
