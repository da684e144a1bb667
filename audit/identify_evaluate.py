"""A parsed formula's value at one data point, by walking its sympy tree with Python floats.

``identify`` evaluates every formula (and every perturbation of it) at a dozen points. sympy's
``doit`` looks for a closed form of each finite sum first (partial fractions, polynomials):
a hundred times slower than adding the terms. Here sums and products are loops, names are
looked up, and anything undefined at the point (a zero denominator, the log of 0, a negative
base under a root) makes the value undefined, as a 0/0 of the catalog is.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import sympy

from metricc.compiler.language import symbols

__all__ = ["Undefined", "TooLarge", "evaluate", "MAX_TERMS"]

MAX_TERMS = 10_000  # terms of all sums and products of one evaluation: nested sums stay bounded
_TERMS = [0]


class Undefined(Exception):
    """The formula has no real value at this point."""


class TooLarge(Undefined):
    """The formula's sums have more than :data:`MAX_TERMS` terms: no value at any point."""


def evaluate(expr: sympy.Basic, values: dict, cell: Callable[[sympy.IndexedBase, tuple[int, ...]], float | None]) -> float:
    """``expr`` at the point given by ``values`` (symbol -> number) and ``cell`` (the value of
    an indexed name at integer indices, None where it has none); raises :class:`Undefined`."""
    _TERMS[0] = 0
    try:
        value = _value(expr, values, cell)
    except (ZeroDivisionError, OverflowError, ValueError) as error:
        raise Undefined(str(error)) from None
    if isinstance(value, complex) or value != value or math.isinf(value):
        raise Undefined("not a finite real number")
    return value


def _value(e, values, cell) -> float:
    if e.is_Number:
        if e is sympy.S.NaN or e.is_infinite:
            raise Undefined("not a number")
        return float(e)
    if e.is_NumberSymbol:  # pi, E
        return float(e)
    if e.is_Symbol:
        if e in values:
            return values[e]
        raise Undefined(f"no value for {e}")
    if isinstance(e, sympy.Indexed):
        index = tuple(_integer(i, values, cell) for i in e.indices)
        found = cell(e.base, index)
        if found is None:
            raise Undefined(f"no value for {e}")
        return found
    if e.is_Add:
        return math.fsum(_value(a, values, cell) for a in e.args)
    if e.is_Mul:
        out = 1.0
        for a in e.args:
            out *= _value(a, values, cell)
        return out
    if e.is_Pow:
        base, exp = _value(e.base, values, cell), _value(e.exp, values, cell)
        if base < 0 and exp != int(exp):
            raise Undefined("a root of a negative number")
        if base == 0 and exp < 0:
            raise Undefined("division by zero")
        return base ** exp
    if isinstance(e, (sympy.Sum, sympy.Product)):
        return _loop(e, values, cell)
    handler = _FUNCTIONS.get(type(e).__name__)
    if handler is None and isinstance(e, sympy.Piecewise):
        handler = _piecewise
    if handler is None:
        raise Undefined(f"cannot evaluate {type(e).__name__}")
    return handler(e, values, cell)


def _integer(e, values, cell) -> int:
    value = _value(e, values, cell)
    if value != int(value):
        raise Undefined("an index that is not an integer")
    return int(value)


def _loop(e, values, cell) -> float:
    (var, low, high), rest = e.limits[0], e.limits[1:]
    inner = type(e)(e.function, *rest) if rest else e.function
    low, high = _integer(low, values, cell), _integer(high, values, cell)
    _TERMS[0] += max(high - low + 1, 0)
    if _TERMS[0] > MAX_TERMS:
        raise TooLarge(f"more than {MAX_TERMS} terms")
    terms = [_value(inner, {**values, var: float(k)}, cell) for k in range(low, high + 1)]
    if isinstance(e, sympy.Sum):
        return math.fsum(terms)
    return math.prod(terms)


def _log(e, values, cell) -> float:
    x = _value(e.args[0], values, cell)
    if x <= 0:
        raise Undefined("the log of a number <= 0")
    return math.log(x)


def _xlogy(e, values, cell) -> float:
    x = _value(e.args[0], values, cell)
    if x == 0:
        return 0.0
    y = _value(e.args[1], values, cell)
    if y <= 0:
        raise Undefined("the log of a number <= 0")
    return x * math.log(y)


def _step(e, values, cell) -> float:
    x = _value(e.args[0], values, cell)
    return 1.0 if x > 0 else 0.5 if x == 0 else 0.0


def _unless_equal(e, values, cell) -> float:
    x, k, j = e.args
    return 0.0 if _value(k, values, cell) == _value(j, values, cell) else _value(x, values, cell)


def _extreme(e, values, cell) -> float:
    """``index_max(x, k, last)``: the largest (or least) x over k = 0 .. last (PyCM's Max(P))."""
    x, index, last = e.args
    terms = [_value(x, {**values, index: float(k)}, cell) for k in range(_integer(last, values, cell) + 1)]
    _TERMS[0] += len(terms)
    if not terms:
        raise Undefined("an extreme over no classes")
    return max(terms) if isinstance(e, symbols.index_max) else min(terms)


def _piecewise(e, values, cell) -> float:
    for branch, condition in e.args:
        if _holds(condition, values, cell):
            return _value(branch, values, cell)
    raise Undefined("no branch of a piecewise formula holds")


_RELATIONS = {"Equality": lambda a, b: a == b, "Unequality": lambda a, b: a != b,
              "StrictLessThan": lambda a, b: a < b, "LessThan": lambda a, b: a <= b,
              "StrictGreaterThan": lambda a, b: a > b, "GreaterThan": lambda a, b: a >= b}


def _holds(condition, values, cell) -> bool:
    if condition is sympy.true or condition is sympy.false:
        return bool(condition)
    relation = _RELATIONS.get(type(condition).__name__)
    if relation is None:
        raise Undefined(f"cannot decide {condition}")
    return relation(_value(condition.lhs, values, cell), _value(condition.rhs, values, cell))


_FUNCTIONS = {
    "log": _log,
    "exp": lambda e, v, c: math.exp(_value(e.args[0], v, c)),
    "Abs": lambda e, v, c: abs(_value(e.args[0], v, c)),
    "Max": lambda e, v, c: max(_value(a, v, c) for a in e.args),
    "Min": lambda e, v, c: min(_value(a, v, c) for a in e.args),
    "KroneckerDelta": lambda e, v, c: float(_value(e.args[0], v, c) == _value(e.args[1], v, c)),
    symbols.xlogy.__name__: _xlogy,
    symbols.step.__name__: _step,
    "unless_equal": _unless_equal,
    symbols.index_max.__name__: _extreme,
    symbols.index_min.__name__: _extreme,
    "rest": lambda e, v, c: -1.0 - _value(e.args[0], v, c),  # r_j, every class but j: index -1 - j
}
