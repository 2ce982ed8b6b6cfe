"""Which programs a read-only command may execute, as the oracle's ``exec`` effect sees it.

The truth is the read-only classifier's own tables: a program it would auto-allow may run.
When those tables cannot be read (an older tree, an import error) a small fallback list keeps
the oracle usable; it errs towards flagging.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable

# Used only when the classifier's tables are unavailable.
_FALLBACK = frozenset((
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "sort", "uniq", "cut", "tr",
    "find", "stat", "file", "echo", "printf", "pwd", "date", "whoami", "id", "uname", "basename",
    "dirname", "realpath", "readlink", "which", "true", "false", "test", "[", "diff", "cmp", "comm",
    "nl", "od", "hexdump", "md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum", "sed", "awk",
    "gawk", "mawk", "jq", "tree", "column", "fold", "fmt", "paste", "join", "expand", "unexpand",
    "tac", "rev", "seq", "xxd", "strings", "du", "df", "git", "less", "more", "env", "nice",
    "timeout", "nohup", "xargs", "bash", "sh", "dash", "time", "tee", "hostname", "groups",
    "locale", "getconf", "printenv", "sleep",
))


# Wrappers the classifier has checks for that must never count as read-only execution.
_PRIVILEGED = frozenset(("sudo", "doas", "su", "pkexec", "runuser", "chroot"))


@functools.cache
def readonly_programs() -> frozenset[str]:
    """Program names the read-only classifier has a table for (network clients, but for their
    offline forms, and privilege wrappers excluded), plus the commands it checks by code (git,
    tar, find, wrappers)."""
    try:
        from ..bash.commands import registry
        from ..bash.commands.network import OFFLINE_FORMS
        from ..bash.commands.spec import Command
        from ..bash.facts import Effect
    except Exception:  # an older or broken tree: the oracle still works, on the fallback
        return _FALLBACK
    names = set(OFFLINE_FORMS)   # `wget --help`: a network client's offline form
    for name, entry in registry.TABLE.items():
        if name in _PRIVILEGED:
            continue
        # Network clients are never read-only. File operations (cp, tee, …) are listed: when the
        # classifier lets one through, what it writes shows up as a write of its own.
        if not isinstance(entry, Command) or entry.effect is Effect.READ:
            names.add(name)
    return frozenset(names) if names else _FALLBACK


# Programs a read-only program runs as part of its own job (not a command the user chose):
# tar's decompressors, man's formatting pipeline. Keyed by the runner's basename.
_COMPRESSORS = frozenset(("gzip", "bzip2", "xz", "lzip", "lzma", "lzop", "zstd", "unxz", "gunzip",
                          "bunzip2", "unzstd", "compress", "uncompress"))
HELPERS: dict[str, frozenset[str]] = {
    "tar": _COMPRESSORS | {"sh"},   # tar runs its compressor through /bin/sh -c
    "man": frozenset(("groff", "nroff", "troff", "grotty", "preconv", "tbl", "eqn", "pic", "col",
                      "zsoelim", "manconv", "less", "more", "cat", "pager", "iconv", "locale",
                      "man-recode")) | _COMPRESSORS,
    "groff": frozenset(("troff", "grotty", "preconv", "tbl", "eqn", "pic", "soelim")),
    "nroff": frozenset(("groff", "troff", "grotty", "locale", "preconv", "tbl")),
    "locale": _COMPRESSORS,   # `locale -m` reads gzipped charmaps
    "zcat": _COMPRESSORS, "zless": _COMPRESSORS | {"less"}, "zgrep": _COMPRESSORS | {"grep", "expr", "sed"},
    # zegrep/zfgrep are `exec zgrep -E/-F`; zgrep's script runs gzip, grep, expr and sed
    **dict.fromkeys(("zegrep", "zfgrep"), _COMPRESSORS | {"zgrep", "grep", "expr", "sed"}),
    # xz-utils' xzgrep (lzgrep is Debian's alternative for it) picks a decompressor by suffix;
    # bzgrep runs bzip2, sed and grep (egrep after -e, which execs grep); zstdgrep zstdcat
    **dict.fromkeys(("xzgrep", "xzegrep", "xzfgrep", "lzgrep", "lzegrep", "lzfgrep"),
                    _COMPRESSORS | {"grep", "expr", "sed"}),
    **dict.fromkeys(("bzgrep", "bzegrep", "bzfgrep"), frozenset(("bzip2", "sed", "grep", "egrep", "fgrep"))),
    "zstdgrep": frozenset(("zstdcat", "zstd", "grep")),
    "dpkg": frozenset(("dpkg-query",)),   # dpkg -l/-L/-S/-s/-p exec dpkg-query
}


# Programs that re-run their own binary from a directory of their own: git runs
# ``$(git --exec-path)/git`` for the plumbing behind some porcelain (``describe --broken`` runs
# ``diff-index``, ``rev-parse --show-superproject-working-tree`` runs ``ls-files``); Debian's
# ``/usr/bin/7z`` is a script that execs ``/usr/lib/p7zip/7z``. Only that very name counts,
# never the directory's other helpers (``git-remote-https`` is the network).
_OWN_DIRS = dict.fromkeys(("7z", "7za", "7zr"), ("/usr/lib/p7zip",))


@functools.cache
def own_dirs(runner: str) -> tuple[str, ...]:
    if runner != "git":
        return _OWN_DIRS.get(runner, ())
    import subprocess

    try:
        out = subprocess.run(["git", "--exec-path"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return ()
    return (out.stdout.strip(),) if out.returncode == 0 and out.stdout.strip() else ()


def self_exec(runner: str, path: str) -> bool:
    """Whether ``runner`` executing ``path`` is it running its own binary again."""
    import os

    return os.path.basename(path) == runner and os.path.dirname(path) in own_dirs(runner)


def exec_allowed(basename: str) -> bool:
    return basename in readonly_programs()


def helper_allowed(runner: str, basename: str) -> bool:
    """Whether ``runner`` (a basename) running ``basename`` is part of its own job. A helper
    keeps its runner's identity, so ``tar`` -> ``sh`` -> ``gzip`` is judged as tar's."""
    return basename in HELPERS.get(runner, ())


def known(names: Iterable[str]) -> list[str]:
    """``names`` that are on the read-only list, in order."""
    ro = readonly_programs()
    return [n for n in names if n in ro]
