"""Inputs as users hold them, read by one set of rules for every API entry and command.

Labels, indicator matrices and scores arrive as lists, numpy arrays, pandas Series,
DataFrames and Categoricals, torch tensors or (in :mod:`metricc.bridges.dask`) Dask
collections. Neither pandas nor torch is imported here: they are recognised by what they
offer (``.columns``/``.iloc``, ``.detach``/``.numpy``), so the runtime stays numpy-only.
The command line reads files into the same values and then applies the same rules
(:mod:`metricc.cli.inputs`).

The rules:

- **One label per sample.** ``y.reshape(-1, 1)``, ``df[["label"]]`` or ``[[0], [1]]`` are
  ``n`` samples of one label each, not ``n`` batches of one sample. A table of several
  columns is not a label vector: pass one column, or ``multilabel=True`` for indicators.
- **Columns by name wherever names exist.** A DataFrame's columns (``pd.DataFrame(proba,
  columns=model.classes_)``) are matched to ``labels=`` by name, whatever their order; without
  ``labels=`` the named columns are the classes, sorted as labels sort. Default column names
  (pandas' ``RangeIndex`` 0..C-1) are positions, not names.
- **By position only where no names exist**: then the columns are the classes in ``labels=``
  order, else in the sorted order of the true labels (the command line says so on stderr).

>>> import numpy as np
>>> one_label_per_sample(np.array([[0], [1], [1]]), "y_true").tolist()
[0, 1, 1]
>>> in_class_order(np.array([[0.9, 0.1]]), ["b", "a"], ["a", "b"]).tolist()
[[0.1, 0.9]]
"""

from __future__ import annotations

import numpy as np

from metricc.core.errors import InputError
from metricc.runtime.per_class import label_list

__all__ = ["column_names", "from_tensor", "in_class_order", "is_table", "one_label_per_sample", "read_scores",
           "sorted_classes"]


def from_tensor(values):
    """A torch (or any ``.detach().cpu().numpy()``) tensor as a numpy array; anything else as given."""
    if isinstance(values, np.ndarray):  # the common case, first: an accumulator's chunks come by the thousand
        return values
    if all(hasattr(values, name) for name in ("detach", "cpu", "numpy")) and not isinstance(values, np.ndarray):
        return values.detach().cpu().numpy()
    return values


def is_table(values) -> bool:
    """A DataFrame (pandas or alike): named columns and positional rows."""
    return not isinstance(values, np.ndarray) and hasattr(values, "columns") and hasattr(values, "iloc")


def column_names(values) -> list | None:
    """The column names of a table, or None where it has none (no table, or pandas' default
    ``RangeIndex`` 0..C-1, which numbers positions)."""
    if not is_table(values):
        return None
    columns = values.columns
    if type(columns).__name__ == "RangeIndex" and columns.start == 0 and columns.step == 1:
        return None
    return label_list(list(columns))


def one_label_per_sample(values, argument: str):
    """``values`` with an ``(n, 1)`` shape read as ``n`` labels (a one-column table as its column,
    so that categories are kept); a table of several columns is refused. Other shapes pass."""
    values = from_tensor(values)
    if values is None:
        return None
    if is_table(values):
        width = len(values.columns)
        if width != 1:
            names = ", ".join(map(str, list(values.columns)[:5])) + (", ..." if width > 5 else "")
            raise InputError(argument, f"a table of {width} columns ({names}); pass one column of labels "
                                       "(df['label']), or indicator columns with multilabel=True")
        return values.iloc[:, 0]
    if isinstance(values, np.ndarray):
        return values[:, 0] if values.ndim == 2 and values.shape[1] == 1 else values
    if isinstance(values, (list, tuple)) and values and all(_single(row) for row in values):
        return [row[0] for row in values]
    return values


def _single(row) -> bool:
    """A row of exactly one label (``[3]``), not a nested list."""
    return (isinstance(row, (list, tuple, np.ndarray)) and len(row) == 1
            and not isinstance(row[0], (list, tuple, np.ndarray)))


def sorted_classes(values) -> list:
    """Distinct labels in the order the runtime sorts classes (mixed types: first appearance)."""
    distinct = list(dict.fromkeys(label_list(values)))
    try:
        return sorted(distinct)
    except TypeError:
        return distinct


def _position(names: list, classes: list, argument: str) -> list[int]:
    """Index of each class among ``names``: by value, else by text (``"10"`` names the class 10)."""
    for key in (lambda v: v, str):
        keyed = [key(name) for name in names]
        if len(set(keyed)) != len(keyed):
            continue
        where = {name: k for k, name in enumerate(keyed)}
        if all(key(c) in where for c in classes) and len(classes) == len(names):
            return [where[key(c)] for c in classes]
    repeated = next((name for name in names if names.count(name) > 1), None)
    if repeated is not None:
        raise InputError(argument, f"the column {repeated!r} is named twice; name each class once")
    missing = [c for c in classes if c not in names and str(c) not in map(str, names)]
    extra = [n for n in names if n not in classes and str(n) not in map(str, classes)]
    detail = (f"no column for the class {missing[0]!r}" if missing else f"the column {extra[0]!r} is no class")
    raise InputError(argument, f"the columns {names!r} are named, and do not name the classes {classes!r}: "
                               f"{detail}; name one column per class (or pass labels= in column order)")


def in_class_order(values: np.ndarray, names: list, classes: list, argument: str = "scores") -> np.ndarray:
    """The columns of ``values`` (named ``names``) reordered to ``classes``."""
    order = _position(list(names), list(classes), argument)
    return values[..., order] if order != list(range(len(order))) else values


def read_scores(scores, labels=None, y_true=None, *, multilabel: bool = False, argument: str = "scores"):
    """-> (scores as given or a numpy array in class order, ``labels`` to use).

    A table with named columns is reordered to ``labels=``; without ``labels=`` its sorted
    names become the labels (single-label data), or its names in order (multi-label data,
    where ``y_true``'s own named columns fix the order). Unnamed scores are returned as given.
    """
    scores = from_tensor(scores)
    names = column_names(scores)
    if names is None:
        return (scores.to_numpy() if is_table(scores) else scores), labels
    values = scores.to_numpy()
    if labels is not None:
        classes = label_list(np.asarray(labels, dtype=object).ravel().tolist())
    elif multilabel:
        classes = column_names(y_true) or names
    else:
        classes = sorted_classes(_typed_like(names, y_true))
    return in_class_order(values, names, classes, argument), classes


def _typed_like(names: list, y_true) -> list:
    """Column names as the labels they name: ``pd.read_csv`` reads a header ``0,1,2`` as the
    texts ``"0"``, ``"1"``, ``"2"``, which name the integer classes 0, 1, 2 of ``y_true``."""
    if y_true is None or all(not isinstance(name, str) for name in names):
        return names
    try:
        seen = {str(label): label for label in label_list(np.asarray(from_tensor(y_true), dtype=object).ravel().tolist())}
    except (TypeError, ValueError):
        return names
    if all(isinstance(name, str) and name in seen for name in names) and len(set(names)) == len(names):
        return [seen[name] for name in names]
    return names


def _indicators(values, classes, argument: str):
    """Multi-label rows ``(n, C)``: a table's named columns in ``classes`` order, as numpy."""
    values = from_tensor(values)
    if values is None or not is_table(values):
        return values
    names = column_names(values)
    array = values.to_numpy()
    return array if names is None or classes is None else in_class_order(array, names, classes, argument)


def normalized(y_true, y_pred, scores, labels, multilabel: bool):
    """``evaluate``'s data arguments read by the rules above -> ``(y_true, y_pred, scores, labels)``.

    >>> normalized([[1], [0]], [[1], [1]], None, None, False)[:2]
    ([1, 0], [1, 1])
    """
    labels = from_tensor(labels)
    if multilabel:
        classes = (label_list(np.asarray(labels, dtype=object).ravel().tolist()) if labels is not None
                   else column_names(from_tensor(y_true)) or column_names(from_tensor(scores)))
        y_true, y_pred = _indicators(y_true, classes, "y_true"), _indicators(y_pred, classes, "y_pred")
        if scores is not None:
            scores, classes = read_scores(scores, classes, multilabel=True)
        return y_true, y_pred, scores, labels if labels is not None else classes
    y_true, y_pred = one_label_per_sample(y_true, "y_true"), one_label_per_sample(y_pred, "y_pred")
    if scores is not None:
        scores, labels = read_scores(scores, labels, y_true)
    return y_true, y_pred, scores, labels
