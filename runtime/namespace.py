"""The array namespace and device of the user's arrays (the Array API standard).

Counting on the arrays users train with (PyTorch, JAX, CuPy, array-api-strict ...) goes
through the namespace their arrays belong to, found by ``array-api-compat``; that package is
imported on the first call, never with ``import metricc``, so using numpy metrics stays
numpy-only. This module imports no array library itself: a torch tensor brings its namespace.

dtype rules: counts are int64 where the namespace and device offer it, else int32 (JAX
without ``jax_enable_x64``: exact up to 2**31 - 1 samples per count); values are float64
where offered, else float32 (about 7 significant digits). The probe asks the device itself,
because some report a dtype they cannot hold (PyTorch's MPS has no float64).

>>> import numpy as np
>>> xp = array_namespace(np.array([1, 2]))
>>> count_dtype(xp, device(np.array([1]))) == xp.int64
True
>>> to_host(xp.asarray([3, 4])).tolist()
[3, 4]
"""

from __future__ import annotations

import warnings

import numpy as np

from metricc.core.errors import InputError

__all__ = ["array_namespace", "as_array", "asarray_like", "count_dtype", "device", "device_key", "is_array", "is_numpy",
           "is_torch", "to_host", "value_dtype"]


def _compat():
    import array_api_compat  # the one dependency of namespace-generic counting; imported on use

    return array_api_compat


def is_array(x) -> bool:
    """Whether ``x`` is an array of some Array API library (numpy's included)."""
    return _compat().is_array_api_obj(x)


def as_array(x, argument: str):
    """``x`` itself when it is an array of some namespace, else ``np.asarray(x)`` (lists, tuples)."""
    if is_array(x):
        return x
    try:
        return np.asarray(x)
    except (TypeError, ValueError) as error:
        raise InputError(argument, f"expected an array, got {type(x).__name__}: {error}") from None


def array_namespace(*arrays):
    """The Array API namespace the arrays share (numpy's for lists); mixing namespaces is an error."""
    try:
        return _compat().array_namespace(*arrays)
    except TypeError as error:
        kinds = sorted({type(a).__module__.split(".")[0] + "." + type(a).__name__ for a in arrays})
        raise InputError("arrays", f"arrays of one library expected, got {', '.join(kinds)}: {error}") from None


def device(x):
    """The device ``x`` lives on, as its namespace names it."""
    return _compat().device(x)


def asarray_like(xp, values, like, dtype=None):
    """``values`` (a list, or an array the caller gave) in ``xp`` on ``like``'s device, in its
    dtype unless told; numpy's ``np`` takes them as ``np.asarray`` does, without the compat layer."""
    dtype = like.dtype if dtype is None else dtype
    if xp is np:
        return np.asarray(values, dtype=dtype)
    return array_namespace(like).asarray(values, dtype=dtype, device=device(like))


def is_numpy(xp) -> bool:
    """Whether ``xp`` is numpy's namespace (plain or as ``array-api-compat`` wraps it)."""
    return _compat().is_numpy_namespace(xp)


def is_torch(x) -> bool:
    """Whether ``x`` is a PyTorch tensor (checked without importing torch)."""
    return _compat().is_torch_array(x)


_HELD: dict[tuple, bool] = {}


def device_key(where) -> tuple[str, str]:
    """A hashable name of a device, for caches per device: some devices (CuPy's) cannot be hashed."""
    return type(where).__qualname__, str(where)


def _holds(xp, where, name: str) -> bool:
    """Whether the device ``where`` holds an array of dtype ``name`` (asked once per device, by
    allocating one); devices are told apart by name, since some (CuPy's) cannot be hashed."""
    key = (xp, device_key(where), name)
    if key not in _HELD:
        _HELD[key] = _allocates(xp, where, name)
    return _HELD[key]


def _allocates(xp, where, name: str) -> bool:
    dtype = getattr(xp, name, None)
    if dtype is None:
        return False
    try:
        with warnings.catch_warnings():  # JAX without x64 warns and falls back to 32 bits
            warnings.simplefilter("ignore")
            return xp.zeros(1, dtype=dtype, device=where).dtype == dtype
    except (TypeError, RuntimeError, ValueError):
        return False


def count_dtype(xp, where):
    """int64 where the device holds it, else int32 (see the module's dtype rules)."""
    return xp.int64 if _holds(xp, where, "int64") else xp.int32


def value_dtype(xp, where):
    """float64 where the device holds it, else float32 (see the module's dtype rules)."""
    return xp.float64 if _holds(xp, where, "float64") else xp.float32


def to_host(x) -> np.ndarray:
    """``x`` as a numpy array on the host: the one transfer, made when a number is asked for."""
    compat = _compat()
    if compat.is_numpy_array(x):
        return x
    if compat.is_torch_array(x):
        return x.detach().cpu().numpy()
    if compat.is_cupy_array(x):
        return x.get()
    try:
        return np.from_dlpack(x)
    except (TypeError, RuntimeError, BufferError, ValueError):
        return np.asarray(x)
