"""What an operand of ``rm``/``chmod``/``dd`` means: the root, a home directory, system files,
a temp directory (exempt from the recursive-delete warning, as dcg does), a disk device, a
credential file. Judged on the spelling alone: warnings have no cwd or HOME to resolve against.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from ..facts import Context, PathClass, PathOp
from ..ir import Word
from . import table as T

_TEMP_ROOTS = ("/tmp/", "/var/tmp/", "/private/tmp/", "/dev/shm/", "$TMPDIR/", "${TMPDIR}/",
               "${TMPDIR:-/tmp}/", "${TMPDIR:-/var/tmp}/", "$RUNNER_TEMP/", "${RUNNER_TEMP}/")
_SYSTEM_TOP = frozenset({"bin", "boot", "dev", "etc", "lib", "lib32", "lib64", "libx32", "opt", "proc",
                         "run", "sbin", "srv", "sys", "usr", "var", "snap", "mnt", "media", "system",
                         "library", "applications", "private", "nix"})
_SYSTEM_DEEP = frozenset({"usr", "var", "etc", "opt", "lib", "library", "system"})  # /usr/lib is system too
_HOME_WORDS = ("~", "$HOME", "${HOME}")
# Warnings have no context: `~` and relative paths are judged against places that exist nowhere.
_FAKE_CTX = Context(cwd=Path("/nonexistent-shellgate-cwd"), workspace=Path("/nonexistent-shellgate-cwd"),
                    home=Path("/nonexistent-shellgate-home"))


def is_temp(text: str) -> bool:
    """Under a temp directory, one level down at least, no ``..`` (dcg's exemption)."""
    for root in _TEMP_ROOTS:
        if text.startswith(root):
            rest = text[len(root):].strip("/")
            first = rest.split("/", 1)[0]
            return bool(first) and first not in ("*", ".", "..") and ".." not in rest.split("/")
    return False


def special(w: Word) -> str | None:
    """The worst thing deleting this operand may mean, or None for an ordinary path."""
    t = w.text
    if not t:
        return None
    home_rest = None
    for h in _HOME_WORDS:
        if t == h or t.startswith(h + "/"):
            home_rest = t[len(h):]
            break
    if home_rest is not None:
        rest = posixpath.normpath("/" + home_rest).strip("/")
        if rest in ("", "."):
            return T.DELETES_HOME
        if rest in ("*", ".*", "*/"):
            return T.DELETES_HOME_ALL
        if w.glob:
            return T.DELETES_HOME_GLOB
    if t.startswith("/"):
        norm = posixpath.normpath("/" + t.lstrip("/"))
        parts = [p for p in norm.split("/") if p]
        top = parts[0].lower() if parts else ""
        if not parts or parts == ["*"] or parts == [".*"]:
            return T.DELETES_ROOT
        if top in ("home", "users", "root") and (len(parts) == 1 or (len(parts) == 2 and top != "root")):
            return T.DELETES_HOME  # /home, /home/alice, /root
        if top in ("home", "users") and len(parts) == 3 and parts[2] in ("*", ".*"):
            return T.DELETES_HOME_ALL
        if top in _SYSTEM_TOP and not is_temp(norm + "/x") and (
                len(parts) == 1 or (len(parts) == 2 and (parts[1] in ("*", ".*") or top in _SYSTEM_DEEP))):
            return T.DELETES_SYSTEM
    stripped = t.rstrip("/") or t
    if stripped in (".", "./."):
        return T.DELETES_CWD
    if stripped in ("..", "../") or re.fullmatch(r"(\.\./)+\.\.", stripped):
        return T.DELETES_PARENT
    if stripped in ("*", "./*", ".*", "./.*"):
        return T.DELETES_CWD_ALL
    if w.static or "$HOME" in t or "${HOME}" in t:
        from ..paths.resolve import check_path

        hit = check_path(t.replace("${HOME}", "~").replace("$HOME", "~"), PathOp.WRITE, _FAKE_CTX)
        if hit is not None and hit.cls is PathClass.LEAK:
            return T.DELETES_SECRET
    return None


def is_disk(path: str) -> bool:
    return bool(re.match(r"/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|mapper/|loop|sr|nbd|zd)", path))


def world_writable(mode: str) -> bool:
    if re.fullmatch(r"[0-7]{3,4}", mode):
        return mode[-1] in "2367"
    for clause in mode.split(","):
        m = re.fullmatch(r"([ugoa]*)([-+=])([rwxXst]*)", clause)
        if m and m.group(2) in "+=" and "w" in m.group(3) and ("o" in m.group(1) or "a" in m.group(1)):
            return True
    return False


def setuid(mode: str) -> bool:
    if re.fullmatch(r"[0-7]{4}", mode):
        return mode[0] in "234567"
    return any((m := re.fullmatch(r"([ugoa]*)([+=])([rwxXst]*)", c)) is not None and "s" in m.group(3)
               for c in mode.split(","))
