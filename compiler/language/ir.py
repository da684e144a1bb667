"""The compiler's typed, immutable intermediate representation.

A :class:`Metric` is what a spec means once its formula is built into sympy and every
reference to another metric is resolved. The analysis stage fills ``simplified``,
``undefined``, ``excused`` and ``equivalences`` with :func:`dataclasses.replace`; emitters
only read them and never run an analysis again.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy

from metricc.compiler.language import symbols
from metricc.compiler.language.levels import Level
from metricc.compiler.errors import Location

__all__ = ["Param", "DefaultGradient", "Term", "Equivalence", "Band", "Scale", "Metric"]


@dataclass(frozen=True)
class Param:
    """A metric parameter: a scalar (``beta``), one value per class (``kappa``), one per pair of
    classes (``distance[i, j]``) or a metric (``base``)."""

    name: str
    kind: str  # "scalar" | "class_vector" | "class_matrix" | "metric"
    default: sympy.Expr  # a number, (class_vector) a per-class formula over counts, (class_matrix) a formula of
    # the class indices i, j and C, (metric) the default metric's formula
    domain: tuple[sympy.Rel, ...]
    domain_text: str
    description: str
    location: Location
    reference: str = ""  # metric and class_matrix kinds: the default as written, e.g. "g_mean", "abs(i - j)"

    @property
    def symbol(self) -> sympy.Expr:
        """The parameter in formulas; a metric parameter stands for its per-class value."""
        if self.kind == "metric":
            return symbols.metric_value(self.name)
        return sympy.Symbol(self.name, real=True)


@dataclass(frozen=True)
class DefaultGradient:
    """The four partials of a class_vector parameter's default computed from the counts
    (preference_driven's ``kappa = (TP + FN) / n``), and where they are undefined: the runtime
    adds the metric's partial in the parameter times these when the parameter is left at its
    default (analysis/delta.py)."""

    name: str
    gradient: tuple[sympy.Expr, ...]
    undefined: tuple[sympy.Expr, ...] = ()


@dataclass(frozen=True)
class Term:
    """A class-level metric used inside an aggregate or matrix formula.

    ``mode`` is an averaging mode (``macro(precision)``) or ``None`` for the per-class value
    ``recall[k]`` of matrix formulas; ``weights`` names the class_vector parameter of
    ``weighted(recall, relevance)`` (None: support weights). ``expr`` is the metric's per-class formula over
    TP, FP, FN, TN with the bindings applied; ``symbol`` stands for the term in the formula.
    """

    symbol: sympy.Expr
    metric: str
    mode: str | None
    bindings: tuple[tuple[str, sympy.Expr], ...]
    expr: sympy.Expr
    simplified: sympy.Expr = sympy.S.Zero
    undefined: tuple[sympy.Expr, ...] = ()
    weights: str | None = None
    gradient: tuple[sympy.Expr, ...] = ()  # analysis/delta.py: partials in TP, FP, FN, TN
    gradient_undefined: tuple[sympy.Expr, ...] = ()

    @property
    def inner(self) -> str:
        """What the mode applies to: ``f_beta(beta=2)``, ``recall, relevance``."""
        return term_inner(self.metric, self.bindings, self.weights)

    @property
    def label(self) -> str:
        """Human name: ``macro(f_beta(beta=2))``, ``weighted(recall, relevance)``, ``recall[k]``."""
        return f"{self.mode}({self.inner})" if self.mode else f"{self.inner}[k]"


def term_inner(metric: str, bindings: tuple[tuple[str, sympy.Expr], ...], weights: str | None) -> str:
    """``f_beta(beta=2)``; with the weights of ``weighted(recall, relevance)``: ``recall, relevance``."""
    inner = metric
    if bindings:
        inner += "(" + ", ".join(f"{k}={v}" for k, v in bindings) + ")"
    return inner + (f", {weights}" if weights else "")


@dataclass(frozen=True)
class Equivalence:
    """A proved statement ``this metric (mode) == other metric (mode)``, and its scope.

    ``bindings`` / ``other_bindings`` fix parameters of either side to a value, as
    ``(name, value, kind)``; a ``class_vector`` takes that value in every class:
    ``preference_driven(kappa=1) [macro] = precision [macro]``. Mode ``none`` states the
    equality class by class. ``one_hot``: a side averages over instances (``samples``), so
    the statement is about single-label data read as one-hot indicator rows. Every proved
    pair is kept; ``stated`` marks the few that documents list (see ``prove._stated``).
    """

    mode: str | None
    other: str
    other_mode: str | None
    scope: str  # "all" (every class count) or "binary" (C = 2)
    method: str
    bindings: tuple[tuple[str, str, str], ...] = ()
    other_bindings: tuple[tuple[str, str, str], ...] = ()
    one_hot: bool = False
    stated: bool = True  # documentation states it; the others follow from the stated ones

    @property
    def scope_text(self) -> str:
        scope = "for every confusion matrix" if self.scope == "all" else "for two classes (C = 2)"
        return scope + (" of single-label data read as one-hot indicator rows" if self.one_hot else "")

    def text(self, metric_id: str) -> str:
        """The statement in words: ``preference_driven(kappa=1) [macro] = precision [macro] ...``."""
        scope = self.scope_text
        return f"{_variant_text(metric_id, self.mode, self.bindings)} = {_variant_text(self.other, self.other_mode, self.other_bindings)} {scope}"


def _variant_text(metric_id: str, mode: str | None, bindings: tuple[tuple[str, str, str], ...]) -> str:
    name = metric_id + ("(" + ", ".join(f"{k}={v}" for k, v, _ in bindings) + ")" if bindings else "")
    return f"{name} [{mode}]" if mode else name


@dataclass(frozen=True)
class Conditioning:
    """A metric's documented loss of float64 digits: its values are within ``1e-12 * scale`` of
    exact arithmetic (instead of ``1e-12 * |value|``), for the stated reason."""

    scale: sympy.Expr  # over the same counts and parameters as the formula; at least |value|
    text: str  # the scale as the spec writes it (with its let names), for documents
    reason: str
    location: Location


@dataclass(frozen=True)
class Band:
    """One named interval of a published interpretation scale: ``Fair`` on ``[0.2, 0.4)``."""

    label: str
    low: float
    high: float
    low_closed: bool
    high_closed: bool

    @property
    def interval(self) -> str:
        """``[0.2, 0.4)``, as a reader writes it."""
        return f"{'[' if self.low_closed else '('}{_end(self.low)}, {_end(self.high)}{']' if self.high_closed else ')'}"


def _end(value: float) -> str:
    return ("-inf" if value < 0 else "inf") if value in (float("inf"), float("-inf")) else f"{value:g}"


@dataclass(frozen=True)
class Scale:
    """A published interpretation scale of a metric's value (Landis and Koch for kappa)."""

    id: str
    name: str
    references: tuple[str, ...]
    bands: tuple[Band, ...]  # ordered from the lowest values up
    note: str = ""
    gaps: bool = False  # the published scale leaves some values of the range without a label


@dataclass(frozen=True)
class Metric:
    id: str
    name: str
    aliases: tuple[str, ...]
    description: str
    references: tuple[str, ...]
    level: Level
    params: tuple[Param, ...]
    averages: tuple[str, ...]
    default_average: str | None
    range: tuple[sympy.Expr, sympy.Expr]
    higher_is_better: bool | None  # None: a statistic with no better direction
    formula: str
    as_written: sympy.Expr  # the formula with metric references as named symbols, for display
    written: sympy.Expr  # references resolved: class level over TP, FP, FN, TN and parameters
    terms: tuple[Term, ...]
    source: str
    digest: str
    location: Location
    simplified: sympy.Expr = sympy.S.Zero
    undefined: tuple[sympy.Expr, ...] = ()
    excused: tuple[sympy.Expr, ...] = ()  # denominators whose vanishing only zeroes an xlogy term (0 log 0 = 0)
    equivalences: tuple[Equivalence, ...] = field(default=())
    scores: str = "any"  # curve and score levels: "probabilities" when rows must be distributions
    truth: str = "labels"  # score level: "indicator" (0/1) or "relevance" (graded) when y_true is the matrix Y itself
    whole_counts: bool = False  # matrix level: the formula counts pairs of samples or binomial trials, so fractions are refused
    key_locations: tuple[tuple[str, Location], ...] = ()  # where the spec writes formula, range, ...
    conditioning: Conditioning | None = None
    affine: tuple[str, ...] = ()  # class-vector parameters the value is affine in (analysis/affine.py)
    lets: tuple[tuple[str, str], ...] = ()  # the spec's let definitions as written (name, text), for documents
    interpretation: tuple[Scale, ...] = ()  # published scales naming ranges of the value; the first is the default
    per_class: str = ""  # matrix level: the free class index of a formula giving one value per class ("j")
    # analysis/delta.py: the delta-method gradient (class: partials in TP, FP, FN, TN, then one per
    # metric parameter and one per computed default; aggregate: in each term; matrix: dF/dM over
    # two free class indices), where it is undefined, why there is none, and (successes, trials)
    # when the metric is a proportion
    gradient: tuple[sympy.Expr, ...] = ()
    gradient_cell: tuple[sympy.Symbol, ...] = ()  # matrix level: the indices (a, b) of the cell M[a, b] of dF/dM
    gradient_undefined: tuple[sympy.Expr, ...] = ()
    default_gradients: tuple[DefaultGradient, ...] = ()  # class level: defaults computed from the counts
    no_delta: str = ""
    proportion: tuple[tuple[str, ...], ...] = ()

    def param(self, name: str) -> Param:
        return next(p for p in self.params if p.name == name)

    def key_location(self, key: str) -> Location:
        """Where the spec writes the value of top-level ``key`` (else where it writes its id)."""
        return dict(self.key_locations).get(key, self.location)
