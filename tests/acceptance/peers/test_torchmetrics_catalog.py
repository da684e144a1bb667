"""The catalog against torchmetrics' classification metrics that it shares.

torchmetrics (CPU, float64 default dtype) on random multiclass labels, multilabel indicator
matrices and score matrices; metricc with ``zero_division=0``, torchmetrics' default. Where
the two define or reduce differently the test pins which number each gives, and
docs/differences.md says why metricc does what it does.

Each comparison runs twice: metricc on numpy arrays, and metricc on the same tensors that
torchmetrics reads (then computed by torch, as a training loop would).

At 1e-12 where torchmetrics computes in float64 (F-scores, AUROC, average precision). Most of
its label metrics divide in float32 whatever the default dtype (``_safe_divide`` and the
confusion matrices call ``.float()``; weighted AUROC's class weights too): there the values
are compared at :data:`FLOAT32` and the counts they come from exactly
(``test_counts_equal_stat_scores``).
"""

from __future__ import annotations

import numpy as np
import pytest

import metricc as mc
from tests.acceptance.peers import on_tensors
from tests.acceptance.peers.on_tensors import given_as  # noqa: F401 - every test runs on numpy and on tensors

torch = pytest.importorskip("torch")
tmf = pytest.importorskip("torchmetrics.functional.classification")

RTOL = 1e-12
FLOAT32 = 1e-6  # a few float32 roundings (2**-24 each) of torchmetrics' own

# torchmetrics name -> (metricc id, parameters) for the set-wise metrics of labels.
SET_WISE = {
    "precision": ("precision", {}), "recall": ("recall", {}), "f1_score": ("f1", {}),
    "fbeta_score": ("f_beta", {"beta": 2.0}), "specificity": ("specificity", {}),
    "negative_predictive_value": ("npv", {}), "jaccard_index": ("jaccard", {}),
}
IN_FLOAT64 = {"f1_score", "fbeta_score"}  # (1 + beta**2) * tp is a float64 tensor there


@pytest.fixture(autouse=True, scope="module")
def float64_default():
    saved = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    yield
    torch.set_default_dtype(saved)


def _labels(count: int, seed: int, every_class: bool = True):
    """(C, y_true, y_pred): 2 to 5 classes, 5 to 60 samples; every class occurs in y_true
    unless ``every_class`` is False (then some are absent from both now and then)."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        c, n = int(rng.integers(2, 6)), int(rng.integers(5, 61))
        y_true, y_pred = rng.integers(0, c, n), rng.integers(0, c, n)
        if every_class:
            y_true[:c] = np.arange(c)
        else:
            y_true[y_true == c - 1] = 0
            y_pred[y_pred == c - 1] = 0
        yield c, y_true, y_pred


def _indicators(count: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        c, n = int(rng.integers(2, 6)), int(rng.integers(4, 40))
        yield c, rng.integers(0, 2, (n, c)), rng.integers(0, 2, (n, c))


def _scored(count: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        c, n = int(rng.integers(3, 6)), int(rng.integers(10, 60))
        y = rng.integers(0, c, n)
        y[:c] = np.arange(c)
        weights = rng.integers(0, 5, (n, c)).astype(float)
        weights[weights.sum(axis=1) == 0, 0] = 1
        yield c, y, weights / weights.sum(axis=1, keepdims=True)


def _t(array) -> torch.Tensor:
    return torch.tensor(np.asarray(array))


def _ours(metric: str, average: str | None = None, **kwargs) -> np.ndarray:
    params = kwargs.pop("params", None)
    return on_tensors.value(metric, mc.evaluate(metric, average=average, params=params, zero_division=0,
                                                **on_tensors.inputs(kwargs))[metric])


def _close(ours, theirs, what: str, rtol: float = RTOL) -> None:
    """Within ``rtol``; float32 values also within ``rtol`` absolute (MCC and kappa near 0 cancel)."""
    atol = rtol if rtol == FLOAT32 else 1e-15
    np.testing.assert_allclose(ours, np.asarray(theirs, dtype=float), rtol=rtol, atol=atol, err_msg=what)


def test_counts_equal_stat_scores():
    """The counts every label metric starts from, exactly: torchmetrics' stat scores
    (TP, FP, TN, FN, support) per class and per label."""
    for c, y_true, y_pred in _labels(20, seed=1):
        theirs = tmf.multiclass_stat_scores(_t(y_pred), _t(y_true), c, average="none").numpy()
        tp, fp, fn, tn = mc.counts_from_matrix(mc.confusion_matrix(y_true, y_pred, labels=list(range(c))))
        np.testing.assert_array_equal(np.stack([tp, fp, tn, fn, tp + fn], axis=-1), theirs)
    for c, y_true, y_pred in _indicators(20, seed=2):
        theirs = tmf.multilabel_stat_scores(_t(y_pred), _t(y_true), c, average="none").numpy()
        tp, fp, fn, tn = mc.multilabel_counts(y_true, y_pred)
        np.testing.assert_array_equal(np.stack([tp, fp, tn, fn, tp + fn], axis=-1), theirs)


@pytest.mark.parametrize("name", sorted(SET_WISE))
@pytest.mark.parametrize("average", ["none", "micro", "macro", "weighted"])
def test_multiclass_set_wise_metrics(name, average):
    metric, params = SET_WISE[name]
    rtol = RTOL if name in IN_FLOAT64 else FLOAT32
    for c, y_true, y_pred in _labels(15, seed=sum(map(ord, name + average))):
        theirs = getattr(tmf, f"multiclass_{name}")(_t(y_pred), _t(y_true), num_classes=c, average=average, **params).numpy()
        ours = _ours(metric, average, y_true=y_true, y_pred=y_pred, labels=list(range(c)), params=params)
        _close(ours, theirs, f"{name} {average} on {y_true.tolist()}, {y_pred.tolist()}", rtol)


@pytest.mark.parametrize("name", sorted(SET_WISE))
@pytest.mark.parametrize("average", ["none", "micro", "macro", "weighted"])
def test_multilabel_set_wise_metrics(name, average):
    metric, params = SET_WISE[name]
    rtol = RTOL if name in IN_FLOAT64 else FLOAT32
    for c, y_true, y_pred in _indicators(15, seed=sum(map(ord, name + average)) + 1):
        theirs = getattr(tmf, f"multilabel_{name}")(_t(y_pred), _t(y_true), num_labels=c, average=average, **params).numpy()
        ours = _ours(metric, average, y_true=y_true, y_pred=y_pred, multilabel=True, params=params)
        _close(ours, theirs, f"{name} {average} on {y_true.tolist()}, {y_pred.tolist()}", rtol)


@pytest.mark.parametrize("name", sorted(SET_WISE))
def test_binary_set_wise_metrics(name):
    metric, params = SET_WISE[name]
    rtol = RTOL if name in IN_FLOAT64 else FLOAT32
    for _, y_true, y_pred in _labels(30, seed=sum(map(ord, name)) + 2):
        y_true, y_pred = y_true % 2, y_pred % 2
        theirs = getattr(tmf, f"binary_{name}")(_t(y_pred), _t(y_true), **params).item()
        ours = _ours(metric, "binary", y_true=y_true, y_pred=y_pred, labels=[0, 1], params=params)
        _close(ours, theirs, f"{name} on {y_true.tolist()}, {y_pred.tolist()}", rtol)


def test_accuracy_and_its_averages():
    """torchmetrics' multiclass accuracy: ``micro`` is metricc's ``accuracy``; its default
    ``macro`` is the mean recall (``balanced_accuracy``), and per class it is each class's
    recall, not metricc's ``class_accuracy`` ((TP + TN) / n)."""
    for c, y_true, y_pred in _labels(20, seed=3):
        p, t = _t(y_pred), _t(y_true)
        _close(_ours("accuracy", y_true=y_true, y_pred=y_pred, labels=list(range(c))),
               tmf.multiclass_accuracy(p, t, c, average="micro").item(), "micro", FLOAT32)
        _close(_ours("balanced_accuracy", y_true=y_true, y_pred=y_pred, labels=list(range(c))),
               tmf.multiclass_accuracy(p, t, c).item(), "macro (default)", FLOAT32)
        _close(_ours("recall", "none", y_true=y_true, y_pred=y_pred, labels=list(range(c))),
               tmf.multiclass_accuracy(p, t, c, average="none").numpy(), "none", FLOAT32)
        _close(_ours("accuracy", y_true=y_true % 2, y_pred=y_pred % 2, labels=[0, 1]),
               tmf.binary_accuracy(_t(y_pred % 2), _t(y_true % 2)).item(), "binary", FLOAT32)


def test_multilabel_accuracy_is_class_accuracy():
    """On indicator matrices torchmetrics' accuracy is per label (TP + TN) / n: metricc's
    ``class_accuracy``; its ``micro`` pools the labels, one minus the Hamming loss."""
    for c, y_true, y_pred in _indicators(20, seed=4):
        p, t = _t(y_pred), _t(y_true)
        for average in ("none", "macro", "micro", "weighted"):
            _close(_ours("class_accuracy", average, y_true=y_true, y_pred=y_pred, multilabel=True),
                   tmf.multilabel_accuracy(p, t, c, average=average).numpy(), average, FLOAT32)


def test_hamming_distance_is_a_rate_in_torchmetrics():
    """torchmetrics' ``hamming_distance`` is a share of wrong labels: metricc's
    ``hamming_loss`` (multilabel) and ``error_rate`` (multiclass micro); metricc's
    ``hamming_distance`` is PyCM's count FP + FN per class."""
    for c, y_true, y_pred in _indicators(20, seed=5):
        p, t = _t(y_pred), _t(y_true)
        for average in ("micro", "macro"):
            _close(_ours("hamming_loss", average, y_true=y_true, y_pred=y_pred, multilabel=True),
                   tmf.multilabel_hamming_distance(p, t, c, average=average).item(), average, FLOAT32)
        counts = _ours("hamming_distance", "none", y_true=y_true, y_pred=y_pred, multilabel=True)
        _close(counts / len(y_true), tmf.multilabel_hamming_distance(p, t, c, average="none").numpy(), "none", FLOAT32)
    for c, y_true, y_pred in _labels(20, seed=6):
        _close(_ours("error_rate", y_true=y_true, y_pred=y_pred, labels=list(range(c))),
               tmf.multiclass_hamming_distance(_t(y_pred), _t(y_true), c, average="micro").item(), "multiclass", FLOAT32)


def test_exact_match():
    for c, y_true, y_pred in _indicators(20, seed=7):
        y_pred[::3] = y_true[::3]  # some rows right
        _close(_ours("exact_match_ratio", "samples", y_true=y_true, y_pred=y_pred, multilabel=True),
               tmf.multilabel_exact_match(_t(y_pred), _t(y_true), c).item(), "exact match", FLOAT32)


def test_mcc_and_cohen_kappa():
    for c, y_true, y_pred in _labels(30, seed=8):
        p, t = _t(y_pred), _t(y_true)
        _close(_ours("mcc", y_true=y_true, y_pred=y_pred, labels=list(range(c))),
               tmf.multiclass_matthews_corrcoef(p, t, c).item(), "mcc", FLOAT32)
        _close(_ours("cohen_kappa", y_true=y_true, y_pred=y_pred, labels=list(range(c))),
               tmf.multiclass_cohen_kappa(p, t, c).item(), "kappa", FLOAT32)
        _close(_ours("mcc_per_class", "binary", y_true=y_true % 2, y_pred=y_pred % 2, labels=[0, 1]),
               tmf.binary_matthews_corrcoef(_t(y_pred % 2), _t(y_true % 2)).item(), "binary mcc", FLOAT32)


@pytest.mark.parametrize("metric, name", [("roc_auc", "auroc"), ("average_precision", "average_precision")])
def test_curve_metrics(metric, name):
    for c, y, scores in _scored(12, seed=9):
        s, t = _t(scores), _t(y)
        for average in ("none", "macro", "weighted"):  # torchmetrics' class weights: float32
            _close(_ours(metric, average, y_true=y, scores=scores),
                   getattr(tmf, f"multiclass_{name}")(s, t, c, average=average).numpy(), f"{metric} {average}",
                   FLOAT32 if average == "weighted" else RTOL)
        # metricc's micro: one curve over every (sample, class) pair of the one-hot truth.
        _close(_ours(metric, "micro", y_true=y, scores=scores),
               getattr(tmf, f"multilabel_{name}")(s, _t(np.eye(c, dtype=int)[y]), c, average="micro").item(), "micro")
        binary = (y == 1).astype(int)
        _close(_ours(metric, "binary", y_true=binary, scores=scores[:, 1]),
               getattr(tmf, f"binary_{name}")(s[:, 1], _t(binary)).item(), "binary")


# ---------------------------------------------------------------- pinned differences

def test_macro_leaves_out_classes_absent_from_both_in_torchmetrics():
    """A class in neither y_true nor y_pred (C = 3, class 2 unseen): torchmetrics' macro mean
    runs over the other classes; metricc's over every class of ``labels``, the unseen one's
    undefined precision counting as ``zero_division``."""
    y_true, y_pred = np.array([0, 0, 1, 1, 1]), np.array([0, 1, 1, 1, 0])
    theirs = tmf.multiclass_precision(_t(y_pred), _t(y_true), 3, average="macro").item()
    assert theirs == pytest.approx((1 / 2 + 2 / 3) / 2, rel=FLOAT32)
    assert _ours("precision", "macro", y_true=y_true, y_pred=y_pred, labels=[0, 1, 2]) == pytest.approx((1 / 2 + 2 / 3) / 3, rel=RTOL)
    # Without the unseen class in labels= the two agree.
    assert _ours("precision", "macro", y_true=y_true, y_pred=y_pred, labels=[0, 1]) == pytest.approx(theirs, rel=FLOAT32)


def test_undefined_mcc_is_0_in_torchmetrics():
    """Every prediction the same class: MCC is 0/0. torchmetrics returns 0 (as scikit-learn),
    metricc NaN (or ``zero_division``)."""
    y_true, y_pred = np.array([0, 1, 2, 1]), np.array([1, 1, 1, 1])
    assert tmf.multiclass_matthews_corrcoef(_t(y_pred), _t(y_true), 3).item() == 0
    assert np.isnan(mc.evaluate("mcc", y_true=y_true, y_pred=y_pred, labels=[0, 1, 2])["mcc"])
