"""Sums over a class comparing entries of one score row, counted from a sort (``emit/row_ranks.py``).

Every rewritten module must give exactly (``==``, not 1e-12: the counts are whole numbers)
the value of the same module printed without the rewrite, whose loops over the class index
compare the entries pairwise, on rows full of ties: tied top scores, constant rows, tied
relevances. The runtime's ``row_ranks`` must equal the pairwise counts it replaces.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import sympy

from metricc.compiler import build
from metricc.compiler.emit import numpy_module, row_ranks
from metricc.compiler.emit.numpy_printer import NumpyPrinter
from metricc.compiler.language import symbols
from metricc.runtime import scores
from metricc.runtime.scores import row_ranks as runtime_row_ranks
from metricc.runtime.scores import window_sum as runtime_window_sum

SPECS = Path(__file__).resolve().parents[3] / "specs"
# metric id -> (truth kind, parameter sets)
RANKED = {
    "calibration_error": ("labels", [{"bins": 1}, {"bins": 4}, {"bins": 15}]),
    "max_calibration_error": ("labels", [{"bins": 4}]),
    "rms_calibration_error": ("labels", [{"bins": 4}]),
    "top_k_accuracy": ("labels", [{"top": 1}, {"top": 2}]),
    "lrap": ("indicator", [{}]),
    "coverage_error": ("indicator", [{}]),
    "label_ranking_loss": ("indicator", [{}]),
    "hinge_loss": ("labels", [{"power": 1}, {"power": 2}]),
    "dcg": ("relevance", [{}, {"top": 2}]),
    "ndcg": ("relevance", [{}, {"top": 2}]),
}


@pytest.fixture(scope="module")
def metrics(tmp_path_factory):
    folder = tmp_path_factory.mktemp("specs")
    for metric_id in RANKED:
        shutil.copy(SPECS / f"{metric_id}.yaml", folder)
    return build.analyzed_metrics(folder)


def _function(metric, rewritten: bool = True):
    """The generated function; ``rewritten=False``: printed with its sums over a class as loops."""
    if rewritten:
        source = numpy_module.emit_module(metric)
    else:
        original = row_ranks.rewrite
        row_ranks.rewrite = lambda outputs, weights=False: row_ranks.Ranked(tuple(outputs), ())
        try:
            source = numpy_module.emit_module(metric)
        finally:
            row_ranks.rewrite = original
    namespace: dict = {}
    exec(compile(source, "<generated>", "exec"), namespace)  # test only
    return namespace[metric.id], source


def _tied(seed: int, truth: str):
    """Rows with many ties: probability rows drawn from a few patterns (tied top scores,
    constant rows), integer scores otherwise; truths of the kind the metric takes."""
    rng = np.random.default_rng(seed)
    n, n_classes = 40, 4
    if truth == "labels":
        patterns = np.array([[0.5, 0.5, 0, 0], [0.25] * 4, [0.1, 0.4, 0.1, 0.4], [0, 0, 1, 0], [0.3, 0.2, 0.2, 0.3],
                             [0.7, 0.1, 0.1, 0.1]])
        return rng.integers(0, n_classes, size=n), patterns[rng.integers(0, len(patterns), size=n)]
    scores = rng.integers(0, 3, size=(n, n_classes)).astype(float)
    scores[::7] = 1.0  # constant rows
    if truth == "indicator":
        return rng.integers(0, 2, size=(n, n_classes)), scores
    return rng.integers(0, 3, size=(n, n_classes)).astype(float), scores


@pytest.mark.parametrize("metric_id", RANKED)
def test_counted_sums_equal_the_loops_exactly(metrics, metric_id):
    metric = metrics[metric_id]
    counted, source = _function(metric)
    looped, loop_source = _function(metric, rewritten=False)
    # top-k accuracy compares the row with the true class's score alone, calibration reads the
    # top label at the row's argmax: gathered, no sort (test_gather.py)
    assert ("row_ranks(" in source or "S__true = " in source or "S__argmax = " in source) and "row_ranks(" not in loop_source
    truth, parameter_sets = RANKED[metric_id]
    for seed in range(4):
        y, scores = _tied(seed, truth)
        for params in parameter_sets:
            assert np.array_equal(counted(y, scores, **params), looped(y, scores, **params), equal_nan=True)


@pytest.mark.parametrize("metric_id", ["dcg", "ndcg"])
def test_window_sums_equal_the_loops_exactly(metrics, metric_id, monkeypatch):
    """The discount summed over a tie group's positions (``window_sum``) adds the loop's
    nonzero terms in the loop's order: bit-identical values, also with 12 classes."""
    windowed, source = _function(metrics[metric_id])
    monkeypatch.setattr(NumpyPrinter, "_window", lambda self, expr: None)
    looped, loop_source = _function(metrics[metric_id])
    assert "window_sum(" in source and "window_sum(" not in loop_source and "map(" in loop_source
    rng = np.random.default_rng(3)
    for seed in range(4):
        y, scores = _tied(seed, "relevance")
        wide = rng.integers(0, 4, size=(30, 12)).astype(float), rng.integers(0, 3, size=(30, 12)) / 2
        for truth, score in ((y, scores), wide):
            for params in RANKED[metric_id][1]:
                assert np.array_equal(windowed(truth, score, **params), looped(truth, score, **params), equal_nan=True)


def test_a_window_sum_adds_only_whole_positions_inside_the_classes():
    found = runtime_window_sum(lambda m: 1 / (m + 1), np.array([-2.0, 1.0, 2.5, 3.0, np.inf]), np.array([1.0, 3.5, 3.0, 2.0, 5.0]), 4)
    np.testing.assert_array_equal(found[:4], [1.0, 1 / 2 + 1 / 3 + 1 / 4, 0.0, 0.0])  # m = 0; 1..3; none; none
    assert np.isnan(found[4])


def test_calibration_has_no_loop_over_the_classes_left(metrics):
    _, source = _function(metrics["calibration_error"])
    assert "map(" not in source and "row_ranks(" not in source  # argmax: no sort, no class loop, no (n, C) top array
    assert "S__argmax = np.argmax(S, axis=-1)" in source


@pytest.mark.parametrize("block", [1 << 20, 7])  # one block; blocks of 7 entries, rows split over them
def test_the_runtime_counts_equal_the_pairwise_comparisons(monkeypatch, block):
    monkeypatch.setattr(scores, "_RANK_BLOCK", block)
    rng = np.random.default_rng(0)
    for n_classes in (1, 2, 5):
        values = rng.integers(0, 3, size=(30, n_classes)).astype(float)
        values[0] = -0.0  # ties with 0.0, as ==
        values[1, 0] = 0.0
        above, tied, before, top = runtime_row_ranks(values)
        pairs_above = values[:, None, :] > values[:, :, None]  # [s, k, l]
        pairs_tied = values[:, None, :] == values[:, :, None]
        earlier = np.arange(n_classes)[None, :] < np.arange(n_classes)[:, None]  # [k, l]: l < k
        assert np.array_equal(above, pairs_above.sum(-1)) and np.array_equal(tied, pairs_tied.sum(-1))
        assert np.array_equal(before, (pairs_tied & earlier).sum(-1))
        first_maximum = (pairs_above.sum(-1) == 0) & ((pairs_tied & earlier).sum(-1) == 0)
        assert np.array_equal(top, first_maximum) and np.all(top.sum(-1) == 1)
        (alone,) = runtime_row_ranks(values, ("top",))  # argmax, without the sort
        assert np.array_equal(alone, top)


@pytest.mark.parametrize("block", [1 << 20, 7])
def test_weighted_counts_equal_the_weighted_pairwise_comparisons(monkeypatch, block):
    """0/1 weights (the truth): the prefix sums in sorted order are the loop's sums, exactly."""
    monkeypatch.setattr(scores, "_RANK_BLOCK", block)
    rng = np.random.default_rng(1)
    for n_classes in (1, 2, 5):
        values = rng.integers(0, 3, size=(30, n_classes)).astype(float)
        weights = rng.integers(0, 2, size=values.shape).astype(float)
        above, tied, before = runtime_row_ranks(values, ("above", "tied", "tied_before"), weights)
        pairs_above = values[:, None, :] > values[:, :, None]  # [s, k, l]
        pairs_tied = values[:, None, :] == values[:, :, None]
        earlier = np.arange(n_classes)[None, :] < np.arange(n_classes)[:, None]
        w = weights[:, None, :]
        assert np.array_equal(above, (pairs_above * w).sum(-1)) and np.array_equal(tied, (pairs_tied * w).sum(-1))
        assert np.array_equal(before, ((pairs_tied & earlier) * w).sum(-1))


def test_weighted_comparisons_are_counted_only_where_the_truth_is_zero_or_one():
    weighted = sympy.Sum(symbols.TRUTH[s, l] * FORMS[">="], (l, 0, symbols.N_CLASSES - 1))
    counted = row_ranks.rewrite([weighted], weights=True)
    assert counted.outputs[0] == sympy.IndexedBase("S__Y__above")[s, k] + sympy.IndexedBase("S__Y__tied")[s, k]
    assert counted.rows == (("S", "Y", (("above", sympy.IndexedBase("S__Y__above")),
                                         ("tied", sympy.IndexedBase("S__Y__tied")))),)
    graded = row_ranks.rewrite([weighted], weights=False)  # relevances: summed in the loop's order
    assert graded.outputs[0] == weighted and graded.rows == ()


@pytest.mark.parametrize("metric_id", ["coverage_error", "lrap", "label_ranking_loss"])
def test_truth_weighted_rank_sums_have_no_loop_over_the_classes_left(metrics, metric_id):
    _, source = _function(metrics[metric_id])
    assert "map(" not in source and "row_ranks(S, (" in source and ", Y)" in source


def test_one_label_truth_weights_are_gathered_not_sorted(metrics):
    """hinge loss's count of the other classes ahead, ``Sum((1 - Y[s, l]) * g(l), l)``, tested
    for zero, is the first maximum among the other classes (``emit/gather.py``): no sort at all."""
    _, source = _function(metrics["hinge_loss"])
    assert "map(" not in source and "row_ranks(" not in source and "first_max_other(S, Y__class)" in source


def test_the_top_label_indicator_reads_the_top_count_alone():
    """``[above + tied_before = 0]`` is the first maximum: one count, ``top``, and no sort."""
    first = sympy.KroneckerDelta(0, sympy.Sum(FORMS[">"] + FORMS["== at an earlier class"],
                                              (l, 0, symbols.N_CLASSES - 1)))
    ranked = row_ranks.rewrite([first * X[s, k]])
    assert ranked.outputs[0] == X[s, k] * sympy.IndexedBase("S__top")[s, k]
    assert ranked.rows == (("S", "", (("top", sympy.IndexedBase("S__top")),)),)
    kept = row_ranks.rewrite([sympy.KroneckerDelta(1, sympy.Sum(FORMS[">"], (l, 0, symbols.N_CLASSES - 1)))])
    assert [c for c, _ in kept.rows[0][2]] == ["above"]  # another comparison keeps its count


s, k, l = (symbols.index_symbol(name) for name in "skl")
X = symbols.SCORE
FORMS = {
    ">": sympy.Heaviside(X[s, l] - X[s, k], 0),
    ">=": sympy.Heaviside(X[s, l] - X[s, k], 1),
    "<": sympy.Heaviside(X[s, k] - X[s, l], 0),
    "<=": sympy.Heaviside(-(X[s, l] - X[s, k]), 1),
    "==": sympy.KroneckerDelta(X[s, k], X[s, l]),
    "== at an earlier class": sympy.KroneckerDelta(X[s, l], X[s, k]) * sympy.Heaviside(k - l, 0),
    "== at a later class": sympy.KroneckerDelta(X[s, k], X[s, l]) * sympy.Heaviside(l - k, 0),
    "> but not k": (1 - sympy.KroneckerDelta(k, l)) * sympy.Heaviside(X[s, l] - X[s, k], 1),
}
COMPARE = {">": np.greater, ">=": np.greater_equal, "<": np.less, "<=": np.less_equal, "==": np.equal}


@pytest.mark.parametrize("form", FORMS)
def test_each_comparison_becomes_its_counts(form):
    ranked = row_ranks.rewrite([sympy.Sum(FORMS[form], (l, 0, symbols.N_CLASSES - 1))])
    (counted,) = ranked.outputs
    assert not counted.atoms(sympy.Sum) and [row for row, _, _ in ranked.rows] == ["S"]
    values = np.array([[0.5, 0.2, 0.5, 0.5, 0.1]])
    ranks = runtime_row_ranks(values)
    n_classes = values.shape[1]
    for column in range(n_classes):
        value = counted.xreplace({symbols.N_CLASSES: n_classes}).replace(
            lambda e: isinstance(e, sympy.Indexed) and e.base != X,
            lambda e: sympy.Integer(int(ranks[row_ranks.COUNTS.index(str(e.base.label).split("__")[1])][0, column])))
        entries, mine = values[0], values[0, column]
        earlier, later = np.arange(n_classes) < column, np.arange(n_classes) > column
        expected = {"== at an earlier class": np.sum((entries == mine) & earlier),
                    "== at a later class": np.sum((entries == mine) & later),
                    "> but not k": np.sum(entries >= mine) - 1}.get(form)
        if expected is None:
            expected = np.sum(COMPARE[form](entries, mine))
        assert value == expected, (form, column)


def test_a_comparison_weighted_by_the_compared_class_is_left_as_a_loop():
    weighted = sympy.Sum(sympy.Heaviside(X[s, l] - X[s, k], 1) * symbols.TRUTH[s, l], (l, 0, symbols.N_CLASSES - 1))
    other_rows = sympy.Sum(sympy.Heaviside(X[s, l] - symbols.TRUTH[s, k], 0), (l, 0, symbols.N_CLASSES - 1))
    assert row_ranks.rewrite([weighted, other_rows]) == row_ranks.Ranked((weighted, other_rows), ())
