"""The house's architecture, checked from the source (#18): no import circle anywhere in
``shellgate/``, and dependencies point one way — bash core <- permission kernel <- approval
harness <- tools / integrations / CLI; the sandbox sits on the bash core alone.

The graph is read with ``ast`` from every module: imports at module level make the circles
(an import inside a function runs later, when every module is complete); every import, lazy
ones included, counts for the layers. An edge from a module to one of its own packages is not
a circle: Python runs a package's ``__init__`` before any module in it.

Inside the bash core the rooms (``shellgate/bash/*/`` and the few modules beside them) are in
one order, :data:`BASH_ROOMS`: a module imports at module level only from its own room or an
earlier one, so the rooms form no circle either; an import inside a function may reach a later
room only where :data:`LAZY_UP` says why.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "shellgate"

# Shared by every layer: records, lazy regexes, the visible-text escaper, JSONC, the plain-file
# opener, limits.
SHARED = {"_record", "_record_shapes", "_lazyre", "_visible", "_jsonc", "_xdg", "_plain", "limits",
          "(root)"}

# What each part of the package may import besides itself and SHARED.
ALLOWED: dict[str, set[str]] = {
    "bash": set(),
    "permission": {"bash"},
    "config": {"permission"},
    "sandbox": {"bash"},
    "approval": {"bash", "permission", "config"},
    "check": {"bash", "permission", "approval"},
    "gate": {"approval"},
    "tools": {"bash", "approval", "sandbox", "config"},
    "render": {"bash", "check"},
    "auditcli": {"bash", "permission", "approval"},
    "checkcli": {"check", "render", "approval"},
    "fuzz": {"bash", "permission", "sandbox", "check"},
    "integrations": {"bash", "permission", "approval", "sandbox", "tools", "check", "config"},
    "cluster": {"check", "checkcli", "fuzz", "sandbox", "integrations"},
    "cli": {"auditcli", "checkcli", "fuzz", "integrations", "render", "tools", "cluster"},
    "__main__": {"cli"},
    "_record": set(),
    "_record_shapes": set(),
    "_lazyre": set(),
    "_visible": set(),
    "_jsonc": set(),
    "_xdg": set(),
    "_plain": set(),
    "limits": set(),
    "(root)": {"check", "tools"},
}


# The bash core's rooms, each importing only from the ones before it (see the package docstring
# of ``shellgate.bash``): the records first, the entry last.
BASH_ROOMS = ("ir", "facts", "git", "commands", "parse", "paths", "readonly", "warnings", "never",
              "analysis")

# Imports inside a function that reach a later room, and why they may.
LAZY_UP = {
    # A command's table resolves an operand to the paths it may name (``spec.Call.paths``,
    # ``targets.resolve``) with the path scanner's own normalisation, only while checking.
    ("commands", "paths"),
}


def _modules() -> dict[str, Path]:
    out = {}
    for p in ROOT.rglob("*.py"):
        parts = ("shellgate", *p.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = p
    return out


MODULES = _modules()


def _targets(module: str, node: ast.Import | ast.ImportFrom) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (a.name for a in node.names if a.name.split(".")[0] == "shellgate")
        return
    if node.module == "__future__":
        return
    if node.level:
        base = module.split(".")
        if MODULES[module].name != "__init__.py":
            base = base[:-1]
        base = base[:len(base) - (node.level - 1)]
        name = ".".join(base + ([node.module] if node.module else []))
    else:
        name = node.module or ""
    if name.split(".")[0] != "shellgate":
        return
    subs = [f"{name}.{a.name}" for a in node.names if f"{name}.{a.name}" in MODULES]
    if not subs or len(subs) < len(node.names):
        yield name
    yield from subs


def _imports(module: str, *, top_level_only: bool) -> set[str]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    found: set[str] = set()
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if top_level_only and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.update(t for t in _targets(module, node) if t in MODULES)
        todo.extend(ast.iter_child_nodes(node))
    return found - {module}


def _part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "(root)"


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def _ancestors(module: str) -> set[str]:
    parts = module.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts))}


def test_no_import_circles():
    graph = {m: {t for t in _imports(m, top_level_only=True) if t not in _ancestors(m)}
             for m in MODULES}
    assert _circles(graph) == []


def test_the_circle_finder_finds_circles():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_dependencies_point_one_way():
    wrong = []
    for m in MODULES:
        part = _part(m)
        assert part in ALLOWED, f"{part} is a new part of the package: add it to ALLOWED"
        for t in _imports(m, top_level_only=False):
            tp = _part(t)
            if tp != part and tp not in SHARED and tp not in ALLOWED[part]:
                wrong.append(f"{m} imports {t}")
    assert wrong == []


def test_the_bash_core_knows_nothing_of_modes():
    for m in MODULES:
        if _part(m) == "bash":
            assert not {_part(t) for t in _imports(m, top_level_only=False)} - {"bash"} - SHARED, m


def _room(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "bash" else None


def test_every_bash_module_is_in_a_room():
    loose = sorted(m for m in MODULES if _room(m) is not None and _room(m) not in BASH_ROOMS)
    assert loose == [], "a new room or a loose module in shellgate/bash: add it to BASH_ROOMS"


def _room_order_errors(edges: dict[str, tuple[set[str], set[str]]]) -> list[str]:
    """``edges``: module -> (its module-level imports, all its imports)."""
    rank = {r: i for i, r in enumerate(BASH_ROOMS)}
    wrong = []
    for m, (top, every) in edges.items():
        room = _room(m)
        if room is None:
            continue
        for t in sorted(every):
            troom = _room(t)
            if troom is None or rank[troom] <= rank[room]:
                continue
            if t in top or (room, troom) not in LAZY_UP:
                wrong.append(f"{m} ({room}) imports {t} ({troom}){'' if t in top else ' lazily'}")
    return wrong


def test_the_bash_rooms_import_in_one_order():
    edges = {m: (_imports(m, top_level_only=True), _imports(m, top_level_only=False))
             for m in MODULES if _room(m) is not None}
    assert _room_order_errors(edges) == []


def test_the_room_order_check_sees_a_wrong_edge():
    walk, spec = "shellgate.bash.parse.walk", "shellgate.bash.commands.spec"
    paths, ir = "shellgate.bash.paths.resolve", "shellgate.bash.ir"
    assert _room_order_errors({walk: ({spec, ir}, {spec, ir})}) == []
    assert _room_order_errors({spec: ({walk}, {walk})}) == [
        f"{spec} (commands) imports {walk} (parse)"]
    assert _room_order_errors({spec: (set(), {paths})}) == []          # allowed in LAZY_UP
    assert _room_order_errors({spec: ({paths}, {paths})}) != []        # but not at module level
    assert _room_order_errors({ir: (set(), {walk})}) == [f"{ir} (ir) imports {walk} (parse) lazily"]
