"""git configuration that runs programs.

``keys.py`` is the table of git keys whose value runs a program (and the ones reviewed as
harmless), checked against the installed git's documentation; ``config.py`` reads the
configuration the repository of a command's cwd (worktree included) and the user's global
config carry, and says whether a git read form would run one of them.
"""
