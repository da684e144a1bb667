"""Metadata of compiled metrics, as generated modules declare it (``INFO``), and id lookup.

``__all__`` lists what generated modules import. :func:`find_metric` resolves metric ids for
the runtime's own helpers (a metric parameter such as ``iba``'s ``base`` names another
metric) through the lookup that :mod:`metricc.runtime.evaluate` installs: the catalog is
built from the generated modules, which import the runtime, so the runtime's lower modules
cannot import it themselves.

>>> from metricc.generated import CATALOG
>>> CATALOG["ppv"].id
'precision'
>>> find_metric("ppv").id
'precision'
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from metricc.runtime.errors import InputError

__all__ = ["ParamInfo", "MetricInfo", "Catalog"]


@dataclass(frozen=True)
class ParamInfo:
    name: str
    kind: str  # "scalar" | "class_vector" | "metric"
    default: float | str | None  # None: computed from the counts; metric: a metric id
    domain: str


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
    higher_is_better: bool
    params: tuple[ParamInfo, ...]
    formula: str
    simplified: str
    undefined: tuple[str, ...]
    function: Callable
    equivalences: tuple[str, ...] = ()  # statements the compiler proved, in words
    per_instance: bool = False  # aggregate over samples(...) terms: takes per-instance counts (..., N)
    indicator_truth: bool = False  # score level: y_true is the multi-label indicator matrix Y (n, C) itself
    affine: tuple[str, ...] = ()  # class-vector parameters the value is proved affine in: sweep's matrix-product form


class Catalog:
    """Metrics by id, also reachable by alias."""

    def __init__(self, infos: Iterable[MetricInfo]) -> None:
        self._by_id = {info.id: info for info in infos}
        self._names = dict(self._by_id)
        for info in self._by_id.values():
            self._names.update({alias: info for alias in info.aliases})

    def __getitem__(self, name: str) -> MetricInfo:
        try:
            return self._names[name]
        except KeyError:
            import difflib

            close = difflib.get_close_matches(str(name), sorted(self._names), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else "; `metricc list` shows them all"
            raise InputError("metric", f"unknown metric '{name}'{hint}") from None

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
