"""Which paths a default policy protects and hides, as data, and the policy builder.

Protected (implant class): one write makes code run later, outside the sandbox — shell rc
files, git hooks and config, editor run configs, agent settings. They stay readable but are
re-bound read-only inside every writable root (sandbox-runtime's mandatory deny list plus the
SPEC §3 implant list). Masked (leak class): credentials the command has no business reading,
and sockets that would let it act outside the sandbox (docker, the system/user D-Bus).
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from .._xdg import cache_dir, read_cache, write_atomic
from .disk import Disk
from .links import Linked, other_names
from .policy import Limits, Policy, within
from .worktree import GitLayout, find_layout, git_paths

# Relative to the top of every writable root (the implant names of the classifier's table that
# commonly sit at a project's top, plus the agents' and tools' run configs).
PROTECTED_NAMES: tuple[str, ...] = (
    ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
    ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout",
    ".gitconfig", ".gitmodules", ".envrc", ".npmrc", ".yarnrc.yml", ".ripgreprc",
    ".mcp.json", ".claude.json", ".claude/settings.json", ".claude/settings.local.json",
    ".claude/commands", ".claude/agents", ".claude/hooks", ".claude/skills", ".codex", ".gemini",
    ".cursor", ".vscode", ".idea", ".shellgate", ".husky", ".pre-commit-config.yaml",
    ".github/workflows", ".devcontainer", ".cargo/config", ".cargo/config.toml", "pip.conf",
    ".local/bin", ".config/shellgate", ".local/state/shellgate", ".cache/shellgate",
)

# Leak-class paths are derived from the classifier's table (bash/paths/tables.py), so the sandbox
# hides exactly what the classifier guards. These few stay visible: hiding them breaks the
# tools that read them for their configuration (git without .git/config fails every command),
# and their secrets are the classifier's to guard.
_VISIBLE_LEAKS: tuple[str, ...] = (".git/config",)

# Absolute: sockets whose peer runs commands for us outside the sandbox, hidden even where the
# network is granted (without it, no Unix socket can be made at all: seccomp.py).
MASKED_ABSOLUTE: tuple[str, ...] = (
    "/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock",
    "/run/podman/podman.sock", "/run/dbus/system_bus_socket", "/var/run/dbus/system_bus_socket",
    "/run/systemd/private", "/run/user/{uid}",
)


@functools.lru_cache(maxsize=64)
def _protected_in(root: Path) -> tuple[Path, ...]:
    return tuple(root / n for n in PROTECTED_NAMES)


# A workspace virtualenv's hooks, at the places a project keeps its environment: `.pth` lines
# and site/usercustomize run at every Python start, the activate scripts in the user's shell
# (the table's `**/site-packages/*.pth`, `**/bin/activate*` …). A glob protects only what
# exists (a literal name that is missing is watched and its creation undone, guard.py): a new
# virtualenv must be creatable with its .pth files and activate scripts; an existing one's
# are the implant. No virtualenv writes a sitecustomize.py of its own.
_VENV_PTH = tuple(f"{venv}/lib/python*/{sp}-packages/{name}" for venv in (".venv", "venv")
                  for sp in ("site", "dist")
                  for name in ("*.pth", "sitecustomize.py", "usercustomize.py")) + tuple(
    f"{venv}/bin/{name}" for venv in (".venv", "venv") for name in ("activate*", "?ctivate.ps1"))


# (alternative, exclusion globs, leak, implant, the table's pattern, its content check) for every
# entry.
Alt = tuple[str, tuple[str, ...], bool, bool, str, str]


@functools.lru_cache(maxsize=1)
def table_alts() -> tuple[Alt, ...]:
    """The classifier's sensitive-path table (bash/paths/tables.py) brace-expanded, entry by
    entry: what every sandbox profile derives its masks and protected paths from. Kept in
    shellgate's cache keyed by the table file (a hook is a new process each call, and the
    expansion is ~1.5 ms of it)."""
    import json

    from ..bash.paths import tables as pathlists

    src = Path(pathlists.__file__)
    try:
        st = src.stat()
        key = [str(src), st.st_size, st.st_mtime_ns]
    except OSError:
        key = []
    cache = cache_dir() / "table.json"
    try:
        saved = json.loads(read_cache(cache))
        if key and saved.get("key") == key:
            return tuple((a, tuple(x), lk, im, pat, w) for a, x, lk, im, pat, w in saved["alts"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    from ..bash.paths.globs import expand_braces

    alts = tuple((alt, tuple(r.exclude), r.leak, r.implant, r.pattern, r.when)
                 for r in pathlists.RULES for alt in expand_braces(r.pattern))
    if key:
        write_atomic(cache, json.dumps({"key": key, "alts": alts}).encode())
    return alts


@functools.lru_cache(maxsize=1)
def _relative_implants() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The classifier's implant entries that sit at a fixed place below a project's top
    (``.mcp.json``, ``.claude/settings*.json``, ``*.code-workspace`` …), brace-expanded;
    ``.git/…`` is git_paths' and ``**/…`` has no fixed place."""
    out = [(alt, excl) for alt, excl, _leak, implant, _p, _w in table_alts()
           if implant and not alt.startswith((".git/", "~", "/", "**"))]
    return tuple(out) + tuple((p, ()) for p in _VENV_PTH)


def protected_paths(roots: Iterable[Path], layouts: Iterable[GitLayout],
                    disk: Disk | None = None) -> tuple[Path, ...]:
    """Implant paths inside ``roots`` — :data:`PROTECTED_NAMES` and the classifier's fixed-place
    implant entries, globs matched on disk now — plus the git hooks/config of ``layouts`` (the
    directory a ``core.hooksPath`` names is :func:`hooks_dirs`')."""
    disk = disk or Disk()
    out: list[Path] = []
    for r in roots:
        out += _protected_in(r)
        for pattern, exclude in _relative_implants():
            out += _on_disk(r, pattern.split("/"), exclude, disk)
    for lay in layouts:
        out += git_paths(lay, disk)[1]
    return tuple(dict.fromkeys(out))


def hooks_dirs(layout: GitLayout, home: Path, disk: Disk | None = None) -> tuple[Path, ...]:
    """The hooks directory git uses for ``layout`` when ``core.hooksPath`` moves it (the bash
    core's own reading: ``gitconfig.protected_locations``, the very paths the classifier calls
    implants). A configuration that cannot be read names nothing more here: the classifier
    fails closed on it. ``disk`` is told of every configuration file read (a remembered hook
    line rests on them)."""
    from ..bash.git import config as gitconfig

    disk = disk or Disk()
    try:
        repo = gitconfig.discover(layout.top)
        if repo is None:
            return ()
        for f in gitconfig.files_in_scope(repo, home):
            disk.note("f", str(f))
        hooks = gitconfig.protected_locations(repo, home)[-1]
    except (gitconfig.ConfigError, OSError, ValueError, RecursionError):
        return ()
    return () if hooks == layout.common / "hooks" else (hooks,)


def own_state(home: Path | None = None) -> tuple[Path, ...]:
    """shellgate's own configuration, approvals, audit log and caches, wherever ``XDG_*`` put
    them (and at their default places under ``home``): read-only in every tier, for every tool
    (a command that could write them could allow itself anything in the next call), and hidden
    as the path table hides their default places (``~/.config/shellgate/**`` …): they hold the
    serve key (a command that read it could pose as ``shellgate serve``, hookclient.py), the
    approvals and the rules."""
    from .._xdg import own_dirs

    return own_dirs(home)


def masked_paths(home: Path, disk: Disk | None = None) -> tuple[Path, ...]:
    """Every leak-class path of the classifier's table under ``home`` or at an absolute place
    (literal ones whether they exist or not — the tiers skip missing paths; globs expanded on
    disk now; a ``**`` hides its whole directory), plus the sockets of :data:`MASKED_ABSOLUTE`.
    Workspace-relative entries (``.env``, ``*.pem``) are found by :func:`workspace_secrets`.
    An entry with a content check (``PathRule.when``: ``~/.gitconfig``) hides its file where
    the file holds a credential now, as the classifier's check of a read finds it."""
    disk = disk or Disk()
    uid = os.getuid()
    out: list[Path] = []
    from .._xdg import moved_xdg

    moved = moved_xdg()
    for alt, exclude, leak, _implant, pattern, when in table_alts():
        if not leak or pattern in _VISIBLE_LEAKS:
            continue
        these: list[Path] = []
        for default, directory in moved:   # `~/.config/gh/hosts.yml` where XDG_CONFIG_HOME puts it
            if alt.startswith(f"~/{default}/"):
                these += _on_disk(Path(directory), alt[len(default) + 3:].split("/"), exclude, disk)
        found = _rooted(alt, exclude, home, disk)
        if found is not None:
            these += found
        elif "/" not in alt and not _GLOB & set(alt):   # an anywhere-name: HOME's own too
            these.append(home / alt)
        out += _holding(these, when, disk) if when else these
    out += [Path(p.format(uid=uid)) for p in MASKED_ABSOLUTE]
    return tuple(dict.fromkeys(out))


def git_included_secrets(roots: Iterable[Path], home: Path, disk: Disk | None = None) -> tuple[Path, ...]:
    """The files the git configuration read in ``roots`` (the user's and each root's
    repository's) includes that hold a credential (``~/.gitconfig``'s ``[include] path =
    ~/.gitconfig-work``, a CI checkout's ``includeIf`` of a credentials file): the classifier's
    leak entries of the same name (bash/paths/content.py), each file read noted."""
    from ..bash.paths.content import git_included_secrets as found

    return tuple(Path(p) for p in found(roots, home, (disk or Disk()).note))


def _holding(paths: list[Path], when: str, disk: Disk) -> list[Path]:
    """The ``paths`` that hold a credential by the content check ``when`` (each noted as a
    file read: a remembered policy is made anew when one changes)."""
    from ..bash.paths.content import holds_credential

    out = []
    for p in paths:
        disk.note("f", str(p))
        if holds_credential(str(p), when):
            out.append(p)
    return out


def _rooted(alt: str, exclude: tuple[str, ...], home: Path, disk: Disk) -> list[Path] | None:
    """The paths on disk of a table pattern anchored at HOME (``~/…``) or ``/``; None for a
    pattern that may match anywhere (the workspace walk finds those)."""
    if alt.startswith("~/"):
        return _on_disk(home, alt[2:].split("/"), exclude, disk)
    if alt.startswith("/"):   # /proc and /dev are the sandbox's own (no disk, no memory device)
        return [] if alt.startswith(("/proc/", "/dev/")) else _on_disk(Path("/"), alt[1:].split("/"),
                                                                       exclude, disk)
    return None


_GLOB = frozenset("*?[")
_MAX_LIST = 512   # entries looked at per globbed directory


def _on_disk(base: Path, segs: list[str], exclude: tuple[str, ...], disk: Disk) -> list[Path]:
    """The paths under ``base`` that the pattern segments ``segs`` name, as far as the disk
    shows: literal segments are followed, a glob segment is matched against the directory's
    entries, and ``**`` (or a glob with more segments after it) stops at the directory, which
    is then hidden whole. Paths that do not exist are left out."""
    import fnmatch

    here = [str(base).rstrip("/")]   # plain strings: this runs for every table entry
    for seg in segs:
        if seg == "**":
            break
        if not _GLOB & set(seg):
            here = [f"{p}/{seg}" for p in here]
            continue
        found: list[str] = []
        for d in here:
            names = disk.listdir(d or "/")[:_MAX_LIST]
            found += [f"{d}/{n}" for n in names if fnmatch.fnmatch(n, seg)
                      and not any(fnmatch.fnmatch(n, x) for x in exclude)]
        here = found
        if not here:
            return []
    return [Path(p or "/") for p in here]


def build_policy(workspace: str | Path, *, base: str | Path | None = None,
                 home: str | Path | None = None, network: bool = False,
                 writable: Iterable[str | Path] = (), readonly: Iterable[str | Path] = (),
                 masked: Iterable[str | Path] = (), tmpdir: str | Path | None = None,
                 env_passthrough: Iterable[str] = (), env_set: Iterable[tuple[str, str]] = (),
                 limits: Limits | None = None, disk: Disk | None = None, write: bool = True,
                 git_view: bool = True) -> Policy:
    """The default policy for a command whose workspace is ``workspace``.

    ``base`` is the workspace the session started in (it stays writable when the live cwd has
    moved into a worktree). For every writable root that is a git worktree, the parts of its
    git dir that commits need are writable too, and its hooks/config are protected. The other
    names inside the roots of an implant or secret file (hard links: links.py) are protected
    as the file is; raises :class:`.links.LinkedUnknown` when they cannot all be found.
    ``disk``: where the disk is looked at (a recording one tells what the policy rests on).
    ``write``: False for a read grant (nothing writable, no links to look for).
    ``git_view``: give the command a copy of a git configuration the policy hides, for the
    environment the sandbox builds from ``os.environ`` (:func:`with_git_view`; False: the
    caller does, for another environment).
    """
    disk = disk or Disk()
    ws = Path(workspace).absolute()
    user_roots = [ws] + ([Path(base).absolute()] if base is not None else [])
    user_roots = list(dict.fromkeys(user_roots + [Path(p).absolute() for p in writable]))
    layouts: list[GitLayout] = []
    git_writable: list[Path] = []
    for r in user_roots:
        lay = find_layout(r, disk)
        if lay is not None and lay.top == r and lay not in layouts:
            layouts.append(lay)
            git_writable += git_paths(lay, disk)[0]
    home_path = Path(home).absolute() if home else Path(os.path.expanduser("~"))
    own = own_state(home_path)
    hooks = tuple(h for lay in layouts for h in hooks_dirs(lay, home_path, disk))
    for d in own + hooks:   # an existing directory can be bound read-only; a missing one could be made
        if any(within(d, r) for r in user_roots):
            with contextlib.suppress(OSError):
                d.mkdir(mode=0o700, parents=True, exist_ok=True)
    writable_roots = tuple(dict.fromkeys(user_roots + git_writable))
    linked = other_names(writable_roots, home_path, ws, disk) if write else Linked()
    policy = Policy(
        workspace=ws,
        writable=writable_roots,
        readonly=tuple(dict.fromkeys(protected_paths(user_roots, layouts, disk) + hooks)) + own
        + tuple(Path(p).absolute() for p in readonly) + linked.readonly,
        masked=masked_paths(home_path, disk) + git_included_secrets(user_roots, home_path, disk) + own
        + tuple(Path(p).absolute() for p in masked)
        + linked.masked,
        linked=linked.files,
        write=write,
        network=network,
        home=home_path,
        tmpdir=Path(tmpdir).absolute() if tmpdir else None,
        env_passthrough=tuple(env_passthrough),
        env_set=tuple(env_set),
        limits=limits or Limits(),
    )
    if not git_view:
        return policy
    from .env import build_env

    env = build_env(os.environ, home=home_path, tmpdir=Path("/tmp"), cwd=ws,
                    passthrough=policy.env_passthrough, explicit=policy.env_set)
    return with_git_view(policy, env, disk)


def with_git_view(policy: Policy, env: Mapping[str, str], disk: Disk | None = None) -> Policy:
    """``policy`` with a copy of each git configuration scope it hides a file of, without the
    credentials, for a command that starts with ``env`` (:mod:`.gitview`): its variables set,
    its directory shown; or the reason there is none (``Policy.explain``)."""
    from .._record import replace
    from .gitview import view

    home = policy.home or Path(os.path.expanduser("~"))
    writable = (*policy.roots(), *((policy.tmpdir,) if policy.tmpdir else ()), Path("/dev/shm"))
    v = view(policy.masked, home, env, writable, disk)
    if not (v.env or v.explain):
        return policy
    return replace(policy, env_set=policy.env_set + v.env, shown=policy.shown + v.shown,
                   explain=policy.explain + v.explain)


# Entries the hook's secret walk reads (~8 µs each) before it stops: every allowed hook call
# pays for it, so it is a fifth of a recursive reader's bound (that check is the classifier's
# and fails closed; this one only hides more, and says in the reason when it stopped).
SECRET_WALK = 2000


def workspace_secrets(root: Path, home: Path | None = None, disk: Disk | None = None,
                      watched: tuple[str, ...] = ()) -> tuple[tuple[Path, ...], bool]:
    """Leak-class files under ``root`` (``.env``, ``*.pem``, ``id_rsa``, ``.netrc`` …, and
    where a symlink below leads to a secret), found by the very walk and table a recursive
    reader's check uses (bash/paths/resolve.py ``leaks_below``: dependency caches and ``.git``
    skipped), within :data:`SECRET_WALK` entries. Returns (paths, complete)."""
    from ..bash.paths.resolve import leaks_below

    home = home or Path(os.path.expanduser("~"))
    found, complete = leaks_below(str(root), str(home), SECRET_WALK, (disk or Disk()).note,
                                  watched=watched)
    return tuple(Path(p) for p in found), complete


def grant_policy(workspace: str | Path, *, write: bool, network: bool, home: str | Path | None = None,
                 disk: Disk | None = None, watched: tuple[str, ...] = (),
                 guarded: tuple[str, ...] = (),
                 limits: Limits | None = None) -> tuple[Policy, tuple[str, ...]]:
    """The policy for a hook's confined command: :func:`build_policy` (nothing writable
    unless ``write``) with the workspace's own secret files hidden too, what the policy's
    read rules name hidden (``watched``) and what its deny edit rules name read-only
    (``guarded``; both in the path table's syntax: ``Context.watched``, ``RuleSet.guarded``);
    ``limits``: the ``[sandbox]`` bounds the line heeds (:func:`.enforce.confine`).
    Returns it with notes for the user (a secret walk cut short)."""
    from .._record import replace

    disk = disk or Disk()
    base = build_policy(workspace, home=home, network=network, disk=disk, write=write,
                        limits=limits, git_view=False)   # the view comes last, over every mask
    if base.home is not None:
        disk.realpath(str(base.home))   # the path table's HOME aliases follow it
    secrets, complete = workspace_secrets(base.workspace, base.home, disk, watched)
    notes = () if complete else (f"the workspace's secret scan stopped after {SECRET_WALK} "
                                 "entries: secret files past them are not hidden",)
    home_path = base.home or Path(os.path.expanduser("~"))
    # names anywhere: the walk above found them; anchored ones: followed on disk
    named = named_paths(watched, home_path, (), disk)
    kept = guarded_paths(base.roots() if write else (), home_path, guarded, disk)
    policy = with_git_view(replace(base, write=write, masked=base.masked + secrets + named,
                                   readonly=base.readonly + kept), os.environ, disk)
    return policy, notes + tuple(_explained(policy))


def _explained(policy: Policy) -> list[str]:
    """The notes that say why a hidden git config has no copy (``Policy.explain``)."""
    return [f"{path} stays hidden inside the sandbox, where git fails on it: it holds a "
            f"credential and no copy without it could be made ({why})"
            for path, why in dict.fromkeys(policy.explain)]


def guarded_paths(roots: Iterable[Path], home: Path, guarded: tuple[str, ...],
                  disk: Disk | None = None) -> tuple[Path, ...]:
    """The paths inside the writable ``roots`` that the deny edit rules name (``guarded``, in
    the path table's syntax: ``RuleSet.guarded``): bound read-only, so that a command the
    classifier read wrongly (``truncate``, ``dd of=``, a script, ``find -delete``) still
    cannot change them. Outside the roots everything is read-only already. A path that does
    not exist yet cannot be bound: the classifier alone keeps it from being created."""
    roots = tuple(roots)
    return tuple(p for p in named_paths(guarded, home, roots, disk)
                 if any(within(p, r) for r in roots))


def named_paths(globs: tuple[str, ...], home: Path, walk: Iterable[Path],
                disk: Disk | None = None) -> tuple[Path, ...]:
    """The paths on disk that path-table globs name (a policy's rules: ``RuleSet.watched``,
    ``RuleSet.guarded``). One anchored at HOME or ``/`` is followed on disk, and a trailing
    ``/**`` names the directory whole; a ``**`` inside it (``/w/**/*.key``) is the secret walk
    of the directory before it, keeping what the rest matches (never that directory whole:
    ``Read(**/*.key)`` must not hide the workspace); a name anywhere (``*.key``) is the
    secret walk of each ``walk`` root. Walks keep to the secret walk's bound."""
    if not globs:
        return ()
    disk = disk or Disk()
    out: list[Path] = []
    below: list[tuple[Path, str]] = []   # (directory, the glob below it)
    for g in globs:
        head, deep, rest = g.partition("/**/")
        found = _rooted(head if deep else g, (), home, disk)
        if found is None:
            below += [(Path(r), g) for r in walk]
        elif deep:
            below += [(d, rest) for d in found if disk.isdir(str(d))]
        else:
            out += found
    for root, glob in below:
        hits, _ = workspace_secrets(root, home, disk, (glob,))
        out += [a for p in hits if (a := _named_anywhere(p, root, glob)) is not None]
    return tuple(dict.fromkeys(out))


def _named_anywhere(path: Path, root: Path, glob: str) -> Path | None:
    """The highest of ``path`` and its parents below ``root`` whose last segments the
    name-anywhere table glob matches (case folded, as the table folds it), or None (the walk
    also finds the table's own secrets, and links leading to them)."""
    import fnmatch

    try:
        rel = path.relative_to(root).parts
    except ValueError:
        return None
    body = glob[:-3] if glob.endswith("/**") else glob
    n = body.count("/") + 1
    for end in range(n, len(rel) + 1):
        if fnmatch.fnmatchcase("/".join(rel[end - n:end]).lower(), body.lower()):
            return root.joinpath(*rel[:end])
    return None
