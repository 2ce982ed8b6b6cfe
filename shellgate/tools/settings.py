"""The ``[sandbox]`` config section, validated (an unknown key is an error, never ignored).

::

    [sandbox]
    enabled = true              # false: run unconfined (reported as sandbox "none")
    tier = "auto"               # auto | bwrap | landlock | none
    prespawn = true             # bwrap: long-lived sandboxes, one per filesystem view (fast);
                                # false: a fresh bwrap per command
    timeout = 120               # seconds per command
    auto_allow = true           # an exec with no warning runs unasked, confined (no network,
                                # workspace and scratch writes, secrets masked); unset: on in
                                # accept-edits, off in balanced (strict denies exec anyway)
    follow_cd_outside = false   # a cd out of the workspace: false keeps the cwd where it was
                                # (with a note); true follows it (decisions stay against the
                                # workspace)
    writable = ["../shared"]    # more writable roots (relative to the workspace)
    readonly = []               # more paths re-bound read-only inside writable roots
    masked = ["~/.config/secret-tool"]
    env_passthrough = ["CARGO_HOME", "GOPATH"]   # more variables to inherit
    env = { CI = "1" }          # variables set explicitly
    output_head = 65536         # bytes kept from the start / end of each stream
    output_tail = 65536
    output_hard = 67108864      # bytes read before the command is killed
    open_files = 4096           # rlimits (unset: inherited); core dumps are always off
    file_size = 0               # bytes per file (unset: scratch_size)
    scratch_size = 1073741824   # bytes the private /tmp may hold (0: no cap; sandbox/scratch.py)
    cpu = 0
    address_space = 0
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._record import record, replace
from ..sandbox import Limits
from ..sandbox.policy import limit_setting

TIERS = ("auto", "bwrap", "landlock", "none")
_PATHS = ("writable", "readonly", "masked")
_INTS = ("output_head", "output_tail", "output_hard", "open_files", "file_size", "cpu",
         "address_space", "scratch_size")


@record
class SandboxSettings:
    enabled: bool = True
    tier: str = "auto"
    prespawn: bool = True
    follow_cd_outside: bool = False
    auto_allow: bool | None = None
    timeout: float = 120.0
    writable: tuple[str, ...] = ()
    readonly: tuple[str, ...] = ()
    masked: tuple[str, ...] = ()
    env_passthrough: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    limits: Limits = Limits()

    def resolve(self, paths: tuple[str, ...], base: Path, home: Path) -> tuple[Path, ...]:
        out = []
        for p in paths:
            s = str(Path(home) / p[2:]) if p == "~" or p.startswith("~/") else p
            out.append((base / s).resolve() if not Path(s).is_absolute() else Path(s))
        return tuple(out)


def load_settings(workspace: str | Path, config: str | Path | None = None, *,
                  user: bool = True) -> SandboxSettings:
    """The ``[sandbox]`` settings for ``workspace``: from the user's and the explicit config
    only — a repository must not loosen its own sandbox through ``.shellgate/config.toml``.
    Raises ValueError (a bad section) or the config's own error."""
    from ..config import load_config

    return parse_section(load_config(workspace, config, user=user, project=False).sections.get("sandbox"))


def parse_section(section: Mapping[str, Any] | None) -> SandboxSettings:
    """Settings from a ``[sandbox]`` table. Raises ValueError naming the bad key."""
    s = SandboxSettings()
    if not section:
        return s
    if not isinstance(section, Mapping):
        raise ValueError("[sandbox] must be a table")
    lim = s.limits
    for key, value in section.items():
        if key in ("enabled", "prespawn", "follow_cd_outside", "auto_allow"):
            s = replace(s, **{key: _bool(key, value)})
        elif key == "tier":
            if value not in TIERS:
                raise ValueError(f"[sandbox] tier must be one of {', '.join(TIERS)}, not {value!r}")
            s = replace(s, tier=value)
        elif key == "timeout":
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise ValueError("[sandbox] timeout must be a positive number of seconds")
            s = replace(s, timeout=float(value))
        elif key in _PATHS or key == "env_passthrough":
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError(f"[sandbox] {key} must be a list of strings")
            s = replace(s, **{key: tuple(value)})
        elif key == "env":
            if not isinstance(value, Mapping) or not all(
                    isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
                raise ValueError("[sandbox] env must be a table of strings")
            s = replace(s, env=tuple(value.items()))
        elif key in _INTS:
            lim = replace(lim, **{key: limit_setting(key, value)})
        else:
            raise ValueError(f"[sandbox] unknown key {key!r}")
    return replace(s, limits=replace(lim, timeout=s.timeout))


def _bool(key: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"[sandbox] {key} must be true or false")
    return value
