"""The other names of protected files inside the writable roots: a hard link is the file.

bwrap and Landlock confine paths, not inodes. A workspace file that is a hard link of
``~/.bashrc`` (the user once ran ``ln ~/.bashrc notes.txt``) is ``~/.bashrc``: a command the
classifier cannot read (``python3 -c "open('notes.txt','a').write(…)"``) writes it through the
writable workspace. The sandbox cannot make such a link (``link()`` across its mounts, or
without Landlock's REFER right, is EXDEV), so only links that exist when the line is built
matter, and only for files that have more than one name (``st_nlink > 1``) on the device of a
writable root: normally none, and then this costs the enumeration's stats and nothing more.

When there is one, its names inside the roots are found by a bounded walk by inode
(``hardlinks.names_of``) and protected as the file is: an implant's read-only, a secret's
hidden. A walk that cannot finish fails closed (:class:`LinkedUnknown`): the line is not run
with write access, since an unknown name may be any file in the roots.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from .._record import record
from .disk import Disk


class LinkedUnknown(ValueError):
    """A protected file has other names that could not all be found in the writable roots."""


@record
class Linked:
    """What :func:`other_names` found: names inside the roots to keep read-only (an implant's)
    and to hide (a secret's), and the protected files they are names of."""

    readonly: tuple[Path, ...] = ()
    masked: tuple[Path, ...] = ()
    files: tuple[Path, ...] = ()


def other_names(roots: Iterable[Path], home: Path, workspace: Path,
                disk: Disk | None = None) -> Linked:
    """The names inside ``roots`` of every implant or secret file of the classifier's table
    (``resolve.linked_sensitive``) that has more than one name and lies on the device of a
    root. Raises :class:`LinkedUnknown` when the enumeration of those files or the walk of the
    roots stopped at its bound."""
    from ..bash.paths import hardlinks
    from ..bash.paths.resolve import linked_sensitive

    disk = disk or Disk()
    tops = [r for r in dict.fromkeys(disk.realpath(str(p)) for p in roots) if disk.isdir(r)]
    devices = {st.st_dev for r in tops if (st := disk.stat(r)) is not None}
    if not devices:
        return Linked()
    found, complete = linked_sensitive(str(home), str(workspace), disk.note)
    if not complete:
        # HOME's sensitive trees are too big to list (a browser profile, ~/.emacs.d): the roots
        # holding no file with a second name on a root's device rules a link out as surely.
        others, walked = hardlinks.names_of(None, tops, hardlinks.MAX_ENTRIES, disk.note)
        if walked and not any(k[0] in devices for k in others):
            return Linked()
        raise LinkedUnknown(
            f"not run with write access: more than {hardlinks.MAX_ENTRIES} entries under HOME's "
            "sensitive directories, and the writable roots hold files with more than one name "
            "(or too many entries to tell), so a hard link of a protected file there could not "
            "be ruled out (a write through it would reach the file past the sandbox)")
    keys = {k: v for k, v in found.items() if k[0] in devices}
    if not keys:
        return Linked()
    names, complete = hardlinks.names_of(keys, tops, hardlinks.MAX_ENTRIES, disk.note)
    if not complete:
        path = next(iter(keys.values()))[0]
        raise LinkedUnknown(
            f"not run with write access: {path} has more than one name, and the search for the "
            f"others in {', '.join(tops)} stopped after {hardlinks.MAX_ENTRIES} entries (a write "
            f"through one reaches {path} past the sandbox; `find {tops[0]} -samefile {path}` "
            "lists them, and removing them lets the line run)")
    readonly: list[Path] = []
    masked: list[Path] = []
    files: list[Path] = []
    for key, (path, leak) in keys.items():
        own = os.path.realpath(path)   # inside a root, the file itself is protected by name
        inside = [Path(n) for n in names.get(key, ()) if n != own]
        if inside:
            (masked if leak else readonly).extend(inside)
            files.append(Path(path))
    return Linked(tuple(readonly), tuple(masked), tuple(files))
