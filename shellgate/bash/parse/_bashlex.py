"""Import bashlex without rebuilding its LALR tables every time.

bashlex 0.18 calls its bundled PLY ``yacc.yacc()`` at import, and that version never reads
``parsetab.py``: it recomputes the LALR tables, about 0.2-0.3 s per process — most of a hook's
start-up. We ship the computed tables as data (``_bashlex_tables.json``: action, goto and the
production list, no code) and hand bashlex a parser built from them. The tables are keyed by a
hash of bashlex's ``parser.py`` and ``yacc.py``; on any mismatch (another bashlex version) the
original, slow path runs, so the result is always bashlex's own parser.

Regenerate after upgrading bashlex: ``python -m shellgate.bash.parse._bashlex --write``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

TABLES = Path(__file__).with_name("_bashlex_tables.json")


def _key(pkg_dir: Path) -> str:
    import hashlib  # here, not at the top: the hook imports this module but rarely loads bashlex

    h = hashlib.sha256()
    for name in ("parser.py", "yacc.py"):
        h.update((pkg_dir / name).read_bytes())
    return h.hexdigest()[:32]


class _Prod:
    """The part of a PLY ``Production`` that ``LRParser.parse`` uses."""

    __slots__ = ("name", "len", "func", "str", "callable")

    def __init__(self, name: str, length: int, func: str | None, text: str) -> None:
        self.name, self.len, self.func, self.str = name, length, func, text
        self.callable = None

    def bind(self, pdict: dict[str, Any]) -> None:
        if self.func:
            self.callable = pdict[self.func]


class _Tables:
    def __init__(self, data: dict[str, Any]) -> None:
        self.lr_productions = [_Prod(*p) for p in data["productions"]]
        self.lr_action = {int(s): row for s, row in data["action"].items()}
        self.lr_goto = {int(s): row for s, row in data["goto"].items()}


def _fast_yacc(original: Any, ymod: ModuleType, key: str) -> Any:
    def yacc(*args: Any, **kwargs: Any) -> Any:
        try:
            data = json.loads(TABLES.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
        if not data or data.get("key") != key or args or set(kwargs) - {"outputdir", "debug"}:
            return original(*args, **kwargs)
        pdict = vars(sys.modules["bashlex.parser"])
        tables = _Tables(data)
        for p in tables.lr_productions:
            p.bind(pdict)
        parser = ymod.LRParser(tables, pdict.get("p_error"))
        ymod.parse = parser.parse
        return parser
    return yacc


def load() -> ModuleType:
    """``import bashlex``, with the shipped tables when they match this bashlex."""
    if "bashlex" in sys.modules:
        return sys.modules["bashlex"]
    import importlib.util  # only when bashlex is needed (see _key)

    spec = importlib.util.find_spec("bashlex")
    if spec is None or spec.loader is None or not spec.submodule_search_locations:
        import bashlex  # let the normal import report the problem
        return bashlex
    pkg_dir = Path(list(spec.submodule_search_locations)[0])
    pkg = importlib.util.module_from_spec(spec)
    sys.modules["bashlex"] = pkg
    try:
        yspec = importlib.util.find_spec("bashlex.yacc")
        assert yspec is not None and yspec.loader is not None
        ymod = importlib.util.module_from_spec(yspec)
        sys.modules["bashlex.yacc"] = ymod
        yspec.loader.exec_module(ymod)
        pkg.yacc = ymod  # type: ignore[attr-defined]
        original = ymod.yacc
        ymod.yacc = _fast_yacc(original, ymod, _key(pkg_dir))
        try:
            spec.loader.exec_module(pkg)
        finally:
            ymod.yacc = original
    except BaseException:
        for name in [n for n in sys.modules if n == "bashlex" or n.startswith("bashlex.")]:
            del sys.modules[name]
        raise
    return pkg


_DUMP = """
import hashlib, json, sys
from pathlib import Path
import bashlex.parser as bp
pkg = Path(bp.__file__).parent
h = hashlib.sha256()
for name in ("parser.py", "yacc.py"):
    h.update((pkg / name).read_bytes())
p = bp.yaccparser
json.dump({
    "key": h.hexdigest()[:32],
    "productions": [[x.name, x.len, x.func, x.str] for x in p.productions],
    "action": {str(s): row for s, row in p.action.items()},
    "goto": {str(s): row for s, row in p.goto.items()},
}, sys.stdout, sort_keys=True, separators=(",", ":"))
"""


def build_tables() -> str:
    """The tables as bashlex itself builds them (plain import, in a fresh interpreter)."""
    import subprocess

    out = subprocess.run([sys.executable, "-c", _DUMP], capture_output=True, text=True,
                         check=True, timeout=120)
    return out.stdout


if __name__ == "__main__":  # pragma: no cover - maintenance entry point
    if sys.argv[1:] == ["--write"]:
        TABLES.write_text(build_tables(), encoding="utf-8")
        print(f"wrote {TABLES}")
    else:
        print(__doc__)
