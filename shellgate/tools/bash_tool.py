"""BashTool: the drop-in bash tool — the gate decides, the sandbox runs, the cwd persists.

Each call is a fresh ``bash -c`` in the restricted subprocess (no long-lived shell: every
command gets its own decision and its own confinement; under bwrap the bash is forked inside a
pre-spawned sandbox with the same mounts a fresh one would get); ``cd`` persists because the sandbox
reports the final cwd through a trailer and the next call starts there. When that cwd is inside
a worktree of the same repository, the worktree becomes the workspace for the gate's path
checks and for the sandbox's writable roots; the original workspace stays writable and the
main repository's hooks and config stay protected.

What a command leaves running in the background lives on as a job of the tool's session in
its pre-spawned sandbox (bounded, listed in every later result's ``background``, reported once
when it ends, stopped by :meth:`BashTool.close`: see :mod:`shellgate.sandbox.background`), in
the same network namespace as the later commands — so a server started in one call answers a
``curl http://127.0.0.1:…`` in the next, which needs no network grant there.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._record import record, replace
from ..approval import CallContext, Capability, Decision, DecisionKind, Engine, Prompt, load_engine
from ..bash.facts import Inherited
from ..sandbox import Limits, Sandbox, Tier, build_policy, refusals
from ..sandbox.locations import guarded_paths, named_paths
from ..sandbox.policy import within
from .settings import SandboxSettings, load_settings
from .shell_state import SAVE, State, read


@record
class BashResult:
    """What one :meth:`BashTool.run` did. ``ran`` is false when the gate did not allow it
    (``decision`` ``ask`` or ``deny``; ``reason`` says why and how to approve)."""

    command: str
    decision: str                     # allow / ask / deny
    reason: str
    ran: bool
    stdout: str = ""
    stderr: str = ""
    exit_code: int | None = None
    signal: int | None = None
    timed_out: bool = False
    truncated: bool = False
    cwd: str = ""                     # the working directory after the command
    workspace: str = ""               # the workspace the command ran in (a worktree, maybe)
    sandbox: str = ""                 # bwrap / landlock / none
    capability: str | None = None
    warnings: tuple[str, ...] = ()
    violations: tuple[str, ...] = ()  # protected-path writes the sandbox undid
    notes: tuple[str, ...] = ()
    duration: float = 0.0
    background: tuple[str, ...] = ()  # background jobs of this session still running after it

    @property
    def ok(self) -> bool:
        return self.ran and self.exit_code == 0

    def to_json(self) -> dict[str, Any]:
        return {"command": self.command, "decision": self.decision, "reason": self.reason,
                "ran": self.ran, "stdout": self.stdout, "stderr": self.stderr,
                "exit_code": self.exit_code, "signal": self.signal, "timed_out": self.timed_out,
                "truncated": self.truncated, "cwd": self.cwd, "workspace": self.workspace,
                "sandbox": self.sandbox, "capability": self.capability,
                "warnings": list(self.warnings), "violations": list(self.violations),
                "notes": list(self.notes), "duration": round(self.duration, 6),
                "background": list(self.background)}

    def as_text(self) -> str:
        """The result as a model reads it: output, then what happened in brackets."""
        jobs = [f"running in the background: {j}" for j in self.background]
        if not self.ran:
            return "\n".join([f"[not run: {self.decision}] {self.reason}".rstrip(), *jobs])
        parts = [self.stdout.rstrip("\n")] if self.stdout else []
        if self.stderr:
            parts.append(self.stderr.rstrip("\n"))
        tail = [f"exit code {self.exit_code}"]
        if self.timed_out:
            tail = ["timed out; the command and its children were killed"]
        elif self.signal:
            tail.append(f"killed by signal {self.signal}")
        tail += list(self.violations) + [f"warning: {w}" for w in self.warnings]
        tail += [n for n in self.notes if _JOB_NOTE.search(n)]
        parts.append("[" + "; ".join(tail) + "]")
        parts += jobs
        return "\n".join(parts)


_JOB_NOTE = re.compile(r"^(stopped |job \d+ |background processes end)")


def _sandbox_from(spec: Sandbox | str | bool | None, settings: SandboxSettings,
                  prespawn: bool | None) -> Sandbox:
    if isinstance(spec, Sandbox):
        return spec
    if spec is False or spec in ("off", "none") or (spec is None and not settings.enabled):
        return Sandbox(Tier.NONE)
    tier = spec if isinstance(spec, str) else settings.tier
    return Sandbox(None if tier in (None, "auto") else tier,
                   prespawn=settings.prespawn if prespawn is None else prespawn, background=True)


class BashTool:
    """``BashTool(workspace, mode).run(cmd)`` -> :class:`BashResult`.

    ``approver`` answers prompts (e.g. ``shellgate.approval.console_approver()``); without one
    an ask is not run and comes back with ``decision="ask"``. ``engine`` replaces the engine
    built from the config files. ``sandbox``: a :class:`Sandbox`, a tier name (``"auto"``,
    ``"bwrap"``, ``"landlock"``), or ``False``/``"off"`` to disable it explicitly — it is on in
    every mode, trust included, otherwise. Under bwrap, commands run in pre-spawned sandboxes;
    :meth:`close` stops them. ``prespawn=False`` (or ``[sandbox] prespawn = false``) starts a
    fresh bwrap per command instead — cheaper for a single command: a pre-spawned sandbox costs
    ~25 ms once, a fresh bwrap ~5–10 ms each time. When no tier works here the engine is told
    so and gets stricter (trust then asks for exec); an explicit opt-out is the user's own call
    and keeps the mode as it is. Raises ``ValueError`` for a bad config or mode and
    ``SandboxUnavailable`` for an explicitly requested tier that does not work here.
    """

    name = "bash"

    def __init__(self, workspace: str | Path = ".", mode: str | None = None, *,
                 approver: Callable[[Prompt], DecisionKind] | None = None,
                 engine: Engine | None = None, sandbox: Sandbox | str | bool | None = None,
                 timeout: float | None = None, home: str | Path | None = None,
                 config: str | Path | None = None, audit: bool | str | Path = True,
                 store: bool | str | Path = True, user_config: bool = True,
                 session_id: str | None = None, limits: Limits | None = None,
                 prespawn: bool | None = None, persistent: bool = False) -> None:
        self.workspace = Path(workspace).expanduser().absolute()
        if not self.workspace.is_dir():  # nothing could run there, and no path check holds
            raise ValueError(f"workspace {self.workspace} is not an existing directory")
        if timeout is not None and not timeout > 0:  # 0 would silently mean the default
            raise ValueError(f"timeout must be a positive number of seconds, not {timeout}")
        self.home = Path(home).expanduser().absolute() if home else Path.home()
        self.session_id = session_id
        roots: tuple[str, ...] = ()
        self.settings = SandboxSettings()
        if engine is None or sandbox is None:
            from ..config import load_config

            self.settings = load_settings(self.workspace, config, user=user_config)
            roots = load_config(self.workspace, config, user=user_config).filesystem_roots
        self.sandbox = _sandbox_from(sandbox, self.settings, prespawn)
        self.engine = engine or load_engine(
            self.workspace, mode, config, approver=approver, ask_as_deny=False,
            sandboxed=self.sandbox.tier is not Tier.NONE or self.sandbox.disabled,
            audit=audit, store=store, session_id=session_id, home=self.home, user_config=user_config)
        if engine is not None and mode is not None:
            engine.set_mode(mode)
        if engine is not None and approver is not None:
            engine.set_approver(approver)
        self.tell(self.engine)
        base = limits or self.settings.limits
        self.limits = replace(base, timeout=timeout or (base.timeout if limits else self.settings.timeout))
        s, ws = self.settings, self.workspace
        self._extra_writable = s.resolve(s.writable, ws, self.home) + tuple(
            Path(r) for r in roots)
        self._extra_readonly = s.resolve(s.readonly, ws, self.home)
        self._extra_masked = s.resolve(s.masked, ws, self.home)
        self._cwd = self.workspace
        self._lock = threading.Lock()
        self.persistent = persistent
        self._state = State()
        self._base_path = ""
        self._session = threading.Lock()  # a persistent session runs one command at a time

    def tell(self, engine: Engine) -> None:
        """Tell ``engine`` what this tool's sandbox guarantees: its private scratch space
        (writes there are edits like the workspace's), and whether an exec runs confined (no
        network, workspace and scratch writes, secrets masked), so that ``[sandbox]
        auto_allow`` (default: on in accept-edits) may let it run unasked. Only a tier that
        really confines counts (``Sandbox.confines_exec``). Under bwrap also that commands
        have a loopback of their own (a network namespace with nothing else): a client
        talking only to ``127.0.0.1``/``localhost``/``::1`` there needs no network grant. And
        that no command gets a terminal (``Sandbox.run``: pipes, a new session)."""
        engine.set_scratch_roots(self.sandbox.scratch())
        engine.set_own_loopback(self.sandbox.own_loopback())
        engine.set_terminal(False)
        engine.set_confined_exec(self.sandbox.confines_exec, self.settings.auto_allow)

    @property
    def sandboxed(self) -> bool:
        """What the engine is told: false only when no tier works here (trust then asks for
        exec); an explicit opt-out by the user counts as sandboxed (their call)."""
        return self.sandbox.tier is not Tier.NONE or self.sandbox.disabled

    def close(self) -> None:
        """Stop the pre-spawned sandboxes — every background job with them — and remove the
        private tmp directory (a later :meth:`run` starts afresh, with no carried state). Also
        done when the tool is garbage-collected or at exit."""
        self.sandbox.close()
        self._state = State()

    def __enter__(self) -> BashTool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def cwd(self) -> Path:
        """Where the next command starts (``cd`` in earlier commands moves it)."""
        return self._cwd

    @cwd.setter
    def cwd(self, value: str | Path) -> None:
        with self._lock:
            self._cwd = (self._cwd / Path(value).expanduser()).absolute()

    def _inside(self, path: Path) -> bool:
        """Is ``path`` a place the session may continue in: the workspace (or the worktree of
        the same repository the gate would take as the workspace there) or an extra writable
        root? (Not the scratch /tmp: under bwrap the sandbox's /tmp is another directory than
        the host's, where the next decision would look.)"""
        try:
            workspace = Path(self.engine.where(CallContext(cwd=str(path)))[0])
        except Exception:  # noqa: BLE001 - where() never raises by contract; stay put if it does
            return False
        return any(within(path, r) for r in (workspace, self.workspace, *self._extra_writable))

    @property
    def inherited(self) -> Inherited | None:
        """What a persistent session carries into the next command, as the gate is told it
        (None: nothing, or not persistent)."""
        if not self.persistent or self._state.empty:
            return None
        running = bool(self.sandbox.jobs()[0])  # a job could put a program on the PATH meanwhile
        return self._state.inherited(self._base_path, () if running else tuple(
            map(str, (self.workspace, *self._extra_writable))))

    def run(self, command: str, *, timeout: float | None = None, tool_use_id: str = "") -> BashResult:
        """Decide ``command``, and run it in the sandbox when allowed. Never raises."""
        if not self.persistent:
            return self._run(command, timeout, tool_use_id)
        with self._session:
            return self._run(command, timeout, tool_use_id)

    def _run(self, command: str, timeout: float | None, tool_use_id: str) -> BashResult:
        start = time.monotonic()
        cwd = self._cwd
        self.tell(self.engine)   # after close() a Landlock sandbox's scratch is a new one
        ctx = CallContext(cwd=str(cwd), session_id=self.session_id, tool_use_id=tool_use_id or None,
                          inherited=self.inherited)
        try:
            decision = self.engine.decide_bash(command, ctx, tool_use_id=tool_use_id)
            workspace = Path(self.engine.where(ctx)[0])
        except Exception as exc:  # decide never raises by contract; fail closed if it does
            decision = Decision(DecisionKind.DENY, f"internal error in the gate: {exc}",
                                "internal.error", "error")
            workspace = self.workspace
        common = dict(command=command, decision=decision.verdict, reason=decision.reason,
                      capability=str(decision.capability) if decision.capability else None,
                      warnings=tuple(decision.warnings), workspace=str(workspace),
                      sandbox=str(self.sandbox.tier), cwd=str(cwd))
        if not decision.allowed():
            return self._not_run(start, common)
        if timeout is not None and not timeout > 0:  # -1 would time out at once, 0 mean 120 s
            return self._not_run(start, {**common, "decision": "deny", "reason": "timeout must "
                                         f"be a positive number of seconds, not {timeout}"})
        network = decision.capability is Capability.NETWORK
        limits = replace(self.limits, timeout=timeout) if timeout else self.limits
        try:
            hidden, kept = self._rule_paths(workspace, str(cwd))
            policy = build_policy(workspace, base=self.workspace, home=self.home, network=network,
                                  writable=self._extra_writable,
                                  readonly=(*self._extra_readonly, *kept),
                                  masked=(*self._extra_masked, *hidden),
                                  env_passthrough=self.settings.env_passthrough,
                                  env_set=self.settings.env, limits=limits)
        except Exception as exc:  # never run a command under a policy we could not build
            return self._not_run(start, {**common, "decision": "deny",
                                         "reason": f"the sandbox policy could not be built: {exc}"})
        if self.persistent:
            res, said = self._run_in_session(command, policy, cwd)
        else:
            res, said = self.sandbox.run(command, policy, cwd), ()
        notes = (*res.notes, *refusals.notes(policy, res.stderr, cwd, res.exit_code), *said)
        new_cwd = res.cwd
        if new_cwd != cwd and not self._inside(new_cwd):
            if self.settings.follow_cd_outside:
                notes = (*notes, f"the cwd left the workspace for {new_cwd}; decisions are still "
                         f"taken against {self.workspace}")
            else:
                notes = (*notes, f"cd to {new_cwd} would leave the workspace: the next command "
                         f"starts in {cwd} ([sandbox] follow_cd_outside = true follows it)")
                new_cwd = cwd
        with self._lock:
            if self._cwd == cwd:  # a concurrent call's cd wins only if it finished later
                self._cwd = new_cwd
        duration = time.monotonic() - start
        with contextlib.suppress(Exception):  # an audit failure must not fail a finished command
            self.engine.record_execution(command, exit_code=res.exit_code,
                                         duration_ms=duration * 1000, ctx=ctx,
                                         sandbox=res.tier, timed_out=res.timed_out)
        common.update(cwd=str(new_cwd))
        if self.sandbox.tier is Tier.NONE and not self.sandbox.disabled:
            notes = (f"sandbox: {self.sandbox.description}", *notes)
        return BashResult(ran=True, stdout=res.stdout, stderr=res.stderr, exit_code=res.exit_code,
                          signal=res.signal, timed_out=res.timed_out, truncated=res.truncated,
                          violations=res.violations, notes=notes, duration=duration,
                          background=res.background, **common)

    def _rule_paths(self, workspace: Path, cwd: str) -> tuple[tuple[Path, ...], tuple[Path, ...]]:
        """What the policy's read rules name, to hide, and what its deny edit rules name, to
        keep read-only in the writable roots: the sandbox holds to the rules even where the
        classifier misreads a command (as the hooks' confined line does)."""
        rules = getattr(self.engine, "rules", None)
        if rules is None:
            return (), ()
        watched, guarded = rules.watched(cwd), rules.guarded(cwd)
        if not watched and not guarded:
            return (), ()
        home = Path(self.home) if self.home else Path.home()
        roots = tuple(dict.fromkeys((workspace, Path(self.workspace), *map(Path, self._extra_writable))))
        return named_paths(watched, home, (workspace,)), guarded_paths(roots, home, guarded)

    def _run_in_session(self, command: str, policy: Any, cwd: Path) -> tuple[Any, tuple[str, ...]]:
        """Run with the session's state restored in front and dumped by the EXIT trap; take
        the dump back (:mod:`.shell_state`). A command whose trap did not run (killed, timed
        out, ``exec``) leaves the state as it was."""
        inside, host = self.sandbox.state_file()
        host.unlink(missing_ok=True)  # never a dump of an earlier command
        prelude = "; ".join(p for p in (self._state.prelude(), SAVE) if p)
        res = self.sandbox.run(command, policy, cwd, prelude=prelude,
                               epilogue=f'__sg_save >| "{inside}" || :')
        base = self.sandbox.env_for(policy, cwd)
        self._base_path = base.get("PATH", "")
        state, said = read(host, base)
        if state is not None:
            self._state = state
        return res, said

    def _not_run(self, start: float, common: dict[str, Any]) -> BashResult:
        """A result for a command that did not run; it still lists the session's jobs."""
        running, said = self.sandbox.jobs()
        return BashResult(ran=False, duration=time.monotonic() - start, notes=said,
                          background=running, **common)


__all__ = ["BashResult", "BashTool"]
