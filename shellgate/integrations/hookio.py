"""Shared plumbing of the agent hooks: payload in, one engine decision, the agent's reply out.

Every agent (Claude Code, Codex, Gemini CLI) calls ``shellgate hook <agent>`` before each tool
call with a JSON object on stdin. The three differ only in field names, tool names, how they
spell a permission mode and how a decision is written back; those differences live in one
:class:`AgentSpec` per agent module. Everything else — reading the payload, choosing the mode,
asking the engine, wording the reason, failing closed — is here.

Fail closed: all three agents *proceed* with the tool call when a hook exits 1, times out or
prints something they cannot parse (research/ecosystem.md §0.4). So :func:`run` never raises
and never returns exit 1: any problem becomes a deny in the agent's own format, and
:func:`cli_main` falls back to exit 2 with a reason on stderr if even that fails.

This module is on the hook's hot path: it imports only the standard library at load time and
the engine lazily when a decision is needed (no click, rich or mcp).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._record import field, record, replace

if TYPE_CHECKING:
    from ..sandbox.policy import Limits

MAX_REASON = 2000          # agents cap hook strings at 10,000 chars; keep the model's copy short
MAX_STDIN = 8 * 1024 * 1024  # a tool call larger than this is refused rather than parsed


class ToolKind(StrEnum):
    """What a tool call does, in the engine's vocabulary (the kernel never sees agent names)."""

    BASH = "bash"      # a shell command string
    READ = "read"      # reads the file(s) in ``paths``
    WRITE = "write"    # creates or replaces the file(s)
    EDIT = "edit"      # edits the file(s) in place
    PATCH = "patch"    # Codex apply_patch: a patch text naming the files it writes
    SEARCH = "search"  # reads every file under a directory that its glob(s) allow (Grep, Glob)
    OTHER = "other"    # not ours to judge: the hook answers nothing and the agent decides


@record
class ModeMap:
    """How one agent permission mode maps onto shellgate (research/ecosystem.md §8)."""

    mode: str | None          # None: the config's mode, else balanced
    plan: bool = False
    no_ask: bool = False   # the agent cannot ask in this mode (Claude Code dontAsk): ask -> deny


DEFAULT_MODE = ModeMap(None)

# Claude Code and Codex share these names (Codex's hook schema lists the same enum).
# Claude Code's default (Manual) mode asks before edits, so shellgate asks too.
CLAUDE_MODES: Mapping[str, ModeMap] = {
    "default": ModeMap("balanced"),
    "auto": ModeMap("balanced"),
    "plan": ModeMap("balanced", plan=True),
    "acceptEdits": ModeMap("accept-edits"),
    "dontAsk": ModeMap("strict", no_ask=True),
    "bypassPermissions": ModeMap("trust"),
}

# Codex's default is workspace-write: edits inside the workspace go through without a prompt,
# and a hook cannot ask. shellgate matches it (accept-edits), and what it allows runs confined
# to the workspace (SPEC §9); anything else is still a deny that says how to approve.
CODEX_MODES: Mapping[str, ModeMap] = {**CLAUDE_MODES, "default": ModeMap("accept-edits")}

# Gemini sends no mode; its default edits the workspace after its own confirmation, so the hook
# lets in-workspace edits through (accept-edits) unless ``--mode`` or ``[hooks] mode`` says
# otherwise.
GEMINI_MODES: Mapping[str, ModeMap] = {"": ModeMap("accept-edits")}


@record
class SearchFields:
    """Where one search tool's payload holds what it reads: the directory (the first of
    ``root`` present; none: the cwd) and the glob(s) filtering the files below it (every one
    of ``globs`` present, a string or a list; none: every file). ``engine`` is the engine's
    name for the tool (``grep``, ``glob``, ``read``); ``need_glob``: a call without a glob is
    malformed (Glob's ``pattern`` is what it searches for)."""

    engine: str
    root: tuple[str, ...]
    globs: tuple[str, ...]
    need_glob: bool = False


@record
class Call:
    """One tool call as any agent's hook describes it."""

    agent: str
    tool_name: str
    kind: ToolKind
    command: str | None = None            # BASH
    paths: tuple[str, ...] = ()           # READ / WRITE / EDIT / PATCH; SEARCH: its root
    globs: tuple[str, ...] = ()           # SEARCH: the globs filtering what it reads
    engine_tool: str = ""                 # SEARCH: the engine's name for the tool
    cwd: str = ""
    session_id: str = ""
    tool_use_id: str = ""
    agent_mode: str | None = None
    agent_cwd: str = ""                   # the agent's own cwd (never a model-chosen dir_path)
    terminal: bool = True                 # the agent's shell may give the command a terminal


@record
class Outcome:
    """The decision a hook reports, with the words for it."""

    decision: str                          # "allow" | "ask" | "deny"
    reason: str                            # why, in one short sentence
    warnings: tuple[str, ...] = ()         # destructive-command noun phrases
    details: tuple[str, ...] = ()          # why it is not read-only / which path is sensitive
    rule: str = ""
    capability: str = ""
    approve_hint: str = ""                 # how a human approves (only when ask became deny)
    updated_input: Mapping[str, Any] | None = None  # the tool input to run instead (confined)
    grant: str = ""                        # what the confined command may do (SPEC §9)
    notices: tuple[str, ...] = ()          # rules that can never match: stderr, never the answer
    watched: tuple[str, ...] = ()          # what the policy's read rules name: masked when confined
    guarded: tuple[str, ...] = ()          # what its deny edit rules name: read-only when confined

    def text(self) -> str:
        """The reason as the agent shows it: reason, details, warnings, approval hint. The
        agent shows it to a person too, so control characters are escaped (``_visible``)."""
        from .._visible import visible

        parts = [self.reason.rstrip(". ") + "."]
        if self.details:
            parts.append("Details: " + "; ".join(dict.fromkeys(self.details)) + ".")
        if self.warnings:
            parts.append("Warnings: " + "; ".join(dict.fromkeys(self.warnings)) + ".")
        if self.approve_hint:
            parts.append(self.approve_hint)
        text = visible("shellgate: " + " ".join(parts))
        return text if len(text) <= MAX_REASON else text[: MAX_REASON - 1] + "…"


class HookInputError(ValueError):
    """The payload is not what the agent's hook protocol promises."""


@record
class AgentSpec:
    """Everything that differs between agents. ``render`` turns an outcome into stdout."""

    name: str
    event: str                                   # the tool event we answer
    tools: Mapping[str, ToolKind]
    path_keys: tuple[str, ...] = ("file_path",)
    cwd_keys: tuple[str, ...] = ()               # shell tool_input keys naming a working dir
    searches: Mapping[str, SearchFields] = field(default_factory=dict)  # per SEARCH tool
    modes: Mapping[str, ModeMap] = field(default_factory=dict)
    can_ask: bool = True
    project_env: str | None = None               # env var holding the project root, if any
    # Whether the agent's shell tool may run a command with a terminal on its streams
    # (``Context.terminal``); False only where the agent's own tool gives none.
    terminal: bool = True
    render: Callable[[Outcome], str] = lambda o: ""


# --- payload -----------------------------------------------------------------------------

def parse_payload(text: str) -> dict[str, Any]:
    """The hook's stdin as a JSON object, or :class:`HookInputError`."""
    if len(text) > MAX_STDIN:
        raise HookInputError(f"hook input is larger than {MAX_STDIN} bytes")
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise HookInputError(f"hook input is not JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise HookInputError("hook input is not a JSON object")
    return obj


def _str(obj: Mapping[str, Any], key: str) -> str:
    value = obj.get(key)
    return value if isinstance(value, str) else ""


def patch_paths(patch: str) -> tuple[str, ...]:
    """The files a Codex ``apply_patch`` envelope adds, updates, deletes or moves to, read as
    Codex's parser reads it (:mod:`.codex_patch`); a patch Codex would read otherwise, or not
    at all, is a :class:`HookInputError` (a deny)."""
    from .codex_patch import PatchError, written_paths

    try:
        return written_paths(patch)
    except PatchError as exc:
        raise HookInputError(f"apply_patch: {exc}") from None


def to_call(spec: AgentSpec, payload: Mapping[str, Any]) -> Call:
    """Read one tool call out of ``payload``; :class:`HookInputError` when it is malformed."""
    event = payload.get("hook_event_name")
    if event != spec.event:
        raise HookInputError(f"expected hook_event_name {spec.event!r}, got {event!r}")
    tool = payload.get("tool_name")
    if not isinstance(tool, str) or not tool:
        raise HookInputError("tool_name is missing")
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict):
        raise HookInputError("tool_input is not an object")
    kind = spec.tools.get(tool, ToolKind.OTHER)
    cwd = agent_cwd = _str(payload, "cwd")
    for key in spec.cwd_keys if kind is ToolKind.BASH else ():
        sub = tool_input.get(key)  # Gemini's run_shell_command may name its own directory
        if isinstance(sub, str) and sub:
            cwd = os.path.join(cwd, sub) if cwd else sub
    mode = payload.get("permission_mode")
    common = dict(agent=spec.name, tool_name=tool, kind=kind, cwd=cwd, agent_cwd=agent_cwd,
                  session_id=_str(payload, "session_id"), tool_use_id=_str(payload, "tool_use_id"),
                  agent_mode=mode if isinstance(mode, str) else None, terminal=spec.terminal)
    if kind is ToolKind.BASH:
        command = tool_input.get("command")
        if not isinstance(command, str):
            raise HookInputError(f"{tool}: tool_input.command is not a string")
        return Call(command=command, **common)
    if kind is ToolKind.PATCH:
        patch = tool_input.get("command", tool_input.get("input"))
        if not isinstance(patch, str):
            raise HookInputError(f"{tool}: the patch text is missing")
        paths = patch_paths(patch)
        if not paths:
            raise HookInputError(f"{tool}: no file named in the patch")
        return Call(paths=paths, **common)
    if kind is ToolKind.SEARCH:
        return search_call(spec.searches[tool], tool, tool_input, common)
    if kind in (ToolKind.READ, ToolKind.WRITE, ToolKind.EDIT):
        paths = tuple(tool_input[k] for k in spec.path_keys
                      if isinstance(tool_input.get(k), str) and tool_input[k])
        if not paths:
            raise HookInputError(f"{tool}: no file path in tool_input")
        return Call(paths=paths, **common)
    return Call(**common)


def search_call(fields: SearchFields, tool: str, tool_input: Mapping[str, Any],
                common: dict[str, Any]) -> Call:
    """A search call read by its :class:`SearchFields`. Fail closed: a field of the wrong
    type is a :class:`HookInputError` (a deny), never skipped — a skipped glob would only
    widen the search, but a skipped root would move it."""
    root = ""
    for key in fields.root:
        value = tool_input.get(key)
        if value is None:
            continue
        if not isinstance(value, str):
            raise HookInputError(f"{tool}: tool_input.{key} is not a string")
        if value:
            root = value
            break
    globs: list[str] = []
    for key in fields.globs:
        value = tool_input.get(key)
        if value is None:
            continue
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(g, str) for g in items):
            raise HookInputError(f"{tool}: tool_input.{key} is not a string or a list of strings")
        globs += items
    if fields.need_glob and not any(globs):
        raise HookInputError(f"{tool}: no {' or '.join(fields.globs)} in tool_input")
    return Call(paths=(root or ".",), globs=tuple(globs), engine_tool=fields.engine, **common)


# --- mode --------------------------------------------------------------------------------

def resolve_mode(spec: AgentSpec, agent_mode: str | None, override: str | None) -> ModeMap:
    """The agent's mode mapped per §8, unless ``override`` (``--mode`` or config) names one.

    An override replaces the mode but keeps the agent's plan switch and its inability to ask:
    a user's config may loosen shellgate, but not make the agent able to prompt.
    """
    mapped = spec.modes.get(agent_mode or "", DEFAULT_MODE)
    if override:
        return replace(mapped, mode=override)
    return mapped


def hooks_config(config: str | None, workspace: str) -> Mapping[str, Any]:
    """The ``[hooks]`` section of the layered config (empty when there is none); read once
    per call and handed to :func:`config_mode` and :func:`enforce_setting`. Raises
    ``ConfigError`` for a bad config."""
    from ..config import load_config

    hooks = load_config(workspace, config).sections.get("hooks")
    return hooks if isinstance(hooks, dict) else {}


def config_mode(config: str | None, workspace: str, agent: str,
                hooks: Mapping[str, Any] | None = None) -> str | None:
    """The mode the shellgate config sets for hooks: ``[hooks.<agent>] mode``, else
    ``[hooks] mode``. The top-level ``mode`` does not override an agent's live mode (it
    still applies when the agent sends none). Raises ``ConfigError`` for a bad config.
    ``hooks``: the section, when the caller has read it already."""
    if hooks is None:
        hooks = hooks_config(config, workspace)
    for table in (hooks.get(agent), hooks):
        mode = table.get("mode") if isinstance(table, dict) else None
        if isinstance(mode, str) and mode:
            from ..permission.modes import parse_mode

            return str(parse_mode(mode))
    return None


# --- workspace ---------------------------------------------------------------------------

def find_workspace(cwd: str, project_env: str | None = None,
                   environ: Mapping[str, str] | None = None) -> str:
    """The project root: the agent's project-dir variable, else the enclosing git worktree,
    else ``cwd``. No subprocess: a ``.git`` entry (dir or worktree file) marks the root."""
    env = os.environ if environ is None else environ
    if project_env and env.get(project_env):
        return env[project_env]
    here = Path(cwd or os.getcwd()).absolute()
    for d in (here, *here.parents):
        if (d / ".git").exists():
            return str(d)
    return str(here)


SESSION_DAYS = 14   # a session's workspace anchor is forgotten after this many days unused
_MAX_ANCHOR = 1 << 16   # an anchor (a path) bigger than this is not one shellgate wrote


def session_workspace(agent: str, session_id: str, found: str) -> tuple[str, str]:
    """The workspace of this agent session: the one found at its first hook call, kept for
    the whole session. A later ``cd`` (the agent reports its live cwd) never moves or widens
    it — ``cd / && rm usr/lib/x`` must not make ``/`` the workspace. Without a session id, or
    if the state directory cannot be written, ``found`` stands (never an error).

    With it, ``(workspace, problem)``: ``problem`` is "" unless an anchor exists and cannot be
    read (not a regular file, too large, not UTF-8, or the process is out of descriptors). The
    session's workspace is not known then, and ``found`` may be a directory the agent moved to:
    the caller takes it, but grants no edit in it without asking (fail closed, not a deny of
    every call)."""
    if not session_id:
        return found, ""
    from ..permission.audit import default_audit_path

    root = default_audit_path().parent / "sessions"
    # hex, not a digest: hashlib costs the hook ~2 ms of imports
    path = root / f"{agent}-{session_id.encode('utf-8', 'surrogatepass').hex()[:200]}"
    from .._plain import read_plain

    def unreadable(exc: Exception) -> tuple[str, str]:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else type(exc).__name__
        return found, (f"the session's workspace anchor {path} cannot be read ({why}): edits in "
                       f"{found} ask")

    try:
        anchored = read_plain(path, _MAX_ANCHOR).decode("utf-8")
        if anchored and os.path.isdir(anchored):
            os.utime(path)
            return anchored, ""
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError) as exc:
        return unreadable(exc)
    try:
        root.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # a concurrent first call won: take its answer
        try:
            return read_plain(path, _MAX_ANCHOR).decode("utf-8") or found, ""
        except (OSError, UnicodeDecodeError) as exc:
            return unreadable(exc)
    except OSError:
        return found, ""
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(found)
    _forget_old_sessions(root)
    return found, ""


def _forget_old_sessions(root: Path) -> None:
    import time

    cutoff = time.time() - SESSION_DAYS * 86400
    try:
        with os.scandir(root) as it:
            for e in it:
                if e.stat().st_mtime < cutoff:
                    os.unlink(e.path)
    except OSError:
        pass


def no_writes_at(workspace: str) -> bool:
    """A workspace that would make every file of the system the agent's to edit."""
    return os.path.realpath(workspace) == "/"


def _edits(mode: str) -> bool:
    """Whether ``mode`` (any spelling) lets workspace edits through without asking."""
    from ..permission.modes import Mode, parse_mode

    return parse_mode(mode) in (Mode.AUTO, Mode.TRUST)


# --- deciding ----------------------------------------------------------------------------

Decider = Callable[[Call, ModeMap, "str | None", str], Outcome]


def decide(call: Call, mode: ModeMap, config: str | None, workspace: str) -> Outcome:
    """Ask the engine about ``call``; records the decision in the audit log."""
    from . import _engine

    return _engine.decide(call, mode, config, workspace)


def no_ask(outcome: Outcome, call: Call) -> Outcome:
    """``ask`` turned into ``deny`` for an agent that cannot ask, with how to approve."""
    if outcome.decision != "ask":
        return outcome
    return replace(outcome, decision="deny", approve_hint=approve_hint(call, outcome))




def approve_hint(call: Call, outcome: Outcome | None = None) -> str:
    """Tell the human (the model relays it) how to let this call through next time — except
    for a destructive call, or one outside the workspace or on a sensitive path: no hint
    invites running those, the person decides with the facts in the reason."""
    from ..permission.remember import NO_SHORTCUT

    why = NO_SHORTCUT.get(outcome.rule) if outcome is not None else None
    if why is None and outcome is not None and outcome.warnings:
        why = "it is destructive"
    if why is not None:
        return (f"This agent cannot ask from a hook, so it was blocked. Because {why}, "
                "shellgate suggests no way to approve it from here: tell the user what you "
                "wanted to do and why, and let them decide.")
    if call.kind is ToolKind.BASH:
        import shlex

        cmd = call.command or ""
        # shown only when it can be copied as it is (a cut or escaped text would run another)
        shown = shlex.quote(cmd) if len(cmd) <= 120 and cmd.isprintable() else "'<the command>'"
        return ("This agent cannot ask from a hook, so it was blocked. To approve it, the user "
                f"can run it from the project directory with `shellgate run -- {shown}`, which "
                "asks them (answer \"always\" to remember it), store an approval with "
                "`shellgate approvals add '<prefix> *'`, add an allow rule to "
                "~/.config/shellgate/config.toml, or give the hook a more permissive mode "
                f"(`shellgate hook {call.agent} --mode accept-edits`).")
    return ("This agent cannot ask from a hook, so it was blocked. The user can do this "
            "themselves if they intend it, or give the hook a more permissive mode "
            f"(`shellgate hook {call.agent} --mode accept-edits`).")


def evaluate(spec: AgentSpec, payload: Any, mode_override: str | None = None,
             config: str | None = None, decider: Decider | None = None) -> Outcome | None:
    """The outcome for one hook payload (a JSON text or an already parsed object); ``None``
    for a tool shellgate does not judge. Never raises: every problem is a deny."""
    try:
        obj = parse_payload(payload) if isinstance(payload, str) else payload
        call = to_call(spec, obj)
    except HookInputError as exc:
        return Outcome("deny", f"refused: {exc}", rule="hook.bad_input")
    except Exception as exc:  # noqa: BLE001 - any bug must still block
        return _internal(exc)
    if call.kind is ToolKind.OTHER:
        return None
    try:
        # The workspace follows the agent's session, never a directory the model named
        # (Gemini dir_path) or moved to (a `cd` the agent then reports as its cwd).
        workspace = find_workspace(call.agent_cwd or call.cwd, spec.project_env)
        unknown = ""
        if not (spec.project_env and os.environ.get(spec.project_env)):
            workspace, unknown = session_workspace(spec.name, call.session_id, workspace)
        hooks = hooks_config(config, workspace)
        override = mode_override or config_mode(config, workspace, spec.name, hooks)
        mode = resolve_mode(spec, call.agent_mode, override)
        if (unknown or no_writes_at(workspace)) and mode.mode and _edits(mode.mode):
            mode = replace(mode, mode="balanced")   # "/" (or a workspace not known) grants no edit
        outcome = (decider or decide)(call, mode, config, workspace)
        if unknown:
            outcome = replace(outcome, notices=(*outcome.notices, unknown))
        if outcome.decision not in ("allow", "ask", "deny"):
            raise ValueError(f"engine returned {outcome.decision!r}")
        if outcome.decision == "allow" and call.kind is ToolKind.BASH:
            outcome = enforce(call, outcome, obj.get("tool_input") or {}, workspace, config, hooks)
        if mode.no_ask or not spec.can_ask:
            outcome = no_ask(outcome, call)
        return outcome
    except Exception as exc:  # noqa: BLE001
        return _internal(exc)


def enforce_setting(config: str | None, workspace: str,
                    hooks: Mapping[str, Any] | None = None) -> bool | None:
    """``[hooks] enforce`` of the user's config: True, False, or None (unset: enforce when a
    sandbox tier exists). A project config cannot turn it off (config.py ignores that).
    ``hooks``: the section, when the caller has read it already."""
    value = (hooks_config(config, workspace) if hooks is None else hooks).get("enforce")
    if value is None or isinstance(value, bool):
        return value
    from ..config import ConfigError

    raise ConfigError(f"[hooks] enforce must be true or false, not {value!r}")


def enforce(call: Call, outcome: Outcome, tool_input: Mapping[str, Any], workspace: str,
            config: str | None, hooks: Mapping[str, Any] | None = None) -> Outcome:
    """An allowed bash call rewritten to run inside a sandbox cut to its grant (SPEC §9).

    No sandbox tier here: the decision stands alone (``[hooks] enforce = true`` then asks
    instead). A command that cannot be confined (too long for one argument, a policy that
    cannot be built) is asked about, never let through unconfined.
    """
    setting = enforce_setting(config, workspace, hooks)
    if setting is False:
        return outcome
    from ..permission.modes import grant_for
    from ..sandbox.enforce import CannotConfine, confine_grant, hook_tier
    from ..sandbox.probe import Tier

    tier = hook_tier()
    if tier.tier is Tier.NONE:
        if setting is None:
            return outcome
        return replace(outcome, decision="ask", reason="not run unconfined: [hooks] enforce is "
                       "on but no sandbox tier works here (run `shellgate doctor`)",
                       rule="hook.enforce")
    grant = grant_for(outcome.capability)
    try:
        confined = confine_grant(call.command or "", workspace, call.cwd or workspace,
                                 write=grant.write, network=grant.network, tier=tier,
                                 watched=outcome.watched, guarded=outcome.guarded,
                                 limits=sandbox_limits(config, workspace))
    except (CannotConfine, OSError, ValueError) as exc:
        return replace(outcome, decision="ask", reason=f"{outcome.reason.rstrip('. ')}, but it "
                       f"cannot run confined ({exc})", rule="hook.enforce")
    what = {"read": "read-only, no network", "write": "workspace writable, no network",
            "network": "workspace writable, network on"}[str(grant)]
    reason = f"{outcome.reason.rstrip('. ')}; runs confined ({confined.tier}: {what})"
    if confined.notes:
        reason += "; " + "; ".join(confined.notes)
    return replace(outcome, reason=reason, grant=str(grant),
                   updated_input={**{k: v for k, v in tool_input.items() if k not in NOT_CARRIED},
                                  "command": confined.line})


_HOOK_LIMITS = ("scratch_size", "file_size")   # the [sandbox] keys a hook's line heeds


def sandbox_limits(config: str | None, workspace: str) -> Limits:
    """The bounds of a hook's confined line from ``[sandbox]`` (``scratch_size``, ``file_size``:
    :mod:`.sandbox.scratch`), read from the trusted layers only, as the bash tool reads them:
    a repository's own config must not raise its sandbox's caps. Raises ValueError (a bad
    value) or ``ConfigError``."""
    from ..config import load_config
    from ..sandbox.policy import Limits, limit_setting

    section = load_config(workspace, config, project=False).sections.get("sandbox") or {}
    if not isinstance(section, Mapping):
        raise ValueError("[sandbox] must be a table")
    return Limits(**{k: limit_setting(k, section[k]) for k in _HOOK_LIMITS if k in section})


# Tool-input keys an allow does not pass on. Claude Code's Bash takes
# ``dangerouslyDisableSandbox: true`` to run outside *its own* sandbox, which it otherwise asks
# the user about; shellgate's allow answers a different question (its own confinement), so it
# must not carry the agent's request to drop the user's sandbox past that prompt.
NOT_CARRIED = frozenset({"dangerouslyDisableSandbox"})


def run(spec: AgentSpec, stdin_text: str, mode_override: str | None = None,
        config: str | None = None, decider: Decider | None = None) -> tuple[str, int]:
    """One hook invocation: stdout text and exit code. Never raises, never exits 1.

    A tool shellgate does not judge gets no output (exit 0): the agent's own rules decide it.
    """
    out, code, _ = answer(spec, stdin_text, mode_override, config, decider)
    return out, code


def answer(spec: AgentSpec, stdin_text: str, mode_override: str | None = None,
           config: str | None = None,
           decider: Decider | None = None) -> tuple[str, int, tuple[str, ...]]:
    """:func:`run`, and the rule notices of the config the decision loaded (for stderr)."""
    outcome = evaluate(spec, stdin_text, mode_override, config, decider)
    if outcome is None:
        return "", 0, ()
    try:
        return spec.render(outcome), 0, outcome.notices
    except Exception as exc:  # noqa: BLE001
        return spec.render(_internal(exc)), 0, ()


def hook_specific_output(event: str, decision: str, reason: str | None,
                         updated_input: Mapping[str, Any] | None = None) -> str:
    """The ``{"hookSpecificOutput": …}`` answer Claude Code and Codex both read
    (``updatedInput`` replaces the whole tool input; ``reason`` None leaves it out)."""
    out: dict[str, Any] = {"hookEventName": event, "permissionDecision": decision}
    if reason is not None:
        out["permissionDecisionReason"] = reason
    if updated_input is not None:
        out["updatedInput"] = dict(updated_input)
    return json.dumps({"hookSpecificOutput": out}, ensure_ascii=False)


def _internal(exc: BaseException) -> Outcome:
    kind = "configuration error" if type(exc).__name__.startswith("Config") else "internal error"
    return Outcome("deny", f"blocked because of a shellgate {kind} ({type(exc).__name__}: "
                           f"{str(exc)[:300]}); run `shellgate doctor`", rule="hook.error")


# --- command line ------------------------------------------------------------------------

AGENT_MODULES = {"claude-code": "claude_code", "codex": "codex", "gemini": "gemini"}
USAGE = ("usage: shellgate hook claude-code|codex|gemini [--mode MODE] [--config PATH] "
         "[--deadline SECONDS]")


def parse_args(args: list[str]) -> tuple[str | None, str | None]:
    """``--mode M`` / ``--mode=M`` and ``--config P``; ValueError on anything else
    (``--deadline S`` is read by :func:`deadline_arg`)."""
    opts: dict[str, str] = {}
    it = iter(args)
    for arg in it:
        name, eq, value = arg.partition("=")
        if name not in ("--mode", "--config", "--deadline"):
            raise ValueError(f"unknown argument {arg!r}")
        if not eq:
            value = next(it, "")
        if not value:
            raise ValueError(f"{name} needs a value")
        opts[name] = value
    deadline_arg(args, strict=True)
    mode = opts.get("--mode")
    if mode is not None:
        from ..permission.modes import parse_mode

        mode = str(parse_mode(mode))
    return mode, opts.get("--config")


def deadline_arg(args: list[str], strict: bool = False) -> float:
    """The ``--deadline SECONDS`` of the hook's watchdog (default ``limits.HOOK_WATCHDOG``);
    a bad value is the default, or ValueError when ``strict``."""
    from ..limits import HOOK_WATCHDOG

    for i, arg in enumerate(args):
        name, eq, value = arg.partition("=")
        if name != "--deadline":
            continue
        if not eq:
            value = args[i + 1] if i + 1 < len(args) else ""
        try:
            seconds = float(value)
        except ValueError:
            seconds = 0.0
        if 0 < seconds <= 3600:
            return seconds
        if strict:
            raise ValueError(f"--deadline needs a number of seconds in (0, 3600], not {value!r}")
    return HOOK_WATCHDOG


def late_outcome(seconds: float) -> Outcome:
    """What the watchdog answers when the hook did not decide within ``seconds``."""
    return Outcome("deny", f"blocked: the hook did not decide within {seconds:g} s (its "
                           "--deadline); run `shellgate doctor`", rule="hook.deadline")


def cli_main(agent: str, args: list[str], stdin: Any = None, stdout: Any = None,
             stderr: Any = None, hard_stop: bool = False) -> int:
    """``shellgate hook <agent> [--mode M] [--config P] [--deadline S]``: read stdin, answer,
    return the code.

    Exit 0 with the agent's JSON (or nothing), or exit 2 with a reason on stderr when even a
    deny could not be written. Stray prints from libraries go to stderr, never into the JSON.
    ``hard_stop`` (the hook process itself): a watchdog writes a deny and ends the process
    if no answer is ready after ``--deadline`` seconds (default 10), whatever hangs.
    Rules of the config that can never match are named on stderr after the answer: every
    agent reads only stdout at exit 0, so they never touch the protocol.
    """
    stdin = stdin or sys.stdin
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    saved = sys.stdout
    dog = None
    notices: tuple[str, ...] = ()
    if hard_stop and agent in AGENT_MODULES:
        from ..limits import Watchdog

        seconds = deadline_arg(args)
        spec = _agent_module(agent).SPEC

        def expired() -> None:
            stdout.write(spec.render(late_outcome(seconds)) + "\n")
            stdout.flush()

        dog = Watchdog(seconds, expired)
    try:
        sys.stdout = stderr
        try:
            text = stdin.read()
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            text = f"\0unreadable stdin: {exc}"  # parse_payload turns this into a deny
        module = _agent_module(agent)
        try:
            mode, config = parse_args(args)
        except Exception as exc:  # noqa: BLE001 - a bad flag must block, not open
            out, code = module.SPEC.render(Outcome("deny", f"bad hook arguments ({exc}); {USAGE}",
                                                   rule="hook.usage")), 0
        else:
            out, code, notices = answer(module.SPEC, text, mode_override=mode, config=config)
    except BaseException as exc:  # noqa: BLE001 - last resort: exit 2 blocks in every agent
        sys.stdout = saved
        print(f"shellgate: blocked because the hook failed ({type(exc).__name__}: {exc})",
              file=stderr)
        return 2
    finally:
        sys.stdout = saved
    if dog is not None and not dog.claim():
        import threading

        threading.Event().wait()  # the watchdog is answering and ends the process
    try:
        if out:
            stdout.write(out + "\n")
            stdout.flush()
    except (OSError, ValueError, AttributeError) as exc:  # a closed pipe or no stdout (None):
        # the answer is lost, so block
        print(f"shellgate: blocked because the answer could not be written ({exc})", file=stderr)
        return 2
    if notices:
        from ..approval import announce

        announce(notices, stderr)
    return code


def _agent_module(agent: str) -> Any:
    import importlib

    name = AGENT_MODULES.get(agent)
    if name is None:
        raise ValueError(f"unknown agent {agent!r}; {USAGE}")
    return importlib.import_module(f"{__package__}.{name}")
