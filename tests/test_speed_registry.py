"""The command registry's lazy index (hook start-up) agrees with the full table.

``registry.lookup`` imports only the family its index names; these tests make sure that hint
can never change an answer: every indexed name resolves to exactly the full table's entry,
and a name missing from the index or from its family still resolves through the full table.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from shellgate.bash.commands import registry


def test_every_indexed_name_matches_the_full_table() -> None:
    table = registry.full_table()
    for name, family in registry._INDEX.items():
        assert registry._entries(family).get(name) is table.get(name), (name, family)


def test_lookup_agrees_with_the_full_table_for_every_name() -> None:
    table = registry.full_table()
    for name in (*table, "npm", "make", "definitely-not-a-command"):
        assert registry.lookup(name) is table.get(name), name


def test_table_attribute_is_the_full_table() -> None:
    assert registry.TABLE is registry.full_table()
    with pytest.raises(AttributeError):
        _ = registry.NOT_THERE  # type: ignore[attr-defined]


def test_a_stale_index_line_falls_back_to_the_full_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_table", None)
    monkeypatch.setattr(registry, "_families", {})
    monkeypatch.setitem(registry._INDEX, "git", "jq")  # wrong family on purpose
    assert registry.lookup("git") is registry.full_table()["git"]


def test_a_fresh_lookup_imports_only_the_family_it_needs() -> None:
    code = ("import sys\nfrom shellgate.bash.commands import registry\n"
            "assert registry.lookup('ls') is not None\n"
            "print(sorted(m.rsplit('.', 1)[1] for m in sys.modules "
            "if m.startswith('shellgate.bash.commands.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    loaded = set(eval(out))  # noqa: S307 - our own repr of a list of names
    assert "files" in loaded
    assert not loaded & {"git", "archive", "network", "awk", "sed", "launchers"}, loaded
