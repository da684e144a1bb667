"""Formula text -> sympy, through Python's ``ast`` and a whitelist; never ``eval``.

``sympify`` and ``parse_expr`` evaluate their input with ``eval``; spec text is untrusted, so
every node is checked against the whitelist below and built into sympy by hand. References
to other metrics become placeholder symbols recorded as :class:`MetricCall` values; the
lowering stage replaces them.
"""

from __future__ import annotations

import ast
import math
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import sympy

from metricc.compiler.errors import Diagnostic, FormulaError, Location
from metricc.compiler.names import did_you_mean
from metricc.compiler.language import averaging, symbols
from metricc.compiler.language.levels import Level, LevelRules, rules
from metricc.compiler.language.limits import MAX_EXPONENT, MAX_FORMULA_CHARS, MAX_NUMBER_BITS, over_limit
from metricc.compiler.language.parse_indexed import IndexedForms
from metricc.compiler.language.parse_references import MetricCall, ReferenceForms

__all__ = ["MetricCall", "Scope", "ParsedFormula", "parse_formula", "parse_domain"]

Locator = Callable[[int], Location]


@dataclass(frozen=True)
class Scope:
    """What names a formula may use; ``level`` None is a parameter domain (numbers only)."""

    level: Level | None
    scalar_params: frozenset[str] = frozenset()
    vector_params: frozenset[str] = frozenset()
    matrix_params: frozenset[str] = frozenset()  # class_matrix parameters: w[i, j]
    metrics: Mapping[str, str] = field(default_factory=dict)  # id or alias -> id
    macros: Mapping[str, tuple[tuple[str, ...], sympy.Expr]] = field(default_factory=dict)
    allow_metrics: bool = True
    metric_params: frozenset[str] = frozenset()

    @property
    def rules(self) -> LevelRules:
        return _DOMAIN if self.level is None else rules(self.level)


# A parameter domain (``0 <= kappa <= 1``) names the parameter and numbers, nothing else.
_DOMAIN = LevelRules(None, names={}, needs_index={}, indexed=False, averages_metrics=False, inlines_references=False,
                     references=frozenset(), per_class=False, of_confusion_matrix=False, value_unit="")


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
    "binomial_tail": ((3,), symbols.binomial_tail),  # P(X >= x), X ~ Binomial(n, p): the binomial test
    "floor": ((1,), sympy.floor),  # bins of scores: floor(bins * confidence) is the bin of a confidence
}
_CONSTANTS = {"pi": sympy.pi}
_COMPARISONS = {ast.Lt: sympy.Lt, ast.LtE: sympy.Le, ast.Gt: sympy.Gt, ast.GtE: sympy.Ge}
# Spec text is untrusted: the bounds of .limits keep hostile formulas from hanging or crashing
# later stages. Simplification cost grows very fast with powers of sums; generated code uses floats.
_TOO_LARGE = "number too large: numbers in formulas stay within the float range (about 1e308)"
_BIG_EXPONENT = "exponent {} is too large: numeric exponents are limited to " + str(MAX_EXPONENT) + " in absolute value"
_NOT_FINITE = {
    sympy.zoo: "divides by zero: it is infinite for every input",
    sympy.oo: "is infinite for every input",
    -sympy.oo: "is infinite for every input",
    sympy.nan: "is undefined (0/0) for every input",
    sympy.I: "is not a real number (a root or logarithm of a negative number)",
}


class _Builder(IndexedForms, ReferenceForms):
    """Walks one formula's ``ast``; every rejected node becomes a located diagnostic.

    Nodes dispatch to ``_build_<Node>`` methods; what differs between levels is read from
    the scope's :class:`~.levels.LevelRules`; the indexed forms live in :mod:`.parse_indexed`
    and the references to other metrics in :mod:`.parse_references`.
    """


    def __init__(self, text: str, scope: Scope, locate: Locator, key: str) -> None:
        self.text = text
        self.scope = scope
        self.rules = scope.rules
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
        if any(max(abs(number.p), number.q).bit_length() > MAX_NUMBER_BITS for number in value.atoms(sympy.Rational)):
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
            if left.is_Rational and max(abs(left.p), left.q).bit_length() * abs(right) > MAX_NUMBER_BITS:
                raise self.fail(node, _TOO_LARGE)
        return op(left, right)

    def _build_UnaryOp(self, node: ast.UnaryOp) -> sympy.Expr:
        if isinstance(node.op, ast.USub):
            return -self.build(node.operand)
        if isinstance(node.op, ast.UAdd):
            return self.build(node.operand)
        raise self.fail(node, f"operator {type(node.op).__name__} is not allowed")

    def _build_Name(self, node: ast.Name) -> sympy.Expr:
        name, scope, level = node.id, self.scope, self.rules
        if name in self.bound:
            return symbols.index_symbol(name)
        if name in _CONSTANTS:
            return _CONSTANTS[name]
        if name in scope.scalar_params or (level.per_class and name in scope.vector_params):
            return sympy.Symbol(name, real=True)
        if name in scope.metric_params:
            if not level.per_class:
                raise self.fail(node, f"'{name}' is a metric parameter: only class-level formulas use it")
            return symbols.metric_value(name)
        if name in scope.macros:
            indices, body = scope.macros[name]
            if indices:
                raise self.fail(node, f"'{name}' is indexed by {', '.join(indices)}: write {name}[{', '.join(indices)}]")
            return body
        if name in level.names:
            return level.names[name]
        if name in level.needs_index:
            raise self.fail(node, level.needs_index[name].format(name=name))
        if name in scope.metrics and scope.allow_metrics:
            if level.inlines_references:
                return self._reference(node, name, (), None, None)
            if level.indexed and Level.CLASS in level.references:
                raise self.fail(node, f"metric '{name}' is per class: write {name}[k] inside a Sum, or average it, e.g. macro({name})")
            raise self.fail(node, f"metric '{name}' is per class: average it, e.g. macro({name})")
        if name in scope.vector_params:
            raise self.fail(node, f"'{name}' is a per-class vector: write {name}[k]")
        if name in scope.matrix_params:
            raise self.fail(node, f"'{name}' is a class_matrix parameter, one value per pair of classes: write {name}[i, j]")
        known = set(scope.scalar_params) | set(scope.vector_params) | set(scope.matrix_params) | set(scope.metrics) | set(scope.macros) | set(level.names)
        raise self.fail(node, f"unknown name '{name}'{did_you_mean(name, known)}")

    def _build_Call(self, node: ast.Call) -> sympy.Expr:
        if not isinstance(node.func, ast.Name):
            self.build(node.func)  # attribute access, lambda...: raises at the construct itself
            raise self.fail(node, "only named functions can be called")
        name = node.func.id
        if name in averaging.CALLS:
            return self._averaged(node, name)
        if name == "Sum":
            return self._sum(node)
        if name in symbols.THRESHOLD_PICKS:
            return self._threshold_pick(node)
        if name == "indicator":
            return self._indicator(node)
        if name == "floor" and self.rules.level is not Level.SCORE:
            raise self.fail(node, "floor() bins scores: it is allowed in score-level formulas only")
        if name == "binomial_tail" and self.rules.level is not Level.MATRIX:
            raise self.fail(node, "binomial_tail(successes, trials, probability) tests counts of a whole confusion "
                                  "matrix: it is allowed in matrix-level formulas only (with counts: whole)")
        if name in _FUNCTIONS:
            arities, function = _FUNCTIONS[name]
            if node.keywords:
                raise self.fail(node.keywords[0], f"{name}() takes no keyword arguments; write {name}(x)")
            if len(node.args) not in arities:
                usage = " (successes, trials, probability)" if name == "binomial_tail" else ""
                raise self.fail(node, f"{name}() takes {' or '.join(map(str, arities))} positional argument(s){usage}")
            arguments = [self.build(a) for a in node.args]
            if name == "log" and len(arguments) == 2:
                self._check_log_base(node.args[1], arguments[1])
            if name == "binomial_tail":
                self._check_binomial_arguments(node.args, arguments)
            if name in ("min", "max"):
                self._check_orderable(node, name, arguments)
            try:
                return function(*arguments)
            except (TypeError, ValueError) as error:  # max(log(-FP), 1): sympy cannot order a non-real value
                raise self.fail(node, f"{name}() cannot be built from these arguments ({error}); "
                                      "min and max need real arguments") from None
        if name in self.scope.metrics and self.scope.allow_metrics:
            if node.args:
                raise self.fail(node, f"metric '{name}' takes parameter bindings only, e.g. {name}(beta=2)")
            if not self.rules.inlines_references:
                raise self.fail(node, f"metric '{name}' is per class: average it, e.g. macro({name}(...))")
            return self._reference(node, name, node.keywords, None, None)
        raise self.fail(node, f"unknown function '{name}'{did_you_mean(name, set(_FUNCTIONS) | {'Sum', 'indicator', *symbols.THRESHOLD_PICKS, *averaging.CALLS} | set(self.scope.metrics))}")

    def _check_binomial_arguments(self, nodes: list[ast.AST], arguments: list[sympy.Expr]) -> None:
        """Constant arguments of ``binomial_tail`` inside its domain: whole successes and trials
        (trials >= 0), a probability in [0, 1]; a data argument is checked at run time."""
        successes, trials, probability = arguments
        if successes.is_number and not successes.is_integer:
            raise self.fail(nodes[0], f"binomial_tail() counts whole successes, not {successes}")
        if trials.is_number and not (trials.is_integer and trials.is_nonnegative):
            raise self.fail(nodes[1], f"binomial_tail() takes a whole number of trials >= 0, not {trials}")
        if probability.is_number and not (probability.is_real and 0 <= probability <= 1):
            raise self.fail(nodes[2], f"binomial_tail() takes a probability in [0, 1], not {probability}")
        if probability.is_number and not probability.is_Rational:
            raise self.fail(nodes[2], f"binomial_tail() takes a rational probability (a ratio of counts or a "
                                      f"number), not {probability}")

    def _check_log_base(self, node: ast.AST, base: sympy.Expr) -> None:
        """A constant base must be positive and not 1: ``log(x, 0)`` would simplify to 0."""
        if base.free_symbols:
            return
        if base.is_positive is not True or base == 1:
            raise self.fail(node, f"logarithm base {base} is not allowed: a constant base is positive and not 1, e.g. log(x, 2)")

    def _indicator(self, node: ast.Call) -> sympy.Expr:
        """``indicator(a == b)``: the Iverson bracket [a = b], 1 where it holds, else 0.

        An equality is a Kronecker delta, which sympy simplifies and evaluates exactly; ``!=``
        is its complement. An order comparison is a step of the difference with its value at
        0 fixed: ``a > b`` is ``Heaviside(a - b, 0)``, ``a >= b`` is ``Heaviside(a - b, 1)``
        (``<`` and ``<=`` swap the sides), so a tie is decided, never counted half as ``step``.
        """
        ordered = self.rules.level is Level.SCORE  # comparing scores is what ranking metrics do
        usage = ("indicator() takes one comparison, e.g. indicator(S[s, l] >= S[s, k]) or indicator(j != k)"
                 if ordered else "indicator() takes one equality, e.g. indicator(FP + FN == 0) or indicator(i != j)"
                 " (order comparisons only in score-level formulas)")
        if len(node.args) != 1 or node.keywords:
            raise self.fail(node, usage)
        test = node.args[0]
        allowed = _INDICATOR_OPS if ordered else (ast.Eq, ast.NotEq)
        if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], allowed):
            raise self.fail(test, usage)
        left, right = self.build(test.left), self.build(test.comparators[0])
        op = test.ops[0]
        if isinstance(op, (ast.Eq, ast.NotEq)):
            delta = sympy.KroneckerDelta(left, right)
            return delta if isinstance(op, ast.Eq) else 1 - delta
        if isinstance(op, (ast.Lt, ast.LtE)):
            left, right = right, left
        return sympy.Heaviside(left - right, 1 if isinstance(op, (ast.GtE, ast.LtE)) else 0)


_INDICATOR_OPS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


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
    if len(text) > MAX_FORMULA_CHARS:  # ast.parse of 100,000 characters exhausts memory
        message = over_limit("formula too long", len(text), "characters", MAX_FORMULA_CHARS, "in a formula")
        raise FormulaError(Diagnostic(locate(0), key, message))
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
    builder = _Builder(text, Scope(level=None, scalar_params=frozenset({name}), allow_metrics=False), locate, key)
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
