"""Multi-output multiclass labels (several class labels per sample: a label per pixel, per
token, per output) as multi-label indicator rows, so that the catalog's multi-label metrics
apply to them.

A sample with ``M`` outputs over ``C`` classes becomes one row of ``M * C`` indicators (output
by output, each output one-hot), so that a row matches exactly when every output does:
``exact_match_ratio`` on these rows is torchmetrics' ``multiclass_exact_match``, and the
per-column counts are the one-vs-rest counts of each (output, class) pair.

>>> y_true, y_pred = multioutput_indicators([[0, 1], [2, 2]], [[0, 1], [2, 0]])
>>> y_true.tolist()
[[1, 0, 0, 0, 1, 0], [0, 0, 1, 0, 0, 1]]
"""

from __future__ import annotations

import numpy as np

from metricc.runtime.confusion import class_codes, label_array
from metricc.core.errors import InputError

__all__ = ["multioutput_indicators", "MAX_INDICATORS"]

MAX_INDICATORS = 2**30  # one byte each: the 1 GiB bound the runtime keeps for arrays it makes


def _outputs(values, argument: str) -> np.ndarray:
    """Labels ``(N, ...)`` as ``(N, M)``: the axes after the first are the outputs."""
    arr = label_array(values, argument, max_ndim=32)
    if arr.ndim < 2:
        raise InputError(argument, f"expected several labels per sample, shape (N, M) or (N, ...), got shape {arr.shape}; "
                                   "one label per sample is single-label data: pass it as y_true/y_pred directly")
    return arr.reshape(arr.shape[0], -1)


def multioutput_indicators(y_true, y_pred, *, labels=None) -> tuple[np.ndarray, np.ndarray]:
    """Indicator rows ``(N, M * C)`` of multi-output labels ``(N, M)`` (or ``(N, ...)``, the
    trailing axes flattened), for ``evaluate(..., multilabel=True)``.

    The classes are ``labels`` if given, else the sorted union of the labels seen; column
    ``m * C + k`` is output ``m`` holding class ``k``.
    """
    t, p = _outputs(y_true, "y_true"), _outputs(y_pred, "y_pred")
    if t.shape != p.shape:
        raise InputError("y_pred", f"expected shape {np.shape(y_true)} like y_true (samples, outputs), got {np.shape(y_pred)}")
    classes, t_codes, p_codes = class_codes(t, p, labels)
    n, outputs, n_classes = t.shape[0], t.shape[1], len(classes)
    if n * outputs * n_classes > MAX_INDICATORS:
        raise InputError("y_true", f"{n} samples x {outputs} outputs x {n_classes} classes make "
                                   f"{n * outputs * n_classes:,} indicators, above the limit of {MAX_INDICATORS:,}; "
                                   "evaluate the samples in batches (ConfusionAccumulator) or fewer at a time")
    columns = np.arange(outputs) * n_classes
    out = []
    for codes in (t_codes, p_codes):
        rows = np.zeros((n, outputs * n_classes), dtype=np.int8)
        np.put_along_axis(rows, columns + codes.reshape(n, outputs), 1, axis=1)
        out.append(rows)
    return out[0], out[1]
