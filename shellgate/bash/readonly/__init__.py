"""Is a parsed script read-only, and if not, the strongest thing it may do.

``classify.py`` walks every command the parser listed through its table in ``commands/`` (how it
runs, assignments, redirects, the command's own flags and operands, where writes land) and
gives the :class:`~shellgate.bash.readonly.classify.ReadonlyResult`; ``zsh.py`` refuses words
zsh would expand otherwise than bash; ``inherited.py`` judges each command against what a
persistent session carries into it (``Context.inherited``: variables, functions, aliases, a PATH
in front). Why one program's form is or is not read-only is in its
family's module under ``commands/``, not here.
"""
