"""Archives: listing is read-only, extracting writes, and tar can run programs.

``tar`` is read-only only in list mode (``-t``/``--list``) and without ``-I``/
``--use-compress-program``, ``--to-command``, ``--checkpoint-action``, ``--info-script``,
``--rsh-command`` and friends, and without an archive name ``host:path`` (which tar opens
through a remote shell unless ``--force-local``). The standard compression flags run the usual
gzip/bzip2/xz from PATH and are allowed. Old-style ``tar tzvf x.tgz`` is read like tar does:
each letter of the first word a flag, values taken from the following words in order.

A ``-T`` file list is read as names only when ``--verbatim-files-from`` or ``--null`` was given
before it (the last of those and ``--no-verbatim-files-from`` wins): otherwise tar 1.34 takes a
line starting with ``-`` for an option, and ``-T FILE`` there reads a file the path scanner
never saw, each of its lines printed in a "Not found in archive" error (a list holding
``-T/home/u/.ssh/id_rsa`` printed the key).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..._lazyre import lazy_compile
from ..ir import Word
from .spec import Call, Check, Command, Finding, Flag, Parsed, Takes, is_wild, run_checks, sensitive_read

V = Takes.VALUE
P = Takes.PATH
G = Takes.PROGRAM

_TAR_SAFE = [
    Flag("-t", "--list"), Flag("-f", "--file", takes=V), Flag("-v", "--verbose"),
    Flag("-z", "--gzip", "--gunzip", "--ungzip"), Flag("-j", "--bzip2"), Flag("-J", "--xz"),
    Flag("--zstd"), Flag("--lzma"), Flag("--lzip"), Flag("--lzop"),
    Flag("-Z", "--compress", "--uncompress"),
    Flag("-a", "--auto-compress"), Flag("--force-local"), Flag("--wildcards"), Flag("--no-wildcards"),
    Flag("--anchored"), Flag("--no-anchored"), Flag("--exclude", takes=V),
    Flag("-X", "--exclude-from", takes=P),
    Flag("-T", "--files-from", takes=P), Flag("--null"), Flag("--quoting-style", takes=V),
    Flag("--numeric-owner"), Flag("-R", "--block-number"), Flag("--full-time"), Flag("--utc"),
    Flag("-b", "--blocking-factor", takes=V), Flag("-B", "--read-full-records"),
    Flag("-i", "--ignore-zeros"), Flag("--occurrence", takes=V, optional=True),
    Flag("--show-transformed-names"), Flag("--transform", "--xform", takes=V),
    Flag("--totals", takes=V, optional=True), Flag("--warning", takes=V),
    Flag("-C", "--directory", takes=V), Flag("--no-recursion"), Flag("--recursion"),
    Flag("--ignore-case"), Flag("--no-ignore-case"), Flag("-H", "--format", takes=V),
    Flag("--exclude-vcs"), Flag("--exclude-caches"), Flag("--exclude-caches-all"),
    Flag("--exclude-caches-under"), Flag("--verbatim-files-from"), Flag("--no-verbatim-files-from"),
    Flag("--checkpoint", takes=V, optional=True), Flag("--record-size", takes=V),
    Flag("--blocking"), Flag("--help"), Flag("--version"), Flag("--usage"), Flag("--show-defaults"),
]
_TAR_UNSAFE = {
    Flag("-c", "--create"): "creates an archive (writes a file)",
    Flag("-x", "--extract", "--get"): "extracts files",
    Flag("-r", "--append"): "writes to the archive",
    Flag("-u", "--update"): "writes to the archive",
    Flag("-A", "--catenate", "--concatenate"): "writes to the archive",
    Flag("--delete"): "writes to the archive",
    Flag("-d", "--diff", "--compare"): "compares (reads the file system; not a list form)",
    Flag("-I", "--use-compress-program", takes=G): "runs a compression program",
    Flag("--to-command", takes=G): "runs a command for every file",
    Flag("--checkpoint-action", takes=G): "can run a command at checkpoints",
    Flag("-F", "--info-script", "--new-volume-script", takes=G): "runs a script",
    Flag("--rsh-command", takes=G): "runs a remote shell program",
    Flag("--rmt-command", takes=G): "runs a remote tape program",
    Flag("-O", "--to-stdout"): "is an extraction option",
    Flag("--index-file", takes=Takes.WRITE_PATH): "writes a file",
    Flag("-g", "--listed-incremental", takes=Takes.WRITE_PATH): "writes a snapshot file",
    Flag("-M", "--multi-volume"): "prompts for volumes",
    Flag("-w", "--interactive", "--confirmation"): "prompts",
    Flag("--remove-files"): "deletes files",
    Flag("-U", "--unlink-first"): "deletes files",
    Flag("-k", "--keep-old-files"): "is an extraction option",
    Flag("-m", "--touch"): "is an extraction option",
    Flag("-p", "--preserve-permissions", "--same-permissions"): "is an extraction option",
    Flag("-P", "--absolute-names"): "is an extraction option",
    Flag("-V", "--label", takes=V): "labels a new archive",
    Flag("-G", "--incremental"): "is an incremental-archive option",
    Flag("-S", "--sparse"): "is an archive-creation option",
    Flag("-h", "--dereference"): "is an archive-creation option",
    Flag("-l", "--check-links"): "is an archive-creation option",
    Flag("-W", "--verify"): "is an archive-creation option",
    Flag("-o", "--no-same-owner"): "is an extraction option",
    Flag("-s", "--preserve-order", "--same-order"): "is an extraction option",
}


# Of these, the last one given before a -T decides how its list is read (measured with tar 1.34:
# `--null --no-verbatim-files-from -T F` reads option lines again, `--no-verbatim… --null` not).
_VERBATIM = {"--verbatim-files-from": True, "--null": True, "--no-verbatim-files-from": False}


def _option_lists(p: Parsed) -> list[Finding]:
    """The -T lists whose lines starting with ``-`` tar reads as options (the docstring)."""
    verbatim = False
    out: list[Finding] = []
    for o in p.opts:
        name = o.flag.long
        if name in _VERBATIM:
            verbatim = _VERBATIM[name]
        elif name == "--files-from" and not verbatim:
            out.append(Finding(f"tar {o.spelled} reads lines starting with '-' in its list as options "
                               "(-T FILE there reads a file unseen); give --verbatim-files-from "
                               "before it", o.word.span, "readonly.flag"))
    return out


def _tar_check(p: Parsed, call: Call) -> Iterable[Finding]:
    out: list[Finding] = _option_lists(p)
    if not p.has("-t"):
        out.append(Finding("tar is read-only only when listing (-t)", call.command.span, "readonly.flag"))
    for w in p.values_of("-f"):
        t = w.text
        colon = t.find(":")
        if colon > 0 and "/" not in t[:colon] and not p.has("--force-local"):
            out.append(Finding(f"tar archive name {t} opens a remote host through a shell", w.span,
                               "readonly.operand"))
    return out


TAR_SPEC = Command("tar", reads=False, safe=_TAR_SAFE, unsafe=_TAR_UNSAFE, check=_tar_check)
_TAR_LETTER_VALUES = {"f", "b", "C", "T", "X", "H", "I", "F", "V", "g"}


def _old_style(args: Sequence[Word]) -> list[Word] | None:
    """``tar tzvf x.tgz`` -> ``-t -z -v -f x.tgz`` (None when not old style)."""
    if not args:
        return []
    first = args[0]
    if not first.static or first.text.startswith("-") or not first.text.isalpha():
        return None
    out: list[Word] = []
    rest = list(args[1:])
    for ch in first.text:
        out.append(Word(text="-" + ch, raw="-" + ch, span=first.span))
        if ch in _TAR_LETTER_VALUES:
            if not rest:
                return out
            out.append(rest.pop(0))
    return out + rest


def tar(call: Call) -> list[Finding]:
    args = call.command.args
    converted = _old_style(args)
    return run_checks(TAR_SPEC, call, converted if converted is not None else args)


def _unzip_check(p: Parsed, call: Call) -> Iterable[Finding]:
    if not p.has("-l", "-v", "-Z", "-t"):
        return [Finding("unzip is read-only only when listing (-l, -v, -Z) or testing (-t)",
                        call.command.span, "readonly.flag")]
    return [Finding(f"unzip option {w.text} after the archive name", w.span, "readonly.flag")
            for w in p.operands if w.text.startswith("-")]


UNZIP = Command("unzip", reads=False, permute=False, check=_unzip_check, dashdash=False,
                safe=[Flag("-l"), Flag("-v"), Flag("-Z"), Flag("-t"), Flag("-q"), Flag("-z")])
ZIPINFO = Command("zipinfo", reads=False, dashdash=False,
                  safe=[*(Flag(f"-{c}") for c in "12smlvhMtTz")])
_Z = [Flag("-c", "--stdout", "--to-stdout"), Flag("-d", "--decompress", "--uncompress"),
      Flag("-f", "--force"), Flag("-q", "--quiet"), Flag("-v", "--verbose"), Flag("-l", "--list"),
      Flag("-n", "--no-name"), Flag("-N", "--name"), Flag("-t", "--test"), Flag("-S", "--suffix", takes=V),
      Flag("-h", "--help"), Flag("-V", "--version"), Flag("-L", "--license")]
# gzip 1.12 (get_istat): decompressing (zcat, gunzip, -d, -l, -t) a NAME that does not exist
# opens NAME with the -S suffix, then with each of these (strace), and -f copies a file that is
# not gzip data to stdout as it is: `zcat -f -S v .en` printed .env, a name the path scanner
# never saw. Each NAME+suffix is checked as a read. A glob operand (`zcat *R1*.fastq.gz`) is
# each name it matches, which exists (so no suffix is tried), or, with no match, the pattern
# itself, which bash passes as it is: gzip then opens PATTERN+suffix (strace: `zcat *R9*` opened
# `*R9*`, `*R9*.gz` … `*R9*.Z`). PATTERN+suffix read as a glob covers both: the literal name and
# every match's own suffixed name (should a match vanish before gzip opens it).
_GZ_SUFFIXES = (".gz", ".z", "-z", ".Z")


def _gz_names(p: Parsed, call: Call) -> Iterable[Finding]:
    """The files a decompressing gzip may open for each operand besides the operand itself."""
    from ..paths.globs import has_glob  # a pattern's syntax, only while checking

    suffixes = list(_GZ_SUFFIXES)
    for v in p.values_of("-S"):
        if not v.static:
            yield Finding(f"{call.command.name} -S {v.text}: a suffix only known at run time is added to "
                          "names that do not exist (the file opened could be a secret)", v.span,
                          "readonly.dynamic_path")
            return
        suffixes.insert(0, v.text)
    for w in p.operands:
        if not w.static or w.text == "-":
            continue   # refused already (Command.reads) / stdin
        odd = next((s for s in suffixes if has_glob(s)), None) if w.glob else None
        if odd is not None:   # PATTERN+suffix as a glob would not be the literal name opened
            yield Finding(f"{call.command.name} adds the suffix {odd!r} to {w.text!r} when it matches "
                          "nothing: a glob and a suffix holding glob characters cannot be checked "
                          "together", w.span, "readonly.dynamic_path")
            continue
        hit = sensitive_read([w.text + s for s in suffixes], call, w.span)
        if hit is not None:
            yield Finding(f"{call.command.name} opens {hit.path} when {w.text} does not exist (it adds "
                          f"-S and .gz/.z/-z/.Z to the name): {hit.cls.value}", w.span, "readonly.sensitive")


ZCATS = tuple(Command(n, safe=_Z, check=_gz_names, globs=True) for n in ("zcat", "gzcat"))


def _gzip_check(p: Parsed, call: Call) -> Iterable[Finding]:
    if not p.has("-c", "-l", "-t"):
        yield Finding(f"{call.command.name} replaces the files it is given unless it writes to "
                      "stdout (-c), lists (-l) or tests (-t)", call.command.span, "readonly.flag")
    if call.command.name == "gunzip" or p.has("-d", "-l", "-t"):
        yield from _gz_names(p, call)


# gzip and gunzip are zcat's program: the same flags, read-only only in those three forms
# (-c wins over an in-place -d/-f: the file is written to stdout and left alone).
GZIPS = tuple(Command(n, safe=_Z, check=_gzip_check, globs=True) for n in ("gzip", "gunzip"))
BZCAT = Command("bzcat", safe=[Flag("-s", "--small"), Flag("-q", "--quiet"), Flag("-v", "--verbose"),
                               Flag("-h", "--help"), Flag("-V", "--version")])
XZCAT = Command("xzcat", safe=[Flag("-q", "--quiet"), Flag("-v", "--verbose"), Flag("-h", "--help"),
                               Flag("-V", "--version"), Flag("-T", "--threads", takes=V)])


def _stdout_check(forms: tuple[str, ...], what: str, modes: frozenset[str] = frozenset()) -> Check:
    """Read-only when one of ``forms`` is given — but of the operation modes (``modes``: -z,
    -d, -t, -l …) the last one given is the one that runs (xz and bzip2 both: `xz -l -z f` and
    `bzip2 -t -z f` compress f), so a listing or test counts only as the last mode; -c (to
    stdout) leaves the files alone whatever the mode."""
    def check(p: Parsed, call: Call) -> Iterable[Finding]:
        last = [o.spelled for o in p.opts if set(o.flag.names) & modes][-1:]
        chosen = p.has("-c") or any(n in forms for o in p.opts if o.spelled in last
                                    for n in o.flag.names) if modes else p.has(*forms)
        if not chosen and not (p.has("-h", "-V", "-L", "-H") and not p.operands):
            yield Finding(f"{call.command.name} writes a file for each file it is given (and deletes "
                          f"the original unless -k) unless it {what}",
                          call.command.span, "readonly.flag")
    return check


# bzip2 1.0.8 (bzip2/bunzip2 are one program): the same gzip rule — -c writes to stdout and
# leaves the file (strace: -dc, -c and -t open their file read-only, nothing else). Long
# options are compared whole, short ones bundle (-dc, -4v).
_BZ = [Flag("-c", "--stdout"), Flag("-d", "--decompress"), Flag("-z", "--compress"),
       Flag("-k", "--keep"), Flag("-f", "--force"), Flag("-t", "--test"), Flag("-q", "--quiet"),
       Flag("-v", "--verbose"), Flag("-s", "--small"), Flag("--fast"), Flag("--best"),
       *(Flag(f"-{n}") for n in range(1, 10)), Flag("-h", "--help"), Flag("-L", "--license"),
       Flag("-V", "--version")]
BZIP2S = tuple(Command(n, safe=_BZ, abbrev=False, check=_stdout_check(
    ("-c", "-t"), "writes to stdout (-c) or tests (-t) as its last mode",
    frozenset({"-z", "--compress", "-d", "--decompress", "-t", "--test"})))
    for n in ("bzip2", "bunzip2"))

# xz 5.4 (xz/unxz): -c, -t and -l (a listing) leave the files alone (strace as above); --files
# and --files0 read the names to process from a file or stdin (names we cannot see).
_XZ_FILTERS = ("--lzma1", "--lzma2", "--x86", "--arm", "--armthumb", "--arm64", "--powerpc",
               "--ia64", "--sparc", "--delta")
_XZ = [Flag("-z", "--compress"), Flag("-d", "--decompress", "--uncompress"), Flag("-t", "--test"),
       Flag("-l", "--list"), Flag("-k", "--keep"), Flag("-f", "--force"),
       Flag("-c", "--stdout", "--to-stdout"), Flag("--single-stream"), Flag("--no-sparse"),
       Flag("-S", "--suffix", takes=V), Flag("-F", "--format", takes=V), Flag("-C", "--check", takes=V),
       Flag("--ignore-check"), *(Flag(f"-{n}") for n in range(10)), Flag("-e", "--extreme"),
       Flag("-T", "--threads", takes=V), Flag("--block-size", takes=V), Flag("--block-list", takes=V),
       Flag("--flush-timeout", takes=V), Flag("--memlimit-compress", takes=V),
       Flag("--memlimit-decompress", takes=V), Flag("--memlimit-mt-decompress", takes=V),
       Flag("-M", "--memlimit", "--memory", takes=V), Flag("--no-adjust"),
       *(Flag(f, takes=V, optional=True) for f in _XZ_FILTERS), Flag("-q", "--quiet"),
       Flag("-v", "--verbose"), Flag("-Q", "--no-warn"), Flag("--robot"), Flag("--info-memory"),
       Flag("-h", "--help"), Flag("-H", "--long-help"), Flag("-V", "--version")]
_XZ_UNSAFE = {Flag("--files", takes=P, optional=True): "reads the names of the files to process from a file",
              Flag("--files0", takes=P, optional=True): "reads the names of the files to process from a file"}
XZS = tuple(Command(n, safe=_XZ, unsafe=_XZ_UNSAFE, check=_stdout_check(
    ("-c", "-t", "-l", "--info-memory"),
    "writes to stdout (-c), tests (-t) or lists (-l) as its last mode",
    frozenset({"-z", "--compress", "-d", "--decompress", "--uncompress", "-t", "--test",
               "-l", "--list", "--info-memory"})))
    for n in ("xz", "unxz"))


# 7-Zip (p7zip 16.02's 7z/7za/7zr, 7-Zip 22's 7zz) reads its own command line: the first word
# that is not a switch is the command (`7z -slt l a.7z` lists), switches may come anywhere
# before `--`, are matched case-insensitively by their longest known name and carry their value
# attached (`-tzip`, `-pSECRET`). Only the list command `l` is read-only; in it every switch
# below only changes what is printed (measured under strace: the archive is opened for reading,
# nothing else). A switch is accepted only when its whole word matches one of these; `@file`
# (a list file, read) and `-ai`/`-ax`/`-i@`/`-x@` are refused, and so is an archive name with
# 7-Zip's own wildcards (7z expands `*`/`?` in the archive name itself, over a directory).
_7Z_SWITCHES = lazy_compile(r"(?i)-(?:slt|ba|bd|bt|bb[0-3]?|bs[oep][0-2]|y|an|spd|ssc-?|r[-0]?"
                            r"|t[a-z0-9.#*]+|p[^@]*|sc[cs][a-z0-9-]+|[ix]r?[-0]?![^@]*)")


def sevenzip(call: Call) -> list[Finding]:
    """``7z l ARCHIVE [NAMES…]`` with listed switches only (the comment above)."""
    name = call.command.name
    out: list[Finding] = []
    command: Word | None = None
    operands: list[Word] = []
    switches = True
    for w in call.command.args:
        if is_wild(w):
            out.append(Finding(f"{name} argument {w.text!r} is only known at run time", w.span,
                               "readonly.wild"))
            continue
        if switches and w.text == "--":
            switches = False
        elif switches and w.text.startswith("-"):
            if not _7Z_SWITCHES.fullmatch(w.text):
                out.append(Finding(f"{name}: switch {w.text} is not on the read-only list", w.span,
                                   "readonly.unknown_flag"))
        elif command is None:
            command = w
        elif w.text.startswith("@"):
            out.append(Finding(f"{name} reads the names of a list file {w.text}", w.span, "readonly.operand"))
        else:
            operands.append(w)
    if command is None or command.text.lower() != "l":
        span = call.command.span if command is None else command.span
        out.append(Finding(f"{name} is read-only only as its list command (l)", span, "readonly.subcommand"))
    elif not operands:
        out.append(Finding(f"{name} l needs an archive name", call.command.span, "readonly.operand"))
    elif any(c in operands[0].text for c in "*?"):
        out.append(Finding(f"{name} expands the wildcard archive name {operands[0].text} itself",
                           operands[0].span, "readonly.operand"))
    return out


COMMANDS = (UNZIP, ZIPINFO, *ZCATS, *GZIPS, BZCAT, XZCAT, *BZIP2S, *XZS)
CUSTOM = {"tar": tar, **dict.fromkeys(("7z", "7za", "7zr", "7zz"), sevenzip)}
