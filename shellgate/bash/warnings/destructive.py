"""Destructive-command warnings: short noun phrases for the approval prompt.

Works on the IR, so data is not code: ``echo "rm -rf /"``, ``git commit -m "reset --hard"``,
``grep 'DROP TABLE'``, comments and inert here-docs never reach this module as commands. What
does reach it is every command bash would run, wrappers unwrapped by the parser (``sudo``,
``xargs``, ``find -exec``, ``bash -c``). On top of that this module looks *into* the few
places where text becomes code for another program: SQL handed to a database client, a script
fed to a shell on stdin (``curl … | sh``, ``bash <<EOF``, ``echo … | sh``), the command line of
``ssh host …``, ``su -c``, ``watch`` and ``docker exec`` / ``kubectl exec``.

A warning never changes a decision (SPEC §3). The table of command forms is
``table.py``; the forms that need operands or structure are handled here.

Pipelines: the IR marks each stage with ``Via.PIPELINE`` but carries no pipeline id. Stages of
one pipeline share their ``via`` prefix and parent and are separated in the source by nothing
but ``|`` / ``|&`` and blanks, so they are regrouped from their spans (``_pipelines``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from ..._lazyre import lazy_compile
from ..facts import Reason
from ..ir import Command, CommandKind, Redirect, Script, Span, Via, Word, own_args, words_after
from . import table as T
from .args import Args, parse_args, prog_name, resolve, rule_matches
from .sql import sql_messages
from .targets import is_disk, is_temp, setuid, special, world_writable

__all__ = ["warnings", "is_fork_bomb"]

_HOME_PREFIX = lazy_compile(r"^(?:\$HOME|\$\{HOME\}|~)(?=/)")
_MAX_DEPTH = 4  # nested scripts (ssh "…", bash <<EOF, echo … | sh) analysed at most this deep

# --------------------------------------------------------------------------- the warner


class _Warner:
    """One pass over one script's commands, collecting reasons. Nested scripts (``ssh h "…"``,
    ``bash <<EOF``) get their own warner one level deeper; their reasons point at the text
    they came from."""

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
        if i not in self.children:  # no inner command: every argument is its own
            return cmd.words[1:]
        starts = [self.cmds[k].span[0] for k in self.children[i]
                  if self.cmds[k].via and self.cmds[k].via[-1] in (Via.WRAPPER, Via.SHELL_C, Via.XARGS,
                                                                    Via.FIND_EXEC)]
        return own_args(cmd, min(starts) if starts else None)

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
        from ..parse.parser import parse

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
        if cmd.redirects:
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
        base, words = resolve(name, self.own_words(i))
        self.argv(base, words, cmd, i)

    def argv(self, base: str, words: tuple[Word, ...], cmd: Command, i: int | None) -> None:
        """Warnings for one command line (``i`` is None for a virtual one, e.g. docker exec's)."""
        span = cmd.span
        if base in T.PRIVILEGE:
            self.warn(T.ELEVATED, cmd.words[0].span if i is not None else span, "privilege")
        handler = _HANDLERS.get(base)
        if handler is not None:
            handler(self, base, words, cmd, i)
        rules = _RULES_BY_NAME.get(base, ())
        a = parse_args(words, T.VALUED.get(base, frozenset())) if rules else None
        taken: set[str] = set()
        for rule in rules:
            if rule.group and rule.group in taken:
                continue
            if rule_matches(rule, a):
                self.warn(rule.message, span, rule.family)
                if rule.group:
                    taken.add(rule.group)
        if base in T.DB_CLIENTS:
            self.db_client(base, words, cmd, i)
        if base in T.EXEC_HOSTS:
            self.exec_host(base, words, cmd)
        if base in ("ssh", "su", "watch", "eval") or base in T.SHELLS:
            self.code_argument(base, words, cmd, i)
        if base == "parallel":
            self.parallel(words)
        if T.PYTHON.fullmatch(base):
            self.python(words)

    # -- redirects -------------------------------------------------------------------------

    def redirects(self, cmd: Command) -> None:
        bare = not cmd.words or cmd.name in (":", "true")
        for r in cmd.redirects:
            if r.target is None or r.op in ("<<", "<<-", "<<<", "<", "<&"):
                continue
            t = r.target.text
            if is_disk(t):
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
            msg = special(w)
            if msg is not None and not (interactive and msg in _ASKED_ANYWAY):
                self.warn(msg, w.span, "fs")
        if interactive:
            return
        via = cmd.via[-1] if cmd.via else Via.TOP
        if via is Via.FIND_EXEC and i is not None and self.find_in_temp(cmd.parent):
            return  # `find /tmp/x -exec rm -rf {} +`
        if via is Via.FIND_EXEC and base == "rm":
            self.warn(T.DELETES_MATCHED, cmd.span, "fs")
        elif via is Via.XARGS and base == "rm":
            self.warn(T.DELETES_LISTED, cmd.span, "fs")
        listed = via in (Via.XARGS, Via.FIND_EXEC)  # operands arrive at run time
        if recursive and (operands or listed) and not (operands and all(is_temp(w.text) for w in operands)):
            self.warn(T.RECURSIVE_DELETE, cmd.span, "fs")

    def find_in_temp(self, idx: int | None) -> bool:
        if idx is None:
            return False
        starts = []
        for w in self.cmds[idx].words[1:]:
            if w.text.startswith(("-", "(", "!")):
                break
            starts.append(w)
        return bool(starts) and all(is_temp(w.text) for w in starts)

    def find(self, base: str, words: tuple[Word, ...], cmd: Command, i: int | None) -> None:
        starts: list[Word] = []
        for w in words:
            if w.text.startswith(("-", "(", "!")):
                break
            starts.append(w)
        delete = _find_delete(words[len(starts):])
        if delete is None:
            return
        for w in starts:  # `find . -delete` searches from `.`; it does not delete `.` itself
            if (msg := special(w)) in (T.DELETES_ROOT, T.DELETES_HOME, T.DELETES_HOME_ALL, T.DELETES_SYSTEM):
                self.warn(msg, w.span, "fs")
        if not (starts and all(is_temp(w.text) for w in starts)):
            self.warn(T.DELETES_MATCHED, delete.span, "fs")

    def dd(self, base: str, words: tuple[Word, ...], cmd: Command, i: int | None) -> None:
        for w in words:
            key, eq, val = w.text.partition("=")
            if key == "of" and eq:
                if is_disk(val):
                    self.warn(T.OVERWRITES_DISK, w.span, "disk")
                elif not val.startswith("/dev/"):
                    self.warn(T.OVERWRITES_FILE, w.span, "fs")

    def truncate(self, base: str, words: tuple[Word, ...], cmd: Command, i: int | None) -> None:
        a = parse_args(words, frozenset({"-s", "--size", "-r", "--reference"}))
        sizes = a.values.get("-s", []) + a.values.get("--size", [])
        if sizes and all(s.startswith(("+", ">")) for s in sizes):
            return
        self.warn(T.TRUNCATES, cmd.span, "fs")

    def cp(self, base: str, words: tuple[Word, ...], cmd: Command, i: int | None) -> None:
        a = parse_args(words)
        if len(a.positionals) == 2 and a.positionals[0].text == "/dev/null":
            self.warn(T.TRUNCATES, cmd.span, "fs")

    def chmod(self, base: str, words: tuple[Word, ...], cmd: Command, i: int | None) -> None:
        a = parse_args(words, frozenset({"--reference"}))
        ops = a.positionals
        recursive = a.has("-R") or a.has("--recursive")
        if base == "chmod" and ops and not a.has("--reference"):
            mode = ops[0]
            if world_writable(mode.text):
                self.warn(T.WORLD_WRITABLE, mode.span, "perms")
            if setuid(mode.text):
                self.warn(T.SETUID, mode.span, "perms")
            ops = ops[1:]
        elif base in ("chown", "chgrp") and ops and not a.has("--reference"):
            ops = ops[1:]
            if recursive:
                self.warn(T.CHOWN_RECURSIVE, cmd.span, "perms")
        for w in ops:
            msg = special(w)
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
        a = parse_args(words, T.VALUED["git"])
        pos = a.positionals
        if not pos:
            return
        sub = pos[0].text
        rest = pos[1:]
        if sub in ("checkout", "restore") and (a.has("-h") or a.has("--help")):
            return   # the manual, nothing else
        if sub == "checkout":
            own = parse_args(words_after(words, pos[0]), _CHECKOUT_VALUED)
            creating = own.has("-b") or own.has("-B") or own.has("--orphan")
            forced = any(own.has(f) for f in ("-f", "--force", "--ours", "--theirs", "--pathspec-from-file"))
            rest = own.positionals
            # a tree-ish then paths (`checkout HEAD file.txt`), or paths after `--`, or `.`
            paths = (bool(own.after_ddash) or len(rest) >= 2
                     or any(w.text in (".", "./", ":/", "*") for w in rest))
            if forced or (paths and not creating):
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
        spec = T.DB_SPECS.get(base, T.DbSpec(frozenset(), frozenset()))
        a = parse_args(words, spec.valued | spec.sql_opts)
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
            a = parse_args(words, T.SSH_VALUED)
            if a.positionals:
                host = a.positionals[0]
                remote = words_after(words, host)
                if remote:
                    self.nested(" ".join(w.text for w in remote), (remote[0].span[0], remote[-1].span[1]))
                    return
            for r in self.stdin_redirects(cmd, i):
                self.nested(_redirect_text(r), r.span)
            return
        if base == "watch":
            a = parse_args(words, frozenset({"-n", "--interval", "-d", "--differences", "-q", "--equexit"}))
            if a.positionals:
                ps = a.positionals
                self.nested(" ".join(w.text for w in ps), (ps[0].span[0], ps[-1].span[1]))
            return
        if base == "su" or base in T.SHELLS or base == "eval":
            if base == "eval":
                code = [w for w in words]
            else:
                a = parse_args(words, frozenset({"-c", "--command"} if base == "su" else {"-c"}))
                cw = a.word("-c", "--command")
                code = list(words_after(words, cw)[:1]) if cw is not None else []
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

    def parallel(self, words: tuple[Word, ...]) -> None:
        """``parallel CMD … ::: ARGS``: CMD is a template run once per argument."""
        k = next((n for n, w in enumerate(words) if w.text in (":::", "::::", ":::+", "::::+")), len(words))
        a = parse_args(words[:k], T.VALUED.get("parallel", frozenset()))
        if a.positionals:   # parallel's options end at the command: all from there is the template
            first = next(n for n, w in enumerate(words) if w is a.positionals[0])
            template = words[first:k]
            args = [w.text for w in words[k + 1:] if not w.text.startswith(":::")]
            # as it runs: the template, with the arguments where they go (here: after it)
            self.nested(" ".join([*(w.text for w in template), *args]),
                        (template[0].span[0], template[-1].span[1]))

    def python(self, words: tuple[Word, ...]) -> None:
        """``python -c CODE``: the calls of Python's own reading of CODE (``ast``) that delete
        files, and the shell commands it hands to ``os.system``/``subprocess``."""
        a = parse_args(words, frozenset({"-c", "-m", "-W", "-X"}))
        code = a.value_words.get("-c")
        if not code or not code[0].static:
            return
        w = code[0]
        text = w.text[2:] if w.text.startswith("-c") and len(w.text) > 2 else w.text
        for what, shell in _python_effects(text):
            if shell is not None:
                self.nested(shell, w.span)
            else:
                self.warn(what, w.span, "fs")

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
                k += 2 if texts[k].split("=")[0] in T.DOCKER_RUN_VALUED and "=" not in texts[k] else 1
            inner = words[k + 1:]
        if inner and inner[0].static:
            ib, iw = resolve(inner[0].text, inner[1:])
            virtual = Command(words=inner, span=(inner[0].span[0], inner[-1].span[1]), via=(Via.WRAPPER,),
                              redirects=cmd.redirects)
            self.argv(ib, iw, virtual, None)

    # -- structure: pipelines and substitutions ----------------------------------------------

    def pipelines(self) -> None:
        for stages in _pipelines(self.script):
            # one pass with running flags (not a scan of every upstream stage per stage, which
            # made `cat | cat | … | sh` quadratic in the number of stages)
            downloaded = decoded = False   # some earlier stage downloads / decodes
            prev_eff = -1
            for k, idx in enumerate(stages):
                eff = self.effective(idx)
                c = self.cmds[eff]
                name = prog_name(c.name or "")
                if k:
                    self.stage(stages[0], idx, c, name, downloaded, decoded, prev_eff)
                downloaded = downloaded or name in T.DOWNLOADERS
                decoded = decoded or _decodes(c)
                prev_eff = eff

    def stage(self, first: int, idx: int, c: Command, name: str, downloaded: bool,
              decoded: bool, upstream: int) -> None:
        """Warnings of pipeline stage ``idx`` (command ``c``, in effect ``name``), fed by
        ``upstream``; ``downloaded``/``decoded``: whether any earlier stage does."""
        span = (self.cmds[first].span[0], self.cmds[idx].span[1])
        if name in T.INTERPRETERS or name == "ssh":
            a = parse_args(c.words[1:], T.SSH_VALUED if name == "ssh" else frozenset())
            if name == "ssh" and len(a.positionals) > 1:
                return
            if name != "ssh" and not _reads_stdin(name, a):
                return
            if downloaded:
                self.warn(T.RUNS_DOWNLOAD, span, "remote-exec")
            elif decoded:
                self.warn(T.RUNS_DECODED, span, "remote-exec")
            elif name in T.SHELLS or name == "ssh":
                self.nested_from(upstream)
        elif name in T.DB_CLIENTS:
            spec = T.DB_SPECS.get(name)
            a = parse_args(c.words[1:], spec.valued if spec else frozenset())
            if spec is not None and any(o in a.flags for o in spec.sql_opts):
                return
            prev = self.cmds[upstream]
            pname = prog_name(prev.name or "")
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
        pname = prog_name(prev.name or "")
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
        if not any(Via.CMDSUB in c.via or Via.PROCSUB in c.via for c in self.cmds):
            return  # no substitution anywhere: no command below can be inside one
        for c in self.cmds:
            name = prog_name(c.name or "")
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
            hname = prog_name(holder.name or "")
            a = parse_args(holder.words[1:])
            if hname == "eval" or (hname in T.INTERPRETERS and (
                    Via.PROCSUB in kinds or any(o in a.flags for o in T.PROGRAM_OPTS))):
                self.warn(T.RUNS_DOWNLOAD if downloads else T.RUNS_DECODED, holder.span, "remote-exec")

    def fork_bomb(self, i: int, cmd: Command) -> None:
        if is_fork_bomb(self.script, i, self.children.get(i, ())):
            self.warn(T.FORK_BOMB, cmd.span, "process")


def is_fork_bomb(script: Script, i: int, children: Iterable[int] | None = None) -> bool:
    """Is command ``i`` a function definition whose body starts itself again in the background
    or in a pipeline (``:(){ :|:& };:``)? ``children``: the commands whose parent is ``i``."""
    cmds = script.commands
    cmd = cmds[i]
    if cmd.kind is not CommandKind.FUNCDEF:
        return False
    fname = cmd.words[0].text if cmd.words else None
    kids = children if children is not None else (k for k, c in enumerate(cmds) if c.parent == i)
    return any(cmds[k].name == fname and (cmds[k].background or Via.PIPELINE in cmds[k].via)
               for k in kids)


# --------------------------------------------------------------------------- small predicates


_PY_DELETES = frozenset({"shutil.rmtree", "os.remove", "os.unlink", "os.rmdir", "os.removedirs",
                         "unlink", "rmdir", "rmtree"})
_PY_SHELLS = frozenset({"os.system", "os.popen", "subprocess.run", "subprocess.call",
                        "subprocess.check_call", "subprocess.check_output", "subprocess.Popen"})


def _python_effects(code: str) -> Iterator[tuple[str, str | None]]:
    """(warning, None) for each call in ``code`` that deletes files; ("", command) for each
    shell command line it runs that is a literal. Code Python cannot parse yields nothing (it
    does not run either)."""
    import ast

    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _dotted(node.func)
        if name in _PY_DELETES or name.rsplit(".", 1)[-1] in ("rmtree", "unlink", "rmdir"):
            yield T.PY_DELETES, None
        elif name in _PY_SHELLS and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                yield "", arg.value
            elif isinstance(arg, (ast.List, ast.Tuple)) and all(
                    isinstance(e, ast.Constant) and isinstance(e.value, str) for e in arg.elts):
                import shlex

                yield "", " ".join(shlex.quote(e.value) for e in arg.elts)  # type: ignore[union-attr]


def _dotted(node: object) -> str:
    import ast

    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    return ".".join(reversed(parts))


def _find_delete(expr: tuple[Word, ...]) -> Word | None:
    """find's own ``-delete`` in its expression: not the value of a test (``-name -delete``)
    nor a word of an ``-exec`` command (that command is judged on its own)."""
    from ..commands.find import PRIMARIES

    k = 0
    while k < len(expr):
        t = expr[k].text
        if t == "-delete":
            return expr[k]
        if t in ("-exec", "-execdir", "-ok", "-okdir"):
            k += 1
            while k < len(expr) and expr[k].text not in (";", "+"):
                k += 1
        k += 1 + PRIMARIES.get(t, 0)
    return None


# git checkout's own options that take a value (``-bfeature`` names the branch to create).
_CHECKOUT_VALUED = frozenset({"-b", "-B", "--orphan", "--conflict", "--pathspec-from-file"})


def _reads_stdin(name: str, a: Args) -> bool:
    """Does this interpreter take its program from standard input?"""
    if any(o in a.flags for o in T.PROGRAM_OPTS) or (name in ("source", ".") and not a.positionals):
        return False
    if "-s" in a.flags and name in T.SHELLS:
        return True
    return not a.positionals or a.positionals[0].text in ("-", "/dev/stdin", "/proc/self/fd/0")


def _decodes(c: Command) -> bool:
    name = prog_name(c.name or "")
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
