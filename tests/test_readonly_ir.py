"""classify() on hand-built IR: the rules that do not depend on how the parser spells things."""

from __future__ import annotations

from pathlib import Path

from shellgate.bash.facts import Context, Effect, PathClass, PathOp, SensitiveHit
from shellgate.bash.ir import (
    Assignment,
    Command,
    CommandKind,
    ParseFailure,
    Redirect,
    Script,
    Via,
    Word,
)
from shellgate.bash.readonly.classify import classify

CTX = Context(cwd=Path("/nonexistent/ws"), workspace=Path("/nonexistent/ws"), home=Path("/nonexistent/h"))


def w(text: str, start: int = 0, **kw) -> Word:
    return Word(text=text, raw=kw.pop("raw", text), span=(start, start + len(text)), **kw)


def cmd(*words: str, **kw) -> Command:
    ws, pos = [], 0
    for t in words:
        ws.append(w(t, pos))
        pos += len(t) + 1
    return Command(words=tuple(ws), span=(0, pos), **kw)


def run(*cmds: Command, source: str = "x", **kw):
    return classify(Script(source=source, commands=cmds, **kw), CTX, ())


def test_empty_script_is_readonly() -> None:
    r = run()
    assert r.readonly and r.effect is Effect.READ and r.reasons == ()


def test_parse_error_is_exec_with_the_parser_reason() -> None:
    r = run(cmd("ls"), error=ParseFailure("unterminated quote", (3, 4)))
    assert not r.readonly and r.effect is Effect.EXEC
    assert r.reasons[0].rule == "readonly.parse" and r.reasons[0].span == (3, 4)


def test_plain_read() -> None:
    assert run(cmd("ls", "-la")).readonly


def test_funcdef_and_function_call() -> None:
    r = run(cmd("f", kind=CommandKind.FUNCDEF), cmd("f"), functions=("f",))
    assert {x.rule for x in r.reasons} == {"readonly.funcdef", "readonly.function_call"}


def test_dynamic_and_path_names() -> None:
    dyn = Command(words=(w("$x", static=False),), span=(0, 2))
    assert run(dyn).reasons[0].rule == "readonly.dynamic_name"
    assert run(cmd("./cat", "f")).reasons[0].rule == "readonly.path_command"


def test_prefix_and_bare_assignment() -> None:
    a = Assignment(name="PAGER", value=w("x"), span=(0, 7))
    r = run(Command(words=(w("git", 8), w("log", 12)), span=(0, 15), assignments=(a,)))
    assert not r.readonly and r.reasons[0].rule == "readonly.assignment" and r.reasons[0].span == (0, 7)
    assert not run(Command(words=(), span=(0, 7), assignments=(a,))).readonly


def test_unknown_command_and_refusal_message() -> None:
    assert "unknown command 'frob'" in run(cmd("frob")).reasons[0].message
    assert "runs code" in run(cmd("pytest")).reasons[0].message


def test_redirect_rules() -> None:
    null = Redirect(op=">", target=w("/dev/null"), span=(3, 13), fd=2)
    dup = Redirect(op=">&", target=w("1"), span=(3, 7), fd=2)
    out = Redirect(op=">", target=w("/tmp/x"), span=(3, 10))
    assert run(Command(words=(w("ls"),), span=(0, 13), redirects=(null, dup))).readonly
    r = run(Command(words=(w("ls"),), span=(0, 10), redirects=(out,)))
    assert not r.readonly and r.effect is Effect.EXEC and r.reasons[0].span == (3, 10)


def test_coproc_and_arith() -> None:
    assert not run(cmd("cat", via=(Via.COPROC,))).readonly
    arith = Command(words=(w("x = 1"),), span=(0, 9), kind=CommandKind.ARITH)
    assert not run(arith).readonly
    assert run(Command(words=(w("1 + 2"),), span=(0, 9), kind=CommandKind.ARITH)).readonly


def test_sensitive_hits_make_it_exec() -> None:
    hit = SensitiveHit("/h/.ssh/id_rsa", PathClass.LEAK, PathOp.READ, (4, 18), "~/.ssh/**")
    r = classify(Script(source="x", commands=(cmd("cat", "~/.ssh/id_rsa"),)), CTX, (hit,))
    assert not r.readonly and r.effect is Effect.EXEC
    assert any(x.rule == "readonly.sensitive" and x.span == (4, 18) for x in r.reasons)


def test_wrapper_without_a_walker_child_is_refused() -> None:
    # the walker did not emit the inner command: never assume it is fine
    r = run(cmd("timeout", "5", "ls"))
    assert not r.readonly and r.reasons[0].rule == "readonly.wrapper"
    inner = Command(words=(w("ls", 10),), span=(10, 12), via=(Via.WRAPPER,), parent=0)
    outer = Command(words=(w("timeout"), w("5", 8), w("ls", 10)), span=(0, 12))
    assert run(outer, inner).readonly


def test_internal_errors_fail_closed() -> None:
    r = classify(None, CTX, ())  # type: ignore[arg-type]
    assert not r.readonly and r.effect is Effect.EXEC and r.reasons[0].rule == "readonly.internal"
