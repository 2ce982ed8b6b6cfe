"""``shellgate init claude-code|codex|gemini``: put the hook into the agent's settings file.

Each agent reads hooks with the same three levels — event, matcher groups, handlers
(research/ecosystem.md §1.1, §2.3, §2.4, §8; the agents' hook references):

| agent | user file (project: same under the root) | event | timeout | on failure |
|---|---|---|---|---|
| Claude Code | ``~/.claude/settings.json`` | PreToolUse | s | ``onFailure: "block"`` |
| Codex ≥ 0.124 | ``$CODEX_HOME/config.toml`` (``~/.codex``) | PreToolUse | s | lets it through |
| Codex < 0.124 | ``$CODEX_HOME/hooks.json`` | PreToolUse | s | lets it through |
| Gemini CLI | ``~/.gemini/settings.json`` | BeforeTool | ms | lets it through |

(``onFailure`` needs Claude Code 2.1.295; Gemini blocks on exit 2 only.)
Claude Code also has the ``local`` scope, ``.claude/settings.local.json`` (not committed).

What is written: the absolute path of the ``shellgate`` script installed next to the Python
that runs ``init`` (never a PATH lookup: a shim adds start-up time or finds another install),
an explicit ``timeout`` (30 s; the hook's own watchdog answers deny after 10 s, see
``shellgate.limits``), and ``onFailure: "block"`` for Claude Code. With ``serve=True`` the
hook goes through ``shellgate serve`` by the stdlib-only client ``hookclient.py``, for every
agent: it believes only an answer that proves it comes from the real server and decides
in-process otherwise. Never an ``http`` hook: Claude Code's sends its header to whatever
listens on the port and believes any answer (see :mod:`.hookclient`); one left by an older
``init`` is replaced, and ``doctor`` reports it.
The installed agent's version is read from ``<agent> --version`` when it is on PATH, to pick
the Codex file and to warn when Claude Code is too old for ``onFailure``.

Installing is idempotent: a handler that already runs ``shellgate hook <agent>`` (or posts to
``/hook/<agent>``) is updated in place (or left alone when it is already right), never
duplicated. Everything else in the file is kept; in ``config.toml`` shellgate owns one block
between marker comments. The change is shown as a unified diff; ``dry_run`` writes nothing; a
changed file keeps a ``.shellgate.bak`` copy. A file that is not plain JSON (or valid TOML) is
never rewritten: the error says what to add by hand. ``init`` also byte-compiles the package,
so a hook never starts from source (see :func:`compile_package`).
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._record import record

AGENTS = ("claude-code", "codex", "gemini")
SCOPES = ("user", "project", "local")
HOOK_TIMEOUT_S = 30
CLAUDE_ON_FAILURE = (2, 1, 295)     # first Claude Code with onFailure: "block"
CODEX_TOML_HOOKS = (0, 124, 0)      # first Codex reading hooks from config.toml, on by default
GEMINI_HOOKS_ON = (0, 27, 0)        # first Gemini CLI with hooks on by default
_BEGIN = "# >>> shellgate hook (managed by `shellgate init codex`) >>>"
_END = "# <<< shellgate hook <<<"


class InstallError(Exception):
    """The settings file cannot be edited safely (bad JSON, wrong shape, unknown agent)."""


@record
class AgentHook:
    """Where and how one agent registers a tool hook."""

    agent: str
    event: str
    matcher: str
    user_file: tuple[str, ...]        # under the agent's home dir
    project_file: tuple[str, ...]     # under the project root
    local_file: tuple[str, ...] | None
    notes: tuple[str, ...]

    def handler(self, command: str) -> dict[str, Any]:
        """The handler entry: a command hook."""
        if self.agent == "gemini":
            return {"name": "shellgate", "type": "command", "command": command,
                    "timeout": HOOK_TIMEOUT_S * 1000,
                    "description": "shellgate: parse, classify and gate tool calls"}
        handler: dict[str, Any] = {"type": "command", "command": command,
                                   "timeout": HOOK_TIMEOUT_S}
        if self.agent == "claude-code":
            handler["onFailure"] = "block"
        if self.agent == "codex":
            handler["statusMessage"] = "shellgate: checking the command"
        return handler


def _matcher(agent: str) -> str:
    from . import claude_code, codex, gemini

    if agent == "codex":   # Codex matchers are regexes: anchor them
        return f"^({codex.MATCHER})$"
    return {"claude-code": claude_code.MATCHER, "gemini": gemini.MATCHER}[agent]


def agent_hook(agent: str) -> AgentHook:
    if agent == "claude-code":
        return AgentHook(agent, "PreToolUse", _matcher(agent), (".claude", "settings.json"),
                         (".claude", "settings.json"), (".claude", "settings.local.json"),
                         ("Claude Code reads hooks at startup: restart it, then check with /hooks.",))
    if agent == "codex":
        return AgentHook(agent, "PreToolUse", _matcher(agent), ("config.toml",),
                         (".codex", "config.toml"), None,
                         ("Codex runs a new or changed hook only after you review and trust it: "
                          "open Codex and approve it in /hooks.",
                          "Codex honours only deny from a hook: shellgate turns ask into deny "
                          "with instructions to approve.",
                          "Codex lets a call through when a hook fails or times out: shellgate's "
                          "watchdog answers deny well before the timeout."))
    if agent == "gemini":
        return AgentHook(agent, "BeforeTool", _matcher(agent), (".gemini", "settings.json"),
                         (".gemini", "settings.json"), None,
                         ("Gemini CLI reads a project's .gemini/settings.json only in a "
                          "trusted folder; `hooksConfig.enabled: false` turns every hook off.",
                          "Gemini hooks cannot ask: shellgate turns ask into deny with "
                          "instructions to approve."))
    raise InstallError(f"unknown agent {agent!r}: use one of {', '.join(AGENTS)}")


# --- versions ----------------------------------------------------------------------------

_VERSION = re.compile(r"(\d+)\.(\d+)\.(\d+)")
_PROGRAMS = {"claude-code": "claude", "codex": "codex", "gemini": "gemini"}


def parse_version(text: str | None) -> tuple[int, int, int] | None:
    m = _VERSION.search(text or "")
    return (int(m[1]), int(m[2]), int(m[3])) if m else None


def agent_version(agent: str) -> tuple[int, int, int] | None:
    """The installed agent's version from ``<program> --version``; None when not found."""
    exe = shutil.which(_PROGRAMS[agent])
    if exe is None:
        return None
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=10,
                             stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return parse_version(out.stdout + out.stderr)


def _vtext(v: tuple[int, int, int]) -> str:
    return ".".join(map(str, v))


def version_notes(agent: str, version: tuple[int, int, int] | None) -> tuple[str, ...]:
    """What the user should know about their agent's version and this configuration."""
    prog = _PROGRAMS[agent]
    if version is None:
        need = {"claude-code": CLAUDE_ON_FAILURE, "codex": CODEX_TOML_HOOKS}.get(agent)
        return (f"`{prog} --version` gave no version: the settings assume a current {prog}"
                + (f" ({_vtext(need)} or later)" if need else "") + ".",)
    if agent == "claude-code" and version < CLAUDE_ON_FAILURE:
        return (f"Claude Code {_vtext(version)} predates onFailure (needs "
                f"{_vtext(CLAUDE_ON_FAILURE)}): until you update, a hook that fails or times "
                "out lets the call through.",)
    if agent == "codex" and version < CODEX_TOML_HOOKS:
        return (f"Codex {_vtext(version)} reads hooks.json and needs `[features] codex_hooks = "
                f"true` in config.toml; {_vtext(CODEX_TOML_HOOKS)} and later read config.toml "
                "with hooks on by default.",)
    if agent == "gemini" and version < GEMINI_HOOKS_ON:
        return (f"Gemini CLI {_vtext(version)} keeps hooks off by default: set "
                '`"hooksConfig": {"enabled": true}` in settings.json (on by default from '
                f"{_vtext(GEMINI_HOOKS_ON)}).",)
    return (f"found {prog} {_vtext(version)}",)


# --- where -------------------------------------------------------------------------------

def settings_path(agent: str, scope: str = "user", *, home: str | Path | None = None,
                  project: str | Path | None = None,
                  environ: Mapping[str, str] | None = None, legacy: bool = False) -> Path:
    """The settings file ``init`` edits for ``agent`` at ``scope`` (user, project or local).
    ``legacy``: Codex's ``hooks.json`` (before 0.124) instead of ``config.toml``."""
    env = os.environ if environ is None else environ
    spec = agent_hook(agent)
    name = "hooks.json" if agent == "codex" and legacy else None
    if scope == "user":
        if agent == "codex" and env.get("CODEX_HOME") and home is None:
            return Path(env["CODEX_HOME"]) / (name or spec.user_file[-1])
        base = Path(home) if home is not None else Path.home()
        if agent == "codex":
            base = base / ".codex"
        path = base.joinpath(*spec.user_file)
        return path.with_name(name) if name else path
    root = Path(project) if project is not None else Path.cwd()
    if scope == "project":
        path = root.joinpath(*spec.project_file)
        return path.with_name(name) if name else path
    if scope == "local" and spec.local_file:
        return root.joinpath(*spec.local_file)
    raise InstallError(f"{agent} has no {scope!r} settings scope")


def settings_files(agent: str, scope: str, **kwargs: Any) -> list[Path]:
    """Every file of ``scope`` the agent reads hooks from (Codex: config.toml and hooks.json)."""
    paths = [settings_path(agent, scope, **kwargs)]
    if agent == "codex":
        paths.append(settings_path(agent, scope, legacy=True, **kwargs))
    return paths


def read_settings(path: Path) -> dict[str, Any]:
    """A settings file as data (JSON, or TOML for ``*.toml``); ValueError when unreadable."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".toml":
        import tomllib

        return tomllib.loads(text)
    from .._jsonc import loads

    data, _ = loads(text or "{}")   # agents' settings may hold comments (JSONC)
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    return data


# --- what --------------------------------------------------------------------------------

def real_script() -> list[str]:
    """The argv prefix that runs this shellgate: its console script next to the running
    interpreter, else ``python -m shellgate`` — by absolute path, never through PATH."""
    import sysconfig

    for scripts in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        exe = os.path.join(scripts or "", "shellgate")
        if os.path.isfile(exe) and os.access(exe, os.X_OK):
            return [os.path.abspath(exe)]
    return [os.path.abspath(sys.executable), "-m", "shellgate"]


def hook_command(agent: str, *, executable: str | None = None, mode: str | None = None,
                 config: str | None = None, serve: str | None = None) -> str:
    """The command line the agent runs: this shellgate by absolute path (:func:`real_script`)
    with ``hook <agent>`` and options; with ``serve`` (a listen address) the stdlib-only client
    of ``shellgate serve`` under ``python -I -S``, which falls back to the same hook."""
    if serve is not None:
        client = Path(__file__).with_name("hookclient.py").resolve()
        parts = [os.path.abspath(sys.executable), "-I", "-S", str(client), agent,
                 "--listen", serve]
    else:
        parts = [executable] if executable else real_script()
        parts += ["hook", agent]
    if mode:
        parts += ["--mode", mode]
    if config:
        parts += ["--config", str(Path(config).absolute())]
    return shlex.join(parts)


_OURS = re.compile(r"(?:^|[/\s'\"])(?:shellgate['\"]?\s+hook|hookclient\.py['\"]?)"
                   r"\s+(?P<agent>claude-code|codex|gemini)\b")
_OUR_URL = re.compile(r"^https?://[^/]+/hook/(?P<agent>claude-code|codex|gemini)/?$")


def is_shellgate_handler(handler: Any, agent: str | None = None) -> bool:
    """Whether ``handler`` (one entry of a matcher group) runs ``shellgate hook [agent]`` (or
    its serve client), or posts to a shellgate server's ``/hook/[agent]``."""
    if not isinstance(handler, dict):
        return False
    if isinstance(handler.get("command"), str):
        m = _OURS.search(handler["command"])
    elif handler.get("type") == "http" and isinstance(handler.get("url"), str):
        m = _OUR_URL.match(handler["url"])
    else:
        return False
    return m is not None and (agent is None or m.group("agent") == agent)


def find_handlers(data: Any, agent: str,
                  kinds: tuple[str, ...] = ("command",)) -> list[tuple[str, dict[str, Any]]]:
    """Every (matcher, handler) in parsed settings ``data`` that runs our hook for ``agent``;
    ``kinds``: the handler types wanted (``command``, ``http``)."""
    spec = agent_hook(agent)
    groups = data.get("hooks", {}).get(spec.event, []) if isinstance(data, dict) else []
    found = []
    for group in groups if isinstance(groups, list) else []:
        if not isinstance(group, dict):
            continue
        for handler in group.get("hooks", []) if isinstance(group.get("hooks"), list) else []:
            if is_shellgate_handler(handler, agent) and handler.get("type", "command") in kinds:
                found.append((str(group.get("matcher", "")), handler))
    return found


@record
class InstallPlan:
    """What ``init`` would do (or did) to one settings file."""

    agent: str
    path: Path
    before: str | None       # None: the file does not exist yet
    after: str
    notes: tuple[str, ...]

    @property
    def changed(self) -> bool:
        return self.before != self.after

    @property
    def diff(self) -> str:
        a = (self.before or "").splitlines(keepends=True)
        b = self.after.splitlines(keepends=True)
        old = str(self.path) if self.before is not None else "/dev/null"
        return "".join(difflib.unified_diff(a, b, old, str(self.path)))

    def to_json(self) -> dict[str, Any]:
        return {"agent": self.agent, "path": str(self.path), "changed": self.changed,
                "diff": self.diff, "notes": list(self.notes)}


def _load(path: Path) -> tuple[str | None, dict[str, Any], bool]:
    """The settings file's text (None: no file), its data, and whether it is JSONC (comments
    or trailing commas, which Gemini CLI and Claude Code accept and a rewrite cannot keep)."""
    if not path.exists():
        return None, {}, False
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        return text, {}, False
    from .._jsonc import loads

    try:
        data, jsonc = loads(text)
    except ValueError as exc:
        raise InstallError(f"{path} is not JSON, even allowing comments and trailing commas "
                           f"({exc}); shellgate will not rewrite it. Fix it, or add the hook by "
                           "hand (see `shellgate init --dry-run` on an empty file for the "
                           "snippet).") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} does not hold a JSON object")
    return text, data, jsonc


def _indent(text: str | None) -> int | str:
    """The indentation ``text`` uses (so a rewrite keeps the user's style); 2 by default."""
    m = re.search(r"\n([ \t]+)\S", text or "")
    if m is None:
        return 2
    ws = m.group(1)
    return ws if "\t" in ws else len(ws)


def merge(data: dict[str, Any], spec: AgentHook, wanted: dict[str, Any]) -> dict[str, Any]:
    """``data`` with exactly one shellgate handler ``wanted`` for ``spec`` (a new dict)."""
    data = json.loads(json.dumps(data))
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError("the 'hooks' key is not an object")
    groups = hooks.setdefault(spec.event, [])
    if not isinstance(groups, list):
        raise InstallError(f"'hooks.{spec.event}' is not a list")
    placed = False
    for group in groups:
        if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
            continue
        kept = []
        for handler in group["hooks"]:
            if not is_shellgate_handler(handler, spec.agent):
                kept.append(handler)
            elif not placed and len(group["hooks"]) == 1:
                # our own group: bring matcher and handler up to date, keep user-added keys
                # (none of the other handler type's: a command hook has no url, and so on)
                group["matcher"] = spec.matcher
                same = handler.get("type", "command") == wanted["type"]
                kept.append({**handler, **wanted} if same else wanted)
                placed = True
            # a shellgate handler sharing a group with other hooks, or a duplicate: dropped
        group["hooks"] = kept
    hooks[spec.event] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") == [])]
    if not placed:
        hooks[spec.event].append({"matcher": spec.matcher, "hooks": [wanted]})
    return data


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return str(v)
    return json.dumps(str(v), ensure_ascii=False)   # a JSON string is a TOML basic string


def toml_block(spec: AgentHook, wanted: dict[str, Any]) -> str:
    """shellgate's managed block of a Codex ``config.toml``: one matcher group, one handler."""
    lines = [_BEGIN, f"[[hooks.{spec.event}]]", f"matcher = {_toml_value(spec.matcher)}", "",
             f"[[hooks.{spec.event}.hooks]]"]
    lines += [f"{k} = {_toml_value(v)}" for k, v in wanted.items()]
    return "\n".join([*lines, _END]) + "\n"


def merge_toml(text: str | None, spec: AgentHook, wanted: dict[str, Any]) -> str:
    """``text`` (a config.toml) with shellgate's block replaced or appended; InstallError when
    the result would not be valid TOML with exactly one shellgate handler."""
    import tomllib

    text = text or ""
    block = toml_block(spec, wanted)
    start, end = text.find(_BEGIN), text.find(_END)
    if start >= 0 and end > start:
        after = text[:start] + block + text[end + len(_END):].lstrip("\n")
    else:
        after = text + ("\n" if text and not text.endswith("\n") else "") + \
            ("\n" if text.strip() else "") + block
    try:
        data = tomllib.loads(after)
    except tomllib.TOMLDecodeError as exc:
        raise InstallError(f"the hook cannot be added to this config.toml ({exc}); add this "
                           f"by hand:\n{block}") from None
    if len(find_handlers(data, spec.agent, ("command", "http"))) != 1:
        raise InstallError("config.toml already runs a shellgate hook outside shellgate's "
                           f"block; remove it, or replace it with:\n{block}")
    return after


def plan(agent: str, scope: str = "user", *, path: str | Path | None = None,
         home: str | Path | None = None, project: str | Path | None = None,
         command: str | None = None, mode: str | None = None,
         config: str | None = None, serve: str | None = None,
         version: tuple[int, int, int] | None | str = "detect") -> InstallPlan:
    """Compute the edit without writing anything. ``serve``: a ``shellgate serve`` listen
    address to answer through; ``version``: the agent's, or ``"detect"`` to ask it."""
    spec = agent_hook(agent)
    found = agent_version(agent) if version == "detect" else version
    assert not isinstance(found, str)
    legacy = agent == "codex" and found is not None and found < CODEX_TOML_HOOKS
    target = Path(path) if path is not None else settings_path(agent, scope, home=home,
                                                               project=project, legacy=legacy)
    notes = [*spec.notes, *version_notes(agent, found)]
    if serve is not None:
        from .serve import parse_listen

        parse_listen(serve)   # loopback or a Unix socket only (ServeError otherwise)
        notes.append(f"the hook runs the serve client: it asks `shellgate serve --listen "
                     f"{serve}` and decides in-process when no server answers")
    command = command or hook_command(agent, mode=mode, config=config, serve=serve)
    wanted = spec.handler(command)
    if target.suffix == ".toml":
        before = target.read_text(encoding="utf-8") if target.exists() else None
        after = merge_toml(before, spec, wanted)
        if before is not None and after == before:
            after = before
        other = target.with_name("hooks.json")
        if other.is_file():
            try:
                if find_handlers(read_settings(other), agent, ("command", "http")):
                    notes.append(f"{other} also runs shellgate: remove that entry (Codex runs "
                                 "both and warns)")
            except (OSError, ValueError):
                pass
        return InstallPlan(agent, target, before, after, tuple(notes))
    before, data, jsonc = _load(target)
    after_data = merge(data, spec, wanted)
    if before is not None and after_data == data:
        after = before   # already installed exactly so: leave the bytes alone
    else:
        after = json.dumps(after_data, indent=_indent(before), ensure_ascii=False) + "\n"
        if jsonc:
            notes.append(f"{target} has comments or trailing commas (JSONC): the rewritten file "
                         "keeps every setting but NOT the comments; the original is saved first "
                         f"as {target.name}{BACKUP_SUFFIX} (copy the comments back from there)")
    return InstallPlan(agent, target, before, after, tuple(notes))


BACKUP_SUFFIX = ".shellgate.bak"   # apply() copies a file it rewrites to NAME + this, first


def apply(p: InstallPlan) -> None:
    """Write ``p.after`` atomically, keeping a ``.bak`` copy of a file that existed."""
    if not p.changed:
        return
    p.path.parent.mkdir(parents=True, exist_ok=True)
    mode = None
    if p.path.exists():
        mode = p.path.stat().st_mode & 0o777
        shutil.copy2(p.path, p.path.with_name(p.path.name + BACKUP_SUFFIX))
    fd, tmp = tempfile.mkstemp(dir=p.path.parent, prefix=f".{p.path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(p.after)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, p.path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def compile_package() -> str:
    """Byte-compile the installed shellgate package (what a hook imports), so a hook never
    compiles from source — an editable install run under ``PYTHONDONTWRITEBYTECODE=1``
    otherwise pays that on every call. Returns a note for the user."""
    import compileall

    root = Path(__file__).resolve().parent.parent
    try:
        ok = compileall.compile_dir(str(root), quiet=2, workers=1)
    except OSError as exc:
        return f"could not byte-compile {root} ({exc}); hooks will start slower"
    missing = missing_bytecode()
    if not ok or missing:
        return (f"could not byte-compile all of {root} ({len(missing)} module(s) without "
                "bytecode); hooks will start slower")
    return f"byte-compiled {root}"


def missing_bytecode() -> list[str]:
    """The package's modules with no bytecode Python would use: none next to them, or one
    compiled by another Python or from another version of the source (its header's mtime
    and size, as the import system checks them)."""
    import importlib.util

    root = Path(__file__).resolve().parent.parent
    out = []
    for src in sorted(root.rglob("*.py")):
        try:
            with open(importlib.util.cache_from_source(str(src)), "rb") as fh:
                head = fh.read(16)
            st = src.stat()
        except OSError:
            out.append(str(src))
            continue
        flags = int.from_bytes(head[4:8], "little")
        fresh = head[:4] == importlib.util.MAGIC_NUMBER and (flags & 1 or (
            int.from_bytes(head[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(head[12:16], "little") == st.st_size & 0xFFFFFFFF))
        if not fresh:
            out.append(str(src))
    return out


def init(agent: str, scope: str = "user", *, dry_run: bool = False, compile: bool = True,
         **kwargs: Any) -> InstallPlan:
    """Install (or update) the shellgate hook for ``agent``; returns the plan with its diff.

    ``kwargs``: ``path`` (explicit settings file), ``home``, ``project``, ``command``, ``mode``,
    ``config``, ``serve``, ``version``. Raises :class:`InstallError` when the file cannot be
    edited safely. Unless ``dry_run`` (or ``compile=False``), byte-compiles the package.
    """
    p = plan(agent, scope, **kwargs)
    if not dry_run:
        apply(p)
        if compile:
            from .._record import replace

            p = replace(p, notes=(*p.notes, compile_package()))
    return p


def render(p: InstallPlan, dry_run: bool = False) -> str:
    """Human text for ``shellgate init``: the diff, then what happened, then the notes."""
    lines = []
    if p.changed:
        lines.append(p.diff.rstrip("\n"))
        lines.append(f"{'would update' if dry_run else 'updated'} {p.path}"
                     + ("" if dry_run or p.before is None else
                        f" (backup: {p.path.name}.shellgate.bak)"))
    else:
        lines.append(f"{p.path}: the shellgate hook is already installed; nothing to do")
    lines += [f"note: {n}" for n in p.notes]
    return "\n".join(lines)


# --- doctor's checks ---------------------------------------------------------------------

def health_checks(*, home: str | Path | None = None, project: str | Path | None = None,
                  environ: Mapping[str, str] | None = None) -> list[tuple[str, bool, str, str]]:
    """``(name, ok, detail, level)`` findings for ``shellgate doctor``: hooks that fail open
    (no ``onFailure: "block"``, no explicit timeout), that run a different shellgate than this
    one (stale after a reinstall), http hooks (they trust whatever answers), and missing
    bytecode."""
    out: list[tuple[str, bool, str, str]] = []
    mine = real_script()[0]
    for agent in AGENTS:
        spec = agent_hook(agent)
        for scope in ("user", "project", "local"):
            try:
                paths = settings_files(agent, scope, home=home, project=project,
                                       environ=environ)
            except InstallError:
                continue
            for path in paths:
                if not path.is_file():
                    continue
                try:
                    data = read_settings(path)
                except (OSError, ValueError):
                    continue   # the JSON check reports it
                name = f"hook {agent} ({scope}) settings"
                hooks_cfg = data.get("hooksConfig")
                if agent == "gemini" and isinstance(hooks_cfg, dict) and \
                        hooks_cfg.get("enabled") is False:
                    out.append((name, False, f"{path}: hooksConfig.enabled is false: Gemini "
                                "runs no hook, shellgate included", "error"))
                for _matcher, h in find_handlers(data, agent, ("command", "http")):
                    out += _handler_findings(name, path, agent, spec, h, mine)
    missing = missing_bytecode()
    out.append(("bytecode", not missing, f"{len(missing)} shellgate module(s) have no "
                "up-to-date bytecode: each hook call compiles them (run `shellgate init` or "
                "`python -m compileall` on the package)" if missing else
                "every shellgate module is byte-compiled", "warn"))
    return out


def _handler_findings(name: str, path: Path, agent: str, spec: AgentHook, h: dict[str, Any],
                      mine: str) -> list[tuple[str, bool, str, str]]:
    out = []
    if not isinstance(h.get("timeout"), int | float):
        out.append((name, False, f"{path}: no explicit timeout (the agent's default may be "
                    "minutes, or shorter than the hook needs)", "warn"))
    if agent == "claude-code" and h.get("onFailure") != "block":
        out.append((name, False, f"{path}: no onFailure \"block\": a hook that crashes or "
                    "times out lets the call through (fail open); rerun `shellgate init "
                    "claude-code`", "error"))
    if h.get("type") == "http":
        out.append(_server_finding(name, path, h))
        return out
    argv = shlex.split(h["command"]) if h.get("command") else []
    first = argv[0] if argv else ""
    if "hookclient.py" in h["command"]:
        client = next((a for a in argv if a.endswith("hookclient.py")), "")
        ok = os.path.isfile(client)
        out.append((name, ok, f"{path}: serve client {client}" if ok else
                    f"{path}: the serve client {client} does not exist (stale after an "
                    "upgrade?): the hook fails", "error"))
        listen = next((argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--listen"), "")
        out.append(_client_server_finding(name, path, listen or None))
    elif first and os.sep not in first:
        out.append((name, False, f"{path}: runs `{first}` through PATH: a shim adds start-up "
                    "time and may find another shellgate; rerun `shellgate init`", "warn"))
    elif first and os.path.realpath(first) != os.path.realpath(mine):
        out.append((name, False, f"{path}: runs {first}, not this shellgate ({mine}): stale "
                    "after a reinstall? rerun `shellgate init`", "warn"))
    return out


def _client_server_finding(name: str, path: Path, listen: str | None) -> tuple[str, bool, str, str]:
    """Whether a proven, current server answers the serve client at ``listen``."""
    from .. import __version__
    from .serve import DEFAULT_LISTEN, ServeError, code_fingerprint, health

    listen = listen or DEFAULT_LISTEN
    try:
        info = health(listen)
    except (OSError, ValueError, ServeError) as exc:
        return (name, False, f"{path}: no shellgate server proves itself at {listen} ({exc}): "
                "the client decides in-process (slower); start `shellgate serve`", "warn")
    if info.get("version") != __version__ or info.get("code") != code_fingerprint():
        return (name, False, f"{path}: the server at {listen} runs other code than this "
                "shellgate (stale after an upgrade): restart `shellgate serve`", "warn")
    return (name, True, f"{path}: server at {listen} is up and current", "info")


def _server_finding(name: str, path: Path, h: dict[str, Any]) -> tuple[str, bool, str, str]:
    """An ``http`` hook (left by an older ``init --serve``): the agent cannot tell the server
    from an impostor on its port, and the server no longer takes a bearer token."""
    url = str(h.get("url", ""))
    return (name, False, f"{path}: the http hook to {url} cannot tell shellgate's server from "
            "another process on that port, and the server refuses it (every checked call is "
            "blocked): rerun `shellgate init claude-code --serve` (it installs the verifying "
            "client)", "error")
