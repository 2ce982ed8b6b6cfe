"""Does the repository a git command runs in carry configuration that runs programs?

Plain ``git status`` runs a repository's ``core.fsmonitor`` helper, ``git diff`` its
``diff.external`` and textconv drivers, status its clean filters (openai/codex PR 27041,
Qwen Code issue 8575). So git's read forms are read-only only when no configuration in scope
names a program. We find the repository the way git does from the working directory (a
``.git`` directory, a ``.git`` file with ``gitdir:`` for worktrees and submodules, ``commondir``,
or a bare repository directory), then read — ourselves, no git process — every file git would:

* system ``/etc/gitconfig`` (or ``$GIT_CONFIG_SYSTEM``; skipped with ``GIT_CONFIG_NOSYSTEM``);
* global ``~/.gitconfig`` and ``$XDG_CONFIG_HOME/git/config`` (both ``~/.config/git/config``
  and ``$XDG_CONFIG_HOME`` when set; ``$GIT_CONFIG_GLOBAL`` instead when set). They are the
  user's own files, but a program they name still runs, so they are checked like the rest;
* the repository's ``config`` (in the common dir) and ``config.worktree`` (in the worktree's
  git dir and the common dir);
* every ``include.path`` and ``includeIf.<cond>.path`` — whatever the condition (a superset);
* the configs of submodules under ``<commondir>/modules`` (``git status`` recurses into them).

It also refuses a ``post-index-change`` hook (status and diff may refresh and rewrite the index,
which runs it). A file that cannot be read or parsed counts as a problem: fail closed.
``core.sshCommand``, ``credential.helper`` and ``core.editor`` are not checked: git's read
forms never use them (network forms are never read-only anyway).

Parsed files are cached by (mtime, size, inode), so a warm check is a few ``stat`` calls.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from .._record import record

_FALSE = {"false", "no", "off", "0", ""}
_TRUE = {"true", "yes", "on", "1"}
_MAX_INCLUDE_DEPTH = 10
_MAX_MODULES = 200


@record
class Entry:
    section: str      # lower-case
    subsection: str | None
    key: str          # lower-case
    value: str | None  # None: a bare key (boolean true)


class ConfigError(Exception):
    pass


_cache: dict[str, tuple[tuple[int, int, int], tuple[Entry, ...]]] = {}


# --- parsing --------------------------------------------------------------------------------------

def parse_config(text: str) -> tuple[Entry, ...]:
    """Parse git-config text. Raises :class:`ConfigError` on anything malformed."""
    out: list[Entry] = []
    section: str | None = None
    sub: str | None = None
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " \t\r\n":
            i += 1
        if i >= n:
            break
        c = text[i]
        if c in "#;":
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
            continue
        if c == "[":
            section, sub, i = _header(text, i + 1)
            continue
        if section is None:
            raise ConfigError("key outside a section")
        j = i
        while j < n and (text[j].isalnum() or text[j] == "-"):
            j += 1
        key = text[i:j].lower()
        if not key or not key[0].isalpha():
            raise ConfigError(f"bad key at offset {i}")
        while j < n and text[j] in " \t":
            j += 1
        if j >= n or text[j] in "\r\n#;":
            out.append(Entry(section, sub, key, None))
            j2 = text.find("\n", j)
            i = n if j2 < 0 else j2 + 1
            continue
        if text[j] != "=":
            raise ConfigError(f"expected '=' after {key}")
        value, i = _value(text, j + 1)
        out.append(Entry(section, sub, key, value))
    return tuple(out)


def _header(text: str, i: int) -> tuple[str, str | None, int]:
    j = i
    n = len(text)
    while j < n and (text[j].isalnum() or text[j] in "-."):
        j += 1
    name = text[i:j]
    if not name:
        raise ConfigError("empty section name")
    sub: str | None = None
    if j < n and text[j] in " \t":
        while j < n and text[j] in " \t":
            j += 1
        if j >= n or text[j] != '"':
            raise ConfigError("bad subsection")
        j += 1
        buf = []
        while True:
            if j >= n or text[j] == "\n":
                raise ConfigError("unterminated subsection")
            ch = text[j]
            if ch == "\\":
                j += 1
                if j >= n:
                    raise ConfigError("bad escape")
                buf.append(text[j])
            elif ch == '"':
                j += 1
                break
            else:
                buf.append(ch)
            j += 1
        sub = "".join(buf)
    if j >= n or text[j] != "]":
        raise ConfigError("unterminated section header")
    j += 1
    if "." in name and sub is None:  # legacy [section.subsection]
        name, _, sub = name.partition(".")
        sub = sub.lower()
    return name.lower(), sub, j


def _value(text: str, i: int) -> tuple[str, int]:
    n = len(text)
    buf: list[str] = []
    quoted = False
    pending_space = ""
    while i < n and text[i] in " \t":
        i += 1
    while i < n:
        c = text[i]
        if c == "\n" or (c == "\r" and text[i + 1:i + 2] == "\n"):
            if quoted:
                raise ConfigError("newline in quoted value")
            break
        if c in "#;" and not quoted:
            j = text.find("\n", i)
            i = n if j < 0 else j
            break
        if c == "\\":
            i += 1
            if i >= n:
                raise ConfigError("bad escape")
            d = text[i]
            if d == "\n":
                i += 1
                continue
            if d == "\r" and text[i + 1:i + 2] == "\n":
                i += 2
                continue
            mapped = {"n": "\n", "t": "\t", "b": "\b", "\\": "\\", '"': '"'}.get(d)
            if mapped is None:
                raise ConfigError(f"bad escape \\{d}")
            buf.append(pending_space + mapped)
            pending_space = ""
            i += 1
            continue
        if c == '"':
            quoted = not quoted
            buf.append(pending_space)
            pending_space = ""
            i += 1
            continue
        if c in " \t" and not quoted:
            pending_space += c
            i += 1
            continue
        buf.append(pending_space + c)
        pending_space = ""
        i += 1
    if quoted:
        raise ConfigError("unterminated quote")
    return "".join(buf), i + 1


def read_config(path: Path) -> tuple[Entry, ...] | None:
    """Parsed entries of ``path`` (cached by mtime/size/inode); None when it does not exist."""
    key = str(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None
    sig = (st.st_mtime_ns, st.st_size, st.st_ino)
    hit = _cache.get(key)
    if hit is not None and hit[0] == sig:
        return hit[1]
    try:
        raw = Path(path).read_bytes()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    entries = parse_config(text.removeprefix("\ufeff"))
    _cache[key] = (sig, entries)
    return entries


# --- which keys run programs ----------------------------------------------------------------------

def program_key(e: Entry) -> str | None:
    """Why this entry makes git's read forms run something, or None."""
    v = (e.value or "").strip()
    low = v.lower()
    s, k = e.section, e.key
    if s == "core" and k == "fsmonitor" and e.value is not None and low not in _FALSE:
        return "core.fsmonitor runs a file-system monitor program on status/diff"
    if s == "core" and k == "pager":
        return "core.pager names a pager program"
    if s == "pager" and (e.value is None or low not in _FALSE):
        return f"pager.{e.subsection or ''} runs a pager"
    if s == "diff" and k == "external":
        return "diff.external runs an external diff program"
    if s == "diff" and e.subsection is not None and k in ("textconv", "command"):
        return f"diff.{e.subsection}.{k} runs a program on diffs"
    if s == "filter":
        return f"filter.{e.subsection or ''}.{k} runs a filter program on files"
    if s == "core" and k == "alternaterefscommand":
        return "core.alternateRefsCommand runs a program"
    if s == "uploadpack" and k == "packobjectshook":
        return "uploadpack.packObjectsHook runs a program"
    if s == "log" and k == "showsignature" and (e.value is None or low in _TRUE):
        return "log.showSignature runs gpg on every commit shown"
    if s == "trace2" and k.endswith("target"):
        return f"trace2.{k} writes trace output on every git command"
    return None


@record
class Repo:
    gitdir: Path
    commondir: Path
    worktree: Path | None


def _is_gitdir(d: Path) -> bool:
    try:
        if not (d / "HEAD").is_file():
            return False
        common = d
        cf = d / "commondir"
        if cf.is_file():
            common = (d / cf.read_text(encoding="utf-8").strip()).resolve()
        return (common / "objects").is_dir() and (common / "refs").is_dir()
    except OSError:
        return False


def discover(cwd: Path) -> Repo | None:
    """The repository git would use from ``cwd`` (GIT_DIR and ceilings ignored: a superset)."""
    try:
        d = Path(os.path.realpath(cwd))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot resolve {cwd}") from exc
    for cand in (d, *d.parents):
        dotgit = cand / ".git"
        try:
            if dotgit.is_file():
                text = dotgit.read_text(encoding="utf-8").strip()
                if not text.startswith("gitdir:"):
                    raise ConfigError(f"{dotgit} is not a gitdir file")
                gd = (cand / text[len("gitdir:"):].strip()).resolve()
                return _repo(gd, cand)
            if dotgit.is_dir() and _is_gitdir(dotgit):
                return _repo(dotgit, cand)
            if _is_gitdir(cand):
                return _repo(cand, None)
        except OSError as exc:
            raise ConfigError(f"cannot read {dotgit}: {exc}") from exc
    return None


def _repo(gitdir: Path, worktree: Path | None) -> Repo:
    common = gitdir
    cf = gitdir / "commondir"
    if cf.is_file():
        common = (gitdir / cf.read_text(encoding="utf-8").strip()).resolve()
    return Repo(gitdir, common, worktree)


def _expand(p: str, base: Path, home: Path) -> Path:
    if p == "~" or p.startswith("~/"):
        return home / p[2:]
    q = Path(p)
    return q if q.is_absolute() else base / q


def _scan_file(path: Path, home: Path, problems: list[str], entries: list[Entry], depth: int = 0,
               aliases: frozenset[str] = frozenset()) -> None:
    if depth > _MAX_INCLUDE_DEPTH:
        problems.append(f"git config includes nest too deep at {path}")
        return
    try:
        found = read_config(path)
    except ConfigError as exc:
        problems.append(f"git config {path} could not be read ({exc})")
        return
    if found is None:
        return
    for e in found:
        entries.append(e)
        why = program_key(e)
        if why:
            problems.append(f"{why} ({path})")
        if e.section == "alias" and e.subsection is None and e.key in aliases:
            problems.append(f"alias.{e.key} would run instead of a subcommand this git may lack ({path})")
        if e.key == "path" and (e.section == "include" or e.section == "includeif"):
            if not e.value:
                continue
            _scan_file(_expand(e.value, path.parent, home), home, problems, entries, depth + 1, aliases)


def _config_files(repo: Repo | None, home: Path) -> list[Path]:
    env = os.environ
    files: list[Path] = []
    if not env.get("GIT_CONFIG_NOSYSTEM"):
        files.append(Path(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"))
    if env.get("GIT_CONFIG_GLOBAL"):
        files.append(Path(env["GIT_CONFIG_GLOBAL"]))
    else:
        files.append(home / ".gitconfig")
        files.append(home / ".config" / "git" / "config")
        if env.get("XDG_CONFIG_HOME"):
            files.append(Path(env["XDG_CONFIG_HOME"]) / "git" / "config")
    if repo is not None:
        files.append(repo.commondir / "config")
        files.append(repo.commondir / "config.worktree")
        if repo.gitdir != repo.commondir:
            files.append(repo.gitdir / "config.worktree")
    return files


def _hooks_dir(repo: Repo, entries: list[Entry], home: Path) -> Path | None:
    paths = [e.value for e in entries if e.section == "core" and e.key == "hookspath" and e.value]
    if not paths:
        return repo.commondir / "hooks"
    p = paths[-1]
    base = repo.worktree if repo.worktree is not None else repo.gitdir
    return _expand(p, base, home)


def check(cwd: Path, home: Path, aliases: frozenset[str] = frozenset()) -> tuple[str, ...]:
    """Problems that make git's read forms unsafe in ``cwd``; empty when none. Never raises.

    ``aliases``: subcommand names whose ``alias.<name>`` entries count as problems (git runs an
    alias when it has no builtin of that name, e.g. a subcommand removed in a newer git)."""
    problems: list[str] = []
    try:
        repo = discover(cwd)
        entries: list[Entry] = []
        for f in _config_files(repo, home):
            _scan_file(f, home, problems, entries, aliases=aliases)
        if repo is not None:
            hooks = _hooks_dir(repo, entries, home)
            if hooks is not None and (hooks / "post-index-change").exists():
                problems.append(f"a post-index-change hook ({hooks}) runs when status refreshes the index")
            _submodules(repo, home, problems, aliases)
    except ConfigError as exc:
        problems.append(f"git repository could not be inspected ({exc})")
    except (OSError, ValueError, RecursionError) as exc:
        problems.append(f"git repository could not be inspected ({type(exc).__name__}: {exc})")
    return tuple(dict.fromkeys(problems))


def _submodules(repo: Repo, home: Path, problems: list[str], aliases: frozenset[str]) -> None:
    modules = repo.commondir / "modules"
    if not modules.is_dir():
        return
    count = 0
    for root, dirs, files in os.walk(modules):
        dirs[:] = [d for d in dirs if d not in ("objects", "refs", "logs", "info")]
        if "config" in files and "HEAD" in files:
            count += 1
            if count > _MAX_MODULES:
                problems.append("too many submodules to inspect")
                return
            entries: list[Entry] = []
            sub = Path(root)
            _scan_file(sub / "config", home, problems, entries, aliases=aliases)
            hooks = sub / "hooks" / "post-index-change"
            if hooks.exists():
                problems.append(f"a post-index-change hook in submodule {sub}")


# --- credentials in configuration -----------------------------------------------------------------

# A URL with a password (`scheme://user:pass@`) or, over HTTP(S)/FTP, with any user part
# (`https://<token>@github.com/…`: GitHub and GitLab take a token as the user name).
_CREDENTIAL_URL = re.compile(r"[a-z][a-z0-9+.-]*://[^/@\s:]*:[^/@\s]*@|(?:https?|ftps?)://[^/@\s]+@", re.I)
_CREDENTIAL_KEYS = re.compile(r"extraheader|pass|token|secret|cookie", re.I)


def credential_entry(e: Entry) -> bool:
    """Does this entry carry a secret git may print: a URL with credentials (in the value, or in
    the subsection of ``url.<base>.insteadOf``), an ``http.extraHeader``, a password-like key?"""
    return bool(_CREDENTIAL_KEYS.search(e.key) or _CREDENTIAL_URL.search(e.value or "")
                or _CREDENTIAL_URL.search(e.subsection or ""))


def _entries_with_files(path: Path, home: Path, depth: int = 0) -> Iterator[tuple[Path, Entry]]:
    """Every entry of ``path`` and of the files it includes, with the file it is in. Raises
    :class:`ConfigError` when a file cannot be read or includes nest too deep."""
    if depth > _MAX_INCLUDE_DEPTH:
        raise ConfigError(f"git config includes nest too deep at {path}")
    for e in read_config(path) or ():
        yield path, e
        if e.key == "path" and e.section in ("include", "includeif") and e.value:
            yield from _entries_with_files(_expand(e.value, path.parent, home), home, depth + 1)


# Environment variables that add configuration git would print (not read here: fail closed).
_CONFIG_ENV = ("GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG", "GIT_DIR", "GIT_COMMON_DIR")


def credential_source(cwd: Path, home: Path) -> str | None:
    """Where the configuration git reads in ``cwd`` holds a credential it may print (remote
    URLs, ``insteadOf`` rewrites, extra headers), or why that cannot be known; None when no file
    in scope holds one. Never raises."""
    for name in _CONFIG_ENV:
        if os.environ.get(name):
            return f"${name}"
    try:
        for f in _config_files(discover(cwd), home):
            for path, e in _entries_with_files(f, home):
                if credential_entry(e):
                    return str(path)
    except (ConfigError, OSError, ValueError, RecursionError) as exc:
        return f"git config (unreadable: {type(exc).__name__})"
    return None
