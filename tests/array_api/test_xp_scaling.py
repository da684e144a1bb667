"""Subnormal weighted matrices on the array path (issue 30): every count-level metric whose value
does not change when the matrix is scaled gives, in each namespace, the same value for the
matrix times 2**-1060 (runtime/xp_kernel.rescaled_matrix, rescaled_counts; the numpy sweep is
tests/generated/test_scale_free.py).

Which metrics are so is read off numpy's values (the matrix times 2**-20), not taken from the
compiler's proof, so a metric the proof misses fails too.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import metricc as mc
from metricc.api.evaluate_arrays import values_of_counts
from metricc.core.errors import InputError
from metricc.generated import CATALOG
from metricc.runtime import xp_kernel
from metricc.runtime.namespace import to_host

from tests.array_api.namespaces import load, put

# Dyadic weights: multiplied by 2**-1060 they are subnormal numbers, still exact.
MATRIX = np.array([[3.5, 1.25, 0.5], [2.0, 4.75, 1.0], [0.25, 1.5, 6.0]])
LIBRARIES = ["array_api_strict", "torch"]
COUNT_LEVELS = [info for info in dict.fromkeys(CATALOG[name] for name in CATALOG)
                if info.level in ("class", "aggregate", "matrix") and not info.per_instance]
ENTRIES = [f"{info.id}:{mode}" if info.per_class else info.id for info in COUNT_LEVELS
           for mode in (info.averages if info.per_class else ("",)) if mode not in ("samples", "binary")]


def _numpy(entries, matrix) -> dict:
    with np.errstate(all="ignore"):
        return {e: np.asarray(v, dtype=float) for e, v in mc.evaluate(entries, matrix=matrix).items()}


def _scale_free() -> list[str]:
    """The entries numpy computes for MATRIX whose value the scale 2**-20 leaves in place."""
    entries = []
    for entry in ENTRIES:
        try:
            value, scaled = _numpy([entry], MATRIX)[entry], _numpy([entry], MATRIX * 2.0 ** -20)[entry]
        except InputError:
            continue
        if np.allclose(scaled, value, rtol=1e-12, atol=0, equal_nan=True) and np.all(np.isfinite(value)):
            entries.append(entry)
    return entries


SCALE_FREE = _scale_free()


@pytest.mark.parametrize("name", LIBRARIES)
def test_every_metric_of_degree_0_keeps_its_value_at_subnormal_weights_in_each_namespace(name):
    library = load(name)
    expected = _numpy(SCALE_FREE, MATRIX)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", xp_kernel.HostFallbackWarning)
        found = values_of_counts(SCALE_FREE, mc.metric, matrix=put(library, name, MATRIX * 2.0 ** -1060))
    wrong = {e: (to_host(found[e]).tolist(), expected[e].tolist()) for e in SCALE_FREE
             if not np.allclose(to_host(found[e]), expected[e], rtol=1e-12, atol=0)}
    assert not wrong
    assert {"mcc", "cohen_kappa", "f1:macro", "f1:micro"} <= set(SCALE_FREE)


@pytest.mark.parametrize("name", LIBRARIES)
def test_mcc_and_kappa_of_a_subnormal_matrix_are_one_sixth_on_the_array_path(name):
    """The reproducer: NaN on the array path (products of the counts underflowed to 0 / 0)."""
    library = load(name)
    matrix = put(library, name, np.array([[7.0, 5.0], [5.0, 7.0]]) * 2.0 ** -1070)
    found = values_of_counts(["mcc", "cohen_kappa"], mc.metric, matrix=matrix)
    assert float(to_host(found["mcc"])) == pytest.approx(1 / 6, rel=1e-15)
    assert float(to_host(found["cohen_kappa"])) == pytest.approx(1 / 6, rel=1e-15)


@pytest.mark.parametrize("name", LIBRARIES)
def test_the_scale_is_exact_per_matrix_and_leaves_integer_and_ordinary_input_alone(name):
    library = load(name)
    tiny = np.array([[7.0, 5.0], [5.0, 7.0]]) * 2.0 ** -1070
    stack = put(library, name, np.stack([tiny, tiny * 2.0 ** 1000 * 2.0 ** 70]))
    scaled = to_host(xp_kernel.rescaled_matrix(stack))
    assert scaled[1].tolist() == [[7.0, 5.0], [5.0, 7.0]]
    assert np.array_equal(np.frexp(scaled[0])[0], np.frexp(tiny)[0])  # the same digits: nothing rounded
    assert 0.25 <= scaled[0].sum() < 2
    whole = put(library, name, np.array([[7, 5], [5, 7]]))
    assert xp_kernel.rescaled_matrix(whole) is whole
    counts = put(library, name, np.array([[7.0, 5.0], [5.0, 7.0], [5.0, 7.0], [7.0, 5.0]]) * 2.0 ** -1070)
    assert 0.25 <= float(to_host(xp_kernel.rescaled_counts(counts)).sum(axis=0).max()) < 2
