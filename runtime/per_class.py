"""Per-class values that know their classes: :class:`ClassValues`, an ndarray with ``.labels``.

``evaluate(..., average="none")`` used to return a bare array, so a reader had to know the
class order to read ``[1.0, 0.75, 0.667]``. A subclass of ``np.ndarray`` keeps every existing
use working (arithmetic, indexing, ``tolist``, ``np.testing``) and adds the class labels of
the last axis, ``.to_dict()`` and a repr that shows them. Labels survive only while the last
axis is still the class axis: a reduction or a slice across classes gives a plain array.

Pandas input is recognised here without importing pandas (:func:`categories`).

>>> v = ClassValues([1.0, 0.75], ["cat", "dog"])
>>> v.to_dict()
{'cat': 1.0, 'dog': 0.75}
>>> v
ClassValues([1.  , 0.75], labels=['cat', 'dog'])
>>> type(v.mean()).__name__, type(v * 2).__name__
('float64', 'ClassValues')
"""

from __future__ import annotations

import numpy as np

__all__ = ["ClassValues", "categorical_labels", "categories", "label_list", "with_labels"]


def label_list(labels) -> list:
    """Class labels as plain Python values (numpy scalars unwrapped), for keys and headers."""
    return [label.item() if isinstance(label, np.generic) else label for label in labels]


class ClassValues(np.ndarray):
    """Values ``(..., C)``, one per class on the last axis; ``labels`` names the classes."""

    labels: list

    def __new__(cls, values, labels):
        array = np.asarray(values).view(cls)
        labels = label_list(labels)
        if array.ndim == 0 or array.shape[-1] != len(labels):
            raise ValueError(f"{len(labels)} labels for values of shape {array.shape}")
        array.labels = labels
        return array

    def __array_finalize__(self, source) -> None:
        labels = getattr(source, "labels", None)
        keep = labels is not None and self.ndim > 0 and self.shape[-1] == len(labels)
        self.labels = labels if keep else None

    def __array_wrap__(self, result, context=None, return_scalar=False):
        result = super().__array_wrap__(result, context, return_scalar)
        if isinstance(result, ClassValues) and result.labels is None:
            plain = result.view(np.ndarray)
            return plain[()] if plain.ndim == 0 else plain  # a reduction to one value: a numpy scalar
        return result

    def __getitem__(self, key):
        result = super().__getitem__(key)
        if isinstance(result, ClassValues) and (result.labels is None or _selects_classes(key, self.ndim)):
            return result.view(np.ndarray)
        return result

    def __reduce__(self):
        constructor, arguments, state = super().__reduce__()
        return constructor, arguments, (state, self.labels)

    def __setstate__(self, state) -> None:
        array_state, self.labels = state
        super().__setstate__(array_state)

    def __repr__(self) -> str:
        if self.labels is None:
            return repr(self.view(np.ndarray))
        body = repr(self.view(np.ndarray)).removeprefix("array(").removesuffix(")")
        return f"ClassValues({body}, labels={self.labels!r})"

    def to_dict(self) -> dict:
        """``{label: value}`` for one set of per-class values; ``{label: [values over the batch]}``
        for a batch ``(B..., C)``."""
        if self.labels is None:
            raise ValueError("these values have lost their class axis")
        plain = self.view(np.ndarray)
        return {label: plain[..., k].tolist() for k, label in enumerate(self.labels)}


def _selects_classes(key, ndim: int) -> bool:
    """Whether an index reorders or selects along the last (class) axis: labels then no longer fit."""
    keys = key if isinstance(key, tuple) else (key,)
    if not any(k is Ellipsis for k in keys) and len(keys) < ndim:
        return False
    return not (isinstance(keys[-1], slice) and keys[-1] == slice(None))


def with_labels(value, labels, n_classes: int):
    """``value`` as :class:`ClassValues` when its last axis holds ``n_classes`` classes; labels
    default to the class indices ``0..C-1``. Anything else (one value per matrix) is returned as is."""
    array = np.asarray(value)
    if array.ndim == 0 or array.shape[-1] != n_classes:
        return value
    return ClassValues(array, range(n_classes) if labels is None else labels)


def categories(values):
    """The categories of a pandas categorical (``Series`` or ``Categorical``), in their order, or
    None for anything else; pandas is never imported here."""
    dtype = getattr(values, "dtype", None)
    if getattr(dtype, "name", None) != "category" or not type(values).__module__.startswith("pandas"):
        return None
    return label_list(dtype.categories.tolist())


def categorical_labels(y_true, y_pred):
    """The class order of categorical labels: ``y_true``'s categories, then those only ``y_pred``
    has, when both are pandas categoricals; else None (the sorted union of the labels seen)."""
    true_categories, predicted_categories = categories(y_true), categories(y_pred)
    if true_categories is None or predicted_categories is None:
        return None
    return true_categories + [c for c in predicted_categories if c not in true_categories]
