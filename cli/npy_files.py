"""NumPy ``.npy`` files of labels, scores or matrices: loaded without pickles (object arrays are
refused), whole or memory-mapped for the chunked readers, with the reader's errors."""

from __future__ import annotations

from metricc.core.errors import InputError

__all__ = ["load_npy", "read_npy"]


def load_npy(option: str, path: str, *, mapped: bool = False):
    """A NumPy ``.npy`` file's array of numbers or strings (no pickles: object arrays are
    refused); ``mapped``: memory-mapped, read as it is used."""
    import numpy as np

    try:
        array = np.load(path, mmap_mode="r" if mapped else None, allow_pickle=False)
    except ValueError as error:  # object arrays need pickles; a malformed header
        raise InputError(option, f"{path}: not a NumPy array of numbers or strings ({error})") from None
    except OSError as error:
        raise InputError(option, f"cannot read {path}: {error.strerror or error}") from None
    if array.dtype.kind not in "biufU":
        raise InputError(option, f"{path}: an array of dtype {array.dtype}; expected numbers or strings")
    return array


def read_npy(option: str, path: str) -> list:
    """A NumPy ``.npy`` file's array as nested lists (no pickles: object arrays are refused)."""
    import numpy as np

    array = load_npy(option, path)
    if array.dtype.kind == "f" and not np.isfinite(array).all():
        raise InputError(option, f"{path}: holds NaN or infinity")
    return array.tolist()
