"""jq: a JSON filter language with no way to run programs or write files.

Every jq flag is read-only (``--rawfile``/``--slurpfile``/``-f`` read files, which the
sensitive-path scanner sees as operands). jq matches long options exactly (no abbreviations)
and bundles short ones (``-rc``).
"""

from __future__ import annotations

from .spec import Command, Flag, Takes

V = Takes.VALUE
P = Takes.PATH

JQ = Command("jq", abbrev=False, wild=True, pattern_from=("-f", "--from-file"), safe=[
    Flag("-c", "--compact-output"), Flag("-r", "--raw-output"), Flag("--raw-output0"),
    Flag("-j", "--join-output"), Flag("-a", "--ascii-output"), Flag("-n", "--null-input"),
    Flag("-e", "--exit-status"), Flag("-s", "--slurp"), Flag("-S", "--sort-keys"),
    Flag("-C", "--color-output"), Flag("-M", "--monochrome-output"), Flag("--tab"),
    Flag("--indent", takes=V), Flag("--unbuffered"), Flag("--stream"), Flag("--stream-errors"),
    Flag("--seq"), Flag("-R", "--raw-input"), Flag("-b", "--binary"),
    Flag("-f", "--from-file", takes=P), Flag("-L", takes=P), Flag("--arg", takes=V, nargs=2),
    Flag("--argjson", takes=V, nargs=2), Flag("--slurpfile", takes=P, nargs=2),
    Flag("--rawfile", takes=P, nargs=2), Flag("--args"), Flag("--jsonargs"),
    Flag("-h", "--help"), Flag("-V", "--version"), Flag("--build-configuration"),
])

COMMANDS = (JQ,)
