"""A hypothesis target over the same grammar: ``python fuzz/hypothesis_target.py [EXAMPLES]``.

Property: whatever the gate auto-allows shows no side effect in the oracle. Hypothesis shrinks
a counterexample through the grammar's choices (the campaign shrinks by tokens instead).
Uses the default policy, or the config named by ``SHELLGATE_FUZZ_CONFIG``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, given, settings  # noqa: E402

from shellgate.fuzz.campaign import build_material, default_gate  # noqa: E402
from shellgate.fuzz.generators import strategy  # noqa: E402
from shellgate.fuzz.oracle import Oracle  # noqa: E402


def main(examples: int) -> int:
    config = os.environ.get("SHELLGATE_FUZZ_CONFIG")
    material = build_material(config)
    with Oracle(timeout=3) as oracle:
        material.home, material.workspace = str(oracle.home), str(oracle.workspace)
        gate = default_gate(oracle, "balanced", config)

        @settings(max_examples=examples, deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(strategy(material))
        def allowed_means_no_effect(cmd: str) -> None:
            verdict = gate.check(cmd, cwd=oracle.workspace)
            if verdict.decision == "allow":
                obs = oracle.run(cmd)
                assert not obs.effects, (cmd, verdict.rule, [e.to_json() for e in obs.effects])

        try:
            allowed_means_no_effect()
        except AssertionError as exc:
            print(f"counterexample: {exc}")
            return 1
    print(f"{examples} examples: no allowed command had an effect")
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 500))
