"""Benchmark: one vectorized ``sweep`` call against a Python loop of single evaluations.

Not a test. For the two grids of Kozak et al. 2022 (Section 5.1) it times
``metricc.runtime.sweep`` on five random confusion matrices (five classifiers, as in
Tables 6-9) and, in the same run, a loop calling the generated function once per matrix and
kappa vector on a random sample of the grid, extrapolated to the whole grid. Prints the ratio.

    PYTHONPATH=... python benchmarks/sweep.py [--sample 400] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from metricc.generated import CATALOG
from metricc.runtime import counts_from_matrix, product_grid, sweep

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=400, help="grid vectors timed in the loop (default 400)")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs (default 3)")
    args = parser.parse_args()
    rng = np.random.default_rng(2022)
    for name, n_classes, values in CASES:
        run(name, n_classes, values, args.sample, args.repeat, rng)


if __name__ == "__main__":
    main()
