"""Destructive-command warnings: short noun phrases for the approval prompt.

Works on the IR, so data is not code: ``echo "rm -rf /"``, ``git commit -m "reset --hard"``,
``grep 'DROP TABLE'``, comments and inert here-docs never reach this module as commands. What
does reach it is every command bash would run, wrappers unwrapped by the parser (``sudo``,
``xargs``, ``find -exec``, ``bash -c``). On top of that this module looks *into* the few
places where text becomes code for another program: SQL handed to a database client, a script
fed to a shell on stdin (``curl … | sh``, ``bash <<EOF``, ``echo … | sh``), the command line of
``ssh host …``, ``su -c``, ``watch`` and ``docker exec`` / ``kubectl exec``.

A warning never changes a decision (SPEC §3). The table of command forms is
``warnings_table.py``; the forms that need operands or structure are handled here.

Pipelines: the IR marks each stage with ``Via.PIPELINE`` but carries no pipeline id. Stages of
one pipeline share their ``via`` prefix and parent and are separated in the source by nothing
but ``|`` / ``|&`` and blanks, so they are regrouped from their spans (``_pipelines``).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path

from . import warnings_table as T
from .facts import Context, PathClass, PathOp, Reason
from .ir import Command, CommandKind, Redirect, Script, Span, Via, Word
from .sqlwarn import sql_messages

__all__ = ["warnings"]

_HOME_PREFIX = re.compile(r"^(?:\$HOME|\$\{HOME\}|~)(?=/)")
_MAX_DEPTH = 4  # nested scripts (ssh "…", bash <<EOF, echo … | sh) analysed at most this deep

# --------------------------------------------------------------------------- argv view


@dataclass(slots=True)
class _Args:
    """A command's own arguments split getopt-style."""

    words: tuple[Word, ...]
    flags: dict[str, Word] = field(default_factory=dict)       # option -> the word that gave it
    values: dict[str, list[str]] = field(default_factory=dict)  # option -> values (`=v` or next word)
    value_words: dict[str, list[Word]] = field(default_factory=dict)  # the words holding those values
    positionals: list[Word] = field(default_factory=list)
    after_ddash: list[Word] = field(default_factory=list)

    def has(self, cond: str, *, strict: bool = False) -> bool:
        """Is option ``cond`` given? ``--x=v`` asks for that value. Long options may be
        abbreviated (getopt and git accept unique prefixes); ``strict`` (used for the options
        that *suppress* a warning) asks for a longer prefix, so ``--d`` is never ``--dry-run``."""
        name, eq, want = cond.partition("=")
        names = [name]
        if len(name) > 2 and name[0] == "-" and name[1] != "-":
            names.append("-" + name)  # Go-style tools accept -destroy and --destroy
        for n in names:
            if eq:
                if want in self.values.get(n, ()):
                    return True
                continue
            if n in self.flags:
                if strict and self.values.get(n) and all(v in ("none", "false", "0") for v in self.values[n]):
                    return False
                return True
            if n.startswith("--"):
                shortest = 6 if strict else 4
                if any(f.startswith("--") and len(f) >= shortest and n.startswith(f) for f in self.flags):
                    return True
        return False

    def word(self, *conds: str) -> Word | None:
        for c in conds:
            if c in self.flags:
                return self.flags[c]
        return None


def _parse_args(words: Iterable[Word], valued: frozenset[str] = frozenset()) -> _Args:
    a = _Args(tuple(words))
    ws = a.words
    i, ended = 0, False
    while i < len(ws):
        w = ws[i]
        t = w.text
        i += 1
        if ended:
            a.positionals.append(w)
            a.after_ddash.append(w)
            continue
        if not w.static or len(t) < 2 or t[0] != "-":
            a.positionals.append(w)
            continue
        if t == "--":
            ended = True
            a.flags.setdefault("--", w)
            continue
        name, eq, val = t.partition("=")
        a.flags.setdefault(name, w)
        if eq:
            a.values.setdefault(name, []).append(val)
            a.value_words.setdefault(name, []).append(w)
        elif name in valued:
            if i < len(ws):
                a.values.setdefault(name, []).append(ws[i].text)
                a.value_words.setdefault(name, []).append(ws[i])
                i += 1
        elif not t.startswith("--"):
            if t[:2] in valued and len(t) > 2:
                a.flags.setdefault(t[:2], w)
                a.values.setdefault(t[:2], []).append(t[2:])
                a.value_words.setdefault(t[:2], []).append(w)
            else:
                for c in t[1:]:
                    if c.isalnum():
                        a.flags.setdefault("-" + c, w)
    return a


def _base(name: str) -> str:
    return name.rsplit("/", 1)[-1]


_PY = frozenset({"python", "python2", "python3", "pypy", "pypy3"})
_RUNNERS = frozenset({"npx", "bunx", "pnpx", "uvx"})


def _resolve(name: str, words: tuple[Word, ...]) -> tuple[str, tuple[Word, ...]]:
    """See through spellings of the same program: ``/bin/rm``, ``busybox rm``,
    ``python -m twine``, ``npx prisma``, ``python manage.py``."""
    base = _base(name)
    for _ in range(3):
        if base == "busybox" and words and words[0].static:
            base, words = _base(words[0].text), words[1:]
        elif base in _PY and words and words[0].text == "-m" and len(words) > 1:
            base, words = words[1].text, words[2:]
        elif base in _PY and words and _base(words[0].text) == "manage.py":
            base, words = "manage.py", words[1:]
        elif base in _RUNNERS and words:
            k = 0
            while k < len(words) and words[k].text.startswith("-"):
                k += 1
            if k >= len(words):
                break
            base, words = _base(words[k].text).split("@")[0] or base, words[k + 1:]
        else:
            break
    return base, words


# --------------------------------------------------------------------------- paths in rm & co

_TEMP_ROOTS = ("/tmp/", "/var/tmp/", "/private/tmp/", "/dev/shm/", "$TMPDIR/", "${TMPDIR}/",
               "${TMPDIR:-/tmp}/", "${TMPDIR:-/var/tmp}/", "$RUNNER_TEMP/", "${RUNNER_TEMP}/")
_SYSTEM_TOP = frozenset({"bin", "boot", "dev", "etc", "lib", "lib32", "lib64", "libx32", "opt", "proc",
                         "run", "sbin", "srv", "sys", "usr", "var", "snap", "mnt", "media", "system",
                         "library", "applications", "private", "nix"})
_SYSTEM_DEEP = frozenset({"usr", "var", "etc", "opt", "lib", "library", "system"})  # /usr/lib is system too
_HOME_WORDS = ("~", "$HOME", "${HOME}")
_FAKE_CTX = Context(cwd=Path("/nonexistent-shellgate/cwd"), workspace=Path("/nonexistent-shellgate/cwd"),
                    home=Path("/nonexistent-shellgate/home"))


def _is_temp(text: str) -> bool:
    """Under a temp directory, one level down at least, no ``..`` (dcg's exemption)."""
    for root in _TEMP_ROOTS:
        if text.startswith(root):
            rest = text[len(root):].strip("/")
            first = rest.split("/", 1)[0]
            return bool(first) and first not in ("*", ".", "..") and ".." not in rest.split("/")
    return False


def _special(w: Word) -> str | None:
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
        if top in _SYSTEM_TOP and not _is_temp(norm + "/x") and (
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
        from .paths import check_path

        hit = check_path(t.replace("${HOME}", "~").replace("$HOME", "~"), PathOp.WRITE, _FAKE_CTX)
        if hit is not None and hit.cls is PathClass.LEAK:
            return T.DELETES_SECRET
    return None


# --------------------------------------------------------------------------- the warner


class _Warner:
    def __init__(self, script: Script, depth: int = 0) -> None:
        self.script = script
        self.cmds = script.commands
        self.depth = depth
        self.out: list[Reason] = []
        self.children: dict[int, list[int]] = {}
        for i, c in enumerate(self.cmds):
            if c.parent is not None:
                self.children.setdefault(c.parent, []).append(i)

    # -- helpers ---------------------------------------------------------------------------

    def warn(self, message: str, span: Span | None, family: str) -> None:
        self.out.append(Reason(message, span, f"warn.{family}"))

    def own_words(self, i: int) -> tuple[Word, ...]:
        """Arguments of command ``i`` that are its own, not an unwrapped inner command's."""
        cmd = self.cmds[i]
        starts = [self.cmds[k].span[0] for k in self.children.get(i, ())
                  if self.cmds[k].via and self.cmds[k].via[-1] in (Via.WRAPPER, Via.SHELL_C, Via.XARGS,
                                                                    Via.FIND_EXEC)]
        args = cmd.words[1:]
        if not starts:
            return args
        limit = min(starts)
        return tuple(w for w in args if w.span[1] <= limit)

    def has_child(self, i: int, via: Via) -> bool:
        return any(self.cmds[k].via and self.cmds[k].via[-1] is via for k in self.children.get(i, ()))

    def effective(self, i: int) -> int:
        """Follow wrappers down: the stage ``sudo bash`` is, in effect, ``bash``."""
        for _ in range(8):
            inner = [k for k in self.children.get(i, ()) if self.cmds[k].via[-1] is Via.WRAPPER]
            if not inner:
                break
            i = inner[0]
        return i

    def nested(self, text: str, span: Span | None) -> None:
        """Warnings of a script hidden in text (ssh "…", bash <<EOF, echo … | sh), at ``span``."""
        if self.depth >= _MAX_DEPTH or not text.strip():
            return
        from .parser import parse

        sub = _Warner(parse(text), self.depth + 1)
        for r in sub.run():
            self.out.append(Reason(r.message, span, r.rule))

    # -- main loop -------------------------------------------------------------------------

    def run(self) -> tuple[Reason, ...]:
        for i, cmd in enumerate(self.cmds):
            self.command(i, cmd)
        self.pipelines()
        self.substitutions()
        runs = [r.span for r in self.out if r.message in (T.RUNS_DOWNLOAD, T.RUNS_DECODED) and r.span]
        seen: set[tuple[str, Span | None]] = set()
        result = []
        for r in self.out:
            if r.message == T.DYNAMIC_CODE and r.span and any(s[0] <= r.span[0] and r.span[1] <= s[1]
                                                               for s in runs):
                continue  # `eval "$(curl …)"`: the download says more than "built at run time"
            if (r.message, r.span) not in seen:
                seen.add((r.message, r.span))
                result.append(r)
        return tuple(result)

    def command(self, i: int, cmd: Command) -> None:
        if cmd.kind is CommandKind.FUNCDEF:
            self.fork_bomb(i, cmd)
            return
        if cmd.kind is not CommandKind.SIMPLE:
            return
        self.redirects(cmd)
        if not cmd.words:
            return
        name = cmd.name
        if name is None:
            first = cmd.words[0].text
            if not _HOME_PREFIX.match(first) or "$" in _HOME_PREFIX.sub("", first, 1) or "`" in first:
                self.warn(T.DYNAMIC_NAME, cmd.words[0].span, "dynamic")
                return
            name = first  # `$HOME/.local/bin/uv`: only HOME is unknown, the program is not
        base, words = _resolve(name, self.own_words(i))
        self.argv(base, words, cmd, i)

    def argv(self, base: str, words: tuple[Word, ...], cmd: Command, i: int | None) -> None:
        """Warnings for one command line (``i`` is None for a virtual one, e.g. docker exec's)."""
        span = cmd.span
        if base in T.PRIVILEGE:
            self.warn(T.ELEVATED, cmd.words[0].span if i is not None else span, "privilege")
        handler = _HANDLERS.get(base)
        if handler is not None:
            handler(self, base, words, cmd, i)
        a = _parse_args(words, T.VALUED.get(base, frozenset()))
        taken: set[str] = set()
        for rule in _RULES_BY_NAME.get(base, ()):
            if rule.group and rule.group in taken:
                continue
            if _rule_matches(rule, a):
                self.warn(rule.message, span, rule.family)
                if rule.group:
                    taken.add(rule.group)
        if base in T.DB_CLIENTS:
            self.db_client(base, words, cmd, i)
        if base in T.EXEC_HOSTS:
            self.exec_host(base, words, cmd)
        if base in ("ssh", "su", "watch", "eval") or base in T.SHELLS:
            self.code_argument(base, words, cmd, i)

    # -- redirects -------------------------------------------------------------------------

    def redirects(self, cmd: Command) -> None:
        bare = not cmd.words or cmd.name in (":", "true")
        for r in cmd.redirects:
            if r.target is None or r.op in ("<<", "<<-", "<<<", "<", "<&"):
                continue
            t = r.target.text
            if _is_disk(t):
                self.warn(T.OVERWRITES_DISK, r.span, "disk")
            elif bare and r.op in (">", ">|", "&>") and not t.startswith("/dev/") and not t.isdigit():
                self.warn(T.TRUNCATES, r.span, "fs")

    # -- families needing operands ---------------------------------------------------------

    def rm(self, base: str, words: tuple[Word, ...], cmd: Command, i: int | None) -> None:
        recursive, interactive, ended = False, False, False
        operands: list[Word] = []
        for w in words:
            t = w.text
            if ended or not w.static or not t.startswith("-") or t == "-":
                operands.append(w)
                continue
            if t == "--":
                ended = True
            elif t.startswith("--"):
                opt, _, val = t.partition("=")
                if len(opt) >= 4 and "--recursive".startswith(opt):
                    recursive = True
                elif len(opt) >= 3 and "--force".startswith(opt):
                    interactive = False
                elif len(opt) >= 3 and "--interactive".startswith(opt):
                    interactive = val in ("", "always")
            else:
                for c in t[1:]:
                    if c in "rR":
                        recursive = True
                    elif c == "i":
                        interactive = True
                    elif c == "f":
                        interactive = False
        if base == "unlink":
            recursive = False
        for w in operands:
            msg = _special(w)
            if msg is not None and not (interactive and msg in _ASKED_ANYWAY):
                self.warn(msg, w.span, "fs")
        if interactive:
            return
        via = cmd.via[-1] if cmd.via else Via.TOP
        if via is Via.FIND_EXEC and base == "rm":
            if not (i is not None and self.find_in_temp(cmd.parent)):
                self.warn(T.DELETES_MATCHED, cmd.span, "fs")
        elif via is Via.XARGS and base == "rm":
            self.warn(T.DELETES_LISTED, cmd.span, "fs")
        if recursive and operands and not all(_is_temp(w.text) for w in operands):
            self.warn(T.RECURSIVE_DELETE, cmd.span, "fs")

    def find_in_temp(self, idx: int | None) -> bool:
        if idx is None:
            return False
        starts = []
        for w in self.cmds[idx].words[1:]:
            if w.text.startswith(("-", "(", "!")):
                break
            starts.append(w)
        return bool(starts) and all(_is_temp(w.text) for w in starts)

    def find(self, base: str, words: tuple[Word, ...], cmd: Command, i: int | None) -> None:
        starts: list[Word] = []
        for w in words:
            if w.text.startswith(("-", "(", "!")):
                break
            starts.append(w)
        delete = next((w for w in words if w.text == "-delete"), None)
        if delete is None:
            return
        for w in starts:  # `find . -delete` searches from `.`; it does not delete `.` itself
            if (msg := _special(w)) in (T.DELETES_ROOT, T.DELETES_HOME, T.DELETES_HOME_ALL, T.DELETES_SYSTEM):
                self.warn(msg, w.span, "fs")
        if not (starts and all(_is_temp(w.text) for w in starts)):
            self.warn(T.DELETES_MATCHED, delete.span, "fs")

    def dd(self, base: str, words: tuple[Word, ...], cmd: Command, i: int | None) -> None:
        for w in words:
            key, eq, val = w.text.partition("=")
            if key == "of" and eq:
                if _is_disk(val):
                    self.warn(T.OVERWRITES_DISK, w.span, "disk")
                elif not val.startswith("/dev/"):
                    self.warn(T.OVERWRITES_FILE, w.span, "fs")

    def truncate(self, base: str, words: tuple[Word, ...], cmd: Command, i: int | None) -> None:
        a = _parse_args(words, frozenset({"-s", "--size", "-r", "--reference"}))
        sizes = a.values.get("-s", []) + a.values.get("--size", [])
        if sizes and all(s.startswith(("+", ">")) for s in sizes):
            return
        self.warn(T.TRUNCATES, cmd.span, "fs")

    def cp(self, base: str, words: tuple[Word, ...], cmd: Command, i: int | None) -> None:
        a = _parse_args(words)
        if len(a.positionals) == 2 and a.positionals[0].text == "/dev/null":
            self.warn(T.TRUNCATES, cmd.span, "fs")

    def chmod(self, base: str, words: tuple[Word, ...], cmd: Command, i: int | None) -> None:
        a = _parse_args(words, frozenset({"--reference"}))
        ops = a.positionals
        recursive = a.has("-R") or a.has("--recursive")
        if base == "chmod" and ops and not a.has("--reference"):
            mode = ops[0]
            if _world_writable(mode.text):
                self.warn(T.WORLD_WRITABLE, mode.span, "perms")
            if _setuid(mode.text):
                self.warn(T.SETUID, mode.span, "perms")
            ops = ops[1:]
        elif base in ("chown", "chgrp") and ops and not a.has("--reference"):
            ops = ops[1:]
            if recursive:
                self.warn(T.CHOWN_RECURSIVE, cmd.span, "perms")
        for w in ops:
            msg = _special(w)
            if msg in (T.DELETES_ROOT, T.DELETES_SYSTEM) or (recursive and msg in (T.DELETES_HOME,
                                                                                    T.DELETES_HOME_ALL)):
                self.warn(T.PERMS_SYSTEM, w.span, "perms")

    def kill(self, base: str, words: tuple[Word, ...], cmd: Command, i: int | None) -> None:
        sig_seen, pids, k, probe = False, [], 0, False
        while k < len(words):
            t = words[k].text
            if t in ("-l", "-L", "--list"):
                return
            if t == "--":
                pids.extend(words[k + 1:])
                break
            if t in ("-s", "-n", "--signal"):
                probe = k + 1 < len(words) and words[k + 1].text == "0"
                sig_seen, k = True, k + 2
                continue
            if t.startswith("-") and len(t) > 1 and not sig_seen:
                probe = t == "-0"
                sig_seen, k = True, k + 1
                continue
            pids.append(words[k])
            k += 1
        if probe:  # signal 0 only asks whether the process exists
            return
        for w in pids:
            msg = {"-1": T.SIGNALS_ALL, "1": T.SIGNALS_INIT, "0": T.SIGNALS_GROUP}.get(w.text)
            if msg:
                self.warn(msg, w.span, "process")

    def git(self, base: str, words: tuple[Word, ...], cmd: Command, i: int | None) -> None:
        a = _parse_args(words, T.VALUED["git"])
        pos = a.positionals
        if not pos:
            return
        sub = pos[0].text
        rest = pos[1:]
        if sub == "checkout":
            creating = a.has("-b") or a.has("-B") or a.has("--orphan")
            if a.has("-f") or a.has("--force") or a.has("--ours") or a.has("--theirs") or a.after_ddash and not creating or any(w.text in (".", "./", ":/", "*", "-") and w.text != "-" for w in rest) and not creating or a.has("--pathspec-from-file"):
                self.warn(T.DISCARD_CHANGES, cmd.span, "git")
        elif sub == "restore":
            staged = a.has("--staged") or a.has("-S")
            worktree = a.has("--worktree") or a.has("-W")
            if worktree or not staged:
                self.warn(T.DISCARD_CHANGES, cmd.span, "git")
        elif sub == "push":
            if a.has("-n", strict=True) or a.has("--dry-run", strict=True):
                return
            force = a.word("--force", "-f")
            if force is None and any(f.startswith("--") and len(f) >= 5 and "--force".startswith(f)
                                     for f in a.flags):
                force = next(w for f, w in a.flags.items() if f.startswith("--") and "--force".startswith(f))
            if force is not None:
                self.warn(T.REWRITES_REMOTE, force.span, "git")
            if (m := a.word("--mirror")) is not None:
                self.warn(T.REWRITES_REMOTE, m.span, "git")
            if (d := a.word("--delete", "-d", "--prune")) is not None:
                self.warn(T.DELETES_REMOTE_BRANCH, d.span, "git")
            for w in rest[1:] if len(rest) > 1 else ():
                if w.text.startswith("+"):
                    self.warn(T.REWRITES_REMOTE, w.span, "git")
                elif w.text.startswith(":") and len(w.text) > 1:
                    self.warn(T.DELETES_REMOTE_BRANCH, w.span, "git")
        elif sub == "branch":
            deleting = a.has("-d") or a.has("--delete")
            forced = a.has("-f") or a.has("--force")
            if a.has("-D") or (deleting and forced):
                self.warn("deletes a branch that may be unmerged", cmd.span, "git")
            elif forced and rest and not (a.has("-m") or a.has("-c") or a.has("-M") or a.has("-C")):
                self.warn("moves a branch (may lose commits)", cmd.span, "git")

    # -- text that becomes code for another program ---------------------------------------

    def db_client(self, base: str, words: tuple[Word, ...], cmd: Command, i: int | None) -> None:
        spec = _DB_SPECS.get(base, _DbSpec(frozenset(), frozenset()))
        a = _parse_args(words, spec.valued | spec.sql_opts)
        texts: list[tuple[str, Span]] = []
        for opt in spec.sql_opts:
            for v, w in zip(a.values.get(opt, ()), a.value_words.get(opt, ()), strict=False):
                texts.append((v, w.span))
        if spec.sql_from is not None:
            texts.extend((w.text, w.span) for w in a.positionals[spec.sql_from:])
        for text, span in texts:
            for msg in sql_messages(text):
                self.warn(msg, span, "db")
        if not any(opt in a.flags for opt in spec.sql_opts):
            for r in self.stdin_redirects(cmd, i):
                self.sql_from_redirect(r)

    def stdin_redirects(self, cmd: Command, i: int | None) -> list[Redirect]:
        """Here-docs and here-strings feeding this command (or the wrapper around it)."""
        rs = list(cmd.redirects)
        if i is not None and cmd.via and cmd.via[-1] is Via.WRAPPER and cmd.parent is not None:
            rs += list(self.cmds[cmd.parent].redirects)
        return [r for r in rs if r.op in ("<<", "<<-", "<<<")]

    def sql_from_redirect(self, r: Redirect) -> None:
        text = r.heredoc if r.op != "<<<" else (r.target.text if r.target else "")
        for msg in sql_messages(text or ""):
            self.warn(msg, r.span, "db")

    def code_argument(self, base: str, words: tuple[Word, ...], cmd: Command, i: int | None) -> None:
        """``ssh host CMD``, ``su -c CMD``, ``watch CMD``, ``eval``/``sh -c`` strings the parser
        did not unwrap, and scripts fed to a shell's stdin by a here-doc."""
        unwrapped = i is not None and self.has_child(i, Via.SHELL_C)
        if base == "ssh":
            a = _parse_args(words, _SSH_VALUED)
            if a.positionals:
                host = a.positionals[0]
                remote = [w for w in words if w.span[0] > host.span[0]]
                if remote:
                    self.nested(" ".join(w.text for w in remote), (remote[0].span[0], remote[-1].span[1]))
                    return
            for r in self.stdin_redirects(cmd, i):
                self.nested(_redirect_text(r), r.span)
            return
        if base == "watch":
            a = _parse_args(words, frozenset({"-n", "--interval", "-d", "--differences", "-q", "--equexit"}))
            if a.positionals:
                ps = a.positionals
                self.nested(" ".join(w.text for w in ps), (ps[0].span[0], ps[-1].span[1]))
            return
        if base == "su" or base in T.SHELLS or base == "eval":
            if base == "eval":
                code = [w for w in words]
            else:
                a = _parse_args(words, frozenset({"-c", "--command"} if base == "su" else {"-c"}))
                cw = a.word("-c", "--command")
                code = [w for w in words if cw is not None and w.span[0] > cw.span[0]][:1]
                if cw is None:
                    if base in T.SHELLS and _reads_stdin(base, a):
                        for r in self.stdin_redirects(cmd, i):
                            self.nested(_redirect_text(r), r.span)
                    return
            if not code or unwrapped:
                return
            if all(w.static for w in code):
                self.nested(" ".join(w.text for w in code), (code[0].span[0], code[-1].span[1]))
            else:
                self.warn(T.DYNAMIC_CODE, code[0].span, "dynamic")

    def exec_host(self, base: str, words: tuple[Word, ...], cmd: Command) -> None:
        """``docker exec C psql -c …`` / ``kubectl exec P -- rm -rf /``: judge the inner command."""
        inner: tuple[Word, ...] = ()
        texts = [w.text for w in words]
        if base in ("kubectl", "oc"):
            if "exec" in texts and "--" in texts:
                inner = words[texts.index("--") + 1:]
        else:
            k = 0
            while k < len(texts) and texts[k].startswith("-"):
                k += 2 if texts[k] in T.VALUED["docker"] else 1
            if k < len(texts) and texts[k] == "compose":
                k += 1
                while k < len(texts) and texts[k].startswith("-"):
                    k += 2 if texts[k] in T.VALUED["docker"] else 1
            if k < len(texts) and texts[k] == "container":
                k += 1
            if k >= len(texts) or texts[k] not in ("exec", "run"):
                return
            k += 1
            while k < len(texts) and texts[k].startswith("-"):
                k += 2 if texts[k].split("=")[0] in _DOCKER_RUN_VALUED and "=" not in texts[k] else 1
            inner = words[k + 1:]
        if inner and inner[0].static:
            ib, iw = _resolve(inner[0].text, inner[1:])
            virtual = Command(words=inner, span=(inner[0].span[0], inner[-1].span[1]), via=(Via.WRAPPER,),
                              redirects=cmd.redirects)
            self.argv(ib, iw, virtual, None)

    # -- structure: pipelines and substitutions ----------------------------------------------

    def pipelines(self) -> None:
        for stages in _pipelines(self.script):
            for k, idx in enumerate(stages):
                if k == 0:
                    continue
                eff = self.effective(idx)
                c = self.cmds[eff]
                name = _base(c.name or "")
                upstream = [self.effective(s) for s in stages[:k]]
                up_names = [_base(self.cmds[u].name or "") for u in upstream]
                span = (self.cmds[stages[0]].span[0], self.cmds[idx].span[1])
                if name in T.INTERPRETERS or name == "ssh":
                    a = _parse_args(c.words[1:], _SSH_VALUED if name == "ssh" else frozenset())
                    if name == "ssh" and len(a.positionals) > 1:
                        continue
                    if name != "ssh" and not _reads_stdin(name, a):
                        continue
                    if any(n in T.DOWNLOADERS for n in up_names):
                        self.warn(T.RUNS_DOWNLOAD, span, "remote-exec")
                    elif any(_decodes(self.cmds[u]) for u in upstream):
                        self.warn(T.RUNS_DECODED, span, "remote-exec")
                    elif name in T.SHELLS or name == "ssh":
                        self.nested_from(upstream[-1])
                elif name in T.DB_CLIENTS:
                    a = _parse_args(c.words[1:], _DB_SPECS.get(name, _DbSpec(frozenset(), frozenset())).valued)
                    spec = _DB_SPECS.get(name)
                    if spec is not None and any(o in a.flags for o in spec.sql_opts):
                        continue
                    prev = self.cmds[upstream[-1]]
                    pname = _base(prev.name or "")
                    if pname in ("echo", "printf"):
                        text = " ".join(w.text for w in prev.words[1:] if not w.text.startswith("-"))
                        for msg in sql_messages(text):
                            self.warn(msg, span, "db")
                    else:
                        for r in prev.redirects:
                            if r.op in ("<<", "<<-", "<<<"):
                                self.sql_from_redirect(r)

    def nested_from(self, u: int) -> None:
        """``echo 'rm -rf /' | sh`` and ``cat <<EOF | sh``: the upstream text is the script."""
        prev = self.cmds[u]
        pname = _base(prev.name or "")
        if pname in ("echo", "printf") and all(w.static for w in prev.words[1:]):
            args = [w for w in prev.words[1:] if not (pname == "echo" and w.text in ("-n", "-e", "-E"))]
            if args:
                self.nested(" ".join(w.text for w in args), (args[0].span[0], args[-1].span[1]))
        elif pname == "cat" and len(prev.words) == 1:
            for r in prev.redirects:
                if r.op in ("<<", "<<-", "<<<"):
                    self.nested(_redirect_text(r), r.span)

    def substitutions(self) -> None:
        """``bash <(curl …)``, ``source <(wget -O- …)``, ``eval "$(curl …)"``, ``sh -c "$(…)"``."""
        for c in self.cmds:
            name = _base(c.name or "")
            downloads = name in T.DOWNLOADERS
            if not (downloads or _decodes(c)):
                continue
            node = c
            while node.via and node.via[-1] in (Via.WRAPPER, Via.XARGS) and node.parent is not None:
                node = self.cmds[node.parent]
            kinds = set(node.via)
            if not kinds & {Via.CMDSUB, Via.PROCSUB} or node.parent is None:
                continue
            holder = self.cmds[node.parent]
            hname = _base(holder.name or "")
            a = _parse_args(holder.words[1:])
            if hname == "eval" or (hname in T.INTERPRETERS and (
                    Via.PROCSUB in kinds or any(o in a.flags for o in T.PROGRAM_OPTS))):
                self.warn(T.RUNS_DOWNLOAD if downloads else T.RUNS_DECODED, holder.span, "remote-exec")

    def fork_bomb(self, i: int, cmd: Command) -> None:
        fname = cmd.words[0].text if cmd.words else None
        for k in self.children.get(i, ()):
            c = self.cmds[k]
            if c.name == fname and (c.background or Via.PIPELINE in c.via):
                self.warn(T.FORK_BOMB, cmd.span, "process")
                return


# --------------------------------------------------------------------------- small predicates


def _is_disk(path: str) -> bool:
    return bool(re.match(r"/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|mapper/|loop|sr|nbd|zd)", path))


def _world_writable(mode: str) -> bool:
    if re.fullmatch(r"[0-7]{3,4}", mode):
        return mode[-1] in "2367"
    for clause in mode.split(","):
        m = re.fullmatch(r"([ugoa]*)([-+=])([rwxXst]*)", clause)
        if m and m.group(2) in "+=" and "w" in m.group(3) and ("o" in m.group(1) or "a" in m.group(1)):
            return True
    return False


def _setuid(mode: str) -> bool:
    if re.fullmatch(r"[0-7]{4}", mode):
        return mode[0] in "234567"
    return any((m := re.fullmatch(r"([ugoa]*)([+=])([rwxXst]*)", c)) is not None and "s" in m.group(3)
               for c in mode.split(","))


def _reads_stdin(name: str, a: _Args) -> bool:
    """Does this interpreter take its program from standard input?"""
    if any(o in a.flags for o in T.PROGRAM_OPTS) or (name in ("source", ".") and not a.positionals):
        return False
    if "-s" in a.flags and name in T.SHELLS:
        return True
    return not a.positionals or a.positionals[0].text in ("-", "/dev/stdin", "/proc/self/fd/0")


def _decodes(c: Command) -> bool:
    name = _base(c.name or "")
    if name not in T.DECODERS:
        return False
    texts = {w.text for w in c.words[1:]}
    if name in ("base64", "base32"):
        return bool(texts & {"-d", "--decode", "-D", "-di", "-id"})
    if name == "xxd":
        return any(t.startswith("-r") or t == "-revert" for t in texts)
    if name == "openssl":
        return "-d" in texts or "-base64" in texts and "-d" in texts
    if name in ("gzip", "bzip2", "xz"):
        return bool(texts & {"-d", "--decompress", "-dc", "-cd"})
    return name in ("gunzip", "zcat", "uudecode")


def _redirect_text(r: Redirect) -> str:
    if r.op == "<<<":
        return r.target.text if r.target else ""
    return r.heredoc or ""


def _rule_matches(rule: T.Rule, a: _Args) -> bool:
    pos = [w.text.lower() if rule.nocase else w.text for w in a.positionals]
    if rule.anywhere:
        it = iter(pos)
        if not all(any(fnmatchcase(p, s) for p in it) for s in rule.sub):
            return False
    elif len(pos) < len(rule.sub) or not all(fnmatchcase(p, s) for p, s in zip(pos, rule.sub, strict=False)):
        return False
    if rule.any_of and not any(a.has(c) for c in rule.any_of):
        return False
    if rule.all_of and not all(a.has(c) for c in rule.all_of):
        return False
    return not any(a.has(c, strict=True) for c in rule.unless)


def _pipelines(script: Script) -> list[list[int]]:
    """Regroup pipeline stages (see the module docstring): same via prefix and parent, and only
    ``|`` / ``|&`` (with blanks, line continuations) between consecutive stages."""
    groups: dict[tuple, list[int]] = {}
    for i, c in enumerate(script.commands):
        if c.via and c.via[-1] is Via.PIPELINE:
            groups.setdefault((c.via[:-1], c.parent), []).append(i)
    out: list[list[int]] = []
    src = script.source
    for members in groups.values():
        members.sort(key=lambda k: script.commands[k].span[0])
        current = [members[0]]
        for k in members[1:]:
            gap = src[script.commands[current[-1]].span[1]:script.commands[k].span[0]]
            if re.fullmatch(r"(?:[ \t]|\\\n)*\|&?(?:[ \t\n]|\\\n)*", gap):
                current.append(k)
            else:
                out.append(current)
                current = [k]
        out.append(current)
    return out


# --------------------------------------------------------------------------- tables for code


@dataclass(frozen=True, slots=True)
class _DbSpec:
    valued: frozenset[str]          # options that take a value (so it is not read as SQL)
    sql_opts: frozenset[str]        # options whose value is SQL / JS
    sql_from: int | None = None     # positionals from this index on are SQL (sqlite3 db 'SQL')


def _fs(*a: str) -> frozenset[str]:
    return frozenset(a)


_DB_SPECS: dict[str, _DbSpec] = {
    "psql": _DbSpec(_fs("-d", "--dbname", "-h", "--host", "-U", "--username", "-p", "--port", "-f", "--file",
                        "-v", "--set", "--variable", "-o", "--output", "-F", "-R", "-P", "-T", "-L"),
                    _fs("-c", "--command")),
    "pgcli": _DbSpec(_fs("-d", "-h", "-U", "-p"), _fs("-e", "--execute")),
    "mysql": _DbSpec(_fs("-u", "--user", "-h", "--host", "-D", "--database", "-P", "--port", "-S", "--socket"),
                     _fs("-e", "--execute")),
    "sqlite3": _DbSpec(_fs("-separator", "-nullvalue", "-newline", "-init"), _fs("-cmd"), sql_from=1),
    "duckdb": _DbSpec(_fs("-separator", "-nullvalue", "-init"), _fs("-c", "-s", "-cmd"), sql_from=1),
    "clickhouse-client": _DbSpec(_fs("-h", "--host", "-u", "--user", "--password", "-d", "--database",
                                     "--port"), _fs("-q", "--query")),
    "cockroach": _DbSpec(_fs("--url", "--host", "-u", "--user", "-d", "--database"), _fs("-e", "--execute")),
    "sqlcmd": _DbSpec(_fs("-S", "-U", "-P", "-d", "-i", "-o"), _fs("-Q", "-q")),
    "snowsql": _DbSpec(_fs("-a", "-u", "-d", "-s", "-w", "-r", "-f"), _fs("-q", "--query")),
    "mongosh": _DbSpec(_fs("-u", "--username", "-p", "--password", "--host", "--port",
                           "--authenticationDatabase"), _fs("--eval")),
    "bq": _DbSpec(_fs("--project_id", "--format", "--location"), _fs(), sql_from=1),
    "usql": _DbSpec(_fs("-f", "--file", "-o"), _fs("-c", "--command")),
}
_DB_SPECS["mariadb"] = _DB_SPECS["mycli"] = _DB_SPECS["mysql"]
_DB_SPECS["sqlite"] = _DB_SPECS["litecli"] = _DB_SPECS["sqlite3"]
_DB_SPECS["clickhouse"] = _DB_SPECS["clickhouse-client"]
_DB_SPECS["mongo"] = _DB_SPECS["mongosh"]

_SSH_VALUED = _fs("-p", "-i", "-l", "-o", "-F", "-J", "-L", "-R", "-D", "-b", "-c", "-E", "-e", "-m", "-O",
                  "-Q", "-S", "-W", "-w", "-B", "-I")
_DOCKER_RUN_VALUED = _fs("-u", "--user", "-e", "--env", "-w", "--workdir", "--name", "-v", "--volume", "-p",
                         "--publish", "--entrypoint", "--network", "--net", "--env-file", "--platform", "-m",
                         "--memory", "--mount", "-l", "--label", "--cpus", "--gpus", "--restart", "-h",
                         "--hostname", "--add-host", "--device", "--cap-add", "--cap-drop", "--pull",
                         "--detach-keys", "--security-opt", "--ulimit", "--shm-size", "--tmpfs", "--ipc",
                         "--pid", "--dns", "--log-driver", "--log-opt", "--runtime", "--stop-signal",
                         "--index", "-c", "--cpu-shares")

# `rm -i` asks before each of these; deleting the root or a home directory still warns.
_ASKED_ANYWAY = frozenset({T.DELETES_CWD, T.DELETES_PARENT, T.DELETES_CWD_ALL, T.DELETES_HOME_GLOB})

_HANDLERS = {
    **dict.fromkeys(("rm", "unlink", "srm"), _Warner.rm),
    "find": _Warner.find,
    "dd": _Warner.dd,
    "truncate": _Warner.truncate,
    "cp": _Warner.cp,
    **dict.fromkeys(("chmod", "chown", "chgrp"), _Warner.chmod),
    "kill": _Warner.kill,
    "git": _Warner.git,
}

_RULES_BY_NAME: dict[str, tuple[T.Rule, ...]] = {}
for _rule in T.RULES:
    for _name in _rule.commands:
        _RULES_BY_NAME[_name] = (*_RULES_BY_NAME.get(_name, ()), _rule)


def _iter_reasons(script: Script) -> Iterator[Reason]:
    yield from _Warner(script).run()


def warnings(script: Script) -> tuple[Reason, ...]:
    """Destructive-command warnings for every command ``script`` would run. Never raises; it
    never changes a decision either, so a failure inside is reported as a warning of its own."""
    try:
        return tuple(_iter_reasons(script))
    except Exception as exc:  # a warning pass must not crash the hook
        return (Reason(f"destructive-command check failed ({type(exc).__name__})", None, "warn.internal"),)
