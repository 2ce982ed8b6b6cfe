"""How a real program reads a separate option value that starts with ``-``: the probe behind
tests/test_option_values_oracle.py and its corpus (corpus/option_values_oracle.jsonl).

``PROG OPT WORD`` is run next to ``PROG WORD`` for a few probe words, in a scratch directory with
a scratch HOME, stdin from /dev/null, no network (a fresh network namespace when root) and a
timeout. The program read WORD as an *option* when it then complains of OPT missing its value
or of WORD as an unknown option exactly as it does alone (``-@``, a letter no table program
defines), or prints what it prints for ``-V``/``-h`` alone; as a *value* when the output differs
from that of ``PROG WORD``. Anything else is inconclusive (``?``) and the next probe is tried.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

PROBES = ("-@", "-V", "-h")
# extra words so that the program stops instead of waiting (tshark would capture)
SUFFIX = {"tshark": ["-r", "missing.pcap"]}
_MISSING = re.compile(r"requires an? (argument|value)|option requires|expected one argument|"
                      r"takes (a|an|one) (value|argument|parameter)|needs an argument|"
                      r"requires a value but none|missing (argument|value)", re.I)
_UNKNOWN_OPT = re.compile(r"unrecognized option|invalid option|unknown option|wasn't expected|"
                          r"unexpected argument|not an option", re.I)
_NET = ["unshare", "-n"] if os.geteuid() == 0 and shutil.which("unshare") else []

Run = tuple[int, bytes, bytes] | None


def _run(argv: list[str], ws: Path, home: Path) -> Run:
    try:
        p = subprocess.run([*_NET, *argv], cwd=ws, stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=10, env={"PATH": "/usr/bin:/bin:/usr/sbin:/sbin",
                                            "HOME": str(home), "LC_ALL": "C"})
    except subprocess.TimeoutExpired:
        return None
    return p.returncode, p.stdout, p.stderr


def _absent(option: str, err: str) -> bool:
    """Whether the program does not know OPT at all (an older version than the table's)."""
    shown = f"'{option}'" if option.startswith("--") else f"'{option[1]}'"
    return any(_UNKNOWN_OPT.search(ln) and (shown in ln or f"'{option}'" in ln
                                            or ln.rstrip().endswith(f" {option}"))
               for ln in err.splitlines())


def _judge(probe: str, option: str, alone: Run, got: Run) -> str:
    if alone is None or got is None:
        return "?"
    text = got[2].decode(errors="replace")
    if _absent(option, text):
        return "absent"
    if _MISSING.search(text):
        return "option"
    if probe == "-@":
        marks = [ln for ln in alone[2].decode(errors="replace").splitlines()
                 if "@" in ln and _UNKNOWN_OPT.search(ln)]
        if any(m in text.splitlines() for m in marks):
            return "option"
    elif got == alone and alone[0] == 0 and alone[1].strip():
        return "option"
    return "value" if got != alone else "?"


def reading(program: str, option: str) -> tuple[str, str]:
    """(``option`` | ``value`` | ``absent`` | ``?``, the probe word that told)."""
    with tempfile.TemporaryDirectory() as t:
        ws, home = Path(t, "ws"), Path(t, "home")
        ws.mkdir()
        home.mkdir()
        for probe in PROBES:
            tail = SUFFIX.get(program, [])
            verdict = _judge(probe, option, _run([program, probe, *tail], ws, home),
                             _run([program, option, probe, *tail], ws, home))
            if verdict != "?":
                return verdict, probe
    return "?", ""
