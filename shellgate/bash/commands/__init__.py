"""Command tables for the read-only classifier: one module per command family.

``spec.py`` is the table language and its getopt-like reader; ``registry.py`` gathers every
family; ``targets.py`` decides where a write lands; ``expansions.py`` which ``$…`` forms are
inert. ``wrappers.py`` belongs to the parser's walker (where a wrapper's inner command starts);
``launchers.py`` is the read-only side of the same wrappers.
"""
