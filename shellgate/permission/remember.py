"""What an "always" answer remembers for one sub-command: exactly the words the user approved,
or, for a listed subcommand, that subcommand followed by any words.

The user answers a prompt showing one command. Remembering more than that command is only
fair where the reach is plain from the words themselves: ``npm test`` with other flags is still
the project's test script, ``git log`` with other options still only reads. So the default is
the exact command (``rm build`` stays ``rm build``: ``rm build -r src`` is asked again;
``ssh devbox`` stays ``ssh devbox``), and a trailing ``*`` is stored only after a program and
subcommand listed in :data:`WIDEN`. Left out on purpose: subcommands whose operands are a host,
a remote, a path to delete or overwrite, a package to install or a program to run (``git push``,
``git clone``, ``git checkout``, ``npm install``, ``npm exec``, ``docker run``, ``kubectl exec``,
``cargo run``, ``pip install``): for them the next words are what the user judged. A global
flag before the subcommand (``git -C /repo log``) also means the exact form.

The prompt shows the stored form (``Prompt.remember``), and ``shellgate approvals list`` says
what each entry covers (:attr:`Approval.covers <.store.Approval.covers>`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .._lazyre import lazy_compile
from .subject import CommandView, SubCommand, view

NAME = "<name>"  # in WIDEN: one word naming a project script / compose command (`npm run build`)

# program -> subcommand word sequences after which more words may follow.
WIDEN: dict[str, tuple[tuple[str, ...], ...]] = {
    "git": tuple((w,) for w in ("status", "log", "diff", "show", "fetch", "add", "commit",
                                "grep", "blame", "describe", "shortlog", "ls-files", "rev-parse")),
    **{pm: ((("test",), ("t",), ("ls",), ("outdated",), ("run", NAME), ("run-script", NAME)))
       for pm in ("npm", "pnpm", "yarn")},
    "cargo": tuple((w,) for w in ("build", "check", "test", "clippy", "fmt", "doc", "bench",
                                  "tree", "metadata")),
    "go": tuple((w,) for w in ("build", "test", "vet", "fmt", "list", "doc")),
    **{pip: (("list",), ("show",), ("freeze",), ("check",)) for pip in ("pip", "pip3")},
    "docker": (("ps",), ("images",), ("logs",), ("inspect",), ("version",), ("info",),
               ("compose", "ps"), ("compose", "logs"), ("compose", "build"), ("compose", "up"),
               ("compose", "config")),
    "kubectl": tuple((w,) for w in ("get", "describe", "logs", "top", "version", "explain",
                                    "api-resources")),
}

_NAME_WORD = lazy_compile(r"[A-Za-z][A-Za-z0-9_:.-]*")


# Asks for which no one-step approval is suggested: they reach outside the workspace or a
# sensitive path (an "always" is not even offered for them), by the chain step that asked.
NO_SHORTCUT: dict[str, str] = {"chain.outside_roots": "it reaches outside the workspace",
                               "approval.dangerous_path": "it touches a sensitive path"}


def cover_prefixes(v: CommandView) -> list[tuple[tuple[str, ...], bool]] | None:
    """What an "always" answer stores for a command line: the :func:`approval_prefix` of every
    sub-command that needs covering; None when nothing may be remembered (nothing needs it, an
    unparsed script, a sub-command no prefix can cover)."""
    need = v.to_cover()
    if not need:
        return None
    out = []
    for sub in need:
        pre = approval_prefix(sub)
        if pre is None:
            return None
        out.append(pre)
    return out


def covering_rules(script: Any, readonly: Iterable[int] = ()) -> tuple[str, ...] | None:
    """The ``Bash(...)`` allow rules that would cover ``script`` next time — what an "always"
    answer would store, written as rules; None when no allow can cover it."""
    pres = cover_prefixes(view(script, readonly))
    if pres is None:
        return None
    return tuple(dict.fromkeys(f"Bash({' '.join(w)}{' *' if more else ''})" for w, more in pres))


def approval_prefix(sub: SubCommand) -> tuple[tuple[str, ...], bool] | None:
    """The words an "always allow" remembers for ``sub``, and whether more words may follow
    them. ``None`` when the command cannot be remembered (a dynamic or globbed word the stored
    form would have to cover)."""
    if sub.name is None or not sub.words:
        return None
    words = sub.words
    if (sub_words := _listed_subcommand(sub.name, words[1:])) is not None:
        return (sub.name, *sub_words), True
    if all(w.static and not w.glob for w in words):
        return tuple(w.text for w in words), False
    return None


def _listed_subcommand(name: str, rest: tuple[Any, ...]) -> tuple[str, ...] | None:
    """The longest :data:`WIDEN` entry of ``name`` the words ``rest`` start with."""
    best: tuple[str, ...] | None = None
    for entry in WIDEN.get(name, ()):
        if len(entry) > len(rest) or (best is not None and len(entry) <= len(best)):
            continue
        got = []
        for want, w in zip(entry, rest, strict=False):
            text = w.text if w.static and not w.glob else None
            if text is None or not (text == want or (want == NAME and _NAME_WORD.fullmatch(text))):
                break
            got.append(text)
        else:
            best = tuple(got)
    return best
