"""Which catalog metric does a printed formula define? (``metricc identify``)

The formula is parsed (:mod:`.latex_formula`), evaluated at random data of three kinds and
compared with every catalog variant (metric x averaging mode) computed by the runtime:

- per-class counts of multi-label data (no single-label identities): equal there -> ``all``;
- confusion matrices of 3 and 4 classes: -> ``single-label``;
- 2 x 2 confusion matrices, class 1 positive: -> ``binary``;
- a formula over the instances of multi-label data (``\\frac{1}{n}\\sum_{i=1}^{n}``, ``|Y_i \\cap
  Z_i|``, ``I(Y_i = Z_i)``): multi-label data sets, against every averaging (samples too) -> ``all``.

A formula without class indices (``\\frac{TP}{TP+FP}``) is a per-class formula: equal to a
class-level metric on every count -> ``all`` (reported with averaging ``binary``). Candidates
are then proved symbolically (:mod:`.identify_proof`); the text output says which were proved
and which only agree numerically. When nothing matches, perturbations of the formula (one
count swapped for another, a square root dropped or added, the pairs k = j of a double sum
left out) find what differs; a formula with one free class index (Wang's CEN_j) is compared
class by class with the per-class matrix metrics (``class_cen``, averaging ``none``:
:mod:`.identify_per_class`), and one with free indices (CEN_j, AUC(j, k)) is summed over them
in the usual ways to find the metric it is a per-class value of (:mod:`.identify_free`). Formulas over samples' probabilities (``f(s,j)``, ``p(s,j)``) are
compared with the score- and curve-level metrics (:mod:`.identify_scores`).
"""

from __future__ import annotations

import dataclasses
import json

from metricc.compiler.audit.identify_differs import nearest as nearest_variants
from metricc.compiler.audit.identify_free import free_indices, nearest_aggregates
from metricc.compiler.audit.identify_numeric import numeric_matches
from metricc.compiler.audit.identify_per_class import per_class_matches
from metricc.compiler.audit.identify_proof import proved as proved_matches
from metricc.compiler.audit.latex_formula import parse_formula
from metricc.compiler.audit.notation import Notation, label_metric
from metricc.runtime.errors import InputError

__all__ = ["Match", "Nearest", "Identification", "identify"]

_SETTINGS = ("binary", "multiclass", "multilabel", "any")


@dataclasses.dataclass(frozen=True)
class Match:
    metric: str
    average: str | None
    holds: str  # "all" | "single-label" | "binary"
    proved: bool = False  # False: equal on every sampled point, but the proof failed or timed out


@dataclasses.dataclass(frozen=True)
class Nearest:
    metric: str
    average: str | None
    differs: str


@dataclasses.dataclass(frozen=True)
class Identification:
    parsed: str
    label: str | None
    matches: tuple[Match, ...]
    label_agrees: bool | None
    nearest: tuple[Nearest, ...]
    label_names: tuple[str | None, str | None] = (None, None)

    def to_json(self) -> dict:
        return {"parsed": self.parsed, "label": self.label,
                "matches": [{"metric": m.metric, "average": m.average, "holds": m.holds, "proved": m.proved}
                            for m in self.matches],
                "label_agrees": self.label_agrees,
                "nearest": [{"metric": n.metric, "average": n.average, "differs": n.differs} for n in self.nearest]}

    def text(self) -> str:
        lines = [f"parsed: {self.parsed}"]
        holds = {"all": "for every confusion matrix (and multi-label counts)",
                 "single-label": "for single-label data", "binary": "for two classes"}
        for m in self.matches:
            how = "proved symbolically" if m.proved else "confirmed numerically, not proved"
            lines.append(f"= {_variant(m.metric, m.average)} {holds[m.holds]} ({how})")
        if not self.matches:
            lines.append("no catalog metric matches")
        if self.label_agrees is False:
            metric, mode = self.label_names
            defined = _variant(self.matches[0].metric, self.matches[0].average) if self.matches else "no catalog metric"
            lines.append(f"labelled {_variant(metric, mode)}, but it defines {defined}")
        for n in self.nearest:
            lines.append(f"nearest: {_variant(n.metric, n.average)}: {n.differs}")
        return "\n".join(lines)


def _variant(metric: str, mode: str | None) -> str:
    return f"{metric} [{mode}]" if mode else metric


def identify(formula: str, notation: str = "latex", setting: str = "any",
             symbols_map: dict[str, str] | None = None) -> Identification:
    """Identify a printed formula; see the module docstring. Raises InputError for text that
    cannot be parsed (the command's exit code 2)."""
    if setting not in _SETTINGS:
        raise InputError("--setting", f"'{setting}' is not one of {', '.join(_SETTINGS)}")
    if notation not in ("latex", "text"):
        raise InputError("--notation", f"'{notation}' is not one of latex, text")
    best = None
    for n_means, p_means in (("instances", "count"), ("instances", "precision"), ("classes", "count"), ("classes", "precision")):
        parsed = parse_formula(formula, _notation(symbols_map, n_means, p_means, notation), notation)
        matches = numeric_matches(parsed.expr, setting)
        if best is None or (matches and not best[1]):
            best = (parsed, matches)
        if matches:
            break
    parsed, matches = best
    proved = proved_matches(parsed.expr, [v for v, _ in matches], [h for _, h in matches])
    ordered = sorted(zip(matches, proved), key=lambda mp: (("all", "single-label", "binary").index(mp[0][1]), not mp[1], _rank(mp[0][0])))
    found = tuple(Match(v[0], v[1], h, p) for (v, h), p in ordered)
    label_names = label_metric(parsed.label) if parsed.label else (None, None)
    agrees = _label_agrees(label_names, found) if label_names[0] else None
    free = free_indices(parsed.expr)
    if len(free) == 1 and not found:  # CEN_j: the per-class values of a matrix metric (averaging none)
        found = tuple(Match(metric, "none", holds) for metric, holds in per_class_matches(parsed.expr, free[0], setting))
        agrees = _label_agrees(label_names, found) if label_names[0] else None
    if free and all(m.average == "none" for m in found):  # CEN_j, AUC(j, k): a per-class or per-pair value
        matched = {m.metric for m in found}  # class_cen's own averages say nothing new
        nearest = [n for n in nearest_aggregates(parsed.expr, free, matched=bool(found)) if n[0] not in matched]
    else:
        nearest = nearest_variants(parsed.expr, found, label_names if agrees is False else None, formula=parsed)
    return Identification(str(parsed.expr), parsed.label, found, agrees,
                          tuple(Nearest(*n) for n in nearest), label_names)


def _rank(variant) -> tuple:
    """One-per-matrix metrics first, then the common averaging modes."""
    modes = (None, "binary", "micro", "macro", "weighted", "geometric", "none")
    return (variant[1] not in (None,), modes.index(variant[1]) if variant[1] in modes else 9, variant[0])


def _label_agrees(label_names, matches) -> bool:
    """Whether a match is what the label names; Wenzel's r_M, p_M of multi-label data average
    over the instances, so a macro label agrees with a samples average there."""
    metric, mode = label_names
    modes = (mode, None, "samples") if mode == "macro" else (mode, None)
    return any(m.metric == metric and (mode is None or m.average in modes) for m in matches)


def _notation(symbols_map, n_means: str, p_means: str, syntax: str) -> Notation:
    """The papers' notation, with the user's --symbol meanings parsed as formulas themselves."""
    notation = Notation(n_means=n_means, p_means=p_means)
    for name, meaning in (symbols_map or {}).items():
        notation.defined[name] = parse_formula(meaning, Notation(n_means=n_means, p_means=p_means), syntax).expr
    return notation


def schema() -> dict:
    """The JSON Schema of ``--format json``."""
    from importlib import resources

    return json.loads(resources.files("metricc.compiler.audit").joinpath("identify.schema.json").read_text())
