"""The array modules differentiate in soft counts: torch's and JAX's gradients of a metric of the
probabilistic confusion matrix equal the compiler's delta-method derivatives (each module's
``gradient``), and a soft-F1 loss trains."""

from __future__ import annotations

import numpy as np
import pytest

import metricc as mc
from metricc.api.evaluate_arrays import values_of_counts
from metricc.runtime import gradient, xp_kernel

ENTRIES = ["f1:macro", "f1:weighted", "precision:micro", "recall:macro", "jaccard:macro", "mcc", "cohen_kappa",
           "accuracy"]


def _soft_matrix(seed: int = 0, n: int = 60, classes: int = 4) -> np.ndarray:
    """``M[i, j] = sum over samples of [y = i] * P(j)``: the probabilistic confusion matrix."""
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, classes))
    probabilities = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    truth = np.eye(classes)[rng.integers(0, classes, n)]
    return truth.T @ probabilities


def _delta_derivatives(entry: str, matrix: np.ndarray) -> np.ndarray:
    """dF/dM over the cells from the generated numpy module's ``gradient`` (the delta stage's partials)."""
    info = mc.metric(entry.split(":")[0])
    if info.takes == "matrix":
        return info.gradient(matrix)
    counts = xp_kernel.class_counts(matrix)
    return gradient.cell_gradient(info.gradient(*counts, average=entry.split(":")[1]))


@pytest.mark.parametrize("entry", ENTRIES)
def test_torch_gradients_equal_the_delta_derivatives(entry):
    torch = pytest.importorskip("torch")
    matrix = _soft_matrix()
    cells = torch.tensor(matrix, dtype=torch.float64, requires_grad=True)
    value = values_of_counts([entry], mc.metric, matrix=cells)[entry]
    (found,) = torch.autograd.grad(value, cells)
    np.testing.assert_allclose(found.numpy(), _delta_derivatives(entry, matrix), rtol=1e-10, atol=1e-12)


def test_jax_gradient_equals_the_delta_derivatives():
    jax = pytest.importorskip("jax")
    matrix = _soft_matrix(1)

    def f1(cells):
        return values_of_counts(["f1:macro"], mc.metric, matrix=cells)["f1:macro"]

    found = jax.grad(f1)(jax.numpy.asarray(matrix, dtype=jax.numpy.float32))
    np.testing.assert_allclose(np.asarray(found), _delta_derivatives("f1:macro", matrix), rtol=1e-4, atol=1e-6)


def test_a_soft_f1_loss_trains():
    """Gradient descent on the logits through ``1 - f1:macro`` of the soft matrix raises F1."""
    torch = pytest.importorskip("torch")
    generator = torch.Generator().manual_seed(0)
    truth = torch.randint(0, 3, (90,), generator=generator)
    logits = torch.randn(90, 3, generator=generator, dtype=torch.float64, requires_grad=True)
    one_hot = torch.nn.functional.one_hot(truth, 3).to(torch.float64)

    def soft_f1():
        cells = one_hot.T @ torch.softmax(logits, dim=1)
        return values_of_counts(["f1:macro"], mc.metric, matrix=cells)["f1:macro"]

    start = float(soft_f1().detach())
    optimizer = torch.optim.SGD([logits], lr=50.0)
    for _ in range(20):
        optimizer.zero_grad()
        (1 - soft_f1()).backward()
        optimizer.step()
    assert float(soft_f1().detach()) > start + 0.2
