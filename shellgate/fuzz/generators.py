"""Command generators: a bash grammar, mutations of seeds, and the user's allow rules.

One grammar drives both a seeded fast generator (``random.Random``; what campaigns use, so a
run is reproducible from ``--seed``) and a hypothesis strategy (:func:`strategy`, the same
choices drawn from hypothesis so that it can shrink). The grammar knows bash's ways of hiding
a command or a flag — wrappers, substitutions, redirections, separators, prefix assignments,
quoting tricks (``-\\o``, ``$'\\x2do'``, ``"so"rt``, line continuations) — and fills flag values
by their metavar: a ``FILE`` gets a path that exists, a new one or a secret; a ``PROG`` a
program. Flags come from :mod:`.flags` (what the program says it accepts), so abbreviations and
options nobody listed get tried.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeVar

from .._record import field, record
from . import tokens
from .dialects import Focus
from .flags import Flag, Universe
from .policy_seeds import PolicySeed

T = TypeVar("T")

MAX_LEN = 400


class Rng(Protocol):
    """The only randomness the grammar uses."""

    def random(self) -> float: ...
    def pick(self, seq: Sequence[T]) -> T: ...
    def int(self, lo: int, hi: int) -> int: ...


class SeededRng:
    """Fast, reproducible choices from :class:`random.Random`."""

    __slots__ = ("r",)

    def __init__(self, seed: int | str) -> None:
        self.r = random.Random(seed)

    def random(self) -> float:
        return self.r.random()

    def pick(self, seq: Sequence[T]) -> T:
        return seq[self.r.randrange(len(seq))]

    def int(self, lo: int, hi: int) -> int:
        return self.r.randint(lo, hi)


class DrawRng:
    """The same choices drawn from a hypothesis ``draw`` (shrinkable)."""

    __slots__ = ("draw", "st")

    def __init__(self, draw: Callable[[Any], Any]) -> None:
        from hypothesis import strategies as st

        self.draw, self.st = draw, st

    def random(self) -> float:
        return self.draw(self.st.integers(0, 999)) / 1000

    def pick(self, seq: Sequence[T]) -> T:
        return self.draw(self.st.sampled_from(list(seq)))

    def int(self, lo: int, hi: int) -> int:
        return self.draw(self.st.integers(lo, hi))


# -- vocabulary ---------------------------------------------------------------------------------

EXISTING = ("README.md", "data.txt", "data.csv", "notes.log", "src/main.py", "src", ".", "docs",
            "docs/guide.txt", "'my file.txt'", "*.txt", "src/*")
NEW_FILES = ("out.txt", "new/x", "/tmp/o", "~/.bashrc", ".git/hooks/pre-commit", "~/.ssh/authorized_keys",
             "x", "./-o", ".git/config", "~/.gitconfig", "/etc/x")
SECRETS = (".env", "~/.ssh/id_rsa", "~/.aws/credentials", "~/.netrc", "$HOME/.ssh/id_rsa", "~/.ssh/id_*",
           "~/.ssh/../.ssh/id_rsa", "~/.git-credentials", "~/.kube/config", "./.env", "'.env'", "~")
SPECIAL = ("/dev/null", "-", "/dev/stdout", "/dev/tcp/127.0.0.1/9", "/proc/self/environ", "/etc/passwd")
PROGRAMS = ("sh", "id", "touch pwned", "bash", "python3", "rm data.txt", "/bin/sh -c id", "cat ~/.ssh/id_rsa",
            "env", "true", "'touch pwned'")
PATTERNS = ("a", ".", "'*.py'", "^p", "main", "'[a-z]*'", "API")
FORMATS = ("'%p\\n'", "%s", "'%(refname)'", "'%h %s'", "x")
WORDS = ("1", "x", "a", "main", "HEAD", "0", "auto", "always", "never", "yes", "--", "utf-8", "HEAD~1",
         "origin", "-", "@", "all")

SED_SCRIPTS = ("p", "-n 1p", "s/a/b/", "s/a/b/w out.txt", "1e id", "w out.txt", "r ~/.ssh/id_rsa",
               "s/a/id/e", "'1!G;h;$!d'", "'$a x'", "-n '/p/p'", "'s/x/y/gw /tmp/o'", "'1W out.txt'",
               "'e touch pwned'", "y/abc/xyz/", "q", "'='", "'l'", "'F'")
AWK_PROGRAMS = ("'{print $1}'", "'BEGIN{system(\"touch pwned\")}'", "'{print > \"out.txt\"}'",
                "'{print | \"sh\"}'", "'BEGIN{while((\"id\" | getline l)>0) print l}'",
                "'BEGIN{getline l < \"/etc/passwd\"; print l}'", "'NR==1'", "'{n++} END{print n}'",
                "'{printf \"%s\\n\", $0 > \"/tmp/o\"}'", "'BEGIN{print ENVIRON[\"HOME\"]}'",
                "-F, '{print $2}'", "'BEGIN { \"date\" | getline d; print d }'")
JQ_FILTERS = (".", ".name", "'input_filename'", "'$ENV'", "env", "'@sh \"echo \\(.)\"'", "-r .",
              "'$__loc__'", "--rawfile x ~/.ssh/id_rsa .", "-n 'input'")
LESS_OPERANDS = ("'+!touch pwned'", "+G", "data.txt", "'+|touch pwned'", "-o out.txt")
GIT_SUBCOMMANDS = ("status", "log", "diff", "show", "branch", "tag", "ls-files", "blame", "grep", "rev-parse",
                   "config", "remote", "describe", "shortlog", "cat-file", "reflog", "for-each-ref",
                   "ls-tree", "stash", "worktree", "notes", "archive", "format-patch", "help",
                   "var", "count-objects", "name-rev", "whatchanged", "rev-list", "check-ignore",
                   "merge-base", "show-ref", "symbolic-ref", "diff-tree", "difftool", "bisect", "apply")

SAFE_REDIRECTS = ("2>/dev/null", ">/dev/null", "2>&1", ">&2", "< data.txt", "&>/dev/null", "</dev/null")
UNSAFE_REDIRECTS = ("> out.txt", ">> README.md", "2> err.log", "&> all.log", ">| out.txt", "1<>data.txt",
                    "> /dev/tcp/127.0.0.1/9", "< ~/.ssh/id_rsa", "<<< text", "> ~/.bashrc", ">/tmp/o",
                    "2>/dev/null >out.txt", ">&3", "3>out.txt", "<.env", ">>/dev/null 2>x",
                    "<<EOF\n$(touch pwned)\nEOF", "<<'EOF'\n$(touch pwned)\nEOF", "> >(sh)", ">$'out'")
ASSIGNMENTS = ("PAGER='touch pwned'", "GIT_PAGER='touch pwned'", "LESSOPEN='|touch pwned %s'",
               "LD_PRELOAD=/tmp/x.so", "GIT_EXTERNAL_DIFF=./x", "X=1", "GIT_DIR=/tmp", "HOME=/tmp",
               "TZ=UTC", "LC_ALL=C", "IFS=,", "PATH=/tmp:$PATH", "BASH_ENV=./x", "GIT_SSH_COMMAND=id",
               "EDITOR='touch pwned'", "GIT_CONFIG_PARAMETERS=\"'core.pager=id'\"")
SUBSTITUTIONS = ("$({})", "`{}`", "<({})", ">({})", "\"${{x:-$({})}}\"", "\"$({})\"", "$(echo; {})")
EXPANSIONS = ("$((x=1))", "${x@P}", "$((1+1))", "${HOME}", "$HOME/.ssh/id_rsa", "~", "${!x}", "$x",
              "${a[$(id)]}", "$'\\x2do'", "{a,b}", "${PATH}", "$RANDOM", "$((a[$(id)]))")
SEPARATORS = (";", "&&", "||", "|", "&", "\n", "|&", "; ")
SIMPLE_WRAPPERS = (("env",), ("env", "-i"), ("env", "X=1"), ("nice",), ("nice", "-n", "5"), ("timeout", "5"),
                   ("nohup",), ("command",), ("builtin",), ("exec",), ("time",), ("stdbuf", "-o0"),
                   ("sudo",), ("command", "-p"), ("env", "--"), ("nice", "--"), ("ionice",), ("setsid",),
                   ("xargs",), ("chrt", "0"), ("taskset", "1"), ("flock", "/tmp/l"), ("watch", "-n1"))
STRING_WRAPPERS = ("bash -c {q}", "sh -c {q}", "eval {q}", "find . -maxdepth 0 -exec {c} \\;",
                   "echo data.txt | xargs {c}", "({c})", "{{ {c}; }}", "if true; then {c}; fi",
                   "for f in data.txt; do {c}; done", "{c} &", "f() {{ {c}; }}; f", "bash -lc {q}",
                   "echo {q} | sh", "sh <<< {q}", "$(echo {c})", "! {c}", "time {c}", "{c} | cat",
                   "xargs -a data.txt {c}", "find . -name README.md -exec {c} {{}} +", "command -- {c}",
                   "find src -type f | xargs {c}", "find docs -print0 | xargs -0 {c}",
                   "find src -name '*.py' 2>/dev/null | xargs -I{{}} {c} {{}}", "find . | xargs {c}")

# The dialects' own text (see :mod:`.dialects`): what bash reads one way and dash, awk or zsh
# another. A campaign of that dialect draws half its commands from here.
SH_SNIPPETS = ("echo $'x\\'; touch pwned; echo \\''", "echo hi &> out.txt", "cat data.txt |& head -1",
               "[[ -f data.txt ]] && echo y", "echo {a,b}", "x=ab; echo ${x//a/b}", "echo -e 'a\\c'",
               "x=(a b); echo $x", "cat <<< data.txt", "echo $\"str\"", "function f { id; }; f",
               "select x in a; do id; done </dev/null", "echo $((1+1))", "printf '%q' x",
               "type -p ls", "echo ${x:0:1}", "echo $'\\x3b touch pwned'", "cat data.txt >& /dev/null",
               "echo $(( $'1' ))", "trap 'id' EXIT", "echo a ;& echo b", "echo ${#x[@]}",
               "coproc cat data.txt", "echo $BASH_VERSION", "let x=1", "echo ${!x}")
SH_RUNNERS = ("sh -c {q}", "dash -c {q}", "/bin/sh -c {q}", "echo {q} | sh", "sh -c {q} sh data.txt",
              "find . -maxdepth 0 -exec sh -c {q} \\;", "xargs -a data.txt sh -c {q}", "sh -ec {q}",
              "env sh -c {q}", "sh -c -- {q}")
AWK_PATTERNS = ("BEGIN", "END", "", "/a/", "NR==1", "$1 ~ /x/", "NR/2", "/#/", "length > 2", "!/x/")
AWK_STATEMENTS = ("print /#/", "print /x/ ? 1 : 2", "x = 4 / 2 / 1", "print $1 / 2 / 3",
                  "n = NR / 2; print n",
                  "print (NR) /2/ 1", "a = /a/", "print length / 2", "getline; print",
                  "print > \"out.txt\"", "system(\"touch pwned\")", "\"id\" | getline x", "print | \"sh\"",
                  "printf \"%s\\n\", $0", "print ENVIRON[\"HOME\"]", "x = \"a/b/c\"; split(x, p, \"/\")",
                  "print 1 #/; system(\"touch pwned\")", "print $0 /2/1", "next", "print substr($0, 2)",
                  "x++ / 2", "print i++ /2/ 3", "print NF /#/ 1", "getline l < \"data.txt\"; print l",
                  "print \"/\" /x/", "y = x /1/ 1 # ; system(\"id\")", "print a[1] / 2 /1",
                  "print /=/", "x /= 2", "print -1 / 2", "print $NF\n", "close(\"/tmp/o\")")
AWK_OPTIONS = ("", "-F,", "-F/", "-v x=1", "--", "-F '#'", "-v 'x=/'", "-f /dev/null --source", "-e")
ZSH_WORDS = ("*(e:'touch pwned':)", "*(.)", "=id", "=(id)", "$~x", "${x:h}", "^README.md", "**/*(N)",
             "*(+touch)", "$=x", "${(e)x}", "data.txt(:h)", "*(#q.)", "<1-10>", "${~x}", "=ls",
             "src/*(e:id:)", "*(e['touch pwned'])", "${(%):-%n}", "$^x", "data.txt(:a)", "**(/)",
             "*~*.txt", "(#i)readme.md", "${x:s/a/b/}", "!!", "$+x", "${(z)x}", "*(oN)", "x=(a b)")


def _quote(s: str) -> str:
    return "'" + s.replace("'", "'\\''") + "'"


@record
class Generated:
    cmd: str
    origin: str   # "grammar" | "seed" | "policy" | "pool" | "dialect"
    seed: str = ""  # the seed or rule it came from


@record(frozen=False, slots=False)
class Material:
    """What the generator draws from; built once per campaign, shared with the workers."""

    programs: tuple[tuple[str, ...], ...]
    universes: dict[tuple[str, ...], Universe] = field(default_factory=dict)
    seeds: tuple[str, ...] = ()
    policy: tuple[PolicySeed, ...] = ()
    home: str | None = None
    workspace: str | None = None


class Generator:
    """Generate commands from :class:`Material`. Deterministic for a given rng."""

    def __init__(self, material: Material, rng: Rng, pool_size: int = 400,
                 focus: Focus = Focus.ALL) -> None:
        self.m = material
        self.rng = rng
        self.focus = focus
        self.pool: list[str] = []
        self.pool_size = pool_size
        self._secrets = SECRETS + self._absolute_secrets()

    def _absolute_secrets(self) -> tuple[str, ...]:
        out: list[str] = []
        if self.m.home:
            out += [f"{self.m.home}/.ssh/id_rsa", f"{self.m.home}/.aws/credentials"]
        if self.m.workspace:
            out += [f"{self.m.workspace}/.env", f"{self.m.workspace}/../home/.ssh/id_rsa"]
        return tuple(out)

    # -- the top -------------------------------------------------------------------------------

    def command(self) -> Generated:
        if self.focus is not Focus.ALL and self.rng.random() < 0.5:
            return self._finish(Generated(self.dialect_command(), "dialect", str(self.focus)))
        r = self.rng.random()
        m = self.m
        if m.policy and r < 0.40:
            seed = self.rng.pick(m.policy)
            return self._finish(Generated(self.policy_command(seed), "policy", seed.rule))
        r = self.rng.random()
        if self.pool and r < 0.35:
            base = self.rng.pick(self.pool)
            return self._finish(Generated(self.mutate(base), "pool", base))
        if m.seeds and r < 0.6:
            base = self.rng.pick(m.seeds)
            return self._finish(Generated(self.mutate(base), "seed", base))
        return self._finish(Generated(self.script(), "grammar"))

    def dialect_command(self) -> str:
        """A command whose text the focused dialect reads differently from bash."""
        rng = self.rng
        if self.focus is Focus.SH:
            parts = [rng.pick(SH_SNIPPETS) if rng.random() < 0.6 else self.command_text()
                     for _ in range(rng.int(1, 3))]
            script = rng.pick(("; ", " && ", "\n", " | ")).join(parts)
            return rng.pick(SH_RUNNERS).format(q=_quote(script))
        if self.focus is Focus.AWK:
            blocks = []
            for _ in range(rng.int(1, 2)):
                body = rng.pick(("; ", "\n", ";\n")).join(
                    rng.pick(AWK_STATEMENTS) for _ in range(rng.int(1, 3)))
                blocks.append(f"{rng.pick(AWK_PATTERNS)} {{ {body} }}".strip())
            prog = rng.pick(("\n", " ")).join(blocks)
            opts = rng.pick(AWK_OPTIONS)
            return " ".join(w for w in ("awk", opts, _quote(prog),
                                        self.path() if rng.random() < 0.7 else "") if w)
        words = self.simple(None)
        for _ in range(rng.int(1, 2)):
            words.insert(rng.int(1, len(words)), rng.pick(ZSH_WORDS))
        return " ".join(words)

    def _finish(self, g: Generated) -> Generated:
        if len(g.cmd) > MAX_LEN:
            return Generated(g.cmd[:MAX_LEN].rsplit(" ", 1)[0], g.origin, g.seed)
        return g

    def feedback(self, cmd: str, allowed: bool) -> None:
        """Allowed commands become seeds: a small change to one is where bugs live."""
        if not allowed or cmd in self.pool:
            return
        if len(self.pool) < self.pool_size:
            self.pool.append(cmd)
        else:
            self.pool[self.rng.int(0, self.pool_size - 1)] = cmd

    # -- grammar -------------------------------------------------------------------------------

    def script(self) -> str:
        parts = [self.pipeline()]
        while self.rng.random() < 0.2 and len(parts) < 3:
            parts += [self.rng.pick(SEPARATORS), self.pipeline()]
        return " ".join(p if p != "\n" else "\n" for p in parts).replace(" \n ", "\n")

    def pipeline(self) -> str:
        cmds = [self.command_text()]
        while self.rng.random() < 0.2 and len(cmds) < 3:
            cmds.append(self.command_text())
        return " | ".join(cmds)

    def command_text(self, prefix: tuple[str, ...] | None = None) -> str:
        words = self.simple(prefix)
        rng = self.rng
        if rng.random() < 0.06:
            i = rng.int(1, len(words)) if len(words) > 1 else 1
            words.insert(i, rng.pick(SUBSTITUTIONS).format(self.sub_command()))
        if rng.random() < 0.06:
            words.insert(rng.int(1, len(words)), rng.pick(EXPANSIONS))
        words = [self.trick(w) if rng.random() < 0.06 else w for w in words]
        text = " ".join(words)
        if rng.random() < 0.05:
            text = rng.pick(ASSIGNMENTS) + " " + text
        if rng.random() < 0.25:
            text += " " + rng.pick(SAFE_REDIRECTS if rng.random() < 0.6 else UNSAFE_REDIRECTS)
        if rng.random() < 0.08:
            text = self.wrap(text)
        return text

    def sub_command(self) -> str:
        if self.rng.random() < 0.5:
            return self.rng.pick(("touch pwned", "id", "cat ~/.ssh/id_rsa", "rm data.txt", "sh"))
        return " ".join(self.simple(None, max_flags=1))

    def wrap(self, text: str) -> str:
        rng = self.rng
        if rng.random() < 0.5:
            return " ".join(rng.pick(SIMPLE_WRAPPERS)) + " " + text
        return rng.pick(STRING_WRAPPERS).format(q=_quote(text), c=text)

    def program(self) -> tuple[str, ...]:
        return self.rng.pick(self.m.programs)

    def simple(self, prefix: tuple[str, ...] | None, max_flags: int = 3) -> list[str]:
        rng = self.rng
        prefix = prefix or self.program()
        if prefix == ("git",) and rng.random() < 0.8:
            prefix = ("git", rng.pick(GIT_SUBCOMMANDS))
        words = list(prefix)
        if prefix == ("find",):   # start points come before the expression
            words.append(rng.pick((".", "src", "docs", "~", ".", "'my file.txt'", "/tmp")))
        u = self.m.universes.get(prefix)
        n = rng.pick((0, 1, 1, 1, 2, 2, 3, 4))
        for _ in range(min(n, max_flags + 1)):
            if u and u.flags:
                words += self.flag(u, prefix)
        words += self.operands(prefix)
        return words

    def flag(self, u: Universe, prefix: tuple[str, ...]) -> list[str]:
        rng = self.rng
        f = rng.pick(u.flags)
        if f.arg is None and rng.random() < 0.5:   # prefer flags that take something
            f = rng.pick(u.flags)
        name = f.name
        abbrevs = u.abbreviations(name) if f.long else []
        if abbrevs and rng.random() < 0.4:
            name = rng.pick(abbrevs)
        if name in ("-exec", "-execdir", "-ok", "-okdir"):
            return [name, *self.rng.pick(PROGRAMS).split(), "{}", rng.pick(("\\;", "';'", "+", "\\;"))]
        if f.arg is None:
            if f.long and rng.random() < 0.05:
                return [name + "=" + rng.pick(WORDS)]
            return [name]
        value = self.value(f)
        if f.optional:
            return [name + ("=" if f.long else "") + value] if rng.random() < 0.7 else [name]
        if f.long:
            return [name + "=" + value] if rng.random() < 0.5 else [name, value]
        if len(name) == 2 and rng.random() < 0.3:
            return [name + value]
        return [name, value]

    def value(self, f: Flag) -> str:
        meta = (f.arg or "").strip("<>[]=").lower()
        rng = self.rng
        if re.search(r"prog|command|cmd|exec|program|helper|editor|pager|shell", meta):
            return _quote(rng.pick(PROGRAMS)) if rng.random() < 0.3 else rng.pick(PROGRAMS).split()[0]
        if re.search(r"file|^f$|path|dir|output|suffix|archive|name", meta):
            return self.path(write=True)
        if re.search(r"^n$|num|level|size|count|depth|nmerge|lines|bytes|width|max|min", meta):
            return str(rng.pick((0, 1, 2, 10, -1, 100)))
        if re.search(r"pattern|regex|re$|glob|expr", meta):
            return rng.pick(PATTERNS)
        if re.search(r"format|fmt|pretty", meta):
            return rng.pick(FORMATS)
        return rng.pick(WORDS + ("out.txt", ".env") if rng.random() < 0.3 else WORDS)

    def path(self, write: bool = False) -> str:
        r = self.rng.random()
        if r < 0.35:
            return self.rng.pick(EXISTING)
        if r < (0.65 if write else 0.45):
            return self.rng.pick(NEW_FILES)
        if r < 0.9:
            return self.rng.pick(self._secrets)
        return self.rng.pick(SPECIAL)

    def operands(self, prefix: tuple[str, ...]) -> list[str]:
        rng = self.rng
        prog = prefix[0]
        if prog == "sed":
            return [rng.pick(SED_SCRIPTS), *([self.path()] if rng.random() < 0.7 else [])]
        if prog in ("awk", "gawk", "mawk", "nawk"):
            return [rng.pick(AWK_PROGRAMS), *([self.path()] if rng.random() < 0.7 else [])]
        if prog == "jq":
            extra = [rng.pick(("data.json", "/dev/null", ".env"))] if rng.random() < 0.5 else []
            return [rng.pick(JQ_FILTERS), *extra]
        if prog in ("less", "more", "man", "most"):
            return [rng.pick(LESS_OPERANDS)]
        if prog == "find":
            return []
        if prog in ("xargs", "env", "nice", "timeout", "nohup", "command", "builtin", "exec", "time",
                    "stdbuf", "sudo", "watch", "setsid"):
            inner = rng.pick(PROGRAMS).split()
            return (["5"] if prog == "timeout" else []) + inner
        if prog in ("echo", "printf"):
            return [rng.pick(("hi", "'%s\\n'", "-e '\\x41'", "$HOME", "x > y", "'$(id)'"))]
        if prog == "git" and len(prefix) > 1:
            return [rng.pick(("HEAD", "--", "README.md", ".", "main", "HEAD~1", "-p", "--all", "'*.py'"))] \
                if rng.random() < 0.5 else []
        n = rng.pick((0, 1, 1, 1, 2))
        return [self.path() for _ in range(n)]

    def trick(self, word: str) -> str:
        """Spell ``word`` differently without changing what bash passes on."""
        if not word or any(c in word for c in "'\"\\$`() {}<>|;&*?[]\n~"):
            return word
        rng = self.rng
        i = rng.int(1, len(word) - 1) if len(word) > 1 else 0
        choice = rng.int(0, 7)
        if choice == 0:
            return _quote(word)
        if choice == 1:
            return '"' + word + '"'
        if choice == 2 and word[i:i + 1].isalnum():
            return word[:i] + "\\" + word[i:]
        if choice == 3:
            return word[:i] + "''" + word[i:]
        if choice == 4:
            return word[:i] + '""' + word[i:]
        if choice == 5:
            return "$'" + "".join(f"\\x{ord(c):02x}" if rng.random() < 0.5 else c for c in word) + "'"
        if choice == 6:
            return word[:i] + "\\\n" + word[i:]
        return '"' + word[:i] + '"' + word[i:]

    # -- seeds and policy --------------------------------------------------------------------

    def policy_command(self, seed: PolicySeed) -> str:
        rng = self.rng
        if not seed.open_ended:
            text = " ".join(seed.prefix)
        else:
            text = " ".join(self.simple(seed.prefix, max_flags=4))
            if rng.random() < 0.25:   # a second helping of that program's riskiest flags
                u = self.m.universes.get(seed.prefix)
                if u and u.flags:
                    text += " " + " ".join(self.flag(u, seed.prefix))
        if rng.random() < 0.15:
            text += " " + rng.pick(SAFE_REDIRECTS + UNSAFE_REDIRECTS)
        if rng.random() < 0.1:
            text = self.wrap(text)
        if rng.random() < 0.2:
            text = self.mutate(text, rounds=1)
        return text

    def mutate(self, source: str, rounds: int | None = None) -> str:
        toks = tokens.split(source)
        if not toks:
            return self.script()
        rng = self.rng
        for _ in range(rounds or rng.pick((1, 1, 2, 3))):
            toks = self._mutate_once(toks)
            if not toks:
                return self.script()
        return tokens.join(toks)

    def _prefix_of(self, toks: list[str], start: int) -> tuple[str, ...] | None:
        for k in (2, 1):
            p = tuple(toks[start:start + k])
            if len(p) == k and p in self.m.universes:
                return p
        return None

    def _mutate_once(self, toks: list[str]) -> list[str]:
        rng = self.rng
        op = rng.int(0, 10)
        starts = [0] + [i + 1 for i, t in enumerate(toks) if tokens.is_operator(t) and i + 1 < len(toks)]
        start = rng.pick(starts)
        prefix = self._prefix_of(toks, start)
        if op <= 2 and prefix:                      # insert one of the program's own flags
            u = self.m.universes[prefix]
            if u.flags:
                at = start + len(prefix)
                end = next((i for i in range(at, len(toks)) if tokens.is_operator(toks[i])), len(toks))
                pos = rng.int(at, end)
                return toks[:pos] + self.flag(u, prefix) + toks[pos:]
        if op == 3:                                 # abbreviate or re-spell a long option
            longs = [i for i, t in enumerate(toks) if t.startswith("--") and len(t) > 3]
            if longs and prefix:
                i = rng.pick(longs)
                name, eq, val = toks[i].partition("=")
                ab = self.m.universes[prefix].abbreviations(name)
                if ab:
                    return toks[:i] + [rng.pick(ab) + eq + val] + toks[i + 1:]
        if op == 4:                                 # change an operand
            ops = [i for i, t in enumerate(toks) if i > start and not t.startswith("-")
                   and not tokens.is_operator(t)]
            if ops:
                i = rng.pick(ops)
                return toks[:i] + [self.path(write=rng.random() < 0.5)] + toks[i + 1:]
        if op == 5:
            return toks + tokens.split(rng.pick(SAFE_REDIRECTS + UNSAFE_REDIRECTS))
        if op == 6:
            return tokens.split(self.wrap(tokens.join(toks)))
        if op == 7:
            i = rng.int(0, len(toks) - 1)
            return toks[:i] + [self.trick(toks[i])] + toks[i + 1:]
        if op == 8:
            other = rng.pick(self.m.seeds) if self.m.seeds and rng.random() < 0.5 else self.command_text()
            return toks + [rng.pick(SEPARATORS)] + tokens.split(other)
        if op == 9:
            i = rng.int(start, len(toks))
            sub = rng.pick(SUBSTITUTIONS + ("{}",)).format(self.sub_command()) \
                if rng.random() < 0.7 else rng.pick(EXPANSIONS)
            return toks[:i] + [sub] + toks[i:]
        if len(toks) > 1:                           # drop a token
            i = rng.int(1, len(toks) - 1)
            return toks[:i] + toks[i + 1:]
        return toks


# -- material ----------------------------------------------------------------------------------

def load_seeds(*dirs: Path) -> tuple[str, ...]:
    """Commands from ``corpus/*.jsonl`` (the ``cmd`` key) and ``fuzz/seeds/*.txt`` (a line each)."""
    out: list[str] = []
    for d in dirs:
        if not d.is_dir():
            continue
        for p in sorted(d.glob("*.jsonl")):
            for line in p.read_text(encoding="utf-8", errors="replace").splitlines():
                line = line.strip()
                if not line or line.startswith("//"):
                    continue
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                if isinstance(obj, dict) and isinstance(obj.get("cmd"), str) and len(obj["cmd"]) < MAX_LEN:
                    out.append(obj["cmd"])
        for p in sorted(d.glob("*.txt")):
            for line in p.read_text(encoding="utf-8", errors="replace").splitlines():
                if line.strip() and not line.lstrip().startswith("#"):
                    out.append(line.rstrip("\n"))
    return tuple(dict.fromkeys(out))


def program_prefixes(names: Sequence[str], policy: Sequence[PolicySeed]) -> list[tuple[str, ...]]:
    """Programs the grammar may start a command with: installed read-only programs, the git
    sub-commands, and every allow rule's prefix (those twice: they are the user's risk)."""
    out: list[tuple[str, ...]] = []
    for n in sorted(set(names)):
        if n in ("[", "[[", "((") or not re.fullmatch(r"[\w.+-]+", n):
            continue
        if shutil.which(n) or n in ("cd", "echo", "printf", "pwd", "type", "test", "true", "false"):
            out.append((n,))
    if ("git",) in out:
        out += [("git", s) for s in GIT_SUBCOMMANDS]
    for s in policy:
        out += [s.prefix] * 3
    return out


def strategy(material: Material) -> Any:
    """A hypothesis strategy for commands over the same grammar (no feedback pool)."""
    from hypothesis import strategies as st

    @st.composite
    def commands(draw: Callable[[Any], Any]) -> str:
        return Generator(material, DrawRng(draw)).command().cmd

    return commands()
