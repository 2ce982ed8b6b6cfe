"""Secrets in the environment: which variables hold credentials, and which commands print them.

The agent's environment carries its API keys (``OPENAI_API_KEY``, ``GITHUB_TOKEN``,
``AWS_SECRET_ACCESS_KEY`` …). Reading ``/proc/self/environ`` is a leak in the path table; these
are the same leak by other means, reported as leak-class reads (``SensitiveHit``) so that the
read-only check and the harness's forced prompt treat them as ``cat ~/.ssh/id_rsa``:

* an expansion of a secret-named variable anywhere in an executed command (``echo $OPENAI_API_KEY``,
  ``printf %s "${AWS_SECRET_ACCESS_KEY}"``, an assignment value, an unquoted here-doc body);
* a command that prints such a variable by name (``printenv GITHUB_TOKEN``, ``declare -p X``);
* a whole-environment dump (``printenv``, ``env`` with no command, ``set``, ``declare -p``,
  ``export -p``, ``ps axe`` / ``ps e`` / ``ps -o environ``, jq's ``env`` and ``$ENV``), or one
  secret variable read by name (``jq -n '$ENV.OPENAI_API_KEY'``);
* an interpreter's inline code that reads the environment (``python -c 'print(os.environ)'``,
  ``node -e``, ``perl -e``, ``ruby -e``, ``php -r``): a cheap textual look, since such a command
  is never read-only — it only names the leak.

``SECRET_ENV_NAMES`` is the one table of secret-named variables. It lives here (the bash core
imports nothing else); the sandbox's environment scrub may import it for its DENIED list.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable
from functools import lru_cache

from ..facts import PathClass, PathOp, SensitiveHit
from ..ir import Command, CommandKind, Span, Word, xargs_tail
from .globs import expand_braces, has_glob

# Glob patterns over upper-cased variable names. A superset of the usual key names: a false hit
# costs one prompt, a miss prints a key into the conversation.
SECRET_ENV_NAMES: tuple[str, ...] = (
    "*TOKEN*", "*SECRET*", "*KEY*", "*PASSWORD*", "*PASSWD*", "*PASSPHRASE*", "*CREDENTIAL*",
    "*AUTH*", "*COOKIE*", "*SESSION*", "*_PAT", "*_PAT_*", "*PRIVATE*", "*_DSN", "DATABASE_URL",
    "*_DATABASE_URL", "REDIS_URL", "MONGO*_URI", "AWS_*", "AZURE_*", "GOOGLE_*", "GCP_*", "GCLOUD_*",
    "GH_*", "GITHUB_*", "GITLAB_*", "ANTHROPIC_*", "OPENAI_*", "HF_*", "HUGGING*", "SSH_*", "GPG_*",
    "VAULT_*", "DOCKER_*", "NPM_CONFIG_*", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "KUBECONFIG",
    # shortened password names (MYSQL_PWD is mysql's own; SMTP_PASS, DB_PW) and webhook URLs,
    # whose path is the credential (Slack, Discord); `PWD` and `OLDPWD` have no underscore before it
    "*_PWD", "*_PW", "*_PASS", "*WEBHOOK*",
)

ENVIRONMENT = "the environment"  # the path shown for a whole-environment dump
_DUMP = "env: every variable"   # the pattern shown for it


@lru_cache(maxsize=1)
def _secret_rx() -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{fnmatch.translate(p)})" for p in SECRET_ENV_NAMES))


@lru_cache(maxsize=1024)
def secret_pattern(name: str) -> str | None:
    """The table entry a variable name matches (case folded), or None."""
    upper = name.upper()
    if not _secret_rx().match(upper):
        return None
    return next(p for p in SECRET_ENV_NAMES if fnmatch.fnmatchcase(upper, p))


# --------------------------------------------------------------------------- expansions

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# What changes the reading of a word's spelling: an escape, a quote, `$'`, an expansion of a
# name. Plain runs between them are skipped in one regex step (deeply nested words are long).
_TOKEN = re.compile(r"""\\.|'|"|\$'|\$\{[#!]?([A-Za-z_][A-Za-z0-9_]*)|\$([A-Za-z_][A-Za-z0-9_]*)""", re.S)
_ANSI_REST = re.compile(r"(?:[^'\\]|\\.)*'?", re.S)


def expanded_names(raw: str, *, quotes: bool = True) -> Iterable[str]:
    """The variable names ``raw`` (a word's source spelling) expands: ``$X``, ``${X}``,
    ``${X:-…}``, ``${#X}``, ``${!X}``, also inside ``$(…)`` and double quotes. Single quotes
    and ``$'…'`` hide a ``$`` (``quotes``; an unquoted here-doc body has none). Errs towards
    finding a name: quotes nested in ``"$(…)"`` are not tracked."""
    pos, n, dq = 0, len(raw), False
    while (m := _TOKEN.search(raw, pos)) is not None:
        tok, pos = m.group(0), m.end()
        name = m.group(1) or m.group(2)
        if name:
            yield name
        elif not quotes or tok[0] == "\\":
            continue
        elif tok == "'" and not dq:
            j = raw.find("'", pos)
            pos = n if j < 0 else j + 1
        elif tok == '"':
            dq = not dq
        elif tok == "$'" and not dq:  # an ANSI-C string: no expansion inside
            pos = _ANSI_REST.match(raw, pos).end()  # type: ignore[union-attr]
        elif tok == "$'":
            pos = m.start() + 1  # inside "…": a `$` then a literal quote


def _word_names(w: Word, braces: bool) -> Iterable[str]:
    """The variable names a word expands. Brace expansion comes first in bash (in a command's
    words and a for list, not in an assignment or a here-string), so braces may compose a name
    the source never spells whole: ``$O{PENAI_API_KEY,}`` is ``$OPENAI_API_KEY $O``. Each
    alternative is read too (quotes are not tracked there: a quoted brace that bash leaves
    alone only finds a name too many)."""
    yield from expanded_names(w.raw)
    if braces and w.glob and "{" in w.raw:
        alts = expand_braces(w.raw)
        for alt in alts if len(alts) > 1 else ():
            yield from expanded_names(alt)


def _word_hits(words: Iterable[Word], span: Span | None = None, braces: bool = False) -> list[SensitiveHit]:
    out = []
    for w in words:
        if w.static or "$" not in w.raw:
            continue
        for name in dict.fromkeys(_word_names(w, braces)):
            pattern = secret_pattern(name)
            if pattern is not None:
                out.append(SensitiveHit(f"${name}", PathClass.LEAK, PathOp.READ, span or w.span, pattern))
    return out


def expansion_hits(words: Iterable[Word]) -> list[SensitiveHit]:
    """Secret-named variables that words outside any command expand (``Script.loose_words``:
    ``for x in $GITHUB_TOKEN; do echo $x; done`` prints the token through ``$x``)."""
    return _word_hits(words, braces=True)


def _heredoc_hits(cmd: Command) -> list[SensitiveHit]:
    out = []
    for r in cmd.redirects:
        if r.heredoc and not r.heredoc_quoted and "$" in r.heredoc:
            for name in expanded_names(r.heredoc, quotes=False):
                pattern = secret_pattern(name)
                if pattern is not None:
                    out.append(SensitiveHit(f"${name}", PathClass.LEAK, PathOp.READ, r.span, pattern))
    return out


# --------------------------------------------------------------------------- printers


def _dump(span: Span) -> SensitiveHit:
    return SensitiveHit(ENVIRONMENT, PathClass.LEAK, PathOp.READ, span, _DUMP)


def _named(words: Iterable[Word]) -> list[SensitiveHit]:
    """Operands that name a secret variable to print (``printenv GITHUB_TOKEN``). A name the
    shell makes at run time is any name, so it counts as the whole environment: an expansion
    (``printenv ${X:-GITHUB_TOKEN}``, ``printenv "$@"`` — no name at all prints every
    variable) or a glob; braces are expanded (``printenv OPENAI_{API_KEY,X}``)."""
    out = []
    for w in words:
        name = w.text.split("=", 1)[0]
        if _NAME.fullmatch(name):  # (`export A=$B`: the value is no name)
            names = [name]
        elif not w.static:
            return [_dump(w.span)]
        else:
            names = [a.split("=", 1)[0] for a in expand_braces(name)] if w.glob else [name]
        for n in names:
            if w.glob and has_glob(n):
                return [_dump(w.span)]
            pattern = secret_pattern(n) if _NAME.fullmatch(n) else None
            if pattern is not None:
                out.append(SensitiveHit(f"${n}", PathClass.LEAK, PathOp.READ, w.span, pattern))
    return out


def _options_and_operands(words: tuple[Word, ...]) -> tuple[list[Word], list[Word]]:
    opts: list[Word] = []
    ops: list[Word] = []
    for w in words:
        (opts if not ops and w.text[:1] in "-+" and w.text not in ("-", "--") else ops).append(w)
    return opts, [w for w in ops if w.text != "--"]


def _printenv(cmd: Command, has_inner: bool) -> list[SensitiveHit]:
    """``printenv NAME…`` prints those variables; with no name, all of them."""
    _opts, ops = _options_and_operands(cmd.args)
    return _named(ops) if ops else [_dump(cmd.span)]


def _env(cmd: Command, has_inner: bool) -> list[SensitiveHit]:
    """``env`` with no command prints the environment (after its own ``-u`` / ``X=1``)."""
    return [] if has_inner else [_dump(cmd.span)]


def _set(cmd: Command, has_inner: bool) -> list[SensitiveHit]:
    """Bare ``set`` prints every variable (and function); with arguments it sets options."""
    return [] if cmd.args else [_dump(cmd.span)]


# declare/typeset: -f/-F print functions only; any other call without names prints variables.
_FUNCS_ONLY = re.compile(r"[-+][A-Za-z]*[fF][A-Za-z]*")


def _declare(cmd: Command, has_inner: bool) -> list[SensitiveHit]:
    """``declare``/``typeset``/``export``/``readonly``/``local`` without names list variables
    (with their values); with names, ``-p`` prints them."""
    opts, ops = _options_and_operands(cmd.args)
    if ops:
        return _named(ops)
    if cmd.name in ("declare", "typeset") and any(_FUNCS_ONLY.fullmatch(o.text) for o in opts):
        return []
    return [_dump(cmd.span)]


# ps (procps): BSD `e` shows each process's environment; so does the `environ` format. A UNIX
# cluster with `e` is "every process" only while all its letters are UNIX ones: procps reads
# `-ex` as BSD (checked against procps-ng 4.0; tests/test_secrets_env.py runs the real ps).
_PS_UNIX_SAFE = frozenset("aAdefFHjlLMNwZcy")
_PS_FORMAT_LETTERS = frozenset("oO")
_PS_VALUE_LETTERS = frozenset("pugGUtCqskD")  # UNIX letters whose value is the rest or the next word
_PS_LONG_VALUED = frozenset({"--pid", "--ppid", "--user", "--User", "--group", "--Group", "--tty",
                             "--sid", "--sort", "--quick-pid", "--cols", "--columns", "--width", "--rows",
                             "--lines", "--date-format", "--format"})


def _ps(cmd: Command, has_inner: bool) -> list[SensitiveHit]:
    words = cmd.args
    i = 0
    while i < len(words):
        w = words[i]
        t = w.text
        i += 1
        if not w.static:
            return [_dump(w.span)]  # an expansion may be `e`
        value: str | None = None   # the format, when this word gives one
        if t.startswith("--"):
            key, eq, val = t.partition("=")
            if key in _PS_LONG_VALUED and not eq and i < len(words):
                val, i = words[i].text, i + 1
            if key == "--format":
                value = val
        elif t.startswith("-"):
            seen = ""
            for j, c in enumerate(t[1:], start=1):
                if c in _PS_FORMAT_LETTERS or c in _PS_VALUE_LETTERS:
                    val = t[j + 1:]
                    if not val and i < len(words):
                        val, i = words[i].text, i + 1
                    value = val if c in _PS_FORMAT_LETTERS else None
                    break
                seen += c
            if "e" in seen and not set(seen) <= _PS_UNIX_SAFE:
                return [_dump(w.span)]
        elif "e" in t:  # a BSD cluster (or a value of one: careful, not exact)
            return [_dump(w.span)]
        if value is not None and ("env" in value.lower() or "$" in value):
            return [_dump(w.span)]
    return []


def _jq(cmd: Command, has_inner: bool) -> list[SensitiveHit]:
    """jq's ``env`` / ``$ENV`` print the environment (``jq -n env``), or one variable
    (``$ENV.OPENAI_API_KEY``): read with jq's own table and program reader."""
    from ..commands.jq import jq_env_reads

    reads = jq_env_reads(cmd.args)
    if not reads:
        return []
    if None in reads:
        return [_dump(cmd.span)]
    out = []
    for name in reads:
        pattern = secret_pattern(name) if name is not None else None
        if pattern is not None:
            out.append(SensitiveHit(f"${name}", PathClass.LEAK, PathOp.READ, cmd.span, pattern))
    return out


# Interpreters whose inline code may print the environment (``python -c 'print(os.environ)'``,
# ``node -e 'console.log(process.env)'``): never read-only anyway, so a cheap textual look is
# enough — it only names the leak in the reason (and forces the prompt, as for printenv). Per
# interpreter: the options whose value (or, for a bundle such as ``perl -le``, the next word) is
# code, the text that reaches the environment at all, and the spellings that read one variable
# by name (a group ``name``). Code on stdin from a here-document counts too.
_CODE_ENV: dict[str, tuple[frozenset[str], re.Pattern[str], re.Pattern[str]]] = {
    "python": (frozenset({"-c"}), re.compile(r"\benviron[b]?\b|\bgetenv[b]?\b"),
               re.compile(r"""(?:environ[b]?\s*\[|(?:environ[b]?\.get|getenv[b]?)\s*\()\s*[rb]?(['"])(?P<name>\w+)\1""")),
    "node": (frozenset({"-e", "--eval", "-p", "--print"}), re.compile(r"\bprocess\s*\.\s*env\b"),
             re.compile(r"""process\.env(?:\.(?P<name>\w+)|\[\s*(['"`])(?P<q>\w+)\2\s*\])""")),
    "perl": (frozenset({"-e", "-E"}), re.compile(r"[%$@]ENV\b|\bENV\b"),
             re.compile(r"""\$ENV\s*\{\s*(['"]?)(?P<name>\w+)\1\s*\}""")),
    "ruby": (frozenset({"-e"}), re.compile(r"\bENV\b"),
             re.compile(r"""ENV(?:\s*\[|\.fetch\s*\(?)\s*(['"])(?P<name>\w+)\1""")),
    "php": (frozenset({"-r"}), re.compile(r"\bgetenv\b|\$_ENV\b|\$_SERVER\b"),
            re.compile(r"""(?:getenv\s*\(|\$_(?:ENV|SERVER)\s*\[)\s*(['"])(?P<name>\w+)\1""")),
}
_INTERPRETER = re.compile(r"(python|node|perl|ruby|php)(?:js)?[\d.]*")


def _code_words(cmd: Command, flags: frozenset[str]) -> list[tuple[str, Span]]:
    """The inline code a command line gives its interpreter: the value of a code option (also
    ending a bundle of short options, ``-le``), and here-document bodies (``python - <<EOF``)."""
    out: list[tuple[str, Span]] = []
    args = cmd.args
    letters = {f[1] for f in flags if len(f) == 2}
    for k, w in enumerate(args[:-1]):
        t = w.text
        bundle = t.startswith("-") and not t.startswith("--") and len(t) > 2 and t[-1] in letters \
            and t[1:].isalpha()
        if t in flags or bundle:
            out.append((args[k + 1].text, args[k + 1].span))
    out += [(r.heredoc, r.span) for r in cmd.redirects if r.heredoc]
    return out


def _interpreter(cmd: Command, has_inner: bool) -> list[SensitiveHit]:
    """An interpreter's inline code that reads the environment: every variable, or the
    secret-named ones it reads by name (``os.environ["OPENAI_API_KEY"]``)."""
    m = _INTERPRETER.fullmatch((cmd.name or "").rsplit("/", 1)[-1])
    if m is None:
        return []
    flags, reaches, named = _CODE_ENV[m.group(1)]
    return _code_reads(_code_words(cmd, flags), reaches, named)


def _code_reads(codes: Iterable[tuple[str, Span]], reaches: re.Pattern[str],
                named: re.Pattern[str]) -> list[SensitiveHit]:
    """What pieces of code read of the environment: the whole of it where ``reaches`` matches
    outside a read by name (or a name cannot be read), else each secret-named variable."""
    out: list[SensitiveHit] = []
    for code, span in codes:
        by_name = [(n.span(), n.group("name") or n.groupdict().get("q")) for n in named.finditer(code)]
        for hit in reaches.finditer(code):
            if not any(a <= hit.start() < b for (a, b), _name in by_name):
                return [_dump(span)]  # the environment as a whole, or a name we cannot read
        for _span, name in by_name:
            pattern = secret_pattern(name) if name else None
            if pattern is not None:
                out.append(SensitiveHit(f"${name}", PathClass.LEAK, PathOp.READ, span, pattern))
    return out


# awk's ENVIRON array is the environment: `awk 'BEGIN{print ENVIRON["GITHUB_TOKEN"]}'` prints a
# secret as surely as printenv does (and gawk's SYMTAB, refused anyway, reaches it too).
# (a digit before the name is no part of it: awk reads `1ENVIRON` as 1, then ENVIRON)
_AWK_REACHES = re.compile(r"(?<![A-Za-z_])(?:ENVIRON|SYMTAB)(?!\w)")
_AWK_NAMED = re.compile(r"""(?<![A-Za-z_])ENVIRON\s*\[\s*"(?P<name>\w+)"\s*\]""")


def _awk(cmd: Command, has_inner: bool) -> list[SensitiveHit]:
    """Every word is read as program text: awk takes programs from the first operand, from
    each ``-e``/``--source`` (gawk), attached (``--source=…``) or not; a file name that says
    ENVIRON only costs a question."""
    return _code_reads(((w.text, w.span) for w in cmd.args), _AWK_REACHES, _AWK_NAMED)


_PRINTERS = {
    **dict.fromkeys(("awk", "gawk", "mawk", "nawk", "original-awk"), _awk),
    "printenv": _printenv, "env": _env, "set": _set, "ps": _ps, "jq": _jq, "gojq": _jq, "jaq": _jq,
    **dict.fromkeys(("declare", "typeset", "export", "readonly", "local"), _declare),
}

# The printers whose words choose what they print; the others print nothing more for an extra
# word (env and awk take it for a command or a file, and their own checks refuse that).
_WORD_PRINTERS = frozenset({"ps", "printenv"})


def env_hits(cmd: Command, has_inner: bool) -> list[SensitiveHit]:
    """Leak-class reads of the environment by one executed command. ``has_inner``: a wrapper
    (``env``) runs a command of its own, listed separately."""
    out = _word_hits(cmd.words, braces=True) if cmd.words else []
    for a in cmd.assignments:
        out.extend(_word_hits((a.value,), a.span))
    for r in cmd.redirects:
        if r.target is not None and r.heredoc is None:
            out.extend(_word_hits((r.target,)))
    if cmd.redirects:
        out.extend(_heredoc_hits(cmd))
    if cmd.kind is CommandKind.SIMPLE and (name := cmd.name) is not None:
        base = name.rsplit("/", 1)[-1]
        printer = _PRINTERS.get(base)
        if printer is not None and xargs_tail(cmd.via) and base in _WORD_PRINTERS:
            # the words xargs appends are unseen: `echo e | xargs ps`, `echo GITHUB_TOKEN |
            # xargs printenv HOME` print what the static words alone never would
            out.append(_dump(cmd.span))
        elif printer is not None:
            out.extend(printer(cmd, has_inner))
        elif base[:1] in "pnr":  # python, perl, php, node, ruby
            out.extend(_interpreter(cmd, has_inner))
    return out
