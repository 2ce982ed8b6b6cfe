"""The harness reuses the read-only check's per-command results (``Analysis.checks``) instead of
checking every command again: what it derives from them — the read-only sub-commands and the
written paths — must equal what it derives by checking again, on every line of our tables."""

from __future__ import annotations

import json

import pytest
from conftest import CORPUS

from shellgate._record import replace
from shellgate.approval.classifier import readonly_commands, write_paths
from shellgate.bash.analysis import analyse
from shellgate.bash.commands.spec import Call
from shellgate.bash.facts import Context
from shellgate.bash.readonly import classify as readonly

TABLES = ("readonly.jsonl", "not_readonly.jsonl", "capability.jsonl", "write_paths.jsonl",
          "paths_bash.jsonl", "warn.jsonl", "parse_constructs.jsonl")
_EXTRA = ["ls | xargs timeout 5 sort", "find . | xargs nice cat", "cd /etc && cat passwd | wc -l",
          "cd sub; touch x; cat y > z", "echo a | sudo tee /etc/x | grep b", "pushd /tmp; ls; popd",
          "cat ~/.ssh/id_rsa | wc -c; ls", "git status && git diff | head",
          "touch ./-o; sort *", "touch ./-r; wc -l *"]


def commands() -> list[str]:
    out: list[str] = []
    for name in TABLES:
        path = CORPUS / name
        if not path.is_file():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.lstrip().startswith("//"):
                cmd = json.loads(line).get("cmd")
                if isinstance(cmd, str):
                    out.append(cmd)
    return out + _EXTRA


@pytest.fixture(scope="module")
def ctx(tmp_path_factory) -> Context:
    ws = tmp_path_factory.mktemp("ws")
    (ws / "sub").mkdir()
    return Context.here(cwd=ws, workspace=ws, home=tmp_path_factory.mktemp("home"))


def test_tables_are_there() -> None:
    assert len(commands()) > 300


def test_harness_view_equals_checking_again(ctx: Context) -> None:
    diffs = []
    for cmd in commands():
        a = analyse(cmd, ctx)
        again = replace(a, checks=None)  # what the harness computes without the recorded results
        if readonly_commands(a, ctx) != readonly_commands(again, ctx) \
                or write_paths(a, ctx) != write_paths(again, ctx):
            diffs.append(cmd)
    assert not diffs, diffs[:5]


def test_recorded_checks_are_the_per_command_checks(ctx: Context) -> None:
    seen = 0
    for cmd in commands():
        a = analyse(cmd, ctx)
        script = a.script
        if not script.ok:
            assert a.checks is None
            continue
        seen += 1
        cwds = readonly.candidate_cwds(script, ctx)
        assert a.checks.cwds == cwds, cmd
        clean = {i for i, found in enumerate(readonly.command_findings(script, ctx, cwds)) if not found}
        assert a.checks.clean == clean, cmd
        # knowing the line's writes only ever takes a command out (`touch ./-o; sort *`)
        alone = {i for i, c in enumerate(script.commands)
                 if not readonly.check_command(Call(c, i, script, ctx, cwds))}
        assert clean <= alone, cmd
    assert seen > 300
