"""Metadata of compiled metrics, as generated modules declare it (``INFO``), and id lookup.

``__all__`` lists what generated modules import. :func:`find_metric` resolves metric ids for
the runtime's own helpers (a metric parameter such as ``iba``'s ``base`` names another
metric) among the metrics generated modules declared: the catalog is built from the
generated modules, which import the runtime, so the runtime cannot import it. What a call of
a metric needs (``info.takes``, ``info.per_class``...) is read off its level (:mod:`.levels`).

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
from metricc.runtime.averaging import MODES
from metricc.runtime.levels import LEVELS

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
    scale_free: bool = False  # proved of degree 0 in the counts (graded relevance: in each sample's gains)
    # Curve level: the per-curve kernel the function averages, count curves in, (values,
    # undefined) out; how threshold counts merged without the scores reach the metric.
    curve_kernel: Callable | None = None
    curve_params: Callable | None = None  # its scalar parameters checked, as the kernel takes them
    # What the simplified formula reads (compiler/analysis/reads.py), so that consistent's
    # bounds need not parse it: one averaging of a class metric as (metric id, mode), like
    # macro(recall); the trace and n alone (accuracy); a cell off the diagonal; parameters.
    averaged_class_metric: tuple[str, str] | None = None
    only_trace: bool = False
    reads_off_diagonal: bool = False
    parameters_read: tuple[str, ...] = ()
    # Class level: the per-class kernel of whole float64 counts, (values, undefined) out, for
    # evaluate's fused plan of a metric set (api/evaluate_plan.py): no checks, no context.
    class_kernel: Callable | None = None
    # Aggregate level, for the same plan: the formula of the averaged terms, (value, undefined)
    # out, and the terms as (per-class kernel, averaging); None where the plan calls the function.
    term_kernel: Callable | None = None
    class_terms: tuple[tuple[Callable, str], ...] = ()

    def __post_init__(self) -> None:
        _DECLARED.setdefault(self.id, self)

    # What a call needs, read off the level's row (:mod:`.levels`): generated modules declare
    # only the level's name.
    @property
    def takes(self) -> str:
        """The function's positional inputs: ``"counts"``, ``"matrix"`` or ``"scores"``."""
        return LEVELS[self.level].takes

    @property
    def needs_scores(self) -> bool:
        """Curve and score level: ``y_true`` and a score matrix in, no counts."""
        return LEVELS[self.level].takes == "scores"

    @property
    def per_class(self) -> bool:
        """One value per class, averaged as asked (``average=``, ``"id:average"``)."""
        return LEVELS[self.level].per_class or bool(self.averages)

    @property
    def per_class_counts(self) -> bool:
        """Class level: one value per class from that class's TP, FP, FN, TN, so it averages
        over classes, or over instances (``samples``) of multi-label data."""
        return LEVELS[self.level].per_class and LEVELS[self.level].takes == "counts"

    @property
    def thresholds(self) -> bool:
        """Curve level: the value is read off the counts at every threshold of the scores."""
        return LEVELS[self.level].thresholds


# torchmetrics names its classes by task (BinaryF1Score, MulticlassCohenKappa): the metric is the rest.
_TASK_PREFIXES = ("binary", "multiclass", "multilabel")
# PyCM names averaged statistics by a trailing mode ("F1 Macro", "TPR Micro").
_AVERAGE_WORDS = tuple(m.name for m in MODES.values() if m.suffix)


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


# Every metric a generated module declared (``INFO = MetricInfo(...)``), by id, first
# declaration kept: importing any generated module imports the whole catalog, so a metric id a
# parameter names (``iba``'s ``base``) resolves here without the runtime importing the
# generated package above it.
_DECLARED: dict[str, MetricInfo] = {}
_declared_catalog: list[Catalog] = []


def find_metric(name: str) -> MetricInfo:
    """The declared metric with id or alias ``name`` (any spelling, as :class:`Catalog` reads it)."""
    if not _DECLARED:
        raise InputError("metric", f"no metric is declared yet, so '{name}' cannot be resolved: "
                                   "import metricc.generated")
    if not _declared_catalog or len(_declared_catalog[0]) != len(_DECLARED):
        _declared_catalog[:] = [Catalog(_DECLARED.values())]
    return _declared_catalog[0][name]
