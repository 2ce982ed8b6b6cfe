"""How each command touches the paths in its arguments: the table the path scanner reads.

A command not listed here is *unsure*: each of its operands is reported as a read for the
leak class and as a write for the implant class, and a directory operand that contains
credential directories counts (``tar czf x.tgz ~``). Entries exist to be *more precise* than
that default: to say which words are data (``grep PATTERN``), which are written (``cp … DEST``),
and which commands only look at names (``ls``), never at contents.
"""

from __future__ import annotations

from enum import Enum

from ..._record import record, replace
from ..commands.treeinputs import TREE_LISTS, TREE_RULES


class Role(Enum):
    NONE = "none"      # the words are not paths, or nothing is read or written (echo, cd, kill)
    META = "meta"      # only names and metadata are seen (ls, stat, du): no hit
    READ = "read"      # contents are read
    WRITE = "write"    # contents are written, created or removed
    RW = "rw"          # both (editors, sed -i)
    ATTR = "attr"      # metadata changed (chmod +x .git/hooks/x arms a hook): implant only
    UNSURE = "unsure"  # not known: leak as read, implant as write


@record
class CmdPaths:
    operands: Role
    # The first operand is a program or pattern (grep, sed, awk, jq) unless one of these
    # options supplies it.
    first_is_data_unless: frozenset[str] | None = None
    data_opts: frozenset[str] = frozenset()     # the next word (or =value) is data
    read_opts: frozenset[str] = frozenset()     # the option's value is a file read
    operand_opts: frozenset[str] = frozenset()  # the value is one more operand (diff --from-file)
    write_opts: frozenset[str] = frozenset()    # the option's value is a file written
    use_opts: frozenset[str] = frozenset()      # the value is a key used for its purpose (ssh -i)
    rw_flags: frozenset[str] = frozenset()      # these flags turn the operands RW (sed -i)
    dest: bool = False                          # last operand (or -t DIR) is written (cp, mv)
    tree: bool = False                          # directory operands are read/written as trees
    tree_flags: frozenset[str] = frozenset()    # …only when one of these flags is present
    skip_first: bool = False                    # first operand is a mode/owner (chmod, chown)
    code_opts: frozenset[str] = frozenset()     # the value is program text: its quoted paths count
    walk: bool = False                          # directory operands are read whole, hidden files too
    walk_flags: frozenset[str] = frozenset()    # …only when one of these flags is present
    shallow: bool = False                       # …else their own files are read (diff DIR: not below)
    names_flags: frozenset[str] = frozenset()   # with one of these only names are printed (rg --files)
    follow_flags: frozenset[str] = frozenset()  # a walk with these follows links below (grep -R)
    visible: bool = False                       # the walk skips hidden entries unless told (rg)
    default_dot: bool = False                   # recursive with no path operand means `.` (grep -r)
    second_writes: bool = False                 # a second operand is an output file (uniq, xxd)
    # Options known exactly to take no value. Any other option word (unknown, an abbreviated
    # long option, an unmodelled one) makes the parse inexact: from there on every word gets the
    # conservative role (see pathscan._parse_opts), since `--random-sour -T X` may make X an input.
    # Whether an option listed here takes a value (required, optional, none) is the command's
    # read-only table's word where it has one (pathscan._syntax); these lists say what it means.
    flags: frozenset[str] = frozenset()
    unsure_opts: frozenset[str] = frozenset()   # the value is a path used in ways not modelled (sort -T)
    inert: bool = False                         # no option of the command opens a file (ls, echo)


def _fs(*names: str) -> frozenset[str]:
    return frozenset(names)


_NONE = CmdPaths(Role.NONE)
_META = CmdPaths(Role.META)
_NONE_INERT = CmdPaths(Role.NONE, inert=True)
_META_INERT = CmdPaths(Role.META, inert=True)
_READ = CmdPaths(Role.READ)
_WRITE = CmdPaths(Role.WRITE, flags=frozenset(f"-{c}" for c in "firRvdIpPuzn"))  # rm -rf, mkdir -p
# rm -r and rmdir remove a tree (`rmdir .claude` clears the way for a `.claude` of another making)
_RM = replace(_WRITE, tree_flags=_fs("-r", "-R", "--recursive"))
_RMDIR = replace(_WRITE, tree=True)
_RW = CmdPaths(Role.RW)

# an option's value is seen as the flag "opt=value" (`grep -d recurse` is `grep -r`)
_GREP_RECURSE = _fs("-r", "-R", "--recursive", "--dereference-recursive", "-d=recurse",
                    "--directories=recurse")
_GREP = CmdPaths(Role.READ, first_is_data_unless=_fs("-e", "--regexp", "-f", "--file"),
                 data_opts=_fs("-e", "--regexp", "-m", "--max-count", "-A", "-B", "-C", "--context",
                               "--after-context", "--before-context",
                               "--include", "--exclude", "--exclude-dir", "--label", "--color",
                               "--colour", "-d", "-D", "--directories", "--devices", "--binary-files",
                               "--group-separator"),
                 read_opts=_fs("-f", "--file", "--exclude-from"),
                 tree_flags=_GREP_RECURSE, walk_flags=_GREP_RECURSE, default_dot=True,
                 follow_flags=_fs("-R", "--dereference-recursive"),
                 flags=_fs(*(f"-{c}" for c in "EFGPiyvwxcLloqsbHhnTZzaIUrR"), "--ignore-case",
                           "--no-ignore-case", "--invert-match", "--word-regexp", "--line-regexp",
                           "--count", "--files-with-matches", "--files-without-match", "--only-matching",
                           "--quiet", "--silent", "--no-messages", "--byte-offset", "--with-filename",
                           "--no-filename", "--line-number", "--initial-tab", "--null", "--null-data",
                           "--text", "--binary", "--extended-regexp", "--fixed-strings", "--basic-regexp",
                           "--perl-regexp", "--color", "--colour", "--line-buffered", "--no-index",
                           "--no-group-separator", "--unix-byte-offsets", "-u", "-V", "--help",
                           "--version"))
# ripgrep's long switches (its read-only table, commands/grep.py, declares each; --search-zip
# and the -z/-L forms that change what is read stay out: walk_flags or refused there).
_RG_SWITCHES = (
    "--auto-hybrid-regex", "--binary", "--block-buffered", "--byte-offset", "--case-sensitive",
    "--column", "--count", "--count-matches", "--crlf", "--debug", "--files",
    "--files-with-matches", "--files-without-match", "--fixed-strings", "--glob-case-insensitive",
    "--heading", "--help", "--ignore", "--ignore-case", "--ignore-dot", "--ignore-exclude",
    "--ignore-file-case-insensitive", "--ignore-files", "--ignore-global", "--ignore-messages",
    "--ignore-parent", "--ignore-vcs", "--include-zero", "--invert-match", "--json",
    "--line-buffered", "--line-number", "--line-regexp", "--max-columns-preview", "--messages",
    "--mmap", "--multiline", "--multiline-dotall", "--no-auto-hybrid-regex", "--no-binary",
    "--no-block-buffered", "--no-byte-offset", "--no-column", "--no-config",
    "--no-context-separator", "--no-crlf", "--no-encoding", "--no-filename", "--no-fixed-strings",
    "--no-follow", "--no-glob-case-insensitive", "--no-heading", "--no-hidden", "--no-ignore",
    "--no-ignore-dot", "--no-ignore-exclude", "--no-ignore-file-case-insensitive",
    "--no-ignore-files", "--no-ignore-global", "--no-ignore-messages", "--no-ignore-parent",
    "--no-ignore-vcs", "--no-include-zero", "--no-invert-match", "--no-json", "--no-line-buffered",
    "--no-line-number", "--no-max-columns-preview", "--no-messages", "--no-mmap", "--no-multiline",
    "--no-multiline-dotall", "--no-one-file-system", "--no-pcre2", "--no-pcre2-unicode",
    "--no-pre", "--no-require-git", "--no-search-zip", "--no-sort-files", "--no-stats",
    "--no-text", "--no-trim", "--no-unicode", "--null", "--null-data", "--one-file-system",
    "--only-matching", "--passthrough", "--passthru", "--pcre2", "--pcre2-unicode",
    "--pcre2-version", "--pretty", "--quiet", "--require-git", "--smart-case", "--sort-files",
    "--stats", "--stop-on-nonmatch", "--text", "--trace", "--trim", "--type-list", "--unicode",
    "--version", "--vimgrep", "--with-filename", "--word-regexp",
)
_RG = CmdPaths(Role.READ, first_is_data_unless=_fs("-e", "--regexp", "-f", "--file"),
               data_opts=_fs("-e", "--regexp", "-g", "--glob", "--iglob", "-t", "--type", "-T",
                             "--type-not", "-m", "--max-count", "-A", "-B", "-C", "--context", "-r",
                             "--replace", "-M", "--max-columns", "--max-depth", "-d", "-j", "--threads",
                             "--type-add", "--colors", "--sort", "--sortr", "-E", "--encoding",
                             "--after-context", "--before-context", "--color", "--context-separator",
                             "--dfa-size-limit", "--engine", "--field-context-separator",
                             "--field-match-separator", "--generate", "--hyperlink-format",
                             "--max-filesize", "--maxdepth", "--path-separator", "--pre-glob",
                             "--regex-size-limit", "--type-clear"),
               read_opts=_fs("-f", "--file", "--ignore-file"), tree=True, default_dot=True,
               # switches (the read-only table's, commands/grep.py): known, so the parse stays exact
               flags=_fs(*(f"-{c}" for c in "0FHINPSUVbchilnopqsuvwx"), *_RG_SWITCHES),
               # A walk like grep -r's: rg reads every file that is not hidden (`keys/id_rsa`,
               # `certs/server.pem`), and a hidden one as soon as a glob (`-g .env`, `-g '*'`), a
               # type (`-t`) or a `!.env` line of an .ignore/.gitignore file whitelists it.
               walk=True, walk_flags=_fs("--hidden", "-.", "-uu", "-uuu", "--unrestricted", "-a",
                                         "--all-types", "-L", "--follow"),
               follow_flags=_fs("-L", "--follow"),
               names_flags=_fs("--files", "--type-list"))  # names only: no file is read
# ripgrep itself: hidden entries below are read only when an option, its config or an ignore
# file's whitelist line includes them (rghidden.py, measured by tests/test_rg_hidden.py); ag,
# ack and ugrep keep the walk that reads them.
_RIPGREP = replace(_RG, visible=True)
# diff of two directories reads the files directly inside them that they share, and -N (or
# --unidirectional-new-file) prints a file missing on one side whole: `diff -N . /srv/empty`
# prints ./.env, `diff . ../other` the lines in which two .env differ, `diff DIR FILE` reads
# DIR/FILE; hidden files too, links followed. -r: the whole trees. --from-file/--to-file DIR is
# one more such operand, compared with each of the others.
_DIFF = CmdPaths(Role.READ, tree=True, shallow=True,
                 data_opts=_fs("-C", "-U", "--unified", "-W", "--width", "-F", "--label",
                               "-x", "--exclude", "-S", "--starting-file", "-I", "-D"),
                 read_opts=_fs("-X", "--exclude-from"), operand_opts=_fs("--from-file", "--to-file"),
                 tree_flags=_fs("-r", "--recursive"), walk_flags=_fs("-r", "--recursive"),
                 follow_flags=_fs("-r", "--recursive"))  # diff follows links unless --no-dereference
# git grep reads only tracked files, unless --no-index (the whole tree, ignored files too) or
# --untracked (the untracked files too: a .env no .gitignore names, a secrets/ directory; with
# --no-exclude-standard the ignored ones as well); git diff --no-index compares two trees whole.
_GIT_GREP_FILES = CmdPaths(Role.READ, first_is_data_unless=_fs("-e", "-f"),
                           data_opts=_fs("-e", "-m", "--max-count", "-A", "-B", "-C", "--context",
                                         "--after-context", "--before-context", "--max-depth",
                                         "--threads", "--color", "--open-files-in-pager", "-O"),
                           read_opts=_fs("-f"), tree=True, walk=True, default_dot=True,
                           flags=_fs(*(f"-{c}" for c in "ivwalLnhHcqIEFGPzWo"), "--no-index", "--untracked",
                                     "--no-exclude-standard", "--exclude-standard", "--ignore-case",
                                     "--line-number", "--count", "--files-with-matches",
                                     "--recurse-submodules"))
_SED = CmdPaths(Role.READ, first_is_data_unless=_fs("-e", "--expression", "-f", "--file"),
                data_opts=_fs("-e", "--expression", "-l", "--line-length"),
                read_opts=_fs("-f", "--file"), rw_flags=_fs("-i", "--in-place"),
                code_opts=_fs("-e", "--expression"),
                flags=_fs(*(f"-{c}" for c in "nErsuz"), "--quiet", "--silent", "--regexp-extended",
                          "--separate", "--unbuffered", "--null-data", "--posix", "--debug", "--sandbox",
                          "--follow-symlinks"))
# gawk -e/--source: program text, as the first operand is without it
_AWK = CmdPaths(Role.READ, first_is_data_unless=_fs("-f", "--file", "-e", "--source"),
                data_opts=_fs("-v", "--assign", "-F", "--field-separator", "-e", "--source"),
                read_opts=_fs("-f", "--file"), code_opts=_fs("-e", "--source"))
# jq's -f is a switch: with it the first operand is the program's file (read), not the program
_JQ = CmdPaths(Role.READ, first_is_data_unless=_fs("-f", "--from-file"),
               data_opts=_fs("--arg", "--argjson", "--indent", "--tab"),
               read_opts=_fs("--slurpfile", "--rawfile"), flags=_fs("-f", "--from-file"))
_PY = CmdPaths(Role.READ, data_opts=_fs("-c", "-m", "-W", "-X", "-Q"), code_opts=_fs("-c"))
# -r/--import/--loader load module files: unsure paths, not data
_NODE = CmdPaths(Role.READ, data_opts=_fs("-e", "--eval", "-p", "--print", "--input-type"),
                 unsure_opts=_fs("-r", "--require", "--import", "--loader"),
                 code_opts=_fs("-e", "--eval", "-p", "--print"))
_PERL = CmdPaths(Role.READ, data_opts=_fs("-e", "-E", "-M", "-m", "-I"),
                 rw_flags=_fs("-i", "-pi", "-pie", "-ni"), code_opts=_fs("-e", "-E"))
_SHELL = CmdPaths(Role.READ, data_opts=_fs("-c", "-o", "-O", "+O"))
# -T DIR: temporary files are written there, so its value is an unsure path, not data.
_SORT = CmdPaths(Role.READ, data_opts=_fs("-k", "--key", "-t", "--field-separator", "-S",
                                          "--buffer-size", "--parallel", "--batch-size"),
                 write_opts=_fs("-o", "--output"), read_opts=_fs("--files0-from", "--random-source"),
                 unsure_opts=_fs("-T", "--temporary-directory", "--compress-program"),
                 flags=_fs(*(f"-{c}" for c in "bdfgiMhnRrVcCmsuz"), "--ignore-leading-blanks",
                           "--dictionary-order", "--ignore-case", "--general-numeric-sort",
                           "--ignore-nonprinting", "--month-sort", "--human-numeric-sort",
                           "--numeric-sort", "--random-sort", "--reverse", "--version-sort", "--merge",
                           "--stable", "--unique", "--zero-terminated", "--debug"))
# du reads exclude patterns and file lists; everything else only looks at sizes.
_DU = CmdPaths(Role.META, data_opts=_fs("-d", "--max-depth", "-B", "--block-size", "-t", "--threshold",
                                        "--exclude", "--time", "--time-style"),
               read_opts=_fs("-X", "--exclude-from", "--files0-from"),
               flags=_fs(*(f"-{c}" for c in "0abcDhHklLmPsSx"), "--all", "--apparent-size", "--bytes",
                         "--total", "--human-readable", "--si", "--inodes", "--count-links",
                         "--dereference", "--no-dereference", "--separate-dirs", "--summarize",
                         "--one-file-system", "--null", "--dereference-args"))
_TREE = CmdPaths(Role.META, data_opts=_fs("-L", "-P", "-I", "--charset", "--filelimit", "--timefmt",
                                          "--sort"),
                 write_opts=_fs("-o"),
                 # --info/--gitignore read each walked directory's .info/.gitignore (a link to a
                 # secret, say) and open a file operand as one (commands/treeinputs.py TREE_RULES)
                 walk_flags=_fs(*TREE_RULES), tree_flags=_fs(*TREE_RULES), default_dot=True,
                 flags=_fs(*(f"-{c}" for c in "adlfxACDFJXinpsughqNQrtvcU"), "--dirsfirst",
                           "--fromfile", "--fromtabfile",
                           "--noreport", "--du", "--prune", "--gitignore", "--matchdirs"))
_DEST = CmdPaths(Role.READ, dest=True, data_opts=_fs("-S", "--suffix", "-m", "--mode", "-o", "--owner",
                                                      "-g", "--group", "--backup"),
                 tree_flags=_fs("-r", "-R", "--recursive", "-a", "--archive"),
                 flags=_fs(*(f"-{c}" for c in "afiLnprRuvxbdHlPsTZDC"), "--archive", "--force",
                           "--interactive", "--no-clobber", "--preserve", "--no-preserve", "--recursive",
                           "--update", "--verbose", "--parents", "--no-target-directory", "--symbolic",
                           "--link", "--dereference", "--no-dereference", "--one-file-system", "--sparse",
                           "--reflink", "--remove-destination", "--relative", "--strip", "--compare"))
_RSYNC = CmdPaths(Role.READ, dest=True, tree=True, walk=True,
                  data_opts=_fs("-e", "--rsh", "--exclude", "--include", "--filter", "-f", "--port",
                                "--chmod", "--chown", "--rsync-path", "-B", "--block-size"),
                  read_opts=_fs("--exclude-from", "--include-from", "--files-from", "--password-file"),
                  flags=_fs(*(f"-{c}" for c in "avzrPhnuRlptgoDHAXxSWcqiOJmbLkKC0EIyd"), "--archive",
                            "--verbose", "--compress", "--recursive", "--progress", "--partial",
                            "--human-readable", "--dry-run", "--update", "--delete", "--delete-after",
                            "--delete-excluded", "--checksum", "--quiet", "--itemize-changes", "--stats",
                            "--links", "--perms", "--times", "--group", "--owner", "--devices",
                            "--specials", "--hard-links", "--acls", "--xattrs", "--sparse",
                            "--whole-file", "--relative", "--no-relative", "--inplace", "--append",
                            "--ignore-existing", "--existing", "--size-only", "--mkpath"))
_SCP = CmdPaths(Role.READ, dest=True, tree=True, walk=True,
                data_opts=_fs("-P", "-o", "-c", "-l", "-J", "-D", "-X"), unsure_opts=_fs("-S"),
                use_opts=_fs("-i"), read_opts=_fs("-F"), flags=_fs(*(f"-{c}" for c in "346ABCOpqRrTv")))
_ATTR = CmdPaths(Role.ATTR, skip_first=True, read_opts=_fs("--reference"),
                 data_opts=_fs("--from"),
                 # -x / -w … are modes written like options (`chmod -x f`)
                 flags=_fs(*(f"-{c}" for c in "RcfvhHLPrwxXst"), "--recursive", "--changes", "--silent",
                           "--quiet", "--verbose", "--preserve-root", "--no-preserve-root",
                           "--dereference", "--no-dereference"))
# -E writes a log, -S makes a control socket, -I loads a PKCS#11 library
_SSH = CmdPaths(Role.NONE, use_opts=_fs("-i"), read_opts=_fs("-F"), write_opts=_fs("-E"),
                data_opts=_fs(*(f"-{c}" for c in "plLRDJbcemOQWwBP"), "-o"), unsure_opts=_fs("-S", "-I"),
                flags=_fs(*(f"-{c}" for c in "46AaCfGgKkMNnqsTtVvXxYy")))
# Client certificates and keys are used for TLS, not sent; everything else is unsure
# (`-d @.env` uploads, `-o ~/.bashrc` writes, `-K file` reads a config).
_CURL = CmdPaths(Role.UNSURE, tree=True, use_opts=_fs("--key", "--cert", "-E", "--cacert", "--capath",
                                                     "--proxy-key", "--proxy-cert", "--proxy-cacert"))
_WGET = CmdPaths(Role.UNSURE, tree=True, use_opts=_fs("--private-key", "--certificate", "--ca-certificate",
                                                     "--ca-directory"))
_FIND = CmdPaths(Role.META)  # start paths; special-cased in paths.scan (-exec/-delete/-fprint)

# Flags that make a command read its operands as files (tree --fromfile prints their lines).
READ_FLAGS: dict[str, frozenset[str]] = {"tree": _fs(*TREE_LISTS, *TREE_RULES)}

# Wrappers: their inner command is its own entry in Script.commands (Via.WRAPPER …); only the
# words before it are the wrapper's own. Unwrapped by the parser or not, they read nothing.
WRAPPERS: frozenset[str] = _fs(
    "sudo", "doas", "env", "command", "builtin", "exec", "nice", "nohup", "timeout", "time", "xargs",
    "stdbuf", "ionice", "setsid", "watch", "chronic", "unbuffer", "taskset", "chrt", "flock",
    "caffeinate", "systemd-run", "su", "runuser", "strace", "ltrace", "eval",
)

# Commands whose program (code_opts values, else the first operand) is sed or awk: the files
# it names are read from it the way the read-only check reads it (pathscan._program_hits),
# not guessed from its quoted words.
PROGRAMS: dict[str, str] = {
    **dict.fromkeys(("sed", "gsed"), "sed"),
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk", "busybox-awk"), "awk"),
}

COMMANDS: dict[str, CmdPaths] = {
    # no option of these opens a file: an option they don't model changes nothing
    **dict.fromkeys((
        "echo", "printf", "true", "false", ":", "which", "type", "alias", "unalias", "export",
        "unset", "readonly", "declare", "local", "typeset", "set", "shopt", "exit", "return", "shift",
        "sleep", "kill", "pkill", "killall", "ps", "pgrep", "id", "whoami", "groups", "uname",
        "pwd", "cd", "pushd", "popd", "dirs", "help", "yes", "seq",
        "expr", "printenv", "wait", "jobs", "fg", "bg", "disown", "umask",
        "ulimit", "basename", "dirname", "tput", "clear", "nproc", "free", "uptime", "w", "test",
        "pstree", "ifconfig", "cal", "ncal", "errno", "ascii", "finger", "ipcs", "lsmod", "lslocks",
        "lsns", "lsipc", "vmstat", "c++filt", "pidof", "netstat",
        "[", "[[", "((", "let", "getopts", "caller", "notify-send",
        "break", "continue", "logout", "suspend",
    ), _NONE_INERT),
    # …these have options that do (`date -f FILE`, `history -r FILE`, `hostname -F FILE`)
    **dict.fromkeys((
        "hash", "hostname", "ip", "ss", "man", "info", "apropos", "whatis", "date", "history", "trap", "read",
        "mount", "last", "mapfile", "readarray", "enable", "complete", "compgen", "bind", "fc",
        # numbers, user names, kernel setting names, devices (commands/coreextra.py, kernelstats.py)
        "numfmt", "factor", "pinky", "sysctl", "iostat", "mpstat", "pidstat", "lspci",
    ), _NONE),
    **dict.fromkeys(("lsblk", "findmnt"), _META),   # a device or mount point, looked at
    # names (and +d/+D directories) are stat'ed and matched, never opened; +m PATH is refused
    "lsof": _META_INERT,
    # package names and patterns; the database is read from --admindir / --root
    **dict.fromkeys(("dpkg", "dpkg-query"), CmdPaths(
        Role.NONE, read_opts=_fs("--admindir", "--root"), data_opts=_fs("-f", "--showformat"),
        flags=_fs("-s", "--status", "-p", "--print-avail", "-L", "--listfiles", "-l", "--list", "-S",
                  "--search", "-W", "--show", "--control-list", "--control-show", "-c",
                  "--control-path", "--load-avail", "--no-pager", "--get-selections",
                  "--print-architecture", "--print-foreign-architectures", "-C", "--audit",
                  "--compare-versions", "--help", "--version"))),
    **dict.fromkeys((
        "ls", "dir", "vdir", "stat", "df", "realpath", "readlink", "namei", "lsattr", "getfacl", "exa", "eza",
    ), _META_INERT),
    **dict.fromkeys(("locate", "mlocate", "plocate", "lsd", "fd", "fdfind"), _META),
    "du": _DU,
    "tree": _TREE,
    **dict.fromkeys((
        "wc", "file", "cat", "tac", "head", "tail", "less", "more", "most", "bat", "batcat", "nl", "cut",
        "paste", "join", "comm", "diff3", "sdiff", "cmp", "md5sum", "sha1sum",
        "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum", "shasum", "base64",
        "base32", "basenc", "who", "od", "hexdump", "hd", "strings", "iconv", "column", "fmt", "fold",
        "expand",
        "unexpand", "pr", "bc", "rev", "shuf", "look", "source", ".", "zcat", "zless", "zmore", "bzcat",
        "xzcat", "zstdcat", "lz4cat", "open", "xdg-open", "pbcopy", "xclip", "xsel", "wl-copy",
        "lua", "Rscript", "tclsh", "osascript", "deno", "bun", "tsx", "ts-node",
        "readelf", "objdump", "nm", "size",
    ), _READ),
    **dict.fromkeys(("grep", "egrep", "fgrep", "zgrep", "zegrep", "zfgrep",
                       "xzgrep", "xzegrep", "xzfgrep", "lzgrep", "lzegrep", "lzfgrep", "bzgrep", "bzegrep",
                       "bzfgrep", "zstdgrep"), _GREP),
    "rg": _RIPGREP,
    **dict.fromkeys(("ag", "ack", "ack-grep", "ugrep", "git-grep"), _RG),
    **dict.fromkeys(("diff", "colordiff"), _DIFF),
    **dict.fromkeys(("sed", "gsed"), _SED),
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk", "busybox-awk"), _AWK),
    **dict.fromkeys(("jq", "yq", "gojq", "jaq"), _JQ),
    **dict.fromkeys(("python", "python2", "python3", "pypy", "pypy3", "ipython", "uv-run"), _PY),
    **dict.fromkeys(("node", "nodejs"), _NODE),
    **dict.fromkeys(("perl", "ruby"), _PERL),
    **dict.fromkeys(("bash", "sh", "zsh", "dash", "ksh", "mksh", "fish", "ash", "busybox-sh"), _SHELL),
    **dict.fromkeys(("sort",), _SORT),
    **dict.fromkeys((
        "tee", "touch", "truncate", "shred", "mkdir", "unlink", "mkfifo", "mknod", "srm",
        "wipe", "fallocate",
    ), _WRITE),
    "rm": _RM, "rmdir": _RMDIR,
    **dict.fromkeys((
        "vi", "vim", "nvim", "view", "nano", "pico", "emacs", "emacsclient", "code", "code-insiders",
        "cursor", "subl", "gedit", "kate", "ed", "ex", "micro", "kak", "hx", "joe", "mcedit", "sqlite3",
    ), _RW),
    **dict.fromkeys(("cp", "mv", "install", "ln", "link", "gcp"), _DEST),
    "rsync": _RSYNC,
    "scp": _SCP,
    **dict.fromkeys(("chmod", "chown", "chgrp", "chattr", "setfacl"), _ATTR),
    "ssh": _SSH,
    "curl": _CURL,
    "wget": _WGET,
    "sftp": _SSH,
    "ssh-add": CmdPaths(Role.NONE),  # loads keys into the agent; never prints them
    "find": _FIND,
    # Archivers take whole trees, hidden files included.
    **dict.fromkeys(("tar", "gtar", "bsdtar", "zip", "7z", "7za", "7zr", "7zz", "rar"),
                    CmdPaths(Role.UNSURE, tree=True, walk=True)),
    **dict.fromkeys(("uniq", "xxd"), CmdPaths(Role.READ, second_writes=True)),
}

def operands_are_files(name: str) -> bool:
    """Whether ``name`` takes its operands (past a pattern or program, ``first_is_data_unless``)
    as paths of files it reads or looks at, and as nothing else: operands READ or META, none
    written (``uniq IN OUT``, ``xxd``), none a destination (``cp``) or a mode (``chmod``). A
    positive list: a command not in the table, or whose operands are users, hosts or words
    (``finger u@host`` connects to host, ``ss dst NAME`` looks NAME up), is not such a one.
    What the xargs proof needs of the command it hands file names (``xargsnames.py``)."""
    role = COMMANDS.get(name)
    return (role is not None and role.operands in (Role.READ, Role.META)
            and not (role.dest or role.second_writes or role.skip_first))


# git: global options whose value is the next word (`git -C dir`, `git -c k=v`).
# git subcommands that write the working tree (or run hooks/config) get "unsure" operands;
# the others only read the paths they are given (`git add .env` stages a secret: a leak).
GIT_WRITERS = frozenset({"checkout", "restore", "mv", "rm", "clean", "reset", "switch", "apply", "am",
                          "merge", "pull", "cherry-pick", "revert", "stash", "worktree", "clone", "init",
                          "submodule", "config", "archive", "bundle", "format-patch", "read-tree",
                          "checkout-index", "update-index", "hash-object", "notes", "filter-branch",
                          "sparse-checkout"})
GIT = CmdPaths(Role.UNSURE, data_opts=frozenset({"-m", "--message", "--grep", "--author", "--committer",
                                                  "--format", "--pretty", "-S", "-G", "--date", "-b", "-B",
                                                  "--branch", "-u", "--set-upstream-to", "-X", "-s"}),
                read_opts=frozenset({"-F", "--file"}))
# The forms that only read: an option consumes the next word only where git's read forms
# (show, log, diff …) take it with a value; -s, -m, -b, -B, -u, -X and --pretty are switches
# there (`git show -s HEAD:.env` prints the blob), so the word after them is still scanned.
# tests/test_git_tracked_secrets.py runs `git show OPT HEAD:.env` for each with real git.
_GIT_READ_VALUED = frozenset({"--grep", "--author", "--committer", "-S", "-G", "--date", "--message",
                              "--branch", "--set-upstream-to"})
_GIT_READ_FLAGS = _fs("--cached", "--staged", "--stat", "--oneline", "-p", "--patch", "--name-only",
                      "--name-status", "--follow", "--all", "--graph", "-q", "--quiet", "-v",
                      "--no-color", "-w", "--shortstat", "--numstat")
GIT_READ = CmdPaths(Role.READ, data_opts=_GIT_READ_VALUED, read_opts=GIT.read_opts, flags=_GIT_READ_FLAGS)
# commit and tag take a message (-m), and commit a commit to reuse one from (-C/-c).
GIT_MESSAGE = CmdPaths(Role.READ, data_opts=_GIT_READ_VALUED | {"-m", "-C", "-c"}, read_opts=GIT.read_opts,
                       flags=_GIT_READ_FLAGS)
GIT_GREP_FILES = _GIT_GREP_FILES

# Commands no option of which writes a file: when their options can't be parsed exactly, a
# sensitive word is taken as read; other commands' such words as unsure (read and written).
PURE_READERS: frozenset[str] = _fs(
    "wc", "file", "cat", "tac", "head", "tail", "more", "nl", "cut", "paste", "join", "comm", "cmp",
    "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum",
    "shasum", "base64", "base32", "basenc", "od", "hexdump", "hd", "strings", "column", "fold", "expand",
    "unexpand", "rev", "look", "zcat", "bzcat", "xzcat", "grep", "egrep", "fgrep", "zgrep", "zegrep",
    "zfgrep", "xzgrep", "xzegrep", "xzfgrep", "lzgrep", "lzegrep", "lzfgrep", "bzgrep", "bzegrep", "bzfgrep",
    "zstdgrep", "rg", "ag", "ack", "ack-grep", "diff", "diff3", "cmp", "ls", "dir", "vdir", "stat", "du",
    "df", "realpath", "readlink", "namei", "lsattr", "getfacl", "exa", "eza", "date", "locate",
    "readelf", "objdump", "nm", "size",
)
GIT_DIFF_NO_INDEX = CmdPaths(Role.READ, data_opts=GIT.data_opts, read_opts=GIT.read_opts, tree=True,
                             walk=True, flags=_fs("--no-index", "--stat", "--name-only", "--name-status",
                                                  "--quiet", "--exit-code", "-u", "-p", "--patch",
                                                  "--no-color", "-R", "-w", "--ignore-all-space"))


def _given(opt: str, flags: set[str]) -> bool:
    """git's option parser takes any unambiguous prefix (`--no-ind`); an ambiguous one fails,
    so a prefix counting as the option is at worst too careful."""
    return any(len(f) > 4 and opt.startswith(f) for f in flags)


def git_tree_spec(sub: str, flags: set[str]) -> CmdPaths | None:
    """The entry for a git subcommand that reads whole directory trees outside the index."""
    if sub == "grep" and (_given("--no-index", flags) or _given("--untracked", flags)):
        return GIT_GREP_FILES
    if sub == "diff" and "--no-index" in flags:
        return GIT_DIFF_NO_INDEX
    return None
