"""Every torchmetrics mapping of audit/peers.yaml, evaluated as written (issue 27).

As ``test_peers_table_pycm.py`` and ``test_peers_table_sklearn.py`` do: each catalog entry of
a covered name is evaluated as the table spells it, its averaging the task's in torchmetrics
where the entry names none (``binary_*``: the positive class 1; ``multiclass_*`` and
``multilabel_*``: torchmetrics' default ``macro``), with ``zero_division=0`` (torchmetrics'),
and compared with the torchmetrics function of that name at its defaults (the catalog's
parameters where torchmetrics requires one: ``beta``, ``min_recall``), on random labels,
indicator rows or scores. torchmetrics divides in float32 in most label metrics (see
``test_torchmetrics_catalog.py``), so values agree to :data:`FLOAT32`.

:data:`CALLS` holds the call of each mapping; a mapping whose comparison needs more than a
call (a threshold torchmetrics returns beside the value, a documented difference at ties)
names the test that makes it in :data:`OWN_TESTS`. A mapping in neither fails.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import metricc as mc
from metricc.audit import peers
from metricc.generated import CATALOG
from tests.acceptance.peers.test_torchmetrics_catalog import _t, float64_default  # noqa: F401 - the fixture is autouse

torch = pytest.importorskip("torch")
tmf = pytest.importorskip("torchmetrics.functional.classification")

TABLE = peers.load_peers()["torchmetrics"]
FLOAT32 = 1e-6
DRAWS = 8


def _labels(rng, classes=None):
    c = classes or int(rng.integers(3, 6))
    n = int(rng.integers(c + 5, 60))
    y_true = np.r_[np.arange(c), rng.integers(0, c, n - c)]
    return {"y_true": y_true, "y_pred": np.where(rng.random(n) < 0.6, y_true, rng.integers(0, c, n)), "C": c}


def _binary(rng):
    return _labels(rng, 2)


def _indicators(rng):
    n, c = int(rng.integers(8, 40)), int(rng.integers(2, 6))
    y_true, y_pred = rng.integers(0, 2, (n, c)), rng.integers(0, 2, (n, c))
    y_true[0], y_true[1] = 1, 0  # every label has a positive and a negative
    return {"y_true": y_true, "y_pred": y_pred, "C": c}


def _scores(rng, classes=None):
    c = classes or int(rng.integers(3, 6))
    n = int(rng.integers(c + 5, 60))
    y = np.r_[np.arange(c), rng.integers(0, c, n - c)]
    raw = rng.integers(1, 6, (n, c)).astype(float)
    return {"y_true": y, "scores": raw / raw.sum(axis=1, keepdims=True), "C": c}


def _binary_scores(rng):
    return _scores(rng, 2)


def _indicator_scores(rng):
    data = _indicators(rng)
    return {"y_true": data["y_true"], "scores": rng.integers(0, 10, data["y_true"].shape) / 10, "C": data["C"]}


def _untied_indicator_scores(rng):
    """Scores without ties within a row: torchmetrics orders tied labels of the ranking loss by
    its sort (docs/differences.md, ``label_ranking_loss`` with tied scores)."""
    data = _indicator_scores(rng)
    return {**data, "scores": rng.permuted(np.tile(np.arange(data["C"]), (len(data["y_true"]), 1)), axis=1) / data["C"]}


def _labelled(function, **kwargs):
    """torchmetrics' ``function(preds, target, ...)`` of labels: num_classes / num_labels passed
    for the multiclass and multilabel tasks."""
    def call(d):
        counts = {} if function.startswith("binary_") else {
            "num_classes" if function.startswith("multiclass_") else "num_labels": d["C"]}
        return getattr(tmf, function)(_t(d["y_pred"]), _t(d["y_true"]), **counts, **kwargs)
    return call


def _scored(function, **kwargs):
    def call(d):
        scores = d["scores"][:, 1] if function.startswith("binary_") else d["scores"]
        counts = {} if function.startswith("binary_") else {
            "num_classes" if function.startswith("multiclass_") else "num_labels": d["C"]}
        return getattr(tmf, function)(_t(scores), _t(d["y_true"]), **counts, **kwargs)
    return call


_DATA = {"binary_": _binary, "multiclass_": _labels, "multilabel_": _indicators}
_SCORE_DATA = {"binary_": _binary_scores, "multiclass_": _scores, "multilabel_": _indicator_scores}
_TASKS = tuple(_DATA)


def _tasks(stem: str, entry: str, scored: bool = False, **kwargs) -> dict:
    data = _SCORE_DATA if scored else _DATA
    make = _scored if scored else _labelled
    return {(task + stem, entry): (data[task], make(task + stem, **kwargs)) for task in _TASKS}


CALLS = {
    **_tasks("f1_score", "f1"), **_tasks("fbeta_score", "f_beta", beta=1.0), **_tasks("precision", "precision"),
    **_tasks("recall", "recall"), **_tasks("specificity", "specificity"), **_tasks("jaccard_index", "jaccard"),
    **_tasks("negative_predictive_value", "npv"),
    **_tasks("auroc", "roc_auc", scored=True), **_tasks("average_precision", "average_precision", scored=True),
    ("binary_auroc", "roc_auc:binary"): (_binary_scores, _scored("binary_auroc")),
    ("binary_auroc", "partial_roc_auc"): (_binary_scores, _scored("binary_auroc", max_fpr=0.1)),
    ("binary_average_precision", "average_precision:binary"): (_binary_scores, _scored("binary_average_precision")),
    ("binary_accuracy", "accuracy"): (_binary, _labelled("binary_accuracy")),
    ("multiclass_accuracy", "accuracy"): (_labels, _labelled("multiclass_accuracy", average="micro")),
    ("multiclass_accuracy", "recall:macro"): (_labels, _labelled("multiclass_accuracy")),
    ("multilabel_accuracy", "class_accuracy"): (_indicators, _labelled("multilabel_accuracy")),
    ("binary_cohen_kappa", "cohen_kappa"): (_binary, _labelled("binary_cohen_kappa")),
    ("multiclass_cohen_kappa", "cohen_kappa"): (_labels, _labelled("multiclass_cohen_kappa")),
    ("binary_hamming_distance", "error_rate"): (_binary, _labelled("binary_hamming_distance")),
    ("multiclass_hamming_distance", "error_rate"): (_labels, _labelled("multiclass_hamming_distance", average="micro")),
    ("multilabel_hamming_distance", "hamming_loss"): (_indicators, _labelled("multilabel_hamming_distance")),
    ("binary_matthews_corrcoef", "mcc_per_class"): (_binary, _labelled("binary_matthews_corrcoef")),
    ("multiclass_matthews_corrcoef", "mcc"): (_labels, _labelled("multiclass_matthews_corrcoef")),
    ("multilabel_matthews_corrcoef", "mcc_per_class:micro"): (_indicators, _labelled("multilabel_matthews_corrcoef")),
    ("multilabel_exact_match", "exact_match_ratio"): (_indicators, _labelled("multilabel_exact_match")),
    ("multilabel_coverage_error", "coverage_error"): (_indicator_scores, _scored("multilabel_coverage_error")),
    ("multilabel_ranking_average_precision", "lrap"): (_indicator_scores, _scored("multilabel_ranking_average_precision")),
    ("multilabel_ranking_loss", "label_ranking_loss"): (_untied_indicator_scores, _scored("multilabel_ranking_loss")),
}
for _task in _TASKS:
    for _stem, _entry in (("auroc", "roc_auc"), ("average_precision", "average_precision")):
        if _task == "binary_":
            CALLS.pop((_task + _stem, _entry), None)  # the table writes the binary entries with :binary

_CURVES = "test_torchmetrics_curves.py"
_SCORES = "test_torchmetrics_scores.py"
# Mappings compared by a test of their own, and why not by one call here.
OWN_TESTS = {
    **{(task + stem, metric): f"{_CURVES}::test_{'binary_equals' if task == 'binary_' else task + 'per_'}"
                              "... (torchmetrics returns (value, threshold) and picks among equal values)"
       for task in _TASKS for stem, metric in (
           ("precision_at_fixed_recall", "precision_at_fixed_recall"),
           ("recall_at_fixed_precision", "recall_at_fixed_precision"),
           ("sensitivity_at_specificity", "sensitivity_at_specificity"),
           ("specificity_at_sensitivity", "specificity_at_sensitivity"))},
    **{(task + "eer", "equal_error_rate"): f"{_CURVES}::test_equal_error_rate_equals_torchmetrics (equally close thresholds)"
       for task in _TASKS},
    **{(task + "logauc", "log_roc_auc"): f"{_CURVES}::test_log_roc_auc_equals_torchmetrics (points sharing a rate differ)"
       for task in _TASKS},
    ("binary_calibration_error", "binary_calibration_error"): f"{_SCORES}::test_binary_calibration_error",
    ("binary_calibration_error", "binary_max_calibration_error"): f"{_SCORES}::test_binary_calibration_error (norm='max')",
    ("multiclass_calibration_error", "calibration_error"): f"{_SCORES}::test_multiclass_calibration_error",
    ("multiclass_calibration_error", "rms_calibration_error"): f"{_SCORES}::test_multiclass_calibration_error (norm='l2')",
    ("multiclass_calibration_error", "max_calibration_error"): f"{_SCORES}::test_multiclass_calibration_error (norm='max')",
    ("binary_hinge_loss", "binary_hinge_loss"): f"{_SCORES}::test_binary_hinge_loss",
    ("multiclass_hinge_loss", "hinge_loss"): f"{_SCORES}::test_multiclass_hinge_loss_crammer_singer",
    ("multiclass_hinge_loss", "one_vs_all_hinge_loss"): f"{_SCORES}::test_multiclass_hinge_loss_one_vs_all",
    ("multiclass_exact_match", "exact_match_ratio"):
        "test_peer_gaps.py::test_torchmetrics_multiclass_exact_match_is_exact_match_ratio_of_multioutput_indicators",
}


def _mappings():
    return [(n.name, entry) for n in TABLE.names if n.status == "covered" for entry in n.metrics]


def test_every_mapping_has_a_call_or_its_own_test():
    missing = sorted(set(_mappings()) - set(CALLS) - set(OWN_TESTS))
    assert not missing, f"audit/peers.yaml maps these without a call in CALLS or a test in OWN_TESTS: {missing}"
    assert not (set(CALLS) | set(OWN_TESTS)) - set(_mappings()), "mappings audit/peers.yaml no longer has"
    assert not set(CALLS) & set(OWN_TESTS)


@pytest.mark.parametrize("mapping", sorted(OWN_TESTS), ids=lambda m: f"{m[0]}={m[1]}")
def test_the_test_of_its_own_exists(mapping):
    where = OWN_TESTS[mapping].split(" (")[0]
    file, _, test = where.partition("::")
    text = (Path(__file__).parent / file).read_text(encoding="utf-8")
    assert f"def {test.removesuffix('...')}" in text and mapping[1] in text, f"{mapping}: {where} does not compare it"


def _ours(name: str, entry: str, data: dict) -> float:
    metric, params, average = peers.parse_entry(entry)
    task = average or ("binary" if name.startswith("binary_") else "macro")
    averaged = {"average": task} if task in CATALOG[metric].averages else {}  # else the metric's one reduction
    inputs = {k: v for k, v in data.items() if k != "C"}
    value = mc.evaluate(metric, **inputs, **averaged, params=params, zero_division=0,
                        multilabel=name.startswith("multilabel_"))[metric]
    return float(value)


@pytest.mark.parametrize("mapping", sorted(CALLS), ids=lambda m: f"{m[0]}={m[1]}")
def test_mapping_as_the_table_writes_it(mapping):
    draw, theirs = CALLS[mapping]
    rng = np.random.default_rng(sum(map(ord, "".join(mapping))))
    for _ in range(DRAWS):
        data = draw(rng)
        expected = float(theirs(data))
        actual = _ours(*mapping, data)
        assert actual == pytest.approx(expected, rel=FLOAT32, abs=FLOAT32), f"torchmetrics {mapping[0]} = {mapping[1]} on {data}"
