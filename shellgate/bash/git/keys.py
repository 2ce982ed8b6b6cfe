"""git configuration keys whose value runs a program, and the ones reviewed as harmless.

Two tables, both checked against the installed git's own documentation by
``tests/test_gitkeys_doc.py``: every variable ``git help config`` documents with a description
that mentions a program, command, shell, helper, executable, hook or script is either in
:data:`PROGRAM_KEYS` (with what it runs and which git forms run it) or in
:data:`REVIEWED_KEYS` (with why it runs nothing), so a git release that documents a new such
key fails that test until someone classifies it. ``tests/test_gitkeys_oracle.py`` sets each
program key to a program that touches a canary file and runs git's read forms for real: a form
that runs the program must never be called read-only.

``runs`` says which forms run a key's program, in shellgate's terms:

* ``READ`` — git's read forms (status, log, diff, show, grep, blame …, ``commands/git.py``),
  with no option asking for it: such a key makes every read form not read-only;
* ``NETWORK`` — fetch, pull, push, clone, ls-remote, submodule update, and a lazy fetch: in
  the repository's own configuration such a key (or a READ one: pull merges and checks out)
  means a network form must not get the network silently (``gitconfig.network_problems``);
* ``OTHER`` — only forms that are never read-only anyway (commit, merge, rebase, send-email,
  help, gui …): listed so that the table is complete and the reason is known.

``when`` names the values that run something (``WHEN``): ``core.fsmonitor = false`` does not,
``pretty.<name>`` does only when the format shows signatures (``%G…``, ``%+G?``: gpg; read by
:func:`shows_signatures`); a boolean is read as git reads it (:func:`git_bool`).

To add a key: one ``GitKey`` line here (a pattern is ``section.key`` or
``section.<subsection-glob>.key``, lower-case, ``*`` for a placeholder); a key that runs
nothing goes in ``REVIEWED_KEYS`` with the reason.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Mapping
from enum import StrEnum
from functools import lru_cache

from ..._record import record


class Runs(StrEnum):
    READ = "read"        # git's read forms run it unasked
    NETWORK = "network"  # fetch/pull/push/clone/ls-remote/submodule update (and lazy fetches)
    OTHER = "other"      # only forms that are never read-only


def _value(v: str | None) -> str:
    return (v or "").strip().lower()


# git_parse_signed reads an int as strtoimax(value, &end, 0) does (blanks, a sign, 0x hex, 0 octal)
# and accepts a unit after it: k, m or g, in either case.
_INT = re.compile(r"[ \t\n\v\f\r]*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)(.*)", re.S)
_UNIT = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
_INT_MAX = (1 << 31) - 1


def git_bool(v: str | None) -> bool | None:
    """The boolean git reads from a configuration value (``git_parse_maybe_bool``): a bare key is
    true, an empty value false, true/yes/on and false/no/off in any case, else an int that
    ``git_parse_int`` accepts — ``2``, ``-1``, ``0x10``, ``1k`` are true, ``0`` and ``-0`` false.
    None: git rejects the value (``git config --bool`` dies; ``" yes "`` quoted, ``08``, ``1 ``).
    Checked against ``git config --bool`` by ``tests/test_readonly_gitconfig.py``."""
    if v is None:
        return True
    if not v:
        return False
    if v.lower() in ("true", "yes", "on"):
        return True
    if v.lower() in ("false", "no", "off"):
        return False
    m = _INT.fullmatch(v)
    factor = _UNIT.get(m.group(3).lower()) if m else None
    if m is None or factor is None:
        return None
    n = int(m.group(2), 16 if m.group(2)[1:2] in ("x", "X") else 8 if m.group(2)[:1] == "0" else 10)
    if n * factor > _INT_MAX:   # git checks the magnitude against INT_MAX: -2147483648 is refused
        return None
    return n != 0


def _runs_if_true(v: str | None) -> bool:
    """A boolean key: true as git reads it, or a value git rejects (git dies on it, but maybe
    only after other work, a lazy fetch say, has run: fail closed)."""
    return git_bool(v) is not False


def shows_signatures(fmt: str) -> bool:
    """Whether a pretty format (``--format``, ``format.pretty``, ``pretty.<name>``) has a
    placeholder that verifies signatures (runs gpg.program). git expands ``%%`` to a percent
    sign; any other ``%`` starts a placeholder, after at most one of the modifiers ``+``, ``-``
    and a blank; and every placeholder starting with ``G`` (``%G?``, ``%GS``, ``%GK``, ``%GF``,
    ``%GP``, ``%GT``, ``%GG``, and an unknown ``%Gx`` too) checks the commit's signature before
    it looks at the next letter (``format_commit_one``). A column spec ``%<(…)`` is a
    placeholder of its own, so the one after it is read the same way. ``%(signature`` counts
    too (newer gits' ref formats)."""
    i = 0
    while (i := fmt.find("%", i)) >= 0:
        if fmt.startswith("%%", i):
            i += 2
            continue
        j = i + 1 + (fmt[i + 1:i + 2] in ("+", "-", " "))
        if fmt.startswith("G", j) or fmt.startswith("(signature", j):
            return True
        i += 1
    return False


# Which values of a key run something. ``sub`` is the entry's subsection (None without one).
WHEN: dict[str, Callable[[str | None, str | None], bool]] = {
    "set": lambda v, sub: True,                                   # any value, even empty
    "not_false": lambda v, sub: _runs_if_true(v),                 # a program, or a boolean
    "valued_not_false": lambda v, sub: v is not None and _runs_if_true(v),
    "true": lambda v, sub: _runs_if_true(v),
    "signing": lambda v, sub: _runs_if_true(v),                   # true / if-asked
    "signature_format": lambda v, sub: shows_signatures(v or ""),
    "shell_alias": lambda v, sub: _value(v).startswith("!"),
    "bang": lambda v, sub: _value(v).startswith("!"),
    "absolute": lambda v, sub: _value(v).startswith("/"),
    "helper_url": lambda v, sub: "::" in _value(v) or _value(v).startswith(("ext:", "fd:")),
    "helper_base": lambda v, sub: "::" in (sub or "").lower(),
    "ext_allowed": lambda v, sub: (sub or "").lower() == "ext" and _value(v) != "never",
    "always": lambda v, sub: _value(v) == "always",
}


@record
class GitKey:
    name: str                  # section.key or section.<subsection glob>.key, as documented
    why: str                   # what the value is, in the user's prompt
    runs: frozenset[Runs]
    used_by: str               # which git forms run it (for the reader)
    when: str = "set"          # a name in WHEN


def _k(name: str, why: str, runs: str, used_by: str, when: str = "set") -> GitKey:
    return GitKey(name, why, frozenset(Runs(r) for r in runs.split()), used_by, when)


R, N, X = "read", "network", "other"

PROGRAM_KEYS: tuple[GitKey, ...] = (
    # --- read forms run these unasked -----------------------------------------------------------
    _k("core.fsmonitor", "runs a file-system monitor program", f"{R} {N}",
       "status, diff, add, commit … (every index refresh)", "valued_not_false"),
    _k("core.pager", "names a pager program (run by the shell)", R, "log, show, diff, grep, blame …"),
    _k("pager.*", "runs a pager for that subcommand", R, "the subcommand it names", "not_false"),
    _k("diff.external", "runs an external diff program", R, "diff, log -p, show, stash show"),
    _k("diff.*.command", "runs a custom diff driver program", R, "diff, show, log -p (files whose "
       "attributes name the driver)"),
    _k("diff.*.textconv", "runs a text-conversion program on diffs", R,
       "diff, log -p, show, blame, grep (files whose attributes name the driver)"),
    _k("filter.*.clean", "runs a clean filter program on work-tree files", f"{R} {N}",
       "status, diff (a changed file is filtered to compare it), add, commit"),
    _k("filter.*.smudge", "runs a smudge filter program on checkout", f"{R} {N}",
       "checkout, pull, clone, status (racy entries)"),
    _k("filter.*.process", "runs a long-running filter program", f"{R} {N}",
       "as clean and smudge"),
    _k("core.alternateRefsCommand", "runs a program to list an alternate's refs", f"{R} {N}",
       "log --alternate-refs, fetch, receive-pack"),
    _k("log.showSignature", "shows signatures on every commit (runs gpg.program)", R, "log, show",
       "true"),
    _k("format.pretty", "is a default format that shows signatures (runs gpg.program)", R,
       "log, show, whatchanged", "signature_format"),
    _k("pretty.*", "is a format that shows signatures (runs gpg.program)", R,
       "log/show --pretty=<name>, format.pretty", "signature_format"),
    _k("extensions.partialClone", "names a promisor remote: read forms fetch missing objects from "
       "it (its transport, core.sshCommand, remote.*.uploadpack run)", f"{R} {N}",
       "any form that needs an object the partial clone lacks (show, diff, log -p, blame …)"),
    _k("remote.*.promisor", "makes the remote a promisor: read forms fetch missing objects from it",
       f"{R} {N}", "as extensions.partialClone", "true"),
    _k("remote.*.partialCloneFilter", "makes the remote a promisor as remote.*.promisor does (git "
       "2.39 registers a promisor remote for it): read forms fetch missing objects from it",
       f"{R} {N}", "as extensions.partialClone"),
    _k("trace2.normalTarget", "writes trace output (a file or socket) on every git command", R,
       "every git command"),
    _k("trace2.perfTarget", "writes trace output (a file or socket) on every git command", R,
       "every git command"),
    _k("trace2.eventTarget", "writes trace output (a file or socket) on every git command", R,
       "every git command"),
    # --- network forms ------------------------------------------------------------------------------
    _k("core.sshCommand", "runs a command instead of ssh", N, "fetch, pull, push, clone, ls-remote "
       "(ssh transports), lazy fetches"),
    _k("core.gitProxy", "runs a proxy command for git:// connections", N, "fetch, pull, push, clone, "
       "ls-remote over git://"),
    _k("core.askPass", "runs a program to ask for passwords", N, "fetch, pull, push, clone (http "
       "authentication)"),
    _k("credential.helper", "runs a credential helper program", N, "fetch, pull, push, clone, "
       "ls-remote (authentication)", "valued_not_false"),
    _k("credential.*.helper", "runs a credential helper program for that URL", N,
       "as credential.helper", "valued_not_false"),
    _k("remote.*.uploadpack", "runs a program (or a remote shell command) when fetching", N,
       "fetch, pull, ls-remote, lazy fetches (local and ssh transports)"),
    _k("remote.*.receivepack", "runs a program (or a remote shell command) when pushing", N, "push"),
    _k("remote.*.vcs", "runs the git-remote-<vcs> helper program", N, "fetch, pull, push, ls-remote"),
    _k("remote.*.url", "is a remote-helper URL (ext:: runs a shell command, <vcs>:: a helper)", N,
       "fetch, pull, push, ls-remote", "helper_url"),
    _k("remote.*.pushurl", "is a remote-helper URL (ext:: runs a shell command)", N, "push",
       "helper_url"),
    _k("url.*.insteadOf", "rewrites URLs into a remote-helper URL (ext:: runs a shell command)", N,
       "fetch, pull, push, clone, ls-remote, submodule update", "helper_base"),
    _k("url.*.pushInsteadOf", "rewrites push URLs into a remote-helper URL (ext:: runs a shell "
       "command)", N, "push", "helper_base"),
    _k("protocol.*.allow", "allows ext:: URLs, which run a shell command", N,
       "fetch, pull, push, clone, ls-remote, submodule update", "ext_allowed"),
    _k("protocol.allow", "allows every protocol, ext:: (a shell command) included", N,
       "fetch, pull, push, clone, ls-remote, submodule update", "always"),
    _k("submodule.*.url", "is a remote-helper URL (ext:: runs a shell command)", N,
       "submodule update, clone --recurse-submodules", "helper_url"),
    _k("submodule.*.update", "runs a shell command (!command) to update the submodule", N,
       "submodule update", "bang"),
    _k("uploadpack.packObjectsHook", "runs a command instead of pack-objects when serving a fetch", N,
       "upload-pack (this repository serving a clone or fetch; protected config only)"),
    _k("push.gpgSign", "signs pushes (runs gpg.program)", N, "push", "signing"),
    _k("merge.verifySignatures", "verifies signatures before merging (runs gpg.program)", f"{N} {X}",
       "pull, merge", "true"),
    _k("gpg.program", "runs a signing/verification program", f"{N} {X}",
       "commit -S, tag -s/-v, verify-commit, push --signed, pull --verify-signatures, and read "
       "forms only when showing signatures (--show-signature, %G…: refused, or the keys above)"),
    _k("gpg.*.program", "runs a signing/verification program for that format", f"{N} {X}",
       "as gpg.program"),
    _k("init.templateDir", "copies hooks into new repositories (clone then runs post-checkout)", N,
       "clone, init"),
    _k("core.hooksPath", "names the hooks directory (hooks there run on commit, merge, push …)",
       f"{N} {X}", "commit, merge, checkout, push, pull, rebase, am … (post-index-change on status: "
       "checked on its own)"),
    # --- only forms that are never read-only ----------------------------------------------------
    _k("core.editor", "names an editor program (run by the shell)", f"{N} {X}",
       "commit, tag -a, merge, pull (merge commit), rebase -i, notes, config -e"),
    _k("sequence.editor", "names an editor program for rebase todo lists", f"{N} {X}",
       "rebase -i, pull --rebase=interactive"),
    _k("merge.*.driver", "runs a custom merge driver program", f"{N} {X}", "merge, pull, rebase, "
       "cherry-pick, stash pop (files whose attributes name the driver)"),
    _k("mergetool.*.cmd", "runs a merge tool command", X, "mergetool"),
    _k("mergetool.*.path", "names a merge tool program", X, "mergetool"),
    _k("difftool.*.cmd", "runs a diff tool command", X, "difftool"),
    _k("difftool.*.path", "names a diff tool program", X, "difftool"),
    _k("commit.gpgSign", "signs commits (runs gpg.program)", f"{N} {X}", "commit, merge, pull, rebase",
       "true"),
    _k("tag.gpgSign", "signs tags (runs gpg.program)", X, "tag", "true"),
    _k("tag.forceSignAnnotated", "signs annotated tags (runs gpg.program)", X, "tag -a", "true"),
    _k("gpg.ssh.defaultKeyCommand", "runs a command to pick the ssh signing key", f"{N} {X}",
       "commit -S, tag -s, push --signed"),
    _k("interactive.diffFilter", "runs a filter program on interactive diffs", X,
       "add -p, checkout -p, reset -p, stash -p"),
    _k("alias.*", "runs a shell command (an alias starting with !)", X,
       "the alias's own name (read forms: an alias named like one, checked on its own)",
       "shell_alias"),
    _k("browser.*.cmd", "runs a browser command", X, "help -w, instaweb, web--browse"),
    _k("browser.*.path", "names a browser program", X, "help -w, instaweb, web--browse"),
    _k("web.browser", "names a browser program", X, "help -w, instaweb"),
    _k("help.browser", "names a browser program", X, "help -w"),
    _k("man.viewer", "names man viewer programs", X, "help"),
    _k("man.*.cmd", "runs a man viewer command", X, "help"),
    _k("man.*.path", "names a man viewer program", X, "help"),
    _k("guitool.*.cmd", "runs a shell command from git gui's Tools menu", X, "gui, citool"),
    _k("instaweb.httpd", "runs an HTTP daemon command", X, "instaweb"),
    _k("instaweb.browser", "names a browser program", X, "instaweb"),
    _k("imap.tunnel", "runs a command to tunnel to the IMAP server", X, "imap-send"),
    _k("sendemail.smtpServer", "an absolute path is a sendmail-like program", X, "send-email",
       "absolute"),
    _k("sendemail.*.smtpServer", "an absolute path is a sendmail-like program", X, "send-email",
       "absolute"),
    _k("sendemail.sendmailCmd", "runs a sendmail command", X, "send-email"),
    _k("sendemail.*.sendmailCmd", "runs a sendmail command", X, "send-email"),
    _k("sendemail.tocmd", "runs a command that prints recipients", X, "send-email"),
    _k("sendemail.*.tocmd", "runs a command that prints recipients", X, "send-email"),
    _k("sendemail.ccCmd", "runs a command that prints recipients", X, "send-email"),
    _k("sendemail.*.ccCmd", "runs a command that prints recipients", X, "send-email"),
    _k("sendemail.headerCmd", "runs a command that prints headers", X, "send-email"),
    _k("sendemail.*.headerCmd", "runs a command that prints headers", X, "send-email"),
)

_COMMAND_LINE = "'command' here means git's own commands or the command line"
_GIT_ONLY = "runs git itself (its configuration is this one)"

# Keys whose documentation mentions a program, command, shell, helper, executable, hook or
# script, reviewed: none of them names a program git runs. Names lower-case, placeholders `*`.
REVIEWED_KEYS: dict[str, str] = {
    "advice.*": "switches for hint messages",
    "core.filemode": "whether the executable bit is honoured",
    "core.fsmonitorhookversion": "the protocol version of the core.fsmonitor hook (listed above)",
    "core.quotepath": _COMMAND_LINE,
    "core.safecrlf": _COMMAND_LINE,
    "core.prefersymlinkrefs": "a ref format (old scripts expect it)",
    "core.bare": "a boolean",
    "core.worktree": "a directory (read forms look there; drivers still come from this configuration)",
    "core.bigfilethreshold": "a size",
    "core.commentchar": "a character",
    "core.fsync": "a list of durability components",
    "core.usereplacerefs": "a boolean",
    "am.keepcr": _COMMAND_LINE,
    "am.threeway": _COMMAND_LINE,
    "blame.ignorerevsfile": "a file of revisions (data)",
    "checkout.defaultremote": "a remote name",
    "checkout.workers": "a number of worker processes of git itself",
    "clone.defaultremotename": "a remote name",
    "clone.rejectshallow": "a boolean",
    "color.diff": _COMMAND_LINE,
    "color.interactive.*": "a colour",
    "color.ui": _COMMAND_LINE,
    "column.ui": "layout tokens",
    "credential.protectprotocol": "a boolean for what is sent to a credential helper (listed above)",
    "completion.commands": "names for bash completion",
    "diff.autorefreshindex": "a boolean",
    "diff.dirstat": _COMMAND_LINE,
    "diff.statgraphwidth": "a width",
    "diff.interhunkcontext": "a number",
    "diff.ignoresubmodules": _COMMAND_LINE,
    "diff.renames": _COMMAND_LINE,
    "diff.wserrorhighlight": _COMMAND_LINE,
    "feature.manyfiles": "switches other keys (none of them a program)",
    "fetch.prune": _COMMAND_LINE,
    "fetch.showforcedupdates": _COMMAND_LINE,
    "fetch.writecommitgraph": _GIT_ONLY,
    "format.filenamemaxlength": "a length",
    "fsmonitor.socketdir": "a directory for the built-in daemon's socket",
    "gc.auto": "git gc --auto " + _GIT_ONLY + "; the pre-auto-gc hook lives in the hooks directory",
    "guitool.*.noconsole": "a boolean (the command is guitool.*.cmd)",
    "guitool.*.prompt": "a text (the command is guitool.*.cmd)",
    "help.autocorrect": "runs a corrected git subcommand (git itself)",
    "http.noepsv": "an FTP protocol switch",
    "http.*.*": "per-URL copies of the http.* keys: URLs, files and switches, none a program "
                "(http.proxy is a URL, not a program)",
    "imap.authmethod": "a method name",
    "interactive.singlekey": "a boolean",
    "log.date": _COMMAND_LINE,
    "log.decorate": _COMMAND_LINE,
    "log.excludedecoration": _COMMAND_LINE,
    "mailinfo.scissors": _COMMAND_LINE,
    "maintenance.auto": "git maintenance run --auto " + _GIT_ONLY,
    "maintenance.strategy": "a schedule",
    "maintenance.*.schedule": "a frequency",
    "maintenance.commit-graph.auto": "a threshold",
    "maintenance.loose-objects.auto": "a threshold",
    "maintenance.incremental-repack.auto": "a threshold",
    "merge.ff": _COMMAND_LINE,
    "mergetool.*.trustexitcode": "a boolean (the command is mergetool.*.cmd)",
    "mergetool.prompt": "a boolean",
    "notes.displayref": "a ref",
    "notes.rewrite.*": "a boolean",
    "notes.rewritemode": "a mode",
    "notes.rewriteref": "a ref",
    "pack.window": _COMMAND_LINE,
    "pack.depth": _COMMAND_LINE,
    "pack.windowmemory": _COMMAND_LINE,
    "pull.ff": _COMMAND_LINE,
    "push.default": _COMMAND_LINE,
    "push.pushoption": "strings sent to the server",
    "push.useforceifincludes": _COMMAND_LINE,
    "rebase.missingcommitscheck": "a level",
    "rebase.abbreviatecommands": "a boolean",
    "rebase.reschedulefailedexec": "a boolean (exec lines come from the command line)",
    "receive.certnonceslop": "seconds (hooks live in the hooks directory)",
    "receive.denycurrentbranch": "a policy (push-to-checkout is a hook in the hooks directory)",
    "receive.procreceiverefs": "ref prefixes (proc-receive is a hook in the hooks directory)",
    "remote.*.mirror": _COMMAND_LINE,
    "remote.*.prune": _COMMAND_LINE,
    "repack.cruftwindow": _COMMAND_LINE,
    "repack.cruftwindowmemory": _COMMAND_LINE,
    "repack.cruftdepth": _COMMAND_LINE,
    "repack.cruftthreads": _COMMAND_LINE,
    "safe.barerepository": "a policy",
    "safe.directory": "directories git trusts",
    "sendemail.*.*": "an identity's copies of the sendemail keys (the program ones are listed above)",
    "sendemail.aliasfiletype": "a file format name",
    "sendemail.annotate": _COMMAND_LINE, "sendemail.bcc": "addresses", "sendemail.cc": "addresses",
    "sendemail.chainreplyto": "a boolean", "sendemail.envelopesender": "an address",
    "sendemail.from": "an address", "sendemail.signedoffbycc": "a boolean",
    "sendemail.smtppass": "a password (data)", "sendemail.suppresscc": "a list",
    "sendemail.suppressfrom": "a boolean", "sendemail.to": "addresses",
    "sendemail.smtpdomain": "a domain", "sendemail.smtpserverport": "a port",
    "sendemail.smtpserveroption": "options", "sendemail.smtpuser": "a user name",
    "sendemail.thread": "a boolean", "sendemail.transferencoding": "an encoding",
    "sendemail.validate": "a boolean (sendemail-validate is a hook in the hooks directory)",
    "sendemail.xmailer": "a boolean",
    "ssh.variant": "how to speak to the ssh command (the command is core.sshCommand)",
    "status.showuntrackedfiles": "a mode",
    "status.submodulesummary": "git submodule summary " + _GIT_ONLY + " (submodule configs are "
                               "checked too)",
    "stash.showincludeuntracked": "a boolean", "stash.showpatch": "a boolean",
    "stash.showstat": "a boolean",
    "submodule.*.fetchrecursesubmodules": _COMMAND_LINE,
    "submodule.*.ignore": _COMMAND_LINE, "submodule.*.active": "a boolean",
    "submodule.active": "pathspecs", "submodule.recurse": "a boolean (submodule configs are checked)",
    "submodule.propagatebranches": "a boolean",
    "transfer.credentialsinurl": "a policy", "transfer.hiderefs": "ref patterns",
    "uploadpack.allowrefinwant": "a boolean",
}

_DOT = "."


def _split(pattern: str) -> tuple[str, str | None, str]:
    parts = pattern.lower().split(_DOT)
    if len(parts) == 2:
        return parts[0], None, parts[1]
    return parts[0], _DOT.join(parts[1:-1]), parts[-1]


@lru_cache(maxsize=1)
def _index() -> dict[str, tuple[tuple[GitKey, str | None, str], ...]]:
    """PROGRAM_KEYS by section: (key, subsection glob or None, key glob)."""
    out: dict[str, list[tuple[GitKey, str | None, str]]] = {}
    for k in PROGRAM_KEYS:
        section, sub, key = _split(k.name)
        out.setdefault(section, []).append((k, sub, key))
    return {s: tuple(v) for s, v in out.items()}


def program_key(section: str, subsection: str | None, key: str, value: str | None) -> GitKey | None:
    """The table entry a configuration entry (lower-case ``section`` and ``key``) matches with
    a value that runs something, or None."""
    for k, sub, kglob in _index().get(section, ()):
        if (sub is None) != (subsection is None):
            continue
        if sub is not None and sub != "*" and not fnmatch.fnmatchcase((subsection or "").lower(), sub):
            continue
        if kglob != "*" and kglob != key:
            continue
        if WHEN[k.when](value, subsection):
            return k
    return None


# The git subcommands that talk to the network: never read-only, and given the network only when
# the repository's own configuration runs no program (``gitconfig.network_problems``).
NETWORK_SUBCOMMANDS = frozenset({"fetch", "pull", "push", "clone", "ls-remote"})

# Keys that only matter when git may fetch missing objects (``--no-lazy-fetch`` turns that off).
LAZY_FETCH = frozenset({"extensions.partialClone", "remote.*.promisor", "remote.*.partialCloneFilter"})
# Keys that only matter when git starts a pager: never when its stdout is not a terminal
# (``git_pager`` returns no pager unless ``isatty(1)``) or with ``--no-pager``/``-P``.
PAGER = frozenset({"core.pager", "pager.*"})


# -- the environment ---------------------------------------------------------------------------
# git reads its environment, which it shares with the gate. A ``GIT_*`` variable not listed here
# makes git's read forms not read-only: it may name another repository or index (GIT_DIR,
# GIT_COMMON_DIR, GIT_INDEX_FILE, GIT_OBJECT_DIRECTORY …), add configuration
# (GIT_CONFIG_PARAMETERS, GIT_CONFIG_COUNT), run a program (GIT_EXTERNAL_DIFF, GIT_EXEC_PATH,
# GIT_TEST_FSMONITOR …) or write a file (GIT_TRACE*), none of which the checks model: fail closed.
_NETWORK_ONLY = ("used only when git talks to a remote: network forms, and lazy fetches, which "
                 "a promisor remote's configuration already refuses")
HARMLESS_ENV: dict[str, str] = {
    **dict.fromkeys(("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "GIT_COMMITTER_NAME",
                     "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE"), "an identity"),
    **dict.fromkeys(("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM"),
                    "read by the checks, as git reads it"),
    **dict.fromkeys(("GIT_CEILING_DIRECTORIES", "GIT_DISCOVERY_ACROSS_FILESYSTEM"),
                    "only stops git's discovery earlier: the checks look further up"),
    **dict.fromkeys(("GIT_LITERAL_PATHSPECS", "GIT_GLOB_PATHSPECS", "GIT_NOGLOB_PATHSPECS",
                     "GIT_ICASE_PATHSPECS"), "how pathspecs match"),
    **dict.fromkeys(("GIT_EDITOR", "GIT_SEQUENCE_EDITOR"), "the read forms start no editor"),
    **dict.fromkeys(("GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT", "GIT_ASKPASS",
                     "GIT_PROXY_COMMAND", "GIT_ALLOW_PROTOCOL", "GIT_PROTOCOL_FROM_USER",
                     "GIT_TERMINAL_PROMPT"), _NETWORK_ONLY),
    "GIT_CONFIG": "read by `git config` alone (credential_source counts it as unknown configuration)",
    "GIT_OPTIONAL_LOCKS": "a switch", "GIT_FLUSH": "a switch", "GIT_MERGE_VERBOSITY": "a level",
    "GIT_REFLOG_ACTION": "a reflog message", "GIT_PAGER_IN_USE": "set by git for its pager",
    "GIT_DEFAULT_HASH": "used by init and clone alone", "GIT_TEMPLATE_DIR": "used by init and clone alone",
    "GIT_NO_REPLACE_OBJECTS": "turns replacement objects off", "GIT_PROGRESS_DELAY": "a delay",
}
HARMLESS_ENV_PREFIXES: dict[str, str] = {"GIT_SSL_": _NETWORK_ONLY, "GIT_HTTP_": _NETWORK_ONLY}
# The pager git starts (before core.pager, and PAGER after it): a program, only where git may
# start a pager (as PAGER keys).
PAGER_ENV = ("GIT_PAGER", "PAGER")
# Variables that make git use another repository, index, object store or more configuration
# than the files the checks read: what git prints or runs is not what the checks saw.
ELSEWHERE_ENV = ("GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE",
                 "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_NAMESPACE",
                 "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT")


def unmodelled_env(env: Mapping[str, str], pager: bool) -> list[str]:
    """The variables of ``env`` that make git's read forms do what the checks do not see: every
    ``GIT_*`` variable not reviewed above, and ``GIT_PAGER``/``PAGER`` naming a program where
    git may start a pager."""
    out = [name for name in env if name.startswith("GIT_") and name not in HARMLESS_ENV
           and name not in PAGER_ENV and not name.startswith(tuple(HARMLESS_ENV_PREFIXES))]
    # git_pager runs no pager for an empty value or `cat`, and `less` is what it runs anyway
    return sorted(out) + [name for name in PAGER_ENV
                          if pager and env.get(name, "").strip() not in ("", "cat", "less")]


def shown(k: GitKey, subsection: str | None, key: str) -> str:
    """The name of the configuration entry ``k`` matched, spelled as documented
    (``remote.origin.uploadpack``, ``core.sshCommand``)."""
    parts = k.name.split(_DOT)
    last = key if parts[-1] == "*" else parts[-1]
    return _DOT.join(p for p in (parts[0], subsection, last) if p is not None)


def classified(doc_name: str) -> str | None:
    """How the tables classify a documented variable (placeholders as ``*``; case folded):
    ``"program"``, ``"reviewed"``, or None when it is in neither table."""
    name = doc_name.lower()
    if any(k.name.lower() == name for k in PROGRAM_KEYS):
        return "program"
    if name in REVIEWED_KEYS:
        return "reviewed"
    return None
