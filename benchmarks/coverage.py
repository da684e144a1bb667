"""Coverage of the confidence intervals: how often each method contains the true value.

For populations of known cell probabilities ``P`` (a binary one whose sensitivity and
specificity are both ``q``, and a 3-class one whose rows keep share ``q`` on the diagonal),
draw ``--matrices`` confusion matrices of ``n`` instances each from the multinomial, compute
each metric's interval with every method that applies (all matrices at once: one (B, C, C)
batch; the bootstrap resamples each matrix) and count how often it contains the metric's
value at ``P``. The grid runs over metrics, methods, sizes ``n`` and true values ``q``; a
95% interval should cover about 95% of the time. The table prints one row per population,
metric and method (with the scale the method formed its bounds on) and one column per
(n, q); ``*`` marks a coverage more than ``--tolerance`` below the nominal level.

    python benchmarks/coverage.py                      # default grid, a few minutes on 2 shared cores
    python benchmarks/coverage.py --sizes 30 100 300 1000 --truths 0.6 0.8 0.9 0.95 0.99 0.999 \\
        --matrices 5000 --bootstrap-matrices 500 --bootstrap-sizes 100 1000   # a bigger grid (hours)
    python benchmarks/coverage.py --no-bootstrap       # closed-form methods only

Exit status 0: the table is the result (coverage below the nominal level is a property of a
method, reported, not a failure of the benchmark).
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import metricc.api as mc

CLOSED_FORM = ("delta", "wald", "wilson", "agresti_coull", "clopper_pearson")
BOOTSTRAP = ("bootstrap", "bootstrap_bca")
METRICS = ("accuracy", "recall:binary", "f1:macro", "balanced_accuracy", "mcc", "cohen_kappa")


def binary(q: float) -> np.ndarray:
    """Prevalence 1/2, sensitivity = specificity = q: accuracy and recall q, MCC and kappa 2q - 1."""
    return np.array([[q, 1 - q], [1 - q, q]]) / 2


def three_class(q: float) -> np.ndarray:
    """Class shares 0.5, 0.3, 0.2; each row keeps share q on the diagonal, the rest split evenly."""
    shares = np.array([0.5, 0.3, 0.2])
    rows = np.full((3, 3), (1 - q) / 2)
    np.fill_diagonal(rows, q)
    return shares[:, None] * rows


POPULATIONS = {"binary": binary, "3-class": three_class}


def truth(request: str, population: np.ndarray) -> np.ndarray:
    """The metric at the population: every catalog metric of counts is a function of the cell
    shares, so the matrix of probabilities (times any total) gives it."""
    return np.asarray(mc.evaluate(request, matrix=population * 1e6, pos_label=1)[request], dtype=float)


def coverage(request: str, method: str, population: np.ndarray, *, n: int, n_matrices: int, confidence: float,
             rng: np.random.Generator, n_resamples: int = 1000) -> np.ndarray:
    """Share of ``n_matrices`` drawn matrices whose interval contains the value at ``population``
    (per class for per-class requests)."""
    expected = truth(request, population)
    draws = rng.multinomial(n, population.ravel(), size=n_matrices).reshape(n_matrices, *population.shape)
    kwargs = {"interval": method, "confidence": confidence, "pos_label": 1}
    if method in BOOTSTRAP:
        found = [mc.evaluate(request, matrix=m, n_resamples=n_resamples, random_state=rng, **kwargs)[request] for m in draws]
        lower = np.array([np.asarray(f.lower, dtype=float) for f in found])
        upper = np.array([np.asarray(f.upper, dtype=float) for f in found])
    else:
        found = mc.evaluate(request, matrix=draws, **kwargs)[request]
        lower, upper = np.asarray(found.lower, dtype=float), np.asarray(found.upper, dtype=float)
    # an undefined value (no positives drawn) has no interval: it counts as a miss
    covered = (lower <= expected) & (expected <= upper)
    return np.mean(covered, axis=0)


def scale_of(request: str, method: str, population: np.ndarray) -> str:
    """The scale ``method`` forms its bounds on for ``request`` (from one evaluation)."""
    return mc.evaluate(request, matrix=np.round(population * 1000), interval=method, pos_label=1, n_resamples=100,
                       random_state=0)[request].scale


def for_classes(request: str, n_classes: int) -> str:
    """``recall:binary`` is per class (``recall:none``) beyond two classes."""
    return request.replace(":binary", ":none") if n_classes > 2 else request


def methods(request: str) -> tuple[str, ...]:
    """The methods that apply to ``request``."""
    from metricc.api.uncertainty import methods_for

    info = mc.catalog()[request.split(":")[0]]
    return methods_for(info, request.split(":")[1] if ":" in request else info.default_average)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 500], help="instances per matrix")
    parser.add_argument("--truths", type=float, nargs="+", default=[0.8, 0.95, 0.999],
                        help="q: sensitivity = specificity (binary), diagonal share (3-class)")
    parser.add_argument("--metrics", nargs="+", default=list(METRICS))
    parser.add_argument("--populations", nargs="+", default=list(POPULATIONS), choices=list(POPULATIONS))
    parser.add_argument("--matrices", type=int, default=1000, help="matrices per cell (closed-form methods)")
    parser.add_argument("--bootstrap-matrices", type=int, default=40, help="matrices per cell (bootstrap)")
    parser.add_argument("--resamples", type=int, default=200, help="bootstrap resamples per matrix")
    parser.add_argument("--bootstrap-sizes", type=int, nargs="+", default=[500],
                        help="sizes the bootstrap runs at (it is the slow one)")
    parser.add_argument("--no-bootstrap", action="store_true")
    parser.add_argument("--confidence", type=float, default=0.95)
    parser.add_argument("--tolerance", type=float, default=0.02)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    columns = [(n, q) for n in args.sizes for q in args.truths]
    header = " ".join(f"{f'n={n} q={q:g}':>15}" for n, q in columns)
    print(f"coverage of nominal {args.confidence:g} intervals; closed-form methods over {args.matrices} matrices, "
          f"bootstrap over {args.bootstrap_matrices} ({args.resamples} resamples each, at n in {args.bootstrap_sizes}); "
          f"* = more than {args.tolerance:g} below nominal")
    print(f"{'population':10} {'metric':18} {'method':16} {'scale':10} {header}")
    for name in args.populations:
        for request in dict.fromkeys(for_classes(r, len(POPULATIONS[name](0.9))) for r in args.metrics):
            for method in methods(request):
                if method in BOOTSTRAP and args.no_bootstrap:
                    continue
                cells = []
                for n, q in columns:
                    population = POPULATIONS[name](q)
                    if method in BOOTSTRAP and n not in args.bootstrap_sizes:
                        cells.append(f"{'-':>15}")
                        continue
                    count = args.bootstrap_matrices if method in BOOTSTRAP else args.matrices
                    share = float(np.min(coverage(request, method, population, n=n, n_matrices=count,
                                                  confidence=args.confidence, rng=rng, n_resamples=args.resamples)))
                    low = share < args.confidence - args.tolerance
                    cells.append(f"{share:>14.3f}{'*' if low else ' '}")
                scale = scale_of(request, method, POPULATIONS[name](0.9))
                print(f"{name:10} {request:18} {method:16} {scale:10} {' '.join(cells)}", flush=True)
    print(f"({time.perf_counter() - start:.0f} s; per-class requests show their worst class)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
