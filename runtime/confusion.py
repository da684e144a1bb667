"""Confusion matrices and per-class counts, the raw material of every metric.

Conventions: ``M[..., i, j]`` counts samples of true class ``i`` predicted as class ``j``
(rows are true classes); per-class counts keep the class on the last axis. Leading axes
are batch axes and every function is vectorised over them. Bad input raises
:class:`~metricc.core.errors.InputError` naming the argument; numbers are never guessed.
"""

from __future__ import annotations

import numbers
import weakref
from typing import NamedTuple

import numpy as np

from metricc.runtime import inputs
from metricc.core.errors import InputError

__all__ = [
    "MAX_COUNT",
    "MAX_MATRIX_CELLS",
    "ClassCounts",
    "check_class_vector",
    "check_counts",
    "check_labels",
    "check_matrix",
    "checked_matrix",
    "checked_matrix_totals",
    "column_totals",
    "float_counts",
    "is_trusted",
    "class_codes",
    "class_labels",
    "label_array",
    "classes_and_matrix",
    "confusion_matrix",
    "counts_from_matrix",
    "multilabel_counts",
    "orient",
    "row_totals",
    "samplewise_counts",
    "StackTotals",
    "TrustedCounts",
    "trusted_counts",
]

ORIENTATIONS = ("true-rows", "pred-rows")
# The largest count (and total) taken: float64 holds every integer up to 2**53 exactly, so the
# kernels' float arithmetic starts from exact counts and their integer arithmetic from exact
# int64 values; a larger count would be rounded before any formula sees it.
MAX_COUNT = 2 ** 53
# Confusion matrices (all of a batch) above 1 GiB of int64 counts are refused before they are
# allocated: 11,585 classes, where numpy would otherwise raise MemoryError or swap.
MAX_MATRIX_CELLS = 1 << 27
_FAMILY = {"b": "number", "i": "number", "u": "number", "f": "number", "c": "number",
           "U": "string", "S": "bytes", "M": "datetime", "m": "timedelta"}


class ClassCounts(NamedTuple):
    """Per-class (or per-instance) counts, each of shape ``(..., C)``."""

    true_positives: np.ndarray
    false_positives: np.ndarray
    false_negatives: np.ndarray
    true_negatives: np.ndarray


# ---------------------------------------------------------------- reading arrays

def _array(values, argument: str) -> np.ndarray:
    try:
        return np.asarray(values)
    except (ValueError, TypeError) as exc:
        raise InputError(argument, f"cannot be read as an array ({exc}); "
                                   "pass a rectangular sequence") from None


def _total(arrays, axis) -> np.ndarray:
    """The sum of ``arrays`` over ``axis``, exact for integers: float64 rounds a total near 2**53
    down to it, so an integer total that may be that large is added again in int64 (which
    cannot overflow below 2**62)."""
    approximate = sum(np.sum(a, axis=axis, dtype=np.float64) for a in arrays)
    if all(a.dtype.kind in "iu" for a in arrays) and (approximate <= 2 ** 62).all():
        return sum(np.sum(a, axis=axis, dtype=np.int64) for a in arrays)
    return approximate


def _check_size(a: np.ndarray, argument: str, what: str = "a count") -> None:
    """Refuse counts (or totals of counts) above :data:`MAX_COUNT`."""
    if a.dtype.kind == "f" and float(np.finfo(a.dtype).max) < MAX_COUNT:
        return  # float16 cannot hold such a count, and 2**53 would overflow casting to it
    if (a > MAX_COUNT).any():
        raise InputError(argument, f"{what} exceeds 2**53 = {MAX_COUNT}, the largest integer float64 holds "
                                   "exactly; metricc refuses it rather than round it (scale the counts down)")


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
    arr = _array(values, argument)
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


def _check_pair(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    # One label per sample from any container ((n, 1) arrays, one-column tables, tensors):
    # the rules of metricc.runtime.inputs, here where every pair of label vectors passes.
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


def _numpy_exact(*dtypes: np.dtype) -> bool:
    """True if numpy can compare these labels exactly (uint64 with int64 goes via float64)."""
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


# Labels counted per chunk: a chunk, its cell numbers and its counts stay in cache (2 MiB of
# L2), so the labels are read from memory once where ``bincount(t * K + p)`` reads and writes
# three arrays of their size.
_CHUNK = 1 << 17


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
    t, p = _check_pair(y_true, y_pred)
    return _classes_and_codes(t, p, labels)


def class_labels(y_true, y_pred, labels=None) -> np.ndarray:
    """The classes, in matrix order: ``labels`` if given, else the sorted union of labels seen.

    >>> class_labels(["b", "a"], ["c", "a"]).tolist()
    ['a', 'b', 'c']
    >>> class_labels([2, 0], [0, 2], labels=[2, 1, 0]).tolist()
    [2, 1, 0]
    """
    t, p = _check_pair(y_true, y_pred)
    return _classes_and_codes(t, p, labels)[0]


# ---------------------------------------------------------------- matrices

def _check_weights(sample_weight, shape: tuple) -> np.ndarray:
    w = _array(sample_weight, "sample_weight")
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
    t, p = _check_pair(y_true, y_pred)
    weights = None if sample_weight is None else _check_weights(sample_weight, t.shape).ravel()
    grid = _chunked_grid(t, p, weights) if labels is None else None
    k = _small_integers(t, p) if labels is None and grid is None else None
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
        classes, ct, cp = _classes_and_codes(t, p, labels)
        counts = _grid_counts(ct, cp, len(classes), weights)
    counts = counts.astype(np.int64 if weights is None else np.float64, copy=False)
    return classes, (counts if t.ndim == 2 else counts[0])


def _object_numbers(a: np.ndarray, argument: str) -> np.ndarray:
    """An object array (Python integers beyond int64, mixed numbers) as float64; other arrays unchanged."""
    if a.dtype.kind != "O":
        return a
    try:
        return a.astype(np.float64)
    except OverflowError:
        raise InputError(argument, f"a count exceeds 2**53 = {MAX_COUNT}, the largest integer float64 "
                                   "holds exactly; metricc refuses it rather than round it") from None
    except (TypeError, ValueError):
        raise InputError(argument, "expected numbers, got non-numeric entries") from None


def check_matrix(matrix, *, argument: str = "matrix", integer: bool | None = None) -> np.ndarray:
    """Validate a confusion matrix ``(..., C, C)``; returns int64 (or float64 if not ``integer``).

    ``integer=None`` takes whole numbers as int64 (exact arithmetic) and real-valued matrices
    (weighted, normalised) as float64; ``True`` refuses non-integers.

    >>> check_matrix([[3, 1], [0, 2]]).dtype
    dtype('int64')
    >>> check_matrix([[0.5, 1.5], [0.0, 2.0]]).dtype
    dtype('float64')
    >>> check_matrix([[0.5, 0.5], [0.0, 1.0]], integer=False).tolist()
    [[0.5, 0.5], [0.0, 1.0]]
    """
    m, _ = checked_matrix(matrix, argument=argument)
    if integer is False:
        return m.astype(np.float64, copy=False)
    if m.dtype.kind == "f" and (m != np.round(m)).any():
        if integer is None:
            return m.astype(np.float64, copy=False)
        raise InputError(argument, "contains non-integer counts; round them, or use "
                                   "integer=False for a probabilistic confusion matrix")
    return m.astype(np.int64, copy=False)


def checked_matrix(matrix, *, argument: str = "matrix") -> tuple[np.ndarray, np.ndarray]:
    """-> (the matrix ``(..., C, C)`` as given, int64 or float64; its row totals ``(..., C)``)."""
    m, rows, _ = checked_matrix_totals(matrix, argument=argument)
    return m, rows


def checked_matrix_totals(matrix, *, argument: str = "matrix") -> tuple[np.ndarray, np.ndarray, StackTotals | None]:
    """-> (the matrix ``(..., C, C)`` as given, int64 or float64; its row totals ``(..., C)``;
    for a large stack, its column totals and float64 diagonal read in the same pass, else None).

    One pass checks every entry: read as unsigned 64-bit integers, a negative entry (sign bit
    set), NaN or infinity is larger than the bits of 2**53, and every count in 0..2**53 is not
    (float64 bits of non-negative numbers are ordered as the numbers); only a matrix failing
    it is read again for a message saying what is wrong. The row totals, which the kernels
    need anyway, bound every column and grand total. Integer totals are exact int64 sums (no
    entry exceeds 2**53 by then, so they overflow only for C >= 1024, where the sums are taken
    in float64 and checked first).
    """
    m = _object_numbers(_array(matrix, argument), argument)
    if m.dtype.kind not in "iuf":
        raise InputError(argument, f"expected numeric counts, got dtype {m.dtype}")
    if m.ndim < 2 or m.shape[-1] != m.shape[-2]:
        raise InputError(argument, f"expected a square matrix (C, C) or a batch (..., C, C), "
                                   f"got shape {m.shape}")
    if m.size == 0:
        raise InputError(argument, f"is empty (shape {m.shape}); need at least one class")
    if m.dtype.kind in "iu" and m.dtype != np.int64 and m.dtype.itemsize < 8:
        m = m.astype(np.int64)
    stack = _stack_totals(m)
    if stack is not None:
        return m, stack.rows, stack
    if not _counts_in_range(m):
        _range_error(m, argument)
        m = m.astype(np.float64 if m.dtype.kind == "f" else np.int64, copy=False)  # -0.0 entries, uint64 counts
    if m.dtype.kind == "f" or m.shape[-1] < 1024:
        m = m.astype(np.float64 if m.dtype.kind == "f" else np.int64, copy=False)
        t = row_totals(m)  # C * 2**53 < 2**63: an int64 row total cannot overflow
        if m.dtype.kind != "f":  # nor, once each is at most 2**53, the grand total
            _check_size(t, argument, "the total of the matrix")
        _check_size(t.sum(axis=-1), argument, "the total of the matrix")
        return m, t, None
    m = m.astype(np.int64, copy=False)
    t = _total([m], -1)
    _check_size(t, argument, "the total of the matrix")
    _check_size(_total([t], -1), argument, "the total of the matrix")
    return m, t, None


class StackTotals(NamedTuple):
    """Row totals, column totals ``(..., C)``, grand totals ``(...)`` and diagonal of a stack,
    all float64: exact, since every total was checked to be at most 2**53."""

    rows: np.ndarray
    columns: np.ndarray
    total: np.ndarray
    diagonal: np.ndarray


# A stack is checked and totalled chunk by chunk: a chunk of this many bytes stays in the L2
# cache while its range check, row and column totals and diagonal read it, so the stack is
# read from memory once where four separate passes read it four times.
_STACK_CHUNK_BYTES = 1 << 19


def _stack_totals(m: np.ndarray) -> StackTotals | None:
    """The float64 totals of a large contiguous int64 or float64 stack (C < 1024) whose
    entries and grand totals are all counts in 0..2**53, read in one pass; None for anything
    else (read by separate passes, which also say what is wrong). Per chunk the totals are
    taken in the stack's own dtype (exact int64 sums) and only then stored as float64."""
    c = m.shape[-1]
    if (m.ndim < 3 or m.nbytes < 4 * _STACK_CHUNK_BYTES or c >= 1024 or m.dtype not in (np.int64, np.float64)
            or not m.flags.c_contiguous):
        return None
    flat = m.reshape(-1, c, c)
    bits, largest = flat.view(np.uint64), _LARGEST_BITS[m.dtype]
    rows, columns, diagonal = (np.empty(flat.shape[:2]) for _ in range(3))
    total = np.empty(flat.shape[0])
    step = max(1, _STACK_CHUNK_BYTES // (c * c * 8))
    for start in range(0, flat.shape[0], step):
        stop = start + step
        if int(bits[start:stop].max()) > largest:
            return None
        chunk = flat[start:stop]
        chunk_rows = np.einsum("bij->bi", chunk)
        chunk_total = np.einsum("bi->b", chunk_rows)
        if (chunk_total > MAX_COUNT).any():  # entries are not negative: nor is any total larger
            return None
        rows[start:stop], total[start:stop] = chunk_rows, chunk_total
        np.einsum("bij->bj", chunk, out=columns[start:stop], dtype=np.float64, casting="unsafe")
        np.copyto(diagonal[start:stop], np.diagonal(chunk, axis1=-2, axis2=-1))
    batch = m.shape[:-1]
    return StackTotals(rows.reshape(batch), columns.reshape(batch), total.reshape(batch[:-1]), diagonal.reshape(batch))


_LARGEST_BITS = {np.dtype(np.int64): MAX_COUNT, np.dtype(np.uint64): MAX_COUNT,
                 np.dtype(np.float64): int(np.float64(MAX_COUNT).view(np.uint64))}


def _counts_in_range(m: np.ndarray) -> bool:
    """Every entry of an int64, uint64 or float64 array is a count in 0..2**53 (one max pass)."""
    largest = _LARGEST_BITS.get(m.dtype)
    return largest is not None and int(m.view(np.uint64).max()) <= largest


def _range_error(m: np.ndarray, argument: str) -> None:
    """Name what is wrong with entries the one-pass check refused (min and max are read again);
    -0.0, and float16 or float32 entries, may be fine."""
    low, high = m.min(), m.max()
    if m.dtype.kind == "f" and not (np.isfinite(low) and np.isfinite(high)):
        raise InputError(argument, "contains NaN or infinity; counts must be finite")
    if low < 0:
        raise InputError(argument, "contains negative entries; counts must be >= 0")
    _check_size(np.asarray(high), argument)


def row_totals(m: np.ndarray) -> np.ndarray:
    """``m.sum(axis=-1)``; einsum adds short rows several times faster than ``sum`` does."""
    return np.einsum("...ij->...i", m)


def column_totals(m: np.ndarray) -> np.ndarray:
    """``m.sum(axis=-2)``, as einsum adds them."""
    return np.einsum("...ij->...j", m)


def orient(matrix, orientation: str = "true-rows") -> np.ndarray:
    """Return ``matrix`` with true classes in rows; ``"pred-rows"`` input is transposed.

    >>> orient([[5, 1], [2, 7]], "pred-rows").tolist()
    [[5, 2], [1, 7]]
    """
    if not isinstance(orientation, str) or orientation not in ORIENTATIONS:
        raise InputError("orientation", f"{orientation!r} is not one of "
                                        f"{list(ORIENTATIONS)}; say which axis holds true classes")
    m = _array(matrix, "matrix")
    if m.ndim < 2:
        raise InputError("matrix", f"expected shape (..., C, C), got {m.shape}")
    return m if orientation == "true-rows" else np.swapaxes(m, -1, -2)


def counts_from_matrix(matrix) -> ClassCounts:
    """Per-class TP, FP, FN, TN ``(..., C)`` from a matrix ``(..., C, C)`` with true rows.

    Integer matrices give int64 counts, float (probabilistic) matrices float64 counts.

    >>> counts_from_matrix([[5, 1], [2, 7]])
    ClassCounts(true_positives=array([5, 7]), false_positives=array([2, 1]), \
false_negatives=array([1, 2]), true_negatives=array([7, 5]))
    """
    raw = _array(matrix, "matrix")
    m = check_matrix(raw, integer=raw.dtype.kind in "iu")
    tp = np.diagonal(m, axis1=-2, axis2=-1).copy()
    fp = m.sum(axis=-2) - tp
    fn = m.sum(axis=-1) - tp
    tn = m.sum(axis=(-2, -1))[..., None] - tp - fp - fn
    return ClassCounts(tp, fp, fn, tn)


# ---------------------------------------------------------------- multi-label

def _indicator_pair(y_true, y_pred) -> tuple[np.ndarray, np.ndarray]:
    out = []
    for name, values in (("y_true", y_true), ("y_pred", y_pred)):
        a = _array(values, name)
        if a.ndim < 2:
            raise InputError(name, f"expected an indicator matrix (..., N, C), got shape {a.shape}")
        if a.size == 0:
            raise InputError(name, f"is empty (shape {a.shape}); need samples and classes")
        if a.dtype.kind != "b":
            if a.dtype.kind not in "iuf" or not ((a == 0) | (a == 1)).all():
                raise InputError(name, "expected 0/1 (or bool) indicators; threshold "
                                       "scores before counting")
        out.append(a.astype(bool))
    if out[0].shape != out[1].shape:
        raise InputError("y_pred", f"expected shape {out[0].shape} like y_true, got {out[1].shape}")
    return out[0], out[1]


def _indicator_counts(y_true, y_pred, axis: int) -> ClassCounts:
    t, p = _indicator_pair(y_true, y_pred)
    tp = np.count_nonzero(t & p, axis=axis)
    fp = np.count_nonzero(~t & p, axis=axis)
    fn = np.count_nonzero(t & ~p, axis=axis)
    tn = np.count_nonzero(~t & ~p, axis=axis)
    return ClassCounts(*(np.asarray(x, dtype=np.int64) for x in (tp, fp, fn, tn)))


def multilabel_counts(y_true, y_pred) -> ClassCounts:
    """Per-class counts ``(..., C)`` of indicator matrices ``(..., N, C)``, summed over samples.

    >>> multilabel_counts([[1, 0], [1, 1]], [[1, 1], [0, 1]]).false_positives
    array([0, 1])
    """
    return _indicator_counts(y_true, y_pred, axis=-2)


def samplewise_counts(y_true, y_pred) -> ClassCounts:
    """Per-instance counts ``(..., N)`` of indicator matrices ``(..., N, C)``, summed over classes.

    >>> samplewise_counts([[1, 0], [1, 1]], [[1, 1], [0, 1]]).true_positives
    array([1, 1])
    """
    return _indicator_counts(y_true, y_pred, axis=-1)


# ---------------------------------------------------------------- parameters and counts

def check_class_vector(values, n_classes: int, *, argument: str) -> np.ndarray:
    """Validate a per-class parameter ``(C,)`` or ``(..., C)``; returns float64.

    >>> check_class_vector([1, 2, 1], 3, argument="class_weight")
    array([1., 2., 1.])
    """
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)) or n_classes < 1:
        raise ValueError(f"n_classes must be a positive int, got {n_classes!r}")
    v = _array(values, argument)
    if v.dtype.kind not in "biuf":
        raise InputError(argument, f"expected numbers, got dtype {v.dtype}")
    if v.ndim == 0 or v.shape[-1] != n_classes:
        got = "a scalar" if v.ndim == 0 else f"{v.shape[-1]} (shape {v.shape})"
        raise InputError(argument, f"expected one value per class (C={n_classes}), got {got}")
    v = v.astype(np.float64)
    if not np.isfinite(v).all():
        raise InputError(argument, "contains NaN or infinity; give finite values")
    return v


class TrustedCounts(ClassCounts):
    """Float64 counts :func:`check_counts` found trusted (derived from a checked matrix): the
    kernels take them as they are, telling them by their type instead of looking each array up."""

    __slots__ = ()


# Counts the runtime derived itself from checked input (evaluate's counts of a matrix), by
# id: each metric of one evaluate call takes them without checking them again. The arrays are
# made read-only; an entry goes when its array does (a weak reference's callback), so an id
# cannot be reused meanwhile. A plain dict of weak references: looked up four times per metric.
_TRUSTED: dict[int, weakref.ref] = {}
_FLOAT_COPIES: dict[int, np.ndarray] = {}


def trusted_counts(counts: ClassCounts) -> ClassCounts:
    """Mark counts the runtime derived from a checked matrix as checked (read-only)."""
    for a in counts:
        a.flags.writeable = False
        _TRUSTED[id(a)] = weakref.ref(a, lambda _, key=id(a): _TRUSTED.pop(key, None))
    return counts


def is_trusted(a) -> bool:
    """True for counts marked by :func:`trusted_counts` (derived from a checked matrix)."""
    ref = _TRUSTED.get(id(a))
    return ref is not None and ref() is a


def float_counts(a) -> np.ndarray:
    """``a`` as float64; trusted float64 counts as they are, other trusted counts as one
    read-only copy shared by all the metrics of a call."""
    if not is_trusted(a):
        return np.asarray(a, dtype=np.float64)
    if a.dtype == np.float64:
        return a
    copy = _FLOAT_COPIES.get(id(a))
    if copy is None:
        copy = _FLOAT_COPIES[id(a)] = a.astype(np.float64)
        copy.flags.writeable = False
        weakref.finalize(a, _FLOAT_COPIES.pop, id(a), None)
    return copy


def check_counts(counts, *, argument: str = "counts", integer: bool | None = None) -> ClassCounts:
    """Validate per-class counts (TP, FP, FN, TN), each ``(..., C)`` of one shape.

    ``integer`` as for :func:`check_matrix`: by default int64 when every count is a whole
    number, else float64 for all four (weighted counts).

    >>> check_counts(([1, 2], [0, 1], [1, 0], [3, 2])).true_negatives
    array([3, 2])
    """
    if isinstance(counts, tuple) and len(counts) == 4 and all(is_trusted(a) for a in counts):
        if all(a.dtype == np.float64 for a in counts):
            return TrustedCounts(*counts)
        return ClassCounts(*(float_counts(a) if integer is False else a for a in counts))
    if (isinstance(counts, (str, bytes)) or not hasattr(counts, "__len__")
            or (isinstance(counts, np.ndarray) and counts.ndim == 0) or len(counts) != 4):
        raise InputError(argument, "expected four arrays (true_positives, false_positives, "
                                   "false_negatives, true_negatives)")
    arrays, shape = [], None
    for field, values in zip(ClassCounts._fields, counts):
        name = f"{argument}.{field}"
        a = _object_numbers(_array(values, name), name)
        if a.dtype.kind not in "iuf":
            raise InputError(name, f"expected numeric counts, got dtype {a.dtype}")
        if a.ndim == 0 or a.size == 0:
            raise InputError(name, f"expected shape (..., C) with C >= 1, got {a.shape}")
        if shape is not None and a.shape != shape:
            raise InputError(name, f"expected shape {shape} like true_positives, got {a.shape}")
        shape = a.shape
        if not np.isfinite(a).all():
            raise InputError(name, "contains NaN or infinity; counts must be finite")
        if (a < 0).any():
            raise InputError(name, "contains negative entries; counts must be >= 0")
        _check_size(a, name)
        if integer and a.dtype.kind == "f" and (a != np.round(a)).any():
            raise InputError(name, "contains non-integer counts; round them or pass integer=False")
        arrays.append(a)
    whole = all(a.dtype.kind != "f" or bool((a == np.round(a)).all()) for a in arrays)
    arrays = [a.astype(np.int64 if integer or (integer is None and whole) else np.float64) for a in arrays]
    _check_size(_total(arrays, ()), argument, "a class's total TP + FP + FN + TN")
    return ClassCounts(*arrays)
