"""Sweep the catalog against exact arithmetic: the worst relative error per metric and mode.

The comparison of tests/generated/test_exactness.py (the reference evaluator is
tests/generated/exact_reference.py) over many more random and adversarial inputs: confusion
matrices of 1 to 5 classes with counts up to 1e15 (uniform, one huge cell, one dominating
class, a zero row or column, all zero, perfect, near independent and near uniform: values near
0; as int64 and as float64) and score matrices
with ties, zeros and extreme probabilities, or near the prior or near uniform (skill values near 0). Prints, for every metric and averaging mode, the
worst error (relative to the exact value, or to the documented conditioning scale), whether
it is within 1e-12, the input that produced it, and the problems seen (an undefined case
that disagrees, a numpy warning, -0.0, an unexpected error).

    python benchmarks/exactness.py                       # every metric, 2000 inputs each
    python benchmarks/exactness.py --metrics mcc rci --examples 500 --seed 3 --jobs 2

Exit status 1 when any metric or mode is outside the bound or has a problem.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import random
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def _load_reference():
    """tests/generated/exact_reference.py, imported by path (tests are not a package to install)."""
    spec = importlib.util.spec_from_file_location("exact_reference", ROOT / "tests" / "generated" / "exact_reference.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


ref = _load_reference()
_IR: dict = {}


def _compiled() -> dict:
    if not _IR:
        from metricc.compiler import build

        _IR.update(build.compile_metrics(ROOT / "specs"))
    return _IR


def sweep_metric(metric_id: str, examples: int, seed: int) -> tuple[str, dict, float]:
    """``(metric id, {mode: summary}, seconds)`` over ``examples`` inputs from ``seed``."""
    from metricc.generated import CATALOG

    ir = _compiled()
    metric, info = ir[metric_id], CATALOG[metric_id]
    rng = random.Random(f"{seed}:{metric_id}")
    settings = ref.parameter_settings(metric)
    summary: dict = {}
    start = time.perf_counter()
    for _ in range(examples):
        if metric.level in ("curve", "score"):
            n, c = rng.randint(2, 10), rng.randint(2, 4)
            kind = rng.choice(("random",) + ref.NEAR_ZERO_SCORE_KINDS)
            y, scores = ref.random_scores(rng, n, c) if kind == "random" else ref.near_zero_scores(rng, n, c, kind)
            if metric.truth == "indicator":
                y = ref.random_indicator(rng, len(scores), len(scores[0]))
            shown = f"y={y}, scores={scores}"
            check = lambda: ref.check_scores_input(metric, info, y, scores)  # noqa: E731
        else:
            c = rng.randint(1, 5)
            dtype = rng.choice((np.int64, np.float64))
            matrix = np.array(ref.random_matrix(rng, c, rng.choice(ref.MATRIX_KINDS + ref.NEAR_ZERO_KINDS)), dtype=dtype)
            kwargs = rng.choice(settings)
            shown = f"{matrix.tolist()} ({dtype.__name__})"
            check = lambda: ref.check_matrix_input(metric, info, matrix, kwargs, ir)  # noqa: E731
        try:
            outcomes = check()
        except Exception as error:  # the reference's own failure: reported with its input, the sweep goes on
            outcomes = [ref.Outcome("reference", float("nan"), {}, 0.0, "reference failure", f"{type(error).__name__}: {error}")]
        for o in outcomes:
            entry = summary.setdefault(o.mode, {"worst": -1.0, "input": "", "problems": Counter(), "first": {}})
            arguments = ", ".join(f"{k}={v}" for k, v in o.kwargs.items() if k not in ("average", "labels"))
            if o.error > entry["worst"]:
                entry.update(worst=o.error, input=f"{shown} {arguments}", detail=f"{o.problem}: {o.detail}" if o.problem else "")
            if o.problem:
                entry["problems"][o.problem] += 1
                entry["first"].setdefault(o.problem, f"{shown} {arguments}: {o.detail}")
    return metric_id, summary, time.perf_counter() - start


def report(metric_id: str, summary: dict, seconds: float) -> int:
    """Print one metric's rows; returns how many of its modes are outside 1e-12 or had problems."""
    bad = 0
    for mode, entry in summary.items():
        ok = entry["worst"] <= ref.RTOL and not entry["problems"]
        bad += not ok
        problems = ", ".join(f"{k} x{n}" for k, n in sorted(entry["problems"].items())) or "-"
        worst = "inf" if math.isinf(entry["worst"]) else f"{entry['worst']:.3g}"
        print(f"{metric_id:<26} {mode:<10} {worst:>12}  {'yes' if ok else 'NO ':<3} {problems}  [{seconds:.0f}s]")
        if not ok:
            print(f"    worst at {entry['input']}" + (f"\n      {entry['detail']}" if entry.get("detail") else ""))
            for problem, where in sorted(entry["first"].items()):
                print(f"    first {problem}: {where}")
    sys.stdout.flush()
    return bad


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--metrics", nargs="+", help="metric ids (default: the whole catalog)")
    parser.add_argument("--examples", type=int, default=2000, help="inputs per metric (default 2000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (each compiles the catalog once)")
    args = parser.parse_args(argv)

    from metricc.generated import CATALOG

    ids = sorted(CATALOG) if not args.metrics else [CATALOG[m].id for m in args.metrics]
    print(f"{'metric':<26} {'mode':<10} {'worst error':>12}  ok  problems  (seed {args.seed}, {args.examples} inputs per metric)",
          flush=True)
    with ProcessPoolExecutor(args.jobs) as pool:
        results = pool.map(sweep_metric, ids, [args.examples] * len(ids), [args.seed] * len(ids))
        bad = sum(report(*result) for result in results)  # printed as each metric finishes
    print(f"{bad} metric/mode pairs outside 1e-12 or with problems")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
