"""One gated, sandboxed bash session, shaped for adapters: check, preflight, run, restart.

Every framework adapter (MCP, Anthropic, OpenAI, LangChain, pydantic-ai) needs the same four
things from shellgate and differs only in how it asks a human. :class:`Shell` wraps one
:class:`shellgate.tools.BashTool` (so ``cd`` persists and every command runs in the sandbox)
and reports every outcome — ran, denied, needs approval, declined, failed — as one
:class:`ShellResult`, so an adapter only translates shapes.

Approval is explicit: ``run(cmd, approved=True)`` means a human said yes to *this* call once
(it never lifts a hard deny), ``approver=`` asks on the spot, and without either an *ask*
comes back as ``needs_approval`` and nothing runs.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Generic, TypeVar

from .._record import field, record

T = TypeVar("T")

STATUSES = ("allowed", "ran", "denied", "needs_approval", "declined", "error")


@record
class ShellResult:
    """The outcome of one command. ``status``:

    - ``allowed`` / ``needs_approval`` / ``denied``: a preflight (nothing ran yet);
    - ``ran``: it ran (whatever its exit code); ``declined``: a human said no;
    - ``error``: shellgate itself failed, nothing ran.
    """

    command: str
    status: str
    decision: str = ""                   # the gate's allow / ask / deny
    reason: str = ""
    warnings: tuple[str, ...] = ()
    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    timed_out: bool = False
    truncated: bool = False
    cwd: str = ""
    sandbox: str = ""
    readonly: bool = False
    extra: dict[str, Any] = field(default_factory=dict, compare=False)  # "workspace": decided for

    @property
    def ran(self) -> bool:
        return self.status == "ran"

    @property
    def is_error(self) -> bool:
        """What a tool result's error flag should say: refused, failed, timed out or non-zero."""
        return not self.ran or self.timed_out or self.exit_code != 0

    def prompt_text(self) -> str:
        """The question put to a human for a ``needs_approval`` command (control characters
        escaped: the text shown is the text that runs), and where it would run, since an
        earlier ``cd`` (maybe not shown to the human) decides what ``rm -r data`` deletes."""
        from .._visible import visible

        lines = ["shellgate: allow this command to run once?", "",
                 visible(self.command, multiline=True), "",
                 *(visible(w) for w in _where(self.cwd, self.extra.get("workspace", ""))),
                 f"Why it asks: {visible(self.reason)}"]
        if self.warnings:
            lines.append("Warnings: " + visible("; ".join(self.warnings)))
        return "\n".join(lines)

    def text(self) -> str:
        """The result as the model reads it: output, or the refusal and its reason."""
        if self.status == "ran":
            out = self.stdout
            if self.stderr:
                out = f"{out}\n{self.stderr}" if out and not out.endswith("\n") else out + self.stderr
            notes = []
            if self.timed_out:
                notes.append("timed out and was killed")
            elif self.exit_code not in (0, None):
                notes.append(f"exit code {self.exit_code}")
            if self.truncated:
                notes.append("output truncated")
            if notes:
                out = f"{out.rstrip()}\n[shellgate: {', '.join(notes)}]".lstrip("\n")
            return out
        head = {
            "denied": "shellgate denied this command",
            "needs_approval": "shellgate: this command needs a human's approval and was not run",
            "declined": "shellgate: the user declined this command; it was not run",
            "error": "shellgate could not run this command",
            "allowed": "shellgate would allow this command",
        }[self.status]
        text = f"{head}: {self.reason}" if self.reason else head
        if self.warnings:
            text += " Warnings: " + "; ".join(self.warnings) + "."
        if self.status == "needs_approval" and self.warnings:  # no shortcut for those
            text += " Tell the user what you wanted to do and why, and let them decide."
        elif self.status == "needs_approval":
            text += (" Ask the user to approve it (`shellgate run -- …` asks them on their "
                     "terminal), or use a command that only reads.")
        return text

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"command": self.command, "status": self.status,
                               "decision": self.decision, "reason": self.reason,
                               "warnings": list(self.warnings)}
        if self.status == "ran":
            out.update(exit_code=self.exit_code, stdout=self.stdout, stderr=self.stderr,
                       timed_out=self.timed_out, truncated=self.truncated, cwd=self.cwd,
                       sandbox=self.sandbox)
        return out


Approver = Callable[[ShellResult], bool]
"""Asked with a ``needs_approval`` preflight; True runs the command once."""


class Shell:
    """A bash session behind the gate for one workspace.

    ``mode`` / ``config`` as for ``shellgate check``; ``timeout`` in seconds per command;
    ``agent`` and ``session_id`` go to the audit log; other keywords (``sandbox``, ``home``,
    ``audit``, ``store``, ``user_config`` …) are passed to :class:`~shellgate.tools.BashTool`.
    Calls are serialised (the session's cwd and the one-shot approver are shared state).

    Every run is decided and audited once, by the BashTool's engine; :meth:`check` and
    :meth:`preflight` use a twin engine that writes no audit line (nothing was attempted).
    """

    def __init__(self, workspace: str | Path = ".", mode: str | None = None,
                 config: str | Path | None = None, *, timeout: float | None = None,
                 agent: str = "python", session_id: str | None = None,
                 **bash_options: Any) -> None:
        self.workspace = str(Path(workspace).expanduser().absolute())
        self.mode = mode
        self.config = str(config) if config is not None else None
        self.timeout = timeout
        self.agent = agent
        self.session_id = session_id
        self._bash_options = bash_options
        # Runs are serialised (the cwd and the one-shot approver are shared); checks take only
        # the state lock, so a long command never holds up check_command. Order: run, state.
        self._lock = threading.RLock()
        self._state = threading.RLock()
        self._tool: Any = None
        self._twin: Any = None

    # --- the BashTool and its twin --------------------------------------------------------

    def _bash(self) -> Any:
        with self._state:
            if self._tool is None:
                from ..tools import BashTool

                self._tool = BashTool(self.workspace, self.mode, config=self.config,
                                      timeout=self.timeout, session_id=self.session_id,
                                      **self._bash_options)
            return self._tool

    def _engine(self) -> Any:
        """An engine like the BashTool's (mode, config, store, sandbox), minus the audit log."""
        if self._twin is None:
            from ..approval import load_engine

            bash = self._bash()
            self._twin = load_engine(
                self.workspace, self.mode, self.config, ask_as_deny=False,
                sandboxed=bash.sandboxed, audit=False,
                store=self._bash_options.get("store", True), home=bash.home,
                user_config=self._bash_options.get("user_config", True))
        return self._twin

    @property
    def cwd(self) -> str:
        return str(self._bash().cwd)

    def clamp_timeout(self, requested: float | None) -> float | None:
        """The timeout a caller (often the model) asked for, never longer than the user's own
        (``timeout=``, else ``[sandbox] timeout``): a model may shorten a command, not let it
        run past the limit the user set. None, non-positive or not a number: the user's."""
        if requested is None:
            return None
        limit = self._bash().limits.timeout
        if not 0 < requested < limit:  # longer, non-positive, or NaN (false for every test)
            return limit
        return requested

    def restart(self) -> None:
        """A fresh session: cwd back to the workspace root, nothing carried over."""
        self.close()

    def close(self) -> None:
        """Stop the session's sandboxes now (a later call starts a fresh session)."""
        with self._lock, self._state:
            tool, self._tool, self._twin = self._tool, None, None
        if tool is not None:
            tool.close()

    def __enter__(self) -> Shell:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- deciding -------------------------------------------------------------------------

    def check(self, command: str) -> Any:
        """The gate's :class:`~shellgate.check.Verdict` for ``command`` at the live cwd."""
        return self._check(command)[0]

    def _check(self, command: str) -> tuple[Any, str, str]:
        """The verdict, the cwd it was decided at and the workspace that cwd belongs to."""
        from ..approval import CallContext
        from ..check import Verdict

        with self._state:  # not the run lock: a running command must not hold up a check
            engine = self._engine()
            self._bash().tell(engine)   # the twin decides as the BashTool's engine does
            ctx = CallContext(cwd=str(self._bash().cwd), session_id=self.session_id,
                              agent=self.agent, inherited=self._bash().inherited)
            d, analysis = engine.check_bash(command, ctx)
            workspace = engine.where(ctx)[0] or self.workspace
            if analysis is None:
                from ..bash.analysis import analyse
                from ..bash.facts import Context

                analysis = analyse(command, Context.here(cwd=ctx.cwd, workspace=self.workspace,
                                                         home=engine.home))
        cap = d.capability.value if d.capability is not None else "unknown"
        return Verdict(command, d.verdict, cap, analysis, d.reason, d.rule), ctx.cwd, workspace

    def preflight(self, command: str) -> ShellResult:
        """What would happen to ``command``: ``allowed``, ``needs_approval`` or ``denied``."""
        try:
            verdict, cwd, workspace = self._check(command)
        except Exception as exc:  # noqa: BLE001 - adapters must get an answer, not a traceback
            return self._failed(command, exc)
        status = {"allow": "allowed", "ask": "needs_approval"}.get(verdict.decision, "denied")
        why = [r.message for r in getattr(verdict.analysis, "reasons", ())][:3]
        return ShellResult(command, status, verdict.decision, verdict.reason,
                           _warnings(verdict), cwd=cwd, readonly=bool(verdict.readonly),
                           extra={"not_readonly": why, "workspace": workspace})

    def declined(self, command: str, why: str = "the user declined") -> ShellResult:
        return ShellResult(command, "declined", "ask", why)

    # --- running --------------------------------------------------------------------------

    def run(self, command: str, *, approved: bool = False, approver: Approver | None = None,
            timeout: float | None = None, tool_use_id: str = "",
            asked: str | None = None) -> ShellResult:
        """Gate and run ``command``. An *ask* runs only if ``approved`` (a human already said
        yes to this call) or ``approver`` says yes now; a deny never runs. ``asked``: the
        question that human answered (a preflight's ``prompt_text()``); the approval then
        holds only while the command would be asked exactly that now — a call that ran
        meanwhile (a ``cd``) must not carry the yes to another directory."""
        with self._lock:
            if approved and asked is not None:
                now = self.preflight(command)
                question = now.prompt_text()
                if now.status == "needs_approval" and question != asked:
                    return ShellResult(command, "needs_approval", "ask",
                                       "the question changed since the user answered it "
                                       f"({_changed(asked, question)}); nothing ran: "
                                       f"{now.reason}", now.warnings, cwd=now.cwd,
                                       extra={**now.extra, "question": question})
            return self._run(command, approved, approver, timeout, tool_use_id)

    def _run(self, command: str, approved: bool, approver: Approver | None,
             timeout: float | None, tool_use_id: str) -> ShellResult:
        from ..approval import CallContext, DecisionKind

        answered: list[bool] = []
        where: dict[str, Any] = {}

        def ask(prompt: Any) -> Any:
            if approved:
                return DecisionKind.ALLOW_ONCE
            pending = ShellResult(command, "needs_approval", "ask", prompt.reason or
                                  prompt.summary, tuple(prompt.warnings), **where)
            yes = bool(approver(pending)) if approver is not None else False
            answered.append(yes)
            return DecisionKind.ALLOW_ONCE if yes else DecisionKind.DENY

        with self._lock:
            try:
                bash = self._bash()
                where.update(cwd=str(bash.cwd), extra={"workspace": bash.engine.where(
                    CallContext(cwd=str(bash.cwd)))[0] or self.workspace})
                bash.engine.set_approver(ask if approved or approver is not None else None)
                try:
                    r = bash.run(command, timeout=self.clamp_timeout(timeout),
                                 tool_use_id=tool_use_id)
                finally:
                    bash.engine.set_approver(None)
            except Exception as exc:  # noqa: BLE001
                return self._failed(command, exc)
        return self._result(r, declined=answered == [False])

    def run_readonly(self, command: str, *, timeout: float | None = None,
                     tool_use_id: str = "") -> ShellResult:
        """Run ``command`` only if the gate classifies it read-only; refuse the rest unrun."""
        with self._lock:
            pending = self.preflight(command)
            if pending.status == "error":
                return pending
            if not pending.readonly or pending.status != "allowed":
                why = pending.reason
                if not pending.readonly:
                    why = "; ".join(["it is not read-only", *pending.extra.get("not_readonly", ())])
                return ShellResult(command, "denied", pending.decision,
                                   f"refused without running: {why}", pending.warnings)
            return self.run(command, timeout=timeout, tool_use_id=tool_use_id)

    @staticmethod
    def _result(r: Any, *, declined: bool) -> ShellResult:
        common = dict(decision=r.decision, reason=r.reason, warnings=tuple(r.warnings),
                      cwd=r.cwd, sandbox=r.sandbox)
        if r.ran:
            notes = tuple(getattr(r, "violations", ())) + tuple(getattr(r, "notes", ()))
            return ShellResult(r.command, "ran", stdout=r.stdout, stderr=r.stderr,
                               exit_code=r.exit_code, timed_out=r.timed_out,
                               truncated=r.truncated, extra={"notes": list(notes)}, **common)
        if declined:
            return ShellResult(r.command, "declined", **{**common, "decision": "ask",
                                                         "reason": "the user declined"})
        status = "needs_approval" if r.decision == "ask" else "denied"
        return ShellResult(r.command, status, **common)

    @staticmethod
    def _failed(command: str, exc: BaseException) -> ShellResult:
        return ShellResult(command, "error", "deny", f"{type(exc).__name__}: {exc}")


def _changed(asked: str, now: str) -> str:
    """What a re-asked question says that the answered one did not: its first new line (the
    working directory after a ``cd``, the command after an edit), for the refusal's reason."""
    before = set(asked.splitlines())
    new = [line for line in now.splitlines() if line and line not in before]
    return f"it would now say {new[0]!r}" if new else "it is worded differently now"


class Asked(Generic[T]):
    """What each call put to the user (a question, or one per command), by call id, until its
    run takes it — an approval is then checked against what was asked, not what would be
    asked now. Bounded: a call whose client went away must not keep its question for ever."""

    LIMIT = 256

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_call: dict[str, T] = {}

    def put(self, call: str, asked: T) -> None:
        with self._lock:
            self._by_call.pop(call, None)
            self._by_call[call] = asked
            while len(self._by_call) > self.LIMIT:
                del self._by_call[next(iter(self._by_call))]

    def take(self, call: str) -> T | None:
        with self._lock:
            return self._by_call.pop(call, None)

    def peek(self, call: str) -> T | None:
        with self._lock:
            return self._by_call.get(call)


def _where(cwd: str, workspace: str) -> list[str]:
    """The prompt lines that say where a command would run: the cwd, and where it lies
    relative to the workspace."""
    if not cwd:
        return []
    rel = os.path.relpath(cwd, workspace) if workspace else ""
    if not workspace:
        place = ""
    elif rel == ".":
        place = " (the workspace root)"
    elif rel == ".." or rel.startswith("../"):
        place = " (OUTSIDE the workspace)"
    else:
        place = f" ({rel}/ inside the workspace)"
    lines = [f"Working directory: {cwd}{place}"]
    return lines + ([f"Workspace: {workspace}", ""] if workspace else [""])


def _warnings(verdict: Any) -> tuple[str, ...]:
    analysis = getattr(verdict, "analysis", None)
    return tuple(dict.fromkeys(w.message for w in getattr(analysis, "warnings", ())))
