"""Labels: what samples say, read into arrays, encoded as class codes and counted into a confusion matrix.

Every entry of a label array is a number (not NaN), a string or another hashable value of one
family; labels are never guessed. Counting small non-negative integers needs no sort.
"""

from __future__ import annotations

import functools
import numbers

import numpy as np

from metricc.core.errors import InputError
from metricc.runtime import inputs
from metricc.runtime.counts import as_array
from metricc.runtime.known_classes import CHUNK as _CHUNK, KnownClasses

__all__ = [
    "MAX_MATRIX_CELLS",
    "KnownClasses",
    "check_labels",
    "check_pair",
    "check_weights",
    "class_codes",
    "class_labels",
    "classes_and_matrix",
    "confusion_matrix",
    "counted",
    "label_array",
]

# Confusion matrices (all of a batch) above 1 GiB of int64 counts are refused before they are
# allocated: 11,585 classes, where numpy would otherwise raise MemoryError or swap.
MAX_MATRIX_CELLS = 1 << 27
_FAMILY = {"b": "number", "i": "number", "u": "number", "f": "number", "c": "number",
           "U": "string", "S": "bytes", "M": "datetime", "m": "timedelta"}


def _at(shape: tuple, flat_index: int) -> str:
    where = tuple(int(i) for i in np.unravel_index(flat_index, shape))
    return f"index {where[0]}" if len(where) == 1 else f"index {where}"



def label_array(values, argument: str, *, max_ndim: int = 2) -> np.ndarray:
    """``values`` as an array of labels ``(N,)`` (or ``(B, N)``): every entry a number (not NaN)
    or a non-empty string, or an ``InputError`` naming ``argument`` and the position.

    >>> label_array(["a", None], "y_true")
    Traceback (most recent call last):
    ...
    metricc.core.errors.InputError: y_true: None at index 1 is not a label (a label is a number or a non-empty string); drop or fill those samples
    """
    arr = as_array(values, argument)
    if arr.dtype.kind in "US" and not isinstance(values, np.ndarray):
        # np.asarray([1, "a"]) silently gives ["1", "a"]; keep mixed lists as objects.
        as_objects = np.asarray(values, dtype=object)
        text = str if arr.dtype.kind == "U" else bytes
        if not all(isinstance(v, text) for v in as_objects.ravel().tolist()):
            arr = as_objects
    shapes = "(N,)" if max_ndim == 1 else "(N,) or a batch (B, N)"
    if arr.ndim == 0:
        raise InputError(argument, f"expected labels of shape {shapes}, got the single value "
                                   f"{arr.tolist()!r}; pass a sequence of labels")
    if arr.ndim > max_ndim:
        raise InputError(argument, f"expected labels of shape {shapes}, got shape {arr.shape}")
    if arr.size == 0:
        raise InputError(argument, f"is empty (shape {arr.shape}); pass at least one label")
    kind = arr.dtype.kind
    if kind in "fc":
        nan = np.isnan(arr).ravel()
        if nan.any():
            raise InputError(argument, f"NaN at {_at(arr.shape, int(np.argmax(nan)))} is not a "
                                       "label; drop or fill those samples")
    elif kind in "US":
        empty = (arr == arr.dtype.type()).ravel()
        if empty.any():
            raise InputError(argument, f"the empty string at {_at(arr.shape, int(np.argmax(empty)))} is not a "
                                       "label; drop or fill those samples")
    elif kind in "Mm":  # a date or duration is no class (README: labels are numbers or strings)
        raise InputError(argument, f"labels must be numbers or strings, got dtype {arr.dtype} (dates and durations "
                                   "are not classes); convert them, e.g. .astype(str), if they name classes")
    elif kind == "O":
        for k, v in enumerate(arr.ravel().tolist()):
            if not _is_label(v):
                raise InputError(argument, f"{v!r} at {_at(arr.shape, k)} is not a label (a label is a "
                                           "number or a non-empty string); drop or fill those samples")
    elif kind not in _FAMILY:
        raise InputError(argument, f"labels must be numbers or strings, got dtype {arr.dtype}")
    return arr


def _is_label(value) -> bool:
    """A number (not NaN) or a non-empty string: the same rule as the command line's."""
    if isinstance(value, (str, bytes)):
        return len(value) > 0
    return isinstance(value, numbers.Number) and value == value


def check_pair(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    """Two label arrays of one shape and family, one label per sample from any container
    ((n, 1) arrays, one-column tables, tensors: the rules of :mod:`metricc.runtime.inputs`)."""
    t = label_array(inputs.one_label_per_sample(y_true, "y_true"), "y_true")
    p = label_array(inputs.one_label_per_sample(y_pred, "y_pred"), "y_pred")
    if t.shape != p.shape:
        if t.ndim == p.ndim == 1:
            msg = f"expected {t.shape[0]} labels like y_true, got {p.shape[0]}"
        else:
            msg = f"expected shape {t.shape} like y_true, got {p.shape}; pass both as (N,) or (B, N)"
        raise InputError("y_pred", msg)
    ft, fp = _FAMILY.get(t.dtype.kind), _FAMILY.get(p.dtype.kind)
    if ft and fp and ft != fp:
        raise InputError("y_pred", f"holds {fp} labels but y_true holds {ft} labels; "
                                   "use one label type for both")
    return t, p


# ---------------------------------------------------------------- label encoding

def _sorted_objects(arrays) -> np.ndarray:
    seen = list(dict.fromkeys(v for a in arrays for v in a.ravel().tolist()))
    try:  # mixed types: group by type name, then by value; else first appearance
        seen.sort(key=lambda v: (type(v).__name__, v))
    except TypeError:
        pass
    out = np.empty(len(seen), dtype=object)
    out[:] = seen
    return out


@functools.lru_cache(maxsize=256)
def _numpy_exact(*dtypes: np.dtype) -> bool:
    """True if numpy can compare these labels exactly (uint64 with int64 goes via float64);
    remembered by dtypes, which an accumulator asks about once a chunk."""
    kinds = {d.kind for d in dtypes}
    if "O" in kinds or len({_FAMILY[k] for k in kinds}) > 1:
        return False
    return not (kinds <= set("biu") and np.result_type(*dtypes).kind == "f")


def _unique_objects(*arrays: np.ndarray) -> np.ndarray:
    """Sorted union compared as Python objects (exact for mixed types and big integers)."""
    try:
        return np.unique(np.concatenate([a.ravel().astype(object) for a in arrays]))
    except TypeError:
        return _sorted_objects(arrays)


def _encode(arr: np.ndarray, classes: np.ndarray, argument: str) -> np.ndarray:
    """Index of each label of ``arr`` in ``classes``; unknown labels raise."""
    flat = arr.ravel()
    if _numpy_exact(arr.dtype, classes.dtype):
        order = np.argsort(classes, kind="stable")
        pos = np.minimum(np.searchsorted(classes[order], flat), len(classes) - 1)
        codes = order[pos]
        found = classes[codes] == flat
    else:
        index = {v: i for i, v in enumerate(classes.tolist())}
        try:
            codes = np.fromiter((index.get(v, -1) for v in flat.tolist()), np.int64, flat.size)
        except TypeError as exc:
            raise InputError(argument, f"labels must be hashable ({exc})") from None
        found = codes >= 0
    if not found.all():
        k = int(np.argmin(found))
        raise InputError(argument, f"label {flat[k:k + 1].tolist()[0]!r} at {_at(arr.shape, k)} "
                                   "is not in labels; add it to labels or drop those samples")
    return codes.reshape(arr.shape)


def check_labels(labels) -> np.ndarray:
    """The class labels ``labels=``: a 1-d sequence of distinct labels.

    >>> check_labels(["b", "a"]).tolist()
    ['b', 'a']
    """
    arr = label_array(labels, "labels", max_ndim=1)
    first = {}
    try:
        for v in arr.tolist():
            if v in first:
                raise InputError("labels", f"{v!r} appears more than once; list each class once")
            first[v] = True
    except TypeError as exc:
        raise InputError("labels", f"labels must be hashable ({exc})") from None
    return arr


# Small non-negative integer labels are counted directly: ``bincount(t * K + p)`` over a
# K x K grid of label values needs no sort. The grid may hold up to this many cells per
# sample (and always 2**16), so its memory stays of the order of the labels' own.
_GRID_CELLS_PER_LABEL = 1


def _small_integers(t: np.ndarray, p: np.ndarray) -> int | None:
    """K = largest label + 1 when all labels are integers in 0..K-1 with a K x K grid small
    enough to count directly; else None, and the labels are sorted."""
    if t.dtype.kind not in "iu" or p.dtype.kind not in "iu" or not _numpy_exact(t.dtype, p.dtype):
        return None
    # Read as unsigned, a negative label is larger than any grid: one max pass per array.
    k = max(int(a.view(a.dtype.str.replace("i", "u")).max()) for a in (t, p)) + 1
    rows = t.shape[0] if t.ndim == 2 else 1
    return k if rows * k * k <= max(_GRID_CELLS_PER_LABEL * t.size, 2 ** 16) else None


def _chunked_grid(t: np.ndarray, p: np.ndarray, weights) -> np.ndarray | None:
    """Counts ``(1, K, K)`` of 1-d integer labels in 0..K-1, chunk by chunk: each chunk's
    largest label sizes its own small grid, added into the corner of the total. None when a
    chunk holds a negative label (read as unsigned, larger than any grid) or values too sparse
    for a grid of at most one cell per label of the chunk (or 2**16): those labels are sorted."""
    if t.ndim != 1 or t.dtype.kind not in "iu" or p.dtype.kind not in "iu" or not _numpy_exact(t.dtype, p.dtype):
        return None
    unsigned = [a.view(a.dtype.str.replace("i", "u")) for a in (t, p)]
    cells = np.empty(min(_CHUNK, t.size), dtype=np.intp)
    total = np.zeros((1, 1), dtype=np.int64 if weights is None else np.float64)
    for start in range(0, t.size, _CHUNK):
        stop = start + _CHUNK
        k = max(int(unsigned[0][start:stop].max()), int(unsigned[1][start:stop].max())) + 1
        if k * k > max(_GRID_CELLS_PER_LABEL * _CHUNK, 2 ** 16):
            return None
        chunk = cells[: min(stop, t.size) - start]
        np.multiply(t[start:stop], k, out=chunk, dtype=np.intp)
        np.add(chunk, p[start:stop], out=chunk, dtype=np.intp)
        counts = np.bincount(chunk, weights=None if weights is None else weights[start:stop], minlength=k * k)
        if k > total.shape[0]:
            grown = np.zeros((k, k), dtype=total.dtype)
            grown[: total.shape[0], : total.shape[0]] = total
            total = grown
        total[:k, :k] += counts.reshape(k, k)
    return total[None]


def _grid_counts(t: np.ndarray, p: np.ndarray, k: int, weights) -> np.ndarray:
    """Counts ``(B, K, K)`` of label values ``0..K-1``: one bincount over ``t * K + p``."""
    rows = t.shape[0] if t.ndim == 2 else 1
    if rows * k * k > MAX_MATRIX_CELLS:
        shape = f"{rows} x {k} x {k}" if t.ndim == 2 else f"{k} x {k}"
        raise InputError("y_true", f"{k} classes make a confusion matrix of {shape} counts, "
                                   f"{rows * k * k * 8 / 2**30:.1f} GiB, above the limit of "
                                   f"{MAX_MATRIX_CELLS * 8 / 2**30:.0f} GiB; are these labels classes "
                                   "(not sample ids or continuous values)?")
    flat = t.astype(np.intp, copy=False) * k + p.astype(np.intp, copy=False)
    if t.ndim == 2:
        flat += (np.arange(rows, dtype=np.intp) * (k * k))[:, None]
    counts = np.bincount(flat.ravel(), weights=weights, minlength=rows * k * k)
    return counts.reshape(rows, k, k)


def _classes_and_codes(t: np.ndarray, p: np.ndarray, labels):
    if labels is not None:
        classes = check_labels(labels)
        return classes, _encode(t, classes, "y_true"), _encode(p, classes, "y_pred")
    if not _numpy_exact(t.dtype, p.dtype):
        classes = _unique_objects(t, p)
        return classes, _encode(t, classes, "y_true"), _encode(p, classes, "y_pred")
    classes, inverse = np.unique(np.concatenate([t.ravel(), p.ravel()]), return_inverse=True)
    inverse = inverse.ravel()
    return classes, inverse[: t.size].reshape(t.shape), inverse[t.size:].reshape(p.shape)


def class_codes(y_true, y_pred, labels=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The classes (as :func:`class_labels`) and each label's class index, in the labels' shape.

    >>> [a.tolist() for a in class_codes(["b", "a"], ["c", "a"])]
    [['a', 'b', 'c'], [1, 0], [2, 0]]
    """
    t, p = check_pair(y_true, y_pred)
    return _classes_and_codes(t, p, labels)


def class_labels(y_true, y_pred, labels=None) -> np.ndarray:
    """The classes, in matrix order: ``labels`` if given, else the sorted union of labels seen.

    >>> class_labels(["b", "a"], ["c", "a"]).tolist()
    ['a', 'b', 'c']
    >>> class_labels([2, 0], [0, 2], labels=[2, 1, 0]).tolist()
    [2, 1, 0]
    """
    t, p = check_pair(y_true, y_pred)
    return _classes_and_codes(t, p, labels)[0]


# ---------------------------------------------------------------- matrices

def check_weights(sample_weight, shape: tuple) -> np.ndarray:
    """Finite non-negative float64 weights, one per label of ``shape`` (or per column of a batch)."""
    w = as_array(sample_weight, "sample_weight")
    if w.dtype.kind not in "biuf":
        raise InputError("sample_weight", f"expected numbers, got dtype {w.dtype}")
    if w.shape != shape and not (len(shape) == 2 and w.shape == shape[1:]):
        expected = f"{shape[0]} weights" if len(shape) == 1 else f"shape {shape} or {shape[1:]}"
        raise InputError("sample_weight", f"expected {expected} like y_true, got shape {w.shape}")
    w = w.astype(np.float64)
    if not np.isfinite(w).all():
        raise InputError("sample_weight", "contains NaN or infinity; give finite weights")
    if (w < 0).any():
        raise InputError("sample_weight", "contains negative weights; weights must be >= 0")
    return np.broadcast_to(w, shape)


def confusion_matrix(y_true, y_pred, *, labels=None, sample_weight=None) -> np.ndarray:
    """Confusion matrix ``(C, C)``, or ``(B, C, C)`` for labels of shape ``(B, N)``.

    Classes are ordered as :func:`class_labels` returns them (shared across a batch).
    Counts are int64, or float64 weighted sums when ``sample_weight`` is given.

    >>> confusion_matrix([0, 1, 2, 2], [0, 2, 2, 1])
    array([[1, 0, 0],
           [0, 0, 1],
           [0, 1, 1]])
    >>> confusion_matrix(["cat", "dog"], ["dog", "dog"], labels=["dog", "cat"])
    array([[1, 0],
           [1, 0]])
    """
    return classes_and_matrix(y_true, y_pred, labels=labels, sample_weight=sample_weight)[1]


def classes_and_matrix(y_true, y_pred, *, labels=None, sample_weight=None) -> tuple[np.ndarray, np.ndarray]:
    """(:func:`class_labels`, :func:`confusion_matrix`) from one reading of the labels.

    Labels that are small non-negative integers are counted on the grid of their values
    (no sort), and the classes read off the grid's non-empty rows and columns; other labels
    are sorted once (``np.unique``) or, with ``labels=``, looked up once.

    >>> classes, matrix = classes_and_matrix([5, 3, 5], [5, 5, 5])
    >>> classes.tolist(), matrix.tolist()
    ([3, 5], [[0, 1], [0, 2]])
    """
    t, p = check_pair(y_true, y_pred)
    weights = None if sample_weight is None else check_weights(sample_weight, t.shape).ravel()
    return counted(t, p, None if labels is None else KnownClasses(check_labels(labels)), weights)


def counted(t: np.ndarray, p: np.ndarray, known: KnownClasses | None, weights=None) -> tuple[np.ndarray, np.ndarray]:
    """(classes, matrix) of labels read by :func:`check_pair`, over the ``known`` classes (a
    label outside them raises, naming it) or, when None, the classes seen."""
    if known is not None:
        classes = known.classes
        exact = weights is None and t.ndim == 1 and _numpy_exact(t.dtype, p.dtype, classes.dtype)
        counts = known.counts(t, p) if exact else None
        if counts is None:  # weighted sums are taken in one bincount, in the order of the samples
            counts = _grid_counts(_encode(t, classes, "y_true"), _encode(p, classes, "y_pred"), len(classes), weights)
    else:
        grid = _chunked_grid(t, p, weights)
        k = _small_integers(t, p) if grid is None else None
        if grid is not None or k is not None:
            grid = _grid_counts(t, p, k, weights) if grid is None else grid
            k = grid.shape[-1]
            if weights is None:
                seen = (grid.sum(axis=(0, 1)) + grid.sum(axis=(0, 2))) > 0
            else:  # a class seen only with weight 0 is still a class
                seen = (np.bincount(t.ravel(), minlength=k) + np.bincount(p.ravel(), minlength=k)) > 0
            classes = np.flatnonzero(seen).astype(np.result_type(t.dtype, p.dtype))
            counts = grid if seen.all() else grid[:, seen][:, :, seen]
        else:
            classes, ct, cp = _classes_and_codes(t, p, None)
            counts = _grid_counts(ct, cp, len(classes), weights)
    counts = counts.astype(np.int64 if weights is None else np.float64, copy=False)
    return classes, (counts if t.ndim == 2 else counts[0])
