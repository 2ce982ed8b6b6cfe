"""Properties of composition: read-only commands joined by any list or pipe operator, grouped or
substituted, stay read-only; one not-read-only command anywhere makes the whole not read-only."""

from __future__ import annotations

import pytest
from conftest import load
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context


def _simple(cmd: str) -> bool:
    return "\n" not in cmd and "#" not in cmd and not cmd.rstrip().endswith(("&", "\\"))


RO = [c["cmd"] for c in load("readonly.jsonl") if _simple(c["cmd"]) and "cd " not in c["cmd"]]
NOT_RO = [c["cmd"] for c in load("not_readonly.jsonl")
          if _simple(c["cmd"]) and c["class"] not in ("parse", "obfuscation")]
OPS = st.sampled_from([" ; ", " && ", " || ", " | ", "\n"])


def _wrap(cmd: str, how: int) -> str:
    return [cmd, f"( {cmd} )", f"{{ {cmd}; }}", f"echo \"$( {cmd} )\"", f"if true; then {cmd}; fi"][how]


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> Context:
    base = tmp_path_factory.mktemp("prop")
    (base / "ws").mkdir()
    (base / "home").mkdir()
    return Context(cwd=base / "ws", workspace=base / "ws", home=base / "home")


def _join(parts: list[str], ops: list[str]) -> str:
    out = parts[0]
    for op, p in zip(ops, parts[1:], strict=False):
        out += op + p
    return out


@settings(deadline=None)
@given(st.lists(st.tuples(st.sampled_from(RO), st.integers(0, 4)), min_size=1, max_size=4),
       st.lists(OPS, min_size=3, max_size=3))
def test_readonly_compositions_stay_readonly(ctx: Context, parts, ops) -> None:
    cmd = _join([_wrap(c, h) for c, h in parts], ops)
    a = analyse(cmd, ctx)
    assert a.readonly, (cmd, [r.message for r in a.reasons])


@settings(deadline=None)
@given(st.lists(st.sampled_from(RO), min_size=0, max_size=3), st.sampled_from(NOT_RO),
       st.integers(0, 3), st.integers(0, 4), st.lists(OPS, min_size=4, max_size=4))
def test_one_bad_command_spoils_the_script(ctx: Context, good, bad, pos, how, ops) -> None:
    parts = list(good)
    parts.insert(min(pos, len(parts)), _wrap(bad, how))
    cmd = _join(parts, ops)
    a = analyse(cmd, ctx)
    assert not a.readonly, cmd


def test_pools_are_big_enough() -> None:
    assert len(RO) > 100 and len(NOT_RO) > 150
