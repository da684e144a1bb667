"""Benchmark: one vectorized ``sweep`` call against a Python loop of single evaluations, and
the matrix-product form against hand-written numpy.

Not a test. For the two grids of Kozak et al. 2022 (Section 5.1) it times
``metricc.api.sweep`` on five random confusion matrices (five classifiers, as in
Tables 6-9) and, in the same run, a loop calling the generated function once per matrix and
kappa vector on a random sample of the grid, extrapolated to the whole grid. Prints the ratio.

Then, for ``preference_driven`` over all 2**18 kappa vectors of {0, 1} (C = 18), it compares
the hand-written matrix-product form (per-class coefficients from the counts, one matrix
product with the stored grid) with ``sweep`` on the grid ``product_grid`` made (its domain
known), on a copy of it stored by the user (which sweep checks value by value), on a lazy ``product_grid(..., lazy=True)`` (never stored) and
with ``affine=False`` (the formula per vector); medians of ``--repeat`` runs, ratios to the
hand-written form.

    PYTHONPATH=... python benchmarks/sweep.py [--sample 400] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from metricc.generated import CATALOG
from metricc.api import counts_from_matrix, product_grid, sweep

CASES = (  # (name, classes, kappa values): Kozak et al. 2022, Section 5.1
    ("car", 4, np.linspace(0, 1, 11)),  # 11**4 = 14,641 vectors
    ("krkopt", 18, np.array([0.33, 0.66])),  # 2**18 = 262,144 vectors
)
CLASSIFIERS = 5


def _best(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def run(name: str, n_classes: int, values: np.ndarray, sample: int, repeat: int, rng) -> None:
    matrices = rng.integers(0, 200, size=(CLASSIFIERS, n_classes, n_classes)) + np.eye(n_classes, dtype=int) * 500
    grid = product_grid(values, n_classes, flat=True)
    vectorized = _best(lambda: sweep("preference_driven", matrix=matrices, grid=grid), repeat)

    function = CATALOG["preference_driven"].function
    counts = [counts_from_matrix(m) for m in matrices]
    picked = grid[rng.choice(len(grid), size=min(sample, len(grid)), replace=False)]

    def loop():
        return [[function(*c, kappa=v) for v in picked] for c in counts]

    per_call = _best(loop, repeat) / (len(picked) * CLASSIFIERS)
    reference = per_call * len(grid) * CLASSIFIERS
    check = sweep("preference_driven", matrix=matrices, grid=picked)
    assert np.allclose(check, np.array(loop()), rtol=1e-12), "sweep and loop disagree"
    print(f"{name}: C={n_classes}, {CLASSIFIERS} matrices x {len(grid):,} kappa vectors")
    print(f"  sweep (one call):      {vectorized:9.3f} s")
    print(f"  loop (extrapolated):   {reference:9.3f} s  ({per_call * 1e6:.1f} us per call, {len(picked)} vectors sampled)")
    print(f"  ratio loop / sweep:    {reference / vectorized:9.1f}x")


def _median(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2]


def affine_rows(repeat: int, rng, n_classes: int = 18) -> None:
    """The matrix-product form against hand-written numpy, for one matrix and for five."""
    grid = product_grid([0.0, 1.0], n_classes, flat=True)
    stored = np.array(grid)
    lazy = product_grid([0.0, 1.0], n_classes, lazy=True)
    print(f"preference_driven over all {len(grid):,} kappa vectors of {{0, 1}}, C = {n_classes} "
          f"(medians of {repeat}; ratio to the hand-written matrix product)")
    for batch in (1, CLASSIFIERS):
        matrices = rng.integers(0, 200, size=(batch, n_classes, n_classes)) + np.eye(n_classes, dtype=int) * 500
        tp, fp, fn, _ = (np.asarray(c, dtype=float) for c in counts_from_matrix(matrices))

        def by_hand():  # kappa*precision + (1 - kappa)*recall = a + b*kappa per class, macro average
            precision, recall = tp / (tp + fp), tp / (tp + fn)
            return recall.mean(axis=-1)[:, None] + ((precision - recall) / n_classes) @ grid.T

        expected = by_hand()
        cases = [("hand-written matrix product", by_hand),
                 ("sweep, grid made by product_grid", lambda: sweep("preference_driven", matrix=matrices, grid=grid)),
                 ("sweep, grid stored by the user", lambda: sweep("preference_driven", matrix=matrices, grid=stored)),
                 ("sweep, lazy product grid", lambda: sweep("preference_driven", matrix=matrices, grid=lazy)),
                 ("sweep, affine=False", lambda: sweep("preference_driven", matrix=matrices, grid=grid, affine=False))]
        assert np.allclose(cases[1][1](), expected, rtol=1e-12, atol=1e-15)
        assert np.allclose(cases[2][1](), expected, rtol=1e-12, atol=1e-15)
        assert np.allclose(cases[3][1]().reshape(batch, -1), expected, rtol=1e-12, atol=1e-15)
        reference = None
        for name, function in cases:
            seconds = _median(function, repeat)
            reference = reference or seconds
            print(f"  B = {batch}: {name:33} {seconds * 1e3:9.2f} ms  {seconds / reference:6.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=400, help="grid vectors timed in the loop (default 400)")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs (default 3)")
    args = parser.parse_args()
    rng = np.random.default_rng(2022)
    for name, n_classes, values in CASES:
        run(name, n_classes, values, args.sample, args.repeat, rng)
    affine_rows(max(args.repeat, 7), rng)


if __name__ == "__main__":
    main()
