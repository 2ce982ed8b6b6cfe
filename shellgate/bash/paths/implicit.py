"""Files some commands read or write without naming them: ``gh auth token`` prints the token
in ``~/.config/gh/hosts.yml``; ``git config --global core.pager …`` writes ``~/.gitconfig``;
``crontab file`` installs a crontab. The path scanner reports these like a named path, with the
span of the whole command."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from re import IGNORECASE
from typing import TYPE_CHECKING

from ..._lazyre import lazy_compile
from ..._record import record
from ..facts import Context, PathClass, PathOp, SensitiveHit
from ..ir import Command, CommandKind, Word
from .roles import Role

if TYPE_CHECKING:
    from ..commands.spec import Parsed


@record
class Implicit:
    words: tuple[str, ...]  # the command name, then subcommand words in order (options skipped)
    path: str
    role: Role
    why: str
    only_with: frozenset[str] = frozenset()  # only when one of these options is given
    unless: frozenset[str] = frozenset()     # not when one of these options is given


def _fs(*a: str) -> frozenset[str]:
    return frozenset(a)


IMPLICIT: tuple[Implicit, ...] = (
    Implicit(("gh", "auth", "token"), "~/.config/gh/hosts.yml", Role.READ, "prints the GitHub token"),
    Implicit(("gh", "auth", "status"), "~/.config/gh/hosts.yml", Role.READ, "prints the GitHub token",
             only_with=_fs("-t", "--show-token")),
    Implicit(("aws", "configure", "get"), "~/.aws/credentials", Role.READ, "prints a stored AWS key"),
    Implicit(("aws", "configure", "export-credentials"), "~/.aws/credentials", Role.READ,
             "prints AWS credentials"),
    Implicit(("aws", "configure", "set"), "~/.aws/config", Role.WRITE,
             "writes AWS config (credential_process)"),
    Implicit(("gcloud", "auth", "print-access-token"), "~/.config/gcloud/credentials.db", Role.READ,
             "prints a gcloud token"),
    Implicit(("gcloud", "auth", "print-identity-token"), "~/.config/gcloud/credentials.db", Role.READ,
             "prints a gcloud token"),
    Implicit(("gcloud", "auth", "application-default", "print-access-token"),
             "~/.config/gcloud/application_default_credentials.json", Role.READ, "prints a gcloud token"),
    Implicit(("kubectl", "config", "view"), "~/.kube/config", Role.READ, "prints cluster credentials",
             only_with=_fs("--raw")),
    Implicit(("kubectl", "config", "set-credentials"), "~/.kube/config", Role.WRITE,
             "writes cluster credentials (exec plugins run programs)"),
    Implicit(("kubectl", "config", "set"), "~/.kube/config", Role.WRITE, "writes kubeconfig"),
    Implicit(("git", "credential", "fill"), "~/.git-credentials", Role.READ, "prints stored git passwords"),
    Implicit(("crontab",), "/var/spool/cron/crontabs/user", Role.WRITE, "installs or removes a crontab",
             unless=_fs("-l")),
    Implicit(("npm", "config", "set"), "~/.npmrc", Role.WRITE, "writes npm config (script-shell …)"),
    Implicit(("npm", "set"), "~/.npmrc", Role.WRITE, "writes npm config (script-shell …)"),
    Implicit(("pip", "config", "set"), "~/.config/pip/pip.conf", Role.WRITE, "re-points pip"),
    Implicit(("pip3", "config", "set"), "~/.config/pip/pip.conf", Role.WRITE, "re-points pip"),
    Implicit(("security", "find-generic-password"), "~/Library/Keychains/login.keychain-db", Role.READ,
             "prints a keychain password", only_with=_fs("-w", "-g")),
    Implicit(("security", "find-internet-password"), "~/Library/Keychains/login.keychain-db", Role.READ,
             "prints a keychain password", only_with=_fs("-w", "-g")),
    Implicit(("systemctl", "edit"), "/etc/systemd/system/unit.service", Role.WRITE, "edits a unit",
             unless=_fs("--user")),
    Implicit(("systemctl", "edit"), "~/.config/systemd/user/unit.service", Role.WRITE, "edits a user unit",
             only_with=_fs("--user")),
    Implicit(("getent", "shadow"), "/etc/shadow", Role.READ, "prints password hashes"),
    Implicit(("getent", "gshadow"), "/etc/gshadow", Role.READ, "prints password hashes"),
)

_BY_NAME: dict[str, tuple[Implicit, ...]] = {}
for _imp in IMPLICIT:
    _BY_NAME[_imp.words[0]] = (*_BY_NAME.get(_imp.words[0], ()), _imp)

# `git config` read forms; anything else writes a config file.
_GIT_CONFIG_READS = _fs("--get", "--get-all", "--get-regexp", "--get-urlmatch", "-l", "--list",
                        "--get-color", "--get-colorbool", "--show-origin", "--show-scope")
_GIT_CONFIG_WRITES = _fs("--add", "--unset", "--unset-all", "--replace-all", "--rename-section",
                         "--remove-section", "-e", "--edit")
_GIT_CONFIG_VALUED = _fs("-f", "--file", "--blob", "--type", "--default", "--comment")


def _split(cmd: Command) -> tuple[list[str], set[str]]:
    """Non-option words and the option words of a command. A word right after an option
    without ``=`` may be that option's value; it is kept as ``"\0" + word`` so that
    :func:`_in_order` may skip it (``kubectl --context prod config view``)."""
    words, opts, after_opt = [], set(), False
    for w in cmd.words:
        t = w.text
        if t.startswith("-") and len(t) > 1 and w.static:
            opts.add(t.split("=", 1)[0])
            after_opt = "=" not in t
            continue
        words.append(("\0" + t) if after_opt else t)
        after_opt = False
    return words, opts


def _in_order(needle: tuple[str, ...], hay: list[str]) -> bool:
    """``hay`` (the command's non-option words) starts with ``needle``: the subcommand words
    follow each other, the first of them among the first three words after the name (so that
    the value of a global option such as ``kubectl --context x`` may come before it)."""
    if not hay or hay[0].rsplit("/", 1)[-1] != needle[0]:
        return False
    rest, sub = hay[1:], list(needle[1:])
    j = 0
    while j < len(rest) and rest[j].startswith("\0") and j < 3:
        j += 1  # values of global options
    found = [x.lstrip("\0") for x in rest[j:j + len(sub)]]
    return found == sub or (bool(rest) and [x.lstrip("\0") for x in rest[:len(sub)]] == sub)


def implicit_hits(cmd: Command, ctx: Context) -> list[SensitiveHit]:
    if cmd.kind is not CommandKind.SIMPLE or (name := cmd.name) is None:
        return []
    base = name.rsplit("/", 1)[-1]
    if base not in _BY_NAME and base != "git":
        return []
    from .resolve import hits_for_text

    words, opts = _split(cmd)
    out: list[SensitiveHit] = []
    for imp in _BY_NAME.get(base, ()):
        if imp.only_with and not (opts & imp.only_with):
            continue
        if imp.unless & opts or not _in_order(imp.words, words):
            continue
        out.extend(hits_for_text(imp.path, imp.role, ctx, cmd.span, dynamic=False, glob=False))
    if words and words[0].lstrip("\0").rsplit("/", 1)[-1] == "git":
        out.extend(_git_config(cmd, ctx))
        out.extend(_git_prints_credentials(cmd, ctx))
        out.extend(_git_runs_configured_programs(cmd, ctx))
        out.extend(_git_prints_tracked_secrets(cmd, ctx))
    return out


def _git_config(cmd: Command, ctx: Context) -> list[SensitiveHit]:
    from .resolve import hits_for_text

    texts = [w.text for w in cmd.words]
    i, gitdir = 1, "."
    while i < len(texts) and texts[i].startswith("-"):
        if texts[i] == "-C" and i + 1 < len(texts):
            gitdir = texts[i + 1] if texts[i + 1].startswith(("/", "~")) else gitdir + "/" + texts[i + 1]
        i += 2 if texts[i] in ("-C", "-c", "--git-dir", "--work-tree", "--config-env") else 1
    if i >= len(texts) or texts[i] != "config":
        return []
    rest = texts[i + 1:]
    opts = {t.split("=", 1)[0] for t in rest if t.startswith("-")}
    operands, j = [], 0
    target = gitdir + "/.git/config"
    while j < len(rest):
        t = rest[j]
        if t.startswith("-"):
            key = t.split("=", 1)[0]
            if key in ("-f", "--file"):
                val = t.split("=", 1)[1] if "=" in t else (rest[j + 1] if j + 1 < len(rest) else "")
                target = val or target
            if key in _GIT_CONFIG_VALUED and "=" not in t:
                j += 1
        else:
            operands.append(t)
        j += 1
    if opts & _GIT_CONFIG_READS or (operands and operands[0] in ("get", "list")):
        return []
    if not (opts & _GIT_CONFIG_WRITES) and len(operands) < 2 and not (operands and operands[0] in (
            "set", "unset", "rename-section", "remove-section", "edit")):
        return []
    if "--global" in opts:
        target = "~/.gitconfig"
    elif "--system" in opts:
        target = "/etc/gitconfig"
    elif "--worktree" in opts:
        target = gitdir + "/.git/config.worktree"
    return hits_for_text(target, Role.WRITE, ctx, cmd.span, dynamic=False, glob=False)


# git forms that print configuration. Listings print every value, whatever it holds (a token
# in `http.<url>.extraHeader`, in a remote URL, in `-c`/`GIT_CONFIG_*`): always a leak-class
# read of the repository config. Forms that print one value or the remote URLs leak only where a
# file in scope holds a credential (``gitconfig.credential_source``).
_GIT_LISTINGS = _fs("-l", "--list", "--get-regexp", "--get-urlmatch", "--regexp", "--url")
_CREDENTIALS = "git config: a credential in a URL or header"
# Options with which a `git config` read prints the values of the one variable it names and
# nothing else (`git config user.name`, `--get KEY [VALUE-PATTERN]`): then only a credential
# under that name counts. Any other option (`-f`, `--blob`: another file) counts every one.
_GIT_CONFIG_GETS = _fs("--get", "--get-all", "--get-color", "--get-colorbool")
_GIT_CONFIG_ONE_KEY = _GIT_CONFIG_GETS | _fs(
    "--local", "--global", "--system", "--worktree", "--includes", "--no-includes", "--null", "-z",
    "--show-origin", "--show-scope", "--type", "--bool", "--int", "--bool-or-int", "--path",
    "--expiry-date", "--default", "--fixed-value", "--all")


def _printed_key(opts: set[str], operands: list[str]) -> str | None:
    """The variable a one-value `git config` read prints (its first operand; the one after
    the `get` subcommand), or None when what it prints is not one known variable."""
    if not opts <= _GIT_CONFIG_ONE_KEY:
        return None
    names = operands[1:] if operands[:1] == ["get"] else operands
    return names[0] if names else None


def _git_call(cmd: Command, ctx: Context) -> tuple[list[Path], bool, str, list[str]] | None:
    """A git command line read past its global options: the directories it runs in (``-C``
    followed), whether another repository or configuration is named (``--git-dir``,
    ``--work-tree``, ``-c``, ``--config-env``, or a variable of the environment such as
    ``GIT_DIR``), the subcommand and its words; None without a subcommand."""
    from ..commands.gitglobal import split_globals
    from ..git.config import elsewhere_env

    texts = [w.text for w in cmd.words]
    k, opts = split_globals(cmd.words[1:])
    dirs, elsewhere = [ctx.cwd], False
    for it in opts:
        if it.name == "-C" and it.values:
            d = it.values[0].text
            dirs = [c / d if not d.startswith("~") else ctx.home / d[2:] for c in dirs]
        elsewhere = elsewhere or it.name in ("--git-dir", "--work-tree", "-c", "--config-env") \
            or it.word.text.split("=", 1)[0] in ("--git-dir", "--work-tree", "-c", "--config-env")
    i = k + 1
    if i >= len(texts):
        return None
    return dirs, elsewhere or elsewhere_env() is not None, texts[i], texts[i + 1:]


def _git_runs_configured_programs(cmd: Command, ctx: Context) -> list[SensitiveHit]:
    """A network form (``git fetch``, ``pull``, ``push``, ``clone``, ``ls-remote``) in a
    repository whose own configuration names a program (``core.sshCommand``,
    ``remote.<name>.uploadpack``, an ``ext::`` URL, ``core.fsmonitor`` …) or that brings its own
    hooks would run them with the network on: an implant-class hit on the file that names
    them (op ``EXEC``), so that it is asked about in every mode, never remembered."""
    from ..git.config import network_problems
    from ..git.keys import NETWORK_SUBCOMMANDS

    call = _git_call(cmd, ctx)
    if call is None or call[2] not in NETWORK_SUBCOMMANDS:
        return []
    for d in call[0]:
        for why, where in network_problems(d, ctx.home, ctx.workspace):
            return [SensitiveHit(str(where), PathClass.IMPLANT, PathOp.EXEC, cmd.span, why)]
    return []


def _git_prints_credentials(cmd: Command, ctx: Context) -> list[SensitiveHit]:
    """``git config --list``, ``git var -l`` (always); ``git config KEY``, ``git remote -v``,
    ``git remote get-url``, ``git ls-remote --get-url`` (when the config holds a credential)."""
    from ..git.config import credential_source
    from .resolve import hits_for_text

    call = _git_call(cmd, ctx)
    if call is None:
        return []
    dirs, elsewhere, sub, rest = call
    opts = {t.split("=", 1)[0] for t in rest if t.startswith("-")}
    operands = [t for k, t in enumerate(rest) if not t.startswith("-")
                and not (k and rest[k - 1] in _GIT_CONFIG_VALUED | {"-t"})]
    listing = ((sub == "config" and (opts & _GIT_LISTINGS or operands[:1] == ["list"]))
               or (sub == "var" and "-l" in opts))
    if listing:
        where = str(dirs[0]) + "/.git/config"
        return hits_for_text(where, Role.READ, ctx, cmd.span, dynamic=False, glob=False)
    one_value = len(operands) == 1 or operands[:1] == ["get"] or bool(opts & _GIT_CONFIG_GETS)
    prints = ((sub == "config" and not opts & _GIT_CONFIG_WRITES and one_value)
              or (sub == "remote" and (opts & {"-v", "--verbose"} or operands[:1] == ["get-url"]))
              or (sub == "ls-remote" and "--get-url" in opts))
    if not prints:
        return []
    key = _printed_key(opts, operands) if sub == "config" else None
    for d in dirs:
        source = "git -c/--git-dir" if elsewhere else credential_source(d, ctx.home, key)
        if source is not None:
            return [SensitiveHit(source, PathClass.LEAK, PathOp.READ, cmd.span, _CREDENTIALS)]
    return []


# -- git forms that print what the repository tracks ------------------------------------------
# The object store holds every committed file: `git log -p`, `git show`, `git grep`, `git
# cat-file --batch` print a committed `.env` that the sandbox hides in the work tree. A form
# that may print file contents is a read of every tracked file (the index's names: files only
# in older commits are not seen — README).

# Words that make a log-like form print patches (a single-dash word holding one of these
# letters too: git may read `-pM` as `-p -M`).
_PATCH_WORDS = frozenset({"-p", "-u", "--patch", "--cc", "-c", "-m", "--dd", "--binary", "--check",
                          "--patch-with-raw", "--patch-with-stat", "--remerge-diff", "--full-diff"})
_PATCH_PREFIXES = ("-U", "--unified", "-L", "-G", "-S", "--word-diff", "--color-words",
                   "--pickaxe", "--find-object", "--diff-merges", "--textconv", "--ext-diff")
_PATCH_LETTERS = frozenset("pucmULGS")
# Output formats that replace a diff's default patch with names or counts.
_NAMES_ONLY = ("--stat", "--numstat", "--shortstat", "--name-only", "--name-status", "--raw",
               "--summary", "--dirstat", "--compact-summary", "-s", "--no-patch", "--quiet", "-q")
_GREP_NAMES = frozenset({"-l", "-L", "--files-with-matches", "--files-without-match", "--name-only",
                         "-q", "--quiet", "-c", "--count"})
_CAT_CONTENT = frozenset({"-p", "--batch", "--batch-command", "--textconv", "--filters", "blob"})
_LOGLIKE = frozenset({"log", "whatchanged", "diff-tree", "diff-index", "diff-files", "reflog"})


def _patches(rest: list[str]) -> bool:
    return any(w in _PATCH_WORDS or w.startswith(_PATCH_PREFIXES)
               or (w[:1] == "-" and w[1:2] != "-" and not w[1:].isdigit() and _PATCH_LETTERS & set(w[1:]))
               for w in rest)


_HEXISH = lazy_compile(r"[0-9a-fA-F]{4,64}")
# A revision whose last step gives a commit (or a tree), never a blob: a parent or ancestor
# (`^`, `^2`, `~3`), `^{commit}`/`^{tree}`, a message search (`^{/fix}`), the commit-only
# suffixes of ranges (`^@`, `^!`, `^-`), a branch's `@{upstream}`/`@{push}`/`@{-1}`.
_NOT_A_BLOB = lazy_compile(r".*(\^[0-9]*|~[0-9]*|\^\{(commit|tree|/.*)\}|\^[@!]|\^-[0-9]*"
                           r"|@\{(-[0-9]+|u|upstream|push)\})", flags=IGNORECASE)


def _may_name_blob(word: str) -> bool:
    """Whether a revision named by ``word`` may be a blob (or a tag of one), which ``git show``
    prints whole even with ``-s`` or ``--stat``: anything but HEAD, a range, or a revision whose
    last step gives a commit (:data:`_NOT_A_BLOB`). A path (``HEAD:.env``, ``:0:.env``), an
    object id, a peeled one (``8ff4d77^{}``, ``^{blob}``, ``^{object}``), a reflog entry
    (``x@{1}``) and any ref name (a tag may point at a blob) may: fail closed."""
    if ":" in word or _HEXISH.fullmatch(word):
        return True
    if word in ("HEAD", "@") or ".." in word:
        return False
    return not _NOT_A_BLOB.fullmatch(word)


def prints_content(sub: str, args: Sequence[Word]) -> bool:
    """Whether ``git SUB ARGS`` may print the contents of tracked files. Read twice, and content
    when either reading says so: as the subcommand's table reads the words (``commands/git.py``:
    ``grep -e -l`` has the pattern ``-l``, ``show -I -s`` the regex ``-s``, ``cat-file -pp`` is
    ``-p`` twice) and word by word (a word the table does not know still counts; an unknown
    output option counts as a patch)."""
    from ..commands.git import read_form

    texts = [w.text for w in args]
    if _prints_by_words(sub, texts):
        return True
    parsed = read_form(sub, args)   # None: not a read form, the words alone decide
    return parsed is not None and _prints_by_table(sub, parsed)


def _prints_by_words(sub: str, rest: list[str]) -> bool:
    """The word-by-word reading: a word that spells a content option anywhere counts."""
    words = rest[:rest.index("--")] if "--" in rest else rest
    if sub in ("grep", "range-diff"):
        return sub == "range-diff" or not _GREP_NAMES & set(words)
    if sub == "cat-file":
        return bool(_CAT_CONTENT & {w.split("=", 1)[0] for w in words})
    if sub == "config":   # `--blob` reads configuration from a (tracked) blob (git abbreviates it)
        return any(w.split("=", 1)[0] in ("--bl", "--blo", "--blob") for w in words)
    if sub == "stash":   # `stash show` prints the patch when stash.showPatch says so
        return bool(words[:1] == ["show"] or _patches(words))
    if sub == "show" and any(_may_name_blob(w) for w in words if not w.startswith("-")):
        return True   # a blob is printed whole, whatever the output options say
    if sub in ("show", "diff"):
        return _patches(words) or not any(w.startswith(_NAMES_ONLY) for w in words)
    return sub in _LOGLIKE and _patches(words)


def _prints_by_table(sub: str, p: Parsed) -> bool:
    """The table's reading: only options read as options count (a value is never one), and
    an option the table does not know may be an output option (a patch)."""
    names = {n for o in p.opts for n in o.flag.names}
    unknown = any(f.rule in ("readonly.unknown_flag", "readonly.abbreviation") for f in p.findings)
    if sub == "grep":
        return not names & _GREP_NAMES
    if sub == "cat-file":
        return bool(names & _CAT_CONTENT) or [w.text for w in p.operands[:1]] == ["blob"]
    if sub == "config":
        return "--blob" in names
    patches = unknown or any(n in _PATCH_WORDS or n.startswith(_PATCH_PREFIXES) for n in names)
    if sub == "show" and any(_may_name_blob(w.text) for w in p.operands):
        return True
    if sub in ("show", "diff", "stash"):   # (--stat-width= and the like turn --stat on)
        return patches or not any(n.startswith(_NAMES_ONLY) for n in names)
    return sub in _LOGLIKE and patches


def _git_prints_tracked_secrets(cmd: Command, ctx: Context) -> list[SensitiveHit]:
    """A git form that may print file contents, in a repository that tracks a file of the leak
    table (its index read without git), or one of whose submodules does (``grep
    --recurse-submodules``, ``--submodule=diff`` and the ``submodule.recurse``/``diff.submodule``
    keys print their files), reads that secret; so does one in a repository whose index cannot
    be read exactly (bare, split, past the bound), or with ``--git-dir``/``-c``/``GIT_DIR``.
    And a file the index no longer tracks is still in the object store: such a form in a
    repository any of whose trees ever held a secret's name (:func:`_history_leak`) reads it."""
    from ..commands.gitglobal import split_globals
    from .resolve import leak_among

    call = _git_call(cmd, ctx)
    if call is None:
        return []
    dirs, elsewhere, sub, _ = call
    args = cmd.words[split_globals(cmd.words[1:])[0] + 2:]
    if not prints_content(sub, args):
        return []
    why = f"git {sub} prints what the repository tracks"
    for d in dirs:
        found = _tracked_here_and_below(d, ctx.home, elsewhere)
        for where, names, whom, _objects in found:
            if names is None:
                return [SensitiveHit(where, PathClass.LEAK, PathOp.READ, cmd.span,
                                     f"{why}, and the index of {whom} was not read exactly")]
            if (leak := leak_among(where, names, ctx)) is not None:
                return [SensitiveHit(leak, PathClass.LEAK, PathOp.READ, cmd.span,
                                     f"{why}: {whom} tracks a secret")]
        if _worktree_only(sub, args):
            continue
        for where, _names, whom, objdir in found:
            if (hit := _history_leak(where, whom, objdir, sub, cmd, ctx)) is not None:
                return [hit]
    return []


# `git diff` with none of these compares the work tree with the index: it prints only what the
# index tracks (checked above), never a tree of the history. Exact words: git reads long diff
# options by unique prefix, so `--cach` would be `--cached` (HEAD's tree).
_WORKTREE_DIFF = frozenset({"--stat", "--shortstat", "--numstat", "--name-only", "--name-status",
                            "-p", "-u", "--patch", "--color", "--no-color", "--no-ext-diff",
                            "-w", "--ignore-all-space", "-b", "--ignore-space-change",
                            "--word-diff", "--exit-code", "--quiet", "--no-pager"})
_WORKTREE_DIFF_VALUED = lazy_compile(r"(?:-U|--unified=|--stat=|--color=)[0-9a-z]*")


def _worktree_only(sub: str, args: Sequence[Word]) -> bool:
    """``git diff`` of the work tree against the index (the form agents run after every
    edit): no operand before ``--`` (one could be a revision) and only options of the list
    above; its output holds tracked files only, so the history is not asked about."""
    if sub != "diff":
        return False
    for w in args:
        if not w.static:
            return False
        if w.text == "--":
            return True
        if w.text not in _WORKTREE_DIFF and not _WORKTREE_DIFF_VALUED.fullmatch(w.text):
            return False
    return True


def _history_leak(where: str, whom: str, objdir: tuple[Path, int] | None, sub: str, cmd: Command,
                  ctx: Context) -> SensitiveHit | None:
    """A hit when a tree of the object store of ``whom`` ever held a name of the leak table
    (``git rm --cached .env`` keeps it in every earlier commit, the reflog, the stash and as an
    unreachable object ``git show <sha>`` still prints), or when the store is not read exactly
    (``git.objects``: a partial clone, past the bound)."""
    from ..git import history
    from .resolve import leak_among, leak_name_pattern

    why = f"git {sub} prints the history of {whom}"
    if objdir is None:
        return SensitiveHit(where, PathClass.LEAK, PathOp.READ, cmd.span,
                            f"{why}, and its object store is not known")
    rx = leak_name_pattern(ctx)
    names, unread = history.ever_held(objdir[0], objdir[1], rx.pattern,
                                      lambda n: bool(rx.fullmatch(n.lower())))
    if names is None:
        return SensitiveHit(where, PathClass.LEAK, PathOp.READ, cmd.span,
                            f"{why}, and its object store was not read exactly ({unread})")
    leak = leak_among(where, [n.encode("utf-8", "surrogateescape") for n in names], ctx)
    if leak is None:
        return None
    return SensitiveHit(leak, PathClass.LEAK, PathOp.READ, cmd.span,
                        f"{why}: a commit there once held a secret")


# A work tree, its tracked names (None: unknown), whom, its object store and hash size (None: unknown).
_Tracked = tuple[str, list[bytes] | None, str, tuple[Path, int] | None]


def _tracked_here_and_below(d: Path, home: Path, elsewhere: bool) -> list[_Tracked]:
    """What the repository git uses in ``d`` tracks, and every submodule git may enter from it
    (``config.submodule_repos``): (work tree, names, whom, object store); nothing outside a
    repository."""
    from ..git import config, index

    found = None if elsewhere else index.tracked(d, TRACKED_BOUND)
    if found is None and not elsewhere:
        return []   # no repository: git prints nothing
    if found is None or found[1] is None:
        return [(str(found[0]) if found is not None else str(d), None, "the repository", None)]
    try:
        repo = config.discover(d)
        subs = config.submodule_repos(repo, home) if repo is not None else []
    except config.ConfigError:
        return [(str(found[0]), found[1], "the repository", None),
                (str(found[0]), None, "a submodule", None)]
    out: list[_Tracked] = [(str(found[0]), found[1], "the repository", _store(repo))]
    for sub in subs:
        size = index.hash_size(sub)
        names = None if size is None else index.names(sub.gitdir, size, TRACKED_BOUND)
        top = str(sub.worktree or sub.gitdir)
        out.append((top, names, f"the submodule at {top}", _store(sub)))
    return out


def _store(repo: object) -> tuple[Path, int] | None:
    """A repository's object directory and hash size; None when its config is not read."""
    from ..git import config, index

    if not isinstance(repo, config.Repo) or (size := index.hash_size(repo)) is None:
        return None
    return repo.commondir / "objects", size


TRACKED_BOUND = 100_000   # index entries read (~0.6 us each); a bigger index counts as unread
