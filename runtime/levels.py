"""The levels of compiled metrics as data: what a call of a metric's function takes and gives.

The compiler's :mod:`metricc.compiler.language.levels` says what a formula at each level may
use; this table says what the runtime needs to call the generated function. Generated modules
declare only the level's name (``MetricInfo(level="class", ...)``); :class:`~.registry.MetricInfo`
reads its row here (``info.takes``, ``info.per_class``, ``info.needs_scores``...), so no caller
compares level strings.

>>> LEVELS["curve"].takes, LEVELS["curve"].per_class
('scores', True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

__all__ = ["Level", "LEVELS", "TAKES"]

# What a generated function's positional inputs are, by level.
TAKES = ("counts", "matrix", "scores")


@dataclass(frozen=True)
class Level:
    """One level's calling convention.

    ``takes``: the positional inputs, per-class ``"counts"`` (TP, FP, FN, TN ``(..., C)``), a
    confusion ``"matrix"`` (``(..., C, C)``, or its :class:`~.terms.MatrixTerms`) or
    ``"scores"`` (``y_true`` and a score matrix). ``per_class``: every metric of the level is
    one value per class, averaged as the call asks (a matrix or score metric is so only when
    it declares averaging modes). ``thresholds``: the value is read off the counts at every
    threshold of the scores (curves), which take single-label and multi-label truth alike.
    """

    name: str
    takes: str
    per_class: bool
    thresholds: bool = False


LEVELS: Mapping[str, Level] = MappingProxyType({
    "class": Level("class", takes="counts", per_class=True),
    "aggregate": Level("aggregate", takes="counts", per_class=False),
    "matrix": Level("matrix", takes="matrix", per_class=False),
    "curve": Level("curve", takes="scores", per_class=True, thresholds=True),
    "score": Level("score", takes="scores", per_class=False),
})
