"""Score and curve metrics on torch tensors against torchmetrics' functions on the same tensors.

The families torchmetrics 1.9 has: AUROC, average precision, calibration error (l1 and max
norms) and hinge loss (binary, Crammer-Singer, one-vs-all); it has no log loss or Brier score.
Scores are a softmax of normal draws in float64 (no ties at the top), so both sides read the
same bins and thresholds; torchmetrics rounds some steps to float32, hence the tolerance.
"""

from __future__ import annotations

import numpy as np
import pytest

import metricc as mc
from metricc.generated.arrays import FUNCTIONS

torch = pytest.importorskip("torch")
functional = pytest.importorskip("torchmetrics.functional.classification")

FLOAT32 = 1e-5


def _data(seed: int, classes: int, n: int = 400):
    generator = torch.Generator().manual_seed(seed)
    scores = torch.softmax(torch.randn(n, classes, generator=generator, dtype=torch.float64) * 2, dim=1)
    return torch.randint(0, classes, (n,), generator=generator), scores


def _same(ours, theirs) -> None:
    assert isinstance(ours, torch.Tensor)
    np.testing.assert_allclose(ours.numpy(), theirs.double().numpy(), rtol=FLOAT32, atol=FLOAT32)


@pytest.mark.parametrize("seed", range(3))
def test_auroc_and_average_precision(seed):
    classes = 3 + seed
    target, preds = _data(seed, classes)
    for average in ("macro", "weighted", "none"):
        values = mc.evaluate([f"roc_auc:{average}", f"average_precision:{average}"], y_true=target, scores=preds)
        _same(values[f"roc_auc:{average}"], functional.multiclass_auroc(preds, target, classes, average=average))
        _same(values[f"average_precision:{average}"],
              functional.multiclass_average_precision(preds, target, classes, average=average))
    binary = (target == 0).long()
    _same(FUNCTIONS["roc_auc"](binary, preds[:, 0], average="binary"), functional.binary_auroc(preds[:, 0], binary))
    _same(FUNCTIONS["average_precision"](binary, preds[:, 0], average="binary"),
          functional.binary_average_precision(preds[:, 0], binary))


@pytest.mark.parametrize("seed", range(3))
def test_calibration_error(seed):
    classes = 2 + seed
    target, preds = _data(seed, classes)
    for bins in (5, 15):
        values = mc.evaluate(["calibration_error", "max_calibration_error"], y_true=target, scores=preds,
                             params={"bins": float(bins)})
        _same(values["calibration_error"], functional.multiclass_calibration_error(preds, target, classes, n_bins=bins))
        _same(values["max_calibration_error"],
              functional.multiclass_calibration_error(preds, target, classes, n_bins=bins, norm="max"))
    binary = (target == 1).long()
    _same(FUNCTIONS["binary_calibration_error"](binary, preds[:, 1], bins=10.0),
          functional.binary_calibration_error(preds[:, 1], binary, n_bins=10))


@pytest.mark.parametrize("seed", range(3))
def test_hinge_losses(seed):
    classes = 3 + seed
    target, preds = _data(seed, classes)
    for power, squared in ((1.0, False), (2.0, True)):
        _same(FUNCTIONS["hinge_loss"](target, preds, power=power),
              functional.multiclass_hinge_loss(preds, target, classes, squared=squared))
        _same(FUNCTIONS["one_vs_all_hinge_loss"](target, preds, power=power, average="none"),
              functional.multiclass_hinge_loss(preds, target, classes, squared=squared, multiclass_mode="one-vs-all"))
        binary = (target == 1).long()
        _same(FUNCTIONS["binary_hinge_loss"](binary, preds[:, 1], power=power),
              functional.binary_hinge_loss(preds[:, 1], binary, squared=squared))
