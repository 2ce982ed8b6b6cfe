"""``python -I -m shellgate.sandbox.confine [--write P]… [--hide P]… [--net] -- PROGRAM …``

The Landlock tier of a hook's confined line (:mod:`.enforce`): restrict this process with
Landlock (read everywhere but the hidden paths, write only under ``--write`` roots, TCP only
with ``--net``) and the seccomp filter, then exec ``PROGRAM``. Restrictions survive ``exec``
and cannot be lifted. Any failure exits 126 with a reason and runs nothing.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def _parse(argv: list[str]) -> tuple[list[Path], list[Path], bool, list[str]]:
    writable: list[Path] = []
    hidden: list[Path] = []
    network = False
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return writable, hidden, network, argv[i + 1:]
        if arg == "--net":
            network = True
        elif arg in ("--write", "--hide") and i + 1 < len(argv):
            (writable if arg == "--write" else hidden).append(Path(argv[i + 1]))
            i += 1
        else:
            raise ValueError(f"unknown argument {arg!r}")
        i += 1
    raise ValueError("no program after --")


def main(argv: list[str]) -> int:
    try:
        writable, hidden, network, program = _parse(argv)
        if not program:
            raise ValueError("no program after --")
        from . import landlock, seccomp

        filt = seccomp.filter_bytes(network)
        landlock.restrict_thread(writable, hidden, network=network)
        seccomp.install(filt)
        os.execv(program[0], program)
    except Exception as exc:  # noqa: BLE001 - nothing may run unconfined
        print(f"shellgate: not run: the sandbox could not be set up ({exc})", file=sys.stderr)
    return 126


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
