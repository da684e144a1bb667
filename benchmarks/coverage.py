"""Coverage of the confidence intervals: how often they contain the true value.

For a binary and a 3-class population (cell probabilities ``P``), draw ``--matrices``
confusion matrices of ``--n`` instances each from the multinomial, compute each metric's
interval on every one (all at once: the matrices are one (B, C, C) batch) and count how often
it contains the metric's value at ``P``. A 95% interval should cover 95% of the time; the
check is ``--tolerance`` (2%) around the nominal level. Bootstrap methods resample every
matrix (``--resamples`` each) and are slower: ``--bootstrap`` adds them.

    python benchmarks/coverage.py                    # 2,000 matrices of 300, delta and proportions
    python benchmarks/coverage.py --bootstrap --matrices 500

Exit status 1 when a method misses its level by more than the tolerance.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import metricc.runtime as mc

POPULATIONS = {
    "binary": np.array([[0.40, 0.10], [0.12, 0.38]]),
    "3-class": np.array([[0.25, 0.04, 0.03], [0.05, 0.30, 0.05], [0.02, 0.04, 0.22]]),
}
# (request, methods): differentiable metrics of each level and averaging, and proportions
CHECKS = [
    ("accuracy", ("delta", "wilson", "agresti_coull", "clopper_pearson")),
    ("recall:none", ("delta", "wilson", "agresti_coull", "clopper_pearson")),
    ("precision:micro", ("wilson",)),
    ("f1:macro", ("delta",)),
    ("f1:weighted", ("delta",)),
    ("mcc", ("delta",)),
    ("cohen_kappa", ("delta",)),
    ("balanced_accuracy", ("delta",)),
    ("g_mean:macro", ("delta",)),
]
BOOTSTRAP = [("mcc", "bootstrap"), ("f1:macro", "bootstrap_bca"), ("accuracy", "bootstrap_bca")]


def coverage(request: str, method: str, population: np.ndarray, *, n: int, n_matrices: int, confidence: float,
             rng: np.random.Generator, n_resamples: int = 1000) -> np.ndarray:
    """Share of ``n_matrices`` drawn matrices whose interval contains the value at ``population``
    (per class for per-class requests)."""
    truth = np.asarray(mc.evaluate(request, matrix=population * n)[request], dtype=float)
    draws = rng.multinomial(n, population.ravel(), size=n_matrices).reshape(n_matrices, *population.shape)
    kwargs = {"interval": method, "confidence": confidence}
    if method.startswith("bootstrap"):
        found = [mc.evaluate(request, matrix=m, n_resamples=n_resamples, random_state=rng, **kwargs)[request] for m in draws]
        lower = np.array([np.asarray(f.lower, dtype=float) for f in found])
        upper = np.array([np.asarray(f.upper, dtype=float) for f in found])
    else:
        found = mc.evaluate(request, matrix=draws, **kwargs)[request]
        lower, upper = np.asarray(found.lower, dtype=float), np.asarray(found.upper, dtype=float)
    covered = (lower <= truth) & (truth <= upper)
    return np.mean(covered, axis=0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matrices", type=int, default=2000)
    parser.add_argument("--n", type=int, default=300, help="instances per matrix")
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--tolerance", type=float, default=0.02)
    parser.add_argument("--bootstrap", action="store_true", help="also the bootstrap methods (slow)")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    checks = [(r, m) for r, methods in CHECKS for m in methods] + (BOOTSTRAP if args.bootstrap else [])
    failed = 0
    print(f"{'population':10} {'metric':18} {'method':16} coverage (nominal {args.confidence:g}, {args.matrices} matrices of {args.n})")
    for name, population in POPULATIONS.items():
        for request, method in checks:
            start = time.perf_counter()
            shares = np.atleast_1d(coverage(request, method, population, n=args.n, n_matrices=args.matrices,
                                            confidence=args.confidence, rng=rng, n_resamples=args.resamples))
            bad = np.abs(shares - args.confidence) > args.tolerance
            failed += int(bad.any())
            shown = " ".join(f"{s:.3f}" for s in shares)
            print(f"{name:10} {request:18} {method:16} {shown}{'  OUTSIDE' if bad.any() else ''}"
                  f"  ({time.perf_counter() - start:.1f} s)")
    print(f"{failed} outside +-{args.tolerance:g}" if failed else f"all within +-{args.tolerance:g}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
