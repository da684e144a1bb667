"""TrainingMetric against torchmetrics' multiclass confusion matrix, F1 and accuracy on the same tensors.

Every class occurs in the data, so both define every per-class value; torchmetrics divides in
float32 (its ``_safe_divide``), hence the tolerance of a few float32 roundings.
"""

from __future__ import annotations

import numpy as np
import pytest

import metricc as mc

torch = pytest.importorskip("torch")
classification = pytest.importorskip("torchmetrics.classification")

FLOAT32 = 1e-6


@pytest.mark.parametrize("seed", range(3))
def test_same_tensors_same_numbers(seed):
    generator = torch.Generator().manual_seed(seed)
    classes = 3 + seed * 2
    batches = [(torch.randint(0, classes, (n,), generator=generator), torch.randint(0, classes, (n,), generator=generator))
               for n in (50, 1, 200)]
    ours = mc.TrainingMetric(["f1:macro", "accuracy", "recall:macro"], classes=classes, zero_division=0)
    theirs = {
        "matrix": classification.MulticlassConfusionMatrix(num_classes=classes),
        "f1:macro": classification.MulticlassF1Score(num_classes=classes, average="macro"),
        "accuracy": classification.MulticlassAccuracy(num_classes=classes, average="micro"),
        "recall:macro": classification.MulticlassAccuracy(num_classes=classes, average="macro"),
    }
    for truth, predicted in batches:
        ours.update(truth, predicted)
        for peer in theirs.values():
            peer.update(predicted, truth)  # torchmetrics takes (preds, target)
    assert torch.equal(ours.counts, theirs["matrix"].compute())
    values = ours.compute()
    for entry in ("f1:macro", "accuracy", "recall:macro"):
        assert isinstance(values[entry], torch.Tensor)
        np.testing.assert_allclose(values[entry].item(), theirs[entry].compute().item(), rtol=FLOAT32)
