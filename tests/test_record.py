"""``shellgate._record.record`` behaves as ``dataclasses.dataclass`` for every feature shellgate
uses: each class shape below is declared twice from the same body — once with dataclasses, once
with ``record`` — and both are driven with the same values."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import math
import pickle
import subprocess
import sys
import types
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shellgate import _record
from shellgate._record import FrozenInstanceError, asdict, field, fields, record, replace

ROOT = Path(__file__).resolve().parent.parent

# name: (class body, dataclass options, record options). The body sees ``field``.
SHAPES: dict[str, tuple[str, dict, dict]] = {
    "frozen": ("""
class Frozen:
    a: object
    b: object = 1
    c: object = ()
""", {"frozen": True, "slots": True}, {}),
    "one_field": ("""
class OneField:
    a: object
""", {"frozen": True, "slots": True}, {}),
    "no_fields": ("""
class NoFields:
    pass
""", {"frozen": True, "slots": True}, {}),
    "compare_repr": ("""
class CompareRepr:
    a: object
    hidden: object = field(default=None, compare=False, repr=False)
    b: object = field(default=2)
    loose: object = field(default=0, compare=False)
""", {"frozen": True, "slots": True}, {}),
    "mutable_slots": ("""
class MutableSlots:
    a: object
    items: list = field(default_factory=list)
    b: object = None
    table: dict = field(default_factory=dict)
""", {"slots": True}, {"frozen": False}),
    "plain": ("""
class Plain:
    a: object = 0
    b: object = ""
    items: list = field(default_factory=list)
""", {}, {"frozen": False, "slots": False}),
    "own_init": ("""
class OwnInit:
    names: tuple
    flag: object

    def __init__(self, *names, flag=False):
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "flag", flag)

    @property
    def first(self):
        return self.names[0] if self.names else None
""", {"frozen": True, "slots": True, "init": False}, {"init": False}),
    "identity_post_init": ("""
class IdentityPostInit:
    a: object
    b: object = 1
    _index: dict = field(init=False, repr=False, default_factory=dict)
    _n: object = field(init=False, repr=False, default=7)

    def __post_init__(self):
        self._index[repr(self.a)] = self.b
""", {"frozen": True, "slots": True, "eq": False}, {"eq": False}),
    "own_methods": ("""
class OwnMethods:
    allow: tuple = ()
    deny: tuple = ()

    def __str__(self):
        return f"{len(self.allow)} allow"

    def __bool__(self):
        return bool(self.allow or self.deny)

    def __len__(self):
        return len(self.allow) + len(self.deny)
""", {"frozen": True, "slots": True}, {}),
    "own_eq_hash": ("""
class OwnEqHash:
    a: object
    b: object = 0

    def __eq__(self, other):
        return isinstance(other, OwnEqHash) and self.a == other.a

    def __hash__(self):
        return 42
""", {"frozen": True, "slots": True}, {}),
    "own_repr": ("""
class OwnRepr:
    a: object

    def __repr__(self):
        return "<mine>"
""", {"frozen": True, "slots": True}, {}),
    "classvar": ("""
class WithClassVar:
    a: object
    LIMIT: ClassVar[int] = 3
""", {"frozen": True, "slots": True}, {}),
}


def _module(name: str, deco, fld) -> types.ModuleType:
    """A real module (so that pickle can find the classes) holding every shape."""
    mod = types.ModuleType(name)
    sys.modules[name] = mod
    ns = mod.__dict__  # the bodies run in the module, as a class statement would
    ns["field"] = fld
    for body, dc_opts, rec_opts in SHAPES.values():
        exec("from __future__ import annotations\nfrom typing import ClassVar\n" + body, ns)
        cls_name = body.split("class ", 1)[1].split(":", 1)[0]
        opts = dc_opts if deco is dataclasses.dataclass else rec_opts
        ns[cls_name] = deco(**opts)(ns[cls_name]) if opts else deco(ns[cls_name])
    return mod


DC = _module("_shellgate_test_dc", dataclasses.dataclass, dataclasses.field)
RC = _module("_shellgate_test_rc", record, field)
NAMES = {k: body.split("class ", 1)[1].split(":", 1)[0] for k, (body, _, _) in SHAPES.items()}


def pair(shape: str) -> tuple[type, type]:
    return getattr(DC, NAMES[shape]), getattr(RC, NAMES[shape])


def outcome(fn):
    """``("ok", value)`` or ``("raise", exception type name)`` — to compare both ways."""
    try:
        return ("ok", fn())
    except Exception as exc:  # noqa: BLE001 — the kind of failure is what is compared
        return ("raise", type(exc).__mro__[1].__name__ if isinstance(exc, FrozenInstanceError |
                dataclasses.FrozenInstanceError) else type(exc).__name__)


values = st.one_of(st.integers(-3, 3), st.text(max_size=3), st.none(), st.booleans(),
                   st.floats(allow_nan=True), st.tuples(st.integers(0, 2), st.text(max_size=2)),
                   st.frozensets(st.integers(0, 3), max_size=2))


def _construct(cls: type, shape: str, args: list, kwargs: dict):
    if shape == "own_init":
        return cls(*args, **{k: v for k, v in kwargs.items() if k == "flag"})
    return cls(*args, **kwargs)


def _args(shape: str, data) -> tuple[list, dict]:
    DCls = pair(shape)[0]
    params = [p for p in inspect.signature(DCls).parameters.values()
              if p.kind is not p.VAR_POSITIONAL]
    args, kwargs = [], {}
    for p in params:
        if p.kind is p.KEYWORD_ONLY or data.draw(st.booleans()):
            if p.default is p.empty or data.draw(st.booleans()):
                v = data.draw(values)
                kwargs[p.name] = [v] if p.name == "items" else ({"k": v} if p.name == "table" else v)
        elif p.default is p.empty or not kwargs and data.draw(st.booleans()):
            if kwargs:  # a positional after a keyword: pass it by keyword
                kwargs[p.name] = data.draw(values)
            else:
                args.append(data.draw(values))
    if shape == "own_init":
        args = data.draw(st.lists(values, max_size=3))
    return args, kwargs


def _same_repr(a: object, b: object) -> None:
    assert outcome(lambda: repr(a)) == outcome(lambda: repr(b))


@pytest.mark.parametrize("shape", sorted(SHAPES))
@settings(deadline=None)
@given(data=st.data())
def test_record_behaves_as_dataclass(shape: str, data) -> None:
    DCls, RCls = pair(shape)
    args, kwargs = _args(shape, data)
    d = outcome(lambda: _construct(DCls, shape, args, kwargs))
    r = outcome(lambda: _construct(RCls, shape, args, kwargs))
    assert d[0] == r[0]
    if d[0] == "raise":
        assert d == r
        return
    d, r = d[1], r[1]
    _same_repr(d, r)
    assert outcome(lambda: str(d)) == outcome(lambda: str(r))
    assert outcome(lambda: bool(d)) == outcome(lambda: bool(r))
    names = [f.name for f in dataclasses.fields(DCls)]
    assert [f.name for f in fields(RCls)] == names == [f.name for f in fields(r)]
    for n in names:
        assert outcome(lambda n=n: getattr(d, n)) == outcome(lambda n=n: getattr(r, n))
    # equality and hashing against a second instance built from other values
    args2, kwargs2 = _args(shape, data)
    d2 = outcome(lambda: _construct(DCls, shape, args2, kwargs2))
    r2 = outcome(lambda: _construct(RCls, shape, args2, kwargs2))
    assert d2[0] == r2[0]
    others = [(d, r), (d, r)] + ([(d2[1], r2[1])] if d2[0] == "ok" else [])
    for od, orr in others:
        assert (d == od) == (r == orr)
        assert (d != od) == (r != orr)
    assert (r == d) is False or shape in ("own_eq_hash",)  # never equal across classes
    assert outcome(lambda: hash(d)) == outcome(lambda: hash(r)) or shape == "identity_post_init"
    assert type(RCls.__dict__.get("__hash__", "absent")) is type(DCls.__dict__.get("__hash__", "absent"))
    # replace, asdict, pickle, copy
    if names:
        change = {names[0]: data.draw(values)}
        rd = outcome(lambda: dataclasses.replace(d, **change))
        rr = outcome(lambda: replace(r, **change))
        assert rd[0] == rr[0]
        if rd[0] == "ok":
            _same_repr(rd[1], rr[1])
    assert outcome(lambda: repr(dataclasses.asdict(d))) == outcome(lambda: repr(asdict(r)))
    for dup in (lambda o: pickle.loads(pickle.dumps(o)), copy.copy, copy.deepcopy):
        pd, pr = outcome(lambda dup=dup: dup(d)), outcome(lambda dup=dup: dup(r))
        assert pd[0] == pr[0]
        if pd[0] == "ok":
            _same_repr(pd[1], pr[1])
            if shape != "identity_post_init":
                assert (pr[1] == r) == (pd[1] == d)
    # last (it may delete a field): assigning and deleting
    for n in names[:1]:
        assert outcome(lambda n=n: setattr(d, n, 5)) == outcome(lambda n=n: setattr(r, n, 5))
        assert outcome(lambda n=n: delattr(d, n)) == outcome(lambda n=n: delattr(r, n))
    # Not a field: both refuse unless the class has a __dict__. (A frozen slotted dataclass
    # raises TypeError from its ``super(cls, self)`` on the pre-slots class, a dataclasses bug;
    # a record raises FrozenInstanceError, as for a field.)
    nd = outcome(lambda: setattr(d, "zz_not_a_field", 1))
    nr = outcome(lambda: setattr(r, "zz_not_a_field", 1))
    assert nd[0] == nr[0] and nr[1:] in ((None,), ("AttributeError",))


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_class_level_attributes_match(shape: str) -> None:
    DCls, RCls = pair(shape)
    assert getattr(DCls, "__slots__", None) == getattr(RCls, "__slots__", None)
    assert DCls.__match_args__ == RCls.__match_args__
    assert str(inspect.signature(DCls)) == str(inspect.signature(RCls))
    assert DCls.__qualname__ == RCls.__qualname__ and RCls.__module__ == "_shellgate_test_rc"
    assert RCls.__init__.__qualname__ == DCls.__init__.__qualname__
    for name in ("__str__", "__bool__", "__len__", "first"):
        assert (name in DCls.__dict__) == (name in RCls.__dict__)
    if "__slots__" in DCls.__dict__:
        assert not hasattr(RCls(*([0] * len(RCls.__match_args__))) if shape != "own_init"
                           else RCls(), "__dict__")
    for f in dataclasses.fields(DCls):
        has = hasattr(DCls, f.name) and not isinstance(getattr(DCls, f.name), types.MemberDescriptorType)
        assert has == (hasattr(RCls, f.name) and not isinstance(getattr(RCls, f.name),
                                                                 types.MemberDescriptorType))


def test_nan_compares_and_hashes_as_in_a_tuple() -> None:
    DCls, RCls = pair("one_field")
    nan = math.nan
    assert (DCls(nan) == DCls(nan)) is (RCls(nan) == RCls(nan)) is True  # identity inside tuples
    assert hash(RCls("x")) == hash(("x",)) == hash(DCls("x"))


def test_recursive_repr_is_cut() -> None:
    DCls, RCls = pair("mutable_slots")
    d, r = DCls(1), RCls(1)
    d.items.append(d)
    r.items.append(r)
    assert repr(d) == repr(r) == "MutableSlots(a=1, items=[...], b=None, table={})"


@pytest.mark.parametrize("body, error", [
    ("class Bad:\n    a: int = 1\n    b: int\n", TypeError),                  # default first
    ("class Bad:\n    a: list = []\n", ValueError),                            # mutable default
    ("class Bad:\n    a: int\n    b = field(default=1)\n", TypeError),          # no annotation
    ("class Bad:\n    __slots__ = ('a',)\n    a: int\n", TypeError),           # own __slots__
    ("class Bad:\n    a: int\n    def __setattr__(self, n, v): pass\n", TypeError),
])
def test_bad_declarations_fail_as_with_dataclasses(body: str, error: type) -> None:
    for deco, fld in ((dataclasses.dataclass(frozen=True, slots=True), dataclasses.field),
                      (record, field)):
        ns = {"field": fld}
        with pytest.raises(error):
            exec(body, ns)
            deco(ns["Bad"])


def test_replace_refuses_init_false_fields_and_non_records() -> None:
    _, RCls = pair("identity_post_init")
    with pytest.raises(ValueError, match="init=False"):
        replace(RCls(1), _index={})
    with pytest.raises(TypeError):
        replace(object())
    with pytest.raises(TypeError):
        asdict(object())
    with pytest.raises(TypeError):
        fields(object())


def test_frozen_error_is_an_attribute_error() -> None:
    _, RCls = pair("frozen")
    with pytest.raises(AttributeError, match="cannot assign to field 'a'"):
        RCls(1).a = 2  # type: ignore[misc]
    assert issubclass(FrozenInstanceError, AttributeError)


def test_record_inheritance_is_refused() -> None:
    @record
    class Base:
        a: int

    with pytest.raises(TypeError, match="inherit"):
        @record
        class Child(Base):
            b: int


def test_shellgate_records_are_slotted_and_not_dataclasses() -> None:
    """Every record in shellgate is a record (one way to declare one), slotted unless a fuzz
    worker's mutable state."""
    got = subprocess.run([sys.executable, "-c", """
import dataclasses, importlib, pkgutil, shellgate
out = []
for m in pkgutil.walk_packages(shellgate.__path__, "shellgate."):
    if m.name.endswith("__main__"):
        continue
    mod = importlib.import_module(m.name)
    for v in vars(mod).values():
        if isinstance(v, type) and v.__module__ == m.name:
            if dataclasses.is_dataclass(v):
                out.append("dataclass " + m.name + "." + v.__qualname__)
            elif "__record_fields__" in v.__dict__ and "__slots__" not in v.__dict__:
                out.append("no slots " + m.name + "." + v.__qualname__)
print("\\n".join(out))
"""], capture_output=True, text=True, check=True, timeout=120, cwd=ROOT)
    found = set(got.stdout.split("\n")) - {""}
    assert all(s.startswith("no slots shellgate.fuzz.") for s in found), found


def test_shipped_shapes_are_up_to_date() -> None:
    """``_record_shapes.py`` holds every shape shellgate's records need, so that no process
    compiles one; regenerate with ``python -m shellgate._record --write``."""
    got = subprocess.run([sys.executable, "-c", """
import sys
from shellgate import _record
text = _record.shapes_source()
sys.stdout.write(repr(_record._COMPILED) + "\\n" + text)
"""], capture_output=True, text=True, check=True, timeout=120, cwd=ROOT)
    compiled, _, text = got.stdout.partition("\n")
    assert compiled == "[]", f"shapes compiled at run time: {compiled}"
    assert text == (ROOT / "shellgate" / "_record_shapes.py").read_text(encoding="utf-8")


def test_a_new_shape_is_compiled_and_works() -> None:
    @record
    class Wide:
        a0: int
        a1: int = 1
        a2: list = field(default_factory=list, compare=False)
        a3: int = 3
        a4: int = 4
        a5: int = 5
        a6: int = 6
        a7: int = 7
        a8: int = 8
        a9: int = 9
        b0: int = 10
        b1: int = 11
        b2: int = 12
        b3: int = 13
        b4: int = 14
        b5: int = 15
        b6: int = 16
        b7: int = 17
        b8: int = 18
        b9: int = 19
        c0: int = 20
        c1: int = 21
        c2: int = 22

    w = Wide(0, c2=-1)
    assert (w.a0, w.a2, w.c1, w.c2) == (0, [], 21, -1)
    assert w == Wide(0, a2=[1], c2=-1) and hash(w) == hash(Wide(0, c2=-1))
    assert "init_slot_n_aaFaaaaaaaaaaaaaaaaaaaa" in _record._COMPILED
