"""``--metric`` requests: ids, ``id:average``, ``all`` and the levels as families.

``metricc eval --metric f1:macro --metric f1:weighted --metric accuracy`` evaluates F1 twice;
``--metric all`` every metric the input can give, ``--metric class`` (``aggregate``,
``matrix``, ``curve``, ``score``) every metric of that level, ``--metric class:micro`` each
of them under one average (those that have it). Results are keyed by the request as written
(``f1:macro``); a metric reached through a family is keyed by its id, or ``id:average`` when
its own default average cannot apply: binary averaging reports one class, so on more than two
classes, or on classes that are not numbers without ``--pos-label``, a family evaluates those
metrics with ``macro`` and says so in the key.

>>> [r.key for r in expand(["f1:macro", "accuracy"], None, "matrix", 3)]
['f1:macro', 'accuracy']
>>> [r.key for r in expand(["class"], None, "matrix", 3)][:3]
['adjusted_f_measure:macro', 'adjusted_g_mean:macro', 'automatic_manual']
"""

from __future__ import annotations

from typing import NamedTuple

from metricc.core.errors import InputError
from metricc.runtime import averaging

__all__ = ["FAMILIES", "Request", "evaluate_requests", "expand"]

FAMILIES = ("class", "aggregate", "matrix", "curve", "score")
# The levels each kind of input gives (a kind as returned by :func:`input_kind`).
_LEVELS = {
    "matrix": ("class", "aggregate", "matrix"),
    "multilabel": ("class", "aggregate"),
    "scores": ("curve", "score"),
    "scores+labels": ("curve", "score", "class", "aggregate", "matrix"),
    "probabilistic": ("curve", "score", "matrix"),
}


class Request(NamedTuple):
    """One value to compute: its output key, the metric id and the average (None: the default)."""

    key: str
    id: str
    average: str | None


def input_kind(data: dict) -> str:
    """Which levels the data of ``evaluate`` can feed (see ``_LEVELS``)."""
    if data.get("scores") is not None:
        if data.get("probabilistic"):
            return "probabilistic"
        return "scores+labels" if data.get("y_pred") is not None else "scores"
    return "multilabel" if data.get("multilabel") else "matrix"


def _split(text: str) -> tuple[str, str | None]:
    name, sep, average = text.partition(":")
    name, average = name.strip(), average.strip()
    if not name or (sep and not average):
        raise InputError("--metric", f"expected ID, ID:AVERAGE, all or a level ({', '.join(FAMILIES)}), got {text!r}")
    return name, average or None


def expand(texts: list[str], average: str | None, kind: str, n_classes: int | None,
           named_classes: bool = False) -> list[Request]:
    """The ``--metric`` texts as requests; ``average`` is ``--average`` (None: each metric's own).
    ``named_classes``: the classes are not numbers and no ``--pos-label`` names the positive one,
    so binary averaging cannot apply to a family's metric by default (it gets macro, said in its key)."""
    from metricc.api import catalog

    requests: list[Request] = []
    for text in texts:
        name, own = _split(text)
        if name == "all" or name in FAMILIES:
            levels = _LEVELS[kind] if name == "all" else (name,)
            if name != "all" and name not in _LEVELS[kind]:
                raise InputError("--metric", f"{name}-level metrics need other input; this input gives "
                                             f"{', '.join(_LEVELS[kind])}")
            for info in catalog().values():
                if info.level in levels and _applies(info, kind):
                    chosen = own or average
                    if info.averages and chosen is not None and chosen not in info.averages:
                        continue
                    requests.append(_family_request(info, chosen, n_classes, named_classes))
            continue
        try:
            info, named = catalog().find(name)  # "F1 Macro" names f1 averaged macro
        except InputError as error:
            raise InputError("--metric", error.message) from None
        if named is not None and own is not None and own != named:
            raise InputError("--metric", f"{text}: {name!r} already names the {named} average")
        own = own or named
        if own is not None and not info.averages:
            raise InputError("--metric", f"{text}: {info.id} is a {info.level}-level metric, one value per matrix; "
                                         "it has no averages")
        if own is not None and own not in info.averages:
            raise InputError("--metric", f"{text}: {info.id} averages {', '.join(info.averages)}, not {own!r}")
        requests.append(Request(text.strip(), info.id, own))
    keys = [r.key for r in requests]
    repeated = next((k for k in keys if keys.count(k) > 1), None)
    if repeated:
        raise InputError("--metric", f"{repeated} is requested twice")
    return requests


def _applies(info, kind: str) -> bool:
    """Metrics over instances need multi-label indicator rows; others take any input of their level."""
    samples = info.per_instance or averaging.per_instance(info.default_average)
    return kind == "multilabel" or not samples


def _family_request(info, average: str | None, n_classes: int | None, named_classes: bool = False) -> Request:
    if average is None and averaging.positive_class(info.default_average) and ((n_classes or 0) > 2 or named_classes):
        return Request(f"{info.id}:macro", info.id, "macro")
    key = info.id if average is None or not info.averages else f"{info.id}:{average}"
    return Request(key, info.id, average if info.averages else None)


def evaluate_requests(requests: list[Request], average: str | None, **kwargs) -> dict:
    """``{key: value}``: one ``evaluate`` call per distinct average, in request order."""
    from metricc.api import catalog, evaluate

    by_average: dict[str | None, list[Request]] = {}
    for request in requests:
        by_average.setdefault(request.average or average, []).append(request)
    params = dict(kwargs.pop("params", None) or {})
    declared = {p.name for r in requests for p in catalog()[r.id].params}
    unknown = sorted(set(params) - declared)
    if unknown:
        raise InputError("params", f"no requested metric has a parameter '{unknown[0]}'")
    values = {}
    for chosen, group in by_average.items():
        ids = list(dict.fromkeys(r.id for r in group))
        own = {p.name for i in ids for p in catalog()[i].params}  # each call gets the parameters its metrics declare
        relevance = {k: v for k, v in kwargs.items() if k in ("relevance", "relevance_order") and v is not None}
        rest = {k: v for k, v in kwargs.items() if k not in relevance}
        if "relevance" not in own and relevance and any("relevance" in {p.name for p in catalog()[r.id].params}
                                                        for r in requests):
            relevance = {}  # this group's metrics take no relevance; another group's do
        result = evaluate(ids, average=chosen, params={k: v for k, v in params.items() if k in own},
                          **relevance, **rest)
        values.update({r.key: result[r.id] for r in group})
    return {r.key: values[r.key] for r in requests}
