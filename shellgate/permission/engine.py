"""The permission kernel: a short-circuit chain of seven steps, first match wins (SPEC §4).

1. out of bounds      a write into a read-only root or read-only internal dir -> deny
2. deny rules         ``Bash(rm *)``, ``Read(~/.ssh/**)`` … -> deny;
   never table        a command of ``shellgate.bash.never`` (``rm -rf ~``, ``mkfs /dev/sda``,
                      a fork bomb …) -> deny, in every mode: nothing later may allow it
3. plan mode          a capability not allowed in plan mode -> deny "plan mode is read-only";
                      tools on the plan-mode allow list (and exec if allowed) -> allow
4. internal paths     the harness's own memory / plan / scratch dirs -> allow silently
5. outside roots      a write outside the user's roots -> ask; allow-once at most (a read
                      is the sensitive-path table's to judge: ``BOUNDED_OPS``)
6. allows             ask rules veto (-> ask, or the mode's deny: an ask rule only ever
                      tightens); then skill allows, stored approvals and allow rules -> allow
                      (for a command line: every sub-command covered)
7. mode × capability  the matrix of :mod:`.modes`

An ask is put to the approver with a :class:`Prompt`; with none, it becomes a deny whose
reason says what approval is needed (or an ``ASK`` decision when ``ask_as_deny=False``, so
that ``shellgate check`` can report "ask"). The kernel never names a tool: it sees
capabilities, keys, paths and command lines in :class:`Metadata`, filled by the harness.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from .._record import record, replace
from ..bash.facts import PathOp
from .audit import AuditLog
from .modes import Capability, DecisionKind, Mode, Verdict, matrix_verdict, parse_mode
from .pattern import CommandPattern
from .remember import cover_prefixes
from .rules import PathEntry, Rule, RuleAction, RuleSet, Subject, parse_rule, tool_key
from .scope import ScopeIssue, outside, resolution_change
from .store import Approval, Store
from .subject import CommandView, parse_view
from .types import FULL_CHOICES, LIMITED_CHOICES, Approver, Decision, Metadata, Prompt, Request

_ALLOW_ORDER = (DecisionKind.ALLOW_ONCE, DecisionKind.ALLOW_SESSION, DecisionKind.ALLOW_ALWAYS)
_LEAST_MODE = {Capability.WRITE: "accept-edits"}  # else trust
_UNSET: Any = object()   # a memo of :class:`Call` not computed yet (None is a value)


@record
class Ask:
    """A step's request to ask the user. ``limited``: Allow once / Deny only."""

    reason: str
    rule: str
    limited: bool = False
    matched: tuple[str, ...] = ()
    hint: str = ""


Outcome = Decision | Ask | None


# What step 5 asks about when it lies outside the roots. Reads are not bounded by the roots:
# what a read may not see is the sensitive-path table's to say (SPEC §9: one table of secrets
# feeds the bash classifier, every sandbox tier and the file tools, and a confined read sees
# the whole filesystem read-only with the secrets masked). So `cat /etc/passwd` and a Read of
# /etc/passwd get one answer, and ~/.ssh/id_rsa is asked about whichever tool reads it.
BOUNDED_OPS = frozenset({PathOp.WRITE})


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _all_readonly(meta: Metadata) -> bool:
    """Whether the view of ``meta``'s command would have nothing to cover: a parsed script
    whose every sub-command is known read-only (``CommandView.to_cover`` is then ``()``, and
    ``_cover_command`` returns None before it looks at any allow source)."""
    script = meta.script
    if script is None or getattr(script, "error", True) is not None:
        return False
    ro = meta.readonly_commands
    return all(i in ro for i in range(len(script.commands)))


def _norm(p: str | Path) -> str:
    if type(p) is str and p[:1] == "/":  # absolute: expanduser and abspath change nothing
        return _normpath(p)
    return os.path.normpath(os.path.abspath(os.path.expanduser(str(p))))


@lru_cache(maxsize=256)  # the same few directories on every call; a pure function
def _normpath(p: str) -> str:
    return os.path.normpath(p)


class Call:
    """One decision in progress: the request, its metadata and lazily built views."""

    def __init__(self, engine: Engine, req: Request, meta: Metadata) -> None:
        self.engine, self.req, self.meta = engine, req, meta
        self.workspace = _norm(req.workspace or engine.workspace)
        self.cwd = _norm(req.cwd or self.workspace)
        self.tool = tool_key(req.tool_name)
        self._view: CommandView | None = None
        self._subject: Subject | None = None
        self._script: Any = None
        self._cwds: Any = _UNSET
        self._scope_issue: Any = _UNSET
        self.scope_note = ""   # why an allow source that matched the words did not cover

    @property
    def script(self) -> Any:
        """The parsed command (``bash.ir.Script``); None when the parser failed."""
        if self._script is None and self.meta.command is not None:
            self._script = self.meta.script
            if self._script is None:
                try:
                    from ..bash.parse.parser import parse

                    self._script = parse(self.meta.command)
                except Exception:  # noqa: BLE001 - the view reports it as unparsed
                    self._script = False   # not parsed again at every look
        return None if self._script is False else self._script

    def cwds(self) -> Any:
        """Every directory the line's commands may run in (None: one is unknown). Worked out
        once per call: every look at the allow sources (up to three a decision) asks."""
        from ..bash.facts import Context
        from ..bash.readonly.classify import candidate_cwds

        if self._cwds is _UNSET:
            if self.script is None:   # unparsed: where it runs is not known
                self._cwds = None
            else:
                ctx = Context.here(cwd=self.cwd, workspace=self.workspace, home=self.engine.home)
                self._cwds = candidate_cwds(self.script, ctx)
        return self._cwds

    @property
    def scope_issue(self) -> ScopeIssue | None:
        """The part of the line that may change how its words resolve (:func:`.scope.
        resolution_change`), or None; worked out once per call, like :meth:`cwds`."""
        if self._scope_issue is _UNSET:
            script = self.script
            self._scope_issue = resolution_change(script) if script is not None else None
        return self._scope_issue

    @property
    def capability(self) -> Capability:
        return self.meta.capability or Capability.UNKNOWN

    @property
    def view(self) -> CommandView | None:
        if self.meta.command is None:
            return None
        if self._view is None:
            meta = self.meta
            self._view = parse_view(meta.command, self.script, meta.readonly_commands, meta.shadowed)
        return self._view

    @property
    def subject(self) -> Subject:
        if self._subject is None:
            home = self.engine.home
            entries = []
            for a in self.meta.paths:
                if not a.resolved:  # no file to match a path rule against: see _outside_roots
                    continue
                raw = home + a.path[1:] if a.path == "~" or a.path.startswith("~/") else a.path
                p = os.path.normpath(os.path.join(self.cwd, raw))
                entries.append(PathEntry(p, os.path.realpath(p), a.op, a.below))
            self._subject = Subject(self.tool, self.meta.key, self.view, tuple(entries),
                                    self.meta.paths_complete, self.meta.hosts, home, self.cwd)
        return self._subject

    @property
    def what(self) -> str:
        if self.meta.summary:
            return self.meta.summary
        if self.meta.command is not None:
            return f"{self.req.tool_name or 'command'}: {self.meta.command}"
        return self.meta.key or self.req.tool_name or "tool call"


class Engine:
    """The kernel engine. Thread-safe enough for one agent: state changes take a lock."""

    def __init__(self, workspace: str | Path = ".", mode: Mode | str = Mode.BALANCED, *,
                 rules: RuleSet | None = None, store: Store | str | Path | None = None,
                 audit: AuditLog | str | Path | None = None, approver: Approver | None = None,
                 classifier: Callable[[Request], Metadata] | None = None,
                 plan_mode_allowed_tools: Iterable[str] = (), plan_mode_exec_allowed: bool = False,
                 internal_dirs: Iterable[str | Path] = (), readonly_roots: Iterable[str | Path] = (),
                 readonly_internal_dirs: Iterable[str | Path] = (),
                 filesystem_roots: Iterable[str | Path] = (), sandboxed: bool = True,
                 ask_as_deny: bool = True, home: str | Path | None = None,
                 session_id: str | None = None,
                 on_audit: Callable[[dict[str, Any]], None] | None = None,
                 untrusted_allows: Iterable[Rule] = (), never_off: Iterable[str] = ()) -> None:
        self.workspace = _norm(workspace)
        self._mode = parse_mode(mode)
        self.rules = rules if rules is not None else RuleSet()
        self.store = store if isinstance(store, Store) or store is None else Store(store)
        self.audit = audit if isinstance(audit, AuditLog) or audit is None else AuditLog(audit)
        self.approver = approver
        self.classifier = classifier
        self.plan_mode_allowed_tools = frozenset(tool_key(t) for t in plan_mode_allowed_tools)
        self.plan_mode_exec_allowed = plan_mode_exec_allowed
        self.internal_dirs = tuple(_norm(p) for p in internal_dirs)
        self.readonly_roots = tuple(_norm(p) for p in readonly_roots)
        self.readonly_internal_dirs = tuple(_norm(p) for p in readonly_internal_dirs)
        self._roots = tuple(_norm(p) for p in filesystem_roots)
        self._scratch: tuple[str, ...] = ()
        self._loopback = False
        self._terminal = True
        self._confined = False                   # set_confined_exec
        self._auto_allow: bool | None = None
        self.sandboxed = sandboxed
        self.ask_as_deny = ask_as_deny
        self.home = _norm(home) if home is not None else _norm("~")
        self.session_id = session_id
        self.on_audit = on_audit
        # Allow rules that were read but not honoured (an untrusted project file's): never
        # consulted to allow, only to tell the user why a rule they see did nothing.
        self.untrusted_allows = tuple(untrusted_allows)
        self._plan = False
        self._skill: tuple[Rule, ...] = ()
        self._session: list[Approval] = []
        self._lock = threading.Lock()
        # Entries of the never table the user turned off ([never] off = [...] in their config).
        self.never_off = frozenset(never_off)
        self._steps = (self._out_of_bounds, self._deny_rules, self._never, self._plan_gate,
                       self._internal_paths, self._outside_roots, self._allows, self._mode_matrix)

    # -- state ------------------------------------------------------------------------------

    @property
    def mode(self) -> Mode:
        return self._mode

    def set_mode(self, mode: Mode | str) -> None:
        self._mode = parse_mode(mode)

    def plan_mode(self) -> bool:
        return self._plan

    def set_plan_mode(self, on: bool) -> None:
        self._plan = bool(on)

    def set_approver(self, approver: Approver | None) -> None:
        self.approver = approver

    def set_rules(self, rules: RuleSet) -> None:
        self.rules = rules

    def set_skill_allows(self, rules: Iterable[str | Rule]) -> None:
        """Rules a skill declares (``allowed-tools``), in the rule syntax; they only allow."""
        parsed = tuple(r if isinstance(r, Rule) else parse_rule(r, RuleAction.ALLOW, source="skill")
                       for r in rules)
        with self._lock:
            self._skill = parsed

    @property
    def skill_allows(self) -> tuple[Rule, ...]:
        return self._skill

    def set_filesystem_roots(self, roots: Iterable[str | Path]) -> None:
        """The user's extra roots (besides the workspace) that are not "outside"."""
        with self._lock:
            self._roots = tuple(_norm(p) for p in roots)

    @property
    def filesystem_roots(self) -> tuple[str, ...]:
        return self._roots

    def set_scratch_roots(self, roots: Iterable[str | Path]) -> None:
        """Directories that are the caller's sandbox's own scratch space (a bash tool's private
        ``/tmp``): not "outside", and the classifier counts writes there as in-workspace
        edits. Only a caller whose sandbox really keeps them private sets these."""
        with self._lock:
            self._scratch = tuple(_norm(p) for p in roots)

    @property
    def scratch_roots(self) -> tuple[str, ...]:
        return self._scratch

    def set_own_loopback(self, own: bool) -> None:
        """Told by a caller whose commands run in a network namespace of their own with only a
        loopback (``BashTool`` under bwrap): a client that talks only to a loopback literal is
        then no network access (see ``Context.loopback``). Never set for a hook's command."""
        with self._lock:
            self._loopback = bool(own)

    @property
    def own_loopback(self) -> bool:
        return self._loopback

    def set_terminal(self, may: bool) -> None:
        """Told ``False`` by a caller whose runner never gives a command a terminal
        (``BashTool``: pipes, a session of its own); see ``Context.terminal``. A hook's command
        runs in the agent's shell, which may."""
        with self._lock:
            self._terminal = bool(may)

    @property
    def terminal(self) -> bool:
        return self._terminal

    def set_confined_exec(self, confined: bool, auto_allow: bool | None = None) -> None:
        """Told by a caller that runs every allowed command in a sandbox with no network,
        writes only in the workspace, scratch and the user's writable roots, and secrets
        masked (``BashTool``): an exec that asks in the mode matrix and carries no warning is
        then allowed, since the sandbox already stops what exec could do beyond an edit.
        ``auto_allow`` is ``[sandbox] auto_allow``: None means on in accept-edits only."""
        self._confined, self._auto_allow = bool(confined), auto_allow

    def _confined_allows(self, call: Call) -> bool:
        if not self._confined or call.capability is not Capability.EXEC or call.meta.warnings:
            return False
        on = self._auto_allow if self._auto_allow is not None else self._mode is Mode.AUTO
        return on and self._mode in (Mode.AUTO, Mode.BALANCED)

    @property
    def session_approvals(self) -> tuple[Approval, ...]:
        return tuple(self._session)

    def problems(self) -> list[str]:
        """Things the user should know: a corrupt store moved aside, audit write failures."""
        out = []
        if self.store is not None and self.store.problem:
            out.append(self.store.problem)
        if self.audit is not None and self.audit.errors:
            out.append(f"audit log {self.audit.path}: {self.audit.errors} line(s) not written "
                       f"({self.audit.last_error})")
        return out

    # -- deciding ---------------------------------------------------------------------------

    def metadata(self, req: Request) -> Metadata:
        """The request's metadata, from the classifier when the harness sent none."""
        meta = req.metadata
        if meta.capability is None and self.classifier is not None:
            meta = self.classifier(req)
        return meta

    def decide(self, req: Request) -> Decision:
        """Run the chain. Never raises: an internal error is a deny (fail closed)."""
        start = time.perf_counter()
        call: Call | None = None
        try:
            call = Call(self, req, self.metadata(req))
            outcome: Outcome = None
            for step in self._steps:
                if (outcome := step(call)) is not None:
                    break
            if isinstance(outcome, Ask):
                decision = self._resolve(call, outcome)
            else:
                assert outcome is not None, "the mode matrix always decides"
                decision = outcome
            decision = self._finish(call, decision)
        except Exception as exc:
            decision = Decision(DecisionKind.DENY, f"internal error in the permission engine: "
                                f"{type(exc).__name__}: {exc}", "internal.error", "error")
        self.record(req, decision, call.meta if call else req.metadata, start, call)
        return decision

    def precheck(self, req: Request) -> Decision | None:
        """Steps 1–2 alone (hard denies, the never table's included). The harness runs them
        before a forced prompt so that no prompt can override a deny rule. Not audited (the
        caller's decision is)."""
        try:
            call = Call(self, req, self.metadata(req))
            for step in (self._out_of_bounds, self._deny_rules, self._never):
                if (d := step(call)) is not None:
                    assert isinstance(d, Decision)
                    return self._finish(call, d)
        except Exception as exc:
            return Decision(DecisionKind.DENY, f"internal error in the permission engine: "
                            f"{type(exc).__name__}: {exc}", "internal.error", "error")
        return None

    def ask(self, req: Request, *, reason: str, rule: str, limited: bool = True,
            hint: str = "") -> Decision:
        """Put ``req`` to the approver directly, bypassing the chain (the harness's forced
        prompts: dangerous paths). Audited."""
        start = time.perf_counter()
        call: Call | None = None
        try:
            call = Call(self, req, self.metadata(req))
            decision = self._finish(call, self._resolve(call, Ask(reason, rule, limited, hint=hint)))
        except Exception as exc:
            decision = Decision(DecisionKind.DENY, f"internal error in the permission engine: "
                                f"{type(exc).__name__}: {exc}", "internal.error", "error")
        self.record(req, decision, call.meta if call else req.metadata, start, call)
        return decision

    def _finish(self, call: Call, d: Decision) -> Decision:
        meta = call.meta
        reasons = d.reasons
        if not reasons:  # the problems then all count: none is among no reasons
            reasons = (*meta.reasons, *self.problems())
        # ``replace`` spelled out (a hot path); tests/test_speed_shortcuts.py checks the fields
        return Decision(d.kind, d.reason, d.rule, d.source, d.matched,
                        d.capability or call.capability, d.warnings or meta.warnings, reasons,
                        d.asked)

    # -- the seven steps --------------------------------------------------------------------

    def _out_of_bounds(self, call: Call) -> Outcome:
        ro = self.readonly_roots + self.readonly_internal_dirs
        if not ro or not call.meta.paths:
            return None
        for e in call.subject.paths:
            if e.op is not PathOp.WRITE:
                continue
            for root in ro:
                if _under(e.path, root) or _under(e.real, root):
                    return Decision(DecisionKind.DENY, f"{e.path} is inside the read-only "
                                    f"directory {root}", "chain.out_of_bounds", "bounds")
        return None

    def _never(self, call: Call) -> Outcome:
        """The never table (``shellgate.bash.never``): catastrophes no mode, rule, approval or
        answer lets through. Only for a parsed command line."""
        script = call.meta.script
        if call.meta.command is None or script is None:
            return None
        from ..bash.facts import Context
        from ..bash.never import find

        hit = find(script, Context.here(cwd=call.cwd, workspace=call.workspace,
                                        home=self.home), self.never_off)
        if hit is None:
            return None
        return Decision(DecisionKind.DENY, f"{hit.message}; no mode, rule or approval allows "
                        "this", "chain.never", "never", (hit.entry.name,))

    def _deny_rules(self, call: Call) -> Outcome:
        for r in self.rules.deny:
            hit = r.deny_side(call.subject)
            if hit is not None:
                where = f" ({r.source}:{r.line})" if r.line else ""
                return Decision(DecisionKind.DENY, f"denied by rule {r.text}{where}: {hit}",
                                "chain.deny_rule", "rule", (r.text,))
        return None

    def _plan_gate(self, call: Call) -> Outcome:
        if not self._plan:
            return None
        if call.tool in self.plan_mode_allowed_tools:
            return Decision(DecisionKind.ALLOW, f"{call.req.tool_name} is allowed in plan mode",
                            "chain.plan_mode", "plan")
        cap = call.capability
        if cap in (Capability.READ, Capability.INTERNAL):
            return None
        if cap is Capability.EXEC and self.plan_mode_exec_allowed:
            return Decision(DecisionKind.ALLOW, "exec is allowed in plan mode by configuration",
                            "chain.plan_mode", "plan")
        return Decision(DecisionKind.DENY, f"plan mode is read-only ({cap} not allowed); "
                        "finish the plan and call exit_plan_mode first", "chain.plan_mode", "plan")

    def _internal_paths(self, call: Call) -> Outcome:
        if not self.internal_dirs or not call.meta.paths or not call.meta.paths_complete:
            return None
        for e in call.subject.paths:
            if not any(_under(e.path, d) and _under(e.real, d) for d in self.internal_dirs):
                return None
        return Decision(DecisionKind.ALLOW, "only touches the agent's own internal files",
                        "chain.internal_path", "internal")

    def roots(self, workspace: str | None = None) -> tuple[str, ...]:
        return (_norm(workspace or self.workspace), *self._roots, *self._scratch, *self.internal_dirs,
                *self.readonly_roots, *self.readonly_internal_dirs)

    def _outside_roots(self, call: Call) -> Outcome:
        if not call.meta.paths:
            return None
        for a in call.meta.paths:
            if not a.resolved and a.op in BOUNDED_OPS:
                return Ask(f"{a.path} is only known when the command runs, so it counts as "
                           f"outside the workspace ({call.workspace})", "chain.outside_roots",
                           limited=True, hint="spell the path out inside the workspace")
        roots = self.roots(call.workspace)
        for e in call.subject.paths:
            if e.op not in BOUNDED_OPS:
                continue
            inside = any(_under(e.path, r) for r in roots) and any(_under(e.real, r) for r in roots)
            if not inside:
                return Ask(f"{e.path} is outside the workspace ({call.workspace}) and the allowed "
                           "directories", "chain.outside_roots", limited=True,
                           hint="add the directory to [permissions] additional_directories")
        return None

    def _allows(self, call: Call) -> Outcome:
        for r in self.rules.ask:
            hit = r.deny_side(call.subject)
            if hit is None:
                continue
            # An ask rule vetoes allows; it never turns the mode's deny into a question
            # (strict mode's exec stays denied), so adding one can only tighten.
            if self._covers(call) is None:
                floor = self._mode_matrix(call)
                if isinstance(floor, Decision) and floor.kind is DecisionKind.DENY:
                    return replace(floor, reason=f"{floor.reason} (rule {r.text} asks, and an "
                                   "ask rule never loosens the mode)", matched=(r.text,))
            return Ask(f"rule {r.text} asks for approval: {hit}", "chain.ask_rule",
                       matched=(r.text,), hint="an ask rule wants a person to approve each time")
        return self._covers(call)

    def _covers(self, call: Call, allow: tuple[Rule, ...] | None = None,
                stored: bool = True) -> Decision | None:
        """Skill allows, stored approvals and allow rules (or just ``allow``) covering the call."""
        meta = call.meta
        if meta.command is not None and call._view is None and _all_readonly(meta):
            return None  # what the view would say: nothing to cover (so no allow is needed)
        view = call.view
        if view is not None:
            return self._cover_command(call, view, allow, stored)
        return self._cover_call(call, call.subject, allow, stored)

    def _stored(self, call: Call) -> tuple[Approval, ...]:
        stored = self.store.for_workspace(call.tool, self.workspace) if self.store else ()
        session = tuple(a for a in self._session if a.tool == call.tool)
        return stored + session

    def _cover_call(self, call: Call, subj: Subject, allow: tuple[Rule, ...] | None = None,
                    stored: bool = True) -> Decision | None:
        for r in self._skill if stored else ():
            if r.covers_call(subj):
                return Decision(DecisionKind.ALLOW, f"allowed by the skill rule {r.text}",
                                "chain.skill_allow", "skill", (r.text,))
        if call.meta.key and stored:
            for a in self._stored(call):
                if not a.prefix and a.key == call.meta.key:
                    src = "session" if a in self._session else "store"
                    return Decision(DecisionKind.ALLOW, f"allowed by a {src} approval of {a.key}",
                                    "chain.stored_approval", src, (a.label,))
        for r in self.rules.allow if allow is None else allow:
            if r.covers_call(subj):
                return Decision(DecisionKind.ALLOW, f"allowed by rule {r.text}", "chain.allow_rule",
                                "rule", (r.text,))
        return None

    def _cover_command(self, call: Call, view: CommandView, allow: tuple[Rule, ...] | None = None,
                       stored: bool = True) -> Decision | None:
        need = view.to_cover()
        if not need:
            return None
        issue = call.scope_issue
        if issue is not None:   # no source covers words that may not resolve as approved
            if self._covers_words(call, need, allow, stored):
                call.scope_note = f" (an allow matches the words, but {issue.why})"
            return None
        sources = self._command_sources(call, allow, self._in_scope(call, need) if stored else None)
        if not sources:
            return None
        used: dict[str, list[str]] = {}
        for sub in need:
            for kind, label, pat in sources:
                if pat.matches(sub.cover_words, strict=True):
                    used.setdefault(kind, [])
                    if label not in used[kind]:
                        used[kind].append(label)
                    break
            else:
                return None
        kind = next(k for k in ("skill", "store", "session", "rule") if k in used)
        step = {"skill": "chain.skill_allow", "store": "chain.stored_approval",
                "session": "chain.stored_approval", "rule": "chain.allow_rule"}[kind]
        matched = tuple(x for k in ("skill", "store", "session", "rule") for x in used.get(k, ()))
        words = {"skill": "skill rule", "store": "stored approval", "session": "session approval",
                 "rule": "rule"}
        how = "; ".join(f"{words[k]} {', '.join(v)}" for k, v in used.items())
        return Decision(DecisionKind.ALLOW, f"every command is covered: {how}", step, kind, matched)

    def _command_sources(self, call: Call, allow: tuple[Rule, ...] | None,
                         approvals: tuple[Approval, ...] | None) -> list[tuple[str, str, Any]]:
        """Every allow source for a command line as ``(kind, label, pattern)``, in the order
        they are tried: skill allows and the prefix ``approvals`` (both left out when
        ``approvals`` is None: only ``allow`` is asked), then the allow rules (or ``allow``)."""
        sources: list[tuple[str, str, Any]] = []
        if approvals is not None:
            sources += [("skill", r.text, p) for r in self._skill
                        if (p := r.command_pattern(call.tool)) is not None]
            session = set(map(id, self._session))
            sources += [("session" if id(a) in session else "store", a.label,
                         CommandPattern.literal(a.prefix, rest=a.rest))
                        for a in approvals if a.prefix]
        sources += [("rule", r.text, p) for r in (self.rules.allow if allow is None else allow)
                    if (p := r.command_pattern(call.tool)) is not None]
        return sources

    def _in_scope(self, call: Call, need: tuple[Any, ...]) -> tuple[Approval, ...]:
        """The stored and session approvals whose workspace holds every directory the line
        may run in (an approval for every workspace holds all); says why in ``call.scope_note``
        when one that matches the words is left out."""
        out, cwds, unknown = [], None, True
        for a in self._stored(call):
            if a.workspace is not None:
                if unknown:
                    cwds, unknown = call.cwds(), False
                where = outside(cwds, a.workspace)
                if where is not None:
                    pat = CommandPattern.literal(a.prefix, rest=a.rest) if a.prefix else None
                    if pat is not None and any(pat.matches(s.cover_words, strict=True)
                                               for s in need):
                        call.scope_note = (f" (the approval {a.label} is for {a.workspace}, "
                                           f"and the line may run in {where})")
                    continue
            out.append(a)
        return tuple(out)

    def _covers_words(self, call: Call, need: tuple[Any, ...], allow: tuple[Rule, ...] | None,
                      stored: bool) -> bool:
        """Whether some allow source matches the words of every sub-command in ``need`` (any
        stored approval, wherever its workspace: only the words count here)."""
        pats = [p for _k, _l, p in self._command_sources(call, allow,
                                                          self._stored(call) if stored else None)]
        return bool(pats) and all(any(p.matches(s.cover_words, strict=True) for p in pats)
                                  for s in need)

    def _mode_matrix(self, call: Call) -> Outcome:
        cap, mode = call.capability, self._mode
        verdict = matrix_verdict(mode, cap, sandboxed=self.sandboxed)
        if verdict is Verdict.ALLOW:
            return Decision(DecisionKind.ALLOW, f"{cap} is allowed in {mode} mode",
                            "chain.mode_matrix", "mode")
        if verdict is Verdict.ASK and self._confined_allows(call):
            return Decision(DecisionKind.ALLOW, "exec runs confined here (no network; writes only "
                            "in the workspace and scratch; secrets masked) — [sandbox] auto_allow",
                            "chain.confined_exec", "mode")
        nosb = " without a sandbox" if verdict is not matrix_verdict(mode, cap) else ""
        note = call.scope_note + self._untrusted_note(call)
        if verdict is Verdict.DENY:
            return Decision(DecisionKind.DENY, f"{cap} is not allowed in {mode} mode{note}",
                            "chain.mode_matrix", "mode")
        return Ask(f"{cap} needs approval in {mode} mode{nosb}{note}", "chain.mode_matrix")

    def _untrusted_note(self, call: Call) -> str:
        """Say so when an allow rule that was not honoured would have covered the call."""
        if not self.untrusted_allows:
            return ""
        hit = self._covers(call, self.untrusted_allows, stored=False)
        if hit is None:
            return ""
        sources = sorted({r.source for r in self.untrusted_allows if r.text in hit.matched})
        return (f" ({', '.join(hit.matched)} in {', '.join(sources)} would allow it, but that "
                "file is not trusted: a project config may only tighten the policy)")

    # -- asking -----------------------------------------------------------------------------

    def remember_plan(self, call: Call) -> tuple[Approval, ...] | None:
        """What an "always" answer would store, or None when nothing may be remembered."""
        if not call.meta.persistable:
            return None
        view = call.view
        if view is None:
            if not call.meta.key:
                return None
            return (Approval(call.tool, key=call.meta.key, workspace=self.workspace),)
        pres = cover_prefixes(view)
        if pres is None:
            return None
        return tuple(Approval(call.tool, words, more, workspace=self.workspace) for words, more in pres)

    def _no_approver(self, call: Call, ask: Ask, plan: tuple[Approval, ...] | None) -> Decision:
        """Nobody can be asked. The reason is read by the model first: it tells it to ask the
        user, and tells the user how to allow the call (a rule, a mode)."""
        if not self.ask_as_deny:
            return Decision(DecisionKind.ASK, ask.reason, ask.rule, "no_approver", ask.matched)
        hint = ask.hint
        if not hint:
            tips = []
            if plan and call.tool:
                name = call.req.tool_name
                name = name[:1].upper() + name[1:] if name.isalpha() and name.islower() else name
                rules = ", ".join(f'"{name}({a.label})"' for a in plan[:3])
                tips.append(f"add [permissions] allow = [{rules}] to ~/.config/shellgate/config.toml")
            if ask.rule == "chain.mode_matrix":
                tips.append(f"run with --mode {_LEAST_MODE.get(call.capability, 'trust')}")
            hint = " or ".join(tips) if tips else "approve it interactively"
        return Decision(DecisionKind.DENY, f"needs approval: {call.what} — {ask.reason}. Nobody "
                        f"can approve it here; ask the user, who can {hint}", ask.rule,
                        "no_approver", ask.matched)

    def _resolve(self, call: Call, ask: Ask) -> Decision:
        if self.approver is None:  # the plan only words the hint of an ask reported as a deny
            plan = None if ask.limited or not self.ask_as_deny else self.remember_plan(call)
            return self._no_approver(call, ask, plan)
        plan = None if ask.limited else self.remember_plan(call)
        choices = FULL_CHOICES if plan else LIMITED_CHOICES
        prompt = Prompt(tool=call.req.tool_name, summary=call.what, preview=call.req.preview,
                        warnings=call.meta.warnings, choices=choices, reason=ask.reason,
                        capability=call.capability, remember=tuple(a.label for a in plan or ()),
                        command=call.meta.command)
        try:
            answer = DecisionKind(self.approver(prompt))
        except Exception as exc:
            return Decision(DecisionKind.DENY, f"the approver failed ({type(exc).__name__}: {exc})",
                            ask.rule, "error", ask.matched, asked=True)
        if not answer.allowed:
            return Decision(DecisionKind.DENY, f"denied by the user: {ask.reason}", ask.rule,
                            "user_reject", ask.matched, asked=True)
        offered = [k for k in _ALLOW_ORDER if k in choices]
        if answer not in offered:  # lower to the strongest answer offered below it
            answer = max((k for k in offered if _ALLOW_ORDER.index(k) <= _ALLOW_ORDER.index(answer)),
                         key=_ALLOW_ORDER.index, default=DecisionKind.ALLOW_ONCE)
        note = ""
        if answer is DecisionKind.ALLOW_ALWAYS and plan:
            if self.store is None:
                answer, note = DecisionKind.ALLOW_SESSION, " (no approval store: kept for the session)"
            else:
                try:
                    self.store.add(plan)
                except Exception as exc:
                    answer = DecisionKind.ALLOW_SESSION
                    note = f" (could not save the approval: {type(exc).__name__}: {exc})"
        if answer is DecisionKind.ALLOW_SESSION and plan:
            with self._lock:
                known = {a.identity for a in self._session}
                self._session += [a for a in plan if a.identity not in known]
        return Decision(answer, f"approved by the user ({answer}){note}: {ask.reason}", ask.rule,
                        "user", ask.matched + tuple(a.label for a in plan or ()
                                                    if answer is not DecisionKind.ALLOW_ONCE),
                        asked=True)

    # -- audit ------------------------------------------------------------------------------

    def record(self, req: Request, decision: Decision, meta: Metadata | None = None,
               start: float | None = None, call: Call | None = None) -> None:
        """Write the audit line for a decision (the harness calls it for its own branches) and
        hand it to ``on_audit`` (the write-up's ``OnAudit`` hook; its errors are ignored)."""
        if self.audit is None and self.on_audit is None:
            return
        meta = meta or req.metadata
        entry = {
            "event": "decision", "session_id": req.session_id or self.session_id,
            "tool_use_id": req.tool_id or None, "tool": req.tool_name,
            "cwd": call.cwd if call else (req.cwd or req.workspace or self.workspace),
            "workspace": call.workspace if call else (req.workspace or self.workspace),
            "command": meta.command if meta.command is not None else (meta.summary or meta.key),
            "mode": str(self._mode), "plan": self._plan, "decision": str(decision.kind),
            "verdict": decision.verdict, "source": decision.source, "rule": decision.rule,
            "matched": list(decision.matched), "reason": decision.reason,
            "capability": str(decision.capability or meta.capability or ""),
            "reasons": list(decision.reasons or meta.reasons),
            "warnings": list(decision.warnings or meta.warnings),
            "sensitive_paths": list(meta.sensitive), "asked": decision.asked,
            "exit_code": None,
            "duration_ms": None if start is None else round((time.perf_counter() - start) * 1000, 3),
        }
        if self.audit is not None:
            self.audit.record(entry)
        if self.on_audit is not None:
            with contextlib.suppress(Exception):
                self.on_audit(entry)
