"""Where a formula is undefined: the cases :func:`undefined_cases` derives for the analysis stage.

Undefined cases are derived, never declared: every denominator of the simplified form that
depends on the data and can vanish for non-negative counts, except where a factor of the same
product is exactly 0: the weight ``x`` of ``xlogy(x, y)`` (0 log 0 = 0) and the guards, Iverson brackets
(``indicator``), ``step``, ``Heaviside`` and ``Piecewise``, which are strong zeros
(``[P] * x = 0`` where ``P`` is false, even where ``x`` is undefined; Knuth 1992, "Two notes on
notation"). A denominator on whose zero set the guard is 0 is excused; one on whose zero set the
guard is 0 only in part becomes the conditional case ``D + Z = 0``, with ``Z`` an Iverson
bracket that vanishes exactly where the guard does not (see :func:`guarded_case`).
"""

from __future__ import annotations

import sympy

from metricc.compiler.analysis.signs import never_zero
from metricc.compiler.language import symbols

__all__ = [
    "DATA_SYMBOLS", "depends_on_data", "GUARDS", "is_guard", "split_guards",
    "denominators", "excused_denominators", "excuses", "log_zeros", "unmet_constraints", "undefined_cases",
    "guarded_case", "split_case", "case_conditions",
]

GUARDS = (sympy.KroneckerDelta, sympy.Piecewise, sympy.Heaviside, symbols.step)


def is_guard(factor: sympy.Expr) -> bool:
    """Whether ``factor`` is a data-dependent combination of guards and numbers (``1 - [TP = 0]``).

    Guards are exactly 0 on whole regions of the data by definition, and zero the product they
    multiply there, undefined or not (a plain count such as ``TP`` in ``TP / (TP + FP)`` does not).
    """
    if isinstance(factor, GUARDS):
        return depends_on_data(factor)
    if isinstance(factor, (sympy.Add, sympy.Mul)):
        parts = [a for a in factor.args if not a.is_number]
        return bool(parts) and all(is_guard(a) for a in parts)
    return False


def split_guards(expr: sympy.Expr) -> tuple[list[sympy.Expr], list[sympy.Expr]]:
    """The guard factors of a product, and the other factors."""
    factors = sympy.Mul.make_args(expr)
    return [f for f in factors if is_guard(f)], [f for f in factors if not is_guard(f)]


# Data symbols that are not indexed: counts, the sample total, a curve's positives and negatives.
DATA_SYMBOLS = frozenset({*symbols.COUNTS, symbols.N_TOTAL, *symbols.CURVE_TOTALS.values()})


def depends_on_data(expr: sympy.Expr) -> bool:
    """Whether ``expr`` varies with the data passed at call time (so it may vanish there).

    Counts, matrix cells and totals, scores, averaged terms, and anything indexed by class.
    Parameters are given per call like the data, so they count as data too: a class_vector
    (``Sum(w[k], k)`` is 0 when every weight is) and a scalar (``TP / beta`` at beta = 0 is
    undefined, not TP / 1). Scalars are the real symbols that are neither counts nor indices.
    """
    if expr.free_symbols & DATA_SYMBOLS or expr.atoms(sympy.Indexed):
        return True
    return any(isinstance(s, symbols.TermSymbol) or not s.is_integer for s in expr.free_symbols)


def _strip(factor: sympy.Expr) -> sympy.Expr:
    """A factor that can vanish, without numeric coefficient or power."""
    if isinstance(factor, sympy.Pow) and factor.exp.is_number:
        factor = factor.base
    coefficient, rest = factor.as_coeff_Mul()
    return rest


def _predicted_positive(factor: sympy.Expr) -> bool:
    """A curve fact: at each threshold (not the origin ``i - 1``) some sample scores at or above it.

    So ``TP[i] + FP[i] >= 1``; a factor that is that sum plus non-negative terms never vanishes.
    """
    tp, fp = symbols.CURVE_NAMES["TP"], symbols.CURVE_NAMES["FP"]
    predicted = sympy.Dummy("predicted", positive=True)
    at_threshold = [e for e in factor.atoms(sympy.Indexed) if e.base == fp and e.indices[0].is_Symbol]
    if not at_threshold:
        return False
    replaced = sympy.expand(factor.xreplace({e: predicted - tp[e.indices[0]] for e in at_threshold}))
    return bool(replaced.is_positive)


def _parts(base: sympy.Expr) -> list[sympy.Expr]:
    """The factors of a denominator that can vanish with the data."""
    parts = sympy.factor(base).as_ordered_factors() if not base.has(sympy.Sum) else sympy.Mul.make_args(base)
    return [p for p in map(_strip, parts) if depends_on_data(p) and not never_zero(p) and not _predicted_positive(p)]


_DATA_BASES = {symbols.M, symbols.ROW_TOTAL, symbols.COLUMN_TOTAL}


def _data_atom(expr: sympy.Expr) -> sympy.Expr | None:
    """``expr`` as a non-negative data atom (a count, n, M[a, b], t[a], p[a]), powers dropped."""
    if isinstance(expr, sympy.Pow) and expr.exp.is_positive:
        expr = expr.base
    if expr in symbols.COUNTS or expr == symbols.N_TOTAL:
        return expr
    if isinstance(expr, sympy.Indexed) and expr.base in _DATA_BASES:
        return expr
    return None


def _bounded(small: sympy.Expr, large: sympy.Expr) -> bool:
    """``0 <= small <= large`` for every confusion matrix (a cell is at most its row total...)."""
    if small == large or large == symbols.N_TOTAL and isinstance(small, sympy.Indexed):
        return True
    if isinstance(small, sympy.Indexed) and small.base == symbols.M and isinstance(large, sympy.Indexed):
        row, column = small.indices
        return large == symbols.ROW_TOTAL[row] or large == symbols.COLUMN_TOTAL[column]
    return False


def _on_zero_set(factor: sympy.Expr, denominator: sympy.Expr) -> sympy.Expr | None:
    """``factor`` where ``denominator`` vanishes, or None when the test does not apply.

    The test applies when the denominator is a sum of non-negative single atoms (so it is 0
    only where each of them is); then every data atom of the factor that one of them bounds is
    0 too: ``t[j] + p[j] = 0`` forces ``M[j, k] = 0``, ``p[j] = 0`` forces ``M[i, j] = 0``,
    ``n = 0`` forces ``t[i] = 0``, ``FN + TP = 0`` forces ``TP = 0``.
    """
    atoms = []
    for term in sympy.Add.make_args(sympy.expand(denominator)):
        coefficient, rest = term.as_coeff_Mul()
        atom = _data_atom(rest)
        if not coefficient.is_positive or atom is None:
            return None
        atoms.append(atom)
    candidates = factor.atoms(sympy.Indexed) | (factor.free_symbols & (set(symbols.COUNTS) | {symbols.N_TOTAL}))
    forced = {c: sympy.S.Zero for c in candidates if any(_bounded(c, a) for a in atoms)}
    try:
        return factor.xreplace(forced)
    except (TypeError, ValueError):  # the factor there compares a NaN (log(0) == ...): no conclusion
        return None


def excuses(weight: sympy.Expr, denominator: sympy.Expr) -> bool:
    """Whether ``weight`` vanishes wherever ``denominator`` does, for non-negative data: it has
    the denominator for a factor (``xlogy(r, r)``: 0 log 0), or every atom the denominator's
    vanishing forces to 0 zeroes it."""
    if any(_strip(f) == denominator for f in sympy.Mul.make_args(weight)):
        return True
    value = _on_zero_set(weight, denominator)
    return value is not None and value == 0


def _unless(guard: sympy.Expr) -> sympy.Expr:
    """An Iverson bracket that vanishes exactly where ``guard`` does not: ``[guard = 0]``.

    ``1 - [a = b]`` (``indicator(a != b)``) is non-zero where ``a != b``: its bracket is ``[a = b]``.
    """
    complement = sympy.expand(1 - guard)
    if isinstance(complement, sympy.KroneckerDelta):
        return complement
    return sympy.KroneckerDelta(guard, 0)


def guarded_case(guards: list[sympy.Expr], denominator: sympy.Expr) -> sympy.Expr | None:
    """Where a product with ``guards`` is undefined because ``denominator`` vanishes.

    None when a guard is 0 wherever the denominator is (excused); the denominator itself when
    the guards cannot be 0 there or the test does not apply; otherwise ``denominator + Z`` with
    ``Z`` an Iverson bracket per guard that is 0 only where the guard is not: both terms are
    non-negative, so the sum vanishes exactly where the denominator does and no guard does.
    """
    brackets = []
    for guard in guards:
        there = _on_zero_set(guard, denominator)
        if there is None:
            return denominator
        there = sympy.expand(there)
        if there == 0:
            return None
        if depends_on_data(there):
            brackets.append(_unless(there))
    return sympy.Add(denominator, *brackets) if brackets else denominator


def split_case(case: sympy.Expr) -> tuple[sympy.Expr, tuple[sympy.Expr, ...]]:
    """A case as its denominator and the Iverson brackets of :func:`guarded_case`: ``[a = b]``
    in the result means the case needs ``a != b``."""
    terms = sympy.Add.make_args(case)
    brackets = tuple(t for t in terms if isinstance(t, sympy.KroneckerDelta) and depends_on_data(t))
    if not brackets:
        return case, ()
    return sympy.Add(*(t for t in terms if t not in brackets)), brackets


def case_conditions(case: sympy.Expr) -> tuple[sympy.Expr, tuple[tuple[sympy.Expr, sympy.Expr], ...]]:
    """A case as ``D`` (``D = 0``) and the pairs ``(a, b)`` it also needs ``a != b`` for, the
    data side first (``TP != 0``, not ``0 != TP``): what documents state."""
    denominator, brackets = split_case(case)
    return denominator, tuple(tuple(sorted(b.args, key=lambda side: side.is_number)) for b in brackets)


def _never_zero(part: sympy.Expr) -> bool:
    """``D + [D = 0]`` (a spec's guard against a zero denominator): its case would need ``D = 0``
    and ``D != 0`` at once."""
    denominator, pairs = case_conditions(part)
    return any(b == 0 and sympy.expand(a - denominator) == 0 for a, b in pairs)


def _zero_sum(base: sympy.Expr) -> bool:
    """A sum over class indices that is 0 whatever the data (``Sum(abs(i - j) * [i = j], (i, j))``)."""
    if not base.has(sympy.Sum) or depends_on_data(base):
        return False
    try:
        return base.doit() == 0
    except (TypeError, ValueError, NotImplementedError):
        return False


def _walk(expr: sympy.Expr, found: dict, excused: dict) -> None:
    if isinstance(expr, symbols.xlogy):
        weight, argument = expr.args
        _walk(weight, found, excused)
        inner: dict = {}
        _walk(argument, inner, excused)
        for key, part in inner.items():  # the weight is a strong zero: 0 log y = 0 wherever y is undefined
            case = None if excuses(weight, part) else guarded_case([weight], part)
            if case is None:
                excused.setdefault(key, part)
            else:
                found.setdefault(sympy.srepr(case), case)
        return
    if isinstance(expr, sympy.Piecewise):
        _walk_branches(expr, found, excused)
        return
    if isinstance(expr, sympy.Mul):
        guards, others = split_guards(expr)
        if guards:
            for guard in guards:
                _walk(guard, found, excused)
            inner: dict = {}
            _walk(sympy.Mul(*others), inner, excused)
            for key, part in inner.items():
                case = guarded_case(guards, part)
                if case is None:
                    excused.setdefault(key, part)
                else:
                    found.setdefault(sympy.srepr(case), case)
            return
    if isinstance(expr, sympy.Pow) and expr.exp.is_number and expr.exp.is_negative and depends_on_data(expr.base):
        for part in _parts(expr.base):
            if not _never_zero(part):
                found.setdefault(sympy.srepr(part), part)
    elif isinstance(expr, sympy.Pow) and expr.exp.is_negative and _zero_sum(expr.base):
        found.setdefault(sympy.srepr(expr.base), expr.base)  # a class sum that is 0 for every C: never defined
    for arg in expr.args:
        _walk(arg, found, excused)


def _walk_branches(expr: sympy.Piecewise, found: dict, excused: dict) -> None:
    """A branch's denominators matter only where the branch is taken: excused where that is
    nowhere on their zero set (its condition false there, or an earlier one true)."""
    for number, (value, condition) in enumerate(expr.args):
        inner: dict = {}
        _walk(value, inner, excused)
        for key, part in inner.items():
            there = [_on_zero_set(c, part) for _, c in expr.args[:number + 1]]
            skipped = None not in there and (there[-1] == sympy.false or sympy.true in there[:-1])
            (excused if skipped else found).setdefault(key, part)


def _sorted(found: dict) -> tuple[sympy.Expr, ...]:
    """Sorted, without conditional cases implied by an unconditional one (``D + Z`` beside ``D``)."""
    def plain(case: sympy.Expr) -> str:  # |D| + Z (see _xlogy_case) is implied by D like D + Z
        denominator = split_case(case)[0]
        return sympy.srepr(denominator.args[0] if isinstance(denominator, sympy.Abs) else denominator)

    implied = {k for k, c in found.items() if split_case(c)[1] and plain(c) in found}
    return tuple(found[k] for k in sorted(found, key=lambda k: (len(k), k)) if k not in implied)


def denominators(expr: sympy.Expr) -> tuple[sympy.Expr, ...]:
    """Data-dependent denominators of ``expr``, as distinct factors, sorted.

    A denominator inside the argument ``y`` of ``xlogy(x, y)`` that forces ``x = 0`` where it
    vanishes, or beside a guard that is 0 wherever it vanishes, is excused: that term is 0 there
    (see :func:`excused_denominators`); beside a guard that is 0 on part of its zero set, it is
    a conditional case (:func:`guarded_case`).
    """
    found: dict = {}
    _walk(expr, found, {})
    return _sorted(found)


def excused_denominators(expr: sympy.Expr) -> tuple[sympy.Expr, ...]:
    """Denominators whose vanishing only zeroes a term (an ``xlogy`` weight or a guard is 0
    wherever they vanish), never undefines the value."""
    found: dict = {}
    excused: dict = {}
    _walk(expr, found, excused)
    undefined = {sympy.srepr(split_case(c)[0]) for c in found.values()}
    return _sorted({k: v for k, v in excused.items() if k not in undefined})


def _in_sum_body(expr: sympy.Expr) -> bool:
    """Whether ``expr`` has a free summation index: it is a term of a sum, not a whole sum."""
    return any(map(symbols.is_index, expr.free_symbols))


def log_zeros(expr: sympy.Expr) -> tuple[sympy.Expr, ...]:
    """Data-dependent factors of logarithm arguments that can vanish (log(0) is undefined).

    Arguments inside class sums (``Sum(M[i, j] * log(M[i, j]), ...)``) are left alone: a
    sum's terms follow their own conventions, and one zero cell must not undefine the sum.
    """
    found: dict[str, sympy.Expr] = {}
    for node in sympy.preorder_traversal(expr):
        is_xlogy = isinstance(node, symbols.xlogy)
        argument = node.args[-1] if is_xlogy or isinstance(node, sympy.log) else None
        # xlogy(x, 0) is 0 or -inf as its weight x is: its argument 0 is a factor that vanishes
        zero = is_xlogy and argument == 0 and depends_on_data(node.args[0])
        if argument is not None and (zero or depends_on_data(argument)) and not _in_sum_body(argument):
            numerator, _ = sympy.fraction(sympy.together(argument))
            for part in sympy.factor(numerator).as_ordered_factors():
                part = part if zero else _strip(part)
                if not (zero or depends_on_data(part)) or part.is_positive:
                    continue
                case = _xlogy_case(node.args[0], part) if is_xlogy else part
                if case is not None:
                    found.setdefault(sympy.srepr(case), case)
    return tuple(found[k] for k in sorted(found, key=lambda k: (len(k), k)))


def _xlogy_case(weight: sympy.Expr, part: sympy.Expr) -> sympy.Expr | None:
    """Where ``xlogy(weight, y)`` is undefined because the factor ``part`` of ``y`` vanishes:
    only where ``weight`` does not (0 log 0 = 0). Where the sufficient test of :func:`guarded_case`
    does not apply (an averaged term, the constant 0), the case is ``|part| + [weight = 0]``,
    both terms non-negative: it vanishes exactly where ``part`` does and ``weight`` does not."""
    if excuses(weight, part):
        return None
    if _on_zero_set(weight, part) is not None or not depends_on_data(weight):
        return guarded_case([weight], part)
    return sympy.Add(part if part == 0 or part.is_nonnegative else sympy.Abs(part), _unless(weight))


def unmet_constraints(expr: sympy.Expr) -> tuple[sympy.Expr, ...]:
    """The threshold counts ``meeting(c, i, last)`` of every constrained :class:`symbols.pick`:
    where none of the curve's thresholds meets the constraint, no threshold can be chosen."""
    found = {}
    for node in sympy.preorder_traversal(expr):
        if isinstance(node, symbols.pick) and node.args[2] is not sympy.true:
            case = symbols.meeting(*node.args[2:])
            found.setdefault(sympy.srepr(case), case)
    return tuple(found.values())


def undefined_cases(expr: sympy.Expr) -> tuple[sympy.Expr, ...]:
    """Expressions whose vanishing makes ``expr`` undefined: denominators, log arguments, and
    constraints no threshold meets."""
    return _sorted({sympy.srepr(c): c for c in (*denominators(expr), *log_zeros(expr), *unmet_constraints(expr))})
