"""One entry point for the bash core: text in, every fact the permission layer needs out."""

from __future__ import annotations

from .._record import record
from .facts import Context, Effect, Reason, SensitiveHit
from .git import memo as git_memo
from .ir import Script
from .parse.parser import parse
from .paths import resolve as paths
from .readonly import classify as readonly
from .readonly.classify import CommandChecks
from .warnings import destructive


@record
class Analysis:
    script: Script
    readonly: bool
    effect: Effect
    reasons: tuple[Reason, ...]       # why not read-only (empty when read-only)
    warnings: tuple[Reason, ...]      # destructive-command noun phrases; never change a decision
    sensitive: tuple[SensitiveHit, ...]
    checks: CommandChecks | None = None  # readonly's per-command results, for the harness


def analyse(source: str, ctx: Context) -> Analysis:
    """Parse and analyse ``source``. Never raises: any failure yields a not-read-only EXEC."""
    script = parse(source)
    try:
        with git_memo.scope():   # the disk does not change while one command is analysed
            sensitive = paths.scan(script, ctx)
            ro = readonly.classify(script, ctx, sensitive)
        warnings = destructive.warnings(script)
    except Exception as exc:  # a bug in an analysis must fail closed, not crash the hook
        return Analysis(script, False, Effect.EXEC,
                        (Reason(f"internal error in analysis: {type(exc).__name__}: {exc}", None,
                                "internal.error"),), (), ())
    if ro.more_sensitive:
        seen = {(h.span, h.cls, h.path) for h in sensitive}
        sensitive += tuple(h for h in ro.more_sensitive if (h.span, h.cls, h.path) not in seen)
    return Analysis(script, ro.readonly, ro.effect, ro.reasons, warnings, sensitive, ro.checks)
