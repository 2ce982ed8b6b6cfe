"""The tool pipeline Validator -> Preview -> Gate -> Execute: a denied call returns its reason
to the model as an error result; no gate means allow everything; nothing raises."""

from __future__ import annotations

from shellgate.gate import CallContext, GateDecision, GateRequest, ToolCall, ToolResult, run_tool


class Tool:
    name = "t"

    def __init__(self, problem=None, preview="diff", fail=None):
        self.problem, self._preview, self.fail = problem, preview, fail
        self.steps: list[str] = []

    def validate(self, args):
        self.steps.append("validate")
        return self.problem

    def preview(self, args):
        self.steps.append("preview")
        return self._preview

    def execute(self, args, ctx):
        self.steps.append("execute")
        if self.fail:
            raise self.fail
        return {"ok": True, "cwd": getattr(ctx, "cwd", None)}


CALL = ToolCall("toolu_1", "t", {"a": 1})


def test_no_gate_allows_everything():
    tool = Tool()
    res = run_tool(tool, CALL, None, CallContext(cwd="/w"))
    assert res == ToolResult("toolu_1", {"ok": True, "cwd": "/w"}, False, "execute")
    assert tool.steps == ["validate", "preview", "execute"]


def test_gate_sees_call_tool_and_preview_in_order():
    seen = []

    def gate(ctx, req: GateRequest) -> GateDecision:
        seen.append((ctx, req))
        return GateDecision(True)

    tool = Tool()
    run_tool(tool, CALL, gate, "ctx")
    ((ctx, req),) = seen
    assert ctx == "ctx" and req.call is CALL and req.tool is tool and req.preview == "diff"


def test_denied_call_returns_reason_as_error_result_and_does_not_execute():
    tool = Tool()
    res = run_tool(tool, CALL, lambda ctx, req: GateDecision(False, "plan mode is read-only"))
    assert res.is_error and res.content == "plan mode is read-only" and res.stage == "gate"
    assert "execute" not in tool.steps


def test_validator_runs_first_and_stops_the_pipeline():
    tool = Tool(problem="missing file_path")
    called = []
    res = run_tool(tool, CALL, lambda c, r: called.append(1) or GateDecision(True))
    assert res.is_error and res.stage == "validate" and "missing file_path" in res.content
    assert tool.steps == ["validate"] and not called


def test_broken_gate_fails_closed():
    def gate(ctx, req):
        raise RuntimeError("engine down")

    tool = Tool()
    res = run_tool(tool, CALL, gate)
    assert res.is_error and res.stage == "gate" and "engine down" in res.content
    assert "execute" not in tool.steps
    assert run_tool(Tool(), CALL, lambda c, r: None).is_error


def test_execute_errors_are_results():
    res = run_tool(Tool(fail=ValueError("bad")), CALL)
    assert res.is_error and res.stage == "execute" and "bad" in res.content


def test_tools_without_validate_or_preview():
    class Bare:
        name = "bare"

        def execute(self, args, ctx):
            return "done"

    res = run_tool(Bare(), CALL, lambda c, r: GateDecision(r.preview is None))
    assert res.content == "done" and not res.is_error
