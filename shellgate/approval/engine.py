"""``approval.Engine``: a thin shell around the kernel engine (SPEC §5).

Almost everything is forwarded to the kernel (mode, plan mode, skill allows, roots, approver).
What the harness adds is in :meth:`Engine.decide`, three branches before delegating:

1. resolve the workspace — the live cwd of the call context wins (a worktree entered during
   the turn), and is what path checks, audit and the dangerous-path check use;
2. ``exit_plan_mode`` in plan mode -> show the plan and the announced follow-up actions;
3. not in plan mode and a dangerous path -> forced Allow once / Deny prompt;
4. otherwise the kernel decides.

It also classifies tools (``classifier.py``), turns itself into a ``ToolGate``
(:meth:`as_tool_gate`), and offers the sibling entries :meth:`approve_hook` and
:meth:`approve_command`, which share the store and the audit log.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from .. import limits
from .. import permission as perm
from .._record import replace
from ..limits import bounded
from ..permission import (
    LIMITED_CHOICES,
    AuditLog,
    Capability,
    Decision,
    DecisionKind,
    Metadata,
    Mode,
    Prompt,
    Request,
    RuleSet,
    Store,
)
from . import workspace as ws
from .adapter import GateDecision, context_value, cwd_from_context, extract_metadata
from .classifier import BASH_TOOLS, Classified, classify, rule_notices, tool_name
from .dangerous import check_dangerous_path

PLAN_DENIED = "user denied plan; refine and call exit_plan_mode again"
DEFAULT_PLAN_TOOLS = ("ask_user", "ask_user_question", "tool_search")
_NO_HINTS = Metadata()  # what a bash call of check_bash carries (frozen: one shared instance)


def _placed(request: Request, metadata: Metadata, placed: dict[str, Any]) -> Request:
    """``replace(request, metadata=metadata, **placed)`` spelled out for a plain ``Request``
    (a hot path; tests/test_speed_shortcuts.py checks that the fields are still these)."""
    if type(request) is not Request:
        return replace(request, metadata=metadata, **placed)
    return Request(placed["tool_id"], request.tool_name, request.args, request.preview, metadata,
                   placed["workspace"], placed["cwd"], placed["session_id"])


def _norm(p: str | Path) -> str:
    import os

    return os.path.normpath(os.path.abspath(os.path.expanduser(str(p))))


class Engine:
    """The harness engine.

    ``store`` is a path (or a :class:`Store`) for "always" approvals, ``None`` for none;
    ``audit`` a path (or :class:`AuditLog`), ``None`` for no audit log (``load_engine``
    defaults it to ``$XDG_STATE_HOME/shellgate/audit.jsonl``). ``ask_as_deny=False`` makes
    an unanswerable ask come back as ``DecisionKind.ASK`` instead of a deny (for ``check``).
    ``sandboxed=False`` (sandbox tier ``none``) makes trust ask for exec / network.
    ``untrusted_allows``: allow rules read but not honoured (an untrusted project file's),
    only named in a reason when one would have allowed the call; ``notices``: what the config
    loader ignored, kept for display; ``never_off``: never-table entries the user turned off.
    """

    def __init__(self, workspace: str | Path = ".", mode: Mode | str = "balanced",
                 approver: Callable[[Prompt], DecisionKind] | None = None,
                 store: str | Path | Store | None = None, *, rules: RuleSet | None = None,
                 audit: str | Path | AuditLog | None = None, home: str | Path | None = None,
                 sandboxed: bool = True, ask_as_deny: bool = True, session_id: str | None = None,
                 plan_mode_allowed_tools: Iterable[str] = DEFAULT_PLAN_TOOLS,
                 plan_mode_exec_allowed: bool = False, internal_dirs: Iterable[str | Path] = (),
                 readonly_roots: Iterable[str | Path] = (),
                 readonly_internal_dirs: Iterable[str | Path] = (),
                 filesystem_roots: Iterable[str | Path] = (),
                 on_audit: Callable[[dict[str, Any]], None] | None = None,
                 untrusted_allows: Iterable[perm.Rule] = (),
                 notices: Iterable[str] = (), never_off: Iterable[str] = ()) -> None:
        self.cwd = _norm(workspace)
        self.home = _norm(home) if home is not None else _norm("~")
        self.session_id = session_id
        self.tool = perm.Engine(
            self.cwd, mode, rules=rules, store=store, audit=audit, approver=approver,
            classifier=self._classify_request, plan_mode_allowed_tools=plan_mode_allowed_tools,
            plan_mode_exec_allowed=plan_mode_exec_allowed, internal_dirs=internal_dirs,
            readonly_roots=readonly_roots, readonly_internal_dirs=readonly_internal_dirs,
            filesystem_roots=filesystem_roots, sandboxed=sandboxed, ask_as_deny=ask_as_deny,
            home=self.home, session_id=session_id, on_audit=on_audit,
            untrusted_allows=untrusted_allows, never_off=never_off)
        # What the config loader ignored (an untrusted project file's loosening), for
        # front ends that report it (doctor, MCP); never part of a decision.
        self.notices = tuple(notices)
        self._plan_content: Callable[[], str] | None = None
        self.limits = limits.DEFAULT   # size limit and analysis deadline (load_engine: config)

    # -- forwarded state --------------------------------------------------------------------

    @property
    def mode(self) -> Mode:
        return self.tool.mode

    def set_mode(self, mode: Mode | str) -> None:
        self.tool.set_mode(mode)

    def plan_mode(self) -> bool:
        return self.tool.plan_mode()

    def set_plan_mode(self, on: bool) -> None:
        self.tool.set_plan_mode(on)

    def set_plan_content_provider(self, provider: Callable[[], str] | None) -> None:
        """Registered by whoever owns the plan when plan mode starts; cleared with None."""
        self._plan_content = provider

    def set_skill_allows(self, rules: Iterable[str]) -> None:
        self.tool.set_skill_allows(rules)

    def set_filesystem_roots(self, roots: Iterable[str | Path]) -> None:
        self.tool.set_filesystem_roots(roots)

    def set_scratch_roots(self, roots: Iterable[str | Path]) -> None:
        self.tool.set_scratch_roots(roots)

    def set_own_loopback(self, own: bool) -> None:
        self.tool.set_own_loopback(own)

    def set_terminal(self, may: bool) -> None:
        self.tool.set_terminal(may)

    def set_confined_exec(self, confined: bool, auto_allow: bool | None = None) -> None:
        self.tool.set_confined_exec(confined, auto_allow)

    def set_approver(self, approver: Callable[[Prompt], DecisionKind] | None) -> None:
        self.tool.set_approver(approver)

    @property
    def approver(self) -> Callable[[Prompt], DecisionKind] | None:
        return self.tool.approver

    @property
    def store(self) -> Store | None:
        return self.tool.store

    @property
    def audit(self) -> AuditLog | None:
        return self.tool.audit

    @property
    def rules(self) -> RuleSet:
        return self.tool.rules

    def problems(self) -> list[str]:
        return self.tool.problems()

    @property
    def rule_notices(self) -> tuple[str, ...]:
        """The loaded rules that can never do what they seem to say (``Foo(x)``,
        ``Bash(rm -rf)``: ``classifier.rule_notices``), for front ends to show at load."""
        rs = self.rules
        return tuple(rule_notices((*rs.deny, *rs.ask, *rs.allow)))

    # -- classification ---------------------------------------------------------------------

    def where(self, ctx: Any = None) -> tuple[str, str]:
        """``(workspace, cwd)`` for a call: the live cwd of ``ctx`` wins over start-up."""
        return ws.resolve(self.cwd, cwd_from_context(ctx))

    def classify(self, req: Request, ctx: Any = None) -> Classified:
        workspace, cwd = (req.workspace, req.cwd) if req.workspace else self.where(ctx)
        return classify(req, workspace=workspace, cwd=cwd or workspace, home=self.home,
                        scratch=self.tool.scratch_roots, loopback=self.tool.own_loopback,
                        watched=self.rules.watched(cwd or workspace),
                        inherited=context_value(ctx, "inherited"), terminal=self.tool.terminal)

    def _classify_request(self, req: Request) -> Metadata:
        return self.classify(req).metadata

    # -- deciding ---------------------------------------------------------------------------

    def decide(self, request: Request, ctx: Any = None) -> Decision:
        """Decide one tool call. Never raises (an internal error is a deny)."""
        return self._decide(request, ctx)[0]

    def _decide(self, request: Request, ctx: Any) -> tuple[Decision, Classified | None]:
        start = time.perf_counter()
        req, got = request, None
        try:
            workspace, cwd = self.where(ctx)
            placed = {"workspace": workspace, "cwd": cwd,
                      "session_id": request.session_id or context_value(ctx, "session_id")
                      or self.session_id,
                      "tool_id": request.tool_id or context_value(ctx, "tool_use_id") or ""}
            try:  # classify reads the tool, its args and hints: the same in request and req
                too_big = self.limits.size_problem(request.args.get("command")) if tool_name(
                    request.tool_name) == "bash" and hasattr(request.args, "get") else None
                if too_big is None:
                    in_time, got = bounded(lambda: classify(
                        request, workspace=workspace, cwd=cwd, home=self.home,
                        scratch=self.tool.scratch_roots, loopback=self.tool.own_loopback,
                        watched=self.rules.watched(cwd), inherited=context_value(ctx, "inherited"),
                        terminal=self.tool.terminal),
                        self.limits.deadline)
                if too_big is not None or not in_time:
                    return self._ask_unanalysed(replace(request, **placed),
                                                too_big or self.limits.late()), None
            except Exception:
                req = replace(request, **placed)  # what the audit line below names
                raise
            req = _placed(request, got.metadata, placed)
            name = tool_name(req.tool_name)
            if name in BASH_TOOLS and not str(req.args.get("command") or "").strip():
                d = Decision(DecisionKind.DENY, "the command is empty: there is nothing to run",
                             "approval.empty_command", "harness", capability=Capability.EXEC)
                self.tool.record(req, d, start=start)
                return d, got
            plan = self.plan_mode()
            if name == "exit_plan_mode" and plan:
                return self._decide_plan_exit(req, start), got
            if not plan:
                pctx = got.context
                if pctx is None:  # bash calls carry theirs; build one for the other tools
                    from ..bash.facts import Context

                    pctx = Context.here(cwd=cwd, workspace=workspace, home=self.home,
                                        watched=self.rules.own_globs())
                reason = check_dangerous_path(name, req.args, pctx, got.analysis)
                if reason:
                    return self._ask_dangerous(req, reason), got
            return self.tool.decide(req), got
        except Exception as exc:
            d = Decision(DecisionKind.DENY, f"internal error in the approval engine: "
                         f"{type(exc).__name__}: {exc}", "internal.error", "error")
            self.tool.record(req, d, start=start)
            return d, got

    def _ask_unanalysed(self, req: Request, reason: str) -> Decision:
        """A call too large to analyse, or whose analysis missed the deadline (``limits``):
        put to the approver (ask where nobody can answer; deny with ``ask_as_deny``), never
        allowed silently nor remembered."""
        meta = Metadata(Capability.EXEC, "bash", "a command that was not analysed",
                        persistable=False, reasons=(reason,))
        return self.tool.ask(replace(req, metadata=meta), reason=reason, rule="limits",
                             limited=True, hint="check the command yourself")

    def _plan_preview(self, req: Request) -> str:
        plan = ""
        if self._plan_content is not None:
            try:
                plan = str(self._plan_content() or "")
            except Exception as exc:
                plan = f"(the plan could not be read: {type(exc).__name__}: {exc})"
        args = req.args if hasattr(req.args, "get") else {}
        if not plan and isinstance(args.get("plan"), str):
            plan = args["plan"]
        actions = args.get("allowed_prompts") or args.get("allowedPrompts") or ()
        lines = []
        for a in actions if isinstance(actions, (list, tuple)) else ():
            if isinstance(a, dict):
                lines.append(f"- {a.get('tool', 'tool')}: {a.get('prompt', '')}".rstrip(": "))
            else:
                lines.append(f"- {a}")
        preview = plan.strip() or "(no plan content)"
        if lines:
            preview += "\n\nFollow-up actions the model announced:\n" + "\n".join(lines)
        return preview

    def _decide_plan_exit(self, req: Request, start: float) -> Decision:
        preview = self._plan_preview(req)
        approver = self.approver
        if approver is None:  # headless: nobody to show the plan to
            d = Decision(DecisionKind.ALLOW, "plan accepted (no approver); leaving plan mode",
                         "approval.plan_exit", "no_approver", capability=Capability.INTERNAL)
        else:
            prompt = Prompt(tool=req.tool_name, summary="leave plan mode and carry out this plan",
                            preview=preview, choices=LIMITED_CHOICES,
                            reason="the plan needs your approval", capability=Capability.INTERNAL)
            try:
                answer = DecisionKind(approver(prompt))
            except Exception as exc:
                answer = DecisionKind.DENY
                preview = f"approver failed: {type(exc).__name__}: {exc}"
            if answer.allowed:
                d = Decision(DecisionKind.ALLOW_ONCE, "plan approved by the user; leaving plan mode",
                             "approval.plan_exit", "user", capability=Capability.INTERNAL,
                             asked=True)
            else:
                d = Decision(DecisionKind.DENY, PLAN_DENIED, "approval.plan_exit", "user_reject",
                             capability=Capability.INTERNAL, asked=True)
        if d.allowed():
            self.set_plan_mode(False)
        self.tool.record(req, d, start=start)
        return d

    def _ask_dangerous(self, req: Request, reason: str) -> Decision:
        """Forced prompt: bypasses mode auto-allow and stored approvals, Allow once / Deny
        only, deny with no approver. Out-of-bounds and deny rules still win (no prompt can
        override a deny rule)."""
        hard = self.tool.precheck(req)
        if hard is not None:
            self.tool.record(req, hard)
            return hard
        req = replace(req, metadata=replace(req.metadata, persistable=False))
        return self.tool.ask(req, reason=reason, rule="approval.dangerous_path", limited=True,
                             hint="decide whether it is intended (sensitive paths are never "
                                  "approved automatically)")

    # -- convenience entries ----------------------------------------------------------------

    def decide_bash(self, command: str, ctx: Any = None, *, tool_use_id: str = "") -> Decision:
        """Decide one bash command (what the hooks, the MCP server and BashTool do)."""
        return self.check_bash(command, ctx, tool_use_id=tool_use_id)[0]

    def check_bash(self, command: str, ctx: Any = None, *,
                   tool_use_id: str = "") -> tuple[Decision, Any]:
        """Decide one bash command and return the bash core's ``Analysis`` with it (``None``
        if the analysis could not run) — what ``shellgate check`` prints."""
        d, got = self._decide(Request(tool_use_id, "bash", {"command": command}, None, _NO_HINTS),
                              ctx)
        return d, (got.analysis if got is not None else None)

    def as_tool_gate(self) -> Callable[[Any, Any], GateDecision]:
        """This engine as a ``ToolGate``: ``(ctx, GateRequest) -> GateDecision``. A denied
        call's reason goes back to the model."""

        def gate(ctx: Any, req: Any) -> GateDecision:
            try:
                call = req.call
                args = getattr(call, "args", None)
                preq = Request(tool_id=str(getattr(call, "id", "") or ""),
                               tool_name=str(getattr(call, "name", "") or ""),
                               args=args if args is not None else {},
                               preview=getattr(req, "preview", None),
                               metadata=extract_metadata(getattr(req, "tool", None)))
                d = self.decide(preq, ctx)
            except Exception as exc:
                return GateDecision(False, f"internal error in the approval gate: {exc}")
            return GateDecision(True, "") if d.allowed() else GateDecision(False, d.reason)

        return gate

    def approve_hook(self, command: str, *, event: str = "PreToolUse", ctx: Any = None) -> Decision:
        """May a configured hook command run? Capability ``hook``; rules ``Hook(cmd *)``."""
        meta = Metadata(Capability.HOOK, key=f"hook:{event}:{command}",
                        summary=f"{event} hook: {command}", command=command)
        return self._direct(Request(tool_name="hook", args={"command": command, "event": event},
                                    metadata=meta), ctx)

    def approve_command(self, command: str, *, ctx: Any = None,
                        capability: Capability = Capability.EXEC) -> Decision:
        """May a slash command run? Rules ``SlashCommand(/deploy *)``; capability exec
        unless told otherwise."""
        name = command.split(maxsplit=1)[0] if command.strip() else command
        meta = Metadata(capability, key=f"command:{name}", summary=f"slash command {command}",
                        command=command)
        return self._direct(Request(tool_name="slash_command", args={"command": command},
                                    metadata=meta), ctx)

    def _direct(self, req: Request, ctx: Any) -> Decision:
        workspace, cwd = self.where(ctx)
        req = replace(req, workspace=workspace, cwd=cwd,
                      session_id=context_value(ctx, "session_id") or self.session_id,
                      tool_id=context_value(ctx, "tool_use_id") or "")
        return self.tool.decide(req)

    def record_execution(self, command: str, *, exit_code: int | None,
                         duration_ms: float | None, ctx: Any = None, **extra: Any) -> bool:
        """One audit line per execution (BashTool / MCP ``run_command``)."""
        if self.audit is None:
            return False
        _, cwd = self.where(ctx)
        return self.audit.execution(command=command, exit_code=exit_code, duration_ms=duration_ms,
                                    cwd=cwd, tool_use_id=context_value(ctx, "tool_use_id"),
                                    session_id=context_value(ctx, "session_id") or self.session_id,
                                    mode=str(self.mode), **extra)
