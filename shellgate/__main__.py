"""``python -m shellgate``: the same as the ``shellgate`` command.

Cheaper than a console script where the script's wrapper imports more than ``shellgate.cli``.
"""

from .cli import main

main()
