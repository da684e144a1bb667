"""Metadata of compiled metrics, as generated modules declare it (``INFO``), and id lookup.

``__all__`` lists what generated modules import. :func:`find_metric` resolves metric ids for
the runtime's own helpers (a metric parameter such as ``iba``'s ``base`` names another
metric) through the lookup that :mod:`metricc.api.evaluate` installs: the catalog is
built from the generated modules, which import the runtime, so the runtime's lower modules
cannot import it themselves.

>>> from metricc.generated import CATALOG
>>> CATALOG["ppv"].id
'precision'
>>> find_metric("ppv").id
'precision'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from metricc.core.errors import InputError

__all__ = ["ParamInfo", "Band", "Scale", "MetricInfo", "Catalog"]  # what generated modules import (compiler/names.py)


@dataclass(frozen=True)
class ParamInfo:
    name: str
    kind: str  # "scalar" | "class_vector" | "class_matrix" | "metric"
    default: float | str | None  # None: computed from the counts; metric: a metric id; class_matrix: a formula of i, j, C
    domain: str


@dataclass(frozen=True)
class Band:
    """A labelled interval of an interpretation scale: ``Band("Fair", 0.2, 0.4, True, False)`` is [0.2, 0.4)."""

    label: str
    low: float
    high: float
    low_closed: bool
    high_closed: bool

    def contains(self, value):
        """Elementwise: is ``value`` (a number or numpy array) in the interval?"""
        above = (value >= self.low) if self.low_closed else (value > self.low)
        below = (value <= self.high) if self.high_closed else (value < self.high)
        return above & below

    @property
    def interval(self) -> str:
        ends = ["-inf" if v == -math.inf else "inf" if v == math.inf else f"{v:g}" for v in (self.low, self.high)]
        return f"{'[' if self.low_closed else '('}{ends[0]}, {ends[1]}{']' if self.high_closed else ')'}"


@dataclass(frozen=True)
class Scale:
    """A published interpretation scale of a metric (Landis and Koch for kappa), bands upward."""

    id: str
    name: str
    references: tuple[str, ...]
    bands: tuple[Band, ...]
    note: str = ""
    gaps: bool = False


@dataclass(frozen=True)
class MetricInfo:
    id: str
    name: str
    aliases: tuple[str, ...]
    description: str
    references: tuple[str, ...]
    level: str  # "class" | "aggregate" | "matrix" | "curve" | "score"
    averages: tuple[str, ...]
    default_average: str | None
    range: tuple[float, float]
    higher_is_better: bool | None  # None: a statistic with no better direction
    params: tuple[ParamInfo, ...]
    formula: str
    simplified: str
    undefined: tuple[str, ...]
    function: Callable
    equivalences: tuple[str, ...] = ()  # statements the compiler proved, in words
    per_instance: bool = False  # aggregate over samples(...) terms: takes per-instance counts (..., N)
    indicator_truth: bool = False  # score level: y_true is the matrix Y (n, C) itself (0/1 indicators or graded relevance)
    affine: tuple[str, ...] = ()  # class-vector parameters the value is proved affine in: sweep's matrix-product form
    interpretation: tuple[Scale, ...] = ()  # published scales naming ranges of the value; the first is the default
    gradient: Callable | None = None  # delta-method gradient (metricc.runtime.gradient), None: no_delta says why
    no_delta: str = ""
    proportion: tuple[tuple[str, ...], ...] = ()  # (successes, trials): count names, or matrix cells
    # Curve level: the per-curve kernel the function averages, count curves in, (values,
    # undefined) out; how threshold counts merged without the scores reach the metric.
    curve_kernel: Callable | None = None
    curve_params: Callable | None = None  # its scalar parameters checked, as the kernel takes them


# torchmetrics names its classes by task (BinaryF1Score, MulticlassCohenKappa): the metric is the rest.
_TASK_PREFIXES = ("binary", "multiclass", "multilabel")
# PyCM names averaged statistics by a trailing mode ("F1 Macro", "TPR Micro").
_AVERAGE_WORDS = ("micro", "macro", "weighted", "samples", "geometric")


def name_key(name: str) -> str:
    """How names are compared: letters and digits, lower case. ``"Scott PI"``, ``"scott-pi"``,
    ``"scott_pi"`` and ``"ScottPi"`` are one name.

    >>> name_key("Matthews_CorrCoef"), name_key("F1 Macro")
    ('matthewscorrcoef', 'f1macro')
    """
    return "".join(ch for ch in str(name).lower() if ch.isalnum())


class Catalog:
    """Metrics by id, also reachable by alias and by any spelling of either (:func:`name_key`)."""

    def __init__(self, infos: Iterable[MetricInfo]) -> None:
        self._by_id = {info.id: info for info in infos}
        self._names = dict(self._by_id)
        for info in self._by_id.values():
            self._names.update({alias: info for alias in info.aliases})
        self._keys = {name_key(name): info for name, info in self._names.items()}
        self._shown = {name_key(name): name for name in self._names}

    def __getitem__(self, name: str) -> MetricInfo:
        info, average = self.find(name)
        if average is not None:
            raise InputError("metric", f"'{name}' names {info.id} averaged {average}: ask for '{info.id}' "
                                       f"with average='{average}'")
        return info

    def find(self, name: str) -> tuple[MetricInfo, str | None]:
        """The metric a user's name means, and the averaging mode the name carries, if any.

        An id or alias in any spelling (``"PLR"``, ``"Matthews CorrCoef"``), a torchmetrics
        class name (``"MulticlassCohenKappa"``: the task prefix is dropped), or a PyCM
        averaged statistic (``"F1 Macro"`` is ``f1`` with ``macro``).
        """
        if name in self._names:
            return self._names[name], None
        key = name_key(name)
        info = self._by_key(key)
        if info is not None:
            return info, None
        for average in _AVERAGE_WORDS:
            if key.endswith(average) and len(key) > len(average):
                info = self._by_key(key[: -len(average)])
                if info is not None and average in info.averages:
                    return info, average
        import difflib

        close = difflib.get_close_matches(key, sorted(self._keys), n=1)
        hint = f"; did you mean '{self._shown[close[0]]}'?" if close else "; `metricc list` shows them all"
        raise InputError("metric", f"unknown metric '{name}'{hint}")

    def _by_key(self, key: str) -> MetricInfo | None:
        if key in self._keys:
            return self._keys[key]
        prefix = next((p for p in _TASK_PREFIXES if key.startswith(p) and key[len(p):] in self._keys), None)
        return self._keys[key[len(prefix):]] if prefix else None

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def values(self) -> list[MetricInfo]:
        return list(self._by_id.values())


_lookup: Callable[[str], MetricInfo] | None = None


def install_lookup(lookup: Callable[[str], MetricInfo]) -> None:
    """Resolve metric ids with ``lookup`` from now on (``evaluate.metric``, on import)."""
    global _lookup
    _lookup = lookup


def find_metric(name: str) -> MetricInfo:
    """The metric with id or alias ``name``, from the installed catalog lookup."""
    if _lookup is None:  # metricc.runtime's __init__ imports evaluate, which installs it
        raise RuntimeError("no metric catalog is installed: import metricc.runtime")
    return _lookup(name)
