"""Configuration: TOML files, layered, validated; a bad file is a clear error.

Files, in order (later layers add rules and override scalars):

1. user     ``$XDG_CONFIG_HOME/shellgate/config.toml`` (``~/.config/shellgate/config.toml``)
2. project  ``<workspace>/.shellgate/config.toml``
3. explicit ``--config FILE``

::

    mode = "balanced"                 # strict | balanced | accept-edits | trust

    [permissions]                     # Claude Code's shape; deny > ask > allow
    allow = ["Bash(npm test *)", {rule = "Bash(make *)", match = ["make test"],
                                  not_match = ["make test; curl x"]}]
    ask = ["Bash(git push *)"]
    deny = ["Bash(rm *)", "Read(~/.ssh/**)"]
    additional_directories = ["../docs"]   # more roots besides the workspace
    readonly_directories = []              # roots that may be read, never written
    plan_mode_exec_allowed = false

    [audit]
    enabled = true
    path = "~/.local/state/shellgate/audit.jsonl"

    [approvals]
    path = "~/.config/shellgate/approvals.json"

Rules from every layer are combined (a deny anywhere denies). Relative directories are
resolved against the project (for the project file: the directory holding ``.shellgate``).
Sections owned by other parts of shellgate (``sandbox``, ``hook`` …) are kept in
:attr:`Config.sections` unvalidated; an unknown section or key is an error, so a typo never
silently weakens a policy.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .permission import Mode, RuleError, RuleSet, parse_mode
from .permission.rules import find_line

PROJECT_DIR = ".shellgate"
CONFIG_NAME = "config.toml"
OTHER_SECTIONS = frozenset({"sandbox", "hook", "hooks", "mcp", "fuzz", "run", "check", "tools",
                            "integrations", "explain", "doctor"})
_TOP = frozenset({"mode", "permissions", "audit", "approvals"})
_PERMISSIONS = {"allow", "ask", "deny", "additional_directories", "additionalDirectories",
                "readonly_directories", "plan_mode_exec_allowed", "internal_directories"}
_AUDIT = {"enabled", "path"}
_APPROVALS = {"path", "enabled"}


class ConfigError(ValueError):
    """A config file that cannot be used; the message names the file (and line)."""


@dataclass(frozen=True, slots=True)
class Config:
    mode: Mode | None = None
    rules: RuleSet = field(default_factory=RuleSet)
    filesystem_roots: tuple[str, ...] = ()
    readonly_roots: tuple[str, ...] = ()
    internal_dirs: tuple[str, ...] = ()
    plan_mode_exec_allowed: bool = False
    audit_enabled: bool = True
    audit_path: str | None = None
    store_enabled: bool = True
    store_path: str | None = None
    sources: tuple[str, ...] = ()
    sections: Mapping[str, Any] = field(default_factory=dict)


def user_config_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    cfg = env.get("XDG_CONFIG_HOME") or ""
    base = Path(cfg) if cfg and os.path.isabs(cfg) else Path.home() / ".config"
    return base / "shellgate" / CONFIG_NAME


def project_config_path(workspace: str | Path) -> Path:
    return Path(workspace).absolute() / PROJECT_DIR / CONFIG_NAME


def _where(path: Path, text: str, needle: str) -> str:
    line = find_line(text, needle)
    return f"{path}:{line}" if line else str(path)


def _check_keys(path: Path, text: str, table: Mapping[str, Any], allowed: set[str] | frozenset[str],
                what: str) -> None:
    for k in table:
        if k not in allowed:
            raise ConfigError(f"{_where(path, text, k)}: unknown key {k!r} in {what} "
                              f"(known: {', '.join(sorted(allowed))})")


def _dirs(path: Path, text: str, value: Any, key: str, base: Path) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{_where(path, text, key)}: {key} must be a list of directory names")
    return tuple(os.path.normpath(base / os.path.expanduser(v)) for v in value)


def _string(path: Path, text: str, value: Any, key: str) -> str:
    if not isinstance(value, str) or not value:
        raise ConfigError(f"{_where(path, text, key)}: {key} must be a non-empty string")
    return value


def _bool(path: Path, text: str, value: Any, key: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{_where(path, text, key)}: {key} must be true or false")
    return value


def parse_file(path: str | Path, *, base: str | Path | None = None) -> Config:
    """One config file. ``base`` is what relative directories and ``/x`` rule anchors are
    relative to (default: the project that holds the file)."""
    import tomllib

    p = Path(path).expanduser().absolute()
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read config: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{p}: config is not UTF-8: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}") from None
    root = Path(base).absolute() if base is not None else (
        p.parent.parent if p.parent.name == PROJECT_DIR else p.parent)

    for k, v in data.items():
        if k not in _TOP and not (k in OTHER_SECTIONS and isinstance(v, dict)):
            raise ConfigError(f"{_where(p, text, k)}: unknown setting {k!r} (known: "
                              f"{', '.join(sorted(_TOP | OTHER_SECTIONS))})")
    kw: dict[str, Any] = {"sources": (str(p),),
                          "sections": {k: v for k, v in data.items() if k in OTHER_SECTIONS}}
    if "mode" in data:
        try:
            kw["mode"] = parse_mode(_string(p, text, data["mode"], "mode"))
        except ValueError as exc:
            raise ConfigError(f"{_where(p, text, 'mode')}: {exc}") from None

    perms = data.get("permissions", {})
    if not isinstance(perms, dict):
        raise ConfigError(f"{_where(p, text, 'permissions')}: [permissions] must be a table")
    _check_keys(p, text, perms, _PERMISSIONS, "[permissions]")
    try:
        kw["rules"] = RuleSet.from_mapping(perms, source=str(p), text=text, base=str(root))
    except RuleError as exc:
        raise ConfigError(str(exc)) from None
    roots = perms.get("additional_directories", perms.get("additionalDirectories", []))
    kw["filesystem_roots"] = _dirs(p, text, roots, "additional_directories", root)
    kw["readonly_roots"] = _dirs(p, text, perms.get("readonly_directories", []),
                                 "readonly_directories", root)
    kw["internal_dirs"] = _dirs(p, text, perms.get("internal_directories", []),
                                "internal_directories", root)
    if "plan_mode_exec_allowed" in perms:
        kw["plan_mode_exec_allowed"] = _bool(p, text, perms["plan_mode_exec_allowed"],
                                             "plan_mode_exec_allowed")

    for section, keys, prefix in (("audit", _AUDIT, "audit"), ("approvals", _APPROVALS, "store")):
        table = data.get(section, {})
        if not isinstance(table, dict):
            raise ConfigError(f"{_where(p, text, section)}: [{section}] must be a table")
        _check_keys(p, text, table, keys, f"[{section}]")
        if "enabled" in table:
            kw[f"{prefix}_enabled"] = _bool(p, text, table["enabled"], "enabled")
        if "path" in table:
            kw[f"{prefix}_path"] = os.path.normpath(
                root / os.path.expanduser(_string(p, text, table["path"], "path")))
    return Config(**kw)


def merge(a: Config, b: Config) -> Config:
    """``b`` layered over ``a``: rules and roots add up, scalars set in ``b`` win."""
    def pick(name: str, default: Any) -> Any:
        vb = getattr(b, name)
        return vb if vb != default else getattr(a, name)

    return Config(
        mode=b.mode or a.mode, rules=a.rules.merged(b.rules),
        filesystem_roots=tuple(dict.fromkeys(a.filesystem_roots + b.filesystem_roots)),
        readonly_roots=tuple(dict.fromkeys(a.readonly_roots + b.readonly_roots)),
        internal_dirs=tuple(dict.fromkeys(a.internal_dirs + b.internal_dirs)),
        plan_mode_exec_allowed=a.plan_mode_exec_allowed or b.plan_mode_exec_allowed,
        audit_enabled=a.audit_enabled and b.audit_enabled,
        audit_path=pick("audit_path", None), store_enabled=a.store_enabled and b.store_enabled,
        store_path=pick("store_path", None), sources=a.sources + b.sources,
        sections={**a.sections, **b.sections})


def load_config(workspace: str | Path = ".", config_path: str | Path | None = None, *,
                user: bool = True, project: bool = True,
                env: Mapping[str, str] | None = None) -> Config:
    """The layered config for ``workspace``. Missing default files are fine; an explicit
    ``config_path`` that does not exist is an error. Raises :class:`ConfigError`."""
    cfg = Config()
    layers: list[Path] = []
    if user:
        layers.append(user_config_path(env))
    if project:
        layers.append(project_config_path(workspace))
    for layer in layers:
        if layer.is_file():
            cfg = merge(cfg, parse_file(layer))
    if config_path is not None:
        explicit = Path(config_path).expanduser()
        if not explicit.is_file():
            raise ConfigError(f"{explicit}: config file not found")
        cfg = merge(cfg, parse_file(explicit))
    return cfg
