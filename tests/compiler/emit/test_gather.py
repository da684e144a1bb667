"""Sums over a one-hot truth row read as gathers (``emit/gather.py``).

Every gathered module must give exactly (``==``: the dropped terms are exact zeros) the value
of the same module printed without the gathers, on rows full of ties, but where the printer
adds the same terms in another order (:data:`REORDERED`); a body that is not finite wherever
the scores are (``0 * log 0``) is not gathered.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import sympy

from metricc.compiler import build
from metricc.compiler.emit import gather, numpy_module
from metricc.compiler.language import symbols

SPECS = Path(__file__).resolve().parents[3] / "specs"
# metric id -> (parameter sets, the array the module gathers)
GATHERED = {
    "log_loss": ([{}], "S__true"),
    "d2_log_loss_score": ([{}], "S__true"),
    "top_k_accuracy": ([{"top": 1}, {"top": 2}, {"top": 3}], "S__true"),
    "hinge_loss": ([{"power": 1}, {"power": 2}], "S__true"),
    "calibration_error": ([{"bins": 1}, {"bins": 4}], "S__max"),
    "max_calibration_error": ([{"bins": 4}], "S__max"),
    "rms_calibration_error": ([{"bins": 4}], "S__max"),
    "binary_hinge_loss": ([{}], "S__column1"),
}

# The printer's common subexpressions order these sums otherwise once gathered (hinge:
# 1 - true + runner-up added as (1 + runner-up) - true before): the same terms, a last bit apart.
REORDERED = {"hinge_loss"}


@pytest.fixture(scope="module")
def metrics(tmp_path_factory):
    folder = tmp_path_factory.mktemp("specs")
    for metric_id in GATHERED:
        shutil.copy(SPECS / f"{metric_id}.yaml", folder)
    return build.analyzed_metrics(folder)


def _function(metric, gathered: bool = True):
    """The generated function; ``gathered=False``: printed with the one-hot truth's and top label's sums."""
    original = gather.rewrite, gather.at_top
    if not gathered:
        gather.rewrite = gather.at_top = lambda outputs: tuple(outputs)
    try:
        source = numpy_module.emit_module(metric)
    finally:
        gather.rewrite, gather.at_top = original
    namespace: dict = {}
    exec(compile(source, "<generated>", "exec"), namespace)  # test only
    return namespace[metric.id], source


@pytest.mark.parametrize("metric_id", GATHERED)
def test_gathered_sums_equal_the_one_hot_sums_exactly(metrics, metric_id):
    gathered, source = _function(metrics[metric_id])
    summed, _ = _function(metrics[metric_id], gathered=False)
    parameter_sets, array = GATHERED[metric_id]
    assert f"    {array} = " in source if array else "Y__class" in source
    patterns = np.array([[0.5, 0.5, 0, 0], [0.25] * 4, [0.1, 0.4, 0.1, 0.4], [0, 0, 1, 0], [0.3, 0.2, 0.2, 0.3]])
    for seed in range(4):
        rng = np.random.default_rng(seed)
        scores = patterns[rng.integers(0, len(patterns), size=40)]
        y = rng.integers(0, 4, size=40)
        if metric_id == "binary_hinge_loss":
            scores, y = scores[:, :2] - 0.25, y % 2
        for params in parameter_sets:
            expected = summed(y, scores, **params)
            if metric_id in REORDERED:
                np.testing.assert_allclose(gathered(y, scores, **params), expected, rtol=1e-15, atol=0)
            else:
                assert np.array_equal(gathered(y, scores, **params), expected, equal_nan=True)


def test_only_finite_bodies_are_gathered():
    s, k = symbols.index_symbol("s"), symbols.index_symbol("k")
    truth, score = symbols.TRUTH[s, k], symbols.SCORE[s, k]
    every_class = (k, 0, symbols.N_CLASSES - 1)
    assert gather.rewrite([sympy.Sum(truth * score, every_class)]) == (sympy.IndexedBase("S__true")[s],)
    logged = sympy.Sum(truth * sympy.log(score), every_class)  # 0 * log(0) is NaN in the sum: kept
    assert gather.rewrite([logged]) == (logged,)
    other = sympy.Sum(truth * symbols.SCORE[symbols.index_symbol("u"), k], every_class)  # another sample's row
    assert gather.rewrite([other]) == (other,)


def test_a_row_against_its_true_score_is_counted():
    s, l = symbols.index_symbol("s"), symbols.index_symbol("l")
    true, true_class = sympy.IndexedBase("S__true")[s], gather.TRUE_CLASS[s]
    ahead = sympy.Sum(sympy.Heaviside(symbols.SCORE[s, l] - true, 0)
                      + sympy.KroneckerDelta(symbols.SCORE[s, l], true) * sympy.Heaviside(l - true_class, 0),
                      (l, 0, symbols.N_CLASSES - 1))
    counted = gather.rewrite([ahead])
    assert counted == (sympy.IndexedBase("S__true_above")[s] + sympy.IndexedBase("S__true_tied_after")[s],)
    assert [name for name, _ in gather.true_counts(counted)] == ["above", "tied_after"]
    weighted = sympy.Sum(symbols.SCORE[s, l] * sympy.Heaviside(symbols.SCORE[s, l] - true, 0), (l, 0, symbols.N_CLASSES - 1))
    assert gather.rewrite([weighted]) == (weighted,)  # a sum of scores, not a count


def test_a_sum_weighted_by_the_other_classes_is_split_where_whole():
    s, l, k = (symbols.index_symbol(name) for name in ("s", "l", "k"))
    ahead = sympy.Heaviside(symbols.SCORE[s, l] - symbols.SCORE[s, k], 0)
    every_class = (l, 0, symbols.N_CLASSES - 1)
    split = gather.rewrite([sympy.Sum((1 - symbols.TRUTH[s, l]) * ahead, every_class)])
    assert split == (sympy.Sum(ahead, every_class) - sympy.Heaviside(sympy.IndexedBase("S__true")[s] - symbols.SCORE[s, k], 0),)
    scored = sympy.Sum((1 - symbols.TRUTH[s, l]) * symbols.SCORE[s, l], every_class)  # not whole: its sum would round otherwise
    assert gather.rewrite([scored]) == (scored,)


def test_the_first_maximum_among_the_other_classes_is_one_masked_argmax(metrics):
    s, k, l = (symbols.index_symbol(name) for name in ("s", "k", "l"))
    score, other, truth = symbols.SCORE, symbols.SCORE[s, k], symbols.TRUTH
    ahead = sympy.Sum((1 - truth[s, l]) * (sympy.Heaviside(score[s, l] - other, 0)
                                           + sympy.KroneckerDelta(score[s, l], other) * sympy.Heaviside(k - l, 0)),
                      (l, 0, symbols.N_CLASSES - 1))
    runner_up = sympy.Sum((1 - truth[s, k]) * sympy.KroneckerDelta(0, ahead) * other, (k, 0, symbols.N_CLASSES - 1))
    assert gather.rewrite([runner_up]) == (sympy.IndexedBase("S__other")[s],)
    _, source = _function(metrics["hinge_loss"])
    assert "first_max_other(S, Y__class)" in source and "row_ranks" not in source
    weighed = runner_up.xreplace({truth[s, l]: 1 - truth[s, l]})  # ahead among the true classes: another count
    assert gather.rewrite([weighed]) != (sympy.IndexedBase("S__other")[s],)


def test_a_fixed_class_of_the_row_is_one_column():
    s, k = symbols.index_symbol("s"), symbols.index_symbol("k")
    every_class = (k, 0, symbols.N_CLASSES - 1)
    picked = sympy.Sum(sympy.KroneckerDelta(1, k) * symbols.SCORE[s, k], every_class)
    assert gather.rewrite([picked]) == (sympy.IndexedBase("S__column1")[s],)
    beyond = sympy.Sum(sympy.KroneckerDelta(2, k) * symbols.SCORE[s, k], every_class)  # C may be 2: no column 2
    assert gather.rewrite([beyond]) == (beyond,)


def test_a_top_labels_sum_is_read_at_the_rows_argmax():
    s, k = symbols.index_symbol("s"), symbols.index_symbol("k")
    top, every_class = sympy.IndexedBase("S__top")[s, k], (k, 0, symbols.N_CLASSES - 1)
    argmax = sympy.IndexedBase("S__argmax")[s]
    confidence, correct = (sympy.Sum(top * x, every_class) for x in (symbols.SCORE[s, k], symbols.TRUTH[s, k]))
    assert gather.at_top([confidence, correct]) == (sympy.IndexedBase("S__max")[s], sympy.KroneckerDelta(gather.TRUE_CLASS[s], argmax))
    assert [(row, str(a), str(m)) for row, a, m in gather.top_bases(gather.at_top([confidence]))] == [("S", "S__argmax", "S__max")]
    kept = [sympy.Sum(top * sympy.log(symbols.SCORE[s, k]), every_class),  # 0 * log(0): NaN in the sum
            sympy.Sum(top * symbols.SCORE[symbols.index_symbol("u"), k], every_class),  # another sample's row
            sympy.Sum(sympy.IndexedBase("S__Y__top")[s, k] * symbols.SCORE[s, k], every_class)]  # not a count of the row
    assert gather.at_top(kept) == tuple(kept)


def test_the_argmax_is_the_first_maximum_as_the_top_label_is(metrics):
    """Random rows with tied maxima and rows of equal scores: the calibration errors read at the
    argmax equal, bit for bit, the same modules summing the one-hot top label's row."""
    for metric_id in ("calibration_error", "max_calibration_error", "rms_calibration_error"):
        gathered, source = _function(metrics[metric_id])
        summed, _ = _function(metrics[metric_id], gathered=False)
        assert "S__argmax = np.argmax(S, axis=-1)" in source and "row_ranks(" not in source
        for seed in range(6):
            rng = np.random.default_rng(seed)
            n_classes = int(rng.integers(2, 7))
            scores = rng.integers(0, 4, size=(50, n_classes)).astype(float)  # ties everywhere, maxima among them
            scores[::5] = 1.0
            scores /= scores.sum(axis=1, keepdims=True)
            scores[1::5] = rng.dirichlet(np.full(n_classes, 0.5), size=len(scores[1::5]))
            y = rng.integers(0, n_classes, size=50)
            for bins in (1, 3, 15):
                assert np.array_equal(gathered(y, scores, bins=bins), summed(y, scores, bins=bins), equal_nan=True)
