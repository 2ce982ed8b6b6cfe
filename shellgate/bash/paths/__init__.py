"""Sensitive paths: which words of a script name a secret (LEAK) or a file that runs code later
(IMPLANT), after bash would have expanded them.

* ``tables.py`` — which paths: the leak and implant patterns, with their sources.
* ``roles.py`` — how each command uses its words (read, write, data, not a path).
* ``scan.py`` — the bash side: which words of which executed commands are paths, read or
  written (operands, option values, redirects, sed/awk file names, program text).
* ``implicit.py`` — files a command touches without naming them (``gh auth token``).
* ``envsecrets.py`` — secrets in the environment and the commands that print them.
* ``resolve.py`` — a word as bash would expand it (``~``, ``$HOME``, ``..``, globs, symlinks,
  ``/proc`` links) matched against the table: ``scan`` (a whole script), ``check_path``.
* ``globs.py`` — glob-against-glob intersection (``cat ~/.ss?/*``).
* ``xargsnames.py`` — ``find D … | xargs R …``: when the names xargs appends are plain.
"""
