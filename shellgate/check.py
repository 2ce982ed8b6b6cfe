"""The one-call façade: ``Gate(workspace, mode).check(cmd)`` -> :class:`Verdict`.

This is what ``shellgate check``, the hooks and the MCP server print: the bash analysis
(commands, read-only, reasons, warnings, sensitive paths) joined with the engine's decision.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._record import field, record
from .approval import CallContext
from .bash.analysis import Analysis
from .bash.facts import Reason, SensitiveHit


def _span(span: tuple[int, int] | None) -> list[int] | None:
    return list(span) if span is not None else None


def _reason(r: Reason) -> dict[str, Any]:
    return {"message": r.message, "span": _span(r.span), "rule": r.rule}


def _sensitive(h: SensitiveHit) -> dict[str, Any]:
    return {"path": h.path, "class": str(h.cls), "op": str(h.op), "span": _span(h.span),
            "pattern": h.pattern}


@record
class Verdict:
    """What the gate concludes about one bash command (SPEC §7 keys via :meth:`to_json`)."""

    command: str
    decision: str                    # "allow" | "ask" | "deny"
    capability: str                  # the engine's capability for the command
    analysis: Analysis
    reason: str = ""                 # the engine's reason for the decision
    rule: str = ""                   # which step of the chain decided
    extra_reasons: tuple[Reason, ...] = field(default=())

    @property
    def readonly(self) -> bool:
        return self.analysis.readonly

    @property
    def allowed(self) -> bool:
        return self.decision == "allow"

    @property
    def grant(self) -> str | None:
        """What the command may do when it runs — ``read``, ``write`` or ``network`` (SPEC §9):
        an integration that runs it should confine it to exactly this (``shellgate.sandbox.
        locations.grant_policy``). None when it is not allowed."""
        if not self.allowed:
            return None
        from .permission.modes import grant_for

        return str(grant_for(self.capability))

    def covering_rules(self) -> tuple[str, ...]:
        """The allow rules that would let this command through next time, for an ask a person
        may answer once and for all (``shellgate explain`` prints them): none for a
        destructive command, one outside the workspace or on a sensitive path (no hint invites
        those), or one no rule can cover."""
        from .permission.remember import NO_SHORTCUT, covering_rules

        a = self.analysis
        if self.decision != "ask" or self.rule in NO_SHORTCUT or a.warnings or a.sensitive:
            return ()
        return covering_rules(a.script, a.checks.clean if a.checks else ()) or ()

    def to_json(self) -> dict[str, Any]:
        a = self.analysis
        script = a.script
        return {
            "command": self.command,
            "decision": self.decision,
            "capability": self.capability,
            "grant": self.grant,
            "readonly": a.readonly,
            "reason": self.reason,
            "rule": self.rule,
            "reasons": [_reason(r) for r in (*a.reasons, *self.extra_reasons)],
            "warnings": [_reason(w) for w in a.warnings],
            "sensitive": [_sensitive(h) for h in a.sensitive],
            "commands": [
                {"name": c.name, "argv": list(c.argv), "span": _span(c.span),
                 "via": [str(v) for v in c.via], "kind": str(c.kind)}
                for c in script.commands
            ],
            "parse": {"ok": script.ok,
                      "error": None if script.error is None else script.error.reason,
                      "error_span": None if script.error is None else _span(script.error.span)},
        }


class Gate:
    """Check bash commands against the engine for one workspace; never runs anything.

    ``config`` is a shellgate TOML file; without it the XDG and project config files are used
    when present. ``mode`` None means the config's mode, else balanced. A bad config or mode,
    or a workspace that is not an existing directory, does not raise from :meth:`check`: every
    verdict is then a deny that names the problem.
    Checking records nothing in the audit log and stores no approval (it is a dry run); it
    assumes commands would run in the sandbox.
    ``terminal``: whether the runner may give a command a terminal on its streams (default
    True, the cautious reading); False judges as a caller whose runner never does (BashTool,
    MCP, Claude Code's Bash tool), where git starts no pager (``Context.terminal``).
    """

    def __init__(self, workspace: str | Path = ".", mode: str | None = "balanced",
                 config: str | Path | None = None, plan: bool = False,
                 home: str | Path | None = None, terminal: bool = True) -> None:
        self.workspace = Path(workspace).absolute()
        self.mode = mode
        self.config = config
        self.plan = plan
        self.home = home
        self.terminal = terminal
        self._engine: Any = None
        self._error: str | None = None

    def _load(self) -> Any:
        if self._engine is None and self._error is None and not self.workspace.is_dir():
            self._error = f"workspace {self.workspace} is not an existing directory"
        if self._engine is None and self._error is None:
            from .approval import load_engine

            try:
                self._engine = load_engine(self.workspace, self.mode, self.config, self.plan,
                                           ask_as_deny=False, audit=False, home=self.home)
                self._engine.set_terminal(self.terminal)
            except Exception as exc:  # ConfigError and anything else: fail closed
                self._error = f"configuration error: {exc}"
        return self._engine

    def rule_notices(self) -> tuple[str, ...]:
        """The configured rules that can never match as written (empty when the config
        does not load: ``check`` then reports that error instead)."""
        engine = self._load()
        return engine.rule_notices if engine is not None else ()

    def rules(self) -> Any:
        """The policy's rules (``permission.RuleSet``), None when the config does not load."""
        engine = self._load()
        return engine.rules if engine is not None else None

    def check(self, command: str, cwd: str | Path | None = None) -> Verdict:
        """The verdict on ``command`` run from ``cwd`` (default: the workspace)."""
        engine = self._load()
        ctx = CallContext(cwd=str(Path(cwd).absolute()) if cwd else str(self.workspace))
        if engine is None:
            return Verdict(command, "deny", "unknown", _analyse_only(command, ctx.cwd, self),
                           reason=self._error or "configuration error", rule="config.error")
        try:
            decision, analysis = engine.check_bash(command, ctx)
        except Exception as exc:  # the engine promises not to raise; belt and braces
            return Verdict(command, "deny", "unknown", _analyse_only(command, ctx.cwd, self),
                           reason=f"internal error: {type(exc).__name__}: {exc}",
                           rule="internal.error")
        if analysis is None:
            analysis = (_unanalysed(command, decision.reason) if decision.rule == "limits"
                        else _analyse_only(command, ctx.cwd, self))
        cap = decision.capability.value if decision.capability is not None else "unknown"
        return Verdict(command, decision.verdict, cap, analysis, decision.reason, decision.rule)


def _analyse_only(command: str, cwd: str | None, gate: Gate) -> Analysis:
    from .bash.analysis import analyse
    from .bash.facts import Context

    return analyse(command, Context.here(cwd=cwd, workspace=gate.workspace, home=gate.home,
                                         terminal=gate.terminal))


def _unanalysed(command: str, reason: str) -> Analysis:
    """What a verdict shows for a command the engine did not analyse (``shellgate.limits``):
    an unparsed, not read-only script with the reason."""
    from .bash.facts import Effect
    from .bash.ir import ParseFailure, Script

    script = Script(source=command, commands=(), error=ParseFailure(reason))
    return Analysis(script, False, Effect.EXEC, (Reason(reason, None, "limits"),), (), ())
