"""Sums over a second sample that compare keys of two samples, as group-bys: O(n log n), not O(n^2).

A score formula pairing each sample ``s`` with every sample ``u`` through the equality of a
key of each (binned calibration: ``same_bin[s, u] = [floor(bins*conf[s]) = floor(bins*conf[u])]``)
reads, after lowering, ``Sum([key(s) = key(u)] * g(u), u)``. Printed as it stands, it
broadcasts over the pairs ``(s, u)``: n^2 floats. Grouped, it is the sum of ``g`` over the
group of samples whose key equals ``key(s)``, gathered back per sample: the runtime's
``group_sum`` sorts the keys once (``np.unique``) and adds ``g`` per group (``np.bincount``).

:func:`rewrite` brings such sums to that form, in any equality-of-keys kernel: products with
sums in them are distributed first (``([s = u] - 1) * [key(s) = key(u)]``), the diagonal
``[s = u]`` substitutes ``s`` for ``u``, factors free of ``u`` leave the sum, and what
remains is one key equality times a function of ``u`` alone. A sum with any other pairing
of the two samples is left as it is (the runtime's memory check then measures its
broadcast). The keys and values become vectors over the samples, defined once and shared by
every group sum that reads them.
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from metricc.compiler.emit.sums import rewrite_sums
from metricc.compiler.language import symbols

__all__ = ["Grouped", "group_sum", "hoist", "rewrite"]


class group_sum(sympy.Function):
    """``group_sum(K[s], G[s], L[s])``: the sum of ``G`` over the samples whose key ``K`` equals
    ``L[s]``; the first two arguments name vectors over every sample, ``s`` a dummy there."""

    nargs = 3


@dataclass(frozen=True)
class Grouped:
    """The rewritten expressions and the sample vectors their group sums read: ``(name, expr)``
    in order, each a function of one sample index (and perhaps one class index)."""

    outputs: tuple[sympy.Expr, ...]
    vectors: tuple[tuple[sympy.IndexedBase, sympy.Expr], ...]


def _sample_indices(expr: sympy.Basic) -> set[sympy.Symbol]:
    """The free sample indices of ``expr`` (``s``, ``u``, ``v``)."""
    return {s for s in expr.free_symbols if symbols.is_sample_index(s)}


def _class_indices(expr: sympy.Basic) -> list[sympy.Symbol]:
    """The free class indices of ``expr`` (indices other than samples)."""
    return sorted((s for s in expr.free_symbols if symbols.is_index(s) and not symbols.is_sample_index(s)), key=str)


class _Vectors:
    """The sample vectors defined so far, one name per distinct expression."""

    def __init__(self) -> None:
        self.named: dict[sympy.Expr, sympy.IndexedBase] = {}

    def __call__(self, expr: sympy.Expr, sample: sympy.Symbol, kind: str) -> sympy.Expr | None:
        """``expr`` (a function of ``sample`` and at most one class index) as ``V[sample]`` or
        ``V[j, sample]``, written over the index ``s`` in the definition; None if it has more."""
        classes = _class_indices(expr)
        if len(classes) > 1 or any(c.name > "s" for c in classes):
            return None  # a vector's axes are its indices in order: the class axis, then the sample's
        if not expr.has(sample):
            return expr  # a constant value: the runtime broadcasts it over the samples
        dummy = sympy.Dummy()  # rebuilt through a dummy: the same function prints the same way
        canonical = expr.xreplace({sample: dummy}).xreplace({dummy: symbols.index_symbol("s")})
        if canonical not in self.named:
            self.named[canonical] = sympy.IndexedBase(f"grouped__{kind}{len(self.named)}")
        base = self.named[canonical]
        return base[(*classes, sample)] if classes else base[sample]


def _is_every_sample(limit) -> bool:
    index, low, high = limit
    return symbols.is_sample_index(index) and low == 0 and high == symbols.N_TOTAL - 1


def _terms(body: sympy.Expr, u: sympy.Symbol) -> list[sympy.Expr]:
    """``body`` as a sum of products, distributing only the factors that mix ``u`` with
    another sample (the rest stays factored: a difference ``g(u) - h(u)`` is one value)."""
    terms = []
    for term in sympy.Add.make_args(body):
        factors = sympy.Mul.make_args(term)
        mixed = [f for f in factors if isinstance(f, sympy.Add) and f.has(u) and _sample_indices(f) - {u}]
        if not mixed:
            terms.append(term)
            continue
        rest = sympy.Mul(*(f for f in factors if f is not mixed[0]))
        terms += _terms(sympy.expand_mul(mixed[0] * rest, deep=False), u)
    return terms


def _key_pair(factor: sympy.Basic, u: sympy.Symbol):
    """``(key of u, key of the other sample)`` if ``factor`` is ``[a = b]`` with one side a
    function of ``u`` alone and the other free of ``u``; else None."""
    if not isinstance(factor, sympy.KroneckerDelta):
        return None
    a, b = factor.args
    for mine, other in ((a, b), (b, a)):
        if mine.has(u) and _sample_indices(mine) == {u} and not other.has(u) and not _class_indices(mine):
            return mine, other
    return None


def _group_term(term: sympy.Expr, limit: tuple, vectors: _Vectors) -> sympy.Expr | None:
    """``Sum(term, limit)`` with the pairing of ``u`` (the limit's index) and another sample
    grouped, or None if ``term`` pairs them other than through one key equality."""
    u = limit[0]
    factors = sympy.Mul.make_args(term)
    for factor in factors:  # Sum([s = u] * h(s, u), u) = h(s, s): s is one of the samples
        if isinstance(factor, sympy.KroneckerDelta) and u in factor.args and all(map(symbols.is_sample_index, factor.args)):
            other = next(a for a in factor.args if a != u)
            return sympy.Mul(*(f for f in factors if f is not factor)).xreplace({u: other})
    outside = sympy.Mul(*(f for f in factors if not f.has(u)))
    inside = [f for f in factors if f.has(u)]
    keys = [(f, _key_pair(f, u)) for f in inside if _key_pair(f, u) is not None]
    values = [f for f in inside if _sample_indices(f) == {u} and f not in dict(keys)]
    if len(values) == len(inside):  # free of any other sample: a plain sum, O(n) as printed
        return outside * sympy.Sum(sympy.Mul(*values), limit)
    if len(keys) != 1 or len(values) + 1 != len(inside):
        return None
    (_, (key, lookup)), value = keys[0], sympy.Mul(*values)
    samples = _sample_indices(lookup)
    if len(samples) > 1 or _class_indices(lookup):
        return None
    sample = next(iter(samples)) if samples else u
    pairs = ((key.xreplace({u: sample}), "key"), (value.xreplace({u: sample}), "value"), (lookup, "key"))
    written = [vectors(e, sample, kind) if e.has(sample) else e for e, kind in pairs]
    if any(w is None for w in written):
        return None
    return outside * group_sum(*written)


def _grouped(expr: sympy.Sum, vectors: _Vectors) -> sympy.Expr | None:
    if len(expr.limits) > 1:  # Sum(f, (u, ...), (k, ...)): the sum over u inside, on its own
        pairs = [limit for limit in expr.limits if _is_every_sample(limit)]
        if not pairs:
            return None
        inner = _grouped(sympy.Sum(expr.function, pairs[0]), vectors)
        others = [limit for limit in expr.limits if limit is not pairs[0]]
        return None if inner is None else sympy.Sum(inner, *others)
    if not _is_every_sample(expr.limits[0]):
        return None
    u = expr.limits[0][0]
    if not _sample_indices(expr.function) - {u}:
        return None  # a plain sum over the samples: O(n) as printed
    defined = dict(vectors.named)
    grouped = [_group_term(t, expr.limits[0], vectors) for t in _terms(expr.function, u)]
    if any(g is None for g in grouped):
        vectors.named = defined  # no vector for a sum left as it is
        return None
    return sympy.Add(*grouped)


def hoist(vectors: tuple) -> list[tuple]:
    """The vector definitions in stages, each reading only the stages before it: a sum over the
    classes that several definitions repeat (the top label's indicator inside both a key and a
    value) becomes a vector of its own, computed once (common-subexpression elimination keeps
    sums whole, so it would not share them), innermost first."""
    stages, named = [], {}
    while True:
        exprs = [e for _, e in vectors]
        repeated = {a for e in exprs for a in e.atoms(sympy.Sum)
                    if sum(x.count(a) for x in exprs) > 1 and _sample_indices(a) and len(_class_indices(a)) <= 1
                    and all(c.name < "s" for c in _class_indices(a))}
        innermost = sorted((a for a in repeated if not any(b != a and a.has(b) for b in repeated)), key=sympy.default_sort_key)
        if not innermost:
            return [*stages, vectors]
        stage = []
        for total in innermost:
            base = sympy.IndexedBase(f"grouped__sum{len(named)}")
            named[total] = base[(*_class_indices(total), symbols.index_symbol("s"))]
            stage.append((base, total))
        stages.append(tuple(stage))
        vectors = tuple((base, expr.xreplace(named)) for base, expr in vectors)


def rewrite(outputs) -> Grouped:
    """``outputs`` with every sum over a second sample that only compares keys grouped.

    Inner sums first: a grouped sum inside another pairwise sum may free the outer one."""
    vectors = _Vectors()

    rewritten = tuple(rewrite_sums(o, lambda total: _grouped(total, vectors)) for o in outputs)
    return Grouped(rewritten, tuple((base, expr) for expr, base in vectors.named.items()))
