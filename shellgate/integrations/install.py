"""``shellgate init claude-code|codex|gemini``: put the hook into the agent's settings file.

Each agent reads hooks from a JSON file with the same three levels — event, matcher groups,
handlers (research/ecosystem.md §1.1, §2.3, §2.4):

| agent | user file | project file | event | timeout unit |
|---|---|---|---|---|
| Claude Code | ``~/.claude/settings.json`` | ``.claude/settings.json`` | PreToolUse | seconds |
| Codex | ``$CODEX_HOME/hooks.json`` (``~/.codex``) | ``.codex/hooks.json`` | PreToolUse | seconds |
| Gemini CLI | ``~/.gemini/settings.json`` | ``.gemini/settings.json`` | BeforeTool | milliseconds |

Claude Code also has the ``local`` scope, ``.claude/settings.local.json`` (not committed).

Installing is idempotent: a handler that already runs ``shellgate hook <agent>`` is updated in
place (or left alone when it is already right), never duplicated. Everything else in the file
is kept. The change is shown as a unified diff; ``dry_run`` writes nothing. A file that is
not plain JSON is never rewritten: the error says what to add by hand.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._record import record

AGENTS = ("claude-code", "codex", "gemini")
SCOPES = ("user", "project", "local")
HOOK_TIMEOUT_S = 30


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
        if self.agent == "gemini":
            return {"name": "shellgate", "type": "command", "command": command,
                    "timeout": HOOK_TIMEOUT_S * 1000,
                    "description": "shellgate: parse, classify and gate tool calls"}
        handler: dict[str, Any] = {"type": "command", "command": command,
                                   "timeout": HOOK_TIMEOUT_S}
        if self.agent == "codex":
            handler["statusMessage"] = "shellgate: checking the command"
        return handler


def _matcher(agent: str) -> str:
    from . import claude_code, codex, gemini

    return {"claude-code": claude_code.MATCHER, "codex": codex.MATCHER,
            "gemini": gemini.MATCHER}[agent]


def agent_hook(agent: str) -> AgentHook:
    if agent == "claude-code":
        return AgentHook(agent, "PreToolUse", _matcher(agent), (".claude", "settings.json"),
                         (".claude", "settings.json"), (".claude", "settings.local.json"),
                         ("Claude Code reads hooks at startup: restart it, then check with /hooks.",))
    if agent == "codex":
        return AgentHook(agent, "PreToolUse", _matcher(agent), ("hooks.json",),
                         (".codex", "hooks.json"), None,
                         ("Codex runs a new or changed hook only after you review and trust it: "
                          "open Codex and approve it in /hooks.",
                          "Codex honours only deny from a hook: shellgate turns ask into deny "
                          "with instructions to approve."))
    if agent == "gemini":
        return AgentHook(agent, "BeforeTool", _matcher(agent), (".gemini", "settings.json"),
                         (".gemini", "settings.json"), None,
                         ("If your Gemini CLI keeps hooks behind a switch, turn on "
                          "'Enable Hooks System' in /settings and restart it.",
                          "Gemini hooks cannot ask: shellgate turns ask into deny with "
                          "instructions to approve."))
    raise InstallError(f"unknown agent {agent!r}: use one of {', '.join(AGENTS)}")


def settings_path(agent: str, scope: str = "user", *, home: str | Path | None = None,
                  project: str | Path | None = None,
                  environ: Mapping[str, str] | None = None) -> Path:
    """The settings file ``init`` edits for ``agent`` at ``scope`` (user, project or local)."""
    env = os.environ if environ is None else environ
    spec = agent_hook(agent)
    if scope == "user":
        if agent == "codex" and env.get("CODEX_HOME") and home is None:
            return Path(env["CODEX_HOME"]) / spec.user_file[-1]
        base = Path(home) if home is not None else Path.home()
        if agent == "codex":
            base = base / ".codex"
        return base.joinpath(*spec.user_file)
    root = Path(project) if project is not None else Path.cwd()
    if scope == "project":
        return root.joinpath(*spec.project_file)
    if scope == "local" and spec.local_file:
        return root.joinpath(*spec.local_file)
    raise InstallError(f"{agent} has no {scope!r} settings scope")


def hook_command(agent: str, *, executable: str | None = None, mode: str | None = None,
                 config: str | None = None) -> str:
    """The command line the agent runs: the installed ``shellgate`` by absolute path when it is
    on PATH (agents may run hooks with a different PATH), plus ``hook <agent>`` and options."""
    exe = executable or shutil.which("shellgate") or "shellgate"
    parts = [exe, "hook", agent]
    if mode:
        parts += ["--mode", mode]
    if config:
        parts += ["--config", str(Path(config).absolute())]
    return shlex.join(parts)


_OURS = re.compile(r"(?:^|[/\s'\"])shellgate['\"]?\s+hook\s+(?P<agent>claude-code|codex|gemini)\b")


def is_shellgate_handler(handler: Any, agent: str | None = None) -> bool:
    """Whether ``handler`` (one entry of a matcher group) runs ``shellgate hook [agent]``."""
    if not isinstance(handler, dict) or not isinstance(handler.get("command"), str):
        return False
    m = _OURS.search(handler["command"])
    return m is not None and (agent is None or m.group("agent") == agent)


def find_handlers(data: Any, agent: str) -> list[tuple[str, dict[str, Any]]]:
    """Every (matcher, handler) in parsed settings ``data`` that runs our hook for ``agent``."""
    spec = agent_hook(agent)
    groups = data.get("hooks", {}).get(spec.event, []) if isinstance(data, dict) else []
    found = []
    for group in groups if isinstance(groups, list) else []:
        if not isinstance(group, dict):
            continue
        for handler in group.get("hooks", []) if isinstance(group.get("hooks"), list) else []:
            if is_shellgate_handler(handler, agent):
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


def _load(path: Path) -> tuple[str | None, dict[str, Any]]:
    if not path.exists():
        return None, {}
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        return text, {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise InstallError(f"{path} is not plain JSON ({exc}); shellgate will not rewrite it. "
                           "Add the hook by hand (see `shellgate init --dry-run` on an empty "
                           "file for the snippet).") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path} does not hold a JSON object")
    return text, data


def _indent(text: str | None) -> int | str:
    """The indentation ``text`` uses (so a rewrite keeps the user's style); 2 by default."""
    m = re.search(r"\n([ \t]+)\S", text or "")
    if m is None:
        return 2
    ws = m.group(1)
    return ws if "\t" in ws else len(ws)


def merge(data: dict[str, Any], spec: AgentHook, command: str) -> dict[str, Any]:
    """``data`` with exactly one shellgate handler for ``spec`` (a new dict; input untouched)."""
    data = json.loads(json.dumps(data))
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError("the 'hooks' key is not an object")
    groups = hooks.setdefault(spec.event, [])
    if not isinstance(groups, list):
        raise InstallError(f"'hooks.{spec.event}' is not a list")
    wanted = spec.handler(command)
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
                group["matcher"] = spec.matcher
                kept.append({**handler, **wanted})
                placed = True
            # a shellgate handler sharing a group with other hooks, or a duplicate: dropped
        group["hooks"] = kept
    hooks[spec.event] = [g for g in groups if not (isinstance(g, dict) and g.get("hooks") == [])]
    if not placed:
        hooks[spec.event].append({"matcher": spec.matcher, "hooks": [wanted]})
    return data


def plan(agent: str, scope: str = "user", *, path: str | Path | None = None,
         home: str | Path | None = None, project: str | Path | None = None,
         command: str | None = None, mode: str | None = None,
         config: str | None = None) -> InstallPlan:
    """Compute the edit without writing anything."""
    spec = agent_hook(agent)
    target = Path(path) if path is not None else settings_path(agent, scope, home=home,
                                                               project=project)
    before, data = _load(target)
    command = command or hook_command(agent, mode=mode, config=config)
    after_data = merge(data, spec, command)
    if before is not None and after_data == data:
        after = before   # already installed exactly so: leave the bytes alone
    else:
        after = json.dumps(after_data, indent=_indent(before), ensure_ascii=False) + "\n"
    return InstallPlan(agent, target, before, after, spec.notes)


def apply(p: InstallPlan) -> None:
    """Write ``p.after`` atomically, keeping a ``.bak`` copy of a file that existed."""
    if not p.changed:
        return
    p.path.parent.mkdir(parents=True, exist_ok=True)
    mode = None
    if p.path.exists():
        mode = p.path.stat().st_mode & 0o777
        shutil.copy2(p.path, p.path.with_name(p.path.name + ".shellgate.bak"))
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


def init(agent: str, scope: str = "user", *, dry_run: bool = False, **kwargs: Any) -> InstallPlan:
    """Install (or update) the shellgate hook for ``agent``; returns the plan with its diff.

    ``kwargs``: ``path`` (explicit settings file), ``home``, ``project``, ``command``, ``mode``,
    ``config``. Raises :class:`InstallError` when the file cannot be edited safely.
    """
    p = plan(agent, scope, **kwargs)
    if not dry_run:
        apply(p)
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
