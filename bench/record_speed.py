"""``shellgate._record.record`` vs ``dataclasses.dataclass``: class creation and per-instance cost.

    python bench/record_speed.py [--repeat 7]

Prints the best of ``--repeat`` timings (microseconds) for each operation, both ways, and the
ratio. Class creation is what the hook pays at import (once per record class; shellgate's shapes
are shipped precompiled in ``_record_shapes.py``, a new shape is compiled once per process); the
instance operations are what ``Gate.check`` pays per command.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import timeit
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from shellgate import _record  # noqa: E402

BODY = '''
class C:
    name: str
    span: tuple
    kind: int = 0
    via: tuple = ()
    words: tuple = ()
    text: str = ""
    extra: dict = FIELD(default_factory=dict, compare=False, repr=False)
    ok: bool = True
'''


def make(how: str, frozen: bool) -> type:
    if how == "dataclass":
        deco = dataclasses.dataclass(frozen=frozen, slots=True)
        field = dataclasses.field
    else:
        deco = _record.record(frozen=frozen)
        field = _record.field
    ns: dict = {"FIELD": field}
    exec(BODY, ns)  # the class body once; only the decorator is timed
    return deco(ns["C"])


def fresh(how: str, frozen: bool) -> type:
    ns: dict = {"FIELD": dataclasses.field if how == "dataclass" else _record.field}
    exec(BODY, ns)
    return ns["C"]


def best(stmt, number: int, repeat: int) -> float:
    return min(timeit.repeat(stmt, number=number, repeat=repeat)) / number * 1e6


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    r = args.repeat
    print(f"python {sys.version.split()[0]}; best of {r}; microseconds per operation")
    print(f"{'':34} {'dataclass':>10} {'record':>10} {'ratio':>7}")
    for frozen in (True, False):
        label = "frozen+slots" if frozen else "mutable+slots"
        rows = []
        deco = {"dataclass": dataclasses.dataclass(frozen=frozen, slots=True),
                "record": _record.record(frozen=frozen)}
        # class creation: a fresh undecorated class each time (created outside the timing)
        for how in ("dataclass", "record", "record, shape compiled"):
            classes = [fresh(how.split(",")[0], frozen) for _ in range(200)]
            it = iter(classes)
            if how.endswith("compiled"):  # a shape neither shipped nor seen: compile it
                def create(d=deco["record"], it=it) -> None:
                    _record._CODE.clear()
                    d(next(it))
                shipped, _record._shipped = _record._shipped, types.SimpleNamespace()
                rows.append(best(create, 20, min(r, 10)))
                _record._shipped = shipped
            else:
                rows.append(best(lambda d=deco[how], it=it: d(next(it)), 20, min(r, 10)))
        print(f"{'class creation (' + label + ')':34} {rows[0]:10.1f} {rows[1]:10.1f} "
              f"{rows[0] / rows[1]:6.1f}x")
        print(f"{'  … when its shape is compiled':34} {rows[0]:10.1f} {rows[2]:10.1f} "
              f"{rows[0] / rows[2]:6.1f}x")
        cd, cr = make("dataclass", frozen), make("record", frozen)
        def ops_for(c: type, is_dc: bool, frozen: bool = frozen) -> dict:
            one, two = c("a", (0, 1)), c("a", (0, 1))
            ops = {
                "instance C('a', (0, 1), 2)": lambda: c("a", (0, 1), 2),
                "instance, all keywords": lambda: c(name="a", span=(0, 1), kind=2, via=(),
                                                    words=(), text="t", ok=False),
                "attribute read": lambda: one.text,
                "== (equal)": lambda: one == two,
                "replace(one field)": (lambda: dataclasses.replace(one, kind=3))
                if is_dc else (lambda: _record.replace(one, kind=3)),
                "repr": lambda: repr(one),
            }
            if frozen:
                ops["hash"] = lambda: hash(one)
            return ops

        od, orr = ops_for(cd, True), ops_for(cr, False)
        for name in od:
            n = 20000 if name.startswith(("replace", "repr")) else 100000
            td, tr = best(od[name], n, r), best(orr[name], n, r)
            print(f"{'  ' + name:34} {td:10.3f} {tr:10.3f} {td / tr:6.2f}x")


if __name__ == "__main__":
    main()
