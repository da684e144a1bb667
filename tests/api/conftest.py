"""The reference the delta-method tests share: the standard error from finite differences."""

from __future__ import annotations

import numpy as np
import pytest


def _finite_difference_se(value, matrix, step=1e-3):
    """``sqrt(sum M (G - Gbar)**2)`` of each entry of ``value(matrix)``, with ``G`` by
    Richardson-extrapolated central differences over the occupied cells (an empty cell has
    probability 0 and is never moved)."""
    matrix = np.asarray(matrix, dtype=float)
    at = lambda m: np.asarray(value(m), dtype=float)  # noqa: E731
    gradient = np.zeros(at(matrix).shape + matrix.shape)
    for i, j in zip(*np.nonzero(matrix)):
        def central(h):
            shift = np.zeros_like(matrix)
            shift[i, j] = h
            return (at(matrix + shift) - at(matrix - shift)) / (2 * h)
        gradient[..., i, j] = (4 * central(step / 2) - central(step)) / 3
    mean = np.sum(matrix * gradient, axis=(-2, -1), keepdims=True) / matrix.sum()
    return np.sqrt(np.sum(matrix * (gradient - mean) ** 2, axis=(-2, -1)))


@pytest.fixture(scope="session")
def finite_difference_se():
    """``finite_difference_se(value, matrix, step=1e-3)``: see :func:`_finite_difference_se`."""
    return _finite_difference_se
