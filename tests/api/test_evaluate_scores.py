"""api/evaluate_scores.py: the curve metrics of one evaluate call share one sort of each score
column (the call's ScoreContext), and give, to the last bit, what each gives called alone."""

from __future__ import annotations

import numpy as np
import pytest

import metricc.api as mc
from metricc.runtime import curves
from metricc.runtime.context import ScoreContext

CURVE_METRICS = sorted(name for name in mc.catalog() if mc.catalog()[name].thresholds)


@pytest.fixture
def sorted_columns(monkeypatch):
    """The number of score columns sorted (one per one-vs-rest curve, one for the pooled curve)."""
    built = []
    original = curves._tie_groups
    monkeypatch.setattr(curves, "_tie_groups", lambda truth, score: built.append(1) or original(truth, score))
    return built


@pytest.mark.parametrize("multilabel", [False, True])
def test_the_curve_metrics_of_a_call_sort_each_column_once(sorted_columns, multilabel):
    rng = np.random.default_rng(31)
    scores = rng.integers(0, 6, size=(60, 4)) / 5  # many tied thresholds
    y = rng.integers(0, 2, size=(60, 4)) if multilabel else rng.integers(0, 4, size=60)
    names = [f"{name}:{mode}" for name in CURVE_METRICS for mode in mc.catalog()[name].averages
             if mode not in ("binary", "micro")]  # micro reads the pooled curve: below
    together = mc.evaluate(names, y_true=y, scores=scores, multilabel=multilabel)
    assert len(sorted_columns) == scores.shape[1]
    for name in names:
        metric, mode = name.split(":")
        alone = mc.catalog()[metric].function(y, scores, average=mode, multilabel=multilabel)
        assert np.array_equal(together[name], alone, equal_nan=True), name
    sorted_columns.clear()
    mc.evaluate(["roc_auc:micro", "average_precision:micro"], y_true=y, scores=scores, multilabel=multilabel)
    assert len(sorted_columns) == scores.shape[1] + 1  # the pooled curve too, once for both


def test_a_context_of_other_inputs_is_not_read(sorted_columns):
    y, scores = np.array([0, 1, 2, 1]), np.eye(3)[[0, 1, 2, 2]]
    context = ScoreContext(y, scores, None)
    roc_auc = mc.catalog()["roc_auc"].function
    first = roc_auc(y, scores, context=context)
    assert roc_auc(y, scores.copy(), context=context) == first and len(sorted_columns) == 6  # a copy: sorted again
    assert roc_auc(y, scores, context=context) == first and len(sorted_columns) == 6  # its own inputs: shared


SCORE_METRICS = sorted(info.id for info in mc.catalog().values() if info.needs_scores)


@pytest.mark.parametrize("entry", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("name", SCORE_METRICS)
def test_every_score_metric_refuses_scores_that_are_not_finite(name, entry):
    """``evaluate`` leaves the finiteness of the scores to each metric (one read of them): every
    score and curve metric of the catalog must refuse NaN and infinities itself."""
    rng = np.random.default_rng(3)
    scores, y_true, options = rng.dirichlet(np.ones(3), 30), np.arange(30) % 3, {}
    if mc.catalog()[name].indicator_truth:
        y_true, options = np.eye(3, dtype=int)[np.arange(30) % 3] | (np.arange(30) % 2)[:, None], {"multilabel": True}
    scores[4, 1] = entry
    with pytest.raises(mc.InputError, match="scores"):
        mc.evaluate([name], y_true=y_true, scores=scores, **options)
