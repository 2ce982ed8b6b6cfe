"""grep and ripgrep: searching is read-only; preprocessors and decompressors run programs.

GNU grep has no option that writes or runs anything, so every grep flag is safe and grep
accepts words bash may still expand. ripgrep's ``--pre`` runs a program on every file,
``--hostname-bin`` runs one to get the host name, and ``-z``/``--search-zip`` runs
decompression programs; ripgrep does not abbreviate long options, and neither do we for it.
(``RIPGREP_CONFIG_PATH`` could inject ``--pre`` from the environment; prefix assignments are
refused, and the inherited environment is trusted.)
"""

from __future__ import annotations

from .spec import Command, Flag, Takes

V = Takes.VALUE
P = Takes.PATH

GREP_SAFE = [
    Flag("-E", "--extended-regexp"), Flag("-F", "--fixed-strings"), Flag("-G", "--basic-regexp"),
    Flag("-P", "--perl-regexp"), Flag("-e", "--regexp", takes=V), Flag("-f", "--file", takes=P),
    Flag("-i", "--ignore-case"), Flag("-y"), Flag("--no-ignore-case"), Flag("-v", "--invert-match"),
    Flag("-w", "--word-regexp"), Flag("-x", "--line-regexp"), Flag("-c", "--count"),
    Flag("--color", "--colour", takes=V, optional=True), Flag("-L", "--files-without-match"),
    Flag("-l", "--files-with-matches"), Flag("-m", "--max-count", takes=V),
    Flag("-o", "--only-matching"), Flag("-q", "--quiet", "--silent"), Flag("-s", "--no-messages"),
    Flag("-b", "--byte-offset"), Flag("-H", "--with-filename"), Flag("-h", "--no-filename"),
    Flag("--label", takes=V), Flag("-n", "--line-number"), Flag("-T", "--initial-tab"),
    Flag("-Z", "--null"), Flag("-z", "--null-data"), Flag("-A", "--after-context", takes=V),
    Flag("-B", "--before-context", takes=V), Flag("-C", "--context", takes=V),
    Flag("--group-separator", takes=V), Flag("--no-group-separator"),
    Flag("-a", "--text"), Flag("--binary-files", takes=V), Flag("-D", "--devices", takes=V),
    Flag("-d", "--directories", takes=V), Flag("--exclude", takes=V), Flag("--exclude-from", takes=P),
    Flag("--exclude-dir", takes=V), Flag("-I"), Flag("--include", takes=V),
    Flag("-r", "--recursive"), Flag("-R", "--dereference-recursive"), Flag("--line-buffered"),
    Flag("-U", "--binary"), Flag("-u", "--unix-byte-offsets"), Flag("-V", "--version"),
    Flag("--help"),
]

# Even -l/-c/-q open every file and answer a question about its content (one bit per run is
# still a way to read a secret), so grep always counts as reading its file operands.
GREP_PATTERN_FROM = ("-e", "--regexp", "-f", "--file")
GREPS = tuple(Command(name, safe=GREP_SAFE, numeric=True, pattern_from=GREP_PATTERN_FROM)
              for name in ("grep", "egrep", "fgrep"))

RG_SAFE = [
    Flag("-e", "--regexp", takes=V), Flag("-f", "--file", takes=P),
    Flag("-A", "--after-context", takes=V), Flag("-B", "--before-context", takes=V),
    Flag("-C", "--context", takes=V), Flag("--binary"), Flag("--no-binary"),
    Flag("--block-buffered"), Flag("--no-block-buffered"), Flag("-b", "--byte-offset"),
    Flag("--no-byte-offset"), Flag("-s", "--case-sensitive"), Flag("--color", takes=V),
    Flag("--colors", takes=V), Flag("--column"), Flag("--no-column"),
    Flag("--context-separator", takes=V), Flag("--no-context-separator"), Flag("-c", "--count"),
    Flag("--count-matches"), Flag("--crlf"), Flag("--no-crlf"), Flag("--debug"), Flag("--trace"),
    Flag("--dfa-size-limit", takes=V), Flag("-E", "--encoding", takes=V), Flag("--no-encoding"),
    Flag("--engine", takes=V), Flag("--field-context-separator", takes=V),
    Flag("--field-match-separator", takes=V), Flag("--files"), Flag("-l", "--files-with-matches"),
    Flag("--files-without-match"), Flag("-F", "--fixed-strings"), Flag("--no-fixed-strings"),
    Flag("-L", "--follow"), Flag("--no-follow"), Flag("--generate", takes=V),
    Flag("-g", "--glob", takes=V), Flag("--glob-case-insensitive"),
    Flag("--no-glob-case-insensitive"), Flag("-h", "--help"), Flag("--heading"),
    Flag("--no-heading"), Flag("-.", "--hidden"), Flag("--no-hidden"), Flag("--iglob", takes=V),
    Flag("-i", "--ignore-case"), Flag("--ignore-file", takes=P),
    Flag("--ignore-file-case-insensitive"), Flag("--no-ignore-file-case-insensitive"),
    Flag("--include-zero"), Flag("--no-include-zero"), Flag("-v", "--invert-match"),
    Flag("--no-invert-match"), Flag("--json"), Flag("--no-json"), Flag("--line-buffered"),
    Flag("--no-line-buffered"), Flag("-n", "--line-number"), Flag("-N", "--no-line-number"),
    Flag("-x", "--line-regexp"), Flag("-M", "--max-columns", takes=V),
    Flag("--max-columns-preview"), Flag("--no-max-columns-preview"),
    Flag("-m", "--max-count", takes=V), Flag("-d", "--max-depth", "--maxdepth", takes=V),
    Flag("--max-filesize", takes=V), Flag("--mmap"), Flag("--no-mmap"),
    Flag("-U", "--multiline"), Flag("--no-multiline"), Flag("--multiline-dotall"),
    Flag("--no-multiline-dotall"), Flag("--no-config"), Flag("--no-ignore"), Flag("--ignore"),
    Flag("--no-ignore-dot"), Flag("--ignore-dot"), Flag("--no-ignore-exclude"),
    Flag("--ignore-exclude"), Flag("--no-ignore-files"), Flag("--ignore-files"),
    Flag("--no-ignore-global"), Flag("--ignore-global"), Flag("--no-ignore-messages"),
    Flag("--ignore-messages"), Flag("--no-ignore-parent"), Flag("--ignore-parent"),
    Flag("--no-ignore-vcs"), Flag("--ignore-vcs"), Flag("--no-messages"), Flag("--messages"),
    Flag("--no-require-git"), Flag("--require-git"), Flag("--no-unicode"), Flag("--unicode"),
    Flag("-0", "--null"), Flag("--null-data"), Flag("--one-file-system"),
    Flag("--no-one-file-system"), Flag("-o", "--only-matching"),
    Flag("--path-separator", takes=V), Flag("--passthru", "--passthrough"), Flag("-P", "--pcre2"),
    Flag("--no-pcre2"), Flag("--pcre2-version"), Flag("--no-pcre2-unicode"),
    Flag("--pcre2-unicode"), Flag("-p", "--pretty"), Flag("-q", "--quiet"),
    Flag("--regex-size-limit", takes=V), Flag("-r", "--replace", takes=V),
    Flag("-S", "--smart-case"), Flag("--sort", takes=V), Flag("--sortr", takes=V),
    Flag("--sort-files"), Flag("--no-sort-files"), Flag("--stats"), Flag("--no-stats"),
    Flag("--stop-on-nonmatch"), Flag("-a", "--text"), Flag("--no-text"),
    Flag("-j", "--threads", takes=V), Flag("--trim"), Flag("--no-trim"),
    Flag("-t", "--type", takes=V), Flag("-T", "--type-not", takes=V),
    Flag("--type-add", takes=V), Flag("--type-clear", takes=V), Flag("--type-list"),
    Flag("-u", "--unrestricted"), Flag("-V", "--version"), Flag("--vimgrep"),
    Flag("-H", "--with-filename"), Flag("-I", "--no-filename"), Flag("-w", "--word-regexp"),
    Flag("--auto-hybrid-regex"), Flag("--no-auto-hybrid-regex"), Flag("--no-pre"),
    Flag("--pre-glob", takes=V), Flag("--no-search-zip"), Flag("--hyperlink-format", takes=V),
]

RG = Command(
    "rg",
    safe=RG_SAFE,
    unsafe={
        Flag("--pre", takes=Takes.PROGRAM): "runs a preprocessor program on every file searched",
        Flag("--hostname-bin", takes=Takes.PROGRAM): "runs a program to find the host name",
        Flag("-z", "--search-zip"): "runs decompression programs on compressed files",
    },
    abbrev=False,
    # clap (2 in rg 13): only these take a separate value starting with - (measured one by one)
    hyphen_values=frozenset({"-e", "--regexp", "-f", "--file", "-g", "--glob", "--iglob",
                             "--ignore-file", "-r", "--replace", "--pre-glob"}),
    pattern_from=(*GREP_PATTERN_FROM, "--files", "--type-list"),
    reads=lambda p: not p.has("--files", "--type-list"),  # these only list names
)

COMMANDS = (*GREPS, RG)
