"""Parse a bash command string into the IR (``shellgate.bash.ir``).

``parser.parse`` is the entry. ``_lex.py`` reads the text once with bash's lexical rules and
masks what bashlex cannot parse, offsets unchanged; ``_fast.py`` gives the structure of plain
lists and pipelines (most real commands) and ``_bashlex.py`` loads bashlex with prebuilt
tables (``_bashlex_tables.json``, regenerate with ``python -m shellgate.bash.parse._bashlex
--write`` after a bashlex upgrade) for the rest; ``_decode.py`` decodes each word from its
source text as bash's quote removal would; ``walk.py`` lists every command bash may run,
nested ones and wrapper inners (through ``commands/wrappers.py``) included. The modules with a
leading underscore serve the parser alone.
"""
