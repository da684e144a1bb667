"""Benchmark and sweep for ``metricc consistent`` (compiler/audit/consistent.py).

Not a test. Five parts:

- ``grid``: the exhaustive two-class search over a 10^4 x 10^4 (TP, TN) grid, timed, for a
  consistent set (one pass, filtering) and an inconsistent one (a second pass for the conflicts);
- ``sweep``: random matrices (two classes, totals up to ``--max-total``), scores rounded to 2-4
  digits: counts false alarms (must be 0) and how often a score from another matrix is caught;
- ``intervals``: the same for 3-5 classes with the interval conditions (must be 0 false alarms);
- ``papers``: binary sets written as papers write them (unqualified ``precision=0.45``, and
  mlscorecheck's names): false "inconsistent" verdicts (must be 0);
- ``multiclass``: 3-5 classes, totals under 30 per class: clean sets (0 called inconsistent)
  and sets with one score from another matrix, found by method (``margins`` exact, or
  ``intervals`` past its bounds).

    python benchmarks/consistency.py [--cases 20000] [--max-total 200] [--part grid|sweep|intervals|papers|multiclass]
"""

from __future__ import annotations

import argparse
import importlib
import math
import time

import numpy as np

import metricc.api as mc

consistent_module = importlib.import_module("metricc.audit.consistent")
POOL = ["accuracy", "balanced_accuracy", "mcc", "cohen_kappa", "f1:binary", "precision:binary", "recall:binary",
        "specificity:binary", "npv:binary", "g_mean:binary", "f1:macro", "jaccard:binary", "youden_j:binary",
        "f1_of_macro_averages", "precision:weighted", "adjusted_g_mean:binary", "optimized_precision:binary"]
MULTI_POOL = ["accuracy", "balanced_accuracy", "f1:macro", "precision:weighted", "recall:micro", "f1:weighted",
              "precision:macro", "error_rate", "specificity:macro", "mcc"]


def printed(matrix, pool, rng, count) -> list[str]:
    return printed_names(matrix, rng.choice(pool, size=count, replace=False), rng)


def printed_names(matrix, names, rng) -> list[str]:
    scores = []
    for name in names:
        metric_id, _, average = str(name).partition(":")
        value = float(mc.evaluate(metric_id, matrix=matrix, **({"average": average} if average else {}))[metric_id])
        if not math.isnan(value):
            scores.append(f"{name}={value:.{int(rng.integers(2, 5))}f}")
    return scores


def grid() -> None:
    """With a score of the trace alone (accuracy) the search starts on a few diagonals; without
    one, or when inconsistent (the conflicts need every cell), it covers all 10^8 cells."""
    totals, matrix = [10_000, 10_000], [[7_000, 3_000], [2_376, 7_624]]
    accuracy, f1, mcc = (f"{name}={float(mc.evaluate(name.partition(':')[0], matrix=matrix, **kw)[name.partition(':')[0]]):.4f}"
                         for name, kw in (("accuracy", {}), ("f1:binary", {"average": "binary"}), ("mcc", {})))
    for scores in ([accuracy, f1, mcc], [f1, mcc], [accuracy, "f1:binary=0.2"]):
        start, cpu = time.perf_counter(), time.process_time()
        result = consistent_module.consistent(scores, class_totals=totals)
        print(f"grid 10^4 x 10^4 {scores}: consistent={result.consistent} feasible={result.feasible_count} "
              f"conflicts={result.conflicts} in {time.perf_counter() - start:.1f} s "
              f"({time.process_time() - cpu:.1f} s CPU)", flush=True)


def sweep(cases: int, max_total: int, rng) -> None:
    alarms = caught = perturbed = 0
    start = time.perf_counter()
    for _ in range(cases):
        totals = [int(rng.integers(1, max_total)), int(rng.integers(1, max_total))]
        tn, tp = (int(rng.integers(0, t + 1)) for t in totals)
        matrix = [[tn, totals[0] - tn], [totals[1] - tp, tp]]
        scores = printed(matrix, POOL, rng, int(rng.integers(2, 7)))
        if not scores:
            continue
        alarms += not consistent_module.consistent(scores, class_totals=totals).consistent
        tn2, tp2 = (int(rng.integers(0, t + 1)) for t in totals)
        other = printed([[tn2, totals[0] - tn2], [totals[1] - tp2, tp2]], [scores[0].partition("=")[0]], rng, 1)
        if len(scores) >= 3 and other and other[0] != scores[0]:
            perturbed += 1
            result = consistent_module.consistent(other + scores[1:], class_totals=totals)
            name = scores[0].partition("=")[0]
            if not result.consistent:
                caught += 1
                assert all(name in c for c in result.conflicts), (scores, other, result.conflicts)
    print(f"sweep: {cases} binary cases, {alarms} false alarms; {caught}/{perturbed} perturbed sets caught "
          f"({time.perf_counter() - start:.0f} s)")


def intervals(cases: int, rng) -> None:
    consistent_module.SEARCH_LIMIT = 0
    consistent_module.margins.MAX_SAMPLES = 0
    alarms = 0
    for _ in range(cases):
        classes = int(rng.integers(3, 6))
        totals = rng.integers(1, 300, size=classes)
        matrix = np.stack([rng.multinomial(t, rng.dirichlet(np.ones(classes))) for t in totals]).tolist()
        scores = printed(matrix, MULTI_POOL, rng, 4)
        alarms += consistent_module.consistent(scores, class_totals=[int(t) for t in totals]).status == "inconsistent"
    print(f"intervals: {cases} cases of 3-5 classes, {alarms} false alarms")


PAPER_NAMES = {"precision": ("precision", "binary"), "recall": ("recall", "binary"), "f1": ("f1", "binary"),
               "specificity": ("specificity", "binary"), "npv": ("npv", "binary"), "accuracy": ("accuracy", None),
               "mcc": ("mcc", None), "balanced_accuracy": ("balanced_accuracy", None), "sens": ("recall", "binary"),
               "spec": ("specificity", "binary"), "ppv": ("precision", "binary"), "fm": ("g_measure", "binary"),
               "bacc": ("balanced_accuracy", None), "acc": ("accuracy", None)}


def papers(cases: int, rng) -> None:
    alarms = total = 0
    start = time.perf_counter()
    for _ in range(cases):
        totals = [int(rng.integers(5, 500)), int(rng.integers(5, 500))]
        tn, tp = (int(rng.integers(0, t + 1)) for t in totals)
        matrix = [[tn, totals[0] - tn], [totals[1] - tp, tp]]
        scores = []
        for name in rng.choice(list(PAPER_NAMES), size=int(rng.integers(2, 5)), replace=False):
            metric_id, average = PAPER_NAMES[str(name)]
            value = float(mc.evaluate(metric_id, matrix=matrix, **({"average": average} if average else {}))[metric_id])
            if not math.isnan(value):
                scores.append(f"{name}={value:.{int(rng.integers(2, 5))}f}")
        if len(scores) < 2:
            continue
        total += 1
        result = consistent_module.consistent(scores, class_totals=totals, progress=False, readings=False)
        if result.status == "inconsistent":
            alarms += 1
            print("false alarm:", totals, scores, result.conflicts)
    print(f"papers: {total} binary sets written with unqualified and mlscorecheck names, {alarms} false "
          f"'inconsistent' ({time.perf_counter() - start:.0f} s)")


def multiclass(cases: int, rng) -> None:
    counts: dict = {}
    start = time.perf_counter()
    for _ in range(cases):
        classes = int(rng.integers(3, 6))
        totals = [int(t) for t in rng.integers(1, 30, size=classes)]
        matrix = np.stack([rng.multinomial(t, rng.dirichlet(np.ones(classes))) for t in totals]).tolist()
        other = np.stack([rng.multinomial(t, rng.dirichlet(np.ones(classes))) for t in totals]).tolist()
        names = [str(n) for n in rng.choice(MULTI_POOL, size=4, replace=False)]
        clean = printed_names(matrix, names, rng)
        planted = printed_names(other, names[:1], rng) + clean[1:]
        if len(clean) < 4 or len(planted) < 4 or planted[0] == clean[0]:
            continue
        for kind, scores in (("clean", clean), ("planted", planted)):
            result = consistent_module.consistent(scores, class_totals=totals, progress=False, readings=False)
            key = (kind, result.status, result.method)
            counts[key] = counts.get(key, 0) + 1
    for key in sorted(counts):
        print(f"multiclass {key[0]:8s} {key[1]:13s} by {key[2]:10s}: {counts[key]}")
    print(f"multiclass: {time.perf_counter() - start:.0f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20_000)
    parser.add_argument("--max-total", type=int, default=200)
    parser.add_argument("--part", choices=("grid", "sweep", "intervals", "papers", "multiclass"), action="append")
    args = parser.parse_args()
    rng = np.random.default_rng(2026)
    parts = args.part or ["grid", "sweep", "intervals", "papers", "multiclass"]
    if "grid" in parts:
        grid()
    if "sweep" in parts:
        sweep(args.cases, args.max_total, rng)
    if "papers" in parts:
        papers(max(1, args.cases // 20), rng)
    if "multiclass" in parts:
        multiclass(max(1, args.cases // 400), rng)
    if "intervals" in parts:
        intervals(max(1, args.cases // 100), rng)


if __name__ == "__main__":
    main()
