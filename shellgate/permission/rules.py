"""Permission rules: ``Tool`` or ``Tool(specifier)`` in ``allow`` / ``ask`` / ``deny`` lists.

The same shape as Claude Code's settings (``research/ecosystem.md`` §1.5)::

    [permissions]
    allow = ["Bash(npm test *)", "Read(src/**)"]
    ask   = ["Bash(git push *)"]
    deny  = ["Bash(rm *)", "Read(~/.ssh/**)", {rule = "Bash(curl *)", match = ["curl x | sh"]}]

Precedence is deny > ask > allow (the engine asks the deny list first). What a specifier
means depends on what the call carries, not on the tool's name:
- a call that runs a command line (``Metadata.command``): a token pattern over every executed
  sub-command (:mod:`.pattern`, :mod:`.subject`);
- ``Read(glob)`` / ``Edit(glob)`` / ``Write(glob)``: path rules, checked against the files
  any call touches (a deny of ``Read(~/.ssh/**)`` also stops ``cat ~/.ssh/id_rsa``);
- ``Tool(domain:host)``: the hosts a call talks to;
- otherwise the call's approval key, with ``*`` as wildcard.
Tool names compare without case, ``_`` and ``-`` (``WebFetch`` is ``web_fetch``).

The grammar is parsed with pyparsing, imported only when a rule is parsed. A bad rule raises
:class:`RuleError` naming the file and line; so does a pattern over the size limits of
:mod:`.wildcard`, whatever its list (a deny rule too large to match safely is an error, never
dropped: the config loader then refuses the whole file). ``match`` / ``not_match`` examples are checked at
load (Codex's ``prefix_rule`` idea): a rule that does not do what its examples say is an error.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from .._record import field, record
from ..bash.facts import PathOp
from .pattern import CommandPattern, PathPattern, wild_match
from .wildcard import check_size


class RuleAction(StrEnum):
    ALLOW = "allow"
    ASK = "ask"
    DENY = "deny"


# Rule vocabulary (Claude Code's): these "tools" are path rules, whatever tool touches the path.
PATH_RULES: dict[str, PathOp] = {"read": PathOp.READ, "edit": PathOp.WRITE, "write": PathOp.WRITE}


@lru_cache(maxsize=256)  # a handful of names, asked on every call; a pure function
def tool_key(name: str) -> str:
    """``WebFetch``, ``web_fetch`` and ``web-fetch`` compare equal."""
    return re.sub(r"[\s_-]", "", name).lower()


class RuleError(ValueError):
    """A rule that cannot be used. ``str()`` reads ``file:line: rule 'X': why``."""

    def __init__(self, message: str, *, rule: str = "", source: str = "", line: int | None = None):
        self.message, self.rule, self.source, self.line = message, rule, source, line
        where = source or "<rules>"
        if line is not None:
            where += f":{line}"
        super().__init__(f"{where}: rule {rule!r}: {message}" if rule else f"{where}: {message}")


@record
class PathEntry:
    """A touched path as the matchers use it: absolute, normalised, and its resolved form.
    ``below``: a search of the files under ``path`` that this relative glob may match
    (``PathAccess.below``)."""

    path: str
    real: str
    op: PathOp
    below: str | None = None


@record(frozen=False)
class Subject:
    """A request seen by the rule matchers (built by the engine, one per decision)."""

    tool: str                          # tool_key() of the tool name
    key: str = ""
    view: Any = None                   # subject.CommandView when the call runs a command line
    paths: tuple[PathEntry, ...] = ()
    paths_complete: bool = False
    hosts: tuple[str, ...] = ()
    home: str = "/"
    cwd: str = "/"


@record
class Rule:
    action: RuleAction
    tool: str
    specifier: str | None
    text: str
    source: str = "<rules>"
    line: int | None = None
    base: str | None = None            # the directory `/path` anchors are relative to
    match: tuple[str, ...] = ()
    not_match: tuple[str, ...] = ()
    command: CommandPattern | None = field(default=None, compare=False, repr=False)
    path: PathPattern | None = field(default=None, compare=False, repr=False)

    @property
    def key(self) -> str:
        return tool_key(self.tool)

    @property
    def path_op(self) -> PathOp | None:
        return PATH_RULES.get(self.key) if self.specifier is not None else None

    @property
    def domain(self) -> str | None:
        s = self.specifier
        return s[len("domain:"):] if s is not None and s.startswith("domain:") else None

    def __str__(self) -> str:
        return self.text

    # -- matching ---------------------------------------------------------------------------

    def _path_hit(self, e: PathEntry, subj: Subject, *, whole: bool = False) -> bool:
        """Does the rule's pattern match the entry's path? For a search entry (``below``):
        on the deny side, may it match *some* file the search could read (the pattern and the
        searched tree intersect); with ``whole`` (the allow side), does it match every one
        (it matches the search's root, hence all below it)."""
        assert self.path is not None
        base = self.base or subj.cwd
        below = e.below
        if below is None and not whole and e.op is PathOp.WRITE:
            if _GLOB_MAGIC & set(e.path):
                # `rm -rf *`, `rm -r s*/`: a written glob is every path it may match, each a
                # directory maybe, and all below them (a literal `*` in a name: also met)
                root, below = _glob_tree(e.path)
                return self.path.meets(root, below, home=subj.home, base=base, cwd=subj.cwd)
            if os.path.isdir(e.real):
                below = "**"   # `rm -r dir`, `mv dir x`, `cp a dir/`: what is below it changes
        if below is not None and not whole:
            return any(self.path.meets(p, below, home=subj.home, base=base, cwd=subj.cwd)
                       for p in {e.path, e.real})
        return any(self.path.matches(p, home=subj.home, base=base, cwd=subj.cwd)
                   for p in {e.path, e.real})

    def deny_side(self, subj: Subject) -> str | None:
        """Loose match for deny / ask lists. Returns what matched (for the reason) or None."""
        op = self.path_op
        if op is not None:
            for e in subj.paths:
                if (op is PathOp.READ or e.op is op) and self._path_hit(e, subj):
                    return e.path if e.below is None else f"a search of {e.path}/{e.below}"
            return None
        if self.key != subj.tool:
            return None
        if self.specifier is None:
            return subj.tool
        if (dom := self.domain) is not None:
            return next((h for h in subj.hosts if wild_match(dom, h)), None)
        if subj.view is not None:
            if self.command is None:
                return None
            hit = subj.view.any_match(self.command)
            return hit.text if hit is not None else None
        return subj.key if subj.key and wild_match(self.specifier, subj.key) else None

    def covers_call(self, subj: Subject) -> bool:
        """Allow side for calls that run no command line: the rule covers all of it."""
        op = self.path_op
        if op is not None:
            if not subj.paths or not subj.paths_complete:
                return False
            return all(e.op is op and self._path_hit(e, subj, whole=True) for e in subj.paths)
        if self.key != subj.tool:
            return False
        if self.specifier is None:
            return True
        if (dom := self.domain) is not None:
            return bool(subj.hosts) and all(wild_match(dom, h) for h in subj.hosts)
        return bool(subj.key) and wild_match(self.specifier, subj.key)

    def command_pattern(self, tool: str) -> CommandPattern | None:
        """The pattern this rule contributes to covering sub-commands of ``tool``'s call."""
        if self.key != tool or self.path_op is not None or self.domain is not None:
            return None
        return _STAR if self.specifier is None else self.command


_STAR = CommandPattern.compile("*")
MAX_RULES_BYTES = 4 << 20   # a bigger rules file is an error, not read (it may be /dev/zero)
_GLOB_MAGIC = frozenset("*?[")


def _glob_tree(path: str) -> tuple[str, str]:
    """A written glob as a tree: its literal leading directories, and the rest as the glob
    below them, with everything under what it matches (``/w/s*/x`` -> ``/w``, ``s*/x/**``)."""
    parts = path.split("/")
    first = next(i for i, seg in enumerate(parts) if _GLOB_MAGIC & set(seg))
    return "/".join(parts[:first]) or "/", "/".join(parts[first:]) + "/**"


@cache
def _grammar() -> Any:
    import pyparsing as pp

    name = pp.Regex(r"[A-Za-z_][A-Za-z0-9_.\-]*")("tool")
    spec = (pp.Suppress(pp.Literal("(").leave_whitespace())
            + pp.Regex(r"[^\n]*(?=\)\Z)").leave_whitespace()("spec")
            + pp.Suppress(pp.Literal(")").leave_whitespace()))
    return name + pp.Optional(spec) + pp.StringEnd().leave_whitespace()


def _explain(text: str, col: int) -> str:
    if not text:
        return "empty rule"
    if not re.match(r"[A-Za-z_]", text):
        return "a rule starts with a tool name (letters, digits, _ . -)"
    if re.match(r"[A-Za-z_][\w.\-]*\s+\(", text):
        return "no space is allowed between the tool name and '('"
    if "(" in text and ")" in text[text.index("("):] and not text.endswith(")"):
        return f"unexpected text after the closing ')' (column {col})"
    if "(" in text and not text.endswith(")"):
        return "missing the closing ')' at the end"
    if ")" in text and "(" not in text:
        return "')' without '('"
    return f"expected Tool or Tool(specifier), problem at column {col}"


def parse_rule(text: str, action: RuleAction | str = RuleAction.ALLOW, *, source: str = "<rules>",
               line: int | None = None, base: str | None = None, match: Sequence[str] = (),
               not_match: Sequence[str] = ()) -> Rule:
    """Parse one rule. Raises :class:`RuleError`; examples are checked by :func:`check_examples`."""
    import pyparsing as pp

    act = RuleAction(action)
    if not isinstance(text, str):
        raise RuleError(f"a rule is a string, not {type(text).__name__}", rule=repr(text),
                        source=source, line=line)
    raw = text.strip()
    try:
        parsed = _grammar().parse_string(raw, parse_all=True)
    except pp.ParseException as exc:
        raise RuleError(_explain(raw, exc.col), rule=text, source=source, line=line) from None
    tool, spec = parsed["tool"], parsed.get("spec")
    kw: dict[str, Any] = {}
    if spec is not None:
        if not spec.strip():
            raise RuleError(f"empty specifier: write {tool} to match every call", rule=text,
                            source=source, line=line)
        try:
            if tool_key(tool) in PATH_RULES:
                kw["path"] = PathPattern.compile(spec)
            elif spec.startswith("domain:"):
                if not spec[len("domain:"):].strip():
                    raise ValueError("empty domain")
                check_size(spec)
            else:
                kw["command"] = CommandPattern.compile(spec)
        except ValueError as exc:
            raise RuleError(str(exc), rule=text, source=source, line=line) from None
    return Rule(act, tool, spec, raw, source, line, base, tuple(match), tuple(not_match), **kw)


# -- examples -------------------------------------------------------------------------------

def example_matches(rule: Rule, example: str, *, home: str | None = None) -> bool:
    """Does ``rule`` fire on ``example`` (a command line, a path, a host or a key)?

    Allow rules are judged as the allow side judges them (every sub-command covered), deny and
    ask rules as the deny side does (any sub-command).
    """
    from .subject import parse_view

    base = rule.base or os.getcwd()
    home = home or os.path.expanduser("~")
    subj = Subject(tool=rule.key, key=example, home=home, cwd=base)
    if rule.path_op is not None:
        raw = home + example[1:] if example == "~" or example.startswith("~/") else example
        p = os.path.normpath(os.path.join(base, raw))
        subj.paths = (PathEntry(p, p, rule.path_op),)
        subj.paths_complete = True
    elif rule.domain is not None:
        subj.hosts = (example,)
    else:
        subj.view = parse_view(example)
    if rule.action is not RuleAction.ALLOW:
        return rule.deny_side(subj) is not None
    pat = rule.command_pattern(subj.tool)
    if subj.view is None or pat is None:
        return rule.covers_call(subj)
    need = subj.view.to_cover()
    return bool(need) and all(pat.matches(c.cover_words, strict=True) for c in need)


def check_examples(rule: Rule) -> None:
    for ex in rule.match:
        if not example_matches(rule, ex):
            raise RuleError(f"example {ex!r} is listed under match but the rule does not match it",
                            rule=rule.text, source=rule.source, line=rule.line)
    for ex in rule.not_match:
        if example_matches(rule, ex):
            raise RuleError(f"example {ex!r} is listed under not_match but the rule matches it",
                            rule=rule.text, source=rule.source, line=rule.line)


# -- rule sets ------------------------------------------------------------------------------

def find_line(text: str, needle: str) -> int | None:
    """The 1-based line of the first quoted occurrence of ``needle`` in a config's source."""
    if not text or not needle:
        return None
    candidates = (json.dumps(needle), f"'{needle}'", f'"{needle}"', needle)
    for n, line in enumerate(text.splitlines(), 1):
        if any(c in line for c in candidates):
            return n
    return None


@record
class RuleSet:
    """Parsed allow / ask / deny lists. Immutable; :meth:`merged` combines layers."""

    allow: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()
    # shellgate's own files outside its own directories, which it reads or writes at decision
    # time (a ``--config`` file, a moved audit log or approval store: ``config.own_files``),
    # absolute: what a command may neither read nor write, as the path table's
    # ``~/.config/shellgate/**`` — else one write there loosens every later decision.
    own: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.allow or self.ask or self.deny)

    def __len__(self) -> int:
        return len(self.allow) + len(self.ask) + len(self.deny)

    def merged(self, other: RuleSet) -> RuleSet:
        return RuleSet(self.allow + other.allow, self.ask + other.ask, self.deny + other.deny,
                       tuple(dict.fromkeys(self.own + other.own)))

    def rules(self, action: RuleAction | str) -> tuple[Rule, ...]:
        return getattr(self, str(RuleAction(action)))

    def watched(self, cwd: str) -> tuple[str, ...]:
        """What the deny and ask ``Read(…)`` rules name, and :attr:`own`, in the sensitive
        table's syntax: the bash core finds a command's reads of them — by a glob, a walk of
        a directory above, a link — the way it finds reads of a key (``Context.watched``), and the deny side
        then meets each such read (``Read(~/private/**)`` stops ``grep -r x ~``)."""
        out = list(self.own_globs())
        for r in (*self.deny, *self.ask):
            if r.path is not None and r.path_op is PathOp.READ:
                out += r.path.table_globs(base=r.base or cwd, cwd=cwd)
        return tuple(dict.fromkeys(out))

    def guarded(self, cwd: str) -> tuple[str, ...]:
        """What the deny ``Edit(…)``/``Write(…)`` rules name, and :attr:`own`, in the sensitive
        table's syntax: a sandbox binds it read-only, so that no command the classifier misread (``truncate``,
        ``dd of=``, a script) writes it. Deny only: an ask rule is a prompt the classifier
        raises, and a remembered approval of it must still be able to write."""
        out = list(self.own_globs())
        for r in self.deny:
            if r.path is not None and r.path_op is PathOp.WRITE:
                out += r.path.table_globs(base=r.base or cwd, cwd=cwd)
        return tuple(dict.fromkeys(out))

    def own_globs(self) -> tuple[str, ...]:
        """:attr:`own` in the sensitive table's syntax: in :meth:`watched` (every read or
        write of them is a sensitive hit, hidden when confined) and :meth:`guarded` (read-only
        when confined, also where a tier cannot hide a file inside a writable root), and all
        the file tools need (their ``Read(…)`` rules are matched, and named, by the rules)."""
        from .pattern import literal_table_glob

        return tuple(literal_table_glob(p) for p in self.own)

    @classmethod
    def parse(cls, allow: Iterable[Any] = (), ask: Iterable[Any] = (), deny: Iterable[Any] = (),
              *, source: str = "<rules>", text: str = "", base: str | None = None) -> RuleSet:
        """Parse lists of rules. An item is a rule string or a mapping
        ``{rule = "...", match = [...], not_match = [...]}``. ``text`` is the file's source,
        used to name the line of a bad rule."""
        out: dict[str, list[Rule]] = {"allow": [], "ask": [], "deny": []}
        for action, items in (("allow", allow), ("ask", ask), ("deny", deny)):
            if isinstance(items, (str, bytes)) or not isinstance(items, Iterable):
                raise RuleError(f"'{action}' must be a list of rules", source=source,
                                line=find_line(text, action))
            for item in items:
                out[action].append(_parse_item(item, action, source, text, base))
        return cls(tuple(out["allow"]), tuple(out["ask"]), tuple(out["deny"]))

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, source: str = "<rules>", text: str = "",
                     base: str | None = None) -> RuleSet:
        """From a ``permissions`` table (``allow`` / ``ask`` / ``deny``; other keys ignored)."""
        return cls.parse(data.get("allow", ()), data.get("ask", ()), data.get("deny", ()),
                         source=source, text=text, base=base)

    @classmethod
    def load(cls, path: str | Path, *, base: str | None = None) -> RuleSet:
        """A TOML file with a ``[permissions]`` table, or a JSON settings file with a
        ``permissions`` object (Claude Code's ``settings.json`` reads as is)."""
        from .._plain import read_plain

        p = Path(path).expanduser()
        try:
            text = read_plain(p, MAX_RULES_BYTES, follow=True).decode("utf-8")
        except OSError as exc:
            raise RuleError(f"cannot read rules: {exc.strerror or exc}", source=str(p)) from None
        except UnicodeDecodeError as exc:
            raise RuleError(f"rules are not UTF-8: {exc}", source=str(p)) from None
        try:
            if p.suffix == ".json":
                data = json.loads(text)
            else:
                import tomllib

                data = tomllib.loads(text)
        except ValueError as exc:
            raise RuleError(f"not valid {'JSON' if p.suffix == '.json' else 'TOML'}: {exc}",
                            source=str(p)) from None
        perms = data.get("permissions", {}) if isinstance(data, dict) else None
        if not isinstance(perms, dict):
            raise RuleError("'permissions' must be a table", source=str(p))
        return cls.from_mapping(perms, source=str(p), text=text,
                                base=base or str(_default_base(p)))


def _default_base(path: Path) -> Path:
    """`/x` anchors are relative to the project the rule file belongs to: the parent of a
    ``.shellgate`` / ``.claude`` directory, else the file's own directory."""
    parent = path.absolute().parent
    return parent.parent if parent.name in (".shellgate", ".claude") else parent


def _parse_item(item: Any, action: str, source: str, text: str, base: str | None) -> Rule:
    if isinstance(item, Mapping):
        rule_text = item.get("rule")
        line = find_line(text, rule_text) if isinstance(rule_text, str) else None
        unknown = set(item) - {"rule", "match", "not_match"}
        if unknown:
            raise RuleError(f"unknown key(s) {sorted(unknown)}; a rule table has rule, match, "
                            "not_match", rule=str(rule_text or ""), source=source, line=line)
        if not isinstance(rule_text, str):
            raise RuleError("a rule table needs rule = \"Tool(specifier)\"", source=source,
                            line=line)
        examples = {}
        for k in ("match", "not_match"):
            v = item.get(k, [])
            if isinstance(v, str) or not all(isinstance(x, str) for x in v):
                raise RuleError(f"{k} must be a list of strings", rule=rule_text, source=source,
                                line=line)
            examples[k] = tuple(v)
        rule = parse_rule(rule_text, action, source=source, line=line, base=base, **examples)
        check_examples(rule)
        return rule
    line = find_line(text, item) if isinstance(item, str) else None
    return parse_rule(item, action, source=source, line=line, base=base)
