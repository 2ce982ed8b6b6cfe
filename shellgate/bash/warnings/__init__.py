"""Destructive-command warnings: short noun phrases for the approval prompt, never a decision.

``destructive.warnings`` is the entry; ``table.py`` lists which command forms warn;
``args.py`` reads a command line the way the rules see it (flags, option values, positionals);
``targets.py`` says what an ``rm``/``chmod``/``dd`` operand means by its spelling (root, home,
a disk, a temp directory); ``sql.py`` finds destructive statements in SQL a client executes.
"""
