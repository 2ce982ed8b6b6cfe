"""Text filters (coreutils and friends): they read files or stdin and print.

The ones with a way out are listed with it: ``sort -o``/``--compress-program``, ``shuf -o``,
``uniq IN OUT`` and ``xxd IN OUT`` (a second operand is an output file).
"""

from __future__ import annotations

from collections.abc import Iterable

from .spec import Call, Command, Finding, Flag, Parsed, Takes, is_wild, may_split

V = Takes.VALUE
P = Takes.PATH
HELP = [Flag("--help"), Flag("--version")]
ZERO = Flag("-z", "--zero-terminated")
# A list of file names to read, from a file or stdin: the files themselves are never in argv,
# so the path scanner cannot see them (`printf '.env\0' | wc --files0-from=-`).
FILES0_FROM = Flag("--files0-from", takes=P)
NAMES_FROM_FILE = "reads files named in another file or stdin (unseen paths)"

CAT = Command("cat", safe=[
    Flag("-A", "--show-all"), Flag("-b", "--number-nonblank"), Flag("-e"), Flag("-E", "--show-ends"),
    Flag("-n", "--number"), Flag("-s", "--squeeze-blank"), Flag("-t"), Flag("-T", "--show-tabs"),
    Flag("-u"), Flag("-v", "--show-nonprinting"), *HELP])

TAC = Command("tac", safe=[Flag("-b", "--before"), Flag("-r", "--regex"),
                           Flag("-s", "--separator", takes=V), *HELP])

HEAD = Command("head", numeric=True, safe=[
    Flag("-c", "--bytes", takes=V), Flag("-n", "--lines", takes=V), Flag("-q", "--quiet", "--silent"),
    Flag("-v", "--verbose"), ZERO, *HELP])

TAIL = Command("tail", numeric=True, safe=[
    Flag("-c", "--bytes", takes=V), Flag("-f"), Flag("--follow", takes=V, optional=True), Flag("-F"),
    Flag("-n", "--lines", takes=V), Flag("--max-unchanged-stats", takes=V), Flag("--pid", takes=V),
    Flag("-q", "--quiet", "--silent"), Flag("--retry"), Flag("-s", "--sleep-interval", takes=V),
    Flag("-v", "--verbose"), ZERO, *HELP])

WC = Command("wc", safe=[
    Flag("-c", "--bytes"), Flag("-m", "--chars"), Flag("-l", "--lines"),
    Flag("-L", "--max-line-length"), Flag("-w", "--words"), Flag("--total", takes=V), *HELP],
    unsafe={FILES0_FROM: NAMES_FROM_FILE})

NL = Command("nl", safe=[
    Flag("-b", "--body-numbering", takes=V), Flag("-d", "--section-delimiter", takes=V),
    Flag("-f", "--footer-numbering", takes=V), Flag("-h", "--header-numbering", takes=V),
    Flag("-i", "--line-increment", takes=V), Flag("-l", "--join-blank-lines", takes=V),
    Flag("-n", "--number-format", takes=V), Flag("-p", "--no-renumber"),
    Flag("-s", "--number-separator", takes=V), Flag("-v", "--starting-line-number", takes=V),
    Flag("-w", "--number-width", takes=V), *HELP])

CUT = Command("cut", safe=[
    Flag("-b", "--bytes", takes=V), Flag("-c", "--characters", takes=V),
    Flag("-d", "--delimiter", takes=V), Flag("-f", "--fields", takes=V), Flag("-n"),
    Flag("--complement"), Flag("-s", "--only-delimited"), Flag("--output-delimiter", takes=V),
    ZERO, *HELP])

TR = Command("tr", reads=False, max_operands=2, safe=[
    Flag("-c", "-C", "--complement"), Flag("-d", "--delete"), Flag("-s", "--squeeze-repeats"),
    Flag("-t", "--truncate-set1"), *HELP])

UNIQ = Command("uniq", max_operands=1, extra_operand="writes its output to the second file name",
               safe=[
    Flag("-c", "--count"), Flag("-d", "--repeated"), Flag("-D"),
    Flag("--all-repeated", takes=V, optional=True), Flag("-f", "--skip-fields", takes=V),
    Flag("--group", takes=V, optional=True), Flag("-i", "--ignore-case"),
    Flag("-s", "--skip-chars", takes=V), Flag("-u", "--unique"), ZERO,
    Flag("-w", "--check-chars", takes=V), *HELP])

SORT = Command(
    "sort",
    safe=[
        Flag("-b", "--ignore-leading-blanks"), Flag("-d", "--dictionary-order"),
        Flag("-f", "--ignore-case"), Flag("-g", "--general-numeric-sort"),
        Flag("-i", "--ignore-nonprinting"), Flag("-M", "--month-sort"),
        Flag("-h", "--human-numeric-sort"), Flag("-n", "--numeric-sort"),
        Flag("-R", "--random-sort"), Flag("--random-source", takes=P), Flag("-r", "--reverse"),
        Flag("--sort", takes=V), Flag("-V", "--version-sort"), Flag("-c"), Flag("-C"),
        Flag("--check", takes=V, optional=True), Flag("--debug"),
        Flag("-k", "--key", takes=V), Flag("-m", "--merge"), Flag("-s", "--stable"),
        Flag("-S", "--buffer-size", takes=V), Flag("-t", "--field-separator", takes=V),
        Flag("--parallel", takes=V), Flag("-u", "--unique"), ZERO, *HELP,
    ],
    # Listed so that their abbreviations (--out=, --compress-prog) are recognised and refused.
    unsafe={
        Flag("-o", "--output", takes=Takes.WRITE_PATH): "writes its output to a file",
        # sort spills to temporary files there (a large input, or an input that is also its
        # output: `sort -T /etc -m /dev/stdout` opened /etc/sortXXXXXX for writing).
        Flag("-T", "--temporary-directory", takes=V): "writes temporary files in a directory",
        Flag("--compress-program", takes=Takes.PROGRAM): "runs a compression program",
        FILES0_FROM: NAMES_FROM_FILE,
    },
)

SHUF = Command("shuf", safe=[
    Flag("-e", "--echo"), Flag("-i", "--input-range", takes=V), Flag("-n", "--head-count", takes=V),
    Flag("--random-source", takes=P), Flag("-r", "--repeat"), ZERO, *HELP],
    unsafe={Flag("-o", "--output", takes=Takes.WRITE_PATH): "writes its output to a file"})

COLUMN = Command("column", safe=[
    Flag("-J", "--json"), Flag("-n", "--table-name", takes=V), Flag("-O", "--table-order", takes=V),
    Flag("-C", "--table-column", takes=V), Flag("-N", "--table-columns", takes=V),
    Flag("-l", "--table-columns-limit", takes=V), Flag("-R", "--table-right", takes=V),
    Flag("-T", "--table-truncate", takes=V), Flag("-E", "--table-noextreme", takes=V),
    Flag("-e", "--table-header-repeat"), Flag("-W", "--table-wrap", takes=V),
    Flag("-H", "--table-hide", takes=V), Flag("-o", "--output-separator", takes=V),
    Flag("-s", "--separator", takes=V), Flag("-t", "--table"), Flag("-x", "--fillrows"),
    Flag("-c", "--output-width", takes=V), Flag("-d", "--table-noheadings"),
    Flag("-m", "--table-maxout"), Flag("-L", "--keep-empty-lines"), Flag("-r", "--tree", takes=V),
    Flag("-i", "--tree-id", takes=V), Flag("-p", "--tree-parent", takes=V), Flag("-h", "--help"),
    Flag("-V", "--version")])

PASTE = Command("paste", safe=[Flag("-d", "--delimiters", takes=V), Flag("-s", "--serial"), ZERO, *HELP])

COMM = Command("comm", max_operands=2, safe=[
    Flag("-1"), Flag("-2"), Flag("-3"), Flag("--check-order"), Flag("--nocheck-order"),
    Flag("--output-delimiter", takes=V), Flag("--total"), ZERO, *HELP])

JOIN = Command("join", max_operands=2, safe=[
    Flag("-a", takes=V), Flag("-e", takes=V), Flag("-i", "--ignore-case"), Flag("-j", takes=V),
    Flag("-o", takes=V), Flag("-t", takes=V), Flag("-v", takes=V), Flag("-1", takes=V),
    Flag("-2", takes=V), Flag("--check-order"), Flag("--nocheck-order"), Flag("--header"), ZERO, *HELP])

FOLD = Command("fold", safe=[Flag("-b", "--bytes"), Flag("-s", "--spaces"), Flag("-w", "--width", takes=V),
                             *HELP])
FMT = Command("fmt", numeric=True, safe=[
    Flag("-c", "--crown-margin"), Flag("-p", "--prefix", takes=V), Flag("-s", "--split-only"),
    Flag("-t", "--tagged-paragraph"), Flag("-u", "--uniform-spacing"), Flag("-w", "--width", takes=V),
    Flag("-g", "--goal", takes=V), *HELP])
EXPAND = Command("expand", safe=[Flag("-i", "--initial"), Flag("-t", "--tabs", takes=V), *HELP])
UNEXPAND = Command("unexpand", safe=[Flag("-a", "--all"), Flag("--first-only"),
                                     Flag("-t", "--tabs", takes=V), *HELP])
REV = Command("rev", safe=[Flag("-0", "--zero"), Flag("-h", "--help"), Flag("-V", "--version")])
SEQ = Command("seq", reads=False, numeric=True, max_operands=3, safe=[
    Flag("-f", "--format", takes=V), Flag("-s", "--separator", takes=V), Flag("-w", "--equal-width"),
    *HELP])

STRINGS = Command("strings", numeric=True, response_files=True, safe=[
    Flag("-a", "--all"), Flag("-d", "--data"), Flag("-f", "--print-file-name"),
    Flag("-n", "--bytes", takes=V), Flag("-t", "--radix", takes=V), Flag("-o"),
    Flag("-e", "--encoding", takes=V), Flag("-w", "--include-all-whitespace"),
    Flag("-s", "--output-separator", takes=V), Flag("-U", "--unicode", takes=V),
    Flag("-T", "--target", takes=V), Flag("-h", "--help"), Flag("-v", "-V", "--version")])

OD = Command("od", safe=[
    Flag("-A", "--address-radix", takes=V), Flag("--endian", takes=V),
    Flag("-j", "--skip-bytes", takes=V), Flag("-N", "--read-bytes", takes=V),
    Flag("-S", takes=V), Flag("--strings", takes=V, optional=True), Flag("-t", "--format", takes=V),
    Flag("-v", "--output-duplicates"), Flag("-w", "--width", takes=V, optional=True),
    Flag("--traditional"), *(Flag(f"-{c}") for c in "abcdfilosx"), *HELP])

HEXDUMP = Command("hexdump", safe=[
    Flag("-b", "--one-byte-octal"), Flag("-c", "--one-byte-char"), Flag("-C", "--canonical"),
    Flag("-d", "--two-bytes-decimal"), Flag("-o", "--two-bytes-octal"), Flag("-x", "--two-bytes-hex"),
    Flag("-L", "--color", takes=V, optional=True), Flag("-e", "--format", takes=V),
    Flag("-f", "--format-file", takes=P), Flag("-n", "--length", takes=V),
    Flag("-s", "--skip", takes=V), Flag("-v", "--no-squeezing"), Flag("-h", "--help"),
    Flag("-V", "--version")])

_BASE = [Flag("-d", "--decode"), Flag("-i", "--ignore-garbage"), Flag("-w", "--wrap", takes=V), *HELP]
BASES = tuple(Command(n, safe=_BASE, max_operands=1) for n in ("base64", "base32"))

_SUM = [Flag("-b", "--binary"), Flag("-c", "--check"), Flag("--tag"), Flag("--untagged"),
        Flag("-t", "--text"), ZERO, Flag("--ignore-missing"), Flag("--quiet"), Flag("--status"),
        Flag("--strict"), Flag("-w", "--warn"), Flag("-l", "--length", takes=V),
        Flag("-a", "--algorithm", takes=V), Flag("--base64"), Flag("--raw"), Flag("--debug"), *HELP]
SUMS = tuple(Command(n, safe=_SUM) for n in (
    "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum"))

# Perl's shasum (Getopt::Long, bundling): the same reading and checking as sha*sum, other flags.
SHASUM = Command("shasum", safe=[
    Flag("-a", "--algorithm", takes=V), Flag("-b", "--binary"), Flag("-c", "--check"), Flag("--tag"),
    Flag("-t", "--text"), Flag("-U", "--UNIVERSAL"), Flag("-0", "--01"), Flag("--ignore-missing"),
    Flag("-q", "--quiet"), Flag("-s", "--status"), Flag("--strict"), Flag("-w", "--warn"),
    Flag("-h", "--help"), Flag("-v", "--version")])

# util-linux look: lines of FILE (a dictionary by default) that begin with STRING. Not wild: a
# split string would put a file among the operands (look $x with x='"" ~/.ssh/id_rsa').
LOOK = Command("look", pattern_from=(), wild=False, safe=[
    Flag("-a", "--alternative"), Flag("-d", "--alphanum"), Flag("-f", "--ignore-case"),
    Flag("-t", "--terminate", takes=V), Flag("-h", "--help"), Flag("-V", "--version")])

CMP = Command("cmp", max_operands=4, safe=[
    Flag("-b", "--print-bytes"), Flag("-i", "--ignore-initial", takes=V), Flag("-l", "--verbose"),
    Flag("-n", "--bytes", takes=V), Flag("-s", "--quiet", "--silent"), *HELP])

# xxd reads its own odd options (``-c16``, ``-cols 16``, ``-ps``); what matters is that a second
# operand is an output file. Every word starting with "-" is a flag; these take the next word.
# ``--`` ends the options (xxd.c): ``xxd -r -p -- -l out`` reads ``-l`` and writes ``out``.
_XXD_VALUE = {"-c", "-cols", "-g", "-groupsize", "-l", "-len", "-n", "-name", "-o", "-offset",
              "-s", "-seek", "-R"}


def _xxd(p: Parsed, call: Call) -> Iterable[Finding]:
    args = call.command.args
    operands = []
    i, ended = 0, False
    if wild := next((w for w in args if is_wild(w) or may_split(w)), None):
        # an option's value too: `-seek src/*` is a seek value, an input and an output file
        return [Finding(f"xxd argument {wild.text!r} may expand to several words (a second one is "
                        "an output file)", wild.span, "readonly.wild")]
    while i < len(args):
        w = args[i]
        i += 1
        # options come before the input file: after it, `-l` is the name of the output file
        if not operands and not ended and w.static and w.text == "--":
            ended = True
            continue
        if not operands and not ended and w.static and w.text.startswith("-") and w.text != "-":
            if w.text in _XXD_VALUE:
                i += 1
            continue
        operands.append(w)
    if len(operands) > 1:
        return [Finding("xxd writes its output to the second file name", operands[1].span,
                        "readonly.operand")]
    return []


XXD = Command("xxd", free=True, check=_xxd)

# coreutils pr paginates for printing, to stdout (it is no pager): -COLUMN is numeric, the
# optional values attach (-e[CHAR[WIDTH]], -n[SEP[DIGITS]], -s[CHAR], -S[STRING]).
PR = Command("pr", numeric=True, safe=[
    Flag("--columns", takes=V), Flag("-a", "--across"), Flag("-c", "--show-control-chars"),
    Flag("-d", "--double-space"), Flag("-D", "--date-format", takes=V),
    Flag("-e", "--expand-tabs", takes=V, optional=True), Flag("-F", "-f", "--form-feed"),
    Flag("-h", "--header", takes=V), Flag("-i", "--output-tabs", takes=V, optional=True),
    Flag("-J", "--join-lines"), Flag("-l", "--length", takes=V), Flag("-m", "--merge"),
    Flag("-n", "--number-lines", takes=V, optional=True), Flag("-N", "--first-line-number", takes=V),
    Flag("-o", "--indent", takes=V), Flag("-r", "--no-file-warnings"),
    Flag("-s", "--separator", takes=V, optional=True), Flag("-S", "--sep-string", takes=V, optional=True),
    Flag("-t", "--omit-header"), Flag("-T", "--omit-pagination"), Flag("-v", "--show-nonprinting"),
    Flag("-w", "--width", takes=V), Flag("-W", "--page-width", takes=V), Flag("--pages", takes=V), *HELP])

# glibc iconv: converts the files (or stdin) to stdout; code set names are looked up in the
# system's gconv-modules (GCONV_PATH is an environment variable, refused as a prefix).
ICONV = Command("iconv", safe=[
    Flag("-f", "--from-code", takes=V), Flag("-t", "--to-code", takes=V), Flag("-l", "--list"), Flag("-c"),
    Flag("-s", "--silent"), Flag("--verbose"), Flag("-?", "--help"), Flag("--usage"),
    Flag("-V", "--version")],
    unsafe={Flag("-o", "--output", takes=Takes.WRITE_PATH): "writes its output to a file"})

COMMANDS = (ICONV, PR, CAT, TAC, HEAD, TAIL, WC, NL, CUT, TR, UNIQ, SORT, SHUF, COLUMN, PASTE, COMM, JOIN,
            FOLD, FMT, EXPAND, UNEXPAND, REV, SEQ, STRINGS, OD, HEXDUMP, *BASES, *SUMS, SHASUM, LOOK, CMP,
            XXD)
