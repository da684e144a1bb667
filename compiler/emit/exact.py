"""Which parts of a kernel the numpy code computes in exact integer arithmetic.

float64 is exact for counts up to 2**53 (the runtime refuses larger ones), and sums and
products of positive terms lose only a few units in the last place. Differences are where
digits vanish: ``TN*TP - FN*FP`` or Cohen's ``n**2 - Sum(t[k]*p[k], k)`` on a matrix with
``n = 10**12`` cancel about 24 digits of products that float64 rounded to 16. So every
maximal subexpression that is a polynomial of the counts with integer coefficients *and*
contains a difference is split out (:func:`split`) and printed over integer copies of the
counts (``runtime.kernel.exact``: int64 where :func:`bound` says every intermediate fits,
Python integers where not); its exact value is rounded to float64 once. What remains is
float64 arithmetic on positive quantities and on those once-rounded values, so a kernel's
relative error stays a few units in the last place wherever it does not divide by a
difference of such rounded values itself.

>>> from metricc.compiler.language import symbols as s
>>> outputs, parts = split([(s.TN * s.TP - s.FN * s.FP) / (s.TP + s.FN)], {s.TP, s.FP, s.FN, s.TN})
>>> outputs[0], parts
(exact__0/(FN + TP), ((exact__0, -FN*FP + TN*TP),))
>>> bound(parts[0][1], {s.TP, s.FP, s.FN, s.TN})
2*B**2
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import sympy

from metricc.compiler.language import symbols

__all__ = ["LARGEST", "log_ratio", "xlogy_ratio", "rearrange", "split", "bound", "exact_atoms"]

LARGEST = sympy.Symbol("B", integer=True, nonnegative=True)  # the largest count the kernel is given


def _is_count(expr: sympy.Basic, counts: Collection) -> bool:
    if isinstance(expr, sympy.Indexed):
        return expr.base in counts and all(isinstance(i, sympy.Symbol) for i in expr.indices)
    return expr in counts


def _class_sum(limits) -> bool:
    return all(low == 0 and high == symbols.N_CLASSES - 1 for _, low, high in limits)


def _class_count_integer(expr: sympy.Basic) -> bool:
    """An integer function of the class count alone (``Max(1, C - 1)``): an integer
    coefficient of a count polynomial."""
    return (isinstance(expr, (sympy.Max, sympy.Min)) and expr.free_symbols <= {symbols.N_CLASSES}
            and all(_polynomial(a, ()) for a in expr.args))


def _polynomial(expr: sympy.Basic, counts: Collection) -> bool:
    """A polynomial of the counts with integer coefficients (class sums of such included)."""
    if (_is_count(expr, counts) or expr == symbols.N_CLASSES or isinstance(expr, sympy.Integer)
            or _class_count_integer(expr)):
        return True
    if isinstance(expr, (sympy.Add, sympy.Mul)):
        return all(_polynomial(a, counts) for a in expr.args)
    if isinstance(expr, sympy.Pow):
        return isinstance(expr.exp, sympy.Integer) and expr.exp > 0 and _polynomial(expr.base, counts)
    if isinstance(expr, sympy.Sum):
        return _class_sum(expr.limits) and _polynomial(expr.function, counts)
    if isinstance(expr, sympy.Abs):
        return _polynomial(expr.args[0], counts)
    return False


def _mixed_signs(expr: sympy.Basic) -> bool:
    """A sum with terms of both signs: where float64 can lose digits."""
    return isinstance(expr, sympy.Add) and len({t.could_extract_minus_sign() for t in expr.args}) == 2


def _cancels(expr: sympy.Basic) -> bool:
    """Whether some sum in ``expr`` has terms of both signs (where float64 can lose digits);
    the limits of class sums (``C - 1``) are not computed, so they do not count."""
    if isinstance(expr, sympy.Sum):
        return _cancels(expr.function)
    if _mixed_signs(expr):
        return True
    return any(_cancels(a) for a in expr.args)


def exact_atoms(expr: sympy.Basic, counts: Collection) -> set:
    """The counts (symbols, or ``Indexed`` bases) that ``expr`` reads."""
    found = {a for a in expr.free_symbols if a in counts}
    found |= {a.base for a in expr.atoms(sympy.Indexed) if a.base in counts}
    return found


class log_ratio(sympy.Function):
    """``log(N / D)`` given ``N``, ``D`` and their exact difference: printed as the runtime's
    ``log_ratio``, which takes ``log1p((N - D) / D)`` near 1."""

    nargs = 3


class xlogy_ratio(sympy.Function):
    """``xlogy(x, N / D)`` of sums of counts ``N``, ``D``: printed as the runtime's
    ``xlogy_ratio``, which takes the logarithm near 1 from ``N - D`` (exact in float64)."""

    nargs = 3


def _log_ratio(expr: sympy.log, counts: Collection) -> sympy.Expr:
    """``log(N/D)`` of count polynomials with their exact difference ``N - D``: near 1 the
    quotient N/D rounded to float64 keeps only its absolute error, ``N - D`` is exact."""
    numerator, denominator = sympy.fraction(sympy.cancel(sympy.together(expr.args[0])))
    if (numerator.is_number or denominator.is_number or not _positive(numerator, counts)
            or not _positive(denominator, counts)):
        return expr
    numerator, denominator = sympy.expand(numerator), sympy.expand(denominator)
    return log_ratio(numerator, denominator, numerator - denominator)


def _sum_of_counts(expr: sympy.Expr, counts: Collection) -> bool:
    """A sum of counts with positive integer coefficients: exact in float64 below 2**53."""
    parts = [term.as_coeff_Mul() for term in sympy.Add.make_args(expr)]
    return all(c.is_Integer and c > 0 and _is_count(rest, counts) for c, rest in parts)


def _xlogy_ratio(expr: sympy.Basic, counts: Collection) -> sympy.Expr:
    numerator, denominator = sympy.fraction(expr.args[1])
    if denominator == 1 or not _sum_of_counts(numerator, counts) or not _sum_of_counts(denominator, counts):
        return expr
    return xlogy_ratio(expr.args[0], numerator, denominator)


def _exact_equality(expr: sympy.KroneckerDelta, counts: Collection) -> sympy.Expr:
    """``[a = b]`` of rational functions of the counts as ``[N = 0]``, N the numerator of
    ``a - b``: float64 ``a == b`` of separately rounded values is a coin toss where the exact
    values are equal (micro recall and F2 of single-label data)."""
    if any(side.is_number for side in expr.args):
        return expr  # [TP = 0]: a count or a split difference, compared as computed
    difference = sympy.cancel(sympy.together(expr.args[0] - expr.args[1]))
    numerator = sympy.expand(sympy.fraction(difference)[0])
    if not exact_atoms(numerator, counts) or not _polynomial(numerator, counts):
        return expr
    if numerator.could_extract_minus_sign():
        numerator = -numerator
    return sympy.KroneckerDelta(numerator, 0)


def _residual(expr: sympy.Basic, counts: Collection) -> bool:
    """Whether ``expr`` has a sum with terms of both signs that reads counts (after
    :func:`split`: one that float64 still computes)."""
    return any(_mixed_signs(a) and exact_atoms(a, counts) for a in sympy.preorder_traversal(expr))


def _positive(expr: sympy.Expr, counts: Collection) -> bool:
    """A polynomial of the counts whose expanded coefficients are all positive: not negative
    anywhere, zero only where the kernel divides by it (an undefined case)."""
    expanded = sympy.expand(expr)
    return _polynomial(expanded, counts) and not any(t.could_extract_minus_sign() for t in sympy.Add.make_args(expanded))


def _pull_denominator(expr: sympy.Abs, counts: Collection) -> sympy.Expr:
    numerator, denominator = sympy.fraction(sympy.cancel(sympy.together(expr.args[0])))
    if denominator == 1 or not _positive(denominator, counts):
        return expr
    return sympy.Abs(sympy.expand(numerator)) / denominator


def _collect_parameters(expr: sympy.Expr, counts: Collection) -> sympy.Expr:
    """Sums whose terms are count monomials times parameters (``FN*kappa - FP*kappa + FP + TP``)
    grouped by monomial (``FN*kappa + FP*(1 - kappa) + TP``): for a parameter within its
    domain the groups are not negative, and ``1 - kappa`` is exact in float64 for kappa
    in [1/2, 1], where ``FP - FP*kappa`` loses digits."""
    def group(node: sympy.Add) -> sympy.Expr:
        if not exact_atoms(node, counts) or _polynomial(node, counts):
            return node
        monomials = sorted({sympy.Mul(*(f for f in sympy.Mul.make_args(t) if exact_atoms(f, counts))) for t in node.args},
                           key=sympy.default_sort_key)
        if any(not _polynomial(m, counts) for m in monomials):
            return node
        grouped = sympy.collect(node, monomials, evaluate=False)
        if set(grouped) - set(monomials):
            return node
        regrouped = sympy.Add(*(sympy.factor_terms(c) * m for m, c in grouped.items()), evaluate=False)
        # collect() with the monomial 1 can drop terms free of counts (-Abs(i - j)): keep only an equal form.
        return regrouped if sympy.expand(regrouped - node) == 0 else node
    return expr.replace(lambda e: isinstance(e, sympy.Add), group)


def rearrange(expr: sympy.Expr, counts: Collection) -> sympy.Expr:
    """``expr`` in a form whose float64 evaluation does not cancel, where one is found.

    Differences :func:`split` cannot take because they are not polynomials are rewritten:
    a rational function of the counts (``|specificity - recall|`` included, its positive
    denominator taken out of the absolute value) becomes one fraction of integer polynomials,
    which :func:`split` then computes exactly; parameter coefficients are grouped by count
    monomial; the logarithm of a ratio of count polynomials is taken from their exact
    difference (:class:`log_ratio`), and so is ``xlogy`` of a ratio of sums of counts
    (:class:`xlogy_ratio`: shares near 1 in entropies); an equality of ratios is tested on the
    numerator of their difference. The value is unchanged wherever the metric is defined
    (``cancel`` removes common factors only, and those vanish only in undefined cases).

    >>> from metricc.compiler.language import symbols as s
    >>> specificity, recall = s.TN / (s.TN + s.FP), s.TP / (s.TP + s.FN)
    >>> rearrange(sympy.Abs(specificity - recall) / (specificity + recall), {s.TP, s.FP, s.FN, s.TN})
    Abs(FN*TN - FP*TP)/(FN*TN + FP*TP + 2*TN*TP)
    """
    expr = expr.replace(lambda e: isinstance(e, sympy.log) and not e.has(sympy.Sum, sympy.Indexed),
                        lambda e: _log_ratio(e, counts))
    expr = expr.replace(lambda e: isinstance(e, symbols.xlogy), lambda e: _xlogy_ratio(e, counts))
    expr = expr.replace(lambda e: isinstance(e, sympy.KroneckerDelta) and not e.has(sympy.Sum),
                        lambda e: _exact_equality(e, counts))
    if not _residual(split([expr], counts)[0][0], counts):
        return expr
    pulled = expr.replace(lambda e: isinstance(e, sympy.Abs), lambda e: _pull_denominator(e, counts))
    if not pulled.has(sympy.Sum, sympy.Indexed):
        numerator, denominator = sympy.fraction(sympy.cancel(sympy.together(pulled)))
        numerator = sympy.expand(numerator)
        if _polynomial(numerator, counts) and _positive(denominator, counts):
            return numerator / sympy.factor(denominator)
    else:
        # Over class sums: one fraction, class sums kept whole (``cancel`` would expand them
        # term by term). ``together`` multiplies numerator and denominator by the inner
        # denominators (``4 n**2`` in Gwet's AC1), which vanish only where the metric is
        # undefined; a count minus a float ratio (``n Sum(M[k, k]) - Sum(...) / (4 n)``)
        # becomes a difference of integer polynomials, which :func:`split` computes exactly.
        numerator, denominator = sympy.fraction(sympy.together(pulled))
        if (_polynomial(numerator, counts) and _polynomial(denominator, counts)
                and not _residual(split([numerator / denominator], counts)[0][0], counts)):
            return numerator / denominator
    return _collect_parameters(pulled, counts)


def split(outputs: Sequence[sympy.Expr], counts: Collection) -> tuple[list[sympy.Expr], tuple]:
    """``outputs`` with each maximal cancelling integer polynomial of ``counts`` replaced by a
    placeholder symbol, and the ``(placeholder, polynomial)`` pairs in order of appearance.

    ``counts``: symbols and ``IndexedBase`` objects holding counts (non-negative integers).
    Placeholders are named ``exact__<i>``: spec names cannot contain ``__``. Only sums are
    split out: a product or power of differences is taken of the separately rounded
    differences (relative error a few units in the last place), which keeps the integer
    degree, and so the chance of needing Python integers, low.
    """
    parts: dict[sympy.Expr, sympy.Symbol] = {}

    def replace(expr: sympy.Basic) -> sympy.Basic:
        if (isinstance(expr, (sympy.Add, sympy.Sum)) and exact_atoms(expr, counts) and _polynomial(expr, counts)
                and _cancels(expr)):
            if expr not in parts:
                parts[expr] = sympy.Symbol(f"exact__{len(parts)}")
            return parts[expr]
        if expr.is_Atom or isinstance(expr, sympy.Indexed) or not expr.args:
            return expr
        args = [replace(a) for a in expr.args]
        return expr if args == list(expr.args) else expr.func(*args)

    replaced = [replace(e) for e in outputs]
    return replaced, tuple((symbol, expr) for expr, symbol in parts.items())


def bound(expr: sympy.Expr, counts: Collection) -> sympy.Expr:
    """An upper bound of ``|expr|`` and of every intermediate value computing it, in terms of
    :data:`LARGEST` (no count exceeds it) and the number of classes ``C``."""
    if _is_count(expr, counts):
        return LARGEST
    if isinstance(expr, sympy.Integer):
        return abs(expr)
    if expr == symbols.N_CLASSES:
        return expr
    if isinstance(expr, sympy.Add):
        return sympy.Add(*(bound(a, counts) for a in expr.args))
    if isinstance(expr, sympy.Mul):
        return sympy.Mul(*(bound(a, counts) for a in expr.args))
    if isinstance(expr, sympy.Pow):
        return bound(expr.base, counts) ** expr.exp
    if isinstance(expr, sympy.Abs):
        return bound(expr.args[0], counts)
    if isinstance(expr, (sympy.Max, sympy.Min)):
        return sympy.Add(*(bound(a, counts) for a in expr.args))
    if isinstance(expr, sympy.Sum):
        return symbols.N_CLASSES ** len(expr.limits) * bound(expr.function, counts)
    raise ValueError(f"not an integer polynomial of the counts: {expr}")
