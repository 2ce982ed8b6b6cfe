"""Destructive statements in SQL (and MongoDB shell) text handed to a database client.

Only text that a client will *execute* reaches this module (``psql -c``, ``mysql -e``, a
here-doc fed to ``psql``, ``echo … | mysql``); ``grep 'DROP TABLE'`` never does. String
literals and comments are removed first, so ``SELECT 'DROP TABLE x'`` is not a drop.
"""

from __future__ import annotations

import re

from ..._lazyre import lazy_compile
from .table import (
    ALTER_DROP,
    DELETES_ALL_ROWS,
    DROPS_DATABASE,
    DROPS_OBJECT,
    DROPS_TABLE,
    MONGO_DELETE_ALL,
    MONGO_DROP,
    TRUNCATES_TABLE,
    UPDATES_ALL_ROWS,
)

_STRIP = lazy_compile(
    r"""--[^\n]*            # line comment
      | \#[^\n]*            # MySQL line comment
      | /\*.*?\*/           # block comment
      | '(?:[^']|'')*'      # string literal
      | \$([A-Za-z_]*)\$.*?\$\1\$   # PostgreSQL dollar quoting
    """,
    re.S | re.X,
)
_DROP = lazy_compile(r"^DROP\s+(?:TEMPORARY\s+)?(MATERIALIZED\s+VIEW|FOREIGN\s+TABLE|\w+)\b")
_DB_OBJECTS = frozenset({"DATABASE", "SCHEMA", "KEYSPACE", "CATALOG"})
_TABLES = frozenset({"TABLE", "FOREIGN TABLE", "COLLECTION"})

_MONGO = (
    (lazy_compile(r"\.\s*dropDatabase\s*\("), MONGO_DROP),
    (lazy_compile(r"\.\s*drop\s*\(\s*\)"), MONGO_DROP),
    (lazy_compile(r"\.\s*(?:deleteMany|remove)\s*\(\s*(?:\{\s*\})?\s*\)"), MONGO_DELETE_ALL),
)


def sql_messages(text: str) -> list[str]:
    """Warning phrases for every destructive statement in ``text`` (SQL, or mongo shell JS)."""
    out: list[str] = []
    for rx, msg in _MONGO:
        if rx.search(text):
            out.append(msg)
    clean = _STRIP.sub(" ", text)
    for stmt in clean.split(";"):
        s = " ".join(stmt.split()).upper()
        if not s:
            continue
        if m := _DROP.match(s):
            kind = " ".join(m.group(1).split())
            out.append(DROPS_DATABASE if kind in _DB_OBJECTS else DROPS_TABLE if kind in _TABLES
                       else DROPS_OBJECT)
        elif s.startswith("TRUNCATE"):
            out.append(TRUNCATES_TABLE)
        elif re.match(r"^DELETE\s+(?:\w+\s+)?FROM\b", s) and not re.search(r"\bWHERE\b", s):
            out.append(DELETES_ALL_ROWS)
        elif re.match(r"^UPDATE\b.*\bSET\b", s) and not re.search(r"\bWHERE\b", s):
            out.append(UPDATES_ALL_ROWS)
        elif re.match(r"^ALTER\s+TABLE\b.*\bDROP\b", s):
            out.append(ALTER_DROP)
        elif re.match(r"^WITH\b.*\bDELETE\s+FROM\b", s) and not re.search(r"\bWHERE\b", s):
            out.append(DELETES_ALL_ROWS)
    return list(dict.fromkeys(out))
