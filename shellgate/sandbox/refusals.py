"""Plain notes for a command that failed against the sandbox (#20 "refusals explained").

A failed ``git config user.name X`` says "Device or resource busy": bwrap's read-only bind of
``.git/config`` refused the rename, and nothing told the agent so. The kernel keeps no record
of a refused write that a program can read afterwards, so the notes come from the policy's own
lists — the paths it bound read-only, the roots it made writable, whether it turned the
network off — matched against what the failed command printed: a path of those lists named in
its error output, or the error the kernel gives for that refusal (read-only file system, no
network). Only for a command that failed; a note never changes what ran.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .policy import Policy, within_any

_READ_ONLY = re.compile(r"[Rr]ead-only file system|Device or resource busy|EROFS|EBUSY")
_NO_NETWORK = re.compile(r"Network is unreachable|Temporary failure in name resolution|"
                         r"Could not resolve host|Name or service not known|getaddrinfo failed|"
                         r"nodename nor servname", re.I)
_PATH = re.compile(r"""['"`‘]?(/?[\w.~+@%,=:-]+(?:/[\w.~+@%,=:-]+)+|\.[\w.-]+)['"`’]?""")


def notes(policy: Policy, stderr: str, cwd: Path, exit_code: int | None) -> tuple[str, ...]:
    """What the sandbox refused, in words, for a command that failed (``exit_code`` not 0)."""
    if exit_code in (0, None) or not stderr:
        return ()
    out: list[str] = []
    tail = stderr[-8192:]
    protected = {str(p): p for p in policy.readonly}
    for p in protected.values():
        names = {str(p), os.path.relpath(p, cwd)} if _under(p, cwd) else {str(p)}
        if any(n in tail for n in names):
            out.append(f"{os.path.relpath(p, cwd) if _under(p, cwd) else p} is read-only inside the "
                       "sandbox (a file that runs code later: change it yourself if you mean to)")
    for p, why in dict.fromkeys(policy.explain):   # a hidden git config without a copy (gitview.py)
        if str(p) in tail:
            out.append(f"{p} stays hidden inside the sandbox, where git fails on it: it holds a "
                       f"credential and no copy without it could be made ({why})")
    if not out and _READ_ONLY.search(tail):
        roots = tuple(str(r) for r in policy.roots())
        outside = [m.group(1) for m in _PATH.finditer(tail)
                   if not within_any(os.path.normpath(os.path.join(str(cwd), m.group(1))), roots)]
        where = f" ({outside[0]})" if outside else ""
        out.append(f"the sandbox's filesystem is read-only outside the workspace{where}: only "
                   f"{', '.join(roots)} and the private /tmp may be written")
    if not policy.network and (_NO_NETWORK.search(tail) or (
            "Operation not permitted" in tail and "socket" in tail)):
        out.append("the network is off inside the sandbox, Unix sockets included (the command "
                   "was not allowed as a network command)")
    return tuple(dict.fromkeys(out))


def _under(p: Path, top: Path) -> bool:
    return str(p) == str(top) or str(p).startswith(str(top).rstrip("/") + "/")
