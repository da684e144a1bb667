"""The dtype rules and the host transfer of runtime/namespace.py."""

from __future__ import annotations

import numpy as np
import pytest

from metricc.core.errors import InputError
from metricc.runtime import namespace

from tests.array_api.namespaces import load, params, put


@pytest.mark.parametrize("name", params())
def test_64_bits_where_the_device_holds_them(name):
    library = load(name)
    x = put(library, name, [1, 2])
    xp = namespace.array_namespace(x)
    where = namespace.device(x)
    if name == "jax.numpy":
        import jax

        wide = jax.config.read("jax_enable_x64")
        assert namespace.count_dtype(xp, where) == (xp.int64 if wide else xp.int32)
        assert namespace.value_dtype(xp, where) == (xp.float64 if wide else xp.float32)
    else:
        assert (namespace.count_dtype(xp, where), namespace.value_dtype(xp, where)) == (xp.int64, xp.float64)
    assert namespace.to_host(x).tolist() == [1, 2]


def test_lists_are_numpy_and_mixed_libraries_are_an_error():
    assert isinstance(namespace.as_array([1, 2], "y_true"), np.ndarray)
    torch = pytest.importorskip("torch")
    with pytest.raises(InputError, match="arrays of one library"):
        namespace.array_namespace(np.array([1]), torch.asarray([1]))


class _Device:
    """A device that cannot be hashed, as CuPy's cannot."""

    __hash__ = None

    def __str__(self) -> str:
        return "gpu:7"


class _Namespace:
    """Just enough of a namespace for the dtype probe: it allocates on any device."""

    int64, int32, float64, float32 = "int64", "int32", "float64", "float32"

    def zeros(self, shape, *, dtype, device):
        return np.zeros(shape, dtype=dtype)


def test_the_dtype_probe_takes_devices_that_cannot_be_hashed():
    xp = _Namespace()
    assert namespace.count_dtype(xp, _Device()) == "int64"
    assert namespace.value_dtype(xp, _Device()) == "float64"
