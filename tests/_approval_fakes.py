"""A stand-in for the bash core's read-only classifier while it is being written: real parser,
real sensitive-path scanner and destructive warnings, a tiny read-only list. Used only when
``shellgate.bash.readonly`` is missing, so the same tests run against the real thing later."""

from __future__ import annotations

import importlib.util

from shellgate.bash.analysis import Analysis
from shellgate.bash.facts import Effect, Reason

REAL = importlib.util.find_spec("shellgate.bash.readonly") is not None
_READONLY = {"ls", "cat", "grep", "echo", "head", "wc", "pwd"}
_NETWORK = {"curl", "wget"}


def fake_analyse(source, ctx):
    from shellgate.bash import destructive, paths
    from shellgate.bash.parser import parse

    script = parse(source)
    sensitive = paths.scan(script, ctx)
    ro = script.ok and bool(script.commands) and not sensitive and all(
        c.name in _READONLY and not c.redirects and not c.assignments for c in script.commands)
    if ro:
        effect = Effect.READ
    elif script.ok and any(c.name in _NETWORK for c in script.commands):
        effect = Effect.NETWORK
    else:
        effect = Effect.EXEC
    reasons = () if ro else (Reason("not on the read-only list", None, "readonly.unknown"),)
    return Analysis(script, ro, effect, reasons, destructive.warnings(script), sensitive)


def install(monkeypatch):
    if not REAL:
        import shellgate.bash.analysis as analysis

        monkeypatch.setattr(analysis, "analyse", fake_analyse)
