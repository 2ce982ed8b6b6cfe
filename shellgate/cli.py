"""The ``shellgate`` command.

Exit codes (documented in the README):
  0  allowed / success            3  the decision is "ask"        4  the decision is "deny"
  1  findings (fuzz) or a failed self-test (doctor)               2  usage error
Hooks follow their agent's protocol instead (see ``shellgate.integrations``).

``shellgate hook …`` is dispatched before click is imported: it runs on every agent command,
so it imports only what one decision needs.
"""

from __future__ import annotations

import sys
from typing import Any

MODES = ("strict", "balanced", "accept-edits", "accept_edits", "auto", "trust")
HOOK_AGENTS = ("claude-code", "codex", "gemini")
FUZZ_DIALECTS = ("bash", "zsh", "dash", "mawk", "gawk")


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) >= 2 and args[0] == "hook" and args[1] in HOOK_AGENTS:
        from .integrations.hookio import cli_main

        code = cli_main(args[1], args[2:], hard_stop=argv is None)
        if argv is None:  # the program itself, not a caller in-process
            _exit_now(code)
        sys.exit(code)
    _click_main(args)


def _exit_now(code: int) -> None:
    """Exit without the interpreter's teardown (~10% of a hook call: finalising every module
    the decision imported). Safe on the hook path: the answer is flushed here, the audit log
    and the approval store write through closed file descriptors, and no thread is running.
    A failed flush blocks (exit 2), as a lost answer must."""
    import os

    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):  # AttributeError: no stdout at all (None)
        code = 2
    os._exit(code)


def _click_main(args: list[str]) -> None:
    import click

    from . import __version__

    mode_opt = click.option("--mode", type=click.Choice(MODES), default=None,
                            help="Permission mode (default: config, else balanced).")
    cwd_opt = click.option("--cwd", type=click.Path(exists=True, file_okay=False), default=None,
                           help="Working directory the command runs in (default: here).")
    config_opt = click.option("--config", type=click.Path(dir_okay=False), default=None,
                              help="shellgate config TOML (default: XDG and .shellgate/ files).")
    json_opt = click.option("--json", "as_json", is_flag=True, help="Print JSON.")

    # --ray alone starts Ray here for the run; --ray ADDRESS (or auto) joins a cluster.
    ray_opt = click.option("--ray", "ray_address", is_flag=False, flag_value="local", default=None,
                           metavar="[ADDRESS]",
                           help="Run on Ray (pip install 'shellgate[ray]'): alone, a local "
                                "instance; with an ADDRESS (or 'auto'), that cluster.")

    def _on_ray(job: Any) -> int:
        from .cluster import RayUnavailable

        try:
            return job()
        except RayUnavailable as exc:
            click.echo(f"shellgate: {exc}", err=True)
            return 2

    def _ray_batch(jsonl: Any, address: str, **kw: Any) -> int:
        from .cluster.check import run_batch as ray_batch

        return ray_batch(jsonl, sys.stdout, address=address, **kw)

    @click.group(context_settings={"help_option_names": ["-h", "--help"]})
    @click.version_option(__version__, prog_name="shellgate")
    def cli() -> None:
        """A gate between an AI agent and bash: parse, classify, decide, sandbox."""

    @cli.command()
    @click.argument("command", required=False)
    @mode_opt
    @cwd_opt
    @config_opt
    @json_opt
    @click.option("--plan", is_flag=True, help="Decide as in plan mode (read-only).")
    @click.option("--jsonl", "jsonl", type=click.File("r", encoding="utf-8", errors="surrogateescape"),
                  default=None, help="Batch: JSON lines with a 'cmd' key in, one result per line out.")
    @click.option("--jobs", type=int, default=0, show_default=True,
                  help="Worker processes for --jsonl (0 = one per core).")
    @ray_opt
    def check(command: str | None, mode: str | None, cwd: str | None, config: str | None,
              as_json: bool, plan: bool, jsonl: Any, jobs: int, ray_address: str | None) -> None:
        """Decide one COMMAND (or a batch with --jsonl) without running it.

        Exit code: 0 allow, 3 ask, 4 deny (batch: 0)."""
        from .checkcli import run_batch, run_one

        if (command is None) == (jsonl is None):
            raise click.UsageError("give either COMMAND or --jsonl FILE|-")
        if ray_address is not None and jsonl is None:
            raise click.UsageError("--ray needs --jsonl")
        if ray_address is not None:
            sys.exit(_on_ray(lambda: _ray_batch(jsonl, ray_address, mode=mode, cwd=cwd,
                                                config=config, plan=plan, jobs=jobs)))
        if jsonl is not None:
            sys.exit(run_batch(jsonl, sys.stdout, mode=mode, cwd=cwd, config=config, plan=plan,
                               jobs=jobs))
        sys.exit(run_one(command, mode=mode, cwd=cwd, config=config, plan=plan, as_json=as_json))

    @cli.command()
    @click.argument("command")
    @mode_opt
    @cwd_opt
    @config_opt
    @json_opt
    @click.option("--plan", is_flag=True, help="Decide as in plan mode (read-only).")
    @click.option("--hook", "show_hook", is_flag=True,
                  help="Also show the confined command a hook would hand the agent for an allow.")
    def explain(command: str, mode: str | None, cwd: str | None, config: str | None,
                as_json: bool, plan: bool, show_hook: bool) -> None:
        """Show every command bash would run and every reason, with its span underlined."""
        from .checkcli import announce_rules, exit_code, make_gate, verdict_json
        from .render import print_explain

        # With --hook the verdict is the Claude Code hook's, whose Bash tool gives a command
        # no terminal (its AgentSpec): the line shown below is that hook's too.
        terminal = True
        if show_hook:
            from .integrations.claude_code import SPEC

            terminal = SPEC.terminal
        gate = make_gate(mode, cwd, config, plan, terminal=terminal)
        announce_rules(gate)
        verdict = gate.check(command, cwd=cwd)
        if as_json:
            click.echo(verdict_json(verdict))
        else:
            print_explain(verdict)
        if show_hook and not as_json:
            click.echo(hook_line(verdict, gate, cwd or str(gate.workspace), config))
        sys.exit(exit_code(verdict))

    def hook_line(verdict: Any, gate: Any, cwd: str, config: str | None) -> str:
        """What ``explain --hook`` adds: what the hook's own enforcement step (hookio.enforce)
        makes of this verdict — the reason it would give and the line the agent would run,
        with what the policy's rules hide and keep read-only, as the hook has them."""
        from .integrations.hookio import Call, Outcome, ToolKind, enforce

        if verdict.decision != "allow":
            return f"\nhook: {verdict.decision} — nothing runs, nothing is rewritten"
        rules = gate.rules()
        call = Call("claude-code", "Bash", ToolKind.BASH, command=verdict.command, cwd=cwd)
        allowed = Outcome("allow", verdict.reason, capability=verdict.capability,
                          watched=rules.watched(cwd) if rules else (),
                          guarded=rules.guarded(cwd) if rules else ())
        out = enforce(call, allowed, {"command": verdict.command}, str(gate.workspace), config)
        line = f"\n{out.updated_input['command']}" if out.updated_input else ""
        return f"\nhook: {out.decision} — {out.reason}{line}"

    @cli.command(context_settings={"ignore_unknown_options": True})
    @mode_opt
    @cwd_opt
    @config_opt
    @json_opt
    @click.option("--timeout", type=click.FloatRange(min=0, min_open=True), default=None,
                  help="Seconds (> 0) before the command's whole process tree is killed "
                  "(default: [sandbox] timeout, 120 s).")
    @click.argument("command", nargs=-1, required=True)
    def run(command: tuple[str, ...], mode: str | None, cwd: str | None, config: str | None,
            as_json: bool, timeout: float | None) -> None:
        """Gate, then run COMMAND in the sandbox: shellgate run [OPTIONS] -- CMD.

        Asks on a terminal when the decision is ask; without one, ask means not run.
        Several words are joined with shell quoting; one word is taken as a whole script.
        The exit code is the command's own; when it was not run: 3 ask, 4 deny, 2 bad config."""
        import shlex

        from .tools.run_cli import run_command

        script = command[0] if len(command) == 1 else shlex.join(command)
        sys.exit(run_command(script, mode=mode, cwd=cwd, timeout=timeout,
                             json_out=as_json, config=config))

    @cli.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
    @click.argument("agent", type=click.Choice(HOOK_AGENTS))
    def hook(agent: str) -> None:
        """Answer one hook call of AGENT (JSON on stdin) in the agent's own protocol."""
        from .integrations.hookio import cli_main

        sys.exit(cli_main(agent, click.get_current_context().args))

    @cli.command()
    @mode_opt
    @config_opt
    @click.option("--workspace", type=click.Path(file_okay=False), default=None,
                  help="Workspace the tools run in (default: here).")
    def mcp(mode: str | None, config: str | None, workspace: str | None) -> None:
        """Serve check_command, run_command and run_readonly_command over MCP (stdio)."""
        from .integrations.mcp_server import main as mcp_main

        sys.exit(mcp_main(workspace=workspace, mode=mode, config=config))

    @cli.command()
    @click.option("--listen", default=None, metavar="127.0.0.1:PORT|unix:PATH",
                  help="Loopback address or Unix socket (default: 127.0.0.1:8477).")
    @click.option("--max-connections", type=int, default=None, metavar="N",
                  help="Connections served at once; one more is refused at once (default: 32).")
    @click.option("--request-deadline", type=float, default=None, metavar="SECONDS",
                  help="Time for each whole request, idle time included (default: 10).")
    @mode_opt
    @config_opt
    def serve(listen: str | None, max_connections: int | None, request_deadline: float | None,
              mode: str | None, config: str | None) -> None:
        """Answer hook calls over HTTP (POST /hook/AGENT), warm: see `shellgate init --serve`."""
        from .integrations.serve import DEFAULT_LISTEN, MAX_CONNECTIONS, REQUEST_DEADLINE, ServeError
        from .integrations.serve import serve as do_serve

        try:
            sys.exit(do_serve(listen or DEFAULT_LISTEN, mode=mode, config=config,
                              max_connections=(MAX_CONNECTIONS if max_connections is None
                                               else max_connections),
                              request_deadline=(REQUEST_DEADLINE if request_deadline is None
                                                else request_deadline)))
        except (ServeError, OSError) as exc:
            raise click.ClickException(str(exc)) from exc

    @cli.command()
    @click.option("--seconds", type=float, default=60.0, show_default=True)
    @click.option("--seed", type=int, default=0, show_default=True)
    @click.option("--jobs", type=int, default=0, show_default=True, help="0 = one per core.")
    @config_opt
    @click.option("--findings", type=click.Path(dir_okay=False), default=None,
                  help="Write findings as JSONL here.")
    # The names of fuzz.dialects.DIALECTS, spelled out so that loading the CLI imports no fuzz
    # code (tests/test_fuzz_dialects.py checks that they agree).
    @click.option("--dialect", type=click.Choice(FUZZ_DIALECTS), default="bash", show_default=True,
                  help="The reading commands execute under: bash, zsh (the line runs in zsh), "
                       "dash (sh is dash), mawk or gawk (awk is that awk).")
    @click.option("--resume", is_flag=True,
                  help="Continue the campaign of --findings FILE: known causes are not reported "
                       "again, new command streams.")
    @click.option("--max-commands", type=int, default=None,
                  help="Stop each worker after this many generated commands (reproducible runs).")
    @ray_opt
    def fuzz(seconds: float, seed: int, jobs: int, config: str | None,
             findings: str | None, dialect: str, resume: bool, max_commands: int | None,
             ray_address: str | None) -> None:
        """Generate commands, run every auto-allowed one in a throwaway sandbox, report any
        side effect. Exit 1 when something was found."""
        from .fuzz.campaign import main as fuzz_main

        def go(runner: Any = None, engine: str = "") -> int:
            return fuzz_main(seconds=seconds, seed=seed, jobs=jobs, config=config,
                             findings_path=findings, dialect=dialect, resume=resume,
                             max_commands=max_commands, runner=runner, engine=engine)

        if ray_address is None:
            sys.exit(go())

        def on_ray() -> int:
            from .cluster.fuzz import make_runner

            return go(make_runner(ray_address), f" on Ray ({ray_address})")

        sys.exit(_on_ray(on_ray))

    @cli.command()
    @click.option("--file", "path", type=click.Path(dir_okay=False), default=None,
                  help="Audit log (default: $XDG_STATE_HOME/shellgate/audit.jsonl).")
    @click.option("-n", "--lines", type=int, default=20, show_default=True)
    @click.option("--decision", type=click.Choice(["allow", "ask", "deny"]), default=None)
    @click.option("--session", default=None, help="Only this session id.")
    @click.option("--grep", "pattern", default=None, help="Only commands containing this text.")
    @json_opt
    def audit(path: str | None, lines: int, decision: str | None, session: str | None,
              pattern: str | None, as_json: bool) -> None:
        """Show the last decisions and executions from the audit log."""
        from .auditcli import show_audit

        sys.exit(show_audit(path, lines=lines, decision=decision, session=session,
                            pattern=pattern, as_json=as_json))

    @cli.group()
    def approvals() -> None:
        """List, add or revoke stored approvals ("allow always" answers)."""

    @approvals.command("list")
    @click.option("--store", type=click.Path(dir_okay=False), default=None)
    @json_opt
    def approvals_list(store: str | None, as_json: bool) -> None:
        """Every stored approval, numbered."""
        from .auditcli import list_approvals

        sys.exit(list_approvals(store, as_json=as_json))

    @approvals.command("add")
    @click.argument("pattern")
    @click.option("--workspace", type=click.Path(file_okay=False), default=None,
                  help="Only in this workspace (default: every workspace).")
    @click.option("--store", type=click.Path(dir_okay=False), default=None)
    @json_opt
    def approvals_add(pattern: str, workspace: str | None, store: str | None,
                      as_json: bool) -> None:
        """Remember PATTERN as an "always" answer: 'Bash(npm test *)' or 'npm test *'."""
        from .auditcli import add_approval

        sys.exit(add_approval(store, "Bash", pattern, workspace, as_json))

    @approvals.command("revoke")
    @click.argument("which", nargs=-1, required=True)
    @click.option("--store", type=click.Path(dir_okay=False), default=None)
    @json_opt
    def approvals_revoke(which: tuple[str, ...], store: str | None, as_json: bool) -> None:
        """Remove approvals by number (from `approvals list`) or by label; `all` removes all."""
        from .auditcli import revoke_approvals

        sys.exit(revoke_approvals(store, which, as_json=as_json))

    @cli.command()
    @cwd_opt
    @config_opt
    @json_opt
    @click.option("--no-self-test", is_flag=True, help="Skip running the installed hooks.")
    @ray_opt
    def doctor(cwd: str | None, config: str | None, as_json: bool, no_self_test: bool,
               ray_address: str | None) -> None:
        """Report the sandbox tier, config files, hook installation, and a self-test
        (with --ray: what each node of the Ray cluster lacks for check and fuzz)."""
        if ray_address is not None:
            def nodes() -> int:
                from .cluster.nodes import main as nodes_main

                text, code = nodes_main(ray_address, as_json=as_json)
                click.echo(text)
                return code

            sys.exit(_on_ray(nodes))
        from .integrations.doctor import main as doctor_main

        text, code = doctor_main(cwd, config=config, as_json=as_json,
                                 self_tests=not no_self_test)
        click.echo(text)
        sys.exit(code)

    @cli.command()
    @click.argument("agent", type=click.Choice(HOOK_AGENTS))
    @click.option("--scope", type=click.Choice(["user", "project", "local"]), default="user",
                  show_default=True)
    @click.option("--dry-run", is_flag=True, help="Show the diff, change nothing.")
    @click.option("--mode", type=click.Choice(MODES), default=None,
                  help="Pin the hook's mode (default: map the agent's own permission mode).")
    @click.option("--serve", "use_serve", is_flag=True,
                  help="Answer through `shellgate serve` by its verifying client (in-process "
                       "fallback when no proven server answers).")
    @click.option("--listen", default=None, metavar="127.0.0.1:PORT|unix:PATH",
                  help="The server's address for --serve (default: 127.0.0.1:8477).")
    @json_opt
    def init(agent: str, scope: str, dry_run: bool, mode: str | None, use_serve: bool,
             listen: str | None, as_json: bool) -> None:
        """Install the shellgate hook into AGENT's settings (idempotent; shows the diff)."""
        import json

        from .integrations.install import InstallError, render
        from .integrations.install import init as do_init
        from .integrations.serve import DEFAULT_LISTEN, ServeError

        serve_at = (listen or DEFAULT_LISTEN) if use_serve or listen else None
        try:
            plan = do_init(agent, scope, dry_run=dry_run, mode=mode, serve=serve_at)
        except (InstallError, ServeError) as exc:
            raise click.ClickException(str(exc)) from exc
        if as_json:
            click.echo(json.dumps({"path": str(plan.path), "changed": plan.changed,
                                   "diff": plan.diff, "notes": list(plan.notes),
                                   "dry_run": dry_run}))
        else:
            click.echo(render(plan, dry_run))

    cli.main(args=args, prog_name="shellgate", standalone_mode=True)


if __name__ == "__main__":
    main()
