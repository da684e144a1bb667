"""Benchmark: metricc against hand-written numpy and its peers, every row of issue 8 in one process.

Not a test (no thresholds: machines are noisy). Each row times metricc, the hand-written
numpy target defined here, and scikit-learn and PyCM where installed, as the median of
``--repeat`` runs, target and metricc timed alternately; ratios are to the target. Peers that would take minutes run on a subset
and are extrapolated linearly (marked ``~``). Peak memory is the largest traced allocation
of one run (``tracemalloc``, which numpy reports to). ``--quick`` (N = 1e6 only, fewer
repeats) finishes in under two minutes; the full run adds N = 1e7.

    python benchmarks/speed.py [--quick] [--repeat 7] [--cpu]

``--cpu`` times each call by the CPU time of this process and keeps the least of the repeats:
on a machine that other jobs load, wall-clock medians of both sides stretch unevenly with the
waiting, and the CPU-time minimum is what the ratio of two computations still shows.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import time
import tracemalloc
import warnings

import numpy as np

import metricc.api as mc
import speed_guard  # the regression guard and the results file, beside this script
import speed_curves  # the row of curve metrics sharing a call, beside this script
import speed_dask  # the Dask row, beside this script
import speed_intervals  # the interval rows, beside this script
import speed_scores  # the score-level rows, beside this script

LABEL_SET = ["accuracy", "precision:micro", "precision:macro", "precision:weighted", "recall:micro", "recall:macro",
             "recall:weighted", "f1:micro", "f1:macro", "f1:weighted", "mcc", "cohen_kappa", "balanced_accuracy"]
BATCH_SET = ["accuracy", "precision:macro", "recall:macro", "f1:macro", "mcc"]
PEER_BUDGET = 1e5  # samples a slow peer is timed on before extrapolating


# ---------------------------------------------------------------- hand-written numpy targets

def hand_matrix(t, p, c):
    return np.bincount(t * c + p, minlength=c * c).reshape(c, c)


def hand_label_set(t, p, c):
    return hand_matrix_set(hand_matrix(t, p, c))


def hand_matrix_set(counts):
    m = counts.astype(float)
    tp, rows, cols = np.diagonal(m), m.sum(axis=1), m.sum(axis=0)
    n, hits = rows.sum(), np.trace(m)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = [hits / n]
        for v in (tp / cols, tp / rows, 2 * tp / (rows + cols)):
            out += [hits / n, v.mean(), v @ rows / n]
        chance = rows @ cols
        out += [(n * hits - chance) / np.sqrt((n * n - cols @ cols) * (n * n - rows @ rows)),
                (n * hits - chance) / (n * n - chance), (tp / rows).mean()]
    return out


def hand_batch_set(m):
    tp = np.diagonal(m, axis1=-2, axis2=-1).astype(float)
    rows, cols = m.sum(axis=-1).astype(float), m.sum(axis=-2).astype(float)
    n, hits = rows.sum(axis=-1), tp.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        chance = np.einsum("bk,bk->b", rows, cols)
        mcc = (n * hits - chance) / np.sqrt((n * n - np.einsum("bk,bk->b", cols, cols))
                                            * (n * n - np.einsum("bk,bk->b", rows, rows)))
        return [hits / n, (tp / cols).mean(-1), (tp / rows).mean(-1), (2 * tp / (rows + cols)).mean(-1), mcc]


def hand_mcc(m):
    return hand_batch_set(m)[-1]


def hand_preference_sweep(m, grid):
    """Macro preference-driven measure for every kappa vector: one matrix product."""
    tp, rows, cols = np.diagonal(m).astype(float), m.sum(axis=1), m.sum(axis=0)
    precision, recall = tp / cols, tp / rows
    return (grid @ (precision - recall) + recall.sum()) / len(tp)


# ---------------------------------------------------------------- peers

def sklearn_label_set(t, p):
    from sklearn import metrics as skm

    out = [skm.accuracy_score(t, p)]
    for average in ("micro", "macro", "weighted"):
        out += list(skm.precision_recall_fscore_support(t, p, average=average, zero_division=np.nan)[:3])
    return out + [skm.matthews_corrcoef(t, p), skm.cohen_kappa_score(t, p), skm.balanced_accuracy_score(t, p)]


def pycm_label_set(t, p):
    from pycm import ConfusionMatrix

    cm = ConfusionMatrix(actual_vector=t.tolist(), predict_vector=p.tolist())
    return [cm.Overall_ACC, cm.PPV_Macro, cm.TPR_Macro, cm.F1_Macro, cm.Overall_MCC, cm.Kappa]


def pycm_matrix(t, p):
    from pycm import ConfusionMatrix

    return ConfusionMatrix(actual_vector=t.tolist(), predict_vector=p.tolist()).to_array()


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


# ---------------------------------------------------------------- measuring
# How a run is timed: wall clock and the median (default), or CPU time and the minimum (--cpu).
CLOCK = {"clock": time.perf_counter, "summary": statistics.median}


def median_time(function, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = CLOCK["clock"]()
        function()
        times.append(CLOCK["clock"]() - start)
    return CLOCK["summary"](times)


def paired_times(target, ours, repeat: int, summary=None) -> tuple[float, float]:
    """Medians (or ``summary``) of the target and of metricc, timed alternately so that load on
    the machine falls on both alike (the ratio is what a noisy machine can still measure)."""
    times = ([], [])
    for _ in range(repeat):
        for k, function in enumerate((target, ours)):
            start = CLOCK["clock"]()
            function()
            times[k].append(CLOCK["clock"]() - start)
    summary = summary or CLOCK["summary"]
    return summary(times[0]), summary(times[1])


def peak_mib(function) -> float:
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1] / 2 ** 20
    finally:
        tracemalloc.stop()


def on_subset(make_call, size: int, repeat: int) -> tuple[float, bool]:
    """(seconds, extrapolated): the call on at most PEER_BUDGET samples, scaled linearly to ``size``."""
    if size <= PEER_BUDGET:
        return median_time(make_call(size), repeat), False
    part = int(PEER_BUDGET)
    return median_time(make_call(part), max(1, repeat // 2)) * size / part, True


class Table:
    def __init__(self, repeat: int):
        self.rows, self.repeat = [], repeat

    def add(self, work, target, ours, sklearn=None, pycm=None, memory=None, calls=1):
        """A row; ``target`` and ``ours`` as seconds, or as functions timed alternately. ``calls``:
        the functions make that many calls each, timed together and by the least of at least
        7 runs (a reference of a few ms is too short to time alone on a loaded machine); the
        row shows the time of one call."""
        if callable(ours) and calls > 1:
            target, ours = (seconds / calls for seconds in paired_times(target, ours, max(self.repeat, 7), min))
        elif callable(ours):  # (target, ours) functions: time them alternately
            target, ours = paired_times(target, ours, self.repeat)
        self.rows.append((work, target, ours, sklearn, pycm, memory))
        print(f"  {work}: metricc {_ms(ours)}, target {_ms(target)}", file=sys.stderr, flush=True)

    def markdown(self) -> str:
        lines = ["| work | hand-written numpy | metricc | ratio | scikit-learn | PyCM | peak MiB metricc / numpy |",
                 "|---|---|---|---|---|---|---|"]
        for work, target, ours, sklearn, pycm, memory in self.rows:
            ratio = f"{ours / target:.2f}x" if target else ""
            peers = [_peer(v, target) for v in (sklearn, pycm)]
            mem = f"{memory[0]:.0f} / {memory[1]:.0f}" if memory else ""
            lines.append(f"| {work} | {_ms(target)} | {_ms(ours)} | {ratio} | {peers[0]} | {peers[1]} | {mem} |")
        return "\n".join(lines)


def _ms(seconds) -> str:
    if seconds is None:
        return ""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} us"
    return f"{seconds * 1e3:.1f} ms" if seconds < 10 else f"{seconds:.1f} s"


def _peer(value, target) -> str:
    if value is None or isinstance(value, str):  # not compared in this row, or "not installed"
        return value or ""
    seconds, extrapolated = value
    ratio = f" ({seconds / target:.0f}x)" if target else ""
    return ("~" if extrapolated else "") + _ms(seconds) + ratio


# ---------------------------------------------------------------- the rows

def labels_rows(table, sizes, repeat, rng, peers):
    for n in sizes:
        for c in (3, 20):
            t, p = rng.integers(0, c, n), rng.integers(0, c, n)
            assert np.array_equal(mc.confusion_matrix(t, p), hand_matrix(t, p, c))
            sk, pc = ("" if peers[name] else "not installed" for name in ("sklearn", "pycm"))
            if peers["sklearn"]:
                from sklearn.metrics import confusion_matrix as sk_matrix
                sk = on_subset(lambda k: (lambda: sk_matrix(t[:k], p[:k])), n, repeat)
            if peers["pycm"]:
                pc = on_subset(lambda k: (lambda: pycm_matrix(t[:k], p[:k])), n, 1)
            table.add(f"`confusion_matrix`, N = {n:.0e}, C = {c}", lambda: hand_matrix(t, p, c),
                      lambda: mc.confusion_matrix(t, p), sk, pc,
                      (peak_mib(lambda: mc.confusion_matrix(t, p)), peak_mib(lambda: hand_matrix(t, p, c))))
            ours = mc.evaluate(LABEL_SET, y_true=t, y_pred=p)
            assert np.allclose(list(ours.values()), hand_label_set(t, p, c), rtol=1e-12, equal_nan=True)
            if peers["sklearn"]:
                sk = on_subset(lambda k: (lambda: sklearn_label_set(t[:k], p[:k])), n, repeat)
            if peers["pycm"]:
                pc = on_subset(lambda k: (lambda: pycm_label_set(t[:k], p[:k])), n, 1)
            table.add(f"13 values (accuracy, P/R/F1 x micro/macro/weighted, MCC, kappa, balanced accuracy) "
                      f"in one `evaluate`, N = {n:.0e}, C = {c}", lambda: hand_label_set(t, p, c),
                      lambda: mc.evaluate(LABEL_SET, y_true=t, y_pred=p), sk, pc,
                      (peak_mib(lambda: mc.evaluate(LABEL_SET, y_true=t, y_pred=p)),
                       peak_mib(lambda: hand_label_set(t, p, c))))
            m = hand_matrix(t, p, c)
            table.add(f"the same from the matrix, C = {c}", lambda: hand_matrix_set(m),
                      lambda: mc.evaluate(LABEL_SET, matrix=m))


def hand_chunks(t, p, c, size):
    return sum(hand_matrix(t[start:start + size], p[start:start + size], c) for start in range(0, t.size, size))


def accumulate(t, p, size, labels=None):
    acc = mc.ConfusionAccumulator(labels=labels)
    for start in range(0, t.size, size):
        acc.update(t[start:start + size], p[start:start + size])
    return acc.matrix


def known_rows(table, sizes, rng):
    """Issue 31: counting with ``labels=`` and accumulating, against the same counting without them."""
    c = 20
    for n in sizes:
        t, p, shuffled = rng.integers(0, c, n), rng.integers(0, c, n), rng.permutation(c)
        for labels, how in ((np.arange(c), "0..C-1"), (shuffled, "shuffled")):
            assert np.array_equal(mc.confusion_matrix(t, p, labels=labels), mc.confusion_matrix(t, p)[np.ix_(labels, labels)])
            table.add(f"`confusion_matrix(labels=)` ({how}), N = {n:.0e}, C = {c}; target: without `labels=`",
                      lambda: mc.confusion_matrix(t, p), lambda: mc.confusion_matrix(t, p, labels=labels),
                      memory=(peak_mib(lambda: mc.confusion_matrix(t, p, labels=labels)),
                              peak_mib(lambda: mc.confusion_matrix(t, p))))
        evaluate = [lambda labels=labels: mc.evaluate(LABEL_SET, y_true=t, y_pred=p, labels=labels) for labels in (None, shuffled)]
        table.add(f"13 values in one `evaluate(labels=)` (shuffled), N = {n:.0e}, C = {c}; target: without `labels=`",
                  *evaluate, memory=(peak_mib(evaluate[1]), peak_mib(evaluate[0])))
    t, p = rng.integers(0, c, sizes[0]), rng.integers(0, c, sizes[0])
    for size in (10 ** 3, 10 ** 4, 10 ** 5, 10 ** 6):
        for labels, how in ((None, "classes found"), (np.arange(c), "labels fixed")):
            assert np.array_equal(accumulate(t, p, size, labels), hand_matrix(t, p, c))
            table.add(f"`ConfusionAccumulator.update` ({how}), chunks of {size:.0e}, N = {sizes[0]:.0e}, C = {c}; "
                      "target: `np.bincount` per chunk", lambda: hand_chunks(t, p, c, size),
                      lambda: accumulate(t, p, size, labels))


def small_rows(table, rng):  # issue 31: the per-call cost of evaluate
    for c in (3, 20):
        m = rng.integers(0, 100, (c, c))
        assert np.allclose(list(mc.evaluate(LABEL_SET, matrix=m).values()), hand_matrix_set(m), rtol=1e-12, equal_nan=True)
        table.add(f"13 values from a given {c}x{c} matrix, 100 calls", lambda: [hand_matrix_set(m) for _ in range(100)],
                  lambda: [mc.evaluate(LABEL_SET, matrix=m) for _ in range(100)])


def batch_rows(table, batch, repeat, rng):
    for c in (3, 18):
        m = rng.integers(0, 50, (batch, c, c))
        ours = mc.evaluate(BATCH_SET, matrix=m)
        assert all(np.allclose(ours[k], v, rtol=1e-12, equal_nan=True) for k, v in zip(BATCH_SET, hand_batch_set(m)))
        table.add(f"accuracy, macro P/R/F1, MCC over (B, C, C), B = {batch:.0e}, C = {c}",
                  lambda: hand_batch_set(m), lambda: mc.evaluate(BATCH_SET, matrix=m),
                  memory=(peak_mib(lambda: mc.evaluate(BATCH_SET, matrix=m)), peak_mib(lambda: hand_batch_set(m))))
        mcc = mc.metric("mcc").function
        table.add(f"`mcc(batch)` alone, B = {batch:.0e}, C = {c}", lambda: hand_mcc(m),
                  lambda: mcc(m), memory=(peak_mib(lambda: mcc(m)), peak_mib(lambda: hand_mcc(m))))


SWEEP_CALLS = 20  # a sweep row's calls per timing: the reference takes 3-5 ms a call, 60-100 ms together


def sweep_row(table, repeat, rng):
    c = 18
    m = rng.integers(0, 200, (c, c)) + 500 * np.eye(c, dtype=int)
    made = mc.product_grid([0.0, 1.0], c, flat=True)  # read-only, its extremes known to sweep
    stored = np.array(made)                             # a grid of the user's own: sweep checks it
    for grid, how in ((made, "made by `product_grid`"), (stored, "stored by the user (checked)")):
        ours = mc.sweep("preference_driven", matrix=m, grid=grid)
        assert np.allclose(np.ravel(ours), hand_preference_sweep(m, grid), rtol=1e-12)
        table.add(f"`sweep` of `preference_driven` over all 2^{c} kappa vectors of {{0, 1}}, C = {c}, grid {how}",
                  lambda: [hand_preference_sweep(m, grid) for _ in range(SWEEP_CALLS)],
                  lambda: [mc.sweep("preference_driven", matrix=m, grid=grid) for _ in range(SWEEP_CALLS)],
                  memory=(peak_mib(lambda: mc.sweep("preference_driven", matrix=m, grid=grid)),
                          peak_mib(lambda: hand_preference_sweep(m, grid))), calls=SWEEP_CALLS)


def score_rows(table, sizes, repeat, rng, peers):
    for n in sizes:
        speed_scores.family_rows(table, n, rng, peers, (median_time, peak_mib, repeat))
        c = 5
        y = rng.integers(0, c, n)
        scores = rng.random((n, c)).round(3)
        scores /= scores.sum(axis=1, keepdims=True)
        if not peers["sklearn"]:  # the target of the AUC rows is scikit-learn (there is no shorter numpy form)
            continue
        from sklearn.metrics import roc_auc_score
        assert abs(mc.evaluate("au1u", y_true=y, scores=scores)["au1u"] - roc_auc_score(y, scores, multi_class="ovo")) < 1e-12
        table.add(f"AU1U (Hand and Till's M) = sklearn OvO AUC, N = {n:.0e}, C = {c}; target: sklearn",
                  lambda: roc_auc_score(y, scores, multi_class="ovo"), lambda: mc.evaluate("au1u", y_true=y, scores=scores),
                  memory=(peak_mib(lambda: mc.evaluate("au1u", y_true=y, scores=scores)),
                          peak_mib(lambda: roc_auc_score(y, scores, multi_class="ovo"))))
        table.add(f"`roc_auc` macro (AUNU) = sklearn OvR AUC, N = {n:.0e}, C = {c}; target: sklearn",
                  lambda: roc_auc_score(y, scores, multi_class="ovr"),
                  lambda: mc.evaluate("roc_auc", y_true=y, scores=scores, average="macro"))


def import_row(table, repeat):
    code = ("import time; s = time.perf_counter(); import metricc as mc; "
            "mc.evaluate('mcc', matrix=[[5, 1], [2, 4]]); print(time.perf_counter() - s)")
    peer = "import time; s = time.perf_counter(); import sklearn.metrics; print(time.perf_counter() - s)"

    def run(source):
        return statistics.median(float(subprocess.run([sys.executable, "-c", source], capture_output=True, text=True,
                                                      check=True).stdout) for _ in range(repeat))

    sk = (run(peer), False) if _installed("sklearn") else "not installed"
    table.add("`import metricc` + first call (target: 0.35 s; peer: import sklearn.metrics)", 0.35,
              run(code), sk)


ROWS = ("labels", "known", "small", "batch", "sweep", "scores", "calibration", "import", "bootstrap", "dask", "curves")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="N = 1e6 only, 3 repeats: under two minutes")
    parser.add_argument("--repeat", type=int, default=None, help="median of this many runs (default 7, quick 3)")
    parser.add_argument("--only", choices=ROWS, action="append", help="run only these rows (repeatable)")
    parser.add_argument("--cpu", action="store_true", help="CPU time of this process, least of the repeats (for a loaded machine)")
    parser.add_argument("--save", action="store_true", help=f"write the table to {speed_guard.RESULTS.name} (the guard's reference)")
    args = parser.parse_args()
    if args.cpu:
        CLOCK.update(clock=time.process_time, summary=min)
    repeat = args.repeat or (3 if args.quick else 7)
    sizes = [10 ** 6] if args.quick else [10 ** 6, 10 ** 7]
    score_sizes = [10 ** 6] if args.quick else [10 ** 4, 10 ** 5, 10 ** 6]
    peers = {"sklearn": _installed("sklearn"), "pycm": _installed("pycm")}
    rng = np.random.default_rng(8)
    table = Table(repeat)
    warnings.simplefilter("ignore")  # peers warn about undefined values; the values are compared above
    start = time.perf_counter()
    rows = {"labels": lambda: labels_rows(table, sizes, repeat, rng, peers), "known": lambda: known_rows(table, sizes, rng),
            "small": lambda: small_rows(table, rng), "batch": lambda: batch_rows(table, 10 ** 5, repeat, rng),
            "sweep": lambda: sweep_row(table, repeat, rng), "import": lambda: import_row(table, repeat),
            "scores": lambda: score_rows(table, score_sizes, repeat, rng, peers),
            "calibration": lambda: [speed_scores.calibration_row(table, n, rng, (median_time, peak_mib, repeat))
                                    for n in score_sizes],
            "bootstrap": lambda: speed_intervals.bootstrap_row(table, rng),
            "dask": lambda: [speed_dask.dask_row(table, n, rng) for n in sizes],
            "curves": lambda: [speed_curves.curves_row(table, n, rng) for n in score_sizes]}
    assert set(rows) == set(ROWS)
    for name, run in rows.items():
        if not args.only or name in args.only:
            run()
    summary = "CPU time, least" if args.cpu else "median"
    footer = (f"{'quick ' if args.quick else ''}run, {summary} of {repeat}, numpy {np.__version__}, "
              f"{time.perf_counter() - start:.0f} s in all; ~ = peer timed on {PEER_BUDGET:.0e} samples and extrapolated")
    print(table.markdown() + "\n\n" + footer)
    speed_guard.report(table.markdown(), save=args.save, header=footer)


if __name__ == "__main__":
    main()
