"""Seeds from the user's own policy: every ``Bash(...)`` allow rule becomes a command family.

A rule like ``Bash(sort *)`` auto-allows every ``sort`` invocation, so the fuzzer spends a good
share of its time on ``sort`` with every flag the program admits to; ``Bash(git log:*)``
becomes ``git log`` with the flags of ``git log``; an exact ``Bash(npm test)`` is tried as
written (and with redirections and wrappers, which a rule might also cover).
"""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

from .._record import record


@record
class PolicySeed:
    """One allow rule as the generator uses it."""

    rule: str                   # the rule text, e.g. "Bash(sort *)"
    prefix: tuple[str, ...]     # literal leading words: ("sort",)
    open_ended: bool            # a trailing `*` / `:*`: more words may follow


_BASH_RULE = re.compile(r"^\s*bash\s*\((.*)\)\s*$", re.I | re.S)


def seed_from_rule(text: str) -> PolicySeed | None:
    """The seed of one rule text, or None when it is not a usable ``Bash(...)`` rule."""
    m = _BASH_RULE.match(text)
    if not m:
        return None
    spec = m.group(1).strip()
    if spec.endswith(":*"):
        spec = spec[:-2].rstrip() + " *"
    try:
        words = shlex.split(spec)
    except ValueError:
        return None
    prefix: list[str] = []
    open_ended = False
    for w in words:
        if "*" in w:
            open_ended = True
            stem = w.split("*", 1)[0]
            if stem:
                prefix.append(stem)
            break
        prefix.append(w)
    if not prefix:
        return None
    return PolicySeed(text.strip(), tuple(prefix), open_ended or len(words) > len(prefix))


def allow_rules(config: str | Path | None) -> list[str]:
    """The allow-rule texts of a config file (TOML ``[permissions]`` or JSON settings).

    Uses the permission layer's own loader when it is present, so that the fuzzer sees exactly
    the rules the gate will use; falls back to reading the file directly.
    """
    if config is None:
        return []
    try:
        from ..permission.rules import RuleSet

        rules = RuleSet.load(config)
        return [r.text for r in rules.allow]
    except ImportError:
        pass
    path = Path(config).expanduser()
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        import json

        data = json.loads(text)
    else:
        data = tomllib.loads(text)
    allow = (data.get("permissions") or {}).get("allow") or []
    return [a if isinstance(a, str) else str(a.get("rule", "")) for a in allow]


def seeds(config: str | Path | None) -> list[PolicySeed]:
    """Every ``Bash`` allow rule of ``config`` as a seed (others are ignored)."""
    out = []
    for text in allow_rules(config):
        s = seed_from_rule(text)
        if s is not None:
            out.append(s)
    return out
