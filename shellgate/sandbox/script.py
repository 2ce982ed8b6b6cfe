"""The bash script around the user's command: rlimits in front, a cwd/status trailer behind.

The trailer is an EXIT trap, so it also runs after `exit 3` or `set -e`; it writes
``status NUL cwd NUL`` to a side fd, keeping stdout clean. If bash never runs it (killed,
`exec`), the cwd is unchanged and the process status is used. Rlimits are set with `ulimit`
(soft and hard) inside the script rather than in a ``preexec_fn`` (which costs CPython ~5 ms
per spawn, anchors-sandbox §6.2) or by ``prlimit`` on the wrapper (racy under bwrap).
"""

from __future__ import annotations

from pathlib import Path

from .policy import Limits

_ULIMIT_FLAGS = (("core", "-c", 1024), ("file_cap", "-f", 1024), ("open_files", "-n", 1),
                 ("cpu", "-t", 1), ("address_space", "-v", 1024))


def wrap(command: str, status_fd: int, limits: Limits, *, prelude: str = "",
         epilogue: str = "") -> str:
    """One prefix line (LINENO shifts by one), then the command verbatim. ``prelude``: one
    line of the caller's, run after the limits and before the command; ``epilogue``: the
    caller's, run first in the EXIT trap (no single quote in it). A persistent session
    restores its state in the one and dumps it in the other (``tools.shell_state``)."""
    if "'" in epilogue:
        raise ValueError("the trap's epilogue is single-quoted: it cannot hold a quote")
    then, rc = (f"__sg_rc=$?; {epilogue}; ", "$__sg_rc") if epilogue else ("", "$?")
    trap = (f"trap '{{ {then}builtin printf \"%s\\0%s\\0\" \"{rc}\" \"$PWD\" "
            f">&{status_fd}; }} 2>/dev/null' EXIT")
    parts = [trap]
    for attr, flag, unit in _ULIMIT_FLAGS:
        value = getattr(limits, attr)
        if value is not None:
            parts.append(f"ulimit {flag} {max(0, int(value) // unit)} 2>/dev/null")
    if prelude:
        parts.append(prelude)
    return "; ".join(parts) + "\n" + command


def parse_trailer(data: bytes) -> tuple[int, Path] | None:
    """(exit status, final cwd) from the side channel, or None when the trap did not run.

    The command could write to the fd too; the trap writes last, so the last record wins.
    """
    fields = data.split(b"\0")
    if len(fields) < 3 or fields[-1] != b"":
        return None
    status, cwd = fields[-3], fields[-2]
    if not status.isdigit() or not cwd.startswith(b"/"):
        return None
    return int(status), Path(cwd.decode("utf-8", "surrogateescape"))
