"""Survey: every score-level and curve-level metric of the catalog at N samples and C classes.

Not a test (no thresholds). Each metric is evaluated once on random probabilities (and a
multi-label indicator or relevance matrix where its truth is one), with its default
parameters; the table lists the seconds it took, or the refusal of the memory check
(``runtime/scores.py``), and marks the metrics slower than ``--slow`` seconds.

    python benchmarks/score_scale.py [--n 100000] [--classes 10] [--slow 2]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import metricc.api as mc
from metricc.core.errors import InputError


def _inputs(info, n: int, c: int, rng):
    proba = rng.dirichlet(np.full(c, 0.5), size=n)
    if info.indicator_truth:  # 0/1 indicators: also relevances (dcg, ndcg)
        truth = (rng.random((n, c)) < 0.3).astype(int)
        truth[np.arange(n), rng.integers(0, c, n)] = 1  # every sample has a relevant label
        return {"y_true": truth, "scores": proba, "multilabel": True}
    return {"y_true": rng.integers(0, c, n), "scores": proba}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10 ** 5)
    parser.add_argument("--classes", type=int, default=10)
    parser.add_argument("--slow", type=float, default=2.0, help="seconds above which a metric is marked slow")
    args = parser.parse_args()
    rng = np.random.default_rng(9)
    warnings.simplefilter("ignore")
    infos = [info for info in mc.catalog().values() if info.level in ("score", "curve")]
    print(f"| metric | level | N = {args.n:.0e}, C = {args.classes} |\n|---|---|---|")
    for info in sorted(infos, key=lambda i: (i.level, i.id)):
        inputs = _inputs(info, args.n, args.classes, rng)
        start = time.perf_counter()
        try:
            mc.evaluate(info.id, **inputs)
            seconds = time.perf_counter() - start
            outcome = f"{seconds:.2f} s" + (" **slow**" if seconds > args.slow else "")
        except InputError as error:
            outcome = f"refused: {error}"
        print(f"| {info.id} | {info.level} | {outcome} |", flush=True)


if __name__ == "__main__":
    main()
