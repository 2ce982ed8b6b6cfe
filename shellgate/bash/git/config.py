"""Does the repository a git command runs in carry configuration that runs programs?

Plain ``git status`` runs a repository's ``core.fsmonitor`` helper, ``git diff`` its
``diff.external`` and textconv drivers, status its clean filters (openai/codex PR 27041,
Qwen Code issue 8575), and any read form in a partial clone fetches missing objects from the
promisor remote (running ``core.sshCommand`` or ``remote.<name>.uploadpack``). Which keys run
what, and in which forms, is the table in ``keys.py``. We find the repository the way git
does from the working directory (a ``.git`` directory, a ``.git`` file with ``gitdir:`` for
worktrees and submodules, ``commondir``, or a bare repository directory), then read —
ourselves, no git process — every file git would:

* system ``/etc/gitconfig`` (or ``$GIT_CONFIG_SYSTEM``; skipped with ``GIT_CONFIG_NOSYSTEM``);
* global ``~/.gitconfig`` and ``$XDG_CONFIG_HOME/git/config`` (both ``~/.config/git/config``
  and ``$XDG_CONFIG_HOME`` when set; ``$GIT_CONFIG_GLOBAL`` instead when set). They are the
  user's own files, but a program they name still runs, so they are checked like the rest;
* the repository's ``config`` (in the common dir) and ``config.worktree`` (in the worktree's
  git dir and the common dir);
* every ``include.path`` and ``includeIf.<cond>.path`` — whatever the condition (a superset);
* the configs (and ``post-index-change`` hooks) of every submodule git may enter: the git dirs
  under ``<commondir>/modules`` and every checked-out submodule of the work tree, absorbed or a
  repository of its own (``git status`` and ``git diff`` recurse into them), found from the
  index's gitlinks and ``.gitmodules`` (:func:`submodule_repos`).

:func:`check` answers for the read forms: every file above, the keys git's read forms run
(``Runs.READ``), and a ``post-index-change`` hook (status and diff may refresh and rewrite the
index, which runs it). :func:`network_problems` answers for the network forms (fetch, pull,
push, clone, ls-remote): the repository's own files only (the user's global config is theirs),
every key a network form may run (``Runs.READ`` or ``Runs.NETWORK``: pull merges and checks
out), and the hooks of a repository that is not the workspace's own (a bare repository
committed into the workspace brings its hooks with it). A file that cannot be read or parsed
counts as a problem: fail closed.

:func:`protected_locations` names the files and directories of a repository whose change makes
git run something: its config files and the hooks directory (``core.hooksPath`` resolved as
git does: relative to the work tree, or to the git dir of a bare repository). The sensitive-path
check treats writes there as implants, and the sandbox binds them read-only.

Parsed files are cached by (mtime, size, inode), so a warm check is a few ``stat`` calls.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from ..._plain import read_plain
from ..._record import record
from . import keys as gitkeys
from . import memo
from .keys import Runs

_MAX_INCLUDE_DEPTH = 10
_MAX_CONFIG = 8 << 20   # a config file bigger than this is not read: git's reading unknown
_MAX_MODULES = 200
_MAX_INDEX = 100_000   # index entries read for gitlinks; a bigger index: submodules unknown


@record
class Entry:
    section: str      # lower-case: the variable's name up to its first dot
    subsection: str | None  # between its first and last dot (`[diff.x "y"]`: x.y); None: no dot
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
    if "." in name:
        # git lower-cases the dotted name and appends the quoted subsection verbatim: `[a.B]` is
        # `a.b.*` and `[diff.x "Y"]` is `diff.x.Y.*` (what `git config -l` prints). A variable's
        # subsection is what lies between its first and last dot (``parse_config_key``), so the
        # driver of `[diff.x "y"]` is `x.y`, the same as that of `[diff "x.y"]`.
        name, _, rest = name.lower().partition(".")
        sub = rest if sub is None else f"{rest}.{sub}"
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
        raw = read_plain(path, _MAX_CONFIG, follow=True)   # a dotfile manager's link is fine
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from exc
    entries = parse_config(text.removeprefix("\ufeff"))
    _cache[key] = (sig, entries)
    return entries


# --- which keys run programs ----------------------------------------------------------------------

_READ_RUNS = frozenset({Runs.READ})
_NETWORK_RUNS = frozenset({Runs.READ, Runs.NETWORK})


def _program(e: Entry, runs: frozenset[Runs], skip: frozenset[str] = frozenset()) -> str | None:
    """Why this entry makes a form of ``runs`` run something (the key named), or None.
    ``skip``: table entries (by name) that do not count here."""
    k = gitkeys.program_key(e.section, e.subsection, e.key, e.value)
    if k is None or not (k.runs & runs) or k.name in skip:
        return None
    return f"{gitkeys.shown(k, e.subsection, e.key)} {k.why}"


def program_key(e: Entry) -> str | None:
    """Why this entry makes git's read forms run something, or None."""
    return _program(e, _READ_RUNS)


@record
class Repo:
    gitdir: Path
    commondir: Path
    worktree: Path | None


_MAX_GITFILE = 1 << 20   # read_gitfile_gently refuses a bigger .git file
_HEX = frozenset(b"0123456789abcdefABCDEF")


def _valid_headref(head: Path) -> bool:
    """git's ``validate_headref``: ``HEAD`` is a symbolic link whose target starts with
    ``refs/`` (dangling is fine), or a file starting ``ref:`` then blanks then ``refs/``, or 40
    hex digits (a detached HEAD; git 2.39 reads it as SHA-1 at discovery)."""
    try:
        if os.path.islink(head):
            return os.readlink(head)[:255].startswith("refs/")
        fd = os.open(head, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        data = os.read(fd, 255)
    except OSError:   # a directory
        return False
    finally:
        os.close(fd)
    data = data.split(b"\0", 1)[0]
    if data.startswith(b"ref:") and data[4:].lstrip(b" \t\n\v\f\r").startswith(b"refs/"):
        return True
    return len(data) >= 40 and set(data[:40]) <= _HEX


def _trimmed(raw: bytes) -> str:
    """A gitdir or commondir file as git reads it: only trailing newlines and carriage returns
    come off (``gitdir: /x/evil `` names ``/x/evil ``), and the text ends at a NUL."""
    return os.fsdecode(raw.rstrip(b"\r\n").split(b"\0", 1)[0])


def _common_dir(gitdir: Path) -> Path:
    """git's ``get_common_dir_noenv``: the directory ``commondir`` names (relative to the git
    dir, made real), else the git dir. A ``commondir`` that exists but cannot be read, or is
    empty, makes git die: :class:`ConfigError`."""
    cf = gitdir / "commondir"
    if not os.path.lexists(cf):
        return gitdir
    try:
        raw = read_plain(cf, _MAX_GITFILE, follow=True)   # a FIFO or /dev/zero: git hangs
    except OSError as exc:
        raise ConfigError(f"cannot read {cf}: {exc}") from exc
    if not raw:
        raise ConfigError(f"{cf} is empty (git dies)")
    text = _trimmed(raw)
    return Path(os.path.realpath(os.path.join(gitdir, text)))


def _is_gitdir(d: Path) -> bool:
    """git's ``is_git_directory``: a valid ``HEAD``, and ``objects`` and ``refs`` in the common
    dir that ``access(X_OK)`` accepts (an executable empty file will do: git asks no more)."""
    if not _valid_headref(d / "HEAD"):
        return False
    common = _common_dir(d)
    return os.access(common / "objects", os.X_OK) and os.access(common / "refs", os.X_OK)


def _gitfile(dotgit: Path) -> Path | None:
    """The git dir a ``.git`` path leads to as ``read_gitfile_gently`` reads it: None when it
    is not a regular file (no such path, a directory); a file that is not exactly ``gitdir: ``
    then a path to a git directory makes git die (:class:`ConfigError`)."""
    try:
        st = dotgit.stat()
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    try:
        if st.st_size > _MAX_GITFILE:
            raise ConfigError(f"{dotgit} is too large (git dies)")
        raw = read_plain(dotgit, _MAX_GITFILE, follow=True)
    except OSError as exc:
        raise ConfigError(f"cannot read {dotgit}: {exc}") from exc
    if not raw.startswith(b"gitdir: "):
        raise ConfigError(f"{dotgit} is not a gitdir file (git dies)")
    target = _trimmed(raw)[len("gitdir: "):]
    if not target:
        raise ConfigError(f"{dotgit} names no git dir (git dies)")
    gitdir = Path(os.path.join(dotgit.parent, target))
    if not _is_gitdir(gitdir):
        raise ConfigError(f"{dotgit} names {target!r}, not a git repository (git dies)")
    return Path(os.path.realpath(gitdir))


def discover(cwd: Path) -> Repo | None:
    """The repository git uses from ``cwd``, found as ``setup_git_directory_gently`` finds it:
    in each directory from ``cwd`` up, a ``.git`` file (:func:`_gitfile`), else a ``.git``
    directory that :func:`_is_gitdir` accepts (a decoy that it refuses is passed over, as git
    passes it over), else the directory itself as a bare repository. Where git would die, so
    does this (:class:`ConfigError`: fail closed).

    Not modelled, each only ever making git use no repository where this finds one (so the
    checks look at a superset): ``GIT_CEILING_DIRECTORIES``, the one-file-system stop,
    ``safe.directory`` ownership and ``safe.bareRepository``. ``GIT_DIR`` and the other
    variables that name another repository are :func:`environment_problems`."""
    try:
        d = Path(os.path.realpath(cwd))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"cannot resolve {cwd}") from exc
    for cand in (d, *d.parents):
        dotgit = cand / ".git"
        try:
            gitdir = _gitfile(dotgit)
            if gitdir is not None:
                return _repo(gitdir, cand)
            if dotgit.is_dir() and _is_gitdir(dotgit):
                return _repo(dotgit, cand)
            if _is_gitdir(cand):
                return _repo(cand, None)
        except OSError as exc:
            raise ConfigError(f"cannot read {dotgit}: {exc}") from exc
    return None


def _repo(gitdir: Path, worktree: Path | None) -> Repo:
    return Repo(gitdir, _common_dir(gitdir), worktree)


def _git_prefix() -> str:
    """The install prefix git's ``%(prefix)/`` names: the directory above the ``bin`` that
    holds the ``git`` on PATH (``/usr`` for ``/usr/bin/git``; a RUNTIME_PREFIX build computes
    it the same way). A git that lies elsewhere: :class:`ConfigError` (fail closed)."""
    import shutil  # only here: it pulls in bz2 and lzma, which the hook path must not load

    found = shutil.which("git")
    real = Path(os.path.realpath(found)) if found else None
    if real is None or real.parent.name != "bin":
        raise ConfigError("git's install prefix (%(prefix)/) is not known")
    return str(real.parent.parent)


def interpolate(p: str, home: Path) -> str:
    """A path as git's ``interpolate_path`` expands it (``include.path``, ``core.hooksPath``):
    ``%(prefix)/x`` under git's install prefix, ``~`` and ``~/x`` under HOME, ``~user`` and
    ``~user/x`` under that user's home. A user git cannot find makes git fail:
    :class:`ConfigError`."""
    if p.startswith("%(prefix)/"):
        return os.path.join(_git_prefix(), p[len("%(prefix)/"):])
    if not p.startswith("~"):
        return p
    name, sep, rest = p[1:].partition("/")
    if not name:
        return str(home) + sep + rest
    try:
        return pwd.getpwnam(name).pw_dir + sep + rest
    except KeyError:
        raise ConfigError(f"git cannot expand {p!r}: no user {name!r}") from None


def _expand(p: str, base: Path, home: Path) -> Path:
    q = Path(interpolate(p, home))
    return q if q.is_absolute() else base / q


# A problem: what runs and why, and the file (or hook) that says so.
Problem = tuple[str, Path]


def _scan_file(path: Path, home: Path, problems: list[Problem], entries: list[Entry], depth: int = 0,
               aliases: frozenset[str] = frozenset(), runs: frozenset[Runs] = _READ_RUNS,
               skip: frozenset[str] = frozenset()) -> None:
    if depth > _MAX_INCLUDE_DEPTH:
        problems.append(("git config includes nest too deep", path))
        return
    try:
        found = read_config(path)
    except ConfigError as exc:
        problems.append((f"git config could not be read ({exc})", path))
        return
    if found is None:
        return
    for e in found:
        entries.append(e)
        why = _program(e, runs, skip)
        if why:
            problems.append((why, path))
        if e.section == "alias" and e.subsection is None and e.key in aliases:
            problems.append((f"alias.{e.key} would run instead of a subcommand this git may lack", path))
        if e.key == "path" and (e.section == "include" or e.section == "includeif"):
            if not e.value:
                continue
            _scan_file(_expand(e.value, path.parent, home), home, problems, entries, depth + 1, aliases,
                       runs, skip)


def _user_files(home: Path) -> list[Path]:
    """The system and global config files git reads (``GIT_CONFIG_*`` as git reads them)."""
    env = os.environ
    files: list[Path] = []
    if gitkeys.git_bool(env.get("GIT_CONFIG_NOSYSTEM", "")) is not True:   # git_env_bool: "0" reads it
        files.append(Path(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig"))
    if env.get("GIT_CONFIG_GLOBAL"):
        files.append(Path(env["GIT_CONFIG_GLOBAL"]))
    else:
        files.append(home / ".gitconfig")
        files.append(home / ".config" / "git" / "config")
        if env.get("XDG_CONFIG_HOME"):
            files.append(Path(env["XDG_CONFIG_HOME"]) / "git" / "config")
    return files


def _repo_files(repo: Repo) -> list[Path]:
    """The repository's own config files: ``config`` and ``config.worktree`` of the common dir,
    and the worktree's ``config.worktree``."""
    files = [repo.commondir / "config", repo.commondir / "config.worktree"]
    if repo.gitdir != repo.commondir:
        files.append(repo.gitdir / "config.worktree")
    return files


def _config_files(repo: Repo | None, home: Path) -> list[Path]:
    return _user_files(home) + (_repo_files(repo) if repo is not None else [])


def _hooks_dir(repo: Repo, entries: list[Entry], home: Path) -> Path:
    """Where git looks for the repository's hooks: the last ``core.hooksPath`` (relative to the
    work tree, or to the git dir of a bare repository; ``~`` is HOME), else ``hooks`` in the
    common dir."""
    paths = [e.value for e in entries if e.section == "core" and e.key == "hookspath" and e.value]
    if not paths:
        return repo.commondir / "hooks"
    base = repo.worktree if repo.worktree is not None else repo.gitdir
    return Path(os.path.normpath(_expand(paths[-1], base, home)))


def _inspect(run: Callable[[list[Problem]], None]) -> list[Problem]:
    """The problems ``run`` finds, with a repository that cannot be read as one more. Never
    raises."""
    problems: list[Problem] = []
    try:
        run(problems)
    except ConfigError as exc:
        problems.append((f"git repository could not be inspected ({exc})", Path(".")))
    except (OSError, ValueError, RecursionError) as exc:
        problems.append((f"git repository could not be inspected ({type(exc).__name__}: {exc})",
                         Path(".")))
    return list(dict.fromkeys(problems))


def check(cwd: Path, home: Path, aliases: frozenset[str] = frozenset(),
          lazy_fetch: bool = True, pager: bool = True) -> tuple[str, ...]:
    """Problems that make git's read forms unsafe in ``cwd``; empty when none. Never raises.

    ``aliases``: subcommand names whose ``alias.<name>`` entries count as problems (git runs an
    alias when it has no builtin of that name, e.g. a subcommand removed in a newer git).
    ``lazy_fetch`` false: the command runs with ``--no-lazy-fetch``, so a promisor remote is
    never contacted. ``pager`` false: git cannot start a pager (its stdout is no terminal, or
    ``--no-pager``), so ``core.pager`` and ``pager.*`` run nothing."""
    def run(problems: list[Problem]) -> None:
        for name in gitkeys.unmodelled_env(os.environ, pager):
            problems.append((f"the environment sets {name}, which git reads", Path(f"${name}")))
        repo = discover(cwd)
        entries: list[Entry] = []
        skip = (frozenset() if lazy_fetch else gitkeys.LAZY_FETCH) | (
            frozenset() if pager else gitkeys.PAGER)
        for f in _user_files(home):
            _scan_file(f, home, problems, entries, aliases=aliases, skip=skip)
        user = list(entries)
        if repo is not None:
            for f in _repo_files(repo):
                _scan_file(f, home, problems, entries, aliases=aliases, skip=skip)
            hooks = _hooks_dir(repo, entries, home)
            if (hooks / "post-index-change").exists():
                problems.append(("a post-index-change hook runs when status refreshes the index", hooks))
            _submodules(repo, home, problems, aliases, _READ_RUNS, user)

    return tuple(f"{why} ({where})" for why, where in _inspect(run))


def network_problems(cwd: Path, home: Path, workspace: Path) -> tuple[Problem, ...]:
    """What a network form (fetch, pull, push, clone, ls-remote) run in ``cwd`` may run because
    the repository's own configuration says so: keys of ``Runs.READ`` or ``Runs.NETWORK`` in its
    config files (and their includes) and its submodules', and — unless it is the repository of
    ``workspace`` (whose hooks the sandbox and the classifier protect) — every hook in its hooks
    directory. Empty outside a repository. Never raises."""
    def run(problems: list[Problem]) -> None:
        if (name := elsewhere_env()) is not None:
            problems.append((f"the environment sets {name}: git uses a repository or configuration "
                             "the checks did not read", Path(f"${name}")))
        repo = discover(cwd)
        if repo is None:
            return
        try:
            mine = discover(workspace)
        except ConfigError:
            mine = None
        own = mine.commondir if mine is not None else None
        entries: list[Entry] = []
        for f in _user_files(home):   # for core.hooksPath only: the user's own keys are theirs
            with contextlib.suppress(ConfigError):
                _scan_file(f, home, [], entries, runs=frozenset())
        user = list(entries)
        for f in _repo_files(repo):
            _scan_file(f, home, problems, entries, runs=_NETWORK_RUNS)
        _submodules(repo, home, problems, frozenset(), _NETWORK_RUNS, user)
        if own is not None and _same(repo.commondir, own):
            return
        hooks = _hooks_dir(repo, entries, home)
        for name in _hook_names(hooks):
            problems.append((f"the hook {name} may run (a repository brings its own hooks)", hooks / name))

    return tuple(_inspect(run))


def _same(a: Path, b: Path) -> bool:
    try:
        return os.path.realpath(a) == os.path.realpath(b)
    except (OSError, ValueError):
        return False


def _hook_names(hooks: Path) -> list[str]:
    """The hooks in ``hooks`` git may run: every entry but git's ``*.sample`` files."""
    try:
        names = sorted(os.listdir(hooks))
    except OSError:
        return []
    return [n for n in names if not n.endswith(".sample")]


def files_in_scope(repo: Repo | None, home: Path) -> list[Path]:
    """Every configuration file git reads for ``repo``, included ones too (as far as they can
    be read): what an answer drawn from the configuration rests on."""
    out: list[Path] = []
    for f in _config_files(repo, home):
        out.append(f)
        try:
            out += [p for p, _e in _entries_with_files(f, home) if p != f]
        except (ConfigError, OSError, ValueError, RecursionError):
            continue
    return list(dict.fromkeys(out))


def protected_locations(repo: Repo, home: Path) -> tuple[Path, ...]:
    """The files and directories of ``repo`` whose change makes git run something: its config
    files and its hooks directory (``core.hooksPath`` resolved as git does). Raises
    :class:`ConfigError` when a config file cannot be read."""
    entries: list[Entry] = []
    for f in _config_files(repo, home):
        for _path, e in _entries_with_files(f, home):
            entries.append(e)
    return (*_repo_files(repo), repo.gitdir / "commondir", _hooks_dir(repo, entries, home))


def _existing_dir(path: str) -> Path:
    """The deepest existing directory on the way to ``path`` (where git would be discovered)."""
    d = Path(path).parent
    while not d.is_dir() and d != d.parent:
        d = d.parent
    return d


def _discovered(cwd: Path) -> Repo | None:
    """:func:`discover`, remembered for the rest of the analysis (:mod:`.memo`)."""
    return memo.get(("discover", cwd), lambda: discover(cwd))


def implant_location(path: str, workspace: Path, home: Path) -> str | None:
    """What ``path`` (absolute, normalised) is to git when it lies among the
    :func:`protected_locations` of the repository that holds it or of the workspace's — "the
    hooks directory /ws/.githooks (core.hooksPath)", "the repository config /ws/vendor/lib/config"
    — or None. A repository that cannot be inspected is reported too (fail closed). Never
    raises."""
    try:
        parent = os.path.dirname(path)   # the written files of a tree share their directories
        here = memo.get(("existing", parent), lambda: _existing_dir(path))
        repos = {r.commondir: r for r in (_discovered(here), _discovered(workspace))
                 if r is not None}
        for repo in repos.values():
            *configs, commondir, hooks = memo.get(("protected", repo, home),
                                                  lambda repo=repo: protected_locations(repo, home))
            for loc, what in ((hooks, "the hooks directory"), (commondir, "the commondir file"),
                              *((c, "the repository config") for c in configs)):
                real = memo.get(("realpath", loc), lambda loc=loc: os.path.realpath(loc))
                for spelled in dict.fromkeys((str(loc), real)):
                    if path == spelled or path.startswith(spelled.rstrip("/") + "/"):
                        return f"{what} {loc}"
    except (ConfigError, OSError, ValueError, RecursionError) as exc:
        return f"a git repository that could not be inspected ({type(exc).__name__})"
    return None


# Names that make a directory a repository to git's discovery (a `.git`, or a bare repository's
# own files), or change which one it is.
_DISCOVERY = frozenset({".git", "HEAD", "config", "commondir", "gitdir", "objects", "refs", "packed-refs"})


def _inputs(cwd: Path, home: Path) -> list[str]:
    """Every file and directory whose content decides what git run in ``cwd`` runs: the config
    files it reads (includes and submodules' too), the git dir, the common dir and the hooks
    directory. Raises :class:`ConfigError` when a config file cannot be read."""
    repo = discover(cwd)
    out: list[Path] = []
    entries: list[Entry] = []

    def read(f: Path, depth: int) -> None:   # every file read (an empty included one too), in order
        out.append(f)
        if depth > _MAX_INCLUDE_DEPTH:
            raise ConfigError(f"git config includes nest too deep at {f}")
        for e in read_config(f) or ():
            entries.append(e)
            if e.key == "path" and e.section in ("include", "includeif") and e.value:
                read(_expand(e.value, f.parent, home), depth + 1)

    for f in _config_files(repo, home):
        read(f, 0)
    if repo is not None:
        out += [repo.gitdir, repo.commondir, _hooks_dir(repo, entries, home)]
    return [os.path.normpath(p) for p in dict.fromkeys(out)]


def _within(path: str, top: str) -> bool:
    return path == top or path.startswith(top.rstrip("/") + "/")


def written_inputs(cwd: Path, home: Path, writes: tuple[str, ...] | None) -> str | None:
    """Whether a plain write of the same line (``writes``: absolute paths, None when not known)
    may change what git run in ``cwd`` reads before it runs — a config file, an included file,
    the git dir, the hooks — or create a repository on the way to ``cwd`` (a ``.git``, a
    ``HEAD``/``config``/``objects`` that makes a directory a bare repository): what it is, or
    None. Never raises."""
    if not writes:
        return None if writes == () else "a write of this line whose target is not known"
    try:
        inputs = _inputs(cwd, home)
    except (ConfigError, OSError, ValueError, RecursionError) as exc:
        return f"the repository could not be inspected ({type(exc).__name__})"
    here = os.path.normpath(os.path.abspath(cwd))
    ancestors = [here] + [str(p) for p in Path(here).parents]
    for p in writes:
        for i in inputs:
            if _within(p, i) or _within(i, p):
                return f"{p} (git reads {i})"
        for a in ancestors:
            if _within(a, p):
                return f"{p} (the directory git runs in, or one above it)"
            if _within(p, a) and p[len(a.rstrip("/")) + 1:].split("/", 1)[0] in _DISCOVERY:
                return f"{p} (git looks there for a repository)"
    return None


def _worktree(repo: Repo, home: Path) -> Path | None:
    """Where git takes the repository's work tree: the last ``core.worktree`` of its own
    configuration (relative to the git dir), else the directory that holds its ``.git``."""
    found = [e.value for f in _repo_files(repo) for _p, e in _entries_with_files(f, home)
             if e.section == "core" and e.subsection is None and e.key == "worktree" and e.value]
    if not found:
        return repo.worktree
    return Path(os.path.normpath(os.path.join(repo.gitdir, found[-1])))   # not interpolated by git


def _submodule_gitdir(top: Path) -> Path | None:
    """The git dir git enters for a submodule checked out at ``top`` (``is_submodule_modified``:
    ``top/.git`` as a gitdir file, else as a directory), None when it is not checked out. A
    broken gitdir file makes git die: :class:`ConfigError`."""
    dotgit = top / ".git"
    gitdir = _gitfile(dotgit)
    if gitdir is None and dotgit.is_dir() and _is_gitdir(dotgit):
        gitdir = dotgit
    return gitdir


def _checked_out_submodules(repo: Repo, home: Path) -> list[Repo]:
    """The submodules of ``repo`` that have a git dir in its work tree, absorbed (a ``.git``
    file) or not (a repository of their own): every gitlink of its index and every path its
    ``.gitmodules`` names. An index that is not read exactly leaves them unknown:
    :class:`ConfigError` (fail closed)."""
    from . import index

    top = _worktree(repo, home)
    if top is None:
        return []
    size = index.hash_size(repo)
    links = None if size is None else index.gitlinks(repo.gitdir, size, _MAX_INDEX)
    if links is None:
        raise ConfigError(f"the index of {repo.gitdir} was not read exactly: the submodules git "
                          "may enter are not known")
    paths = [os.fsdecode(n) for n in links]
    paths += [e.value for e in read_config(top / ".gitmodules") or ()
              if e.section == "submodule" and e.key == "path" and e.value]
    out = []
    for rel in dict.fromkeys(paths):
        gitdir = _submodule_gitdir(top / rel)
        if gitdir is not None:
            out.append(_repo(gitdir, top / rel))
    return out


def submodule_repos(repo: Repo, home: Path) -> list[Repo]:
    """Every repository git run in ``repo`` may enter as a submodule (status and diff look
    into each, ``grep --recurse-submodules`` reads them): the git dirs under
    ``<commondir>/modules`` and the checked-out submodules of the work tree
    (:func:`_checked_out_submodules`), theirs in turn. Raises :class:`ConfigError` when they
    cannot all be known (more than ``_MAX_MODULES`` included)."""
    found: dict[str, Repo] = {}
    todo = [repo]
    while todo:
        here = todo.pop()
        subs = _checked_out_submodules(here, home)
        modules = here.commondir / "modules"
        for root, dirs, files in os.walk(modules) if modules.is_dir() else ():
            dirs[:] = [d for d in dirs if d not in ("objects", "refs", "logs", "info")]
            if "config" in files and "HEAD" in files:
                subs.append(Repo(Path(root), Path(root), None))
        for sub in subs:
            key = os.path.realpath(sub.commondir)
            if key in found or key == os.path.realpath(repo.commondir):
                continue
            if len(found) >= _MAX_MODULES:
                raise ConfigError(f"more than {_MAX_MODULES} submodules to inspect")
            found[key] = sub
            todo.append(sub)
    return list(found.values())


def _submodules(repo: Repo, home: Path, problems: list[Problem], aliases: frozenset[str],
                runs: frozenset[Runs], user: list[Entry]) -> None:
    """The problems of every submodule git may enter (:func:`submodule_repos`): its config
    files, and for the read forms its ``post-index-change`` hook (found through ``user``, the
    entries of the user's files, and its own ``core.hooksPath``)."""
    for sub in submodule_repos(repo, home):
        entries = list(user)
        for f in _repo_files(sub):
            _scan_file(f, home, problems, entries, aliases=aliases, runs=runs)
        hooks = _hooks_dir(sub, entries, home)
        if runs is _READ_RUNS and (hooks / "post-index-change").exists():
            problems.append(("a post-index-change hook in a submodule", hooks))


# --- credentials in configuration -----------------------------------------------------------------

# A URL with a password (`scheme://user:pass@`) or, over HTTP(S)/FTP, with any user part
# (`https://<token>@github.com/…`: GitHub and GitLab take a token as the user name).
CREDENTIAL_URL = re.compile(r"[a-z][a-z0-9+.-]*://[^/@\s:]*:[^/@\s]*@|(?:https?|ftps?)://[^/@\s]+@", re.I)
_CREDENTIAL_KEYS = re.compile(r"extraheader|pass|token|secret|cookie", re.I)
# An Authorization header (a comment's too, in a file's text: a reader prints it; in a value
# git joined across a backslash-newline, `Authori\` + `zation: Bearer …`, in the parsed value).
AUTH_HEADER = re.compile(r"\bauthorization\s*:\s*\S", re.I)
# A credential helper keeps its secret elsewhere when it is a helper's name with plain arguments
# naming no password or token (`store --file ~/.git-credentials`, `cache --timeout=3600`: git
# runs `git credential-<name>`), or a command (`!…` or an absolute path, which git runs as a
# shell command) of a git-credential-* program or of one known to keep it elsewhere (GitHub's
# and GitLab's CLIs, AWS CodeCommit's helper: `!/usr/bin/gh auth git-credential`,
# `!aws codecommit credential-helper $@`), with plain arguments too. Any other is a program git
# runs and whose output it sends: a snippet `!f() { echo password=…; }; f` keeps the password in
# the config itself (git sent it as Basic auth), and so may any quoting or expansion of it
# (`!echo username=u; echo pass''word=…`: sent too) or any other program's arguments.
_PLAIN_HELPER = re.compile(r"[\w/.~@:+=-]+(?:[ \t]+(?:[\w/.~@:+=-]+|\$@|\"\$@\"))*[ \t]*")
_HELPER_WORD = re.compile(r"pass|token", re.I)
_SHELL_HELPERS = frozenset({("gh", "auth"), ("glab", "auth"), ("aws", "codecommit")})


def _helper_holds(value: str) -> bool:
    """May this ``credential.helper`` value hold the secret it hands git (see above)?"""
    shell = value.startswith("!")
    cmd = value[1:] if shell else value
    if not cmd.strip():
        return False   # an empty helper resets the list
    if not _PLAIN_HELPER.fullmatch(cmd) or _HELPER_WORD.search(cmd):
        return True
    words = cmd.split()
    if not shell and not words[0].startswith("/"):
        return False
    name = os.path.basename(words[0])
    return not (name.startswith("git-credential-")
                or (name, words[1] if len(words) > 1 else "") in _SHELL_HELPERS)


def credential_entry(e: Entry) -> bool:
    """Does this entry carry a secret git may print or send: a URL with credentials (in the
    value, or in the subsection of ``url.<base>.insteadOf``), an ``http.extraHeader`` or other
    password-like key, an Authorization header in a value, a ``credential.helper`` that may
    print a password written into it?"""
    value = e.value or ""
    return bool(_CREDENTIAL_KEYS.search(e.key) or CREDENTIAL_URL.search(value)
                or CREDENTIAL_URL.search(e.subsection or "") or AUTH_HEADER.search(value)
                or (e.section == "credential" and e.key == "helper" and _helper_holds(value)))


def _entries_with_files(path: Path, home: Path, depth: int = 0) -> Iterator[tuple[Path, Entry]]:
    """Every entry of ``path`` and of the files it includes, with the file it is in. Raises
    :class:`ConfigError` when a file cannot be read or includes nest too deep."""
    if depth > _MAX_INCLUDE_DEPTH:
        raise ConfigError(f"git config includes nest too deep at {path}")
    for e in read_config(path) or ():
        yield path, e
        if e.key == "path" and e.section in ("include", "includeif") and e.value:
            yield from _entries_with_files(_expand(e.value, path.parent, home), home, depth + 1)


_MAX_INCLUDED = 64   # included files followed; the includes of one past it are not looked for


def config_files(cwd: Path, home: Path) -> tuple[list[Path], Path | None]:
    """The files git run in ``cwd`` reads its configuration from before any include: the
    user's (:func:`_user_files`) and those of the repository it finds there; with that
    repository's common dir, whose other worktrees' and submodules' config files git reads
    when it runs in them. A repository git would die on adds none (git reads nothing there)."""
    try:
        repo = discover(cwd)
    except (ConfigError, OSError, ValueError):
        repo = None
    return _config_files(repo, home), (repo.commondir if repo is not None else None)


def included(files: list[Path], home: Path) -> tuple[list[Path], list[Path]]:
    """Every file that ``files`` include, at any depth (``include.path`` and
    ``includeIf.<cond>.path`` whatever the condition, as git expands them: relative to the
    including file as named, ``~`` and ``%(prefix)/`` interpolated), each once; with the files
    whose includes were not all followed (nesting past git's depth, or more than
    ``_MAX_INCLUDED`` files): the caller counts those as unknown. A file that cannot be read
    or parsed includes nothing here (git dies on it), nor does a path git cannot expand."""
    found: dict[Path, None] = {}
    stopped: list[Path] = []
    todo = [(f, 0) for f in reversed(files)]
    while todo:
        f, depth = todo.pop()
        try:
            entries = read_config(f) or ()
        except ConfigError:
            continue
        for e in entries:
            if not (e.key == "path" and e.section in ("include", "includeif") and e.value):
                continue
            if depth >= _MAX_INCLUDE_DEPTH or len(found) >= _MAX_INCLUDED:
                stopped.append(f)
                break
            try:
                p = _expand(e.value, f.parent, home)
            except ConfigError:
                continue
            if p not in found:
                found[p] = None
                todo.append((p, depth + 1))
    return list(found), stopped


def elsewhere_env() -> str | None:
    """The first variable of the environment that makes git use another repository, index,
    object store or more configuration than the checks read (``keys.ELSEWHERE_ENV``), or None."""
    return next((n for n in gitkeys.ELSEWHERE_ENV if n in os.environ), None)


def _named(e: Entry, key: str) -> bool:
    """Is ``e`` the variable ``key`` (``section[.subsection].name``: section and name compared as
    git compares them, the subsection without case too: a superset)? A key git would refuse
    (no dot) names every entry: what git then prints is not modelled."""
    section, dot, rest = key.partition(".")
    sub, _, name = rest.rpartition(".")
    if not dot or not name:
        return True
    return (e.section == section.lower() and e.key == name.lower()
            and (e.subsection or "").lower() == sub.lower())


def credential_source(cwd: Path, home: Path, key: str | None = None) -> str | None:
    """Where the configuration git reads in ``cwd`` holds a credential it may print (remote
    URLs, ``insteadOf`` rewrites, extra headers), or why that cannot be known; None when no file
    in scope holds one. ``key``: only a credential under that variable counts (a read that
    prints its values alone: ``git config user.name``). Never raises."""
    if (name := elsewhere_env() or ("GIT_CONFIG" if "GIT_CONFIG" in os.environ else None)) is not None:
        return f"${name}"   # configuration not read here: fail closed
    try:
        for f in _config_files(discover(cwd), home):
            for path, e in _entries_with_files(f, home):
                if credential_entry(e) and (key is None or _named(e, key)):
                    return str(path)
    except (ConfigError, OSError, ValueError, RecursionError) as exc:
        return f"git config (unreadable: {type(exc).__name__})"
    return None
