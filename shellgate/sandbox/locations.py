"""Which paths a default policy protects and hides, as data, and the policy builder.

Protected (implant class): one write makes code run later, outside the sandbox — shell rc
files, git hooks and config, editor run configs, agent settings. They stay readable but are
re-bound read-only inside every writable root (sandbox-runtime's mandatory deny list plus the
SPEC §3 implant list). Masked (leak class): credentials the command has no business reading,
and sockets that would let it act outside the sandbox (docker, the system/user D-Bus).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from pathlib import Path

from .policy import Limits, Policy
from .worktree import GitLayout, find_layout, git_paths

# Relative to the top of every writable root.
PROTECTED_NAMES: tuple[str, ...] = (
    ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
    ".zshrc", ".zprofile", ".zshenv", ".zlogin", ".zlogout",
    ".gitconfig", ".gitmodules", ".envrc", ".npmrc", ".yarnrc.yml", ".ripgreprc",
    ".mcp.json", ".claude.json", ".claude/settings.json", ".claude/settings.local.json",
    ".claude/commands", ".claude/agents", ".claude/hooks", ".codex", ".gemini/settings.json",
    ".vscode", ".idea", ".shellgate",
)

# Relative to HOME.
MASKED_HOME: tuple[str, ...] = (
    ".ssh", ".gnupg", ".aws", ".azure", ".config/gcloud", ".config/gh", ".config/hub",
    ".config/op", ".config/git/credentials", ".git-credentials", ".netrc", ".pgpass",
    ".docker/config.json", ".kube", ".npmrc", ".pypirc", ".gem/credentials",
    ".cargo/credentials", ".cargo/credentials.toml", ".terraform.d/credentials.tfrc.json",
    ".vault-token", ".password-store", ".local/share/keyrings", ".m2/settings-security.xml",
)

# Absolute: sockets whose peer runs commands for us outside the sandbox.
MASKED_ABSOLUTE: tuple[str, ...] = (
    "/var/run/docker.sock", "/run/docker.sock", "/run/containerd/containerd.sock",
    "/run/podman/podman.sock", "/run/dbus/system_bus_socket", "/var/run/dbus/system_bus_socket",
    "/run/systemd/private", "/run/user/{uid}",
)


@functools.lru_cache(maxsize=64)
def _protected_in(root: Path) -> tuple[Path, ...]:
    return tuple(root / n for n in PROTECTED_NAMES)


def protected_paths(roots: Iterable[Path], layouts: Iterable[GitLayout]) -> tuple[Path, ...]:
    """Implant paths inside ``roots`` plus the git hooks/config of ``layouts``."""
    out: list[Path] = [p for r in roots for p in _protected_in(r)]
    for lay in layouts:
        out += git_paths(lay)[1]
    return tuple(dict.fromkeys(out))


@functools.lru_cache(maxsize=16)
def masked_paths(home: Path) -> tuple[Path, ...]:
    uid = os.getuid()
    return tuple([home / n for n in MASKED_HOME] + [Path(p.format(uid=uid)) for p in MASKED_ABSOLUTE])


def build_policy(workspace: str | Path, *, base: str | Path | None = None,
                 home: str | Path | None = None, network: bool = False,
                 writable: Iterable[str | Path] = (), readonly: Iterable[str | Path] = (),
                 masked: Iterable[str | Path] = (), tmpdir: str | Path | None = None,
                 env_passthrough: Iterable[str] = (), env_set: Iterable[tuple[str, str]] = (),
                 limits: Limits | None = None) -> Policy:
    """The default policy for a command whose workspace is ``workspace``.

    ``base`` is the workspace the session started in (it stays writable when the live cwd has
    moved into a worktree). For every writable root that is a git worktree, the parts of its
    git dir that commits need are writable too, and its hooks/config are protected.
    """
    ws = Path(workspace).absolute()
    user_roots = [ws] + ([Path(base).absolute()] if base is not None else [])
    user_roots = list(dict.fromkeys(user_roots + [Path(p).absolute() for p in writable]))
    layouts: list[GitLayout] = []
    git_writable: list[Path] = []
    for r in user_roots:
        lay = find_layout(r)
        if lay is not None and lay.top == r and lay not in layouts:
            layouts.append(lay)
            git_writable += git_paths(lay)[0]
    home_path = Path(home).absolute() if home else Path(os.path.expanduser("~"))
    return Policy(
        workspace=ws,
        writable=tuple(dict.fromkeys(user_roots + git_writable)),
        readonly=protected_paths(user_roots, layouts)
        + tuple(Path(p).absolute() for p in readonly),
        masked=masked_paths(home_path) + tuple(Path(p).absolute() for p in masked),
        network=network,
        home=home_path,
        tmpdir=Path(tmpdir).absolute() if tmpdir else None,
        env_passthrough=tuple(env_passthrough),
        env_set=tuple(env_set),
        limits=limits or Limits(),
    )
