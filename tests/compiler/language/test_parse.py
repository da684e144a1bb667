"""Tests for the formula parser: the whitelist, what it builds, and where errors point.

The parser sees formula text and a locator; here the locator maps an offset to column
``offset + 1`` of a one-line file, so ``column - 1`` is the offset in the formula text.
Catalog-level fixtures (whole specs, exact diagnostics) live in test_compiler_lower.py.
"""

from __future__ import annotations

import builtins

import pytest
import sympy

from metricc.compiler import errors
from metricc.compiler.language import parse, symbols

TP, FP, FN, TN = symbols.COUNTS
METRICS = {"precision": "precision", "ppv": "precision", "recall": "recall", "f_beta": "f_beta"}


def locator(text: str):
    return lambda offset: errors.Location("f.yaml", 1, offset + 1, text)


def build(text: str, level: str = "class", **scope) -> parse.ParsedFormula:
    scope.setdefault("metrics", METRICS)
    return parse.parse_formula(text, parse.Scope(level=level, **scope), locator(text), "$.formula")


def failure(text: str, level: str = "class", **scope) -> errors.Diagnostic:
    with pytest.raises(errors.FormulaError) as info:
        build(text, level, **scope)
    (diagnostic,) = info.value.diagnostics
    assert diagnostic.key == "$.formula"
    return diagnostic


def test_arithmetic_and_parameters():
    beta = sympy.Symbol("beta", real=True)
    parsed = build("(1 + beta**2) * TP / (beta**2 * TP + FN) - -FP + +TN", scalar_params=frozenset({"beta"}))
    assert parsed.expr == (1 + beta**2) * TP / (beta**2 * TP + FN) + FP + TN
    assert parsed.calls == ()
    assert build("n").expr == TP + FP + FN + TN


def test_numbers_are_exact():
    assert build("0.1 + 1e-3").expr == sympy.Rational(101, 1000)
    assert build("sqrt(TP) * 2**0.5").expr == sympy.sqrt(2) * sympy.sqrt(TP)
    assert not build("0.1 * TP").expr.atoms(sympy.Float)


def test_functions():
    assert build("log(TP, 2)").expr == sympy.log(TP) / sympy.log(2)
    assert build("max(TP, FP, FN)").expr == sympy.Max(TP, FP, FN)
    assert build("abs(TP - FP) + exp(TN)").expr == sympy.Abs(TP - FP) + sympy.exp(TN)


def test_metric_references_record_calls():
    parsed = build("macro(f_beta(beta=2)) + micro(ppv)", "aggregate")
    first, second = parsed.calls
    assert (first.metric, first.mode, first.bindings, first.index) == ("f_beta", "macro", (("beta", 2),), None)
    assert (second.metric, second.mode) == ("precision", "micro")  # alias resolved
    assert (first.location.column, second.location.column) == (7, 31)
    assert first.binding_location("beta").column == 14
    assert parsed.expr == first.placeholder + second.placeholder


def test_matrix_formulas():
    k, i, j = (symbols.index_symbol(x) for x in "kij")
    last = symbols.N_CLASSES - 1
    parsed = build("Sum(M[k, k], k) / n", "matrix")
    assert parsed.expr == sympy.Sum(symbols.M[k, k], (k, 0, last)) / symbols.N_TOTAL
    parsed = build("Sum(Sum(M[i, j] * abs(i - j), j != i), i)", "matrix")
    body = (1 - sympy.KroneckerDelta(i, j)) * sympy.Abs(i - j) * symbols.M[i, j]
    assert parsed.expr == sympy.Sum(body, (j, 0, last), (i, 0, last))
    parsed = build("Sum(recall[k] * t[k], k)", "matrix")
    (call,) = parsed.calls
    assert (call.metric, call.mode, call.index) == ("recall", None, "k")


def test_bound_names_become_index_symbols_and_only_they_are_indices():
    """Later stages ask symbols.is_index, never the spelling: a one-letter parameter is no index."""
    parsed = build("Sum(M[k, k] * w[k], k) / n", "matrix", vector_params=frozenset({"w"}))
    (total,) = parsed.expr.atoms(sympy.Sum)
    assert symbols.is_index(total.limits[0][0]) and total.limits[0][0] == symbols.index_symbol("k")
    assert not symbols.is_index(symbols.N_TOTAL) and not symbols.is_index(sympy.Symbol("k", integer=True, nonnegative=True))
    assert symbols.is_sample_index(symbols.index_symbol("s")) and not symbols.is_sample_index(symbols.index_symbol("k"))
    assert [name for name in "knptz" if symbols.is_index_name(name)] == ["k", "z"]


def test_extremes_over_classes_bind_their_index_like_a_sum():
    k, i, j = (symbols.index_symbol(x) for x in "kij")
    last = symbols.N_CLASSES - 1
    assert build("Max(t[k], k) / n", "matrix").expr == symbols.index_max(symbols.ROW_TOTAL[k], k, last) / symbols.N_TOTAL
    per_row = build("Sum(Min(M[i, j], j), i)", "matrix").expr
    assert per_row == sympy.Sum(symbols.index_min(symbols.M[i, j], j, last), (i, 0, last))
    assert i not in per_row.free_symbols and j not in per_row.free_symbols
    pair = build("Max(M[i, j], (i, j))", "matrix").expr  # over a pair: the extreme of the extremes
    assert pair == symbols.index_max(symbols.index_max(symbols.M[i, j], j, last), i, last)
    assert build("Max(Sum(M[k, j], j), k)", "matrix").expr == symbols.index_max(
        sympy.Sum(symbols.M[k, j], (j, 0, last)), k, last)
    s = symbols.index_symbol("s")  # score level: over the samples, 0 .. n - 1
    scores = sympy.Sum(symbols.SCORE[s, k], (k, 0, last))
    assert build("Max(Sum(S[s, k], k), s)", "score").expr == symbols.index_max(scores, s, symbols.N_TOTAL - 1)


def test_let_definitions_are_inlined():
    k = symbols.index_symbol("k")
    body = symbols.M[k, k]
    parsed = build("Sum(d[k], k) + total", "matrix", macros={"d": (("k",), body), "total": ((), symbols.N_TOTAL)})
    assert parsed.expr == sympy.Sum(body, (k, 0, symbols.N_CLASSES - 1)) + symbols.N_TOTAL


@pytest.mark.parametrize(
    "text, level, column, message",
    [
        ("TP / (TP + FPP)", "class", 12, "unknown name 'FPP'; did you mean 'FP'?"),
        ("precison", "class", 1, "unknown name 'precison'; did you mean 'precision'?"),
        ("sqr(TP)", "class", 1, "unknown function 'sqr'; did you mean 'sqrt'?"),
        ("macro(recal)", "aggregate", 7, "unknown metric 'recal'; did you mean 'recall'?"),
        ("macro(TP)", "aggregate", 7, "'TP' is a count, not a metric: macro() takes a metric id, e.g. macro(recall)"),
        ("TP / (TP + FP", "class", 6, "invalid formula syntax: '(' was never closed"),
        ("TP +* FP", "class", 5, "invalid formula syntax: invalid syntax"),
        ("__import__('os').system('x')", "class", 17, "attribute access ('.system') is not allowed in a formula"),
        ("TP.real", "class", 3, "attribute access ('.real') is not allowed in a formula"),
        ("(lambda: TP)()", "class", 2, "a lambda or comprehension is not allowed in a formula"),
        ("[TP for TP in FP]", "class", 1, "a lambda or comprehension is not allowed in a formula"),
        ("TP < FP", "class", 1, "a comparison is not allowed in a formula"),
        ("TP if FP else FN", "class", 1, "'IfExp' syntax is not allowed in a formula"),
        ("TP and FP", "class", 1, "'BoolOp' syntax is not allowed in a formula"),
        ("'TP'", "class", 1, "'TP' is not a number; formulas take numbers only"),
        ("True * TP", "class", 1, "True is not a number; formulas take numbers only"),
        ("f'{TP}'", "class", 1, "'JoinedStr' syntax is not allowed in a formula"),
        ("TP // FP", "class", 1, "operator FloorDiv is not allowed; use + - * / **"),
        ("TP % FP", "class", 1, "operator Mod is not allowed; use + - * / **"),
        ("~TP", "class", 1, "operator Invert is not allowed"),
        ("sqrt(x=TP)", "class", 6, "sqrt() takes no keyword arguments; write sqrt(x)"),
        ("sqrt(TP, FP)", "class", 1, "sqrt() takes 1 positional argument(s)"),
        ("f_beta(2)", "class", 1, "metric 'f_beta' takes parameter bindings only, e.g. f_beta(beta=2)"),
        ("f_beta(**b)", "class", 8, "**kwargs is not allowed"),
        ("(TP + 1)(FP)", "class", 1, "only named functions can be called"),
        ("macro(recall)", "class", 1, "macro() makes one value per matrix: use it in an aggregate or matrix formula (level: aggregate)"),
        ("TP / n", "aggregate", 1, "'TP' is a per-class count: aggregate formulas use averaged metrics, e.g. macro(recall)"),
        ("recall", "aggregate", 1, "metric 'recall' is per class: average it, e.g. macro(recall)"),
        ("Sum(TP, k)", "class", 1, "Sum() is only allowed in matrix-, curve- and score-level formulas"),
        ("recall[k]", "class", 1, "indexing ('recall[...]') is only allowed in matrix-, curve- and score-level formulas"),
        ("Sum(M[k, j], k)", "matrix", 10, "an index must be a class index bound by Sum (e.g. Sum(M[k, k], k)), by the let definition or by per_class"),
        ("Sum(M[k, k], n)", "matrix", 14, "a summation index is a single lower-case letter other than n, p, t"),
        ("Sum(Sum(M[k, k], k), k)", "matrix", 18, "index 'k' is already in use"),
        ("M[k]", "matrix", 3, "an index must be a class index bound by Sum (e.g. Sum(M[k, k], k)), by the let definition or by per_class"),
        ("Sum(M[k], k)", "matrix", 5, "'M' takes 2 index(es), got 1"),
        ("t * 2", "matrix", 1, "'t' needs an index, e.g. t[k]"),
        ("TP / n", "matrix", 1, "'TP' is a per-class count; matrix formulas use M[i, j], t[k], p[k], n"),
        ("recall", "matrix", 1, "metric 'recall' is per class: write recall[k] inside a Sum, or average it, e.g. macro(recall)"),
        ("Max(TP, k)", "class", 1, "Max() chooses a threshold in curve-level formulas (and runs over an index in matrix- and score-level ones): "
                                   "it is not allowed in class-level formulas"),
        ("Max(t[k], k) + t[k]", "matrix", 18, "an index must be a class index bound by Sum (e.g. Sum(M[k, k], k)), by the let definition or by per_class"),
        ("Max(t[k], k, where=t[k] > 1)", "matrix", 14, "Max() over an index takes no constraint: where= belongs to a chosen threshold of a curve formula"),
        ("Sum(Max(t[k], k), k)", "matrix", 15, "index 'k' is already in use"),
        ("Min(n, k)", "matrix", 5, "the expression does not use the index 'k', so Min() over it is the expression itself: index it by 'k' or drop Min()"),
        ("TP / 0", "class", 1, "this part of the formula divides by zero: it is infinite for every input"),
        ("TP + 0 / 0", "class", 6, "this part of the formula is undefined (0/0) for every input"),
        ("sqrt(-TP)", "class", 1, "this part of the formula is not a real number (a root or logarithm of a negative number)"),
        ("TP + log(0)", "class", 6, "this part of the formula divides by zero: it is infinite for every input"),
        ("9**9**9 * TP", "class", 1, "exponent 387420489 is too large: numeric exponents are limited to 16 in absolute value"),
        ("TP**17", "class", 1, "exponent 17 is too large: numeric exponents are limited to 16 in absolute value"),
        ("(TP + FP)**9 * (TP + FP)**9", "class", 1, "exponent 18 is too large: numeric exponents are limited to 16 in absolute value"),
        ("1e400 * TP", "class", 1, "number too large: numbers in formulas stay within the float range (about 1e308)"),
        ("(2**16)**16 * (2**16)**16 * (2**16)**16 * (2**16)**16 * (2**16)**16 * TP", "class", 1, "number too large: numbers in formulas stay within the float range (about 1e308)"),
        ("TP\0", "class", 3, "character U+0000 is not allowed in a formula"),
        ("TP +\u202eFP", "class", 5, "character U+202E is not allowed in a formula"),
        ("TP +\u2028FP", "class", 5, "character U+2028 is not allowed in a formula"),
        ("TP +\x0cFP", "class", 5, "character U+000C is not allowed in a formula"),
        ("   ", "class", 1, "the formula is empty"),
    ],
)
def test_rejected(text, level, column, message):
    diagnostic = failure(text, level)
    assert (diagnostic.message, diagnostic.location.column) == (message, column)


def test_columns_count_characters_not_bytes():
    # 'ＴＰ' is NFKC-normalised to TP by Python (3 bytes each in UTF-8); '𝑇' takes 4 bytes.
    assert failure("ＴＰ / (ＴＰ + FPP)").location.column == 12
    assert failure("𝑇𝑃 + FPP").location.column == 6
    assert failure("é + (TP +)").location.column == 10  # SyntaxError offsets
    assert failure("TP.é").location.column == 3


def test_line_breaks_and_surrounding_blanks_keep_offsets():
    assert failure("\n  TP +\n FPP\n").location.column == 10
    assert failure("\r\nTP + FPP").location.column == 8
    assert build("\n\nTP /\n(TP + FP)\n\n").expr == TP / (TP + FP)  # a literal block scalar


def test_deep_nesting_is_a_formula_error():
    assert failure("-" * 4990 + "TP").message == "the formula is nested too deeply"
    assert failure("+".join(["TP"] * 1600)).message == "the formula is nested too deeply"


def test_formula_length_is_limited_before_ast_parse():
    text = "TP + " * 1_000 + "(" * 10_000  # ast.parse of 100,000 characters exhausts memory
    assert failure(text).message == "formula too long: 15,000 characters, more than the 5,000 allowed in a formula"


def test_parsing_never_evaluates(monkeypatch, tmp_path):
    marker = tmp_path / "pwned"

    def forbidden(*args, **kwargs):
        raise AssertionError("eval/exec called on spec text")

    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(builtins, "exec", forbidden)
    monkeypatch.setattr(sympy, "parse_expr", forbidden, raising=False)
    for text in (f"__import__('os').system('touch {marker}')", f"open('{marker}', 'w')", "TP / (TP + FP)"):
        try:
            build(text)
        except errors.FormulaError:
            pass
    assert not marker.exists()


def test_domains():
    kappa = sympy.Symbol("kappa", real=True)
    assert parse.parse_domain("0 <= kappa <= 1", "kappa", locator("x"), "$.d") == (sympy.Le(0, kappa), sympy.Le(kappa, 1))
    assert parse.parse_domain(" kappa > -1.5 ", "kappa", locator("x"), "$.d") == (kappa > sympy.Rational(-3, 2),)
    for text, message in [
        ("kappa", "a domain is a comparison such as 'kappa > 0' or '0 <= kappa <= 1'"),
        ("kappa != 0", "a domain uses <, <=, > or >="),
        ("kappa > TP", "unknown name 'TP'"),
        ("1 < 2", "each comparison must involve 'kappa' and numbers only"),
    ]:
        with pytest.raises(errors.FormulaError) as info:
            parse.parse_domain(text, "kappa", locator(text), "$.d")
        assert info.value.diagnostics[0].message == message
