"""``record``: the one way shellgate declares a record (a small class of named fields).

Why not ``dataclasses``? The semantics are right, the start-up cost is not: on Python 3.11
``@dataclass(frozen=True, slots=True)`` costs ~0.64 ms per class — it compiles five or six
methods with ``exec`` and builds the class twice — and ``import dataclasses`` pulls in
``inspect``. The hook (``shellgate hook claude-code``) is a fresh process per tool call that
creates ~60 record classes: ~45 ms of a ~130 ms hook went there.

How ``record`` is cheaper: ``__init__``, ``__eq__`` and ``__hash__`` are real compiled functions
(as fast per call as dataclasses' ones), but their byte-code depends only on a class's *shape*
(how many fields, which have a factory …), not on its names. Each shape is compiled once, and
shellgate's shapes ship precompiled in ``_record_shapes.py``; a class gets a copy of the shape's
code object with its own names (``CodeType.replace``). ``__repr__``, ``__setattr__`` and pickling
are shared functions. The class is built once more with ``__slots__``, every method already in
its namespace. A frozen ``__init__`` stores through each slot's descriptor (``Cls.x.__set__``),
faster than dataclasses' ``object.__setattr__(self, "x", x)``.

Measured with ``bench/record_speed.py`` (Python 3.11.7, this 2-core machine, best of 7, us):

    ===================================  =========  ======  ======
    operation                            dataclass  record  ratio
    ===================================  =========  ======  ======
    class creation, frozen+slots, 8 f.      887       44    20x
    … the same, shape not shipped           887      286     3.1x
    class creation, mutable+slots           952       59    16x
    instance C("a", (0, 1), 2), frozen        1.34     0.78   1.7x
    instance, all keywords, frozen            1.78     1.21   1.5x
    instance, mutable                         0.33     0.30   1.1x
    attribute read                            0.03     0.03   1.0x
    ==, hash                                  0.23     0.23   1.0x
    replace(one field)                        2.8      1.9    1.5x
    repr (not on any hot path)                1.14     1.54   0.74x
    ===================================  =========  ======  ======

In the hook, the 63 record classes it creates now cost ~5 ms in all (was ~45 ms).

What matches ``dataclasses`` (``tests/test_record.py`` checks it differentially): the
positional/keyword ``__init__`` with its signature, defaults and ``default_factory``,
``init=False`` fields, ``__post_init__``; ``repr`` in dataclasses' format (``repr=False`` fields
left out, recursion shown as ``...``); ``==`` only between instances of the same class, over the
``compare=True`` fields; ``__hash__`` = ``hash`` of the tuple of compared fields when frozen
(unhashable when mutable with ``eq``; ``object``'s when ``eq=False``); assigning or deleting a
field of a frozen record raises :class:`FrozenInstanceError` (an ``AttributeError``);
``__slots__`` (no ``__dict__``); ``__match_args__``; pickle and ``copy``; methods a class defines
itself are kept; ``ClassVar`` annotations are not fields. Not supported (``TypeError``):
inheritance between records, ``InitVar``, ``KW_ONLY``, ``order=True``. ``shellgate.bash`` may
import this leaf module: it imports nothing from shellgate.
"""

from __future__ import annotations

from _thread import get_ident
from collections.abc import Callable
from operator import attrgetter
from types import CodeType, FunctionType
from typing import Any, ClassVar, TypeVar, dataclass_transform, overload

__all__ = ["MISSING", "Field", "FrozenInstanceError", "asdict", "field", "fields", "is_record",
           "record", "replace"]

T = TypeVar("T")

class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""No default given (``dataclasses.MISSING``'s role)."""

_HAS_FACTORY: Any = type("_HasFactory", (), {"__slots__": (), "__repr__": lambda s: "<factory>"})()


class FrozenInstanceError(AttributeError):
    """Assigning to, or deleting, a field of a frozen record."""


class Field:
    """One field's options; :func:`field` makes one, :func:`fields` lists them."""

    __slots__ = ("name", "type", "default", "default_factory", "init", "repr", "compare")

    def __init__(self, default: Any, default_factory: Any, init: bool, repr: bool,
                 compare: bool) -> None:
        self.name = ""
        self.type: Any = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.compare = compare

    def __repr__(self) -> str:
        return (f"Field(name={self.name!r}, default={self.default!r}, "
                f"default_factory={self.default_factory!r}, init={self.init!r}, "
                f"repr={self.repr!r}, compare={self.compare!r})")


def field(*, default: Any = MISSING, default_factory: Any = MISSING, init: bool = True,
          repr: bool = True, compare: bool = True) -> Any:
    """Options for one field, as ``dataclasses.field`` (the subset shellgate uses)."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, init, repr, compare)


# -- the shared methods ------------------------------------------------------------------------

_repr_running: set[tuple[int, int]] = set()


def _repr(self: Any) -> str:
    key = (id(self), get_ident())
    if key in _repr_running:  # as reprlib.recursive_repr, which dataclasses uses
        return "..."
    _repr_running.add(key)
    try:
        fmt, values = self.__record_repr__
        return f"{self.__class__.__qualname__}({fmt % values(self)})"
    finally:
        _repr_running.discard(key)


def _frozen_setattr(self: Any, name: str, value: Any) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self: Any) -> list[Any]:
    # Frozen + slots: the default pickling would restore fields with setattr, which raises.
    return [getattr(self, f.name) for f in self.__record_fields__]


def _setstate(self: Any, state: list[Any]) -> None:
    for f, value in zip(self.__record_fields__, state, strict=False):
        object.__setattr__(self, f.name, value)


# -- compiled methods, shared by shape ---------------------------------------------------------
#
# ``__init__``, ``__eq__`` and ``__hash__`` must be as fast as dataclasses' per call, so they are
# real compiled functions, not generic loops. But their bytecode depends only on the *shape* of
# a class (how many fields, which take a factory, …), never on the field names: names live in
# the code object's ``co_varnames`` (parameters) and ``co_names`` (attributes). So each shape is
# compiled once, with placeholder names ``a0``, ``n0`` …, and every class gets a copy with its
# own names (``CodeType.replace``, ~0.5 us) instead of a compile (~90 us).

#
# Even one compile per shape is ~0.1 ms, and shellgate has ~60 shapes: ``_record_shapes.py``
# ships them as an ordinary module (its byte-code cached like any other), generated by
# ``python -m shellgate._record --write``. A shape missing there is compiled here, so a new
# record works at once; ``tests/test_record.py`` says when the module is out of date.

_CODE: dict[tuple[Any, ...], CodeType] = {}
_SOURCES: dict[str, Callable[[], str]] = {}  # shape name -> its source (for --write)
_COMPILED: list[str] = []       # shapes compiled in this process (not in _record_shapes)
_shipped: Any = None


def _shape_name(key: tuple[Any, ...]) -> str:
    if key[0] == "init":
        kinds = "".join({_ARG: "a", _FACTORY_ARG: "F", _DEFAULT: "d", _FACTORY: "f"}[k]
                        for k in key[1])
        return f"init_{key[2]}_{'p' if key[3] else 'n'}_{kinds or 'empty'}"
    return f"{key[0]}_{key[1]}"


def _template(key: tuple[Any, ...], src: Callable[[], str]) -> CodeType:
    """The code object of shape ``key``; ``src()`` gives its source when not shipped."""
    global _shipped
    code = _CODE.get(key)
    if code is None:
        name = _shape_name(key)
        _SOURCES[name] = src
        if _shipped is None:
            from . import _record_shapes as _shipped
        fn = getattr(_shipped, name, None)
        if fn is not None:
            code = fn.__code__
        else:
            _COMPILED.append(name)
            code = next(c for c in compile(src(), "<record>", "exec").co_consts
                        if isinstance(c, CodeType))
        _CODE[key] = code
    return code


def _function(code: CodeType, names: dict[str, str], qualname: str, env: dict[str, Any],
              defaults: tuple[Any, ...] | None = None) -> Callable[..., Any]:
    code = code.replace(co_varnames=tuple(names.get(v, v) for v in code.co_varnames),
                        co_names=tuple(names.get(v, v) for v in code.co_names),
                        co_name=qualname.rpartition(".")[2], co_qualname=qualname)
    return FunctionType(code, env, code.co_name, defaults)


_ARG, _FACTORY_ARG, _DEFAULT, _FACTORY = "arg", "factory_arg", "default", "factory"


def _init(qualname: str, flds: list[Field], setter: str, post_init: bool,
          env: dict[str, Any]) -> Callable[..., Any]:
    """``__init__`` with the parameters and body of dataclasses' one. ``setter``: ``slot``
    stores through each slot's descriptor (frozen; the caller puts ``_s<i>`` in ``env`` once the
    class exists), ``attr`` is ``self.x = x`` (mutable), ``object`` is ``object.__setattr__``."""
    kinds: list[str] = []
    names: dict[str, str] = {}
    env.update(_HAS_FACTORY=_HAS_FACTORY, _object_setattr=object.__setattr__)
    defaults: list[Any] = []
    for f in flds:
        i = len(kinds)
        if f.init:
            names[f"a{i}"] = f.name
            if f.default is not MISSING:
                defaults.append(f.default)
                kinds.append(_ARG)
            elif f.default_factory is not MISSING:
                defaults.append(_HAS_FACTORY)
                env[f"_f{i}"] = f.default_factory
                kinds.append(_FACTORY_ARG)
            elif defaults:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")
            else:
                kinds.append(_ARG)
        elif f.default is not MISSING:
            env[f"_d{i}"] = f.default
            kinds.append(_DEFAULT)
        elif f.default_factory is not MISSING:
            env[f"_f{i}"] = f.default_factory
            kinds.append(_FACTORY)
        else:
            continue
        names[f"n{i}"] = f.name
        if setter == "slot":
            env.setdefault("_slot_setters", []).append((f"_s{i}", f.name))
        elif setter == "object":
            env[f"_k{i}"] = f.name
    shape = tuple(kinds)
    code = _template(("init", shape, setter, post_init), lambda: _init_src(shape, setter, post_init))
    fn = _function(code, names, f"{qualname}.__init__", env, tuple(defaults) or None)
    fn.__annotations__ = {f.name: f.type for f in flds if f.init} | {"return": None}
    return fn


def _init_src(kinds: tuple[str, ...], setter: str, post_init: bool) -> str:
    params, body = ["self"], []
    for i, kind in enumerate(kinds):
        if kind in (_ARG, _FACTORY_ARG):
            params.append(f"a{i}")
        value = {_ARG: f"a{i}", _FACTORY_ARG: f"_f{i}() if a{i} is _HAS_FACTORY else a{i}",
                 _DEFAULT: f"_d{i}", _FACTORY: f"_f{i}()"}[kind]
        body.append({"slot": f"    _s{i}(self, {value})", "attr": f"    self.n{i} = {value}",
                     "object": f"    _object_setattr(self, _k{i}, {value})"}[setter])
    if post_init:
        body.append("    self.__post_init__()")
    return f"def __init__({', '.join(params)}):\n" + ("\n".join(body) or "    pass") + "\n"


def _tuple_src(obj: str, n: int) -> str:
    return "(" + "".join(f"{obj}.n{i}," for i in range(n)) + ")"


def _eq(qualname: str, compared: tuple[str, ...]) -> Callable[..., Any]:
    n = len(compared)

    def src() -> str:
        return ("def __eq__(self, other):\n    if other.__class__ is self.__class__:\n"
                f"        return {_tuple_src('self', n)} == {_tuple_src('other', n)}\n"
                "    return NotImplemented\n")
    return _function(_template(("eq", n), src), {f"n{i}": c for i, c in enumerate(compared)},
                     f"{qualname}.__eq__", _ENV)


def _hash(qualname: str, compared: tuple[str, ...]) -> Callable[..., Any]:
    n = len(compared)

    def src() -> str:
        return f"def __hash__(self):\n    return hash({_tuple_src('self', n)})\n"
    return _function(_template(("hash", n), src), {f"n{i}": c for i, c in enumerate(compared)},
                     f"{qualname}.__hash__", _ENV)


_ENV: dict[str, Any] = {"__builtins__": __builtins__}


def _values(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """``obj -> (obj.a, obj.b, …)``, always a tuple (for ``%`` formatting)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


# -- building a class --------------------------------------------------------------------------

_NOT_FIELDS = ("ClassVar", "typing.ClassVar")
_UNSUPPORTED = ("InitVar", "dataclasses.InitVar", "KW_ONLY", "dataclasses.KW_ONLY")


def _is_classvar(annotation: Any) -> bool:
    if isinstance(annotation, str):  # ``from __future__ import annotations``: the usual case
        if annotation.startswith(_UNSUPPORTED):
            raise TypeError(f"record does not support {annotation!r}")
        return annotation.startswith(_NOT_FIELDS)
    return annotation is ClassVar or getattr(annotation, "__origin__", None) is ClassVar


def _collect(cls: type) -> list[Field]:
    for base in cls.__mro__[1:-1]:
        if "__record_fields__" in base.__dict__:
            raise TypeError(f"{cls.__name__}: a record cannot inherit from a record")
    out: list[Field] = []
    ns = cls.__dict__
    annotations = ns.get("__annotations__", {})
    for name, annotation in annotations.items():
        if _is_classvar(annotation):
            continue
        value = ns.get(name, MISSING)
        f = value if isinstance(value, Field) else Field(value, MISSING, True, True, True)
        f.name, f.type = name, annotation
        if f.default is not MISSING and f.default.__class__.__hash__ is None:
            raise ValueError(f"mutable default {type(f.default)} for field {name} is not allowed: "
                             "use default_factory")
        out.append(f)
    for name, value in ns.items():
        if isinstance(value, Field) and name not in annotations:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    return out


def _set_new(cls: type, name: str, value: Any) -> None:
    if name not in cls.__dict__:
        setattr(cls, name, value)


def _process(cls: type, frozen: bool, slots: bool, init: bool, repr: bool, eq: bool) -> type:
    flds = _collect(cls)
    ns = cls.__dict__
    qualname = cls.__qualname__
    if frozen and ("__setattr__" in ns or "__delattr__" in ns):
        raise TypeError(f"cannot overwrite __setattr__/__delattr__ of frozen record {cls.__name__}")
    if slots and "__slots__" in ns:
        raise TypeError(f"{cls.__name__} already specifies __slots__")
    class_hash = ns.get("__hash__", MISSING)
    explicit_hash = not (class_hash is MISSING or (class_hash is None and "__eq__" in ns))
    names = tuple(f.name for f in flds)
    compared = tuple(f.name for f in flds if f.compare)
    # Everything goes into the namespace the class is built from, not set afterwards: each
    # ``setattr`` of a dunder on a finished class re-resolves its C slots.
    shown = tuple(f.name for f in flds if f.repr)
    add: dict[str, Any] = {"__record_fields__": tuple(flds),
                           "__record_repr__": (", ".join(f"{n}=%r" for n in shown),
                                               _values(shown))}
    setter = ("slot" if slots else "object") if frozen else "attr"
    env: dict[str, Any] = {}
    if init and "__init__" not in ns:
        add["__init__"] = _init(qualname, flds, setter, "__post_init__" in ns, env)
    if repr and "__repr__" not in ns:
        add["__repr__"] = _repr
    if eq:
        if "__eq__" not in ns:
            add["__eq__"] = _eq(qualname, compared)
        if not explicit_hash:
            add["__hash__"] = _hash(qualname, compared) if frozen else None
    if frozen:
        add["__setattr__"] = _frozen_setattr
        add["__delattr__"] = _frozen_delattr
        if slots:
            if "__getstate__" not in ns:
                add["__getstate__"] = _getstate
            if "__setstate__" not in ns:
                add["__setstate__"] = _setstate
    if "__match_args__" not in ns:
        add["__match_args__"] = tuple(f.name for f in flds if f.init)
    if slots:  # the class is built once more, as dataclasses does, now with __slots__
        body = dict(ns)
        for n in (*names, "__dict__", "__weakref__"):
            body.pop(n, None)
        body.update(add)
        body["__slots__"] = names
        body["__qualname__"] = qualname
        cls = type(cls)(cls.__name__, cls.__bases__, body)
        for key, name in env.pop("_slot_setters", ()):
            env[key] = cls.__dict__[name].__set__
    else:
        for f in flds:  # as dataclasses: the class attribute is the default, or nothing
            if f.default is not MISSING:
                setattr(cls, f.name, f.default)
            elif isinstance(ns.get(f.name), Field):
                delattr(cls, f.name)
        for k, v in add.items():
            setattr(cls, k, v)
    return cls


@overload
def record(cls: type[T], /) -> type[T]: ...


@overload
def record(*, frozen: bool = True, slots: bool = True, init: bool = True, repr: bool = True,
           eq: bool = True) -> Callable[[type[T]], type[T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field, Field))
def record(cls: Any = None, /, *, frozen: bool = True, slots: bool = True, init: bool = True,
           repr: bool = True, eq: bool = True) -> Any:
    """Make ``cls`` a record: ``dataclass(frozen=True, slots=True)`` unless told otherwise."""
    if cls is None:
        return lambda c: _process(c, frozen, slots, init, repr, eq)
    return _process(cls, frozen, slots, init, repr, eq)


# -- functions on records ----------------------------------------------------------------------

def is_record(obj: Any) -> bool:
    """Whether ``obj`` is a record class or instance."""
    return hasattr(obj if isinstance(obj, type) else type(obj), "__record_fields__")


def fields(obj: Any) -> tuple[Field, ...]:
    """The fields of a record class or instance, in declaration order."""
    try:
        return obj.__record_fields__  # type: ignore[no-any-return]
    except AttributeError:
        raise TypeError("must be called with a record type or instance") from None


def replace(obj: T, /, **changes: Any) -> T:
    """A copy of ``obj`` with some fields changed, as ``dataclasses.replace``."""
    try:
        flds = obj.__record_fields__  # type: ignore[attr-defined]
    except AttributeError:
        raise TypeError("replace() should be called on record instances") from None
    for f in flds:
        if not f.init:
            if f.name in changes:
                raise ValueError(f"field {f.name} is declared with init=False, it cannot be "
                                 "specified with replace()")
        elif f.name not in changes:
            changes[f.name] = getattr(obj, f.name)
    return obj.__class__(**changes)  # type: ignore[no-any-return]


def asdict(obj: Any, *, dict_factory: Callable[[list[tuple[str, Any]]], Any] = dict) -> Any:
    """``{field: value}``, recursing into records, lists, tuples and dicts as
    ``dataclasses.asdict`` does (other values deep-copied)."""
    if not hasattr(type(obj), "__record_fields__"):
        raise TypeError("asdict() should be called on record instances")
    return _asdict(obj, dict_factory)


def _asdict(obj: Any, dict_factory: Callable[[list[tuple[str, Any]]], Any]) -> Any:
    if hasattr(type(obj), "__record_fields__"):
        return dict_factory([(f.name, _asdict(getattr(obj, f.name), dict_factory))
                             for f in obj.__record_fields__])
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*[_asdict(v, dict_factory) for v in obj])
    if isinstance(obj, list | tuple):
        return type(obj)(_asdict(v, dict_factory) for v in obj)
    if isinstance(obj, dict):
        return type(obj)((_asdict(k, dict_factory), _asdict(v, dict_factory)) for k, v in obj.items())
    import copy

    return copy.deepcopy(obj)


# -- the shipped shapes ------------------------------------------------------------------------

_SHAPES_HEADER = '''"""Compiled shapes of shellgate's records. Generated by
``python -m shellgate._record --write``; do not edit by hand.

Each function is a template whose code object :mod:`shellgate._record` copies, with a record's
own names, into that record's ``__init__``/``__eq__``/``__hash__`` (see ``_record._template``).
They are never called as they stand.
"""
# ruff: noqa: E501, F821
'''


def shapes_source() -> str:
    """The text of ``_record_shapes.py`` for every record in shellgate (imports them all)."""
    import importlib
    import pkgutil

    from . import __path__ as root

    for m in pkgutil.walk_packages(root, "shellgate."):
        if not m.name.endswith("__main__"):
            importlib.import_module(m.name)
    for n in range(21):  # small equality/hash shapes, for records still to come
        _eq("x", tuple(f"f{i}" for i in range(n)))
        _hash("x", tuple(f"f{i}" for i in range(n)))
    parts = [_SHAPES_HEADER]
    for name in sorted(_SOURCES):
        body = _SOURCES[name]().split("(", 1)[1]
        parts.append(f"\ndef {name}({body}")
    return "\n".join(parts)


if __name__ == "__main__":  # pragma: no cover - maintenance entry point
    import sys
    from pathlib import Path

    from shellgate._record import shapes_source  # noqa: F811 — the records register there, not in __main__

    target = Path(__file__).with_name("_record_shapes.py")
    if sys.argv[1:] == ["--write"]:
        target.write_text(shapes_source(), encoding="utf-8")
        print(f"wrote {target}")
    else:
        print(__doc__)
