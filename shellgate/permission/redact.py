"""Secret redaction for everything that leaves the process (audit lines, prompts in logs).

Commands carry secrets more often than one would like: ``curl -H 'Authorization: Bearer …'``,
``https://user:token@host``, ``mysql -pHunter2``, ``export AWS_SECRET_ACCESS_KEY=…``. Each
pattern below keeps what makes the line useful (the command, the flag, the host) and replaces
only the secret with ``***``. Over-redaction is acceptable; a leak is not.
"""

from __future__ import annotations

from .._lazyre import lazy_compile

_R = "***"

# (needles, pattern, replacement). A pattern runs only when the lower-cased text contains one
# of its needles — literals that every match contains — so ``git status`` compiles and runs
# none of them: compiling all eleven takes ~2.5 ms, more than deciding a typical hook call.
# Text that is not ASCII runs every pattern (case folding beyond ASCII: ``ſ`` matches ``s``).
_RULES: tuple[tuple[tuple[str, ...], str, str], ...] = (
    # scheme://user:password@host -> scheme://user:***@host
    (("://",), r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s/:@'\"]*:)[^\s/@'\"]+@", rf"\g<1>{_R}@"),
    # Authorization / Proxy-Authorization / X-Api-Key / Cookie headers
    (("authorization", "cookie", "x-"),
     r"(?i)\b((?:proxy-)?authorization|x-[a-z-]*(?:token|key|secret)|cookie)"
     r"(\s*[:=]\s*)(?:(?:bearer|basic|token|digest|negotiate)\s+)?[^\s'\"]+",
     rf"\g<1>\g<2>{_R}"),
    # AWS access key ids and the like
    (("akia", "asia", "agpa", "aida", "aroa"), r"\b(AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b",
     rf"\g<1>{_R}"),
    # well-known token shapes: GitHub, GitLab, Slack, OpenAI/Anthropic, Google, Stripe, JWT
    (("gh", "github_pat_", "glpat-", "xox", "sk-", "aiza", "sk_live_", "rk_live_"),
     r"\b(gh[pousr]_|github_pat_|glpat-|xox[abposr]-|sk-(?:ant-|proj-)?|AIza|"
     r"sk_live_|rk_live_)[A-Za-z0-9_\-]{8,}", rf"\g<1>{_R}"),
    (("eyj",), r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", _R),
    # NAME=value where NAME says it is a secret (env assignments, query strings, flags)
    (("password", "passwd", "pwd", "secret", "token", "api", "access", "private", "credential"),
     r"(?i)\b([A-Za-z0-9_]*(?:password|passwd|pwd|secret|token|api[_-]?key|"
     r"access[_-]?key|private[_-]?key|credentials?)[A-Za-z0-9_]*)=('[^']*'|\"[^\"]*\"|"
     r"[^\s&;'\"]+)",
     rf"\g<1>={_R}"),
    # --password value / --token value / --api-key value (and the = form handled above)
    (("password", "passwd", "token", "secret", "api-key", "apikey"),
     r"(?i)(--(?:[a-z-]*-)?(?:password|passwd|token|secret|api-key|apikey))"
     r"(\s+)('[^']*'|\"[^\"]*\"|[^\s'\"-][^\s]*)",
     rf"\g<1>\g<2>{_R}"),
    # mysql-family -p<password> (the attached form only; `-p` alone prompts)
    (("mysql", "mariadb"),
     r"(\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|mysqlimport|mysqlshow)\b"
     r"[^|;&\n]*?\s-p)(?!\s)('[^']*'|\"[^\"]*\"|\S+)",
     rf"\g<1>{_R}"),
    # sshpass -p secret, curl -u user:password
    (("sshpass",), r"(\bsshpass\b[^|;&\n]*?\s-p\s*)(\S+)", rf"\g<1>{_R}"),
    (("-u",), r"(\s(?:-u|--user)\s+['\"]?[^\s:'\"]+:)([^\s'\"]+)", rf"\g<1>{_R}"),
    # PEM private key blocks
    (("-----begin",),
     r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)",
     f"-----BEGIN PRIVATE KEY-----{_R}"),
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
