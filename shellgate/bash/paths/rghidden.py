"""Whether ripgrep's walk reads hidden entries: the rules behind ``CmdPaths.visible``.

rg skips every entry below a directory operand whose name starts with ``.`` (``.env``,
``.venv/``, ``.git/``), files and directories alike, and reads its ``.gitignore``, ``.ignore``
and ``.rgignore`` files as rules only (their text is never searched). A hidden entry is read
as soon as something includes it, and then the walk is the one ``grep -r`` gets:

- a flag: ``--hidden``/``-.`` (unless a later ``--no-hidden``), ``-u`` twice (``-uu``,
  ``--unrestricted --unrestricted``);
- any glob or type option (``-g '*'``, ``--iglob .ENV``, ``-t e --type-add e:.env``): rg
  matches overrides and types before its hidden test, and a match whitelists (taken whole:
  ``-g '!x'`` or ``-T py`` count too);
- a whitelist line (``!.env``) of an ignore file rg reads: those of each walked directory and
  of every directory above the operand up to ``/``, a repository's ``.git/info/exclude`` (a
  worktree's through its ``commondir``), git's global excludes file (``core.excludesFile`` of
  ``~/.gitconfig`` or ``$XDG_CONFIG_HOME/git/config``, else ``…/git/ignore``) and each
  ``--ignore-file``;
- a config file rg reads from ``RIPGREP_CONFIG_PATH`` (it may hold any flag).

``--no-ignore*`` flags only stop rules from being read (measured: none adds a hidden entry),
so they change nothing here. Fail closed: an ignore file that cannot be read exactly (not a
regular file, unreadable, too large, too many of them) counts as a whitelist.
tests/test_rg_hidden.py plants each case and runs rg for real.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable, Mapping

from ..._plain import read_head
from ..facts import Context

IGNORE_NAMES = frozenset({".gitignore", ".ignore", ".rgignore"})

# Options that include hidden entries by themselves, and the glob and type options (any of
# them: a whitelisting match beats the hidden test, and telling which do is not worth it).
_GLOBS_TYPES = frozenset({"-g", "--glob", "--iglob", "--glob-case-insensitive", "-t", "--type", "-T",
                          "--type-not", "--type-add", "--type-clear", "--pre-glob"})
_SHOW = frozenset({"-.", "--hidden"})
_UNRESTRICTED = frozenset({"-u", "--unrestricted"})

# A whitelist line: `!` as its first non-blank character (git itself keeps leading blanks, so
# this is the wider reading), after a byte-order mark or not.
_NEGATION = re.compile(rb"(?m)^(?:\xef\xbb\xbf)?[ \t\f\v\r]*!")
# rg's own reading of a git config (ignore 0.4's ``parse_excludes_file``, a Rust regex:
# ``(?im)^\s*excludesfile\s*=\s*(.+)\s*$``): its ``\s`` is Unicode White_Space, newlines
# included (``excludesFile`` and ``=`` may stand on different lines), ``.+`` keeps trailing
# blanks and a CR, ``(?i)`` folds Unicode (``excludeſfile``); Python's ``\s`` would also take
# \x1c-\x1f, so the class is spelled out. Measured with rg 13 (tests/test_red2_rg.py).
_WS = "[\t\n\v\f\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
_GIT_EXCLUDES = re.compile(f"(?im)^{_WS}*excludesfile{_WS}*={_WS}*(.+){_WS}*$")
MAX_FILE = 1 << 20   # an ignore file larger than this is not read (fail closed)
MAX_FILES = 512      # ignore files read for one rg command at most


class Budget:
    """The ignore files one command may still have read."""

    def __init__(self) -> None:
        self.left = MAX_FILES


def flag_reason(names: Iterable[str], loose: bool) -> str | None:
    """Why rg's options include hidden entries (the option, as read in order), or None."""
    if loose:
        return "an option not read exactly"
    shown: str | None = None
    unrestricted = 0
    for name in names:
        if name in _GLOBS_TYPES:
            return name
        if name in _SHOW:
            shown = name
        elif name == "--no-hidden":
            shown = None
        elif name in _UNRESTRICTED:
            unrestricted += 1
            if unrestricted >= 2:
                return "-uu"
    return shown


def config_reason(no_config: bool, ctx: Context, environ: Mapping[str, str] = os.environ) -> str | None:
    """``RIPGREP_CONFIG_PATH`` set (in the gate's environment or exported by the session):
    its file may hold ``--hidden`` or a glob, so hidden entries count."""
    if no_config:
        return None
    if environ.get("RIPGREP_CONFIG_PATH"):
        return "RIPGREP_CONFIG_PATH"
    state = ctx.inherited
    if state is not None and any(n == "RIPGREP_CONFIG_PATH" and v for n, v in state.variables):
        return "RIPGREP_CONFIG_PATH"
    return None


def whitelists(path: str, budget: Budget) -> bool:
    """Whether the ignore file at ``path`` may whitelist: a negation line, or a file that
    cannot be read exactly. A missing file (or a dangling link) holds no rule."""
    try:
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except (OSError, ValueError):
        return True
    if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE:
        return True
    budget.left -= 1
    if budget.left < 0:
        return True
    try:
        data = read_head(path, MAX_FILE + 1)   # replaced by a FIFO since the stat: NotPlain
    except OSError:
        return True
    return len(data) > MAX_FILE or _NEGATION.search(data) is not None


def dir_whitelists(d: str, budget: Budget) -> bool:
    """Whether an ignore file rg reads in directory ``d`` may whitelist (its three ignore
    files and, where ``d`` holds a repository, the repository's ``info/exclude``)."""
    d = d.rstrip("/") or "/"
    base = "" if d == "/" else d
    return (any(whitelists(f"{base}/{n}", budget) for n in sorted(IGNORE_NAMES))
            or git_exclude_whitelists(f"{base}/.git", budget))


def git_exclude_whitelists(dotgit: str, budget: Budget) -> bool:
    """``dotgit/info/exclude`` (a ``.git`` directory), or for a ``.git`` file (a worktree,
    a submodule) the ``info/exclude`` of the directory it names and of that one's
    ``commondir``, as rg finds them."""
    try:
        st = os.stat(dotgit)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except (OSError, ValueError):
        return True
    if stat.S_ISDIR(st.st_mode):
        return whitelists(f"{dotgit}/info/exclude", budget)
    if not stat.S_ISREG(st.st_mode) or st.st_size > 4096:
        return True
    try:
        text = read_head(dotgit, 4097).decode("utf-8", "replace")
    except OSError:
        return True
    m = re.match(r"\s*gitdir:\s*(.*?)\s*$", text)
    if m is None:
        return False   # not a link to a repository: rg reads no exclude file through it
    gitdir = os.path.join(os.path.dirname(dotgit), m.group(1))
    if whitelists(f"{gitdir}/info/exclude", budget):
        return True
    try:
        common = read_head(f"{gitdir}/commondir", 4097).decode("utf-8", "replace").strip()
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
    return whitelists(f"{os.path.join(gitdir, common)}/info/exclude", budget)


def above_whitelists(root: str, real: str, budget: Budget) -> bool:
    """Whether an ignore file of a directory above directory ``root`` (up to ``/``, along the
    path as given and as resolved) may whitelist: rg reads its parents' rules too."""
    done: set[str] = set()
    for start in (root, real):
        d = os.path.dirname(start.rstrip("/")) or "/"
        while d not in done:
            done.add(d)
            if dir_whitelists(d, budget):
                return True
            if d == "/":
                break
            d = os.path.dirname(d) or "/"
    return False


def global_reason(ctx: Context, ignore_files: Iterable[str | None], budget: Budget,
                  environ: Mapping[str, str] = os.environ) -> str | None:
    """Why an ignore file rg reads whatever the walk (git's global excludes, the
    ``--ignore-file`` operands: None for one not known statically) may whitelist, or None."""
    for name in ignore_files:
        if name is None:
            return "--ignore-file"
        # as spelled, and with a leading ~ as HOME (whether bash expanded it is the word's)
        named = (name, str(ctx.home).rstrip("/") + name[1:]) if name.startswith("~") else (name,)
        if any(whitelists(os.path.join(str(ctx.cwd), n), budget) for n in named):
            return f"--ignore-file {name}"
    for path in _global_excludes(ctx, environ, budget):
        if path is None or whitelists(path, budget):
            return "git's global excludes file"
    return None


def _global_excludes(ctx: Context, environ: Mapping[str, str], budget: Budget) -> list[str | None]:
    """Every file rg may take for git's global excludes file (a wider set than the one it
    picks: each ``excludesfile`` line of both configs, and both defaults); None for a config
    that cannot be read exactly."""
    home = str(ctx.home).rstrip("/")
    xdg = environ.get("XDG_CONFIG_HOME") or ""
    bases = list(dict.fromkeys(b for b in (xdg, f"{home}/.config") if b))
    out: list[str | None] = [f"{b}/git/ignore" for b in bases]
    for config in (f"{home}/.gitconfig", *(f"{b}/git/config" for b in bases)):
        try:
            st = os.stat(config)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except (OSError, ValueError):
            return [None]
        budget.left -= 1
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE or budget.left < 0:
            return [None]
        try:
            data = read_head(config, MAX_FILE + 1)
        except OSError:
            return [None]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return [None]   # rg's regex reads bytes as UTF-8 where it can: not modelled
        for m in _GIT_EXCLUDES.finditer(text):
            value = m.group(1)
            # as rg takes it (every `~` replaced by HOME: ignore's ``expand_tilde``), and
            # more: with a leading `~` alone expanded, with quotes and blanks taken off
            for v in dict.fromkeys((value.replace("~", home), value, value.strip(),
                                    value.strip().strip("\"'"))):
                out.append(os.path.join(str(ctx.cwd), v))
                if v.startswith("~"):
                    out.append(os.path.join(str(ctx.cwd), home + v[1:]))
    return out
