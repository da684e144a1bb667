"""Score-level rows of ``speed.py`` (issue 31): one row per family of score metrics, metricc
against the shortest hand-written numpy form and scikit-learn where installed, with peak memory.

Not a test: ``speed.py --only scores`` runs these beside the AUC rows.
"""

from __future__ import annotations

import importlib.util

import numpy as np

import metricc.api as mc


def hand_log_loss(y, proba):
    return -np.mean(np.log(proba[np.arange(len(y)), y]))


def hand_top_k(y, scores, k=2):
    return np.mean((np.argpartition(scores, -k, axis=1)[:, -k:] == y[:, None]).any(axis=1))


def hand_brier(y, proba):
    truth = np.zeros_like(proba)
    truth[np.arange(len(y)), y] = 1.0
    return np.mean(((proba - truth) ** 2).sum(axis=1))


def hand_hinge(y, scores):
    """Crammer-Singer: the true class's score against the best other class's."""
    rows = np.arange(len(y))
    true = scores[rows, y]
    others = scores.copy()
    others[rows, y] = -np.inf
    return np.mean(np.maximum(0.0, 1.0 - true + others.max(axis=1)))


def hand_binary_hinge(y, scores):
    """Class 1's decision value against the rest: y = +1 for class 1, -1 otherwise."""
    return np.mean(np.maximum(0.0, 1.0 - np.where(y == 1, 1.0, -1.0) * scores[:, 1]))


def hand_one_vs_all_hinge(y, scores):
    """Each class's binary hinge against the rest, one value per class."""
    sign = np.full(scores.shape, -1.0)
    sign[np.arange(len(y)), y] = 1.0
    return np.mean(np.maximum(0.0, 1.0 - sign * scores), axis=0)


def _sklearn_rows(y, proba):
    from sklearn import metrics as skm

    labels = np.arange(proba.shape[1])
    return {"log_loss": lambda: skm.log_loss(y, proba, labels=labels),
            "top_k_accuracy": lambda: skm.top_k_accuracy_score(y, proba, k=2, labels=labels),
            "hinge_loss": lambda: skm.hinge_loss(y, proba, labels=labels)}


def family_rows(table, n, rng, peers, tools, widths=(10, 30)) -> None:
    """log loss, top-k accuracy, Brier score and the hinge losses (multi-class, class 1 against
    the rest, one-vs-all) on ``n`` x C scores for each C of ``widths`` (wide rows: the checks
    read n x C where most references read n), then :func:`ranking_rows`; ``tools``: speed.py's
    ``(median_time, peak_mib, repeat)``."""
    median_time, peak_mib, repeat = tools
    hands = {"log_loss": hand_log_loss, "top_k_accuracy": hand_top_k, "brier_score": hand_brier,
             "hinge_loss": hand_hinge, "binary_hinge_loss": hand_binary_hinge,
             "one_vs_all_hinge_loss": hand_one_vs_all_hinge}
    for c in widths:
        proba = rng.dirichlet(np.full(c, 0.5), size=n)
        y = rng.integers(0, c, n)
        sklearn = _sklearn_rows(y, proba) if peers["sklearn"] else {}
        for metric, hand in hands.items():
            function = mc.metric(metric).function
            ours = function(y, proba)
            assert np.all(np.abs(ours - hand(y, proba)) <= 1e-12 * np.maximum(1.0, np.abs(ours))), metric
            peer = (median_time(sklearn[metric], repeat), False) if metric in sklearn else ""
            table.add(f"`{metric}`, N = {n:.0e}, C = {c}", lambda: hand(y, proba), lambda: function(y, proba), peer,
                      memory=(peak_mib(lambda: function(y, proba)), peak_mib(lambda: hand(y, proba))))
    ranking_rows(table, n, rng, peers, tools)


def ranking_rows(table, n, rng, peers, tools) -> None:
    """Multi-label ranking (coverage error, label ranking loss), average precision and NDCG on
    ``n`` x 5 scores; the target is scikit-learn (there is no shorter numpy form)."""
    if not peers["sklearn"]:
        return
    from sklearn import metrics as skm

    _, peak_mib, _ = tools
    c = 5
    scores = rng.random((n, c)).round(3)
    indicators = (rng.random((n, c)) < 0.4).astype(int)
    indicators[indicators.sum(axis=1) == 0, 0] = 1
    y = rng.integers(0, c, n)
    one_hot = np.eye(c, dtype=int)[y]
    relevance = rng.integers(0, 4, (n, c))
    rows = {"coverage_error": (lambda: skm.coverage_error(indicators, scores),
                               lambda: mc.evaluate("coverage_error", y_true=indicators, scores=scores, multilabel=True)),
            "label_ranking_loss": (lambda: skm.label_ranking_loss(indicators, scores),
                                   lambda: mc.evaluate("label_ranking_loss", y_true=indicators, scores=scores,
                                                       multilabel=True)),
            "average_precision": (lambda: skm.average_precision_score(one_hot, scores, average="macro"),
                                  lambda: mc.evaluate("average_precision", y_true=y, scores=scores, average="macro")),
            "ndcg": (lambda: skm.ndcg_score(relevance, scores),
                     lambda: mc.evaluate("ndcg", y_true=relevance, scores=scores, multilabel=True))}
    if n > 10 ** 5:  # scikit-learn loops over the rows in Python there: 13 s and 25 s a call at 1e6
        del rows["label_ranking_loss"], rows["ndcg"]
    for metric, (peer, ours) in rows.items():
        value = ours()[metric]
        assert abs(value - peer()) <= 1e-12 * max(1.0, abs(value)), metric
        table.add(f"`{metric}`, N = {n:.0e}, C = {c}; target: sklearn", peer, ours,
                  memory=(peak_mib(ours), peak_mib(peer)))


def hand_ece(y, proba, bins=15):
    """Expected calibration error as users write it: top-label confidence, np.digitize into
    equal-width bins (a confidence of 1 in a bin of its own), per-bin sums by np.bincount."""
    confidence, predicted = proba.max(axis=1), proba.argmax(axis=1)
    which = np.digitize(confidence, np.arange(1, bins + 1) / bins)
    gaps = np.bincount(which, weights=(predicted == y) - confidence, minlength=bins + 1)
    return np.abs(gaps).sum() / len(y)


def calibration_row(table, n, rng, tools) -> None:
    """``calibration_error`` (a sum over pairs of samples in the same bin, grouped by the
    emitter) at n x 10 against :func:`hand_ece`, and torchmetrics where installed;
    ``tools``: speed.py's ``(median_time, peak_mib, repeat)``."""
    median_time, peak_mib, repeat = tools
    c = 10
    proba = rng.dirichlet(np.full(c, 0.3), size=n)
    y = np.where(rng.random(n) < 0.7, proba.argmax(axis=1), rng.integers(0, c, n))
    ours = mc.evaluate("calibration_error", y_true=y, scores=proba)["calibration_error"]
    assert abs(ours - hand_ece(y, proba)) <= 1e-12 * max(1.0, abs(ours))
    peer = ""
    if importlib.util.find_spec("torchmetrics") is not None:
        import torch
        from torchmetrics.functional.classification import multiclass_calibration_error

        tp, ty = torch.tensor(proba), torch.tensor(y)
        seconds = median_time(lambda: multiclass_calibration_error(tp, ty, num_classes=c, n_bins=15), repeat)
        peer = f"; torchmetrics {seconds * 1e3:.1f} ms"
    table.add(f"`calibration_error` (ECE, 15 bins), N = {n:.0e}, C = {c}{peer}", lambda: hand_ece(y, proba),
              lambda: mc.evaluate("calibration_error", y_true=y, scores=proba),
              memory=(peak_mib(lambda: mc.evaluate("calibration_error", y_true=y, scores=proba)),
                      peak_mib(lambda: hand_ece(y, proba))))
