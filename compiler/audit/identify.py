"""Which catalog metric does a printed formula define? (``metricc identify``)

The formula is parsed (:mod:`.latex_formula`), evaluated at random data of three kinds and
compared with every catalog variant (metric x averaging mode) computed by the runtime:

- per-class counts of multi-label data (no single-label identities): equal there -> ``all``;
- confusion matrices of 3 and 4 classes: -> ``single-label``;
- 2 x 2 confusion matrices, class 1 positive: -> ``binary``.

A formula without class indices (``\\frac{TP}{TP+FP}``) is a per-class formula: equal to a
class-level metric on every count -> ``all`` (reported with averaging ``binary``). Candidates
are then proved symbolically (:mod:`.identify_proof`); the text output says which were proved
and which only agree numerically. When nothing matches, perturbations of the formula (one
count swapped for another, a square root dropped or added) find what differs.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import random
import warnings

import numpy as np
import sympy

from metricc.compiler.audit.latex_formula import parse_formula
from metricc.compiler.audit.notation import CLASS_COUNTS, Notation, label_metric
from metricc.compiler.language import symbols
from metricc.runtime.errors import InputError

__all__ = ["Match", "Nearest", "Identification", "identify"]

_COUNTS = ("TP", "FP", "FN", "TN")
_BETA = sympy.Symbol("beta", real=True)
_BETA_VALUE = 0.7
_SETTINGS = ("binary", "multiclass", "multilabel", "any")


@dataclasses.dataclass(frozen=True)
class Match:
    metric: str
    average: str | None
    holds: str  # "all" | "single-label" | "binary"
    proved: bool = False


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
                "matches": [{"metric": m.metric, "average": m.average, "holds": m.holds} for m in self.matches],
                "label_agrees": self.label_agrees,
                "nearest": [{"metric": n.metric, "average": n.average, "differs": n.differs} for n in self.nearest]}

    def text(self) -> str:
        lines = [f"parsed: {self.parsed}"]
        holds = {"all": "for every confusion matrix (and multi-label counts)",
                 "single-label": "for single-label data (confusion matrices)", "binary": "for two classes"}
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


# ---------------------------------------------------------------- random data

@functools.lru_cache(maxsize=1)
def _data():
    """Fixed random points: multi-label counts, confusion matrices (3, 4 classes), 2 x 2."""
    rng = random.Random(7)
    multilabel = []
    for c in (3, 4, 3):
        tp, fp, fn = ([rng.randint(1, 20) for _ in range(c)] for _ in range(3))
        n = max(a + b + d for a, b, d in zip(tp, fp, fn)) + rng.randint(1, 15)
        multilabel.append((np.array(tp), np.array(fp), np.array(fn), np.array([n - a - b - d for a, b, d in zip(tp, fp, fn)]), n))
    matrices = [np.array([[rng.randint(1, 25) for _ in range(c)] for _ in range(c)]) for c in (3, 4, 3, 5)]
    binary = [np.array([[rng.randint(1, 30) for _ in range(2)] for _ in range(2)]) for _ in range(4)]
    return tuple(multilabel), tuple(matrices), tuple(binary)


def _counts_of(matrix):
    tp = np.diag(matrix)
    fp, fn = matrix.sum(axis=0) - tp, matrix.sum(axis=1) - tp
    n = int(matrix.sum())
    return tp, fp, fn, n - tp - fp - fn, n


def _user_value(expr, counts, matrix=None, per_class: int | None = None) -> float | None:
    """The formula at one point; ``per_class``: the plain counts are those of that class."""
    tp, fp, fn, tn, n = counts
    arrays = dict(zip(_COUNTS, (tp, fp, fn, tn)))
    e = expr.xreplace({symbols.N_CLASSES: len(tp), _BETA: sympy.Float(_BETA_VALUE, 30)}).doit()
    values = {symbols.N_TOTAL: sympy.Float(int(n), 30)}
    for node in e.atoms(sympy.Indexed):
        index = [int(i) for i in node.indices if i.is_Integer]
        if len(index) != len(node.indices) or any(i >= len(tp) or i < 0 for i in index):
            return None
        if node.base == symbols.M:
            if matrix is None:
                return None
            values[node] = sympy.Float(int(matrix[index[0], index[1]]), 30)
        else:
            name = next((k for k, v in CLASS_COUNTS.items() if v == node.base), None)
            if name is None:
                return None
            values[node] = sympy.Float(int(arrays[name][index[0]]), 30)
    if per_class is not None:  # floats of 30 digits: exact for counts, and fast to evaluate
        values.update({s: sympy.Float(int(arrays[k][per_class]), 30) for k, s in zip(_COUNTS, symbols.COUNTS)})
    try:
        value = complex(e.xreplace(values).evalf(30))
    except (TypeError, ValueError, ZeroDivisionError):
        return None
    if value != value or abs(value.imag) > 1e-12 or abs(value.real) == float("inf"):
        return None
    return value.real


# ---------------------------------------------------------------- the catalog, numerically

@functools.lru_cache(maxsize=2)
def _variants(with_beta: bool) -> tuple:
    """(metric id, mode, level, params) of every variant the runtime computes from counts."""
    import metricc.runtime as mc

    out = []
    for info in mc.catalog().values():
        if info.level not in ("class", "aggregate", "matrix") or info.per_instance:
            continue
        names = {p.name for p in info.params}
        params = {"beta": _BETA_VALUE} if with_beta and "beta" in names else {}
        modes = [m for m in info.averages if m not in ("samples",)] if info.level == "class" else [None]
        out.extend((info.id, mode, info.level, tuple(params.items())) for mode in modes)
    return tuple(out)


def _catalog_value(variant, matrix=None, counts=None, class_index=None):
    import metricc.runtime as mc

    metric, mode, level, params = variant
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            if counts is not None:
                if level == "matrix":
                    return None
                function = mc.metric(metric).function
                kwargs = dict(params)
                if level == "class":
                    kwargs["average"] = "none" if class_index is not None else mode
                value = function(*counts[:4], **kwargs)
                value = np.asarray(value, dtype=float)
                return float(value[class_index]) if class_index is not None else float(value)
            value = mc.evaluate(metric, matrix=matrix, average=mode, params=dict(params) or None)[metric]
            return float(np.asarray(value, dtype=float))
        except Exception:  # noqa: BLE001 - a variant that cannot take this input is no candidate
            return None


@functools.lru_cache(maxsize=4)
def _catalog_table(with_beta: bool, kind: str) -> dict:
    """Every variant's values at the points of ``kind`` (tuple of floats or None)."""
    multilabel, matrices, binary = _data()
    table = {}
    for variant in _variants(with_beta):
        if kind == "per-class":
            values = [_catalog_value(variant, counts=c, class_index=k) for c in multilabel for k in range(len(c[0]))]
        elif kind == "all":
            values = [_catalog_value(variant, counts=c) for c in multilabel]
        elif kind == "single-label":
            values = [_catalog_value(variant, matrix=m) for m in matrices]
        else:
            values = [_catalog_value(variant, matrix=m) for m in binary]
        table[variant] = tuple(values)
    return table


def _user_values(expr, kind: str) -> tuple | None:
    multilabel, matrices, binary = _data()
    if kind == "per-class":
        return tuple(_user_value(expr, c, per_class=k) for c in multilabel for k in range(len(c[0])))
    if kind == "all":
        return tuple(_user_value(expr, c) for c in multilabel)
    if kind == "single-label":
        return tuple(_user_value(expr, _counts_of(m), matrix=m) for m in matrices)
    if _per_class(expr):  # a binary formula: class 1 is the positive class
        return tuple(_user_value(expr, _counts_of(m), matrix=m, per_class=1) for m in binary)
    return tuple(_user_value(expr, _counts_of(m), matrix=m) for m in binary)


def _close(a: tuple, b: tuple) -> bool:
    return all(x is not None and y is not None and abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))
               for x, y in zip(a, b)) and any(x is not None for x in a)


def _per_class(expr) -> bool:
    return not expr.atoms(sympy.Indexed) and bool(expr.free_symbols & set(symbols.COUNTS))


def _scopes(expr, setting: str) -> tuple[str, ...]:
    if _per_class(expr):
        return ("per-class", "binary")
    return {"binary": ("binary",), "multiclass": ("single-label", "binary"),
            "multilabel": ("all",)}.get(setting, ("all", "single-label", "binary"))


def _numeric_matches(expr, setting: str) -> list[tuple[tuple, str]]:
    """(variant, holds) of every variant equal at every point of the widest scope."""
    with_beta = _BETA in expr.free_symbols
    found, seen = [], set()
    for kind in _scopes(expr, setting):
        user = _user_values(expr, kind)
        if user is None or all(v is None for v in user):
            continue
        for variant, values in _catalog_table(with_beta, kind).items():
            key = variant[:2]
            if key in seen or not _close(user, values):
                continue
            if kind == "per-class" and variant[1] not in ("binary", "none"):
                continue
            if kind == "binary" and variant[1] not in ("binary", None):
                continue  # two-class coincidences of averaged variants say little (as in prove)
            seen.add(key)
            holds = {"per-class": "all"}.get(kind, kind)
            found.append((variant, holds))
    # A per-class formula equals a metric class by class: report its binary mode, not none.
    keys = {(v[0], v[1]) for v, _ in found}
    return [(v, h) for v, h in found if not (v[1] == "none" and (v[0], "binary") in keys)]


def _distance(expr, variant_key, kind: str, with_beta: bool) -> float:
    user = _user_values(expr, kind)
    table = _catalog_table(with_beta, kind)
    values = next((vals for v, vals in table.items() if v[:2] == variant_key), None)
    if user is None or values is None:
        return float("inf")
    pairs = [(x, y) for x, y in zip(user, values) if x is not None and y is not None]
    if not pairs:
        return float("inf")
    return sum(abs(x - y) / max(1.0, abs(y)) for x, y in pairs) / len(pairs)


def identify(formula: str, notation: str = "latex", setting: str = "any",
             symbols_map: dict[str, str] | None = None) -> Identification:
    """Identify a printed formula; see the module docstring. Raises InputError for text that
    cannot be parsed (the command's exit code 2)."""
    from metricc.compiler.audit import identify_proof, identify_differs

    if setting not in _SETTINGS:
        raise InputError("--setting", f"'{setting}' is not one of {', '.join(_SETTINGS)}")
    if notation not in ("latex", "text"):
        raise InputError("--notation", f"'{notation}' is not one of latex, text")
    best = None
    for n_means, p_means in (("instances", "count"), ("instances", "precision"), ("classes", "count"), ("classes", "precision")):
        parsed = parse_formula(formula, _notation(symbols_map, n_means, p_means))
        matches = _numeric_matches(parsed.expr, setting)
        if best is None or (matches and not best[1]):
            best = (parsed, matches)
        if matches:
            break
    parsed, matches = best
    proved = identify_proof.proved(parsed.expr, [v for v, _ in matches], [h for _, h in matches])
    ordered = sorted(zip(matches, proved), key=lambda mp: (("all", "single-label", "binary").index(mp[0][1]), _rank(mp[0][0])))
    found = tuple(Match(v[0], v[1], h, p) for (v, h), p in ordered)
    label_names = label_metric(parsed.label) if parsed.label else (None, None)
    agrees = _label_agrees(label_names, found) if label_names[0] else None
    nearest = identify_differs.nearest(parsed.expr, found, label_names if agrees is False else None, _distance, _numeric_matches)
    return Identification(str(parsed.expr), parsed.label, found, agrees, tuple(nearest), label_names)


def _rank(variant) -> tuple:
    """One-per-matrix metrics first, then the common averaging modes."""
    modes = (None, "binary", "micro", "macro", "weighted", "geometric", "none")
    return (variant[1] not in (None,), modes.index(variant[1]) if variant[1] in modes else 9, variant[0])


def _label_agrees(label_names, matches) -> bool:
    metric, mode = label_names
    return any(m.metric == metric and (mode is None or m.average in (mode, None)) for m in matches)


def _notation(symbols_map, n_means: str, p_means: str) -> Notation:
    """The papers' notation, with the user's --symbol meanings parsed as formulas themselves."""
    notation = Notation(n_means=n_means, p_means=p_means)
    for name, meaning in (symbols_map or {}).items():
        notation.defined[name] = parse_formula(meaning, Notation(n_means=n_means, p_means=p_means)).expr
    return notation


def schema() -> dict:
    """The JSON Schema of ``--format json``."""
    from importlib import resources

    return json.loads(resources.files("metricc.compiler.audit").joinpath("identify.schema.json").read_text())
