"""Each torchmetrics comparison twice: metricc on numpy arrays, and metricc on the very tensors
torchmetrics reads (computed by torch where metricc has the metric's array module, which is
every metric of the catalog but two: a tensor must come back)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

ARRAYS = ("y_true", "y_pred", "scores")
STATE = {"tensors": False}


@pytest.fixture(autouse=True, params=["numpy", "tensors"])
def given_as(request):
    STATE["tensors"] = request.param == "tensors"
    yield
    STATE["tensors"] = False


def inputs(kwargs: dict) -> dict:
    """``kwargs`` with the arrays as tensors when the tensor pass runs."""
    if not STATE["tensors"]:
        return kwargs
    return {k: torch.tensor(np.asarray(v)) if k in ARRAYS else v for k, v in kwargs.items()}


def value(metric: str, result) -> np.ndarray:
    """A value as float64 numpy; in the tensor pass it must be a tensor."""
    if STATE["tensors"]:
        assert isinstance(result, torch.Tensor), f"{metric} on tensors gave {type(result).__name__}"
        return np.asarray(result.numpy(), dtype=float)
    return np.asarray(result, dtype=float)
