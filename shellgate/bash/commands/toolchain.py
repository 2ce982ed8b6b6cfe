"""Toolchain queries (``npm --version``, ``cargo --version``, ``pip list`` …): which forms are
read-only, and why the others ask. Each verdict was measured (strace -f in a throwaway tree, with
hostile workspace config; tests/test_toolchain_queries.py re-runs the provable ones against the
real tools):

* ``npm --version`` / ``-v``: one execve (node), no write, no connect. npm 11 does load a
  workspace ``.npmrc`` first (its ``loglevel`` is honoured), but none of ``git``,
  ``script-shell``, ``node-options``, ``onload-script``, ``logs-dir``, ``timing``, ``cache``,
  ``userconfig``/``globalconfig`` pointed at a key made it run, write, connect or print.
  ``npm ls``/``list``/``why`` write a debug log into ``logs-dir`` (a workspace ``.npmrc`` moves it
  anywhere) and deletes old ones there, and stamp ``_update-notifier-last-checked``
  (the update check talks to the registry): not read-only.
* ``cargo``/``rustc --version`` / ``-V``: the rustup proxy runs the toolchain's binary; a
  ``rust-toolchain`` or ``rust-toolchain.toml`` in the cwd or above it chooses the toolchain,
  and one with ``path = "…"`` makes the proxy run ``…/bin/cargo`` — a program from wherever
  that file points (measured: a workspace file ran a workspace script). Read-only only when no
  such file exists in any candidate cwd or its parents and no write of the line may make one.
  ``cargo -vV`` runs ``getconf``/``lsb_release`` from PATH: refused.
* ``pip`` in every form, even ``--version``: the interpreter's site runs each ``.pth`` file of
  its site-packages (measured), and shellgate does not know which interpreter PATH gives: in
  a workspace venv the agent can write those files and pip's own code. ``pip freeze`` also runs
  ``git`` in editable checkouts, ``pip list`` checks PyPI for a newer pip. So pip asks, saying why.
* ``uv``: not measured (not installed where the tables are checked): asks.
"""

from __future__ import annotations

import os
from pathlib import Path

from .spec import Call, Finding, within

PIP_WHY = ("starts Python, whose site runs every .pth file of its site-packages (a workspace venv's "
           "are agent-writable, and so is pip's own code there; which interpreter PATH gives is "
           "not known)")
_PIP_SUB = {
    "freeze": "; pip freeze also runs git in editable checkouts",
    "list": "; pip list also asks PyPI for a newer pip (network, writes ~/.cache/pip)",
}
_NPM_LOGS = ("writes a debug log into logs-dir (a workspace .npmrc may move it anywhere), deletes "
             "old logs there and stamps the update check (which asks the registry)")
_NPM_SUB = {"ls": _NPM_LOGS, "list": _NPM_LOGS, "la": _NPM_LOGS, "ll": _NPM_LOGS, "why": _NPM_LOGS,
            "explain": _NPM_LOGS, "view": "asks the registry (network)",
            "info": "asks the registry (network)", "show": "asks the registry (network)"}
_TOOLCHAIN_FILES = ("rust-toolchain", "rust-toolchain.toml")
_MAX_UP = 64  # parent directories searched for a toolchain file (rustup walks to the root)


def _only_arg(call: Call, accepted: frozenset[str]) -> bool:
    args = call.command.args  # not when xargs appends words (`… | xargs npm -v`)
    return (not call.wild_tail and len(args) == 1 and args[0].static and not args[0].quoted
            and args[0].text in accepted)


def _finding(call: Call, why: str) -> list[Finding]:
    return [Finding(f"{call.command.name} {why}", call.command.words[0].span, "readonly.program")]


def _sub(call: Call) -> str:
    first = next((w for w in call.command.args if not w.text.startswith("-")), None)
    return first.text if first is not None and first.static else ""


def npm(call: Call) -> list[Finding]:
    """``npm --version`` / ``npm -v`` only (see the module docstring)."""
    if _only_arg(call, frozenset({"--version", "-v"})):
        return []
    sub = _sub(call)
    why = _NPM_SUB.get(sub)
    if why is not None:
        return _finding(call, f"{sub} {why}")
    return _finding(call, f"{sub or '(no subcommand)'} runs code or changes files (only npm --version is "
                          "read-only)")


def toolchain_file(call: Call) -> str | None:
    """The first ``rust-toolchain``/``rust-toolchain.toml`` rustup would read from one of the
    call's cwds (searched up to the root), or a reason it may exist: the cwds are unknown, a
    directory cannot be read, or the line writes one (or writes something unknown)."""
    if call.cwds is None:
        return "a cd target only known at run time"
    writes = call.line_writes
    if writes is None:
        return "a write of this line that is not known"
    for p in writes:
        if os.path.basename(p).startswith("rust-toolchain") or any(within(str(c), p) for c in call.cwds):
            return f"{p} (written by this line)"
    for c in call.cwds:
        d = Path(c)
        for _ in range(_MAX_UP):
            for name in _TOOLCHAIN_FILES:
                f = d / name
                try:
                    os.lstat(f)
                except FileNotFoundError:
                    continue
                except OSError:
                    return f"{f} (cannot be checked)"
                return str(f)
            if d.parent == d:
                break
            d = d.parent
        else:
            return f"{c} (too deep to search)"
    return None


def rust_version(call: Call) -> list[Finding]:
    """``cargo``/``rustc --version`` / ``-V`` when no toolchain file chooses the program."""
    name = call.command.name
    if not _only_arg(call, frozenset({"--version", "-V"})):
        return _finding(call, "runs code (build scripts, proc macros, the toolchain a rust-toolchain file "
                              f"names); only {name} --version is read-only")
    found = toolchain_file(call)
    if found is None:
        return []
    return _finding(call, f"--version: rustup's proxy reads {found}; a toolchain path there makes it run "
                          "a program from that directory, a channel may install one")


def pip(call: Call) -> list[Finding]:
    sub = _sub(call)
    return _finding(call, PIP_WHY + _PIP_SUB.get(sub, ""))


CUSTOM = {"npm": npm, "cargo": rust_version, "rustc": rust_version, "pip": pip, "pip3": pip}
