"""What msgspec would cost and save on the hook path (#18): its import in a fresh process, and
``msgspec.json`` against ``json.dumps`` on the verdict objects ``check --json`` and the hooks
print. Medians of interleaved runs.

    python bench/msgspec_cost.py [--runs 31]

Needs msgspec installed (it is not a dependency: the import costs more than it saves, see the
README's Performance section); skips with a message without it.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import timeit

COMMANDS = ("git status && ls -la src | head -20", "cat ~/.ssh/id_rsa", "rm -rf build",
            "grep -rn TODO src | head")


def startup(runs: int) -> None:
    hook = ("import shellgate.integrations.hookio, shellgate.integrations.claude_code, "
            "shellgate.check, shellgate.bash.analysis")
    progs = {"python -c pass": "pass", "import json": "import json",
             "import msgspec": "import msgspec", "hook modules": hook,
             "hook modules + msgspec": hook + ", msgspec"}
    times: dict[str, list[float]] = {k: [] for k in progs}
    tmp = tempfile.mkdtemp(prefix="shellgate-msgspec-")   # byte-code cached, as after pip install
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
    for i in range(runs + 1):                              # run 0 writes the byte-code
        for name, code in progs.items():
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True, env=env)
            if i:
                times[name].append((time.perf_counter() - t0) * 1e3)
    print(f"fresh process, {runs} interleaved runs (medians)")
    med = {k: statistics.median(v) for k, v in times.items()}
    for name, m in med.items():
        print(f"    {name:28} {m:7.1f} ms")
    print(f"    msgspec adds {med['hook modules + msgspec'] - med['hook modules']:+.1f} ms"
          f" to the hook's imports ({med['import msgspec'] - med['python -c pass']:+.1f} ms alone)")
    out = subprocess.run([sys.executable, "-c", "import sys, msgspec; print(sorted(m for m in "
                          "('inspect', 'typing_extensions', 'dataclasses') if m in sys.modules))"],
                         capture_output=True, text=True, check=True).stdout.strip()
    print(f"    modules msgspec imports that the hook path avoids: {out}")


def encode() -> None:
    import msgspec

    from shellgate.check import Gate

    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update(XDG_CONFIG_HOME=os.path.join(tmp, "c"), XDG_STATE_HOME=os.path.join(tmp, "s"))
        gate = Gate(tmp, "balanced", home=tmp)
        objs = [gate.check(c).to_json() for c in COMMANDS]
    enc = msgspec.json.Encoder()
    for o in objs:
        assert json.loads(enc.encode(o)) == json.loads(json.dumps(o, ensure_ascii=False))
    n = 2000

    def per(fn: object) -> float:
        return min(timeit.repeat(fn, number=n, repeat=7)) / n / len(objs) * 1e6  # type: ignore[arg-type]

    a = per(lambda: [json.dumps(o, ensure_ascii=False) for o in objs])
    b = per(lambda: [enc.encode(o).decode() for o in objs])
    print(f"one verdict to JSON text: json.dumps {a:.2f} us, msgspec {b:.2f} us ({a / b:.1f}x)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=31)
    args = ap.parse_args()
    try:
        import msgspec  # noqa: F401
    except ImportError:
        print("skipped: msgspec is not installed (pip install msgspec)")
        return 0
    startup(args.runs)
    encode()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
