"""git's global options (``git -C DIR -c k=v --no-pager SUB …``): declared once, here, as a
read-only table, and read through the one option reader by every analysis that must find the
subcommand — the read-only check (``git.py``), the sensitive-path scanner (``pathscan``,
``pathimplicit``) and the destructive warnings (``warnings_table.VALUED["git"]``).

A module of its own so that the path scanner and the warnings can read git's global options
without importing the whole git family. git reads them itself (``git.c``), not with getopt:
they stop at the subcommand, are never abbreviated, and ``--exec-path`` takes a value only
when attached (alone it prints the path).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..ir import Word
from .getopt import Arity, Item, split
from .spec import Command, Flag, Takes

V = Takes.VALUE
P = Takes.PATH
O = dict(takes=V, optional=True)  # noqa: E741 - "optional value" shorthand

GLOBAL = Command(
    "git", reads=False, permute=False, abbrev=False,
    safe=[Flag("--no-pager"), Flag("-P"), Flag("--no-optional-locks"), Flag("--literal-pathspecs"),
          Flag("--glob-pathspecs"), Flag("--noglob-pathspecs"), Flag("--icase-pathspecs"),
          Flag("--no-replace-objects"), Flag("--no-lazy-fetch"), Flag("--no-advice"), Flag("--version"),
          Flag("--html-path"), Flag("--man-path"), Flag("--info-path"), Flag("-C", takes=P)],
    unsafe={
        Flag("-c", takes=V): "sets configuration for this run (core.pager, diff.external … run programs)",
        Flag("--config-env", takes=V): "sets configuration from the environment",
        Flag("--git-dir", takes=P): "uses another repository (its config is not checked)",
        Flag("--work-tree", takes=P): "uses another work tree",
        Flag("--namespace", takes=V): "uses a ref namespace",
        Flag("--exec-path", **O): "changes where git finds its programs",
        Flag("-p", "--paginate"): "runs a pager",
        Flag("--bare"): "treats the directory as a bare repository",
        Flag("-h", "--help"): "opens the manual (runs a pager or a browser)",
        Flag("--super-prefix", takes=V): "is an internal option",
        Flag("--list-cmds", takes=V): "is an internal option",
    },
)

# The global options that take a separate value word (`-C DIR`, `--git-dir DIR`).
VALUED = frozenset(n for n, o in (*((f"-{k}", v) for k, v in GLOBAL.syntax.short.items()),
                                  *GLOBAL.syntax.long.items()) if o.arity is Arity.REQUIRED)


def split_globals(words: Sequence[Word]) -> tuple[int, list[Item]]:
    """git's arguments (after ``git``) read up to the subcommand: its index in ``words``
    (``len(words)`` when there is none) and the global options before it, as read."""
    r = split(words, GLOBAL.syntax)  # options stop at the first operand: the subcommand
    return len(words) - len(r.operands), r.items
