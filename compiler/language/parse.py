"""Formula text -> sympy, through Python's ``ast`` and a whitelist; never ``eval``.

``sympify`` and ``parse_expr`` evaluate their input with ``eval``; spec text is untrusted, so
every node is checked against the whitelist below and built into sympy by hand. References
to other metrics become placeholder symbols recorded as :class:`MetricCall` values; the
lowering stage replaces them.
"""

from __future__ import annotations

import ast
import difflib
import math
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import sympy

from metricc.compiler.language import symbols
from metricc.compiler.errors import Diagnostic, FormulaError, Location

__all__ = ["MetricCall", "Scope", "ParsedFormula", "parse_formula", "parse_domain"]

Locator = Callable[[int], Location]


@dataclass(frozen=True)
class MetricCall:
    """A use of another metric: per class (``precision``, ``recall[k]``) or averaged."""

    placeholder: sympy.Expr
    metric: str
    mode: str | None
    bindings: tuple[tuple[str, sympy.Expr], ...]
    index: str | None
    location: Location
    binding_locations: tuple[tuple[str, Location], ...] = ()  # where each ``name=`` is written
    weights: str | None = None  # ``weighted(recall, relevance)``: a class_vector parameter
    argument: bool = False  # bound to a metric parameter (``iba(base=g_mean)``), not a value

    def binding_location(self, name: str) -> Location:
        return dict(self.binding_locations).get(name, self.location)


@dataclass(frozen=True)
class Scope:
    """What names a formula may use."""

    level: str
    scalar_params: frozenset[str] = frozenset()
    vector_params: frozenset[str] = frozenset()
    metrics: Mapping[str, str] = field(default_factory=dict)  # id or alias -> id
    macros: Mapping[str, tuple[tuple[str, ...], sympy.Expr]] = field(default_factory=dict)
    allow_metrics: bool = True
    metric_params: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ParsedFormula:
    expr: sympy.Expr
    calls: tuple[MetricCall, ...]


_BINARY = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: a**b,
}
_FUNCTIONS: dict[str, tuple[tuple[int, ...], Callable[..., sympy.Expr]]] = {
    "sqrt": ((1,), sympy.sqrt),
    "exp": ((1,), sympy.exp),
    "abs": ((1,), sympy.Abs),
    "log": ((1, 2), lambda x, base=None: sympy.log(x) if base is None else sympy.log(x) / sympy.log(base)),
    "min": ((2, 3, 4), sympy.Min),
    "max": ((2, 3, 4), sympy.Max),
    "xlogy": ((2,), symbols.xlogy),
    "step": ((1,), symbols.step),
}
_CONSTANTS = {"pi": sympy.pi}
_INDEXED_MATRIX = {"M": 2, "t": 1, "p": 1}
_COMPARISONS = {ast.Lt: sympy.Lt, ast.LtE: sympy.Le, ast.Gt: sympy.Gt, ast.GtE: sympy.Ge}
# Spec text is untrusted: these bounds keep hostile formulas from hanging or crashing later
# stages. Simplification cost grows very fast with powers of sums; generated code uses floats.
MAX_EXPONENT = 16
_MAX_BITS = 1030  # just above the largest float, 2**1024
_TOO_LARGE = "number too large: numbers in formulas stay within the float range (about 1e308)"
_BIG_EXPONENT = "exponent {} is too large: numeric exponents are limited to " + str(MAX_EXPONENT) + " in absolute value"
_NOT_FINITE = {
    sympy.zoo: "divides by zero: it is infinite for every input",
    sympy.oo: "is infinite for every input",
    -sympy.oo: "is infinite for every input",
    sympy.nan: "is undefined (0/0) for every input",
    sympy.I: "is not a real number (a root or logarithm of a negative number)",
}


def _suggest(name: str, candidates) -> str:
    close = difflib.get_close_matches(name, sorted(candidates), n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


class _Builder:
    """Walks one formula's ``ast``; every rejected node becomes a located diagnostic."""

    def __init__(self, text: str, scope: Scope, locate: Locator, key: str) -> None:
        self.text = text
        self.scope = scope
        self.locate = locate
        self.key = key
        self.calls: list[MetricCall] = []
        self.bound: list[str] = []

    def fail(self, node: ast.AST | None, message: str) -> FormulaError:
        offset = self._offset(node) if node is not None and hasattr(node, "lineno") else 0
        return FormulaError(Diagnostic(self.locate(offset), self.key, message))

    def _offset(self, node: ast.AST, end: bool = False) -> int:
        """Character offset of ``node`` (or its end) in the one-line text; ast counts UTF-8 bytes."""
        column = node.end_col_offset if end else node.col_offset
        return len(self.text.encode("utf-8")[:column].decode("utf-8", errors="ignore"))

    def location(self, node: ast.AST) -> Location:
        return self.locate(self._offset(node))

    # -- dispatch -------------------------------------------------------------------------
    def build(self, node: ast.AST) -> sympy.Expr:
        method = getattr(self, f"_build_{type(node).__name__}", None)
        if method is None:
            raise self.fail(node, f"{_describe(node)} is not allowed in a formula")
        result = method(node)
        if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Call)):
            self._check_value(node, result)
        return result

    def _check_value(self, node: ast.AST, value: sympy.Expr) -> None:
        """Reject constant parts that are infinite, complex or too big, where they arise."""
        for atom, problem in _NOT_FINITE.items():
            if value.has(atom):
                raise self.fail(node, f"this part of the formula {problem}")
        if any(max(abs(number.p), number.q).bit_length() > _MAX_BITS for number in value.atoms(sympy.Rational)):
            raise self.fail(node, _TOO_LARGE)
        for power in value.atoms(sympy.Pow):  # also powers that Mul merged: x**9 * x**9
            if power.exp.is_Rational and abs(power.exp) > MAX_EXPONENT:
                raise self.fail(node, _BIG_EXPONENT.format(power.exp))

    def _build_Attribute(self, node: ast.Attribute) -> sympy.Expr:
        dot = self._offset(node.value, end=True)
        raise FormulaError(Diagnostic(self.locate(dot), self.key, f"{_describe(node)} is not allowed in a formula"))

    def _build_Constant(self, node: ast.Constant) -> sympy.Expr:
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(node, f"{value!r} is not a number; formulas take numbers only")
        if isinstance(value, int):
            return sympy.Integer(value)
        if not math.isfinite(value):
            raise self.fail(node, _TOO_LARGE)
        return sympy.Rational(repr(value))

    def _build_BinOp(self, node: ast.BinOp) -> sympy.Expr:
        op = _BINARY.get(type(node.op))
        if op is None:
            raise self.fail(node, f"operator {type(node.op).__name__} is not allowed; use + - * / **")
        left, right = self.build(node.left), self.build(node.right)
        if isinstance(node.op, ast.Pow) and right.is_Rational:
            # Check before sympy evaluates: 9**9**9 would be computed exactly.
            if abs(right) > MAX_EXPONENT:
                raise self.fail(node, _BIG_EXPONENT.format(right))
            if left.is_Rational and max(abs(left.p), left.q).bit_length() * abs(right) > _MAX_BITS:
                raise self.fail(node, _TOO_LARGE)
        return op(left, right)

    def _build_UnaryOp(self, node: ast.UnaryOp) -> sympy.Expr:
        if isinstance(node.op, ast.USub):
            return -self.build(node.operand)
        if isinstance(node.op, ast.UAdd):
            return self.build(node.operand)
        raise self.fail(node, f"operator {type(node.op).__name__} is not allowed")

    def _build_Name(self, node: ast.Name) -> sympy.Expr:
        name, scope = node.id, self.scope
        if name in self.bound:
            return symbols.index_symbol(name)
        if name in _CONSTANTS:
            return _CONSTANTS[name]
        if name in scope.scalar_params or (scope.level == "class" and name in scope.vector_params):
            return sympy.Symbol(name, real=True)
        if name in scope.metric_params:
            if scope.level != "class":
                raise self.fail(node, f"'{name}' is a metric parameter: only class-level formulas use it")
            return symbols.metric_value(name)
        if name in scope.macros:
            indices, body = scope.macros[name]
            if indices:
                raise self.fail(node, f"'{name}' is indexed by {', '.join(indices)}: write {name}[{', '.join(indices)}]")
            return body
        if scope.level == "class":
            if name in symbols.COUNT_NAMES:
                return symbols.COUNT_NAMES[name]
            if name == "n":
                return symbols.TP + symbols.FP + symbols.FN + symbols.TN
            if name in scope.metrics and scope.allow_metrics:
                return self._reference(node, name, (), None, None)
        elif scope.level == "curve":
            if name in symbols.CURVE_TOTALS:
                return symbols.CURVE_TOTALS[name]
            if name in symbols.CURVE_NAMES:
                raise self.fail(node, f"'{name}' is a count at each threshold: write {name}[i] (or {name}[i - 1]) inside Sum(..., i)")
            if name in scope.metrics and scope.allow_metrics:
                return self._reference(node, name, (), None, None)
        elif scope.level == "score":
            if name in ("n", "C"):
                return symbols.SCORE_NAMES[name]
            if name in ("S", "Y"):
                raise self.fail(node, f"'{name}' needs a sample and a class index, e.g. {name}[s, k]")
        elif scope.level == "matrix":
            if name in ("n", "C"):
                return symbols.MATRIX_NAMES[name]
            if name in _INDEXED_MATRIX:
                raise self.fail(node, f"'{name}' needs an index, e.g. {name}[k]")
            if name in symbols.COUNT_NAMES:
                raise self.fail(node, f"'{name}' is a per-class count; matrix formulas use M[i, j], t[k], p[k], n")
        if name in scope.metrics and scope.allow_metrics:
            if scope.level == "matrix":
                raise self.fail(node, f"metric '{name}' is per class: write {name}[k] inside a Sum, or average it, e.g. macro({name})")
            raise self.fail(node, f"metric '{name}' is per class: average it, e.g. macro({name})")
        if name in scope.vector_params:
            raise self.fail(node, f"'{name}' is a per-class vector: write {name}[k]")
        if name in symbols.COUNT_NAMES and scope.level == "aggregate":
            raise self.fail(node, f"'{name}' is a per-class count: aggregate formulas use averaged metrics, e.g. macro(recall)")
        known = set(scope.scalar_params) | set(scope.vector_params) | set(scope.metrics) | set(scope.macros)
        known |= set(symbols.COUNT_NAMES) | {"n"} if scope.level == "class" else {"n", "C"} if scope.level in ("matrix", "score") else set()
        known |= set(symbols.CURVE_TOTALS) if scope.level == "curve" else set()
        raise self.fail(node, f"unknown name '{name}'{_suggest(name, known)}")

    def _build_Subscript(self, node: ast.Subscript) -> sympy.Expr:
        base = node.value
        if self.scope.level not in ("matrix", "curve", "score"):  # before the indices: no Sum can bind them here
            what = f"'{base.id}[...]'" if isinstance(base, ast.Name) else "'[...]'"
            raise self.fail(node, f"indexing ({what}) is only allowed in matrix-, curve- and score-level formulas")
        if self.scope.level == "curve":
            return self._curve_subscript(node)
        indices = self._indices(node.slice)
        if self.scope.level == "score" and isinstance(base, ast.Name) and base.id in ("S", "Y"):
            return self._score_subscript(node, base.id, indices)
        if isinstance(base, ast.Call) and isinstance(base.func, ast.Name) and base.func.id in self.scope.metrics:
            return self._metric_subscript(base, base.func.id, base.keywords, base.args, indices)
        if not isinstance(base, ast.Name):
            raise self.fail(node, "only names can be indexed, e.g. M[i, j], t[k], recall[k]")
        name = base.id
        if name in _INDEXED_MATRIX:
            if len(indices) != _INDEXED_MATRIX[name]:
                raise self.fail(node, f"'{name}' takes {_INDEXED_MATRIX[name]} index(es), got {len(indices)}")
            return symbols.MATRIX_NAMES[name][tuple(symbols.index_symbol(i) for i in indices)]
        if name in self.scope.vector_params:
            self._one_index(node, name, indices)
            return sympy.IndexedBase(name)[symbols.index_symbol(indices[0])]
        if name in self.scope.macros:
            params, body = self.scope.macros[name]
            if len(params) != len(indices):
                raise self.fail(node, f"'{name}' takes {len(params)} index(es), got {len(indices)}")
            mapping = {symbols.index_symbol(p): symbols.index_symbol(i) for p, i in zip(params, indices)}
            return body.xreplace(mapping)
        if name in self.scope.metrics:
            return self._metric_subscript(base, name, [], [], indices)
        raise self.fail(node, f"unknown indexed name '{name}'{_suggest(name, set(_INDEXED_MATRIX) | set(self.scope.vector_params) | set(self.scope.macros) | set(self.scope.metrics))}")

    def _curve_subscript(self, node: ast.Subscript) -> sympy.Expr:
        """``TP[i]`` (at threshold i) or ``TP[i - 1]`` (the point before: the origin for i = 0)."""
        base, index = node.value, node.slice
        if not isinstance(base, ast.Name) or base.id not in symbols.CURVE_NAMES:
            raise self.fail(node, "curve formulas index only the counts TP, FP, FN, TN, e.g. TP[i]")
        shift = 0
        if isinstance(index, ast.BinOp) and isinstance(index.op, ast.Sub) and isinstance(index.right, ast.Constant) and index.right.value == 1:
            index, shift = index.left, 1
        if not isinstance(index, ast.Name) or index.id not in self.bound:
            raise self.fail(node.slice, "a threshold index is the index of the enclosing Sum, e.g. TP[i], or the previous point, TP[i - 1]")
        return symbols.CURVE_NAMES[base.id][symbols.index_symbol(index.id) - shift]

    def _score_subscript(self, node, name, indices) -> sympy.Expr:
        """``S[s, k]``: a sample index (s, u, v) first, then a class index."""
        if len(indices) != 2 or indices[0] not in symbols.SAMPLE_INDICES or indices[1] in symbols.SAMPLE_INDICES:
            raise self.fail(node, f"'{name}' takes a sample index ({', '.join(symbols.SAMPLE_INDICES)}) and a class index, e.g. {name}[s, k]")
        return symbols.SCORE_NAMES[name][tuple(symbols.index_symbol(i) for i in indices)]

    def _metric_subscript(self, node, name, keywords, args, indices) -> sympy.Expr:
        if args:
            raise self.fail(node, f"metric '{name}' takes parameter bindings only, e.g. {name}(beta=2)")
        self._one_index(node, name, indices)
        return self._reference(node, name, keywords, None, indices[0])

    def _one_index(self, node, name, indices) -> None:
        if len(indices) != 1:
            raise self.fail(node, f"'{name}' takes one class index, got {len(indices)}")

    def _indices(self, node: ast.AST) -> tuple[str, ...]:
        elements = node.elts if isinstance(node, ast.Tuple) else [node]
        names = []
        for element in elements:
            if not isinstance(element, ast.Name) or element.id not in self.bound:
                raise self.fail(element, "an index must be a class index bound by Sum (e.g. Sum(M[k, k], k)) or by the let definition")
            names.append(element.id)
        return tuple(names)

    def _build_Call(self, node: ast.Call) -> sympy.Expr:
        if not isinstance(node.func, ast.Name):
            self.build(node.func)  # attribute access, lambda...: raises at the construct itself
            raise self.fail(node, "only named functions can be called")
        name = node.func.id
        if name in symbols.AVERAGING_CALLS:
            return self._averaged(node, name)
        if name == "Sum":
            return self._sum(node)
        if name == "indicator":
            return self._indicator(node)
        if name in _FUNCTIONS:
            arities, function = _FUNCTIONS[name]
            if node.keywords:
                raise self.fail(node.keywords[0], f"{name}() takes no keyword arguments; write {name}(x)")
            if len(node.args) not in arities:
                raise self.fail(node, f"{name}() takes {' or '.join(map(str, arities))} positional argument(s)")
            return function(*(self.build(a) for a in node.args))
        if name in self.scope.metrics and self.scope.allow_metrics:
            if node.args:
                raise self.fail(node, f"metric '{name}' takes parameter bindings only, e.g. {name}(beta=2)")
            if self.scope.level not in ("class", "curve"):
                raise self.fail(node, f"metric '{name}' is per class: average it, e.g. macro({name}(...))")
            return self._reference(node, name, node.keywords, None, None)
        raise self.fail(node, f"unknown function '{name}'{_suggest(name, set(_FUNCTIONS) | {'Sum', 'indicator', *symbols.AVERAGING_CALLS} | set(self.scope.metrics))}")

    def _indicator(self, node: ast.Call) -> sympy.Expr:
        """``indicator(a == b)``: the Iverson bracket [a = b], 1 where it holds, else 0.

        Built as a Kronecker delta, which sympy simplifies and evaluates exactly; ``!=`` is
        its complement. Order comparisons are left out: nothing in the catalog needs them.
        """
        usage = "indicator() takes one equality, e.g. indicator(FP + FN == 0) or indicator(i != j)"
        if len(node.args) != 1 or node.keywords:
            raise self.fail(node, usage)
        test = node.args[0]
        if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], (ast.Eq, ast.NotEq)):
            raise self.fail(test, usage)
        delta = sympy.KroneckerDelta(self.build(test.left), self.build(test.comparators[0]))
        return delta if isinstance(test.ops[0], ast.Eq) else 1 - delta

    def _averaged(self, node: ast.Call, mode: str) -> sympy.Expr:
        if self.scope.level == "class":
            raise self.fail(node, f"{mode}() makes one value per matrix: use it in an aggregate or matrix formula (level: aggregate)")
        weights = None
        if mode == "weighted" and len(node.args) == 2 and not node.keywords:
            weights = node.args[1]
            if not isinstance(weights, ast.Name) or weights.id not in self.scope.vector_params:
                raise self.fail(weights, "the weights of weighted() are a class_vector parameter, e.g. weighted(recall, relevance)")
            weights = weights.id
        elif len(node.args) != 1 or node.keywords:
            hint = " or weighted(recall, w) with w a class_vector parameter" if mode == "weighted" else ""
            raise self.fail(node, f"{mode}() takes one metric, e.g. {mode}(recall){hint}")
        arg = node.args[0]
        if isinstance(arg, ast.Name) and arg.id in self.scope.metrics:
            return self._reference(arg, arg.id, (), mode, None, weights)
        if isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name) and arg.func.id in self.scope.metrics and not arg.args:
            return self._reference(arg, arg.func.id, arg.keywords, mode, None, weights)
        if isinstance(arg, ast.Name) and arg.id in symbols.COUNT_NAMES:
            raise self.fail(arg, f"'{arg.id}' is a count, not a metric: {mode}() takes a metric id, e.g. {mode}(recall)")
        if isinstance(arg, ast.Name):
            raise self.fail(arg, f"unknown metric '{arg.id}'{_suggest(arg.id, self.scope.metrics)}")
        raise self.fail(arg, f"{mode}() takes a metric id, e.g. {mode}(recall) or {mode}(f_beta(beta=2))")

    def _reference(self, node, name, keywords, mode, index, weights=None) -> sympy.Expr:
        bindings = []
        where = []
        for keyword in keywords:
            if keyword.arg is None:
                raise self.fail(keyword, "**kwargs is not allowed")
            bindings.append((keyword.arg, self._binding(keyword.value)))
            where.append((keyword.arg, self.location(keyword)))
        metric = self.scope.metrics[name]
        key = len(self.calls)
        if index is None:
            placeholder = sympy.Symbol(f"_ref{key}", real=True)
        else:
            placeholder = sympy.IndexedBase(f"_ref{key}")[symbols.index_symbol(index)]
        self.calls.append(MetricCall(placeholder, metric, mode, tuple(sorted(bindings)), index, self.location(node), tuple(where), weights))
        return placeholder

    def _binding(self, node: ast.AST) -> sympy.Expr:
        """A binding's value; a metric (``base=g_mean``, ``base=f_beta(beta=2)``) becomes an
        argument call, a symbol named like the metric, resolved by lowering."""
        call = node.func if isinstance(node, ast.Call) and not node.args else None
        name = node.id if isinstance(node, ast.Name) else call.id if isinstance(call, ast.Name) else None
        if name not in self.scope.metrics or not self.scope.allow_metrics:
            return self.build(node)
        keywords = node.keywords if call is not None else []
        bindings = []
        for keyword in keywords:
            if keyword.arg is None:
                raise self.fail(keyword, "**kwargs is not allowed")
            bindings.append((keyword.arg, self._binding(keyword.value)))
        bindings.sort()
        metric = self.scope.metrics[name]
        label = metric + ("(" + ", ".join(f"{k}={v}" for k, v in bindings) + ")" if bindings else "")
        placeholder = sympy.Symbol(label, real=True)
        where = tuple((k.arg, self.location(k)) for k in keywords)
        self.calls.append(MetricCall(placeholder, metric, None, tuple(bindings), None, self.location(node), where, argument=True))
        return placeholder

    def _sum(self, node: ast.Call) -> sympy.Expr:
        if self.scope.level not in ("matrix", "curve", "score"):
            raise self.fail(node, "Sum() is only allowed in matrix-, curve- and score-level formulas")
        if len(node.args) != 2 or node.keywords:
            raise self.fail(node, "Sum() takes an expression and its indices: Sum(M[k, k], k), Sum(M[i, j], (i, j)) or Sum(x, k != j)")
        spec = node.args[1]
        condition = None
        if isinstance(spec, ast.Compare):
            if len(spec.ops) != 1 or not isinstance(spec.ops[0], ast.NotEq) or not all(isinstance(x, ast.Name) for x in (spec.left, *spec.comparators)):
                raise self.fail(spec, "a Sum condition must read 'k != j' with k the new index and j an enclosing one")
            other = spec.comparators[0].id
            if other not in self.bound:
                raise self.fail(spec.comparators[0], f"'{other}' must be an enclosing Sum's index")
            condition = other
            names = [spec.left]
        else:
            names = spec.elts if isinstance(spec, ast.Tuple) else [spec]
        indices = []
        for element in names:
            if not isinstance(element, ast.Name) or not _is_index_name(element.id):
                raise self.fail(element, "a summation index is a single lower-case letter other than n, p, t")
            if element.id in self.bound or element.id in indices:
                raise self.fail(element, f"index '{element.id}' is already in use")
            if element.id in self.scope.scalar_params or element.id in self.scope.vector_params or element.id in self.scope.macros:
                raise self.fail(element, f"'{element.id}' is a parameter or definition, not an index")
            indices.append(element.id)
        self.bound.extend(indices)
        try:
            body = self.build(node.args[0])
        finally:
            del self.bound[-len(indices):]
        if condition is not None:
            body = body * (1 - sympy.KroneckerDelta(symbols.index_symbol(indices[0]), symbols.index_symbol(condition)))
        if self.scope.level == "curve":
            if len(indices) != 1 or self.bound or body.has(sympy.Sum):
                raise self.fail(node, "a curve formula sums once over the thresholds: Sum(expr, i), not nested")
            if symbols.index_symbol(indices[0]) not in body.free_symbols:
                raise self.fail(node, f"the summed expression must use the threshold index '{indices[0]}', e.g. TP[{indices[0]}]")
        for name in reversed(indices):
            body = sympy.Sum(body, (symbols.index_symbol(name), 0, self._upper(name)))
        return body

    def _upper(self, name: str) -> sympy.Expr:
        """Last value of an index: thresholds, samples (s, u, v in score formulas) or classes."""
        if self.scope.level == "curve":
            return symbols.THRESHOLDS - 1
        if self.scope.level == "score" and name in symbols.SAMPLE_INDICES:
            return symbols.N_TOTAL - 1
        return symbols.N_CLASSES - 1


def _is_index_name(name: str) -> bool:
    return len(name) == 1 and name.islower() and name not in ("n", "p", "t")


def _describe(node: ast.AST) -> str:
    if isinstance(node, ast.Compare):
        return "a comparison"
    if isinstance(node, ast.Attribute):
        return f"attribute access ('.{node.attr}')"
    if isinstance(node, (ast.Lambda, ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp)):
        return "a lambda or comprehension"
    return f"'{type(node).__name__}' syntax"


def _one_line(text: str, locate: Locator, key: str) -> tuple[str, Locator]:
    """The formula as one line for ``ast``, and a locator for offsets into that line.

    Line breaks become spaces (one character each, so offsets keep their meaning) and the
    surrounding blanks are dropped (a leading blank is an indentation error in ``eval``
    mode). Control and format characters are rejected here, whatever the Python version.
    """
    flat = text.replace("\r", " ").replace("\n", " ")
    body = flat.lstrip(" \t")
    lead = len(flat) - len(body)
    body = body.rstrip(" \t")

    def shifted(offset: int) -> Location:
        return locate(offset + lead)

    for index, char in enumerate(body):
        if unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp", "Co", "Cs") and char != "\t":
            raise FormulaError(Diagnostic(shifted(index), key, f"character U+{ord(char):04X} is not allowed in a formula"))
    if not body:
        raise FormulaError(Diagnostic(locate(0), key, "the formula is empty"))
    return body, shifted


def _syntax_tree(text: str, locate: Locator, key: str) -> ast.Expression:
    try:
        return ast.parse(text, mode="eval")
    except SyntaxError as error:
        # One line, so ``offset`` (1-based, in characters) is the column in ``text``.
        offset = max((error.offset or 1) - 1, 0) if (error.lineno or 1) == 1 else len(text)
        raise FormulaError(Diagnostic(locate(offset), key, f"invalid formula syntax: {error.msg}")) from None
    except RecursionError:
        raise FormulaError(Diagnostic(locate(0), key, "the formula is nested too deeply")) from None


def _build(builder: _Builder, node: ast.AST) -> sympy.Expr:
    try:
        return builder.build(node)
    except RecursionError:
        raise builder.fail(None, "the formula is nested too deeply") from None


def parse_formula(text: str, scope: Scope, locate: Locator, key: str, bound: tuple[str, ...] = ()) -> ParsedFormula:
    """Build the sympy expression of ``text``; ``bound`` pre-binds indices (let definitions)."""
    text, locate = _one_line(text, locate, key)
    tree = _syntax_tree(text, locate, key)
    builder = _Builder(text, scope, locate, key)
    builder.bound.extend(bound)
    expr = _build(builder, tree.body)
    return ParsedFormula(sympy.sympify(expr), tuple(builder.calls))


def parse_domain(text: str, name: str, locate: Locator, key: str) -> tuple[sympy.Rel, ...]:
    """``"0 <= kappa <= 1"`` -> (0 <= kappa, kappa <= 1); only the parameter and numbers."""
    text, locate = _one_line(text, locate, key)
    tree = _syntax_tree(text, locate, key)
    node = tree.body
    builder = _Builder(text, Scope(level="domain", scalar_params=frozenset({name}), allow_metrics=False), locate, key)
    if not isinstance(node, ast.Compare):
        raise builder.fail(node, f"a domain is a comparison such as '{name} > 0' or '0 <= {name} <= 1'")
    relations = []
    left = _build(builder, node.left)
    for op, right_node in zip(node.ops, node.comparators):
        relation = _COMPARISONS.get(type(op))
        if relation is None:
            raise builder.fail(node, "a domain uses <, <=, > or >=")
        right = _build(builder, right_node)
        relations.append(relation(left, right))
        left = right
    symbol = sympy.Symbol(name, real=True)
    for relation in relations:
        if relation.free_symbols != {symbol}:
            raise builder.fail(node, f"each comparison must involve '{name}' and numbers only")
    return tuple(relations)
