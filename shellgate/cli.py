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

EXIT_OK, EXIT_FINDINGS, EXIT_USAGE, EXIT_ASK, EXIT_DENY = 0, 1, 2, 3, 4
DECISION_EXIT = {"allow": EXIT_OK, "ask": EXIT_ASK, "deny": EXIT_DENY}
MODES = ("strict", "balanced", "accept-edits", "accept_edits", "auto", "trust")
HOOK_AGENTS = ("claude-code", "codex", "gemini")


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if len(args) >= 2 and args[0] == "hook" and args[1] in HOOK_AGENTS:
        from .integrations.hookio import cli_main

        sys.exit(cli_main(args[1], args[2:]))
    _click_main(args)


def _click_main(args: list[str]) -> None:
    import click

    from . import __version__

    mode_opt = click.option("--mode", type=click.Choice(MODES), default=None,
                            help="Permission mode (default: config, else balanced).")
    cwd_opt = click.option("--cwd", type=click.Path(file_okay=False), default=None,
                           help="Working directory the command runs in (default: here).")
    config_opt = click.option("--config", type=click.Path(dir_okay=False), default=None,
                              help="shellgate config TOML (default: XDG and .shellgate/ files).")
    json_opt = click.option("--json", "as_json", is_flag=True, help="Print JSON.")

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
    @click.option("--jobs", type=int, default=1, show_default=True,
                  help="Worker processes for --jsonl (0 = all cores).")
    def check(command: str | None, mode: str | None, cwd: str | None, config: str | None,
              as_json: bool, plan: bool, jsonl: Any, jobs: int) -> None:
        """Decide one COMMAND (or a batch with --jsonl) without running it.

        Exit code: 0 allow, 3 ask, 4 deny (batch: 0)."""
        from .checkcli import run_batch, run_one

        if (command is None) == (jsonl is None):
            raise click.UsageError("give either COMMAND or --jsonl FILE|-")
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
    def explain(command: str, mode: str | None, cwd: str | None, config: str | None,
                as_json: bool, plan: bool) -> None:
        """Show every command bash would run and every reason, with its span underlined."""
        from .checkcli import make_gate, verdict_json
        from .render import print_explain

        verdict = make_gate(mode, cwd, config, plan).check(command, cwd=cwd)
        if as_json:
            click.echo(verdict_json(verdict))
        else:
            print_explain(verdict)
        sys.exit(DECISION_EXIT.get(verdict.decision, EXIT_DENY))

    cli.main(args=args, prog_name="shellgate", standalone_mode=True)


if __name__ == "__main__":
    main()
