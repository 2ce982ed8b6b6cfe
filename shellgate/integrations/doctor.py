"""``shellgate doctor``: is the gate actually in the path of the agent's commands?

A hook that points at a missing binary, sits under the wrong event or prints something the
agent cannot parse leaves the gate *silently disabled* (research/ecosystem.md §0.4). So doctor
reports, each as a :class:`Check`:

- the sandbox tier this machine gets (bwrap, landlock or none);
- the config files found, and whether they load;
- for Claude Code, Codex and Gemini CLI, in the user and project settings: is a shellgate hook
  installed, under the right event, does its command resolve to an executable, does its
  matcher cover the tools shellgate judges;
- a self-test: real hook payloads piped through each installed hook command (or the
  ``shellgate`` on PATH), checking the answer's exact shape — a read-only command is allowed,
  a destructive one is not, and garbage is denied.

Self-test decisions are written to a throwaway audit log, not the user's.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .._record import record
from .install import AGENTS, agent_hook, find_handlers, read_settings, settings_files

SELF_TEST_TIMEOUT = 30.0


@record
class Check:
    """One finding. ``level``: ``error`` makes doctor fail, ``warn`` and ``info`` do not."""

    name: str
    ok: bool
    detail: str
    level: str = "error"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "ok": self.ok, "level": self.level, "detail": self.detail}


@record
class Report:
    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        return all(c.ok or c.level != "error" for c in self.checks)

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "checks": [c.to_json() for c in self.checks]}

    def render(self) -> str:
        marks = {True: "ok  ", False: {"error": "FAIL", "warn": "warn", "info": "--  "}}
        lines = []
        for c in self.checks:
            mark = marks[True] if c.ok else marks[False][c.level]
            lines.append(f"[{mark}] {c.name}: {c.detail}")
        lines.append("doctor: all good" if self.ok else "doctor: problems found (FAIL lines)")
        return "\n".join(lines)


# --- sandbox and config ------------------------------------------------------------------

def sandbox_checks(workspace: str | None = None, config: str | None = None) -> list[Check]:
    """The probed tier, and the tier ``run``, BashTool and the MCP server will really use: the
    user's ``[sandbox]`` section (``enabled``, ``tier``) can pick another one or none at all
    (the project's cannot: it is read as BashTool reads it)."""
    try:
        from ..sandbox.probe import probe

        p = probe()
    except Exception as exc:  # noqa: BLE001
        return [Check("sandbox", False, f"probe failed: {type(exc).__name__}: {exc}")]
    tier = str(p.tier)
    notes = "; ".join(p.notes)
    # Which host programs the sandbox starts, and why each may run outside it.
    trust = [Check("sandbox", True, f"trusted {why}", "info") for why in p.trust]
    if tier == "none":
        return [Check("sandbox", False, "tier none: commands run without confinement, so trust "
                      f"mode asks before exec/network ({notes})", "warn"), *trust]
    probed = Check("sandbox", True, f"tier {tier}" + (f" ({notes})" if notes else ""))
    return [probed, *_configured_tier(workspace, config, tier), *trust]


def _configured_tier(workspace: str | None, config: str | None, probed: str) -> list[Check]:
    from ..tools.settings import load_settings

    try:
        settings = load_settings(workspace or os.getcwd(), config)
    except Exception as exc:  # noqa: BLE001 - config_checks reports the error itself
        return [Check("sandbox", False, f"[sandbox] could not be read ({exc}): "
                      "run, BashTool and the MCP server refuse to start")]
    if not settings.enabled or settings.tier == "none":
        return [Check("sandbox", False, "[sandbox] turns the sandbox off: run, BashTool and "
                      "the MCP server execute commands unconfined", "warn")]
    if settings.tier in ("auto", probed):
        return []
    from ..sandbox.probe import landlock_usable

    if settings.tier == "landlock" and not landlock_usable():
        return [Check("sandbox", True, f"[sandbox] tier = \"landlock\": run, BashTool and the "
                      f"MCP server use landlock, not the probed {probed}", "info")]
    return [Check("sandbox", False, f"[sandbox] tier = \"{settings.tier}\" does not work here "
                  f"(the probe found {probed}): run, BashTool and the MCP server refuse to start")]


def enforce_checks(workspace: str, config: str | None) -> list[Check]:
    """Which tier the hooks confine allowed commands with (SPEC §9), or why they do not."""
    from ..sandbox.enforce import hook_tier
    from .hookio import enforce_setting

    setting = enforce_setting(config, workspace)
    if setting is False:
        return [Check("hook enforcement", False, "off ([hooks] enforce = false): an allowed "
                      "command runs unconfined, as the agent's own shell runs it", "warn")]
    tier = str(hook_tier().tier)
    if tier == "none":
        return [Check("hook enforcement", False, "no sandbox tier works here: a hook allow "
                      "runs unconfined and rests on the classifier alone"
                      + (" ([hooks] enforce = true: allows become asks)" if setting else ""),
                      "warn")]
    return [Check("hook enforcement", True, f"allowed bash commands run confined ({tier}): "
                  "read-only for reads, the workspace for writes, network only when granted")]


def config_checks(workspace: str, config: str | None,
                  environ: Mapping[str, str] | None = None) -> list[Check]:
    from ..config import ConfigError, load_config, project_config_path, user_config_path

    checks = []
    found = []
    for label, path in (("user", user_config_path(environ)),
                        ("project", project_config_path(workspace)),
                        *((("explicit", Path(config).expanduser()),) if config else ())):
        if path.is_file():
            found.append(f"{label} {path}")
        elif label == "explicit":
            checks.append(Check("config", False, f"{path}: not found"))
    try:
        cfg = load_config(workspace, config, env=environ)
    except ConfigError as exc:
        checks.append(Check("config", False, str(exc)))
        return checks
    except Exception as exc:  # noqa: BLE001
        checks.append(Check("config", False, f"{type(exc).__name__}: {exc}"))
        return checks
    mode = str(cfg.mode) if cfg.mode else "balanced (default)"
    what = ", ".join(found) if found else "none (defaults)"
    checks.append(Check("config", True, f"files: {what}; mode {mode}"))
    checks += [Check("config", False, notice, "warn") for notice in cfg.notices]
    from ..approval.classifier import rule_notices

    rs = cfg.rules
    checks += [Check("rules", False, n, "warn") for n in rule_notices((*rs.deny, *rs.ask, *rs.allow))]
    return checks


# --- hooks -------------------------------------------------------------------------------

def _executable(command: str) -> str | None:
    """The program a hook command line starts, if it exists and is executable."""
    try:
        argv = shlex.split(command)
    except ValueError:
        return None
    if not argv:
        return None
    prog = os.path.expandvars(os.path.expanduser(argv[0]))
    if os.sep in prog:
        return prog if os.access(prog, os.X_OK) and os.path.isfile(prog) else None
    return shutil.which(prog)


def _covers(matcher: str, tools: Sequence[str]) -> list[str]:
    """The tools of ``tools`` that ``matcher`` (exact names or a regex) would not match."""
    import re

    if matcher in ("", "*", ".*"):
        return []
    try:
        rx = re.compile(matcher)
    except re.error:
        return list(tools)
    return [t for t in tools if not rx.fullmatch(t) and not (
        all(c.isalnum() or c in "_-|, " for c in matcher) and t in matcher.replace(",", "|")
        .split("|"))]


def hook_checks(agent: str, *, home: str | Path | None = None, project: str | Path | None = None,
                environ: Mapping[str, str] | None = None) -> tuple[list[Check], list[str]]:
    """Checks for ``agent``'s hook in its user and project settings; also the commands found."""
    spec = agent_hook(agent)
    tools = spec.matcher.split("|")
    checks: list[Check] = []
    commands: list[str] = []
    scopes = ["user", "project"] + (["local"] if spec.local_file else [])
    for scope, path in ((sc, p) for sc in scopes
                        for p in settings_files(agent, sc, home=home, project=project,
                                                environ=environ)):
        if not path.is_file():
            continue
        name = f"hook {agent} ({scope})"
        try:
            data = read_settings(path)
        except (OSError, ValueError) as exc:
            checks.append(Check(name, False, f"{path}: cannot read it ({exc})"))
            continue
        found = find_handlers(data, agent)
        if not found:
            continue
        for matcher, handler in found:
            command = handler["command"]
            exe = _executable(command)
            missing = _covers(matcher, tools)
            if exe is None:
                checks.append(Check(name, False, f"{path}: {command!r} does not start an "
                                    "executable: the gate is silently disabled"))
                continue
            commands.append(command)
            if missing:
                checks.append(Check(name, False, f"{path}: matcher {matcher!r} misses "
                                    f"{', '.join(missing)}", "warn"))
            else:
                checks.append(Check(name, True, f"{path}: {command}"))
    if not any(c.name.startswith(f"hook {agent}") for c in checks):
        checks.append(Check(f"hook {agent}", False, f"not installed (shellgate init {agent})",
                            "info"))
    return checks, commands


# --- self-test ---------------------------------------------------------------------------

def sample_payload(agent: str, command: str, cwd: str) -> str:
    if agent == "gemini":
        return json.dumps({"session_id": "shellgate-doctor", "transcript_path": "",
                           "cwd": cwd, "hook_event_name": "BeforeTool",
                           "timestamp": "2026-01-01T00:00:00Z", "tool_name": "run_shell_command",
                           "tool_input": {"command": command}})
    body = {"session_id": "shellgate-doctor", "transcript_path": None, "cwd": cwd,
            "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
            "tool_input": {"command": command}, "tool_use_id": "doctor-1"}
    if agent == "codex":
        body.update(turn_id="doctor", model="doctor")
    return json.dumps(body)


def answer_decision(agent: str, stdout: str, code: int) -> str:
    """allow / ask / deny from a hook's raw answer; ValueError when the shape is wrong."""
    if code == 2:
        return "deny"
    if code != 0:
        raise ValueError(f"exit code {code}: the agent would ignore the hook and run the command")
    text = stdout.strip()
    if agent == "codex" and not text:
        return "allow"
    obj = json.loads(text)
    if agent == "gemini":
        if set(obj) - {"decision", "reason", "systemMessage"} or obj.get("decision") not in (
                "allow", "deny"):
            raise ValueError(f"not a Gemini BeforeTool answer: {text[:200]}")
        return obj["decision"]
    hso = obj["hookSpecificOutput"]
    if set(obj) != {"hookSpecificOutput"} or hso.get("hookEventName") != "PreToolUse":
        raise ValueError(f"not a PreToolUse answer: {text[:200]}")
    decision = hso.get("permissionDecision")
    if decision not in (("deny",) if agent == "codex" else ("allow", "ask", "deny")):
        raise ValueError(f"permissionDecision {decision!r} is not allowed here")
    return decision


CASES = (
    # (label, stdin builder, decisions accepted, level when it fails)
    ("a read-only command (ls)", lambda a, d: sample_payload(a, "ls", d), ("allow",), "warn"),
    ("a destructive command (rm -rf /)", lambda a, d: sample_payload(a, "rm -rf /", d),
     ("ask", "deny"), "error"),
    ("malformed input", lambda a, d: "{not json", ("deny",), "error"),
)


def self_test(agent: str, command: str, environ: Mapping[str, str] | None = None) -> list[Check]:
    """Pipe the sample payloads through ``command`` (a hook command line) and check the answers."""
    checks = []
    with tempfile.TemporaryDirectory(prefix="shellgate-doctor-") as tmp:
        env = dict(os.environ if environ is None else environ)
        env["XDG_STATE_HOME"] = os.path.join(tmp, "state")   # keep the user's audit log clean
        work = os.path.join(tmp, "work")
        os.mkdir(work)
        for label, build, accepted, level in CASES:
            name = f"self-test {agent}: {label}"
            try:
                proc = subprocess.run(command, shell=True, input=build(agent, work), text=True,
                                      capture_output=True, timeout=SELF_TEST_TIMEOUT, env=env,
                                      cwd=work, check=False)
                decision = answer_decision(agent, proc.stdout, proc.returncode)
            except subprocess.TimeoutExpired:
                checks.append(Check(name, False, f"no answer within {SELF_TEST_TIMEOUT:.0f}s"))
                continue
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                checks.append(Check(name, False, f"bad answer: {exc}"))
                continue
            ok = decision in accepted
            checks.append(Check(name, ok, f"{decision}" + ("" if ok else
                                f" (expected {' or '.join(accepted)})"), level))
    return checks


def default_hook_command(agent: str) -> str:
    exe = shutil.which("shellgate")
    if exe:
        return shlex.join([exe, "hook", agent])
    return shlex.join([sys.executable, "-m", "shellgate", "hook", agent])


def run(workspace: str | Path | None = None, *, config: str | None = None,
        home: str | Path | None = None, agents: Sequence[str] = AGENTS, self_tests: bool = True,
        environ: Mapping[str, str] | None = None) -> Report:
    """Every check, in order. Never raises."""
    ws = str(Path(workspace or os.getcwd()).absolute())
    checks: list[Check] = []
    for part in (lambda: sandbox_checks(ws, config), lambda: config_checks(ws, config, environ),
                 lambda: enforce_checks(ws, config)):
        try:
            checks += part()
        except Exception as exc:  # noqa: BLE001
            checks.append(Check("doctor", False, f"{type(exc).__name__}: {exc}"))
    try:  # fail-open or stale hook settings, the serve server, bytecode (install.py)
        from .install import health_checks

        checks += [Check(*c) for c in health_checks(home=home, project=ws, environ=environ)]
    except Exception as exc:  # noqa: BLE001
        checks.append(Check("hook settings", False, f"{type(exc).__name__}: {exc}"))
    for agent in agents:
        try:
            found, commands = hook_checks(agent, home=home, project=ws, environ=environ)
            checks += found
            if self_tests:
                for command in dict.fromkeys(commands or [default_hook_command(agent)]):
                    checks += self_test(agent, command, environ)
        except Exception as exc:  # noqa: BLE001
            checks.append(Check(f"hook {agent}", False, f"{type(exc).__name__}: {exc}"))
    return Report(tuple(checks))


def main(workspace: str | None = None, config: str | None = None, as_json: bool = False,
         self_tests: bool = True) -> tuple[str, int]:
    """``shellgate doctor``: (text to print, exit code 0 healthy / 1 a self-test failed)."""
    report = run(workspace, config=config, self_tests=self_tests)
    text = json.dumps(report.to_json(), indent=2) if as_json else report.render()
    return text, 0 if report.ok else 1
