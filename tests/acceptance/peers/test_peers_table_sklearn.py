"""Every scikit-learn mapping of audit/peers.yaml, evaluated as written (issue 27).

As ``test_peers_table_pycm.py`` does for PyCM: each catalog entry of a covered name is
evaluated exactly as the table spells it (its id, parameters and averaging; the catalog's
defaults otherwise) and compared at 1e-12 with the scikit-learn call the name's ``note``
describes, on random labels, indicator rows or scores. :data:`CALLS` says how to call the
peer for each entry and on which data; an entry without one fails
(``test_every_mapping_has_a_call``), so a new mapping is evaluated from the day it is written.
Where the two agree only after a choice (scikit-learn's default ``average="binary"``), the
call makes the choice the note states; no difference is pinned here: the ones that exist
are in docs/differences.md and their own tests.
"""

from __future__ import annotations

import numpy as np
import pytest

import metricc as mc
from metricc.audit import peers

skm = pytest.importorskip("sklearn.metrics")
cluster = pytest.importorskip("sklearn.metrics.cluster")

TABLE = peers.load_peers()["scikit-learn"]
RELATIVE = 1e-12
DRAWS = 12


def _labels(rng, classes: int | None = None):
    c = classes or int(rng.integers(3, 6))
    n = int(rng.integers(c + 5, 60))
    y_true = np.r_[np.arange(c), rng.integers(0, c, n - c)]
    y_pred = np.where(rng.random(n) < 0.6, y_true, rng.integers(0, c, n))
    return {"y_true": y_true, "y_pred": y_pred}


def _binary(rng):
    return _labels(rng, 2)


def _indicators(rng):
    n, c = int(rng.integers(6, 40)), int(rng.integers(2, 6))
    y_true, y_pred = rng.integers(0, 2, (n, c)), rng.integers(0, 2, (n, c))
    # every label and every sample has a positive and a negative (an AUC needs both)
    y_true[0], y_true[1] = np.arange(c) % 2, 1 - np.arange(c) % 2
    one, zero = rng.integers(0, c, n), rng.integers(1, c, n)
    y_true[np.arange(n), one], y_true[np.arange(n), (one + zero) % c] = 1, 0
    return {"y_true": y_true, "y_pred": y_pred}


def _scores(rng, classes: int | None = None):
    c = classes or int(rng.integers(3, 6))
    n = int(rng.integers(c + 5, 60))
    y = np.r_[np.arange(c), rng.integers(0, c, n - c)]
    raw = rng.integers(1, 6, (n, c)).astype(float)  # tenths: ties are common
    return {"y_true": y, "scores": raw / raw.sum(axis=1, keepdims=True)}


def _binary_scores(rng):
    return _scores(rng, 2)


def _indicator_scores(rng):
    data = _indicators(rng)
    return {"y_true": data["y_true"], "scores": rng.integers(0, 10, data["y_true"].shape) / 10}


def _relevance(rng):
    n, c = int(rng.integers(3, 12)), int(rng.integers(3, 7))
    return {"y_true": rng.integers(0, 4, (n, c)).astype(float), "scores": rng.integers(0, 10, (n, c)) / 10}


MULTILABEL = (_indicators, _indicator_scores, _relevance)


def _positive(data):
    return data["scores"][:, 1]


# (scikit-learn name, entry as the table writes it) -> (data, the peer's value of that data)
CALLS = {
    ("accuracy_score", "accuracy"): (_labels, lambda d: skm.accuracy_score(d["y_true"], d["y_pred"])),
    ("accuracy_score", "exact_match_ratio"): (_indicators, lambda d: skm.accuracy_score(d["y_true"], d["y_pred"])),
    ("balanced_accuracy_score", "balanced_accuracy"): (
        _labels, lambda d: skm.balanced_accuracy_score(d["y_true"], d["y_pred"])),
    ("balanced_accuracy_score", "adjusted_balanced_accuracy"): (
        _labels, lambda d: skm.balanced_accuracy_score(d["y_true"], d["y_pred"], adjusted=True)),
    ("balanced_accuracy_score", "youden_j:binary"): (
        _binary, lambda d: skm.balanced_accuracy_score(d["y_true"], d["y_pred"], adjusted=True)),
    ("brier_score_loss", "brier_score"): (_scores, lambda d: skm.brier_score_loss(d["y_true"], d["scores"])),
    ("class_likelihood_ratios", "positive_likelihood_ratio"): (
        _binary, lambda d: skm.class_likelihood_ratios(d["y_true"], d["y_pred"])[0]),
    ("class_likelihood_ratios", "negative_likelihood_ratio"): (
        _binary, lambda d: skm.class_likelihood_ratios(d["y_true"], d["y_pred"])[1]),
    ("cohen_kappa_score", "cohen_kappa"): (_labels, lambda d: skm.cohen_kappa_score(d["y_true"], d["y_pred"])),
    ("cohen_kappa_score", "weighted_kappa"): (
        _labels, lambda d: skm.cohen_kappa_score(d["y_true"], d["y_pred"], weights="linear")),
    ("cohen_kappa_score", "quadratic_weighted_kappa"): (
        _labels, lambda d: skm.cohen_kappa_score(d["y_true"], d["y_pred"], weights="quadratic")),
    ("d2_brier_score", "d2_brier_score"): (_scores, lambda d: skm.d2_brier_score(d["y_true"], d["scores"])),
    ("d2_log_loss_score", "d2_log_loss_score"): (_scores, lambda d: skm.d2_log_loss_score(d["y_true"], d["scores"])),
    ("f1_score", "f1"): (_labels, lambda d: skm.f1_score(d["y_true"], d["y_pred"], average="macro")),
    ("fbeta_score", "f_beta"): (_labels, lambda d: skm.fbeta_score(d["y_true"], d["y_pred"], beta=1, average="macro")),
    ("hamming_loss", "hamming_loss"): (_indicators, lambda d: skm.hamming_loss(d["y_true"], d["y_pred"])),
    ("hamming_loss", "error_rate"): (_labels, lambda d: skm.hamming_loss(d["y_true"], d["y_pred"])),
    ("hinge_loss", "hinge_loss"): (_scores, lambda d: skm.hinge_loss(d["y_true"], d["scores"])),
    ("hinge_loss", "binary_hinge_loss"): (_binary_scores, lambda d: skm.hinge_loss(d["y_true"], _positive(d))),
    ("jaccard_score", "jaccard"): (_labels, lambda d: skm.jaccard_score(d["y_true"], d["y_pred"], average="macro")),
    ("log_loss", "log_loss"): (_scores, lambda d: skm.log_loss(d["y_true"], d["scores"])),
    ("matthews_corrcoef", "mcc"): (_labels, lambda d: skm.matthews_corrcoef(d["y_true"], d["y_pred"])),
    ("precision_recall_fscore_support", "precision"): (
        _labels, lambda d: skm.precision_recall_fscore_support(d["y_true"], d["y_pred"], average="macro")[0]),
    ("precision_recall_fscore_support", "recall"): (
        _labels, lambda d: skm.precision_recall_fscore_support(d["y_true"], d["y_pred"], average="macro")[1]),
    ("precision_recall_fscore_support", "f_beta"): (
        _labels, lambda d: skm.precision_recall_fscore_support(d["y_true"], d["y_pred"], average="macro")[2]),
    ("precision_score", "precision"): (_labels, lambda d: skm.precision_score(d["y_true"], d["y_pred"], average="macro")),
    ("recall_score", "recall"): (_labels, lambda d: skm.recall_score(d["y_true"], d["y_pred"], average="macro")),
    ("zero_one_loss", "error_rate"): (_labels, lambda d: skm.zero_one_loss(d["y_true"], d["y_pred"])),
    ("zero_one_loss", "misclassification_count"): (
        _labels, lambda d: skm.zero_one_loss(d["y_true"], d["y_pred"], normalize=False)),
    ("zero_one_loss", "subset_zero_one_loss"): (_indicators, lambda d: skm.zero_one_loss(d["y_true"], d["y_pred"])),
    ("average_precision_score", "average_precision"): (
        _scores, lambda d: skm.average_precision_score(np.eye(d["scores"].shape[1])[d["y_true"]], d["scores"])),
    ("average_precision_score", "samples_average_precision"): (
        _indicator_scores, lambda d: skm.average_precision_score(d["y_true"], d["scores"], average="samples")),
    ("coverage_error", "coverage_error"): (_indicator_scores, lambda d: skm.coverage_error(d["y_true"], d["scores"])),
    ("dcg_score", "dcg"): (_relevance, lambda d: skm.dcg_score(d["y_true"], d["scores"])),
    ("label_ranking_average_precision_score", "lrap"): (
        _indicator_scores, lambda d: skm.label_ranking_average_precision_score(d["y_true"], d["scores"])),
    ("label_ranking_loss", "label_ranking_loss"): (
        _indicator_scores, lambda d: skm.label_ranking_loss(d["y_true"], d["scores"])),
    ("ndcg_score", "ndcg"): (_relevance, lambda d: skm.ndcg_score(d["y_true"], d["scores"])),
    ("roc_auc_score", "roc_auc"): (_scores, lambda d: skm.roc_auc_score(d["y_true"], d["scores"], multi_class="ovr")),
    ("roc_auc_score", "au1u"): (_scores, lambda d: skm.roc_auc_score(d["y_true"], d["scores"], multi_class="ovo")),
    ("roc_auc_score", "ovo_weighted_roc_auc"): (
        _scores, lambda d: skm.roc_auc_score(d["y_true"], d["scores"], multi_class="ovo", average="weighted")),
    ("roc_auc_score", "samples_roc_auc"): (
        _indicator_scores, lambda d: skm.roc_auc_score(d["y_true"], d["scores"], average="samples")),
    ("roc_auc_score", "partial_roc_auc:binary"): (
        _binary_scores, lambda d: skm.roc_auc_score(d["y_true"], _positive(d), max_fpr=0.1)),
    ("top_k_accuracy_score", "top_k_accuracy"): (
        _scores, lambda d: skm.top_k_accuracy_score(d["y_true"], d["scores"], k=2, labels=range(d["scores"].shape[1]))),
    ("adjusted_rand_score", "adjusted_rand_index"): (_labels, lambda d: cluster.adjusted_rand_score(d["y_true"], d["y_pred"])),
    ("fowlkes_mallows_score", "fowlkes_mallows"): (
        _labels, lambda d: cluster.fowlkes_mallows_score(d["y_true"], d["y_pred"])),
}
# The calls pass the catalog's defaults where scikit-learn has none of its own or another one
# (partial_roc_auc's max_fpr = 0.1, top_k_accuracy's top = k = 2).


def _mappings():
    return [(n.name, entry) for n in TABLE.names if n.status == "covered" for entry in n.metrics]


def test_every_mapping_has_a_call():
    missing = sorted(set(_mappings()) - set(CALLS))
    assert not missing, f"audit/peers.yaml maps these without a call in CALLS: {missing}"
    assert not set(CALLS) - set(_mappings()), "CALLS holds mappings audit/peers.yaml no longer has"


def _ours(entry: str, data: dict) -> float:
    metric, params, average = peers.parse_entry(entry)
    multilabel = data["y_true"].ndim == 2 and "scores" not in data or (
        "scores" in data and data["y_true"].shape == data["scores"].shape)
    value = mc.evaluate(metric, **data, average=average, params=params,
                        multilabel=bool(multilabel))[metric]
    return float(value)


@pytest.mark.parametrize("mapping", _mappings(), ids=lambda m: f"{m[0]}={m[1]}")
def test_mapping_as_the_table_writes_it(mapping):
    draw, theirs = CALLS[mapping]
    rng = np.random.default_rng(sum(map(ord, "".join(mapping))))
    compared = 0
    for _ in range(DRAWS):
        data = draw(rng)
        expected = float(theirs(data))
        actual = _ours(mapping[1], data)
        if np.isnan(expected) and np.isnan(actual):
            continue
        assert actual == pytest.approx(expected, rel=RELATIVE, abs=1e-14), f"scikit-learn {mapping[0]} = {mapping[1]} on {data}"
        compared += 1
    assert compared >= DRAWS // 2, f"{mapping}: too few defined values compared"
