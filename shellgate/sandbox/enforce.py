"""The confined line a hook hands back to the agent (SPEC §9): its command, run by bash inside
a sandbox cut to the grant, spelled as one line that the agent's own shell (bash or zsh) runs.

In hook mode the agent runs the command itself, so an *allow* is only as good as the
classifier — unless the allowed command is rewritten to run confined. The line built here::

    { __sg_d=$(BWRAP … --chdir "$PWD" -- BASH -c SCRIPT 9<FILTER 3>&1 1>&4 4>&-); } 4>&1;
    __sg_s=$?; [ -z "$__sg_d" ] || [ "$__sg_d" = "$PWD" ] || cd -- "$__sg_d" 2>/dev/null;
    unset __sg_d; (exit $__sg_s)

keeps stdin, stdout, stderr and the exit status the agent's, and reports the inner shell's
final directory on fd 3 (read by the command substitution, which sees nothing else), so that a
``cd`` inside the command still moves the agent's shell: Claude Code records the cwd after each
command. The subshell unsets secret-named variables (matched without regard to case) before it
execs bwrap; SCRIPT (:data:`INNER_SCRIPT`) evals the command, its first argument, with fd 3
closed and writes ``$PWD`` to fd 3 from an EXIT trap.

Tiers: bwrap (a fresh tmpfs /tmp, the mounts of :mod:`.bwrap`, the seccomp filter read from a
file in shellgate's cache, which every grant keeps read-only), or Landlock + seccomp applied by
``python -I -m shellgate.sandbox.confine``, which spawns bash restricted and restores the
protected paths afterwards (~30–60 ms more: a Python start). The tier is probed once and
remembered across hook processes (``$XDG_CACHE_HOME/shellgate/probe.json``, keyed by the bwrap
binaries and the kernel, its programs vetted again on every read).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .._plain import read_plain
from .._record import record
from .._xdg import cache_dir, read_cache, write_atomic
from .disk import Disk, still_true
from .env import DENIED
from .probe import Tier

if TYPE_CHECKING:
    from .policy import Limits, Policy

MAX_LINE = 120_000   # below Linux's 128 KiB limit on one argument (MAX_ARG_STRLEN)
INNER_FD = 3         # the inner shell's final $PWD comes back on this fd
FILTER_FD = 9
WATCH_FD = 5         # bwrap reports its sandbox's init to the undo's watcher on this fd


@record
class Confined:
    """A command rewritten to run confined: ``line`` for the agent, ``tier`` that confines it,
    ``notes`` for the reason text (e.g. a secret scan cut short)."""

    line: str
    tier: str
    notes: tuple[str, ...] = ()


class CannotConfine(Exception):
    """The command cannot be run confined (no tier here, too long, an unbuildable policy)."""


# --------------------------------------------------------------------------- the tier

@record
class HookTier:
    """What a hook confines with: the tier, its binaries, and the seccomp filter files
    (without, with network)."""

    tier: Tier
    bwrap: str | None
    bash: str
    filters: tuple[str, str] = ("", "")
    tmpfs_size: bool = True      # the bwrap takes --size (probe.Probe.tmpfs_size)

    def filter(self, network: bool) -> Path:
        """The filter file for ``network`` (re-written if it went missing)."""
        path = self.filters[network]
        return Path(path) if path and os.path.exists(path) else filter_file(network)


def _probe_key() -> list[object]:
    """What the remembered probe depends on: the kernel, the user, the filter code, and every
    bwrap of the system directories (``trusted.SYSTEM_DIRS``, stat only: a changed file means
    a new probe)."""
    from .trusted import SYSTEM_DIRS

    here = os.stat(Path(__file__).with_name("seccomp.py"))   # a new filter means new files
    key: list[object] = [os.uname().release, os.getuid(), here.st_size, here.st_mtime_ns]
    for d in SYSTEM_DIRS:
        try:
            st = os.stat(os.path.join(d, "bwrap"))
        except OSError:
            continue
        key.append([d, st.st_ino, st.st_size, st.st_mtime_ns, st.st_mode, st.st_uid])
    return key


def _saved_tier(path: Path, key: list[object]) -> HookTier | None:
    """The remembered answer, when it is for ``key`` and still sound: the programs it names
    pass the trust check again (they run on the host: a remembered path is never believed on
    its word) and it names a filter file for each network setting. Else None: probe anew."""
    from .trusted import Trusted, vet

    try:
        saved = json.loads(read_cache(path))
        if saved.get("key") != key:
            return None
        tier, bwrap, bash = Tier(saved["tier"]), saved.get("bwrap"), saved["bash"]
        filters = saved["filters"]
        sized = saved["tmpfs_size"]   # a file from before the field: probe anew
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if not (isinstance(bash, str) and isinstance(sized, bool) and isinstance(filters, list)
            and len(filters) == 2
            and all(isinstance(f, str) for f in filters)):
        return None
    programs = [bash] + ([bwrap] if tier is Tier.BWRAP else [])
    if not all(isinstance(p, str) and isinstance(vet(p), Trusted) for p in programs):
        return None
    return HookTier(tier, bwrap, bash, (filters[0], filters[1]), sized)


def hook_tier() -> HookTier:
    """The probe's answer for hooks, remembered across processes while the bwrap binaries,
    the kernel and the filter code stay the same (a hook is a new process each call; the
    self-test costs ~15 ms, building the filter ~5 ms of imports)."""
    path = cache_dir() / "probe.json"
    key = _probe_key()
    if (saved := _saved_tier(path, key)) is not None:
        return saved
    from .probe import probe

    p = probe()
    filters = ("", "")
    if p.tier is not Tier.NONE:
        with contextlib.suppress(CannotConfine):
            filters = (str(filter_file(False)), str(filter_file(True)))
    write_atomic(path, json.dumps({"key": key, "tier": str(p.tier), "bwrap": p.bwrap,
                                     "bash": p.bash, "filters": filters,
                                     "tmpfs_size": p.tmpfs_size}).encode())
    return HookTier(p.tier, p.bwrap, p.bash, filters, p.tmpfs_size)


def filter_file(network: bool) -> Path:
    """The seccomp filter as a file the line can open as fd 9 (content-addressed: a stale or
    altered file is never used, a fresh one is written)."""
    import hashlib

    from .seccomp import filter_bytes

    data = filter_bytes(network)
    digest = hashlib.sha256(data).hexdigest()[:16]
    path = cache_dir() / f"seccomp-{'net' if network else 'nonet'}-{digest}.bpf"
    try:
        if read_plain(path, len(data)) == data:
            return path
    except OSError:
        pass
    write_atomic(path, data)
    try:
        if read_plain(path, len(data)) == data:
            return path
    except OSError:
        pass
    raise CannotConfine(f"the seccomp filter could not be written to {path}")


# --------------------------------------------------------------------------- the line

def _fold(glob: str) -> str:
    """``glob`` matching without regard to case, in any shell's ``case`` (``[Kk][Ee][Yy]``)."""
    return "".join(f"[{c.upper()}{c.lower()}]" if c.isalpha() else c for c in glob)


def _secret_env() -> str:
    """A ``case`` pattern list of the secret-named variables (:data:`.env.DENIED`)."""
    return "|".join(map(_fold, DENIED))


def _bash_loops() -> str:
    """bash's share of :func:`_unset_secrets`: names grouped by first letter (``${!A*} ${!a*}``
    …), each group's ``case`` holding only the patterns that can match a name starting so —
    the ``*TOKEN*``-like ones and that letter's own (``AWS_*``) — matched with ``nocasematch``
    in the C locale (plain patterns: a third of the text to parse and match), the locale put
    back before bwrap starts. Together ~2.5 ms less than one folded ``case`` of every pattern."""
    anywhere = [p for p in DENIED if not p[0].isalpha()]
    groups: dict[tuple[str, ...], list[str]] = {}
    for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ_":   # (no `string` import)
        groups.setdefault(tuple(p for p in DENIED if p[0].upper() == c), []).append(c)
    loops = []
    for own, starts in groups.items():
        names = " ".join(f"${{!{c}*}}" + (f" ${{!{c.lower()}*}}" if c.isalpha() else "")
                         for c in starts)
        pats = "|".join(anywhere + list(own))
        loops.append(f"for __sg_v in {names}; do case $__sg_v in {pats}) "
                     "unset $__sg_v 2>/dev/null;; esac; done")
    # ASCII case folding is exact only in the C locale (a Turkish one folds I to dotless ı).
    return ("__sg_l=${LC_ALL-}; __sg_s=${LC_ALL+x}; LC_ALL=C; shopt -s nocasematch; "
            + "; ".join(loops) + "; shopt -u nocasematch; "
            'if [ -n "$__sg_s" ]; then LC_ALL=$__sg_l; else unset LC_ALL; fi; '
            "unset __sg_l __sg_s")


@functools.lru_cache(maxsize=1)
def _unset_secrets() -> str:
    """Shell words that unset every secret-named variable, in whichever shell runs them, with
    no fork: zsh walks its parameter table, bash expands ``${!A*}`` … ``${!_*}`` (each inside
    ``eval``, so that the other shell never parses it); another shell asks ``env``. Case is
    never folded in the agent's locale (a Turkish one maps ``i`` to ``İ``): zsh and the other
    shells match classes (``[Kk]``), bash matches with ``nocasematch`` in the C locale."""
    body = f"do case $__sg_v in {_secret_env()}) unset $__sg_v 2>/dev/null;; esac; done"
    zsh_names = "${(k)parameters[(R)*export*]}"
    return (f"if [ -n \"${{ZSH_VERSION-}}\" ]; then eval 'for __sg_v in {zsh_names}; {body}'; "
            f"elif [ -n \"${{BASH_VERSION-}}\" ]; then eval '{_bash_loops()}'; "
            "else for __sg_v in $(env | sed -n 's/^\\([A-Za-z_][A-Za-z0-9_]*\\)=.*/\\1/p'); "
            f"{body}; fi")


# What the sandboxed bash runs, the command being its first argument: ``eval`` with the report
# fd closed for the whole command — a stray ``}`` or an unterminated here-doc in the command
# cannot end a wrapper early and leave fd 3 open to what follows — then ``$PWD`` reported on
# exit. ``shift`` leaves ``$@`` empty and ``$0`` "bash", as for ``bash -c COMMAND``.
INNER_SCRIPT = (f"exec {FILTER_FD}<&-; trap 'printf %s \"$PWD\" >&{INNER_FD}' EXIT; "
                f'__sg_c=$1; shift; eval "$__sg_c" {INNER_FD}>&-')


def _inner(policy: Policy) -> str:
    """:data:`INNER_SCRIPT`, exporting the policy's own variables first (``Policy.env_set``:
    the copy of a hidden git config, gitview.py) — inside the sandbox alone, never in the
    agent's shell, in either tier alike."""
    if not policy.env_set:
        return INNER_SCRIPT
    return "".join(f"export {name}={shlex.quote(value)}; " for name, value in policy.env_set
                   if not _unsettable(name)) + INNER_SCRIPT


_NAME = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789")


def _unsettable(name: str) -> bool:
    """A variable name no shell can ``unset``: not an identifier (``MY-TOKEN``, ``1X``)."""
    return not set(name) <= _NAME or name[:1].isdigit()


def _odd_secrets() -> list[str]:
    """``env -u`` words for secret-named variables no shell can unset: names that are not
    identifiers pass through bash and zsh untouched. A shell cannot create them, so the
    agent's shell has only what the agent started it with — the environment this hook
    inherits from the same agent. None here: no words, no extra ``exec``."""
    from .env import denied

    odd = [k for k in os.environ if _unsettable(k) and denied(k)]
    if not odd:
        return []
    from .trusted import find_program

    found, _ = find_program("env")
    if not found:
        raise CannotConfine(f"no trusted env program to clear {odd[0]!r} with")
    return [found[0].path] + [w for k in odd for w in ("-u", k)]


def _outer(runner: list[str], tail: str, after: str = "") -> str:
    """The agent-side line around ``runner`` (quoted words; ``tail`` is added unquoted;
    ``after``: words run once it has exited, :func:`_undo_step`).

    The subshell unsets the secret-named variables before it execs the runner, so that not
    even the runner's own environment holds them (bwrap's process is PID 1 inside and its
    environment readable there). Only words that bash and zsh read alike.
    """
    return ("{ __sg_d=$(" + _unset_secrets() + "; exec "
            + " ".join(map(shlex.quote, _odd_secrets() + runner)) + tail
            + f" {INNER_FD}>&1 1>&4 4>&-); }} 4>&1; __sg_s=$?; " + after
            + '[ -z "$__sg_d" ] || [ "$__sg_d" = "$PWD" ] || cd -- "$__sg_d" 2>/dev/null; '
            "unset __sg_d; (exit $__sg_s)")


def _marks(marked: list[str]) -> str:
    """The one place a line spells its marks (``ANCHOR//REST``, :func:`.bwrap.unbound`): a
    function that runs its arguments with the marks appended, and one that says whether any
    of its arguments exists. Quoted once, in one place: the watcher's arguments, the check and
    the undo get the very same words (POSIX functions: any shell reads them alike)."""
    return ("__sg_m() { \"$@\" " + " ".join(map(shlex.quote, marked)) + "; }; "
            '__sg_x() { for __sg_p; do if [ -e "$__sg_p" ] || [ -L "$__sg_p" ]; then return 0; fi; '
            "done; return 1; }; ")


def _undo_step(marked: list[str]) -> str:
    """What the line runs after its bwrap sandbox for the protected paths that did not exist
    (:func:`_marks`): a missing path cannot be bound read-only, so one that the command made
    is removed afterwards by the trusted helper (:func:`.guard.undo_created`, reported on
    stderr). A shell test per path, no process, when none was made; the watcher
    (:func:`_watched`) does the same for a line killed before this step."""
    if not marked:
        return ""
    undo = " ".join(map(shlex.quote, [python(), "-I", "-m", "shellgate.sandbox.confine", "--undo"]))
    return f"if __sg_m __sg_x; then __sg_m {undo} >&2; fi; unset __sg_p; "


def _watched(line: str, marked: list[str], dirs: list[str]) -> str:
    """``line`` behind the watcher of its undo (:mod:`.watch`), armed before bwrap starts: a
    line killed before its last step is undone all the same. Its FIFO goes in the first of
    ``dirs`` (:func:`_watch_dirs`) it can make a directory in. No watcher, nothing run (126)."""
    if not marked:
        return line
    watch = os.path.join(os.path.dirname(os.path.abspath(__file__)), "watch.py")
    arm = " ".join(map(shlex.quote, [python(), "-I", "-S", watch, "arm"]))
    where = " ".join(map(shlex.quote, dirs + ["--"]))
    return (_marks(marked) + f'if __sg_w=$(__sg_m {arm} "$$" {where}); then '
            '__sg_t=${__sg_w##* }; __sg_w=${__sg_w% *}; '   # DIR may hold spaces, the token none
            + line + '; __sg_s=$?; printf %s "$__sg_t" 2>/dev/null 1<>"$__sg_w/f"; '
            'else __sg_s=126; fi; unset -f __sg_m __sg_x; unset __sg_w __sg_t; (exit $__sg_s)')


def _watch_dirs(mounts: list[str], disk: Disk, state: str) -> list[str]:
    """Where the undo watcher may put its private directory, best first: directories that the
    sandbox of ``mounts`` neither sees nor changes (:func:`.bwrap.unseen`) —
    ``$XDG_RUNTIME_DIR`` (``/run/user/UID`` is masked), ``state`` (:func:`watch_state`, masked
    by the caller), ``$TMPDIR`` and ``/tmp`` (the sandbox has a /tmp of its own). Never the
    workspace or another writable root. The watcher takes the first it can make a directory
    in: a read-only or full /tmp is passed over."""
    from .bwrap import unseen

    out: list[str] = []
    for d in (os.environ.get("XDG_RUNTIME_DIR", ""), state, os.environ.get("TMPDIR", ""), "/tmp"):
        if os.path.isabs(d) and (real := disk.realpath(d)) not in out and disk.isdir(real) \
                and unseen(real, mounts):
            out.append(real)
    return out


def watch_state() -> Path:
    """shellgate's state directory for the watchers' FIFOs (mode 0700, made when missing: a
    mask needs a directory to hang on)."""
    from .._xdg import state_dir

    d = state_dir() / "watch"
    with contextlib.suppress(OSError):
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
    return d


@functools.cache
def python() -> str:
    """The interpreter the line runs shellgate's helper with: this one, spelled the same
    whichever of its names started the hook (``python3`` or ``python3.11``, a console script's
    shebang or ``init``'s command), so that the in-process hook, the warm server and the
    client's fallback write the same line: ``PREFIX/bin/python3`` (a venv's own, which keeps
    its site-packages) when that is this interpreter, else ``sys.executable``."""
    candidate = os.path.join(sys.prefix, "bin", "python3")
    try:
        if os.path.samefile(candidate, sys.executable):
            return candidate
    except OSError:
        pass
    return sys.executable


def _scratch_args(limits: Limits) -> list[str]:
    """The Landlock helper's bound on the command's ``TMPDIR``, a directory in the host's
    ``/tmp`` (:mod:`.confine`, :mod:`.scratch`): its guardian watches the total and kills the
    command's tree past it. (A bwrap line's ``/tmp`` is a tmpfs the kernel bounds instead.)"""
    return ["--scratch", str(limits.scratch_size)] if limits.scratch_size else []


def _file_cap(limits: Limits) -> str:
    """The inner script's ``ulimit -f`` (RLIMIT_FSIZE, soft and hard: the command cannot raise
    it) at :attr:`.policy.Limits.file_cap`, for the Landlock line: one file stops at the cap at
    once, where the watch would look only every tenth of a second (:mod:`.scratch`). Set in
    the script, not in the guardian, which may have to put back a larger protected file."""
    cap = limits.file_cap
    return f"ulimit -f {cap // 1024} 2>/dev/null; " if cap else ""


def confine(command: str, policy: Policy, *, cwd: Path, tier: HookTier | None = None,
            disk: Disk | None = None) -> Confined:
    """``command`` as one line that runs it under ``policy`` (``policy.write``: writable roots
    or none; ``policy.network``). ``disk``: where the mounts look at the disk. Raises
    :class:`CannotConfine`."""
    tier = tier or hook_tier()
    disk = disk or Disk()
    kind, bwrap, bash = tier.tier, tier.bwrap, tier.bash
    if kind is Tier.BWRAP and bwrap:
        from .bwrap import mount_args, namespace_args, unbound

        visible = [p for p in (policy.home, policy.workspace, cwd, *policy.shown) if p is not None]
        visible += [Path(d) for d in os.environ.get("PATH", "").split(os.pathsep) if os.path.isabs(d)]
        filt = tier.filter(policy.network)
        disk.lstat(str(filt))
        argv = (namespace_args(bwrap, policy)
                + mount_args(policy, tmpdir=None, visible=visible, disk=disk,
                             sized=tier.tmpfs_size)
                + ["--seccomp", str(FILTER_FD)])
        inner = [bash, "-c", _inner(policy), "bash", command]
        marked = unbound(policy, disk)
        dirs: list[str] = []
        if marked:
            from .bwrap import unseen

            state = disk.realpath(str(watch_state()))
            if disk.isdir(state) and not unseen(state, argv):   # hidden: the last mount wins
                argv += ["--tmpfs", state, "--remount-ro", state]
            dirs = _watch_dirs(argv, disk, state)
            argv += ["--info-fd", str(WATCH_FD)]
        line = _outer(argv, ' --chdir "$PWD" -- ' + " ".join(map(shlex.quote, inner))
                      + f" {FILTER_FD}<{shlex.quote(str(filt))}"
                      + (f' {WATCH_FD}>"$__sg_w/f"' if marked else ""), _undo_step(marked))
        line = _watched(line, marked, dirs)
    elif kind is Tier.LANDLOCK:
        argv = [python(), "-I", "-m", "shellgate.sandbox.confine"]
        for root in policy.roots():
            argv += ["--write", str(root)]
        roots = tuple(map(str, policy.roots()))
        for hidden in map(str, policy.masked):
            # Landlock hides a path by granting its siblings instead, which would take the
            # right to create files from the directory itself: inside a writable root the
            # classifier alone guards the workspace's own secret files (README).
            if not any(hidden == r or hidden.startswith(r + "/") for r in roots):
                argv += ["--hide", hidden]
        for protected in policy.readonly:   # restored after the command (guard.py)
            if any(str(protected) == r or str(protected).startswith(r + "/") for r in roots):
                argv += ["--protect", str(protected)]
        for linked in policy.linked:   # written through a name inside a root (links.py)
            argv += ["--protect", str(linked)]
        argv += ["--net"] if policy.network else []
        argv += _scratch_args(policy.limits)
        argv += ["--", bash, "-c", _file_cap(policy.limits) + _inner(policy), "bash", command]
        line = _outer(argv, "")
    else:
        raise CannotConfine("no sandbox tier works on this machine (run `shellgate doctor`)")
    if len(line.encode("utf-8", "surrogatepass")) > MAX_LINE:
        raise CannotConfine(f"the confined command would exceed {MAX_LINE} bytes")
    return Confined(line, str(kind))


def confine_grant(command: str, workspace: str | Path, cwd: str | Path, *, write: bool,
                  network: bool, tier: HookTier | None = None,
                  watched: tuple[str, ...] = (), guarded: tuple[str, ...] = (),
                  limits: Limits | None = None) -> Confined:
    """:func:`confine` under the grant's policy for ``workspace``
    (:func:`.locations.grant_policy`; ``watched``: the policy's read rules, masked too;
    ``guarded``: its deny edit rules, read-only too; ``limits``: the ``[sandbox]`` bounds,
    :func:`.hookio.sandbox_limits`), with that policy's notes. Raises :class:`CannotConfine`.

    The line around the command is remembered in shellgate's cache with every answer of the
    disk it was built from (:class:`.disk.Disk` recording): a hook is a new process per call,
    and building the policy — the path table, the workspace's secret walk, the mounts — is
    most of what enforcement costs. A remembered line is used only while :func:`.disk.still_true`
    says the disk gives each answer again (one ``stat`` per path looked at); otherwise, or when
    an answer came from a directory changed within the last seconds, it is built anew."""
    tier = tier or hook_tier()
    key = _line_key(workspace, cwd, write, network, tier) + [list(watched), list(guarded)]
    if limits is not None:
        key.append([limits.scratch_size, limits.file_cap])
    plan = _remembered(key, tier)
    if plan is None:
        from .locations import grant_policy

        disk = Disk(record=True)
        try:
            policy, notes = grant_policy(workspace, write=write, network=network, disk=disk,
                                         watched=watched, guarded=guarded, limits=limits)
        except (OSError, ValueError) as exc:
            raise CannotConfine(f"the sandbox policy could not be built ({exc})") from None
        line = confine(_HOLE, policy, cwd=Path(cwd), tier=tier, disk=disk).line
        head, hole, tail = line.partition(shlex.quote(_HOLE))
        plan = (head, tail, tuple(notes))
        if hole and not disk.racy and disk.seen is not None:
            _remember(key, plan, disk.seen)
    head, tail, notes = plan
    line = head + shlex.quote(command) + tail
    if len(line.encode("utf-8", "surrogatepass")) > MAX_LINE:
        raise CannotConfine(f"the confined command would exceed {MAX_LINE} bytes")
    return Confined(line, str(tier.tier), notes)


# --------------------------------------------------------------------------- remembered lines

_HOLE = "\0shellgate-command\0"   # where the command goes: no path holds a NUL
_LINES = 64                         # remembered lines kept (one per workspace, cwd and grant)
# The code a line depends on: a changed file means new lines.
_CODE = ("sandbox/enforce.py", "sandbox/locations.py", "sandbox/bwrap.py", "sandbox/worktree.py",
         "sandbox/disk.py", "sandbox/policy.py", "sandbox/env.py", "sandbox/links.py",
         "bash/paths/resolve.py", "bash/paths/hardlinks.py",
         "bash/paths/tables.py", "bash/paths/envsecrets.py", "bash/git/config.py", "bash/git/keys.py",
         "sandbox/gitview.py", "bash/paths/content.py")
_ENV = ("HOME", "PATH", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME",
        "XDG_RUNTIME_DIR", "TMPDIR", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM")


def _line_key(workspace: str | Path, cwd: str | Path, write: bool, network: bool,
              tier: HookTier) -> list[object]:
    """Everything but the disk that the line for these arguments depends on."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code: list[object] = []
    for rel in _CODE:
        try:
            st = os.stat(os.path.join(root, rel))
            code.append([rel, st.st_ino, st.st_size, st.st_mtime_ns])
        except OSError:
            code.append([rel])
    odd = sorted(filter(_unsettable, os.environ))
    return [code, str(workspace), str(cwd), os.getcwd(), write, network, os.getuid(),
            os.geteuid(), sorted(os.getgroups()), sys.executable, [os.environ.get(k) for k in _ENV], odd,
            [str(tier.tier), tier.bwrap, tier.bash, list(tier.filters)]]


def _line_file(key: list[object]) -> Path:
    """Where the line for ``key`` is remembered (the file holds the key too: a crc32 names
    it, the whole key decides)."""
    import zlib

    text = json.dumps(key).encode("utf-8", "surrogatepass")
    return cache_dir() / "lines" / f"{zlib.crc32(text):08x}-{len(text):x}.json"


def _remembered(key: list[object], tier: HookTier) -> tuple[str, str, tuple[str, ...]] | None:
    """The remembered (head, tail, notes) for ``key`` while the disk still agrees, else None."""
    try:
        saved = json.loads(read_cache(_line_file(key)))
        head, tail, notes, seen = saved["head"], saved["tail"], saved["notes"], saved["seen"]
        if not (saved["key"] == key and isinstance(head, str) and isinstance(tail, str)
                and isinstance(notes, list) and isinstance(seen, list)
                and head.startswith(_start(tier)) and still_true(seen)):
            return None
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    return head, tail, tuple(map(str, notes))


def _start(tier: HookTier) -> str:
    """How every line for ``tier`` begins, up to its runner (bwrap, or the Landlock helper's
    Python): a remembered file that does not is damaged, and is built anew. (Only processes
    outside every sandbox can write the cache; this catches damage, not a forger, who could
    rewrite ~/.bashrc just as well.)"""
    runner = tier.bwrap if tier.tier is Tier.BWRAP else sys.executable
    words = _odd_secrets() + [str(runner)]
    return "{ __sg_d=$(" + _unset_secrets() + "; exec " + " ".join(map(shlex.quote, words)) + " "


def _remember(key: list[object], plan: tuple[str, str, tuple[str, ...]], seen: list) -> None:
    path = _line_file(key)
    head, tail, notes = plan
    write_atomic(path, json.dumps(
        {"key": key, "head": head, "tail": tail, "notes": list(notes), "seen": seen},
        ensure_ascii=False).encode("utf-8", "surrogatepass"))
    with contextlib.suppress(OSError):
        kept = sorted(path.parent.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
        for old in kept[_LINES:]:
            old.unlink()
