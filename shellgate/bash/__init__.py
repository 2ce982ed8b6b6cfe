"""The bash core: a command string in, every fact the permission layer needs out; it knows no
modes, rules or approvals (``tests/test_import_graph.py``).

:func:`shellgate.bash.analysis.analyse` is the one entry that ties the rooms together. Each
room is a package whose docstring says what is in it; they import in this order, each only from
the ones before it (a function may reach later where the test lists why):

``ir.py``, ``facts.py``
    The records every room shares: the parsed script (every command bash would run, with its
    words, spans and how it is reached) and the findings (reasons, sensitive hits, the effect).
``git/``
    Does the repository a git command runs in carry configuration that runs programs; which
    git keys do.
``commands/``
    The per-command tables, one module per family: which flags and operand forms of each
    program are read-only, where its writes land (``grep.py`` says that ``grep -r`` reads a
    directory). Start here for "why is X (not) read-only".
``parse/``
    Text to IR: lexer pre-pass, the plain-word fast path, the bashlex bridge, word decoding,
    the walk that unwraps ``sudo``/``xargs``/``bash -c``.
``paths/``
    Sensitive paths: the tables (which files leak or implant), the roles (how each command
    uses its words), the scanner, glob intersection, resolution of ``~``/``..``/symlinks.
``readonly/``
    The read-only classifier that walks every command through its table, and the zsh reading.
``warnings/``
    Destructive-command warnings: the table, the argument reader, operand targets, SQL text.
``never.py``
    Commands no mode, rule or answer may let through.
``analysis.py``
    Parse, scan, classify, warn: the :class:`~shellgate.bash.analysis.Analysis` of a command.

Nothing here imports a room at package import time: ``import shellgate.bash.paths.resolve``
loads that module and what it needs, not the whole room (the hook stays lean).
"""
