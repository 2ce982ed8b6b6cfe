"""Commands that are never read-only, with the reason in words the user understands.

Not a deny-list (anything not on a read-only list is refused anyway): this table only gives the
common refusals a better message than "not on the read-only list".
"""

from __future__ import annotations

_RUNS_CODE = "runs code (not read-only)"
_PAGER = "is a pager: it can run shell commands (!cmd, LESSOPEN preprocessors) and waits for a terminal"

REFUSED: dict[str, str] = {
    **dict.fromkeys(("python", "python3", "python2", "pypy3", "node", "deno", "bun", "ruby", "perl",
                     "php", "lua", "Rscript", "java", "go", "gcc", "cc", "clang",
                     "make", "cmake", "ninja", "pytest", "tox", "nox", "npx", "yarn", "pnpm",
                     "uvx", "poetry", "pipenv", "conda", "mvn", "gradle"),
                    _RUNS_CODE),
    **dict.fromkeys(("less", "more", "most", "pg", "pager", "man", "info", "view"), _PAGER),
    **dict.fromkeys(("vi", "vim", "nvim", "nano", "emacs", "ed", "ex", "code"), "is an editor"),
    "source": "runs a script file in this shell", ".": "runs a script file in this shell",
    "export": "changes the environment of later commands", "declare": "sets shell variables",
    "typeset": "sets shell variables", "local": "sets shell variables", "readonly": "sets shell variables",
    "unset": "removes shell variables or functions", "alias": "defines an alias",
    "unalias": "removes an alias",
    "let": "evaluates arithmetic that may assign (and run a[$(cmd)] subscripts)",
    "read": "assigns shell variables (and evaluates a[$(cmd)] subscripts)",
    "mapfile": "assigns shell variables", "readarray": "assigns shell variables",
    "getopts": "assigns shell variables", "trap": "installs a command to run on a signal",
    "shopt": "changes shell options", "enable": "enables or disables builtins",
    "umask": "changes the permissions of files created later", "ulimit": "changes resource limits",
    "kill": "sends signals to processes", "pkill": "sends signals to processes",
    "killall": "sends signals to processes",
    "fc": "runs commands from the history", "coproc": "starts a coprocess",
    "chmod": "changes file permissions", "chown": "changes file owners", "chgrp": "changes file groups",
    "ln": "creates links", "dd": "copies raw data to files or devices", "truncate": "truncates files",
    "shred": "overwrites files", "install": "copies files and sets permissions",
    "patch": "edits files", "crontab": "installs scheduled commands",
    "apt": "installs software (and its list, show, policy and search forms rebuild apt's package "
           "caches as apt-cache's do)",
    "apt-get": "installs software", "brew": "installs software",
    "apt-cache": "rewrites /var/cache/apt/pkgcache.bin and srcpkgcache.bin when they are stale (measured as "
                 "root: two 37 MB files; as a user who cannot write that directory it builds them in "
                 "memory), unless apt's configuration (apt.conf.d, APT_CONFIG, -c, -o) names no cache "
                 "file, which is not read here; it also runs the dpkg that configuration names",
    "docker": "controls containers", "kubectl": "controls a cluster", "gh": "talks to GitHub (may change it)",
    "sqlite3": "runs SQL that may change a database", "psql": "runs SQL", "mysql": "runs SQL",
    "zsh": "reads ~/.zshenv and runs code", "fish": "runs code", "ksh": "runs code",
    "scp": "copies files over the network", "rsync": "copies files (and can run programs)",
    "sftp": "copies files over the network", "watch": "runs a command repeatedly",
    "yes": "prints forever",
    "addr2line": "looks up line numbers through BFD, which follows the .gnu_debuglink of a stripped "
                 "object to a file named inside it (any path; measured with strace)",
    "top": "creates its configuration directory (~/.config/procps) when it is missing (strace)",
    "systemctl": "talks to the service manager over D-Bus or its private socket (a listing too: "
                 "the gate cannot see which calls it makes)",
    # npm, cargo, rustc, pip: commands/toolchain.py (the forms that are read-only, and why not the rest)
    "uv": "runs code (not measured here: it reads the workspace's uv.toml and pyproject.toml and may "
          "download Python or packages)",
    "yq": "is two different programs under one name: a Python wrapper of jq (Python's site runs .pth "
          "files, -i edits in place) or a Go program whose expressions read files and the environment "
          "(load, env, strenv)",
}
