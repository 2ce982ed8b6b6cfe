"""Configuration: TOML files, layered, validated; a bad file is a clear error.

Files, in order (later layers add rules and override scalars):

1. user     ``$XDG_CONFIG_HOME/shellgate/config.toml`` (``~/.config/shellgate/config.toml``)
2. project  ``<workspace>/.shellgate/config.toml`` — may only *tighten* (see below)
3. explicit ``--config FILE``

::

    mode = "balanced"                 # strict | balanced | accept-edits | trust
    trust_project_config = false      # user / --config only: honour the project file fully

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

**The project file is not trusted.** It arrives with whatever repository was cloned, so by
default it can only make the policy stricter. Honoured: ``deny`` and ``ask`` rules; a ``mode``
no looser than the one it would replace (strict < balanced < accept-edits < trust; the
default is balanced); ``readonly_directories`` inside the workspace or a root the user already
allows (writes there become hard denies); ``plan_mode_exec_allowed = false``; a ``[hooks]``
/ ``[hooks.<agent>]`` ``mode`` that is ``strict`` or no looser than the user's own hook mode
(the agent's live mode is unknown here, and may be as strict as ``strict``). Ignored, each with
a line in :attr:`Config.notices` (shown by ``shellgate doctor``): ``allow`` rules (kept in
:attr:`Config.ignored_rules`, so a decision can say one would have applied),
``additional_directories``, ``internal_directories``, a looser mode, ``plan_mode_exec_allowed
= true``, ``[audit]`` and ``[approvals]`` (the audit log and the approval store are the
user's: a repository may neither silence nor relocate them, and a store it ships would be a
list of pre-approved commands), ``trust_project_config`` itself, and every other section
(``[sandbox]`` — the BashTool reads it from the trusted layers only —, ``[mcp]`` …), whose
effect this loader cannot judge. An ask rule only ever tightens: the kernel never lets one
turn the mode's deny into a question.

``trust_project_config = true`` in the user file or the ``--config`` file (the latter wins
when both set it) honours the project file like any other layer. ``--config FILE`` itself is
the user's own choice and always honoured in full, even when it names the project file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from ._record import field, record, replace
from .permission import Mode, RuleError, RuleSet, parse_mode
from .permission.rules import find_line

PROJECT_DIR = ".shellgate"
CONFIG_NAME = "config.toml"
MAX_CONFIG_BYTES = 4 << 20   # a bigger config file is an error, not read (it may be /dev/zero)
TRUST_KEY = "trust_project_config"
OTHER_SECTIONS = frozenset({"sandbox", "hook", "hooks", "mcp", "fuzz", "run", "check", "tools",
                            "integrations", "explain", "doctor", "limits", "never"})
_TOP = frozenset({"mode", "permissions", "audit", "approvals", TRUST_KEY})
_PERMISSIONS = {"allow", "ask", "deny", "additional_directories", "additionalDirectories",
                "readonly_directories", "plan_mode_exec_allowed", "internal_directories"}
_AUDIT = {"enabled", "path"}
_APPROVALS = {"path", "enabled"}
MODE_ORDER = (Mode.STRICT, Mode.BALANCED, Mode.AUTO, Mode.TRUST)
"""Strictest first: a project may only move the mode towards the front."""
_TIGHTEN_ONLY = "a project config may only tighten the policy; see trust_project_config"


class ConfigError(ValueError):
    """A config file that cannot be used; the message names the file (and line)."""


@record
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
    trust_project_config: bool | None = None    # None: no trusted layer set it
    notices: tuple[str, ...] = ()               # what an untrusted layer asked for, ignored
    ignored_rules: RuleSet = field(default_factory=RuleSet)


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


@record
class _File:
    """One parsed file and what it literally said (the project filter needs to know which
    keys were set, not only their values)."""

    config: Config
    data: Mapping[str, Any]
    text: str
    path: Path


def _read(path: str | Path, base: str | Path | None = None) -> _File:
    import tomllib

    from ._plain import read_plain

    p = Path(path).expanduser().absolute()
    try:
        text = read_plain(p, MAX_CONFIG_BYTES, follow=True).decode("utf-8")
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
    if TRUST_KEY in data:
        kw["trust_project_config"] = _bool(p, text, data[TRUST_KEY], TRUST_KEY)

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
    return _File(Config(**kw), data, text, p)


def parse_file(path: str | Path, *, base: str | Path | None = None) -> Config:
    """One config file. ``base`` is what relative directories and ``/x`` rule anchors are
    relative to (default: the project that holds the file)."""
    return _read(path, base).config


def _deep(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any]:
    """Tables merged key by key (``b`` wins), so a later ``[hooks]`` never wipes an earlier one."""
    out = dict(a)
    for k, v in b.items():
        out[k] = _deep(out[k], v) if isinstance(v, Mapping) and isinstance(out.get(k),
                                                                          Mapping) else v
    return out


def merge(a: Config, b: Config) -> Config:
    """``b`` layered over ``a``: rules and roots add up, scalars set in ``b`` win (inside
    sections too)."""
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
        sections=_deep(a.sections, b.sections),
        trust_project_config=pick("trust_project_config", None),
        notices=a.notices + b.notices, ignored_rules=a.ignored_rules.merged(b.ignored_rules))


# -- the untrusted project layer ------------------------------------------------------------

def _rank(mode: Mode) -> int:
    return MODE_ORDER.index(mode)


def _under(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _toml(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _hooks_section(base: Any, proj: Mapping[str, Any],
                   note: Callable[..., None]) -> dict[str, Any]:
    """The user's ``[hooks]`` with the project's stricter ``mode`` keys laid over it (a deep
    merge: a project table must not wipe the user's settings by replacing theirs)."""
    base = base if isinstance(base, Mapping) else {}
    out: dict[str, Any] = {k: dict(v) if isinstance(v, Mapping) else v for k, v in base.items()}

    def stricter(value: Any, baseline: Any, where: str) -> bool:
        try:
            mode = parse_mode(value) if isinstance(value, str) else None
        except ValueError:
            mode = None
        try:
            floor = parse_mode(baseline) if isinstance(baseline, str) else Mode.STRICT
        except ValueError:
            floor = Mode.STRICT
        if mode is not None and _rank(mode) <= _rank(floor):
            return True
        note(where, f"{where} mode = {_toml(value)}", f"a project may only set a hook mode no "
             f"looser than {floor} (the user's hook mode, or strict when the user set none)")
        return False

    for key, value in proj.items():
        if key == "mode":
            if stricter(value, base.get("mode"), "[hooks]"):
                out["mode"] = value
        elif isinstance(value, Mapping):
            mine = base.get(key) if isinstance(base.get(key), Mapping) else {}
            for k, v in value.items():
                if k == "mode":
                    if stricter(v, mine.get("mode", base.get("mode")), f"[hooks.{key}]"):
                        out[key] = {**mine, "mode": v}
                else:
                    note(f"[hooks.{key}]", f"[hooks.{key}] {k}")
        else:
            note("[hooks]", f"[hooks] {key}")
    return out


def _restrict(f: _File, base: Config, workspace: Path) -> Config:
    """What an untrusted project file may add to ``base``: only what tightens it."""
    cfg, path, text = f.config, f.path, f.text
    notices: list[str] = []

    def note(needle: str, what: str, why: str = _TIGHTEN_ONLY) -> None:
        notices.append(f"{_where(path, text, needle)}: ignored {what}: {why}")

    mode = None
    if cfg.mode is not None:
        current = base.mode or Mode.BALANCED
        if _rank(cfg.mode) <= _rank(current):
            mode = cfg.mode
        else:
            note("mode", f"mode = {_toml(f.data['mode'])}", f"looser than {current}; "
                 + _TIGHTEN_ONLY)
    for r in cfg.rules.allow:
        note(r.text, f"allow rule {r.text}")
    for d in cfg.filesystem_roots:
        note("additional", f"additional directory {d}")
    for d in cfg.internal_dirs:
        note("internal_directories", f"internal directory {d}")
    # A read-only root inside what is already allowed only forbids writes; one elsewhere
    # would also make reads there "inside" (no more outside-roots prompt).
    allowed = (os.path.normpath(workspace), *base.filesystem_roots, *base.readonly_roots,
               *base.internal_dirs)
    readonly = []
    for d in cfg.readonly_roots:
        if _under(d, allowed):
            readonly.append(d)
        else:
            note("readonly_directories", f"read-only directory {d}", "outside the workspace "
                 "and the user's roots, it would also make reads there silent; " + _TIGHTEN_ONLY)
    perms = f.data.get("permissions", {})
    plan_exec = base.plan_mode_exec_allowed
    if "plan_mode_exec_allowed" in perms:
        if cfg.plan_mode_exec_allowed:
            if not plan_exec:
                note("plan_mode_exec_allowed", "plan_mode_exec_allowed = true")
        else:
            plan_exec = False
    for section in ("audit", "approvals"):
        for key, value in f.data.get(section, {}).items():
            note(key, f"[{section}] {key} = {_toml(value)}", f"the {section.rstrip('s')} "
                 "settings are the user's; " + _TIGHTEN_ONLY)
    if f.data.get(TRUST_KEY):
        note(TRUST_KEY, f"{TRUST_KEY} = true", "only the user config or --config can set it")
    sections = {}
    for name, table in cfg.sections.items():
        if name == "hooks":
            if hooks := _hooks_section(base.sections.get(name), table, note):
                sections[name] = hooks
        else:
            note(f"[{name}", f"the [{name}] section")
    out = Config(mode=mode, rules=RuleSet(ask=cfg.rules.ask, deny=cfg.rules.deny),
                 readonly_roots=tuple(readonly), sources=cfg.sources, sections=sections,
                 notices=tuple(notices), ignored_rules=RuleSet(allow=cfg.rules.allow))
    return replace(merge(base, out), plan_mode_exec_allowed=plan_exec)


def _layer(base: Config, f: _File) -> Config:
    """A trusted file over ``base``; a ``plan_mode_exec_allowed`` it sets wins either way."""
    cfg = merge(base, f.config)
    if "plan_mode_exec_allowed" in f.data.get("permissions", {}):
        cfg = replace(cfg, plan_mode_exec_allowed=f.config.plan_mode_exec_allowed)
    return cfg


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def load_config(workspace: str | Path = ".", config_path: str | Path | None = None, *,
                user: bool = True, project: bool = True,
                env: Mapping[str, str] | None = None) -> Config:
    """The layered config for ``workspace``. Missing default files are fine; an explicit
    ``config_path`` that does not exist is an error. Raises :class:`ConfigError`.

    The project file only tightens the policy unless the user file or ``config_path`` sets
    ``trust_project_config = true`` (see the module docstring)."""
    ws = Path(workspace).absolute()
    explicit: _File | None = None
    if config_path is not None:
        explicit_path = Path(config_path).expanduser()
        if not explicit_path.exists():
            raise ConfigError(f"{explicit_path}: config file not found")
        explicit = _read(explicit_path)
    cfg = Config()
    # exists(), not is_file(): a FIFO or a device there is an error (_read), not "no file"
    if user and (user_path := user_config_path(env)).exists():
        cfg = _layer(cfg, _read(user_path))
    trusted = cfg.trust_project_config
    if explicit is not None and explicit.config.trust_project_config is not None:
        trusted = explicit.config.trust_project_config
    project_path = project_config_path(ws)
    if project and project_path.exists() and not (
            explicit is not None and _same_file(explicit.path, project_path)):
        layer = _read(project_path)
        if trusted:
            cfg = _layer(cfg, replace(layer, config=replace(layer.config,
                                                            trust_project_config=None)))
        else:
            cfg = _restrict(layer, cfg, ws)
    if explicit is not None:
        cfg = _layer(cfg, explicit)
    cfg = replace(cfg, rules=replace(cfg.rules, own=own_files(cfg, env)))
    return replace(cfg, trust_project_config=bool(trusted))


def own_files(cfg: Config, env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The files of ``cfg`` that shellgate reads or writes at decision time and that its own
    directories (``_xdg.own_dirs``) and a project's ``.shellgate/`` do not already hold: a
    ``--config`` file, and an audit log or approval store the config moved elsewhere. A
    command that wrote one could loosen every later decision (``mode``, ``[hooks] enforce``,
    a stored approval) or erase what the audit log says, so they are the policy's own
    sensitive paths (``RuleSet.own``)."""
    from ._xdg import own_dirs

    dirs = own_dirs(environ=env)
    out = []
    for f in (*cfg.sources, cfg.audit_path, cfg.store_path):
        if not f:
            continue
        path = os.path.abspath(f)
        if PROJECT_DIR in Path(path).parts[:-1] or _under(path, tuple(map(str, dirs))):
            continue
        out.append(path)
    return tuple(dict.fromkeys(out))
