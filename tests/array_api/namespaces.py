"""The array libraries the Array API tests run on: those installed, each as a pytest param.

numpy, PyTorch (CPU, and CUDA where a device exists), array-api-strict (the standard and
nothing else), JAX (its default device: the GPU where jaxlib has one) and CuPy (where a CUDA
device exists). A library that is not installed, or has no device, is skipped, not failed.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

NAMES = ("numpy", "torch", "torch-cuda", "array_api_strict", "jax.numpy", "cupy")


def load(name: str):
    """The library's module (its own namespace for torch and numpy is found by array-api-compat)."""
    if name == "torch-cuda":
        torch = pytest.importorskip("torch")
        if not torch.cuda.is_available():
            pytest.skip("no CUDA device")
        return torch
    library = pytest.importorskip(name)
    if name == "cupy":
        try:
            library.cuda.runtime.getDeviceCount()
        except Exception:  # noqa: BLE001 - CuPy raises its own runtime error where no driver answers
            pytest.skip("CuPy has no CUDA device")
    return library


def put(library, name: str, values):
    """``values`` (numpy) as an array of ``library``, on its GPU for ``torch-cuda``."""
    if name == "torch-cuda":
        return library.asarray(np.asarray(values), device="cuda")
    return library.asarray(np.asarray(values))


def params():
    return [pytest.param(name, id=name) for name in NAMES]


def same_place(result, reference) -> bool:
    """Whether ``result`` is an array of ``reference``'s namespace and on its device."""
    compat = importlib.import_module("array_api_compat")
    return (compat.array_namespace(result) is compat.array_namespace(reference)
            and str(compat.device(result)) == str(compat.device(reference)))
