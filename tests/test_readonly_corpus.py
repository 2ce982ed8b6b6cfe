"""The labeled corpus: must-be-read-only, must-never-be-read-only (with the bypass class), and
the effect each command must get. Adding a case is adding a line to corpus/*.jsonl."""

from __future__ import annotations

import subprocess

import pytest
from conftest import load

from shellgate.bash.analysis import analyse
from shellgate.bash.facts import Context

READONLY = load("readonly.jsonl")
NOT_READONLY = load("not_readonly.jsonl")
CAPABILITY = load("capability.jsonl")


@pytest.fixture(scope="module")
def ctx(tmp_path_factory: pytest.TempPathFactory) -> Context:
    """A clean git repository as cwd and workspace (with src/ and sub/), and an empty HOME."""
    base = tmp_path_factory.mktemp("ro")
    ws, home = base / "ws", base / "home"
    ws.mkdir()
    home.mkdir()
    (ws / "src").mkdir()
    (ws / "sub").mkdir()
    subprocess.run(["git", "init", "-q", str(ws)], check=True,
                   env={"PATH": "/usr/bin:/bin", "HOME": str(home)})
    return Context(cwd=ws, workspace=ws, home=home)


def _ids(case: dict) -> str:
    return case["cmd"][:50]


@pytest.mark.parametrize("case", READONLY, ids=_ids)
def test_readonly(case: dict, ctx: Context) -> None:
    a = analyse(case["cmd"], ctx)
    assert a.readonly, [r.message for r in a.reasons]
    assert a.effect.value == "read"
    assert a.reasons == ()


@pytest.mark.parametrize("case", NOT_READONLY, ids=_ids)
def test_never_readonly(case: dict, ctx: Context) -> None:
    a = analyse(case["cmd"], ctx)
    assert not a.readonly, f"[{case['class']}] classified read-only"
    assert a.reasons, "a refusal must say why"
    assert a.effect.value != "read"
    for r in a.reasons:
        assert r.message and r.rule


@pytest.mark.parametrize("case", CAPABILITY, ids=_ids)
def test_effect(case: dict, ctx: Context) -> None:
    a = analyse(case["cmd"], ctx)
    assert a.effect.value == case["effect"], [r.message for r in a.reasons]
    assert a.readonly == (case["effect"] == "read")


def test_corpus_sizes_and_classes() -> None:
    assert len(READONLY) >= 120
    assert len(NOT_READONLY) >= 150
    classes = {c["class"] for c in NOT_READONLY}
    for needed in ("abbreviation", "embedded-language", "find-action", "wrapper", "privilege",
                   "prefix-assignment", "expansion", "arithmetic", "path-argv0", "dynamic-name",
                   "obfuscation", "sensitive", "git-config", "redirect", "pager", "function",
                   "dynamic-path"):
        assert needed in classes


@pytest.mark.parametrize("case", READONLY[:60], ids=_ids)
def test_readonly_stays_readonly_with_stderr_silenced(case: dict, ctx: Context) -> None:
    """`2>/dev/null` and `| head` never change the verdict of a read-only command."""
    if "\n" in case["cmd"]:
        pytest.skip("multi-line command")
    a = analyse(f"{{ {case['cmd']}; }} 2>/dev/null | head -5", ctx)
    assert a.readonly, [r.message for r in a.reasons]


@pytest.mark.parametrize("case", READONLY[:60], ids=_ids)
def test_readonly_with_output_redirect_is_a_write(case: dict, ctx: Context) -> None:
    if "\n" in case["cmd"]:
        pytest.skip("multi-line command")
    a = analyse(f"{{ {case['cmd']}; }} > out.txt", ctx)
    assert not a.readonly
    assert a.effect.value in ("write", "exec")


def test_spans_point_into_the_source(ctx: Context) -> None:
    for case in NOT_READONLY:
        a = analyse(case["cmd"], ctx)
        for r in a.reasons:
            if r.span is not None:
                s, e = r.span
                assert 0 <= s <= e <= len(case["cmd"]), (case["cmd"], r)
