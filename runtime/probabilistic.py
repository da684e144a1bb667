"""Probabilistic confusion matrices: class probabilities of each sample in, a C x C matrix out.

Wang et al. 2013 (Eq. 5 and 12) replace the crisp count of "true class i predicted as j" by
the probabilities ``p(s, j)`` the classifier gives the samples ``s`` of class i:

- ``absolute`` (Eq. 12): ``p'_{i,j} = sum_{s in S_i} p(s, j)``; its row totals are the class
  sizes and its total is the number of samples, as for a crisp confusion matrix;
- ``relative`` (Eq. 5): ``p_{i,j} = p'_{i,j} / n_i``, the mean over the samples of class i;
  every row sums to 1 (Eq. 6), so its total is C.

Any matrix-level metric takes them like a count matrix: CEN of the relative matrix is
rpCEN, of the absolute one pCEN (Eq. 7-11 read the totals off the matrix they are given).

>>> y_true = [0, 0, 1]
>>> scores = [[0.75, 0.25], [0.25, 0.75], [0.5, 0.5]]
>>> probabilistic_confusion_matrix(y_true, scores).tolist()
[[0.5, 0.5], [0.5, 0.5]]
>>> probabilistic_confusion_matrix(y_true, scores, kind="absolute").tolist()
[[1.0, 1.0], [0.5, 0.5]]
"""

from __future__ import annotations

import numpy as np

from metricc.runtime.confusion import check_labels, label_array
from metricc.core.errors import InputError
from metricc.runtime.scores import PROBABILITY_TOLERANCE, check_probabilities, plainly_probabilities, score_array

__all__ = ["KINDS", "probabilistic_confusion_matrix", "evaluate_matrix_metrics"]

KINDS = ("relative", "absolute")


def _scores(scores, tolerance: float) -> np.ndarray:
    """Scores ``(..., N, C)`` as probabilities: finite, in [0, 1], each row summing to 1. Scores
    that plainly are probabilities are finite too: one check reads them, not two."""
    values = score_array(scores, finite=False)
    plain = plainly_probabilities(values, tolerance)
    if not plain:
        score_array(values)
    if values.ndim < 2 or values.shape[-1] == 0 or values.shape[-2] == 0:
        raise InputError("scores", f"expected shape (n_samples, n_classes) or a batch (..., n_samples, n_classes), got {values.shape}")
    return values if plain else check_probabilities(values, tolerance)


def _classes(y_true, labels, n_samples_shape: tuple[int, ...], n_classes: int) -> np.ndarray:
    """True labels -> column indices ``(..., N)``; ``labels`` lists the classes in column order.

    Without ``labels``: integers are column indices; other labels (strings) name the columns
    in sorted order when there are as many as columns (as for ``evaluate(scores=...)``).
    """
    y = label_array(y_true, "y_true", max_ndim=max(1, len(n_samples_shape)))
    if y.shape != n_samples_shape:
        raise InputError("y_true", f"expected one label per score row, shape {n_samples_shape}, got {y.shape}")
    if labels is None and y.dtype.kind not in "iuf":
        distinct = sorted(set(y.ravel().tolist()), key=str)
        if len(distinct) != n_classes:
            raise InputError("labels", f"y_true has {len(distinct)} distinct labels for {n_classes} score columns: "
                                       "give labels= (one per column, in column order)")
        labels = distinct
    if labels is None:
        if y.dtype.kind == "f" and not np.all(y == np.round(y)):
            raise InputError("y_true", "expected class indices 0..C-1, or labels with labels= (one per score column)")
        if y.min() < 0 or y.max() >= n_classes:  # before the cast: 2**63 would wrap around
            raise InputError("y_true", f"class indices must lie in 0..{n_classes - 1} (one per score column), or give labels=")
        return y.astype(np.int64)
    order = check_labels(labels).tolist()
    if len(order) != n_classes or len(set(order)) != len(order):
        raise InputError("labels", f"expected {n_classes} distinct labels, one per score column, got {order!r}")
    position = {label: k for k, label in enumerate(order)}
    flat = [position.get(v, -1) for v in y.ravel().tolist()]
    if -1 in flat:
        raise InputError("y_true", f"label {y.ravel().tolist()[flat.index(-1)]!r} is not one of the labels {order!r}")
    return np.array(flat, dtype=np.int64).reshape(y.shape)


def probabilistic_confusion_matrix(y_true, scores, *, kind: str = "relative", labels=None,
                                   tolerance: float = PROBABILITY_TOLERANCE) -> np.ndarray:
    """The ``(..., C, C)`` probabilistic confusion matrix (rows = true classes) of Wang et al.

    ``scores`` ``(..., N, C)``: the probability of each sample (row) for each class (column),
    rows summing to 1 within ``tolerance``; ``y_true`` ``(..., N)``: the true classes, column
    indices 0..C-1 or, with ``labels`` (one per column, in column order), labels. ``kind``:
    ``"relative"`` (Eq. 5, needs a sample of every class) or ``"absolute"`` (Eq. 12).
    """
    if not isinstance(kind, str) or kind not in KINDS:
        raise InputError("kind", f"{kind!r} is not one of {', '.join(KINDS)}")
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) or not 0 <= tolerance < 1:
        raise InputError("tolerance", f"expected a number in [0, 1), got {tolerance!r}")
    values = _scores(scores, float(tolerance))
    n_classes = values.shape[-1]
    index = _classes(y_true, labels, values.shape[:-1], n_classes)
    truth = (index[..., None] == np.arange(n_classes)).astype(np.float64)
    absolute = np.swapaxes(truth, -1, -2) @ values
    if kind == "absolute":
        return absolute
    sizes = truth.sum(axis=-2)
    if (sizes == 0).any():
        missing = int(np.flatnonzero((sizes == 0).reshape(-1, n_classes).any(axis=0))[0])
        name = repr(list(labels)[missing]) if labels is not None else str(missing)
        raise InputError("y_true", f"class {name} has no samples: the relative matrix (Eq. 5) averages over them; "
                                   "use kind='absolute' or leave the class out")
    return absolute / sizes[..., None]


def evaluate_matrix_metrics(requested, y_true, scores, kind, labels, params, zero_division) -> dict:
    """``evaluate(..., scores=, probabilistic=kind)``: matrix-level metrics on the probabilistic matrix.

    ``requested``: ``(name, MetricInfo, averaging)`` of matrix-level metrics, ``averaging`` the
    ``average``/``weights``/``pos_label`` keywords of a per-class one (else empty); class-level
    metrics count crisp decisions and keep reading ``y_pred``.
    """
    if scores is None or y_true is None:
        raise InputError("scores", "probabilistic= needs scores (class probabilities) and y_true")
    if not requested:
        raise InputError("probabilistic", "applies to matrix-level metrics (e.g. cen); none was requested")
    matrix = probabilistic_confusion_matrix(y_true, scores, kind=kind, labels=labels)
    results = {}
    for name, info, averaging in requested:
        kwargs = {p.name: params[p.name] for p in info.params if p.name in params}
        results[name] = info.function(matrix, zero_division=zero_division, **averaging, **kwargs)
    return results
