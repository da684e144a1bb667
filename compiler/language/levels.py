"""The levels of the spec language as data: what a formula at each level may say.

A spec's ``level`` decides what its formula is a function of (one class's counts, averaged
class metrics, a whole confusion matrix, the counts at every score threshold, a score
matrix). Everything that differs between levels is one row of :data:`RULES`; the parser,
the lowering and the prover read the row instead of comparing level strings.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

import sympy

from metricc.compiler.language import averaging, symbols

__all__ = ["Average", "Level", "LevelRules", "Partials", "RULES", "rules"]


class Level(str, enum.Enum):
    """A spec's ``level``; members equal their strings, so ``Level.CLASS == "class"``."""

    CLASS = "class"
    AGGREGATE = "aggregate"
    MATRIX = "matrix"
    CURVE = "curve"
    SCORE = "score"

    def __str__(self) -> str:
        return self.value


class Partials(str, enum.Enum):
    """What the delta method differentiates a level's value in (:mod:`..analysis.delta`)."""

    COUNTS = "counts"  # one class's TP, FP, FN, TN (and each metric parameter, chained)
    TERMS = "terms"  # the averaged class metrics of the formula, each differentiated in its counts
    CELLS = "cells"  # the cells of the confusion matrix

    def __str__(self) -> str:
        return self.value


class _Named(str, enum.Enum):
    def __str__(self) -> str:
        return self.value


# An averaging mode of class-level metrics, in the order specs and documents list them: the
# rows of the averaging table (:mod:`.averaging`), ``Average.MACRO == "macro"``.
Average = _Named("Average", [(name.upper(), name) for name in averaging.MODES])


@dataclass(frozen=True)
class LevelRules:
    """What one level's formulas may use, and what its metrics are a function of.

    ``names``: plain names and the symbols they stand for. ``needs_index``: names that are
    an error without an index, with the hint to show. ``indexed``: ``Sum()`` and ``x[...]``
    are allowed. ``averages_metrics``: ``macro(recall)`` and the like are allowed.
    ``inlines_references``: a reference to another metric is replaced by its formula (class:
    its per-class formula; curve: its curve formula) rather than kept as an averaged term.
    ``references``: the levels of the metrics a formula may reference. ``per_class``: the
    metric is one value per class (and supports averaging modes). ``of_confusion_matrix``:
    the value is a function of the confusion matrix alone (so equivalences can be proved).
    ``value_unit``: what one value of the metric describes, in words. ``partials``: what the
    delta method's gradient is taken in (None: the value is no function of a confusion matrix).
    """

    level: Level
    names: Mapping[str, sympy.Expr]
    needs_index: Mapping[str, str]
    indexed: bool
    averages_metrics: bool
    inlines_references: bool
    references: frozenset[Level]
    per_class: bool
    of_confusion_matrix: bool
    value_unit: str
    partials: Partials | None = None

    def sum_upper(self, index: str) -> sympy.Expr:
        """The last value of a summation index: thresholds, samples (s, u, v) or classes."""
        if self.level is Level.CURVE:
            return symbols.THRESHOLDS - 1
        if self.level is Level.SCORE and symbols.is_sample_index_name(index):
            return symbols.N_TOTAL - 1
        return symbols.N_CLASSES - 1


def _frozen(mapping: dict) -> Mapping:
    return MappingProxyType(mapping)


_PER_CLASS_COUNT = "'{name}' is a per-class count: aggregate formulas use averaged metrics, e.g. macro(recall)"
_THRESHOLD_COUNT = "'{name}' is a count at each threshold: write {name}[i] (or {name}[i - 1]) inside Sum(..., i)"
_MATRIX_COUNT = "'{name}' is a per-class count; matrix formulas use M[i, j], t[k], p[k], n"

RULES: Mapping[Level, LevelRules] = _frozen({
    Level.CLASS: LevelRules(
        Level.CLASS,
        names=_frozen({**symbols.COUNT_NAMES, "n": symbols.TP + symbols.FP + symbols.FN + symbols.TN}),
        needs_index=_frozen({}),
        indexed=False,
        averages_metrics=False,
        inlines_references=True,
        references=frozenset({Level.CLASS}),
        per_class=True,
        of_confusion_matrix=True,
        value_unit="one value per class",
        partials=Partials.COUNTS,
    ),
    Level.AGGREGATE: LevelRules(
        Level.AGGREGATE,
        names=_frozen({}),
        needs_index=_frozen({name: _PER_CLASS_COUNT for name in symbols.COUNT_NAMES}),
        indexed=False,
        averages_metrics=True,
        inlines_references=False,
        references=frozenset({Level.CLASS}),
        per_class=False,
        of_confusion_matrix=True,
        value_unit="one value per matrix",
        partials=Partials.TERMS,
    ),
    Level.MATRIX: LevelRules(
        Level.MATRIX,
        names=_frozen({"n": symbols.N_TOTAL, "C": symbols.N_CLASSES}),
        needs_index=_frozen({"M": "'M' needs an index, e.g. M[k]", "t": "'t' needs an index, e.g. t[k]",
                             "p": "'p' needs an index, e.g. p[k]",
                             **{name: _MATRIX_COUNT for name in symbols.COUNT_NAMES}}),
        indexed=True,
        averages_metrics=True,
        inlines_references=False,
        references=frozenset({Level.CLASS}),
        per_class=False,
        of_confusion_matrix=True,
        value_unit="one value per matrix",
        partials=Partials.CELLS,
    ),
    Level.CURVE: LevelRules(
        Level.CURVE,
        names=_frozen(dict(symbols.CURVE_TOTALS)),
        needs_index=_frozen({name: _THRESHOLD_COUNT for name in symbols.CURVE_NAMES}),
        indexed=True,
        averages_metrics=False,  # curve metrics are averaged by the caller (average=...)
        inlines_references=True,
        references=frozenset({Level.CURVE}),
        per_class=False,
        of_confusion_matrix=False,
        value_unit="one value per matrix",
        partials=None,
    ),
    Level.SCORE: LevelRules(
        Level.SCORE,
        names=_frozen({"n": symbols.N_TOTAL, "C": symbols.N_CLASSES}),
        needs_index=_frozen({"S": "'S' needs a sample and a class index, e.g. S[s, k]",
                             "Y": "'Y' needs a sample and a class index, e.g. Y[s, k]"}),
        indexed=True,
        averages_metrics=True,
        inlines_references=False,
        references=frozenset(),  # a score formula has no counts for a class metric to use
        per_class=False,
        of_confusion_matrix=False,
        value_unit="one value per data set",
        partials=None,
    ),
})


def rules(level: str) -> LevelRules:
    """The row of :data:`RULES` for ``level`` (a :class:`Level` or its string)."""
    return RULES[Level(level)]
