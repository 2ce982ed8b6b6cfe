"""The flag universe of a program, harvested from the program itself.

Nobody's list of "dangerous flags" is complete, so the fuzzer asks each program: ``--help``
(then ``-h``) and, where the manual is installed, ``man``. It keeps every ``-x``, ``--long``,
single-dash long (``find -fprint``) option with its metavar, and derives what getopt also
accepts: unique prefixes of long options (``--out`` for ``--output``), ``--opt=value`` and
``--opt value`` spellings.

The programs asked come from the user's policy, so they are as untrusted as the fuzzed
commands: every help run goes through bubblewrap or does not happen (no network, read-only
root, scratch /tmp, the real HOME masked by an empty one, an environment of a few fixed
variables, a short timeout, stdin closed). Without a working bwrap, :func:`harvest_all` raises
:class:`~.oracle.OracleUnavailable` before running anything.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from .._record import field, record

HELP_TIMEOUT = 3.0
_MAX_HELP = 400_000


@record
class Flag:
    """One option as the help text spells it. ``arg`` is its metavar when it takes a value."""

    name: str
    arg: str | None = None
    optional: bool = False   # `--color[=WHEN]`: the value may be left off

    @property
    def long(self) -> bool:
        return self.name.startswith("--")


@record
class Universe:
    """Every flag of one program (or ``git log``-like sub-command), keyed by ``prefix``."""

    prefix: tuple[str, ...]
    flags: tuple[Flag, ...] = field(default=())
    aliases: tuple[tuple[str, str], ...] = ()   # ("-o", "--output"): one option, two names

    @property
    def longs(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.flags if f.long)

    def get(self, name: str) -> Flag | None:
        for f in self.flags:
            if f.name == name:
                return f
        return None

    def abbreviations(self, name: str) -> list[str]:
        """Every unambiguous prefix of long option ``name`` that getopt would accept."""
        if not name.startswith("--"):
            return []
        others = [o for o in self.longs if o != name]
        out = []
        for end in range(3, len(name)):
            p = name[:end]
            if not any(o.startswith(p) for o in others):
                out.append(p)
        return out

    def canonical(self, spelled: str) -> str:
        """One name per option: abbreviations resolved, ``=value`` dropped, short names mapped
        to their long twin; an attached short value (``-oout``) reduced to its flag."""
        head = spelled.split("=", 1)[0]
        if head.startswith("--"):
            return self.resolve(head) or head
        if head.startswith("-") and len(head) > 2 and self.get(head) is None:
            short = head[:2]
            if self.get(short) is not None:
                head = short
        return dict(self.aliases).get(head, head)

    def resolve(self, spelled: str) -> str | None:
        """The long option an abbreviation stands for (getopt rules), else None."""
        head = spelled.split("=", 1)[0]
        if not head.startswith("--") or head == "--":
            return head if self.get(head) else None
        if head in self.longs:
            return head
        hits = [o for o in self.longs if o.startswith(head)]
        return hits[0] if len(hits) == 1 else None


# `-o, --output=FILE`, `--color[=WHEN]`, `--decorate-refs <pattern>`, `-k KEYDEF`, `-fprint FILE`.
_OPT = re.compile(
    r"(?<![\w\-/.=])(--?[A-Za-z0-9?][\w\-]*)"
    r"(\[=([^\]\s]*)\]|=([^\s,\]]+)|\[([A-Z][\w\-]*)\]|[ ]<([^>\s]+)>|[ ]([A-Z][A-Z0-9_\-]*)(?![a-z]))?")


def parse_help(text: str) -> list[Flag]:
    """Every option spelled in a help or man text. Order of first appearance, no repeats."""
    text = re.sub(r".\x08", "", text)  # man's overstrike bold
    seen: dict[str, Flag] = {}
    for line in text.splitlines():
        found: list[Flag] = []
        for m in _OPT.finditer(line):
            name = m.group(1).rstrip("-")
            if len(name) < 2 or name in ("--", "-") or name.startswith("---"):
                continue
            if re.fullmatch(r"-\d+", name) and len(name) > 2:   # "-1000" in prose
                continue
            optional = m.group(3) is not None or m.group(5) is not None
            arg = m.group(3) or m.group(4) or m.group(5) or m.group(6) or m.group(7)
            if optional and not arg:
                arg = "VALUE"
            found.append(Flag(name, arg, optional))
        # `-o, --output=FILE`: the short option takes what the long one takes.
        longs = [f for f in found if f.long and f.arg]
        for f in found:
            if not f.long and f.arg is None and longs and len(f.name) == 2:
                f = Flag(f.name, longs[0].arg, longs[0].optional)
            old = seen.get(f.name)
            if old is None or (old.arg is None and f.arg is not None):
                seen[f.name] = f
    return list(seen.values())


_ALIAS = re.compile(r"^\s*(-[A-Za-z0-9?]),\s+(--[A-Za-z0-9][\w-]*)")


def parse_aliases(text: str) -> dict[str, str]:
    """``-o, --output=FILE`` lines: the short name and its long twin."""
    out: dict[str, str] = {}
    for line in text.splitlines():
        m = _ALIAS.match(line)
        if m:
            out.setdefault(m.group(1), m.group(2))
    return out


_FAKE_HOME = "/tmp/home"  # inside the sandbox's own /tmp: empty


def _sandboxed(argv: list[str], bwrap: str) -> list[str]:
    """``argv`` inside bubblewrap, the real HOME (and every other home) hidden."""
    from ..sandbox.bwrap import cap_drop
    from .oracle import SANDBOX_PATH

    masks: list[str] = []
    real_home = os.path.realpath(os.path.expanduser("~"))
    for home in dict.fromkeys((real_home, "/root", "/home")):
        if home not in ("/", "") and os.path.isdir(home) and not home.startswith("/tmp/"):
            masks += ["--tmpfs", home]
    return [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
            *masks, "--dir", _FAKE_HOME, "--unshare-net", "--unshare-pid", "--unshare-ipc",
            *cap_drop(), "--die-with-parent", "--new-session", "--clearenv",
            "--setenv", "PATH", SANDBOX_PATH, "--setenv", "HOME", _FAKE_HOME,
            "--setenv", "PAGER", "cat", "--setenv", "MANPAGER", "cat", "--setenv", "LANG", "C",
            "--setenv", "MANWIDTH", "200", "--chdir", "/tmp", "--", *argv]


def _run(argv: list[str], bwrap: str) -> str:
    try:
        p = subprocess.run(_sandboxed(argv, bwrap), stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=HELP_TIMEOUT, start_new_session=True)
    except (OSError, subprocess.SubprocessError):
        return ""
    return (p.stdout[:_MAX_HELP] + b"\n" + p.stderr[:_MAX_HELP]).decode("utf-8", errors="replace")


def help_texts(prefix: Sequence[str], bwrap: str) -> list[str]:
    """The texts a program gives about itself: ``--help``, ``-h``, its manual page. Only a
    program found by name in the system directories is asked (``./deploy.sh`` from a rule is
    not)."""
    from .oracle import SANDBOX_PATH

    prog = prefix[0]
    if "/" in prog or not shutil.which(prog, path=SANDBOX_PATH):
        return []
    texts = [_run([*prefix, "--help"], bwrap)]
    if len(parse_help(texts[0])) < 3:
        texts.append(_run([*prefix, "-h"], bwrap))
    if shutil.which("man", path=SANDBOX_PATH):
        page = "-".join(prefix) if prog == "git" and len(prefix) > 1 else prog
        texts.append(_run(["man", "-P", "cat", page], bwrap))
    return texts


def harvest(prefix: Sequence[str], bwrap: str | None = None) -> Universe:
    """The flag universe of ``prefix`` (``("sort",)``, ``("git", "log")``), asked through
    ``bwrap`` (default: the trusted one, else :class:`~.oracle.OracleUnavailable`). Raises
    nothing else."""
    if bwrap is None:
        from .oracle import sandbox_binary

        bwrap = sandbox_binary()
    flags: dict[str, Flag] = {}
    aliases: dict[str, str] = {}
    for text in help_texts(prefix, bwrap):
        for short, long in parse_aliases(text).items():
            aliases.setdefault(short, long)
        for f in parse_help(text):
            if f.name not in flags or (flags[f.name].arg is None and f.arg):
                flags[f.name] = f
    for noise in ("--help", "--version"):
        flags.pop(noise, None)
    return Universe(tuple(prefix), tuple(flags.values()), tuple(sorted(aliases.items())))


CACHE_VERSION = 1


def cache_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return Path(base) / "shellgate" / f"flags-v{CACHE_VERSION}.json"


def _stamp(prefix: Sequence[str]) -> str:
    """Which binary answered (the one the sandbox's PATH finds): a new version of the program
    means a new harvest."""
    from .oracle import SANDBOX_PATH

    exe = shutil.which(prefix[0], path=SANDBOX_PATH) if "/" not in prefix[0] else None
    if not exe:
        return ""
    try:
        st = os.stat(exe)
    except OSError:
        return ""
    return f"{os.path.realpath(exe)}:{st.st_size}:{st.st_mtime_ns}"


def _load_cache(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _to_json(u: Universe, stamp: str) -> dict[str, Any]:
    return {"stamp": stamp, "flags": [[f.name, f.arg, f.optional] for f in u.flags],
            "aliases": [list(a) for a in u.aliases]}


def _from_json(prefix: tuple[str, ...], d: dict[str, Any]) -> Universe:
    return Universe(prefix, tuple(Flag(n, a, bool(o)) for n, a, o in d["flags"]),
                    tuple((a, b) for a, b in d["aliases"]))


def harvest_all(prefixes: Iterable[Sequence[str]], jobs: int = 16,
                cache: Path | None | bool = True) -> dict[tuple[str, ...], Universe]:
    """Harvest many programs at once (help runs are I/O bound, so threads are enough).

    Results are cached per program binary (path, size, mtime) in ``cache_path()``; pass
    ``cache=False`` to ask every program again."""
    uniq = list(dict.fromkeys(tuple(p) for p in prefixes if p))
    path = cache_path() if cache is True else (cache or None)
    stored = _load_cache(path) if path else {}
    out: dict[tuple[str, ...], Universe] = {}
    todo: list[tuple[str, ...]] = []
    stamps = {p: _stamp(p) for p in uniq}
    for p in uniq:
        hit = stored.get(" ".join(p))
        if hit and stamps[p] and hit.get("stamp") == stamps[p]:
            try:
                out[p] = _from_json(p, hit)
                continue
            except (KeyError, TypeError, ValueError):
                pass
        todo.append(p)
    if todo:
        from .oracle import preflight

        bwrap = preflight()  # nothing runs without a sandbox that starts
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            out.update(zip(todo, pool.map(lambda p: harvest(p, bwrap), todo), strict=True))
        if path:
            for p in todo:
                stored[" ".join(p)] = _to_json(out[p], stamps[p])
            with contextlib.suppress(OSError):
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_text(json.dumps(stored), encoding="utf-8")
                os.replace(tmp, path)
    return {p: out[p] for p in uniq}
