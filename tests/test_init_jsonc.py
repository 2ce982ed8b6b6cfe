"""``shellgate init`` on settings files with comments and trailing commas (JSONC).

Gemini CLI and Claude Code read such files; init used to stop with exit 1 on them. Now it
reads them (``shellgate._jsonc``), keeps every setting, backs the original up before writing
and says that the comments are not kept (corpus/init_jsonc.jsonl). Run through the installed
``shellgate`` console script with a private HOME, as a user would.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from shellgate import _jsonc
from tests.conftest import load

CASES = load("init_jsonc.jsonl")
EXE = shutil.which("shellgate")
SETTINGS = {"claude-code": (".claude", "settings.json"), "gemini": (".gemini", "settings.json")}


def init(home, agent: str, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("SHELLGATE_CONFIG",)}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"),
               XDG_STATE_HOME=str(home / ".state"), PATH=os.environ["PATH"])
    return subprocess.run([EXE, "init", agent, *args], capture_output=True, text=True, env=env,
                          cwd=str(home), timeout=120)


def ours(group: dict) -> bool:
    return any("hook" in h.get("command", "") and "shellgate" in h.get("command", "")
               for h in group.get("hooks", []))


@pytest.mark.skipif(EXE is None, reason="the shellgate console script is not installed")
@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c['agent']}:{c['note'][:40]}")
def test_init_keeps_every_setting(tmp_path, case):
    path = tmp_path.joinpath(*SETTINGS[case["agent"]])
    path.parent.mkdir(parents=True)
    path.write_text(case["text"])
    original, jsonc = _jsonc.loads(case["text"])
    assert jsonc == case["jsonc"]

    dry = init(tmp_path, case["agent"], "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert path.read_text() == case["text"]                 # a dry run writes nothing
    assert ("NOT the comments" in dry.stdout) == case["jsonc"], dry.stdout

    proc = init(tmp_path, case["agent"])
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert ("NOT the comments" in proc.stdout) == case["jsonc"], proc.stdout
    after = json.loads(path.read_text())                    # plain JSON now
    assert path.with_name(path.name + ".shellgate.bak").read_text() == case["text"]
    for key, value in original.items():                     # every setting kept …
        if key != "hooks":
            assert after[key] == value, key
    for event, groups in original.get("hooks", {}).items():  # … the user's own hooks too
        assert [g for g in after["hooks"][event] if not ours(g)] == groups
    event = "PreToolUse" if case["agent"] == "claude-code" else "BeforeTool"
    assert sum(ours(g) for g in after["hooks"][event]) == 1

    again = init(tmp_path, case["agent"])                   # idempotent
    assert again.returncode == 0 and json.loads(path.read_text()) == after


@pytest.mark.skipif(EXE is None, reason="the shellgate console script is not installed")
def test_installed_jsonc_is_left_alone(tmp_path):
    """A JSONC file that already has the hook exactly so keeps its bytes, comments and all."""
    path = tmp_path / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"ui": {}}\n')
    assert init(tmp_path, "gemini").returncode == 0
    data = json.loads(path.read_text())
    text = "// mine\n" + json.dumps(data, indent=2)[:-1] + ",\n}\n"
    path.write_text(text)
    proc = init(tmp_path, "gemini")
    assert proc.returncode == 0, proc.stderr
    assert path.read_text() == text and "NOT the comments" not in proc.stdout


@pytest.mark.skipif(EXE is None, reason="the shellgate console script is not installed")
def test_not_even_jsonc_is_refused_in_words(tmp_path):
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"model": "opus" /* never closed\n')
    proc = init(tmp_path, "claude-code")
    assert proc.returncode == 1 and "never ends" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert path.read_text() == '{"model": "opus" /* never closed\n'


@pytest.mark.parametrize("text,want", [
    ('{"a": "//x", "b": "/*y*/"}', {"a": "//x", "b": "/*y*/"}),      # inside strings: text
    ('{"a": "\\\\", // c\n "b": [1, 2,],}', {"a": "\\", "b": [1, 2]}),  # an escaped backslash
    ('{"a": "\\"//"}', {"a": '"//'}),                                  # an escaped quote
    ('[1, /* , */ 2 , // x\n ]', [1, 2]),                              # comma before a comment
    ('{"a": ",]"}', {"a": ",]"}),
])
def test_strip_reads_only_outside_strings(text, want):
    assert _jsonc.loads(text)[0] == want
    assert len(_jsonc.strip(text)) == len(text)                         # positions kept


@pytest.mark.parametrize("text", ['[1,,]', '{"a": 1,, }', '[,]', '{"a" 1}'])
def test_what_json_refuses_stays_refused(text):
    """Only a comma before a closing bracket goes: ``[1,,]`` and ``[,]`` are still errors."""
    with pytest.raises(ValueError):
        _jsonc.loads(text)
