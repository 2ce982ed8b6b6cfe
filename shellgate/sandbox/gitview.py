"""git's own configuration, minus its credentials, for a command whose policy hides it.

The policy hides a git config file that holds a credential (``~/.gitconfig`` with a token in a
``url.<base>.insteadOf`` URL, an ``http.extraHeader``, a credential helper's shell snippet; a
file such a config includes: bash/paths/content.py). git cannot tell a file it may not read from
a broken one: every git command in the sandbox died on "unable to access '~/.gitconfig'". So
where a scope git reads (the global one: ``$XDG_CONFIG_HOME/git/config`` then ``~/.gitconfig``,
or ``$GIT_CONFIG_GLOBAL``; the system one: ``/etc/gitconfig`` or ``$GIT_CONFIG_SYSTEM``) has a
hidden file among its files or the files they include, the command gets a copy of the scope —
git's reading of every file (``gitconfig.parse_config``), every credential entry left out
(``gitconfig.credential_entry``, the test that hid the file), every value written back quoted so
that git reads the same entries, each include pointing to a copy of its file — and
``GIT_CONFIG_GLOBAL`` / ``GIT_CONFIG_SYSTEM`` naming it. The hidden files stay hidden.

The copies live in one directory per content (``/tmp/shellgate-gitview-UID/DIGEST``, 0700,
this user's): outside every writable root and the private tmp directories, so that the command
reads them and cannot change them (bwrap replaces /tmp: the directory is bound read-only into
the sandbox's own, ``Policy.shown``). A copy that cannot be made so — a file git would fail on
anyway, an include past the bounds, a directory that is not this user's alone, one inside a
writable root — leaves the scope hidden as before, and the policy says why (``Policy.explain``).

The variables are the sandbox's alone: the gate keeps reading the host's files
(``gitconfig._user_files`` reads the gate's own environment), which hold everything the copy
does and more; a persistent session does not carry them (the sandbox sets them anew).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from .._record import record
from .disk import Disk
from .policy import within_any

ROOT = "/tmp"          # where the copies' directory lives (bwrap binds it into its own /tmp)
_KEEP = 32             # copies kept (the newest by use); older ones are removed
_INCLUDES = frozenset({"include", "includeif"})


@record
class View:
    """What a command gets instead of the hidden scopes: variables for its environment, the
    directory of the copies (to be seen read-only), and why a scope could not be copied
    (its file, the reason)."""

    env: tuple[tuple[str, str], ...] = ()
    shown: tuple[Path, ...] = ()
    explain: tuple[tuple[Path, str], ...] = ()


class NoCopy(Exception):
    """A scope that cannot be copied safely (the message says why)."""


def scopes(env: Mapping[str, str], home: Path) -> list[tuple[str, list[Path]]]:
    """The scopes git reads outside a repository, each as (the variable that replaces it, its
    files in git's order), for a git started with ``env`` and HOME ``home``
    (``git_system_config``, ``git_global_config_paths``: an empty XDG_CONFIG_HOME is unset)."""
    from ..bash.git.keys import git_bool

    out: list[tuple[str, list[Path]]] = []
    if git_bool(env.get("GIT_CONFIG_NOSYSTEM", "")) is not True:
        out.append(("GIT_CONFIG_SYSTEM", [Path(env.get("GIT_CONFIG_SYSTEM") or "/etc/gitconfig")]))
    if env.get("GIT_CONFIG_GLOBAL"):
        out.append(("GIT_CONFIG_GLOBAL", [Path(env["GIT_CONFIG_GLOBAL"])]))
    else:
        xdg = env.get("XDG_CONFIG_HOME") or f"{home}/.config"
        out.append(("GIT_CONFIG_GLOBAL", [Path(xdg) / "git" / "config", home / ".gitconfig"]))
    return out


def view(masked: Iterable[Path], home: Path, env: Mapping[str, str],
         writable: Iterable[Path], disk: Disk | None = None) -> View:
    """The view for a command with these ``masked`` paths, HOME and environment (before this
    view's variables), whose writable places are ``writable`` (its roots and private tmp
    directories). Never raises: a failure is an ``explain`` entry."""
    disk = disk or Disk()
    hidden = tuple(dict.fromkeys(str(p) for p in masked))
    out_env: list[tuple[str, str]] = []
    texts: dict[str, str] = {}
    explain: list[tuple[Path, str]] = []
    for var, roots in scopes(env, home):
        own: dict[str, str] = {}
        try:
            files = _tree(roots, home, disk)
            if not any(_hidden(f, hidden, disk) for f in files):
                continue
            top = _scope_copy(var, roots, files, home, own)
        except NoCopy as exc:
            explain += [(f, str(exc)) for f in roots]
            continue
        texts.update(own)
        out_env.append((var, top))
    if not out_env:
        return View(explain=tuple(explain))
    try:
        where = _store(texts, tuple(writable), disk)
    except (NoCopy, OSError, ValueError) as exc:
        roots = [f for _v, rs in scopes(env, home) for f in rs]
        return View(explain=tuple(explain) + tuple((f, str(exc)) for f in roots))
    return View(tuple((v, str(where / name)) for v, name in out_env), (where,), tuple(explain))


def _hidden(f: Path, hidden: tuple[str, ...], disk: Disk) -> bool:
    s = str(f)
    return within_any(s, hidden) or within_any(disk.realpath(s), hidden)


def _tree(roots: list[Path], home: Path, disk: Disk) -> list[Path]:
    """``roots`` and every file they include, each once, every one noted as read; raises
    :class:`NoCopy` when git's reading of them is not known (a file that cannot be read or
    parsed — git dies on it anyway —, includes past the bounds)."""
    for f in roots:
        disk.note("f", str(f))
    from ..bash.paths.content import file_may_include

    if not any(map(file_may_include, roots)):   # the common case: no git module to import
        return roots
    from ..bash.git import config as gitconfig

    try:
        files, stopped = gitconfig.included(roots, home)
    except (OSError, ValueError, RecursionError) as exc:
        raise NoCopy(f"its includes could not be followed ({type(exc).__name__})") from None
    if stopped:
        raise NoCopy(f"{stopped[0]} includes more files, or deeper, than are followed")
    for f in files:
        disk.note("f", str(f))
    return roots + files


def _entries(f: Path) -> tuple:
    from ..bash.git import config as gitconfig

    try:
        return gitconfig.read_config(f) or ()
    except (gitconfig.ConfigError, RecursionError) as exc:
        raise NoCopy(f"git cannot read {f} as configuration ({exc})") from None


def _scope_copy(var: str, roots: list[Path], files: list[Path], home: Path,
                texts: dict[str, str]) -> str:
    """Write the copies of ``files`` into ``texts`` (name -> text) and return the name of the
    scope's own file: its ``roots`` one after the other, as git reads them in turn (each has a
    copy of its own too, for an include that names it)."""
    names = {f: f"{var.lower()}-{i}" for i, f in enumerate(dict.fromkeys(files))}
    for f, name in names.items():
        texts[name] = serialize(_sanitized(f, home, names))
    top = var.lower()
    texts[top] = "".join(texts[names[f]] for f in roots)
    return top


def _sanitized(f: Path, home: Path, names: dict[Path, str]) -> list:
    """``f``'s entries without its credentials, each include naming the copy of its file
    (relative: git reads it beside the including copy) or, for a file not copied (missing:
    git skips it), its absolute path; ``gitdir:./…`` conditions made absolute (git reads
    ``./`` as the including file's directory)."""
    from ..bash.git import config as gitconfig
    from ..bash.git.config import Entry

    out = []
    for e in _entries(f):
        if gitconfig.credential_entry(e):
            continue
        if e.section in _INCLUDES and e.key == "path" and e.value:
            try:
                target = gitconfig._expand(e.value, f.parent, home)
            except gitconfig.ConfigError as exc:
                raise NoCopy(str(exc)) from None
            e = Entry(e.section, e.subsection, e.key, names.get(target, str(target)))
        sub = e.subsection
        if e.section == "includeif" and sub is not None:
            kind, colon, pattern = sub.partition(":")
            if colon and kind in ("gitdir", "gitdir/i") and pattern.startswith("./"):
                e = Entry(e.section, f"{kind}:{f.parent}/{pattern[2:]}", e.key, e.value)
        out.append(e)
    return out


_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\b": "\\b"})


def serialize(entries: Iterable) -> str:
    """git-config text that git reads back as exactly ``entries`` (``parse_config``'s): every
    value double-quoted with git's escapes (leading and trailing blanks, ``;``, ``#``, quotes
    and backslashes survive), a bare key left bare, a subsection quoted with ``\\`` and ``"``
    escaped (git reads ``\\x`` there as ``x``)."""
    lines: list[str] = []
    head: tuple[str, str | None] | None = None
    for e in entries:
        if (e.section, e.subsection) != head:
            head = (e.section, e.subsection)
            sub = "" if e.subsection is None else (
                ' "' + e.subsection.replace("\\", "\\\\").replace('"', '\\"') + '"')
            lines.append(f"[{e.section}{sub}]")
        lines.append(f"\t{e.key}" if e.value is None else f'\t{e.key} = "{e.value.translate(_ESCAPES)}"')
    return "".join(line + "\n" for line in lines)


def _store(texts: dict[str, str], writable: tuple[Path, ...], disk: Disk) -> Path:
    """The directory holding ``texts`` (made when missing, checked when present): under
    :data:`ROOT`, this user's alone, outside every ``writable`` place. Raises :class:`NoCopy`."""
    import hashlib  # (here: the hook path without a view must not load them)
    import tempfile

    from ..bash.paths.content import holds_credential

    digest = hashlib.sha256(repr(sorted(texts.items())).encode("utf-8", "surrogatepass")).hexdigest()
    base = Path(ROOT) / f"shellgate-gitview-{os.getuid()}"
    real_roots = tuple(os.path.realpath(w) for w in writable)
    if within_any(os.path.realpath(base), real_roots) or within_any(str(base), tuple(map(str, writable))):
        raise NoCopy(f"{base} lies inside a place the command may write")
    with contextlib.suppress(FileExistsError):
        os.mkdir(base, 0o700)
    _own_dir(base)
    where = base / digest[:32]
    if not os.path.lexists(where):
        tmp = Path(tempfile.mkdtemp(prefix=".new-", dir=base))
        try:
            for name, text in texts.items():
                fd = os.open(tmp / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o400)
                with os.fdopen(fd, "w", encoding="utf-8", errors="surrogatepass") as fh:
                    fh.write(text)
                if holds_credential(str(tmp / name), "git-config"):   # never: the same test
                    raise NoCopy("the copy still held a credential by the content check")
            os.chmod(tmp, 0o700)
            with contextlib.suppress(OSError):   # made by another process meanwhile: checked below
                os.rename(tmp, where)
        finally:
            if tmp.exists():
                _remove(tmp)
        _trim(base, where)
    _own_dir(where)
    for name, text in texts.items():
        from .._plain import read_plain

        try:
            same = read_plain(where / name, 1 << 24).decode("utf-8", "surrogatepass") == text
        except (OSError, ValueError):
            same = False
        if not same:
            raise NoCopy(f"{where / name} is not the copy it should be")
        disk.note("f", str(where / name))
    with contextlib.suppress(OSError):
        os.utime(where)   # in use: kept by the trim
    return where


def _own_dir(d: Path) -> None:
    st = os.lstat(d)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o077:
        raise NoCopy(f"{d} is not a directory of this user's alone")


def _trim(base: Path, keep: Path) -> None:
    """Remove all but the :data:`_KEEP` most recently used copies (a command still running
    with a removed one reads no global config: git skips a missing file)."""
    with contextlib.suppress(OSError):
        dirs = sorted((p for p in base.iterdir() if p != keep and not p.name.startswith(".")),
                      key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in dirs[_KEEP - 1:]:
            _remove(old)


def _remove(d: Path) -> None:
    import shutil

    with contextlib.suppress(OSError):
        for p in d.iterdir():
            p.chmod(0o600)
    shutil.rmtree(d, ignore_errors=True)
