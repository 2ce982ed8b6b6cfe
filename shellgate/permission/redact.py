"""Secret redaction for everything that leaves the process (audit lines, prompts in logs).

Commands carry secrets in many shapes: ``curl -H 'PRIVATE-TOKEN: …'``, ``https://user:pw@host``,
``https://TOKEN@host``, ``curl -uuser:pw``, ``docker login -p …``, ``export DB_PASS=…``,
``?sig=…``, ``aws configure set aws_secret_access_key …``, JSON ``"password": "…"``. The rules
below keep what makes the line useful (the command, the flag, the host, the key's name) and
replace only the secret with ``***``. Over-redaction is acceptable; a leak is not.

Why a table of our own and not a secret scanner package: ``detect-secrets`` (Yelp, and
Bridgecrew's maintained fork) looks for token shapes and code-style assignments, so it left 49
(53) of the 61 lines of ``corpus/redact.jsonl`` in clear, and with its entropy plugins on it
redacted every word of ``git status``; it also costs 100-170 ms to import and 100-400 us a
line, on a path where the whole hook decision takes a few ms. ``redact-secret`` (Rust, 6 us a
line) is a beta without custom rules and left 40 lines in clear. The token shapes here follow
those rulesets (AWS, GitHub, GitLab, Slack, Stripe, npm, PyPI, Vault …); the rest are the
command-line forms they do not know. ``bench/redact_speed.py`` reproduces the measurements.

Most secrets sit in a *named* place: an assignment, a flag, a header, a JSON or YAML key, a
query parameter. One function (:func:`secret_name`) decides whether a name says "secret", from
two word lists; the shapes then only say where a name and its value are.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache

from .._lazyre import lazy_compile

_R = "***"

# A name says "secret" when it contains one of these (case-insensitive) …
SECRET_WORDS = ("password", "passwd", "passphrase", "secret", "token", "apikey", "api_key",
                "api-key", "credential", "authorization", "cookie", "privatekey", "private_key",
                "accountkey", "accesskey", "access_key", "signature", "sessionkey")
# … or one of its parts (split at `_ - .` and camelCase) is one of these. Not for `--flags`:
# `sort --key=2` and `--auth=basic` are ordinary.
SECRET_PARTS = frozenset({"pass", "pw", "pwd", "pat", "key", "sig", "auth", "pin"})

NOT_SECRET = frozenset({"pwd", "oldpwd"})   # the working directory, not a password
_NAME_NEEDLES = SECRET_WORDS + tuple(sorted(SECRET_PARTS))  # every secret name holds one
_PARTS = lazy_compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")


@lru_cache(maxsize=512)
def secret_name(name: str, *, flag: bool = False) -> bool:
    """Does ``name`` (``DB_PASS``, ``X-Api-Key``, ``_authToken``, ``sig``) name a secret?"""
    low = name.lower()
    if low in NOT_SECRET:
        return False
    if any(w in low for w in SECRET_WORDS):
        return True
    return not flag and any(p.lower() in SECRET_PARTS for p in _PARTS.findall(name))


def _hide(value: str) -> str:
    """``***``, inside the value's own quotes if it had some."""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[0] + _R + value[0]
    return _R


_QUOTED_OR_WORD = r"""'[^']*'|"[^"]*"|[^\s'"]+"""

# NAME=VALUE: env assignments, --flag=value, query strings, connection strings, -var 'x=y'.
_ASSIGN = (r"(?<![\w.\-])(?P<dash>-{1,2})?(?P<name>[A-Za-z_][\w.\-]*)="
           r"""(?P<value>'[^']*'|"[^"]*"|[^\s&;'"]*)""")
_ASSIGN_RX = lazy_compile(_ASSIGN)


def _assignment(m: re.Match[str], depth: int = 0) -> str:
    name, value = m["name"], m["value"]
    head = f"{m['dash'] or ''}{name}="
    if value and secret_name(name, flag=bool(m["dash"])):
        return head + _hide(value)
    if depth >= _MAX_NESTING:  # bounded work; what is left is hidden if it could name a secret
        low = value.lower()
        return head + (_hide(value) if any(n in low for n in _NAME_NEEDLES) else value)
    # `--from-literal=password=x`, `-c http.extraHeader='Cookie: …'`: look inside the value.
    return head + _ASSIGN_RX.sub(lambda inner: _assignment(inner, depth + 1), value)


_MAX_NESTING = 4   # `a=b=c=d=e…`


# NAME: VALUE — HTTP headers, JSON and YAML keys, openssl's `pass:VALUE`.
_KEYED = (r"""(?P<q>["']?)(?<![\w.\-])(?P<name>[A-Za-z_][\w.\-]*)(?P=q)[ \t]*:[ \t]*"""
          r"(?P<scheme>(?i:bearer|basic|token|digest|negotiate|aws4-hmac-sha256)[ \t]+)?"
          r"""(?P<value>"[^"]*"|'[^']*'|[^\s,;}'"]+)""")


def _keyed(m: re.Match[str]) -> str:
    if not secret_name(m["name"]):
        return m[0]
    head = m[0][:m.start("scheme" if m["scheme"] else "value") - m.start()]
    return head + (_R if m["scheme"] else _hide(m["value"]))


# --secret-flag VALUE (the `=` form is an assignment).
_FLAG_VALUE = (r"(?<!\S)(?P<flag>--?[A-Za-z][\w-]*)(?P<sep>[ \t]+)"
               r"""(?P<value>'[^']*'|"[^"]*"|[^\s'"-][^\s]*)""")


def _flag_value(m: re.Match[str]) -> str:
    if not secret_name(m["flag"], flag=True):
        return m[0]
    return f"{m['flag']}{m['sep']}{_hide(m['value'])}"


# `-u user:pw`, `-uuser:pw`, `--user=user:pw`, `--proxy-user`, smbclient `-U user%pw`, lftp
# `-u user,pw`. A numeric pair is a uid:gid (`docker run -u 1000:1000`).
_USER_PASS = (r"(?<!\S)(?P<flag>-u|-U|--user|--proxy-user|--basic-auth|--auth)(?P<sep>=|[ \t]+)?"
              r"""(?P<q>['"])?(?P<user>[^\s:%,'"]+)(?P<colon>[:%,])"""
              r"""(?P<pw>(?(q)[^'"]+|[^\s'"]+))""")


def _user_pass(m: re.Match[str]) -> str:
    if m["user"].isdigit() and m["pw"].isdigit():
        return m[0]
    return m[0][:m.start("pw") - m.start()] + _R


# Programs whose flag carries a password: (program words, the flag and what may follow it).
PASSWORD_FLAGS: tuple[tuple[str, str], ...] = (
    (r"(?:docker|podman|nerdctl|buildah|skopeo|oras|crane|helm[ \t]+registry)[ \t]+login",
     r"-p[ \t]*|--password[ \t]+"),
    (r"twine", r"-p[ \t]*"),
    (r"az[ \t]+login", r"-p[ \t]*"),
    (r"sshpass", r"-p[ \t]*"),
    (r"redis-cli", r"-a[ \t]*|--pass[ \t]+"),
    (r"mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|mysqlimport|mysqlshow", r"-p(?!\s)"),
    (r"openssl[ \t]+\w+", r"-k[ \t]+"),
    (r"gh[ \t]+secret[ \t]+set", r"-b[ \t]*|--body[ \t]+"),
)
_PASSWORD_FLAG = (r"(?P<head>\b(?:" + "|".join(f"(?:{p})(?:[^|;&\\n]{{0,200}}?\\s)(?:{f})"
                                              for p, f in PASSWORD_FLAGS) + r"))"
                  r"""(?P<value>'[^']*'|"[^"]*"|\S+)""")

# `aws configure set KEY VALUE`, `npm config set //reg/:_authToken VALUE`, yarn, pnpm.
_CONFIG_SET = (r"(?P<head>\bconfig(?:ure)?[ \t]+set[ \t]+(?:--?\S+[ \t]+){0,8})(?P<key>[^\s=]+)"
               r"""(?P<sep>[ \t]+)(?P<value>'[^']*'|"[^"]*"|\S+)""")


def _config_set(m: re.Match[str]) -> str:
    if not secret_name(m["key"]):
        return m[0]
    return f"{m['head']}{m['key']}{m['sep']}{_hide(m['value'])}"


def _token_userinfo(m: re.Match[str]) -> str:
    """``https://TOKEN@host``: a long user name with letters and digits is a token."""
    tok = m["tok"]
    if any(c.isdigit() for c in tok) and any(c.isalpha() for c in tok):
        return f"{m['scheme']}{_R}@"
    return m[0]


_Repl = str | Callable[[re.Match[str]], str]

# (needles, pattern, replacement). A pattern runs only when the lower-cased text contains one
# of its needles — literals that every change it makes contains — so ``git status`` runs few:
# compiling all of them takes milliseconds, more than deciding a typical hook call. Text that
# is not ASCII runs every pattern (case folding beyond ASCII: ``ſ`` matches ``s``).
_RULES: tuple[tuple[tuple[str, ...], str, _Repl], ...] = (
    # PEM private key blocks (first: nothing inside one should be read as anything else)
    (("-----begin",),
     r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
     f"-----BEGIN PRIVATE KEY-----{_R}"),
    # scheme://user:password@host -> scheme://user:***@host
    # (a scheme starts where a run of scheme characters starts, and `*+` never gives back:
    # a long `a.a.a…` is scanned once, not once per dot)
    (("://",), r"((?<![a-zA-Z0-9+.-])[a-zA-Z][a-zA-Z0-9+.-]*+://[^\s/:@'\"]*:)[^\s/@'\"]+@",
     rf"\g<1>{_R}@"),
    # scheme://TOKEN@host
    (("://",), r"(?P<scheme>(?<![a-zA-Z0-9+.-])[a-zA-Z][a-zA-Z0-9+.-]*+://)(?P<tok>[\w.~%-]{16,})@",
     _token_userinfo),
    # webhook URLs whose path is the secret
    (("hooks.slack.com",), r"(hooks\.slack\.com/services/[A-Za-z0-9]+/[A-Za-z0-9]+/)[\w-]+",
     rf"\g<1>{_R}"),
    (("/api/webhooks/",), r"(/api/webhooks/\d+/)[\w-]+", rf"\g<1>{_R}"),
    # token shapes (after detect-secrets' and gitleaks' rules); the prefix stays readable
    (("akia", "asia", "agpa", "aida", "aroa"), r"\b(AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b",
     rf"\g<1>{_R}"),
    (("gh", "github_pat_", "glpat-", "gldt-", "glrt-", "xox", "sk-", "aiza", "sk_", "rk_"),
     r"\b(gh[pousr]_|github_pat_|gl(?:pat|dt|rt)-|xox[abposr]-|sk-(?:ant-|proj-)?|AIza|"
     r"[sr]k_(?:live|test)_)[A-Za-z0-9_\-]{8,}", rf"\g<1>{_R}"),
    # prefixes that are also ordinary words need the token's length: `npm_config_x` stays
    (("npm_", "hf_", "shpat_", "dop_v1_", "pypi-age", "hvs.", "hvb.", "sg."),
     r"\b(npm_|hf_|shpat_|dop_v1_|pypi-AgE|hv[sb]\.|SG\.)(?=[\w.-]{20,})[A-Za-z0-9_\-.]+",
     rf"\g<1>{_R}"),
    (("eyj",), r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", _R),
    # named places: NAME=VALUE, NAME: VALUE, --secret-flag VALUE
    (_NAME_NEEDLES, _ASSIGN, _assignment),
    (_NAME_NEEDLES, _KEYED, _keyed),
    (SECRET_WORDS, _FLAG_VALUE, _flag_value),
    # user:password after -u / --user / -U
    (("-u", "-auth"), _USER_PASS, _user_pass),
    # program-specific password flags, `config set KEY VALUE`, `vault login TOKEN`
    (("login", "twine", "sshpass", "redis-cli", "mysql", "mariadb", "openssl", "secret"),
     _PASSWORD_FLAG, rf"\g<head>{_R}"),
    (("config",), _CONFIG_SET, _config_set),
    (("vault",), r"(\bvault[ \t]+login[ \t]+(?:-\S+[ \t]+){0,8})(?!-)(\S+)", rf"\g<1>{_R}"),
)


_RULES_LAZY = tuple((needles, lazy_compile(pattern), repl) for needles, pattern, repl in _RULES)


def redact(text: str) -> str:
    """``text`` with the secrets it visibly carries replaced by ``***``. Never raises."""
    if not text:
        return text
    try:
        low = text.lower() if text.isascii() else None
        for needles, rx, repl in _RULES_LAZY:
            if low is None or any(map(low.__contains__, needles)):
                new = rx.sub(repl, text)
                if new != text:
                    text = new
                    low = text.lower() if low is not None else None
    except Exception:  # a redaction bug must not leak the original either
        return "<redaction failed>"
    return text
