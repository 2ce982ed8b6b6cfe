"""``openssl version`` and ``openssl x509`` printing a certificate: the read-only forms of
openssl. Every other subcommand asks (``openssl`` alone reads commands from stdin; ``req``,
``genrsa``, ``enc`` … write keys or files; ``s_client`` talks to the network).

openssl spells its options with one dash (``-noout``), takes ``--noout`` and ``-in=FILE`` as
the same, and does not abbreviate: a word is turned into the ``--`` spelling and read against a
table with ``abbrev=False``. Measured with strace (OpenSSL 3.0): ``x509 -noout -text -in
cert.pem`` and ``version -a`` open the system ``openssl.cnf``, the CA store and the input, write
nothing, connect nowhere. Refused, besides every unlisted option: ``-out`` (writes), ``-req``,
``-key``/``-signkey``/``-CA…`` (sign a certificate, ``-CAcreateserial`` writes a serial file),
``-passin`` (reads a password source: ``file:``, ``fd:``, ``env:``), ``-engine``,
``-provider``/``-provider-path`` (load a shared object), ``-rand``/``-writerand``,
``-extfile``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..._record import replace
from ..facts import Effect
from .spec import Call, Command, Finding, Flag, Parsed, Takes, run_checks

V, P = Takes.VALUE, Takes.PATH
_DIGESTS = ("sha1", "sha224", "sha256", "sha384", "sha512", "md5")

# OpenSSL 3 loads `-in http://…` over the network (apps' load_cert: X509_load_http), and other
# schemes go through a store loader: only a plain file name is a file; the formats are the two
# file formats.
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_FORMATS = frozenset({"pem", "der"})


def _x509_inputs(p: Parsed, call: Call) -> Iterable[Finding]:
    for v in p.values_of("--in"):
        if not v.static or _SCHEME.match(v.text):
            yield Finding(f"openssl x509 -in {v.text}: a URL is fetched (http://) or opened by a store "
                          "loader", v.span, "readonly.operand", Effect.NETWORK)
    for v in p.values_of("--inform", "--outform"):
        if not v.static or v.text.lower() not in _FORMATS:
            yield Finding(f"openssl x509 format {v.text} is not PEM or DER", v.span, "readonly.flag")


X509 = Command("openssl x509", abbrev=False, max_operands=0, check=_x509_inputs, safe=[
    Flag("--in", takes=P), Flag("--inform", takes=V), Flag("--outform", takes=V),
    Flag("--noout"), Flag("--nocert"), Flag("--text"), Flag("--fingerprint"), Flag("--alias"),
    Flag("--serial"), Flag("--startdate"), Flag("--enddate"), Flag("--dates"), Flag("--subject"),
    Flag("--issuer"), Flag("--email"), Flag("--hash"), Flag("--subject_hash"),
    Flag("--subject_hash_old"), Flag("--issuer_hash"), Flag("--issuer_hash_old"), Flag("--ocspid"),
    Flag("--ocsp_uri"), Flag("--purpose"), Flag("--pubkey"), Flag("--modulus"),
    Flag("--nameopt", takes=V), Flag("--certopt", takes=V), Flag("--dateopt", takes=V),
    Flag("--ext", takes=V), Flag("--checkend", takes=V), Flag("--checkhost", takes=V),
    Flag("--checkemail", takes=V), Flag("--checkip", takes=V), Flag("--help"),
    *(Flag(f"--{d}") for d in _DIGESTS)],
    unsafe={Flag("--out", takes=Takes.WRITE_PATH): "writes the certificate to a file"})
VERSION = Command("openssl version", abbrev=False, max_operands=0,
                  safe=[Flag(f"--{c}") for c in "avbofpdemrc"])
FORMS = {"x509": X509, "version": VERSION}


def _long(call: Call) -> tuple:
    """The subcommand's words with ``-opt`` spelled ``--opt`` (openssl reads both alike)."""
    return tuple(replace(w, text="-" + w.text) if w.static and w.text.startswith("-")
                 and not w.text.startswith("--") and len(w.text) > 1 else w
                 for w in call.command.args[1:])


def openssl(call: Call) -> list[Finding]:
    args = call.command.args
    sub = args[0] if args else None
    form = FORMS.get(sub.text) if sub is not None and sub.static and not sub.glob else None
    if form is None:
        what = f"openssl {sub.text}" if sub is not None else "openssl with no subcommand"
        return [Finding(f"{what} is not read-only (only openssl version and x509 printing are)",
                        call.command.words[0].span, "readonly.subcommand")]
    words = _long(call)
    spelled = {w.text.partition("=")[0]: o.text.partition("=")[0]
               for w, o in zip(words, call.command.args[1:], strict=True) if w.text != o.text}
    return [_respelled(f, spelled) for f in run_checks(form, call, words)]


def _respelled(f: Finding, spelled: dict[str, str]) -> Finding:
    """The finding with each option named as the command spells it (``-req``, not ``--req``)."""
    msg = f.message
    for long, own in sorted(spelled.items(), key=lambda kv: -len(kv[0])):
        msg = re.sub(rf"(?<![\w-]){re.escape(long)}(?![\w-])", own, msg)
    return replace(f, message=msg) if msg != f.message else f


CUSTOM = {"openssl": openssl}
