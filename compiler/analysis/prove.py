"""Prove equivalences across the catalog, symbolically.

Every scalar *variant* (a class-level metric under one averaging mode, or an aggregate or
matrix metric) gets two exact forms:

- a **general** form valid for any number of classes, under the identities of single-label
  counts: pooled sums ``sum TP = T``, ``sum FP = sum FN = n - T``, ``sum TN = (C - 2) n + T``
  and ``trace(M) = T``; per-class averages that cannot be pooled become one opaque symbol per
  (mode, canonical per-class formula);
- a **binary** form over the four entries of a 2 x 2 confusion matrix.

``samples`` variants average per-instance counts; single-label data read as indicator rows
has two kinds of instance, ``T`` correct ones (TP, FP, FN, TN) = (1, 0, 0, C - 1) and
``n - T`` wrong ones (0, 1, 1, C - 2), so the same two forms apply to them.

Pairs whose values agree at random points are then proved by exact cancellation of their
difference: in general (``scope="all"``) or, failing that, for two classes (``"binary"``).
Statements hold wherever both sides are defined.

**Parameter endpoints.** Every parameter whose domain has a finite, attained endpoint
(``0 <= kappa <= 1``: 0 and 1) is also bound to each endpoint (a class vector to that value
in every class) and the bound variant is compared with the unbound catalog variants of the
same mode (also ``none``, class by class) and with the one-per-matrix metrics, e.g.
``preference_driven(kappa=1) [macro] = precision [macro]``.

**Parameter values.** Scalar parameters stay symbols, so a statement about an unbound
variant holds for every value (``f_beta [micro] = accuracy``); the variant with every scalar
parameter at its default is bound like an endpoint and says so: ``f_beta(beta=1) [macro] =
f1 [macro]``, never ``f_beta [macro] = f1 [macro]``.

**What is stated.** Every proved pair is kept in the IR; documents list, for each variant,
its equality with the best-ranked variant it equals (:func:`_stated`), not every pair of an
equivalence class.
"""

from __future__ import annotations

import cmath
import dataclasses
import random
from collections.abc import Mapping, MutableMapping

import sympy

from metricc.compiler.analysis import parallel
from metricc.compiler.analysis.cache import canonical, digest, remembered
from metricc.compiler.analysis.forms import binary_form, fixed, general_form
from metricc.compiler.language import averaging, ir
from metricc.compiler.language.levels import Average, rules

__all__ = ["prove_equivalences", "general_form", "binary_form", "domain_endpoints", "bind"]

_ABSENT = object()
_LONGEST_SUM = 1000  # terms a fingerprint writes out (bounds come from points of 1..60)
_LARGEST_EXPONENT = 1000  # e**1000 is far beyond any metric value, and cheap for mpmath


def _bounded(expr: sympy.Expr, point: dict) -> bool:
    """Whether no exponential or power inside ``expr`` exceeds ``e**1000`` at ``point``,
    innermost first: beyond it mpmath computes numbers with astronomically many digits
    (``exp(exp(exp(TP)))`` at TP = 60 never finishes), and such a formula is not proved."""
    for node in sympy.postorder_traversal(expr):
        try:
            if isinstance(node, sympy.exp):
                exponent = complex(node.args[0].evalf(15, subs=point))
            elif isinstance(node, sympy.Pow) and not (node.exp.is_Rational and abs(node.exp) <= 2):
                base = complex(node.base.evalf(15, subs=point))
                if base == 0:
                    continue
                exponent = complex(node.exp.evalf(15, subs=point)) * cmath.log(base)
            else:
                continue
        except (TypeError, ValueError, ZeroDivisionError):
            return False
        if not cmath.isfinite(exponent) or abs(exponent.real) > _LARGEST_EXPONENT:
            return False
    return True


def _expanded_sums(expr: sympy.Expr) -> sympy.Expr:
    """Finite sums with numeric bounds written out term by term, innermost first: evalf
    evaluates a sum by Euler-Maclaurin and quadrature (seconds for a curve's sum over its
    thresholds), a number at each of a few dozen terms in milliseconds."""
    def written_out(total):
        (index, low, high), *outer = total.limits
        low, high = low.doit(), high.doit()  # the point's values, substituted without evaluation
        if not (low.is_Integer and high.is_Integer and high - low < _LONGEST_SUM):
            return total
        with sympy.evaluate(False):
            terms = [total.function.xreplace({index: sympy.Integer(v)}) for v in range(int(low), int(high) + 1)]
            added = sympy.Add(*terms) if terms else sympy.Integer(0)
        return sympy.Sum(added, *outer) if outer else added
    return expr.replace(lambda node: isinstance(node, sympy.Sum), written_out)


def _fingerprint(expr: sympy.Expr, points: list[dict]) -> tuple | None:
    values = []
    for point in points:
        if not _bounded(expr, point):
            return None
        try:
            with sympy.evaluate(False):  # numbers, not exact forms: exp(r log r / (1 + r log r)) at a rational r
                substituted = expr.xreplace(point)  # took sympy minutes to evaluate exactly (fuzz, hang-0002)
            if substituted.free_symbols:  # a symbol no point gives: no number
                return None
            number = _expanded_sums(substituted).evalf(30)
            if not number.is_number or number.has(sympy.Function):  # a function evalf could not evaluate
                return None
            value = complex(number)
        except (TypeError, ValueError):
            return None
        if value != value or abs(value.imag) > 1e-12 or abs(value.real) == float("inf"):
            return None
        values.append(round(value.real, 9))
    return tuple(values)


def _points(free: set, count: int, seed: int) -> list[dict]:
    """``count`` points of random integers 1..60, each symbol's values drawn from its own
    stream (seeded by its name): a spec adding a new parameter name does not move the points
    of every other symbol, and with them which pairs the fingerprints group."""
    streams = {s: random.Random(f"{seed}:{s}") for s in sorted(free, key=str)}
    return [{s: sympy.Integer(rng.randint(1, 60)) for s, rng in streams.items()} for _ in range(count)]


def _equal(left: sympy.Expr, right: sympy.Expr) -> bool:
    difference = sympy.cancel(sympy.together(left - right))
    if difference == 0:
        return True
    if difference.has(sympy.Pow):
        return sympy.simplify(sympy.radsimp(sympy.factor(left) - sympy.factor(right))) == 0
    return False


def domain_endpoints(param: ir.Param) -> tuple[sympy.Expr, ...]:
    """Finite endpoints the domain attains: the bounds of ``<=`` / ``>=`` that satisfy it all.

    >>> kappa = sympy.Symbol("kappa", real=True)
    >>> p = ir.Param("kappa", "class_vector", sympy.S.Zero, (sympy.Le(0, kappa), sympy.Le(kappa, 1)), "", "", None)
    >>> domain_endpoints(p)
    (0, 1)
    """
    found = set()
    for relation in param.domain:
        if isinstance(relation, (sympy.LessThan, sympy.GreaterThan)):
            bound = relation.rhs if relation.lhs == param.symbol else relation.lhs
            inside = all(r.xreplace({param.symbol: bound}) == sympy.true for r in param.domain)
            if bound.is_number and bound.is_finite and inside:
                found.add(bound)
    return tuple(sorted(found))


def bind(metric: ir.Metric, bindings: Mapping[str, sympy.Expr]) -> ir.Metric:
    """The metric with parameters fixed (a class vector to the same value in every class)."""
    values = {metric.param(name).symbol: value for name, value in bindings.items()}
    terms = tuple(_bound_term(dataclasses.replace(t, simplified=t.simplified.xreplace(values)), bindings)
                  for t in metric.terms)
    return dataclasses.replace(metric, simplified=metric.simplified.xreplace(values), terms=terms,
                               params=tuple(p for p in metric.params if p.name not in bindings))


def _bound_term(term: ir.Term, bindings: Mapping[str, sympy.Expr]) -> ir.Term:
    """``weighted(m, w)`` with ``w`` the same positive value in every class is ``macro(m)``, its row's ``uniform``.

    With ``w = 0`` no class has weight: the term keeps its weights and has no closed form.
    """
    if term.weights in bindings and bindings[term.weights] != 0:
        return dataclasses.replace(term, mode=averaging.MODES[term.mode].uniform, weights=None)
    return term


def _variants(metrics: Mapping[str, ir.Metric]) -> list[tuple]:
    """(id, mode, bindings): every averaged variant, every variant with its scalar parameters at
    their defaults, and every variant at a parameter endpoint."""
    out = []
    for metric in metrics.values():
        modes = [m for m in metric.averages if not averaging.per_class(m)] if rules(metric.level).per_class else [None]
        out.extend((metric.id, mode, ()) for mode in modes)
        if rules(metric.level).per_class:
            out.append((metric.id, averaging.PER_CLASS, ()))
        defaults = tuple((p.name, p.default) for p in metric.params if p.kind == "scalar")
        if defaults and all(p.kind == "scalar" for p in metric.params):
            out.extend((metric.id, mode, defaults) for mode in modes + ([averaging.PER_CLASS] if rules(metric.level).per_class else []))
        for param in metric.params:
            if param.kind == "class_matrix":  # one number for every pair of classes is no distance worth stating
                continue
            # Micro averaging refuses per-class vectors (it pools the classes).
            bound_modes = [m for m in metric.averages if not averaging.MODES[m].pools or param.kind == "scalar"] or [None]
            for value in domain_endpoints(param):
                out.extend((metric.id, mode, ((param.name, value),)) for mode in bound_modes)
    return list(dict.fromkeys(out))


def _form(metrics, variant, form):
    metric_id, mode, bindings = variant
    metric = bind(metrics[metric_id], dict(bindings)) if bindings else metrics[metric_id]
    if averaging.per_class(mode):  # class by class: the per-class formula itself, in general only
        per_class = fixed(metric, metric.simplified)
        return None if per_class is None or form is binary_form else sympy.cancel(per_class)
    return form(metric, mode)


def _comparable(left, right) -> bool:
    """Plain pairs as before (not class by class); a bound variant against unbound ones of its mode."""
    if bool(left[2]) == bool(right[2]):
        return not left[2] and not averaging.per_class(left[1]) and not averaging.per_class(right[1])
    bound, other = (left, right) if left[2] else (right, left)
    return other[1] == bound[1] or (other[1] is None and not averaging.per_class(bound[1]))


def _term_modes(metrics, *variants) -> list[str | None]:
    return [t.mode for variant in variants for t in metrics[variant[0]].terms]


_is_form = lambda value: value is None or isinstance(value, sympy.Expr)
_is_print = lambda value: value is None or (isinstance(value, tuple) and all(isinstance(v, float) for v in value))
_is_bool = lambda value: isinstance(value, bool)


def _remembered_all(memo, keys: Mapping, check, compute) -> dict:
    """``{item: remembered(memo, keys[item], check, ...)}``, what ``memo`` lacks computed on
    every core (:mod:`.parallel`), once per key (equal forms recur across variants)."""
    missing: dict[str, object] = {}
    for item, key in keys.items():
        if key not in missing and not check(memo.get(key, _ABSENT)):
            missing[key] = item
    made = dict(zip(missing, parallel.mapped(compute, missing.values())))
    return {item: remembered(memo, key, check, lambda item=item, key=key: made[key] if key in made else compute(item))
            for item, key in keys.items()}


def _proved_pairs(metrics, variants, form, scope, method, memo, skip=frozenset()):
    """The pairs of ``variants`` proved equal. ``memo`` (a mapping, or the build cache) holds
    each form by the metric's analyzed IR, each fingerprint and each proof by the forms they
    use: equal forms recur across variants, and a rebuild reuses what did not change."""
    metric_keys = {m: digest(metrics[m]) for m in {v[0] for v in variants}}
    form_entries = {v: "form:" + digest(metric_keys[v[0]], v, form.__name__) for v in variants}
    forms = _remembered_all(memo, form_entries, _is_form, lambda v: _form(metrics, v, form))
    forms = {v: f for v, f in forms.items() if f is not None}
    form_keys = {v: digest(f) for v, f in forms.items()}
    free = set().union(*(f.free_symbols for f in forms.values())) if forms else set()
    points = _points(free, 4, seed=2022)
    point_key = digest(tuple(tuple(sorted((canonical(s), canonical(x)) for s, x in point.items())) for point in points))
    prints = _remembered_all(memo, {v: f"print:{form_keys[v]}:{point_key}" for v in forms}, _is_print,
                             lambda v: _fingerprint(forms[v], points))
    groups: dict[tuple, list] = {}
    for v, p in prints.items():
        if p is not None:
            groups.setdefault(p, []).append(v)
    candidates = {(left, right): f"equal:{form_keys[left]}:{form_keys[right]}"
                  for members in groups.values() for i, left in enumerate(members) for right in members[i + 1:]
                  if (left, right) not in skip and _comparable(left, right)}
    equal = _remembered_all(memo, candidates, _is_bool, lambda pair: _equal(forms[pair[0]], forms[pair[1]]))
    proved = [(left, right, scope, "cancellation of the per-class formulas" if averaging.per_class(left[1]) else method)
              for (left, right), same in equal.items() if same]
    return proved


def _rank(variant: tuple) -> tuple:
    """Which equal variant a statement names: unbound before bound, one value per matrix
    (``accuracy``) before averaged class metrics, then the averaging modes in their order."""
    metric_id, mode, bindings = variant
    modes = [a.value for a in Average]
    return bool(bindings), mode is not None, modes.index(mode) if mode in modes else -1, metric_id, str(bindings)


def _stated(pairs: list[tuple]) -> set[frozenset]:
    """The statements a reader learns from: each variant equated with the best-ranked variant
    it is proved equal to (preferring statements for every matrix over one-hot ones), once per
    scope. A new spec then adds statements to its own file and its partners', not to every
    file of its equivalence class."""
    best: dict[tuple, tuple] = {}
    for left, right, scope, _, one_hot in pairs:
        for this, other in ((left, right), (right, left)):
            key, choice = (this, scope), (one_hot, _rank(other), other)
            if key not in best or choice < best[key]:
                best[key] = choice
    # f_beta(beta=1) [micro] = accuracy says nothing once f_beta [micro] = accuracy (every beta).
    implied = {key for key, (_, _, other) in best.items()
               if key[0][2] and best.get(((key[0][0], key[0][1], ()), key[1]), (None, None, None))[2] == other}
    return {frozenset((this, other)) for (this, scope), (_, _, other) in best.items() if (this, scope) not in implied}


def _text(metrics, metric_id, bindings) -> tuple[tuple[str, str, str], ...]:
    return tuple((name, str(value), metrics[metric_id].param(name).kind) for name, value in bindings)


def prove_equivalences(metrics: Mapping[str, ir.Metric], memo: MutableMapping | None = None) -> dict[str, ir.Metric]:
    """Attach every proved equivalence to both metrics it relates, marking those to state.

    ``memo``: where forms, fingerprints and proofs are remembered (default: for this call only).
    """
    memo = {} if memo is None else memo
    variants = _variants(metrics)
    general = _proved_pairs(metrics, variants, general_form, "all",
                            "cancellation under the single-label count identities", memo)
    done = {(l, r) for l, r, *_ in general}
    binary = _proved_pairs(metrics, variants, binary_form, "binary",
                           "cancellation over the entries of a 2 x 2 matrix", memo, skip=frozenset(done))
    # Two-class coincidences between averaged variants are many and rarely informative; keep
    # those that say what a binary value or a one-per-matrix metric equals.
    binary = [(l, r, s, m) for l, r, s, m in binary if any(mode is None or averaging.positive_class(mode) for mode in (l[1], r[1]))]
    pairs = [(left, right, scope, method, any(map(averaging.per_instance, (left[1], right[1], *_term_modes(metrics, left, right)))))
             for left, right, scope, method in general + binary]
    stated = _stated(pairs)
    found: dict[str, list[ir.Equivalence]] = {m: [] for m in metrics}
    for left, right, scope, method, one_hot in pairs:
        shown = frozenset((left, right)) in stated
        for this, other in ((left, right), (right, left)):
            found[this[0]].append(ir.Equivalence(this[1], other[0], other[1], scope, method, _text(metrics, this[0], this[2]),
                                                 _text(metrics, other[0], other[2]), one_hot, shown))
    order = lambda e: (e.scope != "all", e.bindings, e.other_bindings, e.mode or "", e.other, e.other_mode or "")
    return {m: dataclasses.replace(metric, equivalences=tuple(sorted(found[m], key=order))) for m, metric in metrics.items()}
