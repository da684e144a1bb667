"""``sweep``'s matrix-product form and lazy product grids: the same values as the formula
evaluated per vector, for every average, zero-division policy and weighting it applies to."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metricc.compiler.analysis import affine
from metricc.generated import CATALOG
from metricc.runtime.confusion import counts_from_matrix
from metricc.core.errors import InputError
from metricc.api.sweep import ProductGrid, product_grid, sweep

TABLE4 = np.array([[40, 7, 3], [8, 10, 2], [9, 1, 20]])  # Kozak et al. 2022, Table 4
sweep_module = importlib.import_module("metricc.api.sweep")  # the package attribute is the function
AFFINE = [(info.id, name) for info in CATALOG.values() for name in info.affine]


def test_the_compiler_marks_exactly_the_affine_parameters(compiled_metrics):
    assert AFFINE == [("preference_driven", "kappa")]
    for metric in compiled_metrics.values():
        assert CATALOG[metric.id].affine == metric.affine == affine.affine_params(metric)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), c=st.integers(2, 5), average=st.sampled_from(["binary", "macro", "weighted"]),
       zero_division=st.sampled_from([math.nan, 0.0, 1.0, "skip"]), weighted=st.booleans())
def test_matrix_product_form_equals_the_formula_per_vector(seed, c, average, zero_division, weighted):
    rng = np.random.default_rng(seed)
    matrices = rng.integers(0, 30, size=(3, c, c)) * (rng.random((3, c, c)) < 0.7)  # some classes undefined
    grid = rng.random((4, 5, c))
    grid[0, 0] = 0.0
    grid[0, 1] = 1.0
    kwargs = {"average": average, "zero_division": zero_division}
    if weighted and average == "weighted":
        kwargs["weights"] = rng.random(c) + 0.1
    if zero_division == "skip" and average == "binary":
        kwargs["zero_division"] = 0.0
    fast = sweep("preference_driven", matrix=matrices, grid=grid, **kwargs)
    direct = sweep("preference_driven", matrix=matrices, grid=grid, affine=False, **kwargs)
    both = np.isfinite(direct)
    np.testing.assert_array_equal(np.isnan(fast), np.isnan(direct))
    np.testing.assert_array_equal(fast[~both], direct[~both])
    # values in [0, 1]: the form's difference of values is within a few ulp of 1, absolutely
    np.testing.assert_allclose(fast[both], direct[both], rtol=1e-12, atol=(c + 2) * 2**-52)


def test_lazy_product_grid_equals_the_stored_grid():
    values = np.linspace(0, 1, 4)
    lazy, stored = product_grid(values, 3, lazy=True), product_grid(values, 3)
    assert isinstance(lazy, ProductGrid) and lazy.shape == stored.shape
    np.testing.assert_array_equal(lazy.rows(0, lazy.size), stored.reshape(-1, 3))
    matrices = np.stack([TABLE4, TABLE4.T])
    for form in (True, False):
        for average in ("macro", "none"):
            np.testing.assert_allclose(sweep("preference_driven", matrix=matrices, grid=lazy, average=average, affine=form),
                                       sweep("preference_driven", matrix=matrices, grid=stored, average=average, affine=False),
                                       rtol=1e-12, atol=5 * 2**-52)


def test_lazy_grid_is_read_in_chunks(monkeypatch):
    lazy = product_grid([0.0, 0.3, 1.0], 3, lazy=True)
    whole = sweep("preference_driven", matrix=TABLE4, grid=lazy, affine=False)
    monkeypatch.setattr(sweep_module, "CHUNK_ELEMENTS", 7)
    np.testing.assert_array_equal(sweep("preference_driven", matrix=TABLE4, grid=lazy, affine=False), whole)


def test_a_product_grid_larger_than_memory_is_never_stored():
    """2**24 vectors of 24 classes: 3 GiB as an array (refused), 128 MiB of results."""
    c = 24
    with pytest.raises(InputError, match="^n_classes: "):
        product_grid([0.0, 1.0], c)
    matrix = np.random.default_rng(0).integers(0, 50, size=(c, c)) + 200 * np.eye(c, dtype=int)
    values = sweep("preference_driven", matrix=matrix, grid=product_grid([0.0, 1.0], c, lazy=True))
    assert values.shape == (2,) * c
    counts = counts_from_matrix(matrix)
    lazy = product_grid([0.0, 1.0], c, lazy=True)
    for index in (0, 1, 12345, 2**23 + 77, 2**24 - 1):
        kappa = lazy.rows(index, index + 1)[0]
        expected = CATALOG["preference_driven"].function(*counts, kappa=kappa)
        assert values.reshape(-1)[index] == pytest.approx(expected, rel=1e-12, abs=(c + 2) * 2**-52)


def test_out_of_domain_values_are_named_through_the_direct_path():
    with pytest.raises(InputError, match=r"^grid: grid\[0, 0, 1\] = \[0, 0, 1.5\] is outside the domain of 'kappa'"):
        sweep("preference_driven", matrix=TABLE4, grid=product_grid([0.0, 1.5], 3, lazy=True))
    with pytest.raises(InputError, match=r"^grid: a product grid holds class vectors"):
        sweep("f_beta", matrix=TABLE4, param="beta", grid=product_grid([1.0, 2.0], 3, lazy=True))
    with pytest.raises(InputError, match=r"^grid: the product grid has vectors of 4 classes, the data 3"):
        sweep("preference_driven", matrix=TABLE4, grid=product_grid([0.0, 1.0], 4, lazy=True))
    with pytest.raises(InputError, match=r"^grid: .* above the limit"):
        sweep("preference_driven", matrix=np.eye(30, dtype=int) + 1, grid=product_grid([0.0, 1.0], 30, lazy=True))


def test_a_stored_grid_is_checked_and_multiplied_block_by_block(monkeypatch):
    # Blocks of 3 vectors: the same values as one product, and a bad value in the last block
    # is still found (NaN refused, a value outside the domain named by the direct path).
    monkeypatch.setattr(sweep_module, "AFFINE_ROWS", 3)
    grid = np.random.default_rng(4).random((2, 5, 3))
    matrices = np.stack([TABLE4, TABLE4.T + 1])
    blocked = sweep("preference_driven", matrix=matrices, grid=grid, average="weighted")
    monkeypatch.setattr(sweep_module, "AFFINE_ROWS", 1 << 12)
    assert np.array_equal(blocked, sweep("preference_driven", matrix=matrices, grid=grid, average="weighted"))
    monkeypatch.setattr(sweep_module, "AFFINE_ROWS", 3)
    grid[1, 4, 2] = np.nan
    with pytest.raises(InputError, match="^grid: contains NaN or infinity"):
        sweep("preference_driven", matrix=TABLE4, grid=grid)
    grid[1, 4, 2] = 1.25
    with pytest.raises(InputError, match=r"^grid: grid\[1, 4\] = \[.*, 1.25\] is outside the domain of 'kappa'"):
        sweep("preference_driven", matrix=TABLE4, grid=grid)
    with pytest.raises(InputError, match="^grid: contains NaN or infinity"):
        sweep("f_beta", matrix=TABLE4, param="beta", grid=[1.0, np.inf])


@pytest.mark.parametrize("flat", [False, True])
def test_a_grid_product_grid_made_is_not_read_again_to_check_it(monkeypatch, flat):
    # Its extremes are the checked axis's; a copy is read and checked, and gives the same values.
    made = product_grid([0.0, 0.25, 1.0], 3, flat=flat)
    assert not made.flags.writeable
    matrices = np.stack([TABLE4, TABLE4.T + 1])
    expected = sweep("preference_driven", matrix=matrices, grid=np.array(made), average="weighted")
    monkeypatch.setattr(sweep_module, "extremes", lambda array: pytest.fail("a made grid was read to check it"))
    monkeypatch.setattr(sweep_module, "within_unit_interval", lambda block: pytest.fail("a made grid was checked"))
    assert np.array_equal(sweep("preference_driven", matrix=matrices, grid=made, average="weighted"), expected)
    outside = product_grid([0.0, 1.5], 3, flat=flat)  # known extremes outside the domain: the direct path names it
    monkeypatch.undo()
    with pytest.raises(InputError, match=r"^grid: grid\[.*\] = \[0, 0, 1.5\] is outside the domain of 'kappa'"):
        sweep("preference_driven", matrix=TABLE4, grid=outside)


def test_a_made_grid_cannot_be_changed_and_a_changed_copy_is_checked():
    made = product_grid([0.0, 1.0], 3, flat=True)
    with pytest.raises(ValueError, match="read-only"):
        made[0, 0] = 2.0
    with pytest.raises(ValueError, match="WRITEABLE"):
        made.flags.writeable = True
    copy = np.array(made)
    copy[7, 2] = 2.0
    with pytest.raises(InputError, match=r"^grid: grid\[7\] = \[1, 1, 2\] is outside the domain of 'kappa'"):
        sweep("preference_driven", matrix=TABLE4, grid=copy)
