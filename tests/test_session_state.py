"""A persistent session's state: how a later command is judged with it
(``corpus/session_state.jsonl``, through ``State.inherited`` as ``BashTool`` tells the gate), and
the dump it comes from, read as the untrusted input it is — with real bash as the oracle of the
restore line."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import CORPUS
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.approval import Engine
from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context
from shellgate.permission import Request, RuleSet
from shellgate.tools.shell_state import MAX_STATE, SAVE, State, parse, read

LINES = [json.loads(x) for x in (CORPUS / "session_state.jsonl").read_text().splitlines()
         if x.strip() and not x.startswith("//")]
BASE = "/usr/local/bin:/usr/bin:/bin"


@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> Path:
    w = tmp_path_factory.mktemp("ss")
    (w / "a.txt").write_text("a\n")
    (w / "sub").mkdir()
    return w


def _state(line: dict, ws: Path) -> State:
    vars_ = [(n, v.replace("$BASE", BASE), x) for n, v, x in line.get("vars", []) if v is not None]
    if line.get("path"):
        vars_.append(("PATH", ":".join(str(ws / d) for d in line["path"]) + ":" + BASE, True))
    return State(variables=tuple(vars_),
                 unset=tuple(n for n, v, _ in line.get("vars", []) if v is None),
                 function_names=tuple(line.get("functions", ())),
                 functions="".join(f"{f} () {{ :; }}\n" for f in line.get("functions", ())),
                 aliases=tuple((a, "ls -l") for a in line.get("aliases", ())),
                 expand_aliases=bool(line.get("aliases")))


def test_the_table_is_there() -> None:
    assert len(LINES) >= 30
    assert {line["readonly"] for line in LINES} == {True, False}


@pytest.mark.parametrize("line", LINES, ids=[f"{i}:{x['cmd']}" for i, x in enumerate(LINES)])
def test_a_later_command_is_judged_with_the_session(line: dict, ws: Path, tmp_path: Path) -> None:
    for f in line.get("files", ()):
        (ws / f).parent.mkdir(parents=True, exist_ok=True)
        (ws / f).write_text("#!/bin/sh\n")
    try:
        i = line.get("command")
        fresh = analyse(line["cmd"], Context.here(cwd=ws, workspace=ws, home=tmp_path))
        assert fresh.readonly if i is None else i in fresh.checks.clean, fresh.reasons  # premise
        inherited = _state(line, ws).inherited(BASE, (str(ws),))
        got = analyse(line["cmd"], Context.here(cwd=ws, workspace=ws, home=tmp_path,
                                                inherited=inherited))
        judged = got.readonly if i is None else i in got.checks.clean
        assert judged is line["readonly"], (line, got.reasons)
        if not line["readonly"]:
            assert any(r.rule.startswith("readonly.session") for r in got.reasons), got.reasons
    finally:
        for f in line.get("files", ()):
            (ws / f).unlink()


def test_a_venv_path_in_front_is_told_as_directories(ws: Path) -> None:
    s = State(variables=(("PATH", f"{ws}/.venv/bin:{BASE}", True),))
    assert s.inherited(BASE, (str(ws),)).path_dirs == (f"{ws}/.venv/bin",)
    assert s.inherited(BASE, (str(ws),)).variables == ()
    # outside the anchored roots (the sandbox's /tmp is not the host's): a variable
    assert s.inherited(BASE, ()).variables == (("PATH", f"{ws}/.venv/bin:{BASE}"),)


# --- the dump, as untrusted input ----------------------------------------------------------------

def _dump(script: str, env: dict[str, str] | None = None) -> bytes:
    """What the real trap writes after ``script`` in a fresh bash."""
    r = subprocess.run(["bash", "--noprofile", "--norc", "-c",
                        f"{SAVE}; trap '__sg_save >| /dev/stdout' EXIT\n{script}"],
                       capture_output=True, env=env if env is not None else _ENV, timeout=30)
    return r.stdout


_ENV = {"PATH": BASE, "HOME": "/nonexistent", "LANG": "C"}


def test_what_the_trap_dumps_is_read_back() -> None:
    data = _dump("export FOO=bar; x='a b'; f() { echo \"$1\"; }; shopt -s expand_aliases; "
                 "alias ll='ls -l'; unset LANG; export PATH=/opt/x:$PATH; arr=(1 2)")
    s, notes = parse(data, _ENV)
    assert notes == ()
    vars_ = {n: (v, x) for n, v, x in s.variables}
    assert vars_["FOO"] == ("bar", True) and vars_["x"] == ("a b", False)
    assert vars_["PATH"] == (f"/opt/x:{BASE}", True)
    assert "arr" not in vars_ and "HOME" not in vars_ and "BASH_VERSION" not in vars_
    assert s.unset == ("LANG",) and s.function_names == ("f",)
    assert s.aliases == (("ll", "ls -l"),) and s.expand_aliases


def test_a_fresh_shell_dumps_nothing_to_carry() -> None:
    s, notes = parse(_dump(":"), _ENV)
    assert s.empty and notes == (), s


def test_secret_looking_variables_are_not_carried() -> None:
    s, notes = parse(_dump("export OPENAI_API_KEY=sk-1 GH_TOKEN=x; my_password=p; OK=1"), _ENV)
    assert [n for n, _, _ in s.variables] == ["OK"]
    assert notes and "OPENAI_API_KEY" in notes[0] and "my_password" in notes[0]


@pytest.mark.parametrize("data, why", [
    (b"v\0FOO\0x\0bar", "truncated"),
    (b"v\0bad name\0\0x\0", "not a variable name"),
    (b"v\0X\0x!\0y\0", "not a variable name"),
    (b"q\0X\0", "unknown record"),
    (b"a\0l'l\0ls\0", "not an alias name"),
    (b"v\0X\0", "malformed"),
    (b"\xff\xfe\0", "unknown record"),
])
def test_a_malformed_dump_is_a_fresh_session(data: bytes, why: str) -> None:
    s, notes = parse(data, _ENV)
    assert s.empty and len(notes) == 1 and "fresh session" in notes[0] and why in notes[0]


@pytest.mark.parametrize("text", [
    "f () { :; }; touch /tmp/pwned",     # a command at the top, after a definition
    "touch /tmp/pwned",
    "f () { :; } | touch /tmp/pwned",     # a pipeline stage beside it
    "f () { :",                           # does not parse
])
def test_function_text_that_is_not_only_definitions_is_dropped(text: str) -> None:
    s, notes = parse(b"v\0OK\0\0" + b"1\0F\0" + text.encode() + b"\0", _ENV)
    assert s.function_names == () and s.functions == "" and "touch" not in s.prelude()
    assert [n for n, _, _ in s.variables] == ["OK"]
    assert notes and "functions" in notes[0]


def test_the_file_is_refused_unless_one_plain_file(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_bytes(b"v\0SECRET_COPY\0x\0" + b"k" * 10 + b"\0")
    link = tmp_path / "link"
    link.symlink_to(secret)
    assert read(link, _ENV)[0] == State() and not link.exists()
    hard = tmp_path / "hard"
    os.link(secret, hard)
    s, notes = read(hard, _ENV)
    assert s.empty and "one plain file" in notes[0] and not hard.exists()
    big = tmp_path / "big"
    big.write_bytes(b"v\0A\0\0" + b"x" * MAX_STATE + b"\0")
    assert read(big, _ENV)[0].empty
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert read(fifo, _ENV)[0].empty  # never blocks
    assert read(tmp_path / "none", _ENV) == (None, ())


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400))
def test_parse_never_raises(data: bytes) -> None:
    s, notes = parse(data, _ENV)
    assert isinstance(s, State) and isinstance(notes, tuple)
    s.prelude()


_VALUE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"), max_size=40)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True), _VALUE, max_size=4),
       st.binary(max_size=12).filter(lambda b: b"\0" not in b))
def test_the_prelude_restores_what_was_dumped(values: dict[str, str], raw: bytes) -> None:
    """Real bash as the oracle: dump, parse, restore in a fresh bash, dump again: the same."""
    script = "; ".join(f"export {n}={_sq(v)}" for n, v in values.items())
    script += "; raw=$'" + "".join(f"\\x{b:02x}" for b in raw) + "'" if raw else ""
    first, notes = parse(_dump(script or ":"), _ENV)
    assert notes == ()
    again, _ = parse(_dump(first.prelude() or ":"), _ENV)
    assert again == first


def _sq(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"


def _allow_all(cmd: str) -> RuleSet:
    """Allow rules that cover each sub-command of ``cmd`` by its own text."""
    from shellgate.bash.parse.parser import parse

    return RuleSet.parse(allow=[f"Bash({' '.join(w.text for w in c.words)})"
                                for c in parse(cmd).commands if c.words])


@pytest.mark.parametrize("line", [x for x in LINES if not x["readonly"] and "command" not in x],
                         ids=lambda x: x["cmd"])
def test_no_allow_rule_covers_what_the_session_changes(line: dict, ws: Path, tmp_path: Path) -> None:
    """``Bash(ls)`` names the program ``ls``; after ``ls() { …; }`` (or an alias, a carried
    ``LD_PRELOAD``, a planted ``.venv/bin/ls``) the text runs something else, so neither a rule
    nor a remembered approval may cover it. Without the session the same rules allow it."""
    for f in line.get("files", ()):
        (ws / f).parent.mkdir(parents=True, exist_ok=True)
        (ws / f).write_text("#!/bin/sh\n")
    try:
        e = Engine(ws, "strict", home=tmp_path, rules=_allow_all(line["cmd"]), ask_as_deny=True)
        assert e.decide_bash(line["cmd"]).allowed(), "premise: the rules allow it in a fresh shell"
        inherited = _state(line, ws).inherited(BASE, (str(ws),))
        d = e.decide_bash(line["cmd"], {"inherited": inherited})
        assert not d.allowed(), (d.kind, d.rule, d.reason)
        meta = e.classify(Request("t", "bash", {"command": line["cmd"]}, None),
                          {"inherited": inherited}).metadata
        assert meta.shadowed and not meta.persistable
    finally:
        for f in line.get("files", ()):
            (ws / f).unlink()
