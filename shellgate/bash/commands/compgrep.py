"""The other compressors' grep scripts: ``xzgrep`` (and ``lzgrep``, Debian's alternative for
it), ``bzgrep`` and ``zstdgrep``, with their ``*egrep``/``*fgrep`` names. Each is a shell script
that reads its own options, then pipes each file through a decompressor into grep. The tables
are xz-utils 5.4.1's, bzip2 1.0.8's and zstd 1.5.4's scripts (Debian 12), measured with
``strace -f``: they run their decompressor, grep, sed and expr by name and write nothing.

Read-only only where the script and grep read every word alike (the script decides which words
are files and hands them to the decompressor, whose output grep prints):

* ``xzgrep`` quotes every word it hands grep (``sed "$escape"``, then ``eval``) and splits
  bundles (``-iA 2``) as grep does, like gzip's zgrep: zgrep's table (``ZGREP_SAFE``) fits it
  word for word (it too takes a separate value only for ``-A -B -C -D -X -e -f -m`` and
  ``--binary-*``, ``--file``, ``--la*``/``--ma*``, ``--reg*``). It chooses the decompressor by
  the name's suffix (gzip for ``.gz``/``.z``… — which opens ``NAME.gz`` when NAME does not
  exist —, bzip2, lzop, zstd, else ``xz``); ``GREP`` is ``eval``'d as the grep program, ``xz``
  reads options (``--files=F`` reads a list of names) from ``XZ_OPT``/``XZ_DEFAULTS``, and
  ``POSIXLY_CORRECT`` ends options at the first operand, so each voids the reading above.
* ``bzgrep`` and ``zstdgrep`` collect options in one string expanded unquoted (``$grep $opt``,
  ``${grep_args}``), so a blank in an option word splits it into more grep arguments:
  ``bzgrep -A '1 ~/.ssh/id_rsa' x f`` hands grep the key as a file (shown printing the canary),
  and bzgrep (no ``set -f``) expands globs in them too. Every option word must be plain
  (``_PLAIN``). Both take a separate value only for exactly ``-A``, ``-B``, ``-C``, ``-m`` and
  ``-e`` (``-iA 2`` makes ``2`` the pattern to them, a context to grep), no long option takes
  a separate value (``--max-count 1``: ``1`` is the pattern, grep takes the next word as the
  count), so long options with values are attached (``=``) only. ``-e`` puts ``-e`` in the
  option string and the pattern after all options (bzgrep: ``-e a -i`` runs ``grep -e -i a``,
  a read of the file ``a``) and zstdgrep stops reading options after it: a single ``-e`` with
  a separate value, last before the files. Options end at the first operand for both (bzgrep
  at the first file: ``bzgrep x f -n`` reads ``-n`` as a file), and a bare ``-`` is an option
  word to bzgrep (``bzgrep x -`` runs ``grep - x``: reads the file ``x``): no operand may
  start with ``-``. An empty pattern makes bzgrep take the next word as the pattern.
  bzgrep runs ``$GREP``/``$EGREP``/``$FGREP`` split and bzip2 reads more arguments, file names
  included, from ``BZIP2``/``BZIP``; zstdgrep runs ``$GREP`` and ``$ZCAT``: set in the gate's
  environment (which the command inherits), they void it. bzgrep opens ``NAME.bz2`` when NAME
  is not a regular file.
* Each program a script runs by name goes through the PATH check (``pathsearch.cwd_first``);
  bzgrep puts ``/usr/bin`` first, so only a program missing there is looked up further.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .grep import GREP_SAFE
from .spec import Call, Command, Finding, Flag, Parsed, Takes, sensitive_read
from .zgrep import _PATTERN_FROM, _SWITCHES, ZGREP_SAFE, env_findings, path_findings, quoting_check

V = Takes.VALUE

# -- xzgrep / lzgrep ----------------------------------------------------------------------

_XZ_RUNS = ("grep", "expr", "sed", "xz", "gzip", "bzip2", "lzop", "zstd")
_XZ_ENV = ("GREP", "XZ_OPT", "XZ_DEFAULTS", "POSIXLY_CORRECT")


XZGREPS = tuple(Command(n, safe=ZGREP_SAFE, numeric=True, abbrev=False, pattern_from=_PATTERN_FROM,
                        check=quoting_check("xzgrep", _XZ_ENV, _XZ_RUNS))  # type: ignore[arg-type]
                for n in ("xzgrep", "xzegrep", "xzfgrep", "lzgrep", "lzegrep", "lzfgrep"))

# -- bzgrep / zstdgrep --------------------------------------------------------------------

# a word the unquoted expansion leaves as it is: no blank (IFS), glob or quote character
_PLAIN = re.compile(r"[-A-Za-z0-9_=,.:+/@%^]*")
_SEPARATE = frozenset({"-A", "-B", "-C", "-m", "-e"})   # the scripts take the next word only here
# long options with a value, attached only (the scripts never take a separate one)
_ATTACHED = ("--after-context", "--before-context", "--context", "--max-count", "--group-separator",
             "--color", "--colour", "--binary-files", "--label")
UNQUOTED_SAFE = [
    *(f for f in GREP_SAFE if f.takes is Takes.NONE and set(f.names) & _SWITCHES),
    Flag("-e", takes=V), Flag("-m", takes=V), Flag("-A", takes=V), Flag("-B", takes=V),
    Flag("-C", takes=V),
    *(Flag(n, takes=V, optional=True) for n in _ATTACHED),
]
_UNQUOTED_ENV = {"bz": ("GREP", "EGREP", "FGREP", "BZIP2", "BZIP", "IFS"),
                 "zstd": ("GREP", "ZCAT", "IFS")}
_UNQUOTED_RUNS = {"bz": ("sed", "bzip2", "grep", "egrep", "fgrep"), "zstd": ("zstdcat", "grep")}


def _separate(o) -> bool:
    return bool(o.values) and o.values[0].span[0] >= o.word.span[1]


def _unquoted_check(kind: str) -> object:
    def check(p: Parsed, call: Call) -> Iterable[Finding]:
        name = call.command.name or kind
        yield from env_findings(name, _UNQUOTED_ENV[kind], call)
        yield from path_findings(name, _UNQUOTED_RUNS[kind], call, usr_first=kind == "bz")
        for o in p.opts:
            for w in (o.word, *(() if "-e" in o.flag.names else o.values)):  # -e's: "$pat"
                if not (w.static and not w.glob and _PLAIN.fullmatch(w.text)):
                    yield Finding(f"{name} passes {w.text!r} to grep unquoted (split at blanks"
                                  f"{'' if kind == 'zstd' else ', globs expanded'}): it could become "
                                  "other grep arguments, files among them", w.span, "readonly.flag")
            if not o.values and set(o.flag.names) & set(_ATTACHED):
                yield Finding(f"{name} reads {o.word.text} as a switch and the next word as the pattern, "
                              "where grep takes the next word as its value", o.word.span, "readonly.flag")
            if _separate(o) and o.word.text not in _SEPARATE:
                yield Finding(f"{name} does not take the next word as the value of {o.word.text}: it "
                              f"reads {o.values[0].text!r} as the pattern or a file where grep reads "
                              "a value", o.word.span, "readonly.flag")
        pats = [o for o in p.opts if "-e" in o.flag.names]
        last_opt = max((w.span[1] for o in p.opts for w in (o.word, *o.values)), default=-1)
        words = call.command.words[1:]
        for o in pats:
            if len(pats) > 1 or not _separate(o) or o.values[0].span[1] != last_opt or any(
                    w.text == "--" and w.span[0] > last_opt for w in words):
                yield Finding(f"{name} reads -e only once, as a separate word and after every other "
                              "option (it hands grep '-e' and the pattern apart, after the options)",
                              o.word.span, "readonly.flag")
        for w in p.operands:
            if w.text.startswith("-") or not w.static:
                yield Finding(f"{name} reads {w.text!r} as an option or a file where grep's table "
                              "reads an operand", w.span, "readonly.flag")
        files = p.operands if pats else p.operands[1:]
        pattern = pats[0].values[0] if pats and pats[0].values else p.operands[0] if p.operands else None
        if kind == "bz" and pattern is not None and pattern.static and pattern.text == "":
            yield Finding(f"{name} takes the word after an empty pattern as the pattern", pattern.span,
                          "readonly.flag")
        for w in files:
            names = [w.text, w.text + ".bz2"] if kind == "bz" else [w.text]
            if w.static and (hit := sensitive_read(names, call, w.span)) is not None:
                yield Finding(f"{name} opens {hit.path}: {hit.cls.value}", w.span, "readonly.sensitive")
    return check


BZGREPS = tuple(Command(n, safe=UNQUOTED_SAFE, permute=False, abbrev=False, pattern_from=("-e",),
                        check=_unquoted_check("bz"))  # type: ignore[arg-type]
                for n in ("bzgrep", "bzegrep", "bzfgrep"))
ZSTDGREP = Command("zstdgrep", safe=UNQUOTED_SAFE, permute=False, abbrev=False, pattern_from=("-e",),
                   check=_unquoted_check("zstd"))  # type: ignore[arg-type]
COMMANDS = (*XZGREPS, *BZGREPS, ZSTDGREP)
