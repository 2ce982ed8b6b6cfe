"""Looking at files and directories: ls, tree, file, stat, du, df, diff, path helpers.

Only ``tree -o``/``-R`` (write output files), ``file -C`` (compiles a magic file) and
``file -p`` (resets access times) leave a trace; everything else here only reads.
"""

from __future__ import annotations

from .spec import Command, Flag, Takes
from .treeinputs import TREE_LISTS, TREE_RULES

V = Takes.VALUE
P = Takes.PATH
HELP = [Flag("--help"), Flag("--version")]

LS = Command("ls", reads=False, safe=[
    Flag("-a", "--all"), Flag("-A", "--almost-all"), Flag("--author"), Flag("-b", "--escape"),
    Flag("--block-size", takes=V), Flag("-B", "--ignore-backups"), Flag("-c"), Flag("-C"),
    Flag("--color", "--colour", takes=V, optional=True), Flag("-d", "--directory"),
    Flag("-D", "--dired"), Flag("-f"), Flag("-F", "--classify", takes=V, optional=True),
    Flag("--file-type"), Flag("--format", takes=V), Flag("--full-time"), Flag("-g"),
    Flag("--group-directories-first"), Flag("-G", "--no-group"), Flag("-h", "--human-readable"),
    Flag("--si"), Flag("-H", "--dereference-command-line"),
    Flag("--dereference-command-line-symlink-to-dir"), Flag("--hide", takes=V),
    Flag("--hyperlink", takes=V, optional=True), Flag("--indicator-style", takes=V),
    Flag("-i", "--inode"), Flag("-I", "--ignore", takes=V), Flag("-k", "--kibibytes"), Flag("-l"),
    Flag("-L", "--dereference"), Flag("-m"), Flag("-n", "--numeric-uid-gid"),
    Flag("-N", "--literal"), Flag("-o"), Flag("-p"), Flag("-q", "--hide-control-chars"),
    Flag("--show-control-chars"), Flag("-Q", "--quote-name"), Flag("--quoting-style", takes=V),
    Flag("-r", "--reverse"), Flag("-R", "--recursive"), Flag("-s", "--size"), Flag("-S"),
    Flag("--sort", takes=V), Flag("--time", takes=V), Flag("--time-style", takes=V), Flag("-t"),
    Flag("-T", "--tabsize", takes=V), Flag("-u"), Flag("-U"), Flag("-v"),
    Flag("-w", "--width", takes=V), Flag("-x"), Flag("-X"), Flag("-Z", "--context"),
    Flag("--zero"), Flag("-1"), *HELP])

# tree reads a bundle one letter at a time and takes values from the following words in order.
# The flags that make it open files besides listing directories: commands/treeinputs.py.
TREE = Command(
    "tree", reads=lambda p: p.has(*TREE_LISTS, *TREE_RULES), attach=False, abbrev=False,
    safe=[*(Flag(f"-{c}") for c in "adlfxqNQpugshDFvtcUrCAiSnXJ"),
          Flag("-L", takes=V), Flag("-P", takes=V), Flag("-I", takes=V), Flag("-H", takes=V),
          Flag("-T", takes=V), Flag("--gitignore"), Flag("--gitfile", takes=P),
          Flag("--ignore-case"), Flag("--matchdirs"), Flag("--metafirst"), Flag("--prune"),
          Flag("--info"), Flag("--infofile", takes=P), Flag("--noreport"), Flag("--charset", takes=V),
          Flag("--filelimit", takes=V), Flag("--timefmt", takes=V), Flag("--si"), Flag("--du"),
          Flag("--inodes"), Flag("--device"), Flag("--dirsfirst"), Flag("--filesfirst"),
          Flag("--sort", takes=V), Flag("--nolinks"), Flag("--hintro", takes=P),
          Flag("--houtro", takes=P), Flag("--fromfile"), Flag("--fromtabfile"), Flag("--fflinks"),
          Flag("--condense"), Flag("--noindent"), *HELP],
    unsafe={
        Flag("-o", takes=Takes.WRITE_PATH): "writes its output to a file",
        Flag("-R"): "writes 00Tree.html files into every directory (with -H)",
    },
)

# fd (and Debian's fdfind) prints the names it finds, never their content: a pattern, then
# directories to search. Refused: running programs (-x, -X), -l (runs ls), a base directory or
# ignore file the path roles do not follow.
_FD_SAFE = [
    Flag("-H", "--hidden"), Flag("--no-hidden"), Flag("-I", "--no-ignore"), Flag("--ignore"),
    Flag("--no-ignore-vcs"), Flag("--ignore-vcs"), Flag("--no-ignore-parent"), Flag("--no-require-git"),
    Flag("--no-global-ignore-file"), Flag("-u", "--unrestricted"), Flag("-s", "--case-sensitive"),
    Flag("-i", "--ignore-case"), Flag("-g", "--glob"), Flag("--regex"), Flag("-F", "--fixed-strings"),
    Flag("--and", takes=V), Flag("-a", "--absolute-path"), Flag("--relative-path"),
    Flag("-L", "--follow"), Flag("--no-follow"), Flag("-p", "--full-path"), Flag("-0", "--print0"),
    Flag("-d", "--max-depth", takes=V), Flag("--min-depth", takes=V), Flag("--exact-depth", takes=V),
    Flag("-E", "--exclude", takes=V), Flag("--prune"), Flag("-t", "--type", takes=V),
    Flag("-e", "--extension", takes=V), Flag("-S", "--size", takes=V),
    Flag("--changed-within", "--change-newer-than", "--newer", "--changed-after", takes=V),
    Flag("--changed-before", "--change-older-than", "--older", takes=V),
    Flag("-o", "--owner", takes=V), Flag("--format", takes=V), Flag("-c", "--color", takes=V),
    Flag("-j", "--threads", takes=V), Flag("--max-results", takes=V), Flag("-1"),
    Flag("-q", "--quiet"), Flag("--show-errors"), Flag("--strip-cwd-prefix", takes=V, optional=True),
    Flag("--one-file-system", "--mount", "--xdev"), Flag("--path-separator", takes=V),
    Flag("--hyperlink", takes=V, optional=True), Flag("-h", "--help"), Flag("-V", "--version")]
_FD_UNSAFE = {
    Flag("-x", "--exec", takes=Takes.PROGRAM): "runs a command for every file it finds",
    Flag("-X", "--exec-batch", takes=Takes.PROGRAM): "runs a command on the files it finds",
    Flag("--batch-size", takes=V): "is an option of --exec-batch",
    Flag("-l", "--list-details"): "runs ls on the files it finds",
    Flag("--base-directory", takes=V): "searches from another directory",
    Flag("--search-path", takes=V): "names directories as an option (give them as operands)",
    Flag("--ignore-file", takes=P): "reads an ignore file",
}
# clap: of the read-only options only these take a separate value starting with - (fd 8.6,
# measured by tests/test_option_values_oracle.py: `fd -S -1k`, `fd --and -H`)
FDS = tuple(Command(n, reads=False, safe=_FD_SAFE, unsafe=_FD_UNSAFE,
                    hyphen_values=frozenset({"-S", "--size", "--and"}))
            for n in ("fd", "fdfind"))

FILE = Command("file", safe=[
    Flag("-b", "--brief"), Flag("-c", "--checking-printout"), Flag("-d", "--debug"), Flag("-E"),
    Flag("-e", "--exclude", takes=V), Flag("--exclude-quiet", takes=V),
    Flag("-F", "--separator", takes=V), Flag("-h", "--no-dereference"), Flag("-i", "--mime"),
    Flag("--apple"), Flag("--extension"),
    Flag("--mime-type"), Flag("--mime-encoding"), Flag("-k", "--keep-going"), Flag("-l", "--list"),
    Flag("-L", "--dereference"), Flag("-m", "--magic-file", takes=Takes.PATHS), Flag("-N", "--no-pad"),
    Flag("-n", "--no-buffer"), Flag("-P", "--parameter", takes=V), Flag("-r", "--raw"),
    Flag("-s", "--special-files"), Flag("-0", "--print0"), Flag("-v", "--version"),
    Flag("--help")],
    unsafe={
        Flag("-z", "--uncompress"): "runs decompressors found on PATH (gzip, zstd, lz4, uncompress …)",
        Flag("-Z", "--uncompress-noreport"): "runs decompressors found on PATH (gzip, zstd, lz4 …)",
        Flag("-S", "--no-sandbox"): "turns off libmagic's seccomp sandbox around its decompressors",
        # (-m: libmagic splits the list at colons, and prints a bad line of each file it reads)
        # the names come from a file or stdin, unseen by the path scanner
        Flag("-f", "--files-from", takes=P): "reads files named in another file or stdin (unseen paths)",
        Flag("-C", "--compile"): "compiles a magic file (writes a .mgc file)",
        Flag("-p", "--preserve-date"): "resets the access times of the files it reads",
    },
)

STAT = Command("stat", reads=False, min_operands=1, safe=[
    Flag("-L", "--dereference"), Flag("-f", "--file-system"), Flag("--cached", takes=V),
    Flag("-c", "--format", takes=V), Flag("--printf", takes=V), Flag("-t", "--terse"), *HELP])

DU = Command("du", reads=False, safe=[
    Flag("-0", "--null"), Flag("-a", "--all"), Flag("--apparent-size"),
    Flag("-B", "--block-size", takes=V), Flag("-b", "--bytes"), Flag("-c", "--total"),
    Flag("-D", "--dereference-args"), Flag("-d", "--max-depth", takes=V),
    Flag("--files0-from", takes=P), Flag("-H"), Flag("--inodes"), Flag("-h", "--human-readable"),
    Flag("-k"), Flag("-L", "--dereference"), Flag("-l", "--count-links"), Flag("-m"),
    Flag("-P", "--no-dereference"), Flag("-S", "--separate-dirs"), Flag("--si"),
    Flag("-s", "--summarize"), Flag("-t", "--threshold", takes=V),
    Flag("--time", takes=V, optional=True), Flag("--time-style", takes=V),
    Flag("-X", "--exclude-from", takes=P), Flag("--exclude", takes=V),
    Flag("-x", "--one-file-system"), *HELP])

DF = Command("df", reads=False, safe=[
    Flag("-a", "--all"), Flag("-B", "--block-size", takes=V), Flag("-h", "--human-readable"),
    Flag("-H", "--si"), Flag("-i", "--inodes"), Flag("-k"), Flag("-l", "--local"), Flag("--no-sync"),
    Flag("--output", takes=V, optional=True), Flag("-P", "--portability"), Flag("--sync"),
    Flag("--total"), Flag("-t", "--type", takes=V), Flag("-T", "--print-type"),
    Flag("-x", "--exclude-type", takes=V), Flag("-v"), *HELP])

BASENAME = Command("basename", reads=False, safe=[Flag("-a", "--multiple"), Flag("-s", "--suffix", takes=V),
                                     Flag("-z", "--zero"), *HELP])
DIRNAME = Command("dirname", reads=False, safe=[Flag("-z", "--zero"), *HELP])
REALPATH = Command("realpath", reads=False, safe=[
    Flag("-e", "--canonicalize-existing"), Flag("-m", "--canonicalize-missing"),
    Flag("-L", "--logical"), Flag("-P", "--physical"), Flag("-q", "--quiet"),
    Flag("--relative-to", takes=V), Flag("--relative-base", takes=V),
    Flag("-s", "--strip", "--no-symlinks"), Flag("-z", "--zero"), *HELP])
READLINK = Command("readlink", reads=False, safe=[
    Flag("-f", "--canonicalize"), Flag("-e", "--canonicalize-existing"),
    Flag("-m", "--canonicalize-missing"), Flag("-n", "--no-newline"), Flag("-q", "--quiet"),
    Flag("-s", "--silent"), Flag("-v", "--verbose"), Flag("-z", "--zero"), *HELP])

WHICH = Command("which", reads=False, safe=[Flag("-a"), Flag("-s")])
WHEREIS = Command("whereis", reads=False, safe=[*(Flag(f"-{c}") for c in "bmsulg"), Flag("-B", takes=V),
                                   Flag("-M", takes=V), Flag("-S", takes=V), Flag("-f")])

_DIFF_SAFE = [
    Flag("--normal"), Flag("-q", "--brief"), Flag("-s", "--report-identical-files"), Flag("-c"),
    Flag("-C", takes=V), Flag("--context", takes=V, optional=True), Flag("-u"),
    Flag("-U", takes=V), Flag("--unified", takes=V, optional=True), Flag("-e", "--ed"), Flag("-n", "--rcs"),
    Flag("-y", "--side-by-side"), Flag("-W", "--width", takes=V), Flag("--left-column"),
    Flag("--suppress-common-lines"), Flag("-p", "--show-c-function"),
    Flag("-F", "--show-function-line", takes=V), Flag("--label", takes=V),
    Flag("-t", "--expand-tabs"), Flag("-T", "--initial-tab"), Flag("--tabsize", takes=V),
    Flag("--suppress-blank-empty"), Flag("-r", "--recursive"), Flag("--no-dereference"),
    Flag("-N", "--new-file"), Flag("--unidirectional-new-file"), Flag("--ignore-file-name-case"),
    Flag("--no-ignore-file-name-case"), Flag("-x", "--exclude", takes=V),
    Flag("-X", "--exclude-from", takes=P), Flag("-S", "--starting-file", takes=V),
    Flag("--from-file", takes=P), Flag("--to-file", takes=P), Flag("-i", "--ignore-case"),
    Flag("-E", "--ignore-tab-expansion"), Flag("-Z", "--ignore-trailing-space"),
    Flag("-b", "--ignore-space-change"), Flag("-w", "--ignore-all-space"),
    Flag("-B", "--ignore-blank-lines"), Flag("-I", "--ignore-matching-lines", takes=V),
    Flag("-a", "--text"), Flag("--strip-trailing-cr"), Flag("-D", "--ifdef", takes=V),
    *(Flag(f"--{k}-group-format", takes=V) for k in ("old", "new", "unchanged", "changed")),
    *(Flag(f"--{k}-line-format", takes=V) for k in ("old", "new", "unchanged")),
    Flag("--line-format", takes=V), Flag("-d", "--minimal"), Flag("--horizon-lines", takes=V),
    Flag("--speed-large-files"), Flag("--color", takes=V, optional=True),
    Flag("--palette", takes=V), Flag("--help"), Flag("-v", "--version"),
]
DIFF = Command("diff", safe=_DIFF_SAFE)

PWD = Command("pwd", reads=False, max_operands=0, safe=[Flag("-L"), Flag("-P")])

COMMANDS = (LS, TREE, *FDS, FILE, STAT, DU, DF, BASENAME, DIRNAME, REALPATH, READLINK, WHICH, WHEREIS,
            DIFF, PWD)
