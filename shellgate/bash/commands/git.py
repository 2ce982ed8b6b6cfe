"""git: the read forms (status, log, diff, show, grep, blame, …) in a repository whose config
runs no program.

Global options: ``-c``/``--config-env`` (set config, e.g. ``core.pager``), ``--git-dir``,
``--work-tree``, ``--exec-path``, ``-p``/``--paginate`` and ``--help`` are refused; ``-C dir``
is followed (the config of the repository there is checked). Subcommand options must be spelled
in full: git abbreviates long options, and refusing abbreviations is the one way to be sure an
abbreviation never means an option we did not list. ``--output``, ``--ext-diff``,
``--textconv``, ``--show-signature``, ``-O``/``--open-files-in-pager`` and formats with a
signature placeholder (``%G?``, ``%+GS`` …: ``keys.shows_signatures``) are refused. Network
subcommands (fetch, pull, push, clone, ls-remote) are NETWORK, and say so when the
repository's own configuration names a program they would run
(:func:`shellgate.bash.git.config.network_problems`; the path scanner makes that a prompt).
Every git command — a read form, ``git --version`` too (trace2 targets write) — also runs
:func:`shellgate.bash.git.config.check` for every directory the command may run in, and is not
read-only when the same line writes what git reads first (``gitconfig.written_inputs``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from ..facts import Effect
from ..git import config as gitconfig
from ..git import keys as gitkeys
from ..ir import Word
from .gitglobal import GLOBAL
from .spec import Call, Command, Finding, Flag, Parsed, Takes, read_args, run_checks
from .targets import expand_home
from .terminal import stdout_may_be_terminal

V = Takes.VALUE
P = Takes.PATH
O = dict(takes=V, optional=True)  # noqa: E741 - "optional value" shorthand

_OUTPUT_UNSAFE = {
    Flag("--output", takes=Takes.WRITE_PATH): "writes its output to a file",
    Flag("--ext-diff"): "runs an external diff program",
    Flag("--textconv"): "runs textconv filter programs",
}

DIFF_FLAGS = [
    Flag("-p", "-u", "--patch"), Flag("-s", "--no-patch"), Flag("-U", **O), Flag("--unified", takes=V),
    Flag("--output-indicator-new", takes=V), Flag("--output-indicator-old", takes=V),
    Flag("--output-indicator-context", takes=V), Flag("--raw"), Flag("--patch-with-raw"),
    Flag("--indent-heuristic"), Flag("--no-indent-heuristic"), Flag("--minimal"), Flag("--patience"),
    Flag("--histogram"), Flag("--anchored", takes=V), Flag("--diff-algorithm", takes=V),
    Flag("--stat", **O), Flag("--stat-width", takes=V), Flag("--stat-name-width", takes=V),
    Flag("--stat-count", takes=V), Flag("--stat-graph-width", takes=V), Flag("--compact-summary"),
    Flag("--numstat"), Flag("--shortstat"), Flag("-X", "--dirstat", **O), Flag("--cumulative"),
    Flag("--dirstat-by-file", **O), Flag("--summary"), Flag("--patch-with-stat"), Flag("-z"),
    Flag("--name-only"), Flag("--name-status"), Flag("--submodule", **O), Flag("--color", **O),
    Flag("--no-color"), Flag("--color-moved", **O), Flag("--no-color-moved"),
    Flag("--color-moved-ws", takes=V), Flag("--no-color-moved-ws"), Flag("--word-diff", **O),
    Flag("--word-diff-regex", takes=V), Flag("--color-words", **O), Flag("--no-renames"),
    Flag("--rename-empty"), Flag("--no-rename-empty"), Flag("--check"),
    Flag("--ws-error-highlight", takes=V), Flag("--full-index"), Flag("--binary"),
    Flag("--abbrev", **O), Flag("--no-abbrev"), Flag("-B", "--break-rewrites", **O),
    Flag("-M", "--find-renames", **O), Flag("-C", "--find-copies", **O),
    Flag("--find-copies-harder"), Flag("-D", "--irreversible-delete"), Flag("-l", **O),
    Flag("--diff-filter", takes=V), Flag("-S", takes=V), Flag("-G", takes=V),
    Flag("--find-object", takes=V), Flag("--pickaxe-all"), Flag("--pickaxe-regex"),
    Flag("-O", takes=P), Flag("--skip-to", takes=V), Flag("--rotate-to", takes=V), Flag("-R"),
    Flag("--relative", **O), Flag("--no-relative"), Flag("-a", "--text"),
    Flag("--ignore-cr-at-eol"), Flag("--ignore-space-at-eol"), Flag("-b", "--ignore-space-change"),
    Flag("-w", "--ignore-all-space"), Flag("--ignore-blank-lines"),
    Flag("-I", "--ignore-matching-lines", takes=V), Flag("--inter-hunk-context", takes=V),
    Flag("-W", "--function-context"), Flag("--no-function-context"), Flag("--exit-code"),
    Flag("--quiet"), Flag("--no-ext-diff"), Flag("--no-textconv"), Flag("--ignore-submodules", **O),
    Flag("--src-prefix", takes=V), Flag("--dst-prefix", takes=V), Flag("--no-prefix"),
    Flag("--default-prefix"), Flag("--line-prefix", takes=V), Flag("--ita-invisible-in-index"),
    Flag("--ita-visible-in-index"), Flag("-1", "--base"), Flag("-2", "--ours"), Flag("-3", "--theirs"),
    Flag("-0"), Flag("--cached"), Flag("--staged"), Flag("--merge-base"), Flag("--no-index"),
    Flag("-c"), Flag("--cc"), Flag("--combined-all-paths"), Flag("-m"), Flag("--dd"),
    Flag("--remerge-diff"), Flag("--diff-merges", takes=V), Flag("--no-diff-merges"), Flag("-r"),
    Flag("-t"), Flag("--root"), Flag("--no-commit-id"), Flag("--no-stat"), Flag("--follow"),
]

LOG_FLAGS = [
    Flag("-n", "--max-count", takes=V), Flag("--skip", takes=V), Flag("--since", "--after", takes=V),
    Flag("--since-as-filter", takes=V), Flag("--until", "--before", takes=V),
    Flag("--author", takes=V), Flag("--committer", takes=V), Flag("--grep", takes=V),
    Flag("--grep-reflog", takes=V), Flag("--all-match"), Flag("--invert-grep"),
    Flag("-i", "--regexp-ignore-case"), Flag("--basic-regexp"), Flag("-E", "--extended-regexp"),
    Flag("-F", "--fixed-strings"), Flag("-P", "--perl-regexp"), Flag("--remove-empty"),
    Flag("--merges"), Flag("--no-merges"), Flag("--min-parents", takes=V),
    Flag("--max-parents", takes=V), Flag("--no-min-parents"), Flag("--no-max-parents"),
    Flag("--first-parent"), Flag("--exclude-first-parent-only"), Flag("--not"), Flag("--all"),
    Flag("--branches", **O), Flag("--tags", **O), Flag("--remotes", **O), Flag("--glob", takes=V),
    Flag("--exclude", takes=V), Flag("--exclude-hidden", takes=V), Flag("--reflog"), Flag("--alternate-refs"),
    Flag("--single-worktree"), Flag("--ignore-missing"), Flag("--bisect"), Flag("--stdin"),
    Flag("--cherry-mark"), Flag("--cherry-pick"), Flag("--left-only"), Flag("--right-only"),
    Flag("--cherry"), Flag("-g", "--walk-reflogs"), Flag("--merge"), Flag("--boundary"),
    Flag("--simplify-by-decoration"), Flag("--show-pulls"), Flag("--full-history"), Flag("--dense"),
    Flag("--sparse"), Flag("--simplify-merges"), Flag("--ancestry-path", **O), Flag("--date-order"),
    Flag("--author-date-order"), Flag("--topo-order"), Flag("--reverse"), Flag("--no-walk", **O),
    Flag("--do-walk"), Flag("--format", takes=V), Flag("--pretty", **O), Flag("--oneline"),
    Flag("--abbrev-commit"), Flag("--no-abbrev-commit"), Flag("--encoding", takes=V),
    Flag("--expand-tabs", **O), Flag("--no-expand-tabs"), Flag("--notes", **O), Flag("--no-notes"),
    Flag("--show-notes", **O), Flag("--standard-notes"), Flag("--no-standard-notes"),
    Flag("--relative-date"), Flag("--date", takes=V), Flag("--parents"), Flag("--children"),
    Flag("--left-right"), Flag("--graph"), Flag("--show-linear-break", **O), Flag("--decorate", **O),
    Flag("--no-decorate"), Flag("--decorate-refs", takes=V), Flag("--decorate-refs-exclude", takes=V),
    Flag("--clear-decorations"), Flag("--source"), Flag("--mailmap", "--use-mailmap"),
    Flag("--no-mailmap", "--no-use-mailmap"), Flag("--full-diff"), Flag("--log-size"),
    Flag("-L", takes=V), Flag("--count"), Flag("--objects"), Flag("--objects-edge"),
    Flag("--header"), Flag("--timestamp"), Flag("--in-commit-order"), Flag("--no-object-names"),
    Flag("--object-names"), Flag("--quiet"),
]

_SIGNATURE = {Flag("--show-signature"): "runs gpg to verify signatures"}


def _formats(p: Parsed, call: Call) -> Iterable[Finding]:
    for o in p.opts:
        if o.flag.names[0] in ("--format", "--pretty") and o.value is not None:
            t = o.value.text
            if gitkeys.shows_signatures(t):
                yield Finding(f"git format {t!r} shows signatures (runs gpg)", o.word.span, "readonly.flag")


def _cmd(name: str, safe: list[Flag], unsafe: dict | None = None, *, check: Callable | None = None,
         max_operands: int | None = None, numeric: bool = False) -> Command:
    return Command(f"git {name}", reads=False, safe=safe, unsafe=unsafe or {}, abbrev=False,
                   check=check or _formats, max_operands=max_operands, numeric=numeric)


_LOGLIKE = [*LOG_FLAGS, *DIFF_FLAGS]
_LOG_UNSAFE = {**_OUTPUT_UNSAFE, **_SIGNATURE}

STATUS = _cmd("status", [
    Flag("-s", "--short"), Flag("-b", "--branch"), Flag("--show-stash"), Flag("--porcelain", **O),
    Flag("--long"), Flag("-v", "--verbose"), Flag("-u", "--untracked-files", **O),
    Flag("--ignore-submodules", **O), Flag("--ignored", **O), Flag("-z"), Flag("--column", **O),
    Flag("--no-column"), Flag("--ahead-behind"), Flag("--no-ahead-behind"), Flag("--renames"),
    Flag("--no-renames"), Flag("--find-renames", **O)])

LOG = _cmd("log", _LOGLIKE, _LOG_UNSAFE, numeric=True)
SHOW = _cmd("show", _LOGLIKE, _LOG_UNSAFE, numeric=True)
WHATCHANGED = _cmd("whatchanged", _LOGLIKE, _LOG_UNSAFE, numeric=True)
REV_LIST = _cmd("rev-list", _LOGLIKE, _LOG_UNSAFE, numeric=True)
# `git diff A B` compares two files as `--no-index` does when one lies outside the work tree:
# then it prints what it reads, and an operand only known at run time may be a secret.
DIFF = Command("git diff", reads=lambda p: p.has("--no-index") or len(p.operands) == 2, safe=DIFF_FLAGS,
               unsafe=_OUTPUT_UNSAFE, abbrev=False, check=_formats)
DIFF_TREE = _cmd("diff-tree", [*DIFF_FLAGS, Flag("--stdin"), Flag("-v"), Flag("--pretty", **O),
                               Flag("--format", takes=V), Flag("--always")], _OUTPUT_UNSAFE)
DIFF_INDEX = _cmd("diff-index", DIFF_FLAGS, _OUTPUT_UNSAFE)
DIFF_FILES = _cmd("diff-files", [*DIFF_FLAGS, Flag("-q")], _OUTPUT_UNSAFE)
SHORTLOG = _cmd("shortlog", [*LOG_FLAGS, Flag("-n", "--numbered"), Flag("-s", "--summary"),
                             Flag("-e", "--email"), Flag("-c", "--committer"),
                             Flag("--group", takes=V), Flag("-w", **O)], _SIGNATURE)

_GREP_SAFE = [
    Flag("--cached"), Flag("--no-index"), Flag("--untracked"), Flag("--no-exclude-standard"),
    Flag("--exclude-standard"), Flag("--recurse-submodules"), Flag("-a", "--text"), Flag("--no-textconv"),
    Flag("-i", "--ignore-case"), Flag("-I"), Flag("--max-depth", takes=V), Flag("-r", "--recursive"),
    Flag("--no-recursive"), Flag("-w", "--word-regexp"), Flag("-v", "--invert-match"), Flag("-h"),
    Flag("-H"), Flag("--full-name"), Flag("-E", "--extended-regexp"), Flag("-G", "--basic-regexp"),
    Flag("-F", "--fixed-strings"), Flag("-P", "--perl-regexp"), Flag("-n", "--line-number"),
    Flag("--column"), Flag("-l", "--files-with-matches", "--name-only"),
    Flag("-L", "--files-without-match"), Flag("-z", "--null"), Flag("-o", "--only-matching"),
    Flag("-c", "--count"), Flag("--color", **O), Flag("--no-color"), Flag("--break"),
    Flag("--heading"), Flag("-p", "--show-function"), Flag("-A", "--after-context", takes=V),
    Flag("-B", "--before-context", takes=V), Flag("-C", "--context", takes=V),
    Flag("-W", "--function-context"), Flag("--threads", takes=V), Flag("-f", takes=P),
    Flag("-e", takes=V), Flag("--and"), Flag("--or"), Flag("--not"), Flag("--all-match"),
    Flag("-q", "--quiet"), Flag("-m", "--max-count", takes=V),
]
GREP = _cmd("grep", _GREP_SAFE, {
    Flag("-O", "--open-files-in-pager", **O): "opens the matching files in a pager (runs a program)",
    Flag("--textconv"): "runs textconv filter programs",
}, numeric=True)

BLAME = _cmd("blame", [
    Flag("-b"), Flag("--root"), Flag("--show-stats"), Flag("--progress"), Flag("--no-progress"),
    Flag("--score-debug"), Flag("-f", "--show-name"), Flag("-n", "--show-number"), Flag("-s"),
    Flag("-e", "--show-email"), Flag("-w"), Flag("--incremental"), Flag("-p", "--porcelain"),
    Flag("--line-porcelain"), Flag("-l"), Flag("-t"), Flag("-c"), Flag("-L", takes=V),
    Flag("-S", takes=P), Flag("--reverse", takes=V), Flag("--first-parent"),
    Flag("--encoding", takes=V), Flag("--contents", takes=P), Flag("--date", takes=V),
    Flag("-M", **O), Flag("-C", **O), Flag("--ignore-rev", takes=V), Flag("--ignore-revs-file", takes=P),
    Flag("--color-lines"), Flag("--color-by-age"), Flag("--minimal"), Flag("--abbrev", **O),
    Flag("--since", takes=V)], {Flag("--textconv"): "runs textconv filter programs"})

REV_PARSE = _cmd("rev-parse", [
    Flag("--show-toplevel"), Flag("--git-dir"), Flag("--abbrev-ref", **O), Flag("--short", **O),
    Flag("--verify"), Flag("-q", "--quiet"), Flag("--symbolic"), Flag("--symbolic-full-name"),
    Flag("--all"), Flag("--branches", **O), Flag("--tags", **O), Flag("--remotes", **O),
    Flag("--glob", takes=V), Flag("--exclude", takes=V), Flag("--is-inside-work-tree"),
    Flag("--is-bare-repository"), Flag("--is-inside-git-dir"), Flag("--is-shallow-repository"),
    Flag("--show-prefix"), Flag("--show-cdup"), Flag("--git-common-dir"), Flag("--absolute-git-dir"),
    Flag("--show-superproject-working-tree"), Flag("--shared-index-path"), Flag("--git-path", takes=V),
    Flag("--local-env-vars"), Flag("--default", takes=V), Flag("--prefix", takes=V),
    Flag("--revs-only"), Flag("--no-revs"), Flag("--flags"), Flag("--no-flags"), Flag("--sq"),
    Flag("--sq-quote"), Flag("--not"), Flag("--since", "--after", takes=V),
    Flag("--until", "--before", takes=V), Flag("--show-object-format", **O),
    Flag("--show-ref-format"), Flag("--path-format", takes=V), Flag("--resolve-git-dir", takes=V),
    Flag("--disambiguate", takes=V), Flag("--keep-dashdash"), Flag("--stop-at-non-option"),
    Flag("--stuck-long"), Flag("--end-of-options")])

LS_FILES = _cmd("ls-files", [
    Flag("-c", "--cached"), Flag("-d", "--deleted"), Flag("-m", "--modified"), Flag("-o", "--others"),
    Flag("-i", "--ignored"), Flag("-s", "--stage"), Flag("-u", "--unmerged"), Flag("-k", "--killed"),
    Flag("-z"), Flag("-t"), Flag("-v"), Flag("-f"), Flag("--directory"), Flag("--no-empty-directory"),
    Flag("--eol"), Flag("--deduplicate"), Flag("-x", "--exclude", takes=V),
    Flag("-X", "--exclude-from", takes=P), Flag("--exclude-per-directory", takes=V),
    Flag("--exclude-standard"), Flag("--error-unmatch"), Flag("--with-tree", takes=V),
    Flag("--full-name"), Flag("--recurse-submodules"), Flag("--abbrev", **O), Flag("--debug"),
    Flag("--sparse"), Flag("--format", takes=V), Flag("--resolve-undo")])

LS_TREE = _cmd("ls-tree", [
    Flag("-d"), Flag("-r"), Flag("-t"), Flag("-l", "--long"), Flag("-z"), Flag("--name-only"),
    Flag("--name-status"), Flag("--object-only"), Flag("--full-name"), Flag("--full-tree"),
    Flag("--abbrev", **O), Flag("--format", takes=V)])

CAT_FILE = _cmd("cat-file", [
    Flag("-t"), Flag("-s"), Flag("-e"), Flag("-p"), Flag("--batch", **O), Flag("--batch-check", **O),
    Flag("--batch-command", **O), Flag("--batch-all-objects"), Flag("--buffer"),
    Flag("--follow-symlinks"), Flag("--unordered"), Flag("-Z"), Flag("--allow-unknown-type"),
    Flag("--use-mailmap", "--mailmap"), Flag("--no-use-mailmap", "--no-mailmap"),
    Flag("--path", takes=V)], {
        Flag("--textconv"): "runs textconv filter programs",
        Flag("--filters"): "runs filter programs",
    })

DESCRIBE = _cmd("describe", [
    Flag("--all"), Flag("--tags"), Flag("--contains"), Flag("--abbrev", **O),
    Flag("--candidates", takes=V), Flag("--exact-match"), Flag("--debug"), Flag("--long"),
    Flag("--match", takes=V), Flag("--exclude", takes=V), Flag("--always"), Flag("--first-parent"),
    Flag("--dirty", **O), Flag("--broken", **O)])

MERGE_BASE = _cmd("merge-base", [Flag("-a", "--all"), Flag("--octopus"), Flag("--independent"),
                                 Flag("--is-ancestor"), Flag("--fork-point")])
SHOW_REF = _cmd("show-ref", [
    Flag("-q", "--quiet"), Flag("--verify"), Flag("--head"), Flag("-d", "--dereference"),
    Flag("-s", "--hash", **O), Flag("--abbrev", **O), Flag("--tags"), Flag("--branches", "--heads"),
    Flag("--exclude-existing", **O), Flag("--exists")])
_REF_FILTERS = [
    Flag("--points-at", takes=V), Flag("--merged", takes=V, lastarg=True),
    Flag("--no-merged", takes=V, lastarg=True), Flag("--contains", takes=V, lastarg=True),
    Flag("--no-contains", takes=V, lastarg=True), Flag("--sort", takes=V), Flag("--format", takes=V),
    Flag("--color", **O), Flag("--no-color"), Flag("-i", "--ignore-case"), Flag("--omit-empty"),
]
FOR_EACH_REF = _cmd("for-each-ref", [
    *_REF_FILTERS, Flag("--count", takes=V), Flag("-s", "--shell"), Flag("-p", "--perl"),
    Flag("--python"), Flag("--tcl"), Flag("--exclude", takes=V), Flag("--stdin"),
    Flag("--include-root-refs")])
NAME_REV = _cmd("name-rev", [
    Flag("--tags"), Flag("--refs", takes=V), Flag("--exclude", takes=V), Flag("--all"),
    Flag("--annotate-stdin"), Flag("--stdin"), Flag("--name-only"), Flag("--no-undefined"),
    Flag("--always")])
COUNT_OBJECTS = _cmd("count-objects", [Flag("-v", "--verbose"), Flag("-H", "--human-readable")],
                     max_operands=0)
CHECK_IGNORE = _cmd("check-ignore", [
    Flag("-q", "--quiet"), Flag("-v", "--verbose"), Flag("--stdin"), Flag("-z"),
    Flag("-n", "--non-matching"), Flag("--no-index")])
CHECK_ATTR = _cmd("check-attr", [Flag("-a", "--all"), Flag("--cached"), Flag("--stdin"), Flag("-z"),
                                 Flag("--source", takes=V)])
VERSION = _cmd("version", [Flag("--build-options")], max_operands=0)
VAR = _cmd("var", [Flag("-l")], max_operands=1)


def _listing(kind: str) -> Callable[[Parsed, Call], Iterable[Finding]]:
    """branch/tag: read-only only as a listing (operands are patterns only with --list)."""
    def check(p: Parsed, call: Call) -> Iterable[Finding]:
        yield from _formats(p, call)
        if p.operands and not p.has("-l", "--list"):
            yield Finding(f"git {kind} with a name creates a {kind}", p.operands[0].span, "readonly.operand")
    return check


_BRANCH_UNSAFE = {
    Flag("-d", "-D", "--delete"): "deletes branches",
    Flag("-m", "-M", "--move"): "renames branches",
    Flag("-c", "-C", "--copy"): "copies branches",
    Flag("-f", "--force"): "forces a branch change",
    Flag("-u", "--set-upstream-to", takes=V): "changes the upstream",
    Flag("--unset-upstream"): "changes the upstream",
    Flag("--edit-description"): "opens an editor",
    Flag("-t", "--track", **O): "sets up tracking",
    Flag("--no-track"): "creates a branch",
    Flag("--create-reflog"): "creates a branch",
    Flag("--recurse-submodules"): "creates branches in submodules",
}
BRANCH = Command(reads=False, name="git branch", abbrev=False, check=_listing("branch"),
                 unsafe=_BRANCH_UNSAFE, safe=[
    *_REF_FILTERS, Flag("-a", "--all"), Flag("-r", "--remotes"), Flag("-l", "--list"),
    Flag("-v", "--verbose"), Flag("--show-current"), Flag("--column", **O), Flag("--no-column"),
    Flag("--abbrev", **O), Flag("--no-abbrev"), Flag("-q", "--quiet")])

TAG = Command(reads=False, name="git tag", abbrev=False, check=_listing("tag"), safe=[
    *_REF_FILTERS, Flag("-l", "--list"), Flag("-n", **O), Flag("--column", **O), Flag("--no-column")],
    unsafe={
        Flag("-a", "--annotate"): "creates a tag", Flag("-s", "--sign"): "creates a signed tag (runs gpg)",
        Flag("-u", "--local-user", takes=V): "creates a signed tag (runs gpg)",
        Flag("-f", "--force"): "replaces a tag", Flag("-d", "--delete"): "deletes tags",
        Flag("-v", "--verify"): "verifies tags (runs gpg)", Flag("-m", "--message", takes=V): "creates a tag",
        Flag("-F", "--file", takes=P): "creates a tag", Flag("-e", "--edit"): "opens an editor",
    })


def _config_check(p: Parsed, call: Call) -> Iterable[Finding]:
    modes = ("--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list", "--get-color",
             "--get-colorbool")
    if p.operands and p.operands[0].text in ("get", "list"):
        return []
    if p.has(*modes):
        return []
    if len(p.operands) == 1:
        return []  # `git config name` prints the value
    return [Finding("git config with a value sets configuration", call.command.span, "readonly.operand")]


# Legacy git config stops reading options at its first operand (PARSE_OPT_STOP_AT_NON_OPTION):
# in `git config user.name --local` the word --local is the value it sets (permute=False).
CONFIG = Command(reads=False, name="git config", abbrev=False, permute=False, check=_config_check, safe=[
    Flag("--get"), Flag("--get-all"), Flag("--get-regexp"), Flag("--get-urlmatch"),
    Flag("-l", "--list"), Flag("--get-color"), Flag("--get-colorbool"), Flag("--show-origin"),
    Flag("--show-scope"), Flag("--name-only"), Flag("-z", "--null"), Flag("--global"), Flag("--system"),
    Flag("--local"), Flag("--worktree"), Flag("-f", "--file", takes=P), Flag("--blob", takes=V),
    Flag("--includes"), Flag("--no-includes"), Flag("-t", "--type", takes=V), Flag("--bool"),
    Flag("--int"), Flag("--bool-or-int"), Flag("--path"), Flag("--expiry-date"),
    Flag("--default", takes=V), Flag("--all"), Flag("--regexp"), Flag("--value", takes=V),
    Flag("--fixed-value")],
    unsafe={
        Flag("--add"): "adds configuration", Flag("--replace-all"): "replaces configuration",
        Flag("--unset"): "removes configuration", Flag("--unset-all"): "removes configuration",
        Flag("--rename-section"): "renames configuration", Flag("--remove-section"): "removes configuration",
        Flag("-e", "--edit"): "opens an editor",
    })


def _sub_dispatch(table: dict[str, Command], default: str | None, what: str):
    """``git stash list``/``git remote -v``: the first operand picks a sub-table."""
    def check(call: Call, args: tuple[Word, ...]) -> list[Finding]:
        if args and args[0].static and not args[0].text.startswith("-"):
            sub, rest = args[0].text, args[1:]
        elif default is not None:
            sub, rest = default, args
        else:
            return [Finding(f"git {what} needs a subcommand", call.command.span, "readonly.operand")]
        spec = table.get(sub)
        if spec is None:
            span = args[0].span if args else call.command.span
            return [Finding(f"git {what} {sub} is not a read-only form", span, "readonly.subcommand")]
        return run_checks(spec, call, rest)
    return check


STASH_SHOW = _cmd("stash show", [*DIFF_FLAGS, Flag("--include-untracked"), Flag("--only-untracked"),
                                 Flag("--no-include-untracked")], _OUTPUT_UNSAFE, max_operands=1)
STASH = _sub_dispatch({"list": _cmd("stash list", _LOGLIKE, _LOG_UNSAFE), "show": STASH_SHOW},
                      None, "stash")
REMOTE = _sub_dispatch({
    "": Command(reads=False, name="git remote", abbrev=False, max_operands=0, safe=[Flag("-v", "--verbose")]),
    "get-url": Command(reads=False, name="git remote get-url", abbrev=False, max_operands=1,
                       safe=[Flag("--push"), Flag("--all")]),
}, "", "remote")
REFLOG_SHOW = _cmd("reflog show", _LOGLIKE, _LOG_UNSAFE)
REFLOG = _sub_dispatch({
    "show": REFLOG_SHOW,
    "exists": Command(reads=False, name="git reflog exists", max_operands=1),
}, "show", "reflog")
WORKTREE = _sub_dispatch({
    "list": Command(reads=False, name="git worktree list", abbrev=False, max_operands=0,
                    safe=[Flag("--porcelain"), Flag("-v", "--verbose"), Flag("-z"),
                          Flag("--expire", takes=V)]),
}, None, "worktree")
SYMBOLIC_REF = Command(reads=False, name="git symbolic-ref", abbrev=False, max_operands=1,
                       extra_operand="with a target changes a reference",
                       safe=[Flag("-q", "--quiet"), Flag("--short"), Flag("--no-recurse"), Flag("--recurse")],
                       unsafe={Flag("-d", "--delete"): "deletes a reference",
                               Flag("-m", takes=V): "changes a reference"})

def _dry_run(p: Parsed, call: Call) -> Iterable[Finding]:
    if not p.has("-n", "--dry-run"):
        yield Finding("git clean without -n deletes untracked files", call.command.span,
                      "readonly.operand")


# Only the dry run: -n wins over -f (git prints "Would remove" and deletes nothing).
CLEAN = Command("git clean", reads=False, abbrev=False, check=_dry_run, safe=[
    Flag("-n", "--dry-run"), Flag("-d"), Flag("-f", "--force"), Flag("-x"), Flag("-X"),
    Flag("-q", "--quiet"), Flag("-e", "--exclude", takes=V)],
    unsafe={Flag("-i", "--interactive"): "asks which files to delete, then deletes them"})
SHOW_BRANCH = _cmd("show-branch", [
    Flag("-a", "--all"), Flag("-r", "--remotes"), Flag("--topo-order"), Flag("--date-order"),
    Flag("--current"), Flag("--color", **O), Flag("--no-color"), Flag("--sha1-name"),
    Flag("--more", **O), Flag("--list"), Flag("--merge-base"), Flag("--independent"),
    Flag("--no-name"), Flag("--sparse"), Flag("-g", "--reflog", **O)])
CHERRY = _cmd("cherry", [Flag("-v"), Flag("--abbrev", **O)], max_operands=3)
# range-diff runs git log for each range: the log and diff tables, the same refusals.
RANGE_DIFF = _cmd("range-diff", [*_LOGLIKE, Flag("--creation-factor", takes=V),
                                 Flag("--no-dual-color")], _LOG_UNSAFE)
_NOTES_FORMS = _sub_dispatch({
    "list": Command(reads=False, name="git notes list", abbrev=False, max_operands=1),
    "show": Command(reads=False, name="git notes show", abbrev=False, max_operands=1),
}, "list", "notes")


def NOTES(call: Call, args: tuple[Word, ...]) -> list[Finding]:  # noqa: N802 - a table entry
    """``git notes [--ref=REF] [list|show] …``: ``--ref`` comes before the subcommand and takes a
    value (``--ref -- edit`` is ref ``--`` and the editor); the next word is the subcommand."""
    rest = list(args)
    while rest and rest[0].static and (rest[0].text == "--ref" or rest[0].text.startswith("--ref=")):
        if rest[0].text == "--ref":
            if len(rest) < 2 or not rest[1].static or rest[1].text.startswith("-"):
                return [Finding("git notes --ref without a plain ref name", rest[0].span,
                                "readonly.operand")]
            rest = rest[2:]
        else:
            rest = rest[1:]
    if rest and rest[0].text.startswith("-"):
        return [Finding(f"git notes {rest[0].text}: option not on the read-only list", rest[0].span,
                        "readonly.unknown_flag")]
    return _NOTES_FORMS(call, tuple(rest))

# verify-pack runs `git index-pack --verify-stat` on each pack (strace: it opens only /dev/null
# for writing) and prints object ids, types and sizes, never contents.
VERIFY_PACK = Command("git verify-pack", reads=False, abbrev=False, min_operands=1,
                      safe=[Flag("-v", "--verbose"), Flag("-s", "--stat-only")])

READ_FORMS: dict[str, Command | Callable[[Call, tuple[Word, ...]], list[Finding]]] = {
    "status": STATUS, "log": LOG, "show": SHOW, "whatchanged": WHATCHANGED, "rev-list": REV_LIST,
    "diff": DIFF, "diff-tree": DIFF_TREE, "diff-index": DIFF_INDEX, "diff-files": DIFF_FILES,
    "shortlog": SHORTLOG, "grep": GREP, "blame": BLAME, "annotate": BLAME, "rev-parse": REV_PARSE,
    "ls-files": LS_FILES, "ls-tree": LS_TREE, "cat-file": CAT_FILE, "describe": DESCRIBE,
    "merge-base": MERGE_BASE, "show-ref": SHOW_REF, "for-each-ref": FOR_EACH_REF, "name-rev": NAME_REV,
    "count-objects": COUNT_OBJECTS, "check-ignore": CHECK_IGNORE, "check-attr": CHECK_ATTR,
    "version": VERSION, "var": VAR, "branch": BRANCH, "tag": TAG, "config": CONFIG, "stash": STASH,
    "remote": REMOTE, "reflog": REFLOG, "worktree": WORKTREE, "symbolic-ref": SYMBOLIC_REF,
    "clean": CLEAN, "show-branch": SHOW_BRANCH, "cherry": CHERRY, "range-diff": RANGE_DIFF,
    "notes": NOTES, "verify-pack": VERIFY_PACK,
}
_ALIASES = frozenset(READ_FORMS)


def read_form(sub: str, args: Sequence[Word]) -> Parsed | None:
    """``git SUB ARGS`` read through SUB's table, as the read-only check reads it (``stash
    show`` and ``reflog show`` through theirs): option values are values (``grep -e -l`` has
    the pattern ``-l``). None for a subcommand without a table here."""
    spec = READ_FORMS.get(sub)
    if sub in ("stash", "reflog") and args and args[0].text == "show":
        spec, args = (STASH_SHOW if sub == "stash" else REFLOG_SHOW), args[1:]
    elif sub == "reflog":
        spec = REFLOG_SHOW
    return read_args(spec, args) if isinstance(spec, Command) else None
NETWORK_FORMS = gitkeys.NETWORK_SUBCOMMANDS
# Options that make a network form run a local program (abbreviations included by prefix:
# "--up" is --upload-pack to git's option parser as long as it is unambiguous).
_NET_PROGRAM = {
    "fetch": ("--up", "--config", "-c"), "pull": ("--up", "--config", "-c"),
    "ls-remote": ("--up", "-u"), "clone": ("--up", "-u", "--config", "-c", "--template"),
    "push": ("--rec", "--exec"),
}

def _dirs(call: Call, parsed: Parsed) -> list[Path] | None:
    if call.cwds is None:
        return None
    dirs = list(call.cwds)
    for w in parsed.values_of("-C"):
        if not w.static or w.glob:
            return None
        text = expand_home(w.text, call.ctx)
        dirs = [Path(text) if Path(text).is_absolute() else d / text for d in dirs] if text else dirs
    return dirs


def pager_may_run(call: Call, g: Parsed) -> bool:
    """Whether git may start a pager: no ``--no-pager``/``-P``, and its stdout may be a
    terminal (``terminal.stdout_may_be_terminal``)."""
    return not g.has("--no-pager", "-P") and stdout_may_be_terminal(call)


def config_findings(call: Call, dirs: list[Path] | None, lazy_fetch: bool = True,
                    pager: bool = True) -> list[Finding]:
    if dirs is None:
        return [Finding("git runs in a directory that is not known before it runs", call.command.span,
                        "readonly.git_config")]
    out: list[Finding] = []
    for d in dirs:
        for problem in gitconfig.check(d, call.ctx.home, _ALIASES, lazy_fetch, pager):
            out.append(Finding(f"git repository config: {problem}", call.command.span, "readonly.git_config"))
        if (written := gitconfig.written_inputs(d, call.ctx.home, call.line_writes)) is not None:
            out.append(Finding(f"git reads what this line writes first: {written}", call.command.span,
                               "readonly.git_config"))
    return out


def network_findings(call: Call, dirs: list[Path] | None, sub: str) -> list[Finding]:
    """A network form in a repository whose own configuration runs programs (or that brings its
    own hooks) would run them with the network on: said here, and the path scanner reports the
    same as a sensitive hit (``pathimplicit``), so that it is asked about in every mode."""
    out: list[Finding] = []
    for d in dirs or ():
        for why, where in gitconfig.network_problems(d, call.ctx.home, call.ctx.workspace):
            out.append(Finding(f"git {sub} would run what the repository's configuration names: {why} "
                               f"({where})", call.command.span, "readonly.git_config", Effect.NETWORK))
        if (written := gitconfig.written_inputs(d, call.ctx.home, call.line_writes)) is not None:
            # what the line plants cannot be checked now: no network for whatever it names
            out.append(Finding(f"git {sub} reads what this line writes first: {written}", call.command.span,
                               "readonly.git_config"))
    return out


def git(call: Call) -> list[Finding]:
    args = call.command.args
    g = read_args(GLOBAL, args, wild_tail=call.wild_tail)
    out = list(g.findings)
    lazy = not g.has("--no-lazy-fetch")
    pager = pager_may_run(call, g)
    if not g.operands:  # `git`, `git --version`: usage or version text (trace2 targets still write)
        return out + config_findings(call, _dirs(call, g), lazy, pager)
    sub_word, rest = g.operands[0], tuple(g.operands[1:])
    if not sub_word.static or sub_word.glob:
        return [*out, Finding("git subcommand only known at run time", sub_word.span, "readonly.wild")]
    sub = sub_word.text
    if sub in NETWORK_FORMS:
        runs = any(not w.static or w.text.startswith(_NET_PROGRAM[sub]) for w in rest)
        effect = Effect.EXEC if runs else Effect.NETWORK
        why = "may run a local program" if runs else "talks to the network"
        return [*out, Finding(f"git {sub} {why}", sub_word.span, "readonly.network", effect),
                *network_findings(call, _dirs(call, g), sub)]
    spec = READ_FORMS.get(sub)
    if spec is None:
        return [*out, Finding(f"git {sub} is not a read-only git command", sub_word.span,
                              "readonly.subcommand")]
    if isinstance(spec, Command):
        out += run_checks(spec, call, rest)
    else:
        out += spec(call, rest)
    return out + config_findings(call, _dirs(call, g), lazy, pager)


CUSTOM = {"git": git}
