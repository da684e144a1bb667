"""One ``evaluate`` call, read and checked once: the requested metrics with their averaging,
the data as :mod:`metricc.runtime.inputs` reads it, the parameters, and what every input
kind then asks of it (the positive-class guard of binary averaging, the class a ``pos_label``
names, a metric's keyword arguments).

The modules of the input kinds (:mod:`.evaluate_scores`, :mod:`.evaluate_counts`) and of the
intervals (:mod:`.evaluate_intervals`) take this object instead of twenty keywords, and the
counts read from labels, a matrix or counts are read at most once per call
(:meth:`EvaluationRequest.counted`), whether for the values or for their intervals.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from metricc.api import read_inputs
from metricc.core.errors import InputError
from metricc.runtime import averaging, confusion, per_class
from metricc.runtime.registry import MetricInfo

__all__ = ["EvaluationRequest", "Requested", "checked_entries", "per_class_values", "pos_index", "requested_metrics", "sorted_labels"]


class Requested(NamedTuple):
    """One requested value: the key it is returned under, the metric, its own averaging as
    requested (``asked``, None: none of its own) and the averaging it is computed with
    (``mode``: its own, else the call's ``average=``, else the metric's default)."""

    key: str
    info: MetricInfo
    asked: str | None
    mode: str | None
    scored: bool = False  # curve or score level: read off the scores, not the counts
    labelled: bool = False  # one value per class (:func:`per_class_values`), returned with the class labels


def requested_metrics(metrics, lookup) -> list[tuple[str, MetricInfo, str | None]]:
    """``metrics`` as ``(key, info, asked)``: one entry or a sequence of ids, ``"id:average"``
    strings and ``(id, average)`` tuples, each keyed by its string as requested (a tuple as
    ``"id:average"``); ``lookup`` resolves an id or alias. A list of names asked for again (a
    loop of small calls) is resolved once: the catalog does not change within a process."""
    if isinstance(metrics, list) and all(isinstance(entry, (str, tuple)) for entry in metrics):
        try:
            return list(_resolved_list(tuple(metrics), lookup))
        except TypeError:  # an entry that cannot be hashed: resolved (and refused) below
            pass
    return _resolve(metrics, lookup)


@functools.lru_cache(maxsize=256)
def _resolved_list(metrics: tuple, lookup) -> tuple:
    return tuple(_resolve(list(metrics), lookup))


def _resolve(metrics, lookup) -> list[tuple[str, MetricInfo, str | None]]:
    if isinstance(metrics, (str, tuple)):
        metrics = [metrics]
    if isinstance(metrics, (bytes, Mapping)) or not isinstance(metrics, Sequence | np.ndarray):
        raise InputError("metrics", f"expected a metric id or a list of ids, got {type(metrics).__name__}")
    entries = list(metrics)
    if not entries:
        raise InputError("metrics", "name at least one metric")
    found = []
    for entry in entries:
        if isinstance(entry, tuple) and len(entry) == 2 and all(isinstance(part, str) for part in entry):
            name, own = entry
            key = f"{name}:{own}"
        elif isinstance(entry, str):
            key = entry
            name, _, own = entry.partition(":")
            own = own if ":" in entry else None
        else:
            raise InputError("metrics", f"expected metric ids (strings), got {entry!r}; "
                                        "give an averaging as 'id:average' or (id, average)")
        info = lookup(name)
        if own is not None:
            if not info.per_class:
                raise InputError("metrics", f"{key!r}: {info.id} is a {info.level}-level metric without averaging; "
                                            f"ask for {name!r}")
            if own not in info.averages:
                raise InputError("metrics", f"{key!r}: {info.id} does not support {own!r} averaging; "
                                            f"choose one of {', '.join(info.averages)}")
        found.append((key, info, own))
    return found


@dataclass
class EvaluationRequest:
    """What one call asks for, checked: built once by :meth:`build`, read by every input kind."""

    requested: list[Requested]
    y_true: object
    y_pred: object
    labels: object
    matrix: object
    orientation: str
    counts: object
    scores: object
    multilabel: bool
    average: str | None
    params: dict
    weights: object
    pos_label: object
    zero_division: object
    relevance: object
    relevance_order: object
    probabilistic: str | None
    signature: tuple | None = None  # the hashable key of the metrics, averaging and parameter names (None: none)
    _counted: read_inputs.Counted | None = field(default=None, repr=False)

    @classmethod
    def build(cls, metrics, lookup, *, params, multilabel, average, **data) -> EvaluationRequest:
        """The request, with every check that does not need the data: metric names, averaging
        modes and parameter names. A loop of small calls asking for the same metrics, averaging
        and parameter names checks them once (:func:`checked_entries`, keyed by those)."""
        signature = _signature(metrics, lookup, average, params, multilabel)
        if signature is None:  # not hashable, or wrong: checked (and refused) in the order below
            entries = requested_metrics(metrics, lookup)
        if params is not None and not isinstance(params, Mapping):
            raise InputError("params", f"expected a mapping {{parameter: value}}, got {type(params).__name__}")
        if not isinstance(multilabel, (bool, np.bool_)):
            raise InputError("multilabel", f"expected True or False, got {multilabel!r}")
        params = dict(params or {})
        if signature is None:
            requested, metric_params = _checked(entries, average, frozenset(params))
        else:
            requested, metric_params = checked_entries(signature)
        if metric_params:
            params.update({name: _resolved(name, params[name], lookup) for name in metric_params & set(params)})
        return cls(list(requested), params=params, multilabel=multilabel, average=average, signature=signature, **data)

    @property
    def keys(self) -> list[str]:
        return [r.key for r in self.requested]

    def counted(self) -> read_inputs.Counted:
        """The labels, matrix or counts of the call read once: for the values and their intervals."""
        if self._counted is None:
            self._counted = read_inputs.read(self.y_true, self.y_pred, self.labels, self.matrix, self.counts,
                                             self.multilabel, self.orientation)
        return self._counted

    def kwargs(self, info: MetricInfo, params: Mapping | None = None) -> dict:
        """The keyword arguments every call of ``info.function`` takes: its parameters given, and
        ``zero_division``."""
        params = self.params if params is None else params
        return {**{p.name: params[p.name] for p in info.params if p.name in params},
                "zero_division": self.zero_division}

    def averaging(self, r: Requested, n_classes: int, class_labels) -> dict:
        """``average``, ``weights`` and ``pos_label`` (as a class index) of a per-class metric,
        after the guard of binary averaging (:meth:`guard_binary`)."""
        self.guard_binary(r, n_classes, class_labels)
        return {"average": r.mode, "weights": self.weights,
                "pos_label": pos_index(self.pos_label, class_labels, n_classes)}

    def guard_binary(self, r: Requested, n_classes: int, class_labels) -> None:
        """Binary averaging reports one class: on more than two classes that class must be named
        (scikit-learn refuses too), else a multi-class result would silently be one class's value.
        With labels that are not numbers (``benign``, ``malignant``) it must be named as well:
        "the second sorted label" is no answer a reader can see in ``f1: 0.927`` (scikit-learn
        refuses string labels without ``pos_label`` for the same reason). ``class_labels``: the
        labels, or a function giving them (read only when the guard applies)."""
        if not averaging.positive_class(r.mode) or self.pos_label is not None:
            return
        class_labels = class_labels() if callable(class_labels) else class_labels
        info = r.info
        other = ", ".join(repr(a) for a in info.averages if not (averaging.positive_class(a) or averaging.per_instance(a)))
        how = f"averages {r.mode!r} by default" if (r.asked or self.average) is None else f"with average={r.mode!r}"
        if n_classes > 2:
            raise InputError("average", f"{info.id} {how}, the value of one class; with {n_classes} classes "
                                        f"name that class (pos_label=) or choose another average ({other})")
        named = [label for label in ([] if class_labels is None else per_class.label_list(class_labels))
                 if not isinstance(label, (int, float, np.number, bool, np.bool_))]
        if named:
            shown = ", ".join(repr(label) for label in per_class.label_list(class_labels))
            raise InputError("pos_label", f"{info.id} {how}, the value of one class, and the labels ({shown}) are not "
                                          f"numbers: name the positive class (pos_label=) or choose another average "
                                          f"({other})")

    def labelled(self, results: Mapping, class_labels, n_classes: int) -> dict:
        """The results in request order; per-class values (average ``none``) carry their class
        labels as :class:`~metricc.runtime.per_class.ClassValues` (class indices without labels)."""
        out = {}
        for r in self.requested:
            value = results[r.key]
            out[r.key] = per_class.with_labels(value, class_labels, n_classes) if r.labelled else value
        return out


def _signature(metrics, lookup, average, params, multilabel) -> tuple | None:
    """``(metrics, whether they came as a list, lookup, average, parameter names)`` when all
    are hashable and of the types asked for, else None."""
    if (not isinstance(metrics, (list, tuple, str)) or (params is not None and not isinstance(params, Mapping))
            or not isinstance(multilabel, (bool, np.bool_))):
        return None
    listed = isinstance(metrics, list)
    signature = (tuple(metrics) if listed else metrics, listed, lookup, average, frozenset(params or ()))
    try:
        hash(signature)
    except TypeError:
        return None
    return signature


@functools.lru_cache(maxsize=256)
def checked_entries(signature: tuple) -> tuple[tuple[Requested, ...], frozenset]:
    """The requested values of a signature (:func:`_signature`), checked once per process."""
    metrics, listed, lookup, average, param_names = signature
    return _checked(requested_metrics(list(metrics) if listed else metrics, lookup), average, param_names)


def _checked(entries, average, param_names: frozenset) -> tuple[tuple[Requested, ...], frozenset]:
    """The requested values, their parameter names and averaging checked; and the names of
    the parameters that name a metric (resolved per call: their values may differ)."""
    unknown = sorted(param_names - {p.name for _, info, _ in entries for p in info.params})
    if unknown:
        raise InputError("params", f"no requested metric has a parameter '{unknown[0]}'")
    if average is not None:
        unsupported = [info.id for _, info, asked in entries if asked is None and info.per_class
                       and not info.thresholds and average not in info.averages]
        if unsupported:
            raise InputError("average", f"{unsupported[0]} does not support {average!r} averaging")
    metric_params = frozenset(p.name for _, info, _ in entries for p in info.params if p.kind == "metric")
    requested = []
    for key, info, asked in entries:
        r = Requested(key, info, asked, asked or average or info.default_average, info.needs_scores)
        requested.append(r._replace(labelled=per_class_values(r)))
    return tuple(requested), metric_params


def _resolved(name: str, value, lookup):
    """A metric parameter's metric id (alone or as ``(id, {parameter: value})``) resolved once per
    call, so the kernel is handed the metric itself; other values are left for it to refuse."""
    bound = None
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], Mapping):
        value, bound = value
    if not isinstance(value, str):
        return value if bound is None else (value, bound)
    try:
        info = lookup(value)
    except InputError as error:
        raise InputError(name, error.message) from None
    return info if bound is None else (info, bound)


def per_class_values(r: Requested) -> bool:
    """Whether the value is one per class (labelled with the classes): averaging ``none``."""
    return averaging.per_class(r.mode) and (r.info.per_class or r.info.needs_scores)


def pos_index(pos_label, class_labels, n_classes: int) -> int:
    """The index of the class ``pos_label`` names among ``class_labels``; by default the
    second class, as in scikit-learn (single-class data needs ``labels=`` or ``pos_label=``)."""
    if pos_label is None:
        return 1
    if class_labels is None:
        return pos_label
    matches = np.flatnonzero(np.asarray(class_labels, dtype=object) == pos_label)
    if matches.size == 0:
        raise InputError("pos_label", f"{pos_label!r} is not one of the labels {np.asarray(class_labels).tolist()!r}")
    return int(matches[0])


def sorted_labels(y_true) -> list:
    """The distinct true labels in order: the classes a named ``pos_label`` is looked up in."""
    try:
        return sorted(set(confusion.label_array(y_true, "y_true", max_ndim=1).tolist()))
    except TypeError:
        raise InputError("y_true", "labels of mixed types cannot be ordered; give labels=") from None

