"""Fuzz the runtime: N hostile calls of ``evaluate``, the generated functions, ``metricc eval``
and the audit commands (``consistent``, ``audit``, ``identify``, ``review``) with hostile sizes.

Not a test: the generators and the rule are those of ``tests/api/test_fuzz.py``
(``tests/api/fuzz_inputs.py``, ``tests/api/fuzz_audit.py``), drawn from a seeded random source
for many more calls than a test run can afford. Every call must return a value or raise
``InputError`` (exit 0 or 2 on the command line; 1 and 4 are answers of the audit commands); the
report counts each outcome, the calls slower than ``--slow`` seconds, and prints the first
reproducer of each kind of failure. Exit status 1 if any call failed. The generators take
their share of the calls in a fixed cycle, so that ``--calls 10000`` makes exactly 1,000
``metricc eval`` and 500 audit command lines.

    python benchmarks/fuzz_runtime.py [--calls 10000] [--seed 0] [--minutes 20] [--slow 60]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "api"))

from fuzz_audit import audit_case  # noqa: E402
from fuzz_inputs import GENERATORS, RandomSource, outcome  # noqa: E402 - found through the path above

SHARE = {"evaluate": 11, "function": 6, "cli": 2, "audit": 1}  # calls of each generator per 20, in this cycle
DRAW = {**GENERATORS, "audit": audit_case}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--minutes", type=float, default=None,
                        help="stop drawing calls after this long and report the calls made (a shared machine's share)")
    parser.add_argument("--slow", type=float, default=60.0, help="report the calls that take longer (seconds)")
    args = parser.parse_args(argv)
    source = RandomSource(args.seed)
    kinds = [name for name, share in SHARE.items() for _ in range(share)]
    counts: Counter = Counter()
    by_generator: Counter = Counter()
    first: dict[tuple[str, str], str] = {}
    slow: list[str] = []
    start = time.perf_counter()
    made = 0
    for made in range(1, args.calls + 1):
        generator = kinds[(made - 1) % len(kinds)]
        case = DRAW[generator](source)
        began = time.perf_counter()
        result = outcome(case)
        took = time.perf_counter() - began
        if took > args.slow:
            slow.append(f"{took:.0f} s: {case.description[:300]}")
        counts[result.kind] += 1
        by_generator[generator] += 1
        if result.failed:
            key = (result.kind, result.detail.split(":")[0] + result.detail.split(" at ")[-1].split(":")[0])
            first.setdefault(key, f"{result.kind}: {result.detail}\n    {case.description[:600]}")
        if args.minutes is not None and time.perf_counter() - start > 60 * args.minutes:
            break
    elapsed = time.perf_counter() - start
    print(f"{made} calls of {args.calls} (seed {args.seed}) in {elapsed:.1f} s")
    print("  by generator: " + ", ".join(f"{name} {by_generator[name]}" for name in SHARE))
    for kind in ("value", "input error", "exception", "warning", "wrong value"):
        print(f"  {kind:12} {counts[kind]}")
    print(f"  slower than {args.slow:g} s: {len(slow)}")
    for line in slow[:10]:
        print("    " + line)
    for reproducer in first.values():
        print(reproducer)
    return 1 if any(counts[k] for k in ("exception", "warning", "wrong value")) else 0


if __name__ == "__main__":
    sys.exit(main())
