"""Tests for :mod:`metricc.compiler.emit.numpy_module`: one small spec of every level compiled
into a module that runs, imports exactly the runtime names it uses, reads like the spec and
carries no printer leftovers; the same properties over every module of the catalog."""

from __future__ import annotations

import ast
import dataclasses
import io
import re
import tokenize

import numpy as np
import pytest
import sympy

from metricc.compiler import build, errors
from metricc.compiler.emit import numpy_module
from metricc.compiler.emit.numpy_printer import WIDTH
from metricc.compiler.language import levels
from metricc.compiler.names import RUNTIME_NAMES

SPECS = {
    "recall": """
id: recall
name: Recall
description: Fraction of the samples of a class that are predicted as it.
references: ["Hand-made test spec"]
formula: TP / (TP + FN)
averages: [none, binary, micro, macro, weighted]
default_average: macro
range: [0, 1]
higher_is_better: true
""",
    "precision": """
id: precision
name: Precision
description: Fraction of the samples predicted as a class that belong to it.
references: ["Hand-made test spec"]
formula: TP / (TP + FP)
averages: [none, binary, micro, macro, weighted]
default_average: macro
range: [0, 1]
higher_is_better: true
""",
    "weighted_f": """
id: weighted_f
name: Weighted F
aliases: [wf]
description: F-beta of one class, zero unless a true positive exists.
params:
  beta:
    kind: scalar
    default: 1
    domain: beta > 0
references: ["Hand-made test spec"]
formula: indicator(TP != 0) * (1 + beta**2) * TP / ((1 + beta**2) * TP + beta**2 * FN + FP)
averages: [none, binary, micro, macro]
default_average: macro
range: [0, 1]
higher_is_better: true
""",
    "mean_of_averages": """
id: mean_of_averages
name: Harmonic mean of averages
description: Harmonic mean of macro precision and the macro F with beta 2.
level: aggregate
references: ["Hand-made test spec"]
formula: 2 * macro(precision) * macro(weighted_f(beta=2)) / (macro(precision) + macro(weighted_f(beta=2)))
range: [0, 1]
higher_is_better: true
""",
    "half_error": """
id: half_error
name: Negative half accuracy
description: Minus half the fraction of correct samples.
level: matrix
references: ["Hand-made test spec"]
formula: -Sum(M[k, k], k) / (2 * n)
range: [-0.5, 0]
higher_is_better: false
""",
    "mean_recall": """
id: mean_recall
name: Weighted mean recall
description: Mean of the per-class recalls weighted by user class weights.
level: matrix
params:
  class_weights:
    kind: class_vector
    default: 1
    domain: class_weights > 0
references: ["Hand-made test spec"]
formula: Sum(class_weights[k] * recall[k], k) / Sum(class_weights[k], k)
range: [0, 1]
higher_is_better: true
""",
    "curve_auc": """
id: curve_auc
name: Area under the ROC curve
description: Trapezoidal area under the one-vs-rest ROC curve.
level: curve
references: ["Hand-made test spec"]
formula: Sum((FP[i] - FP[i - 1]) * (TP[i] + TP[i - 1]), i) / (2 * P * N)
averages: [none, binary, macro]
default_average: macro
range: [0, 1]
higher_is_better: true
""",
    "bindings_apart": """
id: bindings_apart
name: Bindings apart
description: Two bindings whose readable names coincide (2*pi and 2/pi) must stay two terms.
level: aggregate
references: ["Hand-made test spec"]
formula: macro(weighted_f(beta=2*pi)) - macro(weighted_f(beta=2/pi))
range: [-1, 1]
higher_is_better: true
""",
    "squared": """
id: squared
name: Squared error
description: Mean over samples of the squared distance of the scores to the one-hot truth.
level: score
scores: probabilities
references: ["Hand-made test spec"]
formula: Sum(Sum((S[s, k] - Y[s, k])**2, k), s) / n
range: [0, 2]
higher_is_better: false
""",
}


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """``{id: ir.Metric}`` of the hand-made specs: every level once."""
    folder = tmp_path_factory.mktemp("specs")
    for metric_id, text in SPECS.items():
        (folder / f"{metric_id}.yaml").write_text(text.lstrip(), encoding="utf-8")
    return build.compile_metrics(folder)


@pytest.fixture(scope="module")
def sources(small):
    return {metric_id: numpy_module.emit_module(metric) for metric_id, metric in small.items()}


def _run(source: str) -> dict:
    namespace: dict = {}
    exec(compile(source, "<generated>", "exec"), namespace)  # test only: the module as Python runs it
    return namespace


# --- properties every generated module has -------------------------------------------------------


def _imported_and_used(source: str) -> tuple[set[str], set[str]]:
    tree = ast.parse(source)
    imported = {alias.asname or alias.name.split(".")[0] for node in ast.walk(tree)
                if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
    return imported, used


def _redundant_parentheses(source: str) -> list[str]:
    """``f((a + b))``, ``((x))``: a pair of parentheses right inside another, holding no tuple."""
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
              if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)]
    found, stack = [], []
    for position, token in enumerate(tokens):
        if token.string in "([{" and token.type == tokenize.OP:
            stack.append(position)
        elif token.string in ")]}" and token.type == tokenize.OP:
            opening = stack.pop()
            outer = stack[-1] if stack else None
            if (token.string == ")" and outer == opening - 1 and tokens[outer].string == "("
                    and position + 1 < len(tokens) and tokens[position + 1].string == ")"):
                inner = tokens[opening + 1 : position]
                depth, comma = 0, False
                for t in inner:
                    depth += t.string in "([{"
                    depth -= t.string in ")]}"
                    comma |= depth == 0 and t.string == ","
                if not comma:
                    found.append(token.line.strip())
    return found


def _long_lines(source: str) -> list[str]:
    """Lines over the width that could have been broken: not the module docstring (the
    banner carries the spec's description and hash verbatim), not a parameter's line of the
    function docstring (its description kept verbatim too), not a single long word."""
    out = []
    banner = source.index('"""', 3) if source.startswith('"""') else 0
    for line in source[banner:].splitlines():
        if len(line) <= WIDTH or line.startswith("    Parameter `"):
            continue
        if " " not in line.strip():
            continue
        out.append(line)
    return out


def leftovers(source: str) -> list[str]:
    """What a printer or template left behind: empty when the module reads as written by hand."""
    problems = [f"long line: {line[:60]}..." for line in _long_lines(source)]
    problems += [f"doubled parentheses: {line}" for line in _redundant_parentheses(source)]
    if "\n\n\n\n" in source:
        problems.append("three blank lines")
    if re.search(r"(?<![\w.])-?1 \* |\* 1\b(?!\.)", source):
        problems.append("multiplication by 1")
    if re.search(r", \)", source):
        problems.append("a tuple printed as (x, )")
    imported, used = _imported_and_used(source)
    if imported - used:
        problems.append(f"unused imports: {sorted(imported - used)}")
    if (used & RUNTIME_NAMES) - imported:
        problems.append(f"runtime names used but not imported: {sorted((used & RUNTIME_NAMES) - imported)}")
    return problems


def test_every_level_is_represented(small):
    assert {str(m.level) for m in small.values()} == {level.value for level in levels.Level}
    assert set(numpy_module.SHAPES) == {level.value for level in levels.Level}


@pytest.mark.parametrize("metric_id", sorted(SPECS))
def test_module_has_no_leftovers(sources, metric_id):
    compile(sources[metric_id], f"{metric_id}.py", "exec")
    assert leftovers(sources[metric_id]) == []


def test_leftover_checks_find_what_they_look_for():
    assert leftovers("from x import np\ny = -1 * 1 * np.sum(a)\n") == ["multiplication by 1"]
    assert leftovers("from x import nonzero\ny = a / nonzero((p + t))\n")[0].startswith("doubled parentheses")
    assert leftovers('A = ("f_measure", )\n') == ["a tuple printed as (x, )"]
    assert leftovers("from x import np, align\ny = np\n") == ["unused imports: ['align']"]
    assert leftovers("y = nonzero(x)\n") == ["runtime names used but not imported: ['nonzero']"]
    assert leftovers("a = 1\n\n\n\nb = 2\n") == ["three blank lines"]
    assert leftovers("y = " + " + ".join(["a"] * 60) + "\n")[0].startswith("long line")
    assert leftovers("y = check_counts((a, b))\nz = 1.5 * 1.0\n") == ["runtime names used but not imported: "
                                                                        "['check_counts']"]


def test_imports_are_the_printed_helpers_and_the_shape_s_own(sources):
    imported, _ = _imported_and_used(sources["precision"])
    assert imported == {"average_class_metric", "average_class_gradient", "check_counts", "nonzero", "math", "MetricInfo",
                        "rescaled_counts"}  # a ratio of the counts: tiny weighted counts are scaled first
    imported, _ = _imported_and_used(sources["half_error"])
    gradient = {"cell_values", "align", "eye"}  # the gradient of the diagonal over a row and a column index
    # the diagonal is the one its MatrixTerms gathered (terms.diagonal), not a helper's
    assert imported == {"read_matrix", "rescaled", "matrix_terms", "finish", "nonzero", "sum_last_axis", "math",
                        "MetricInfo"} | gradient
    assert "matrix_counts" in _imported_and_used(sources["mean_recall"])[0]
    assert "ParamInfo" in _imported_and_used(sources["weighted_f"])[0]


def test_docstrings_and_info_read_like_the_spec(sources):
    namespace = _run(sources["mean_of_averages"])
    info, doc = namespace["INFO"], namespace["mean_of_averages"].__doc__
    assert "macro(precision)" in info.simplified and "macro(weighted_f(beta=2))" in info.simplified
    assert "__" not in info.simplified and "__" not in doc
    assert "macro(precision) + macro(weighted_f(beta=2)) = 0" in " ".join(doc.split())
    weighted_f = _run(sources["weighted_f"])
    assert "KroneckerDelta" not in sources["weighted_f"]
    assert "[0 == TP]" in weighted_f["INFO"].simplified or "[TP == 0]" in weighted_f["INFO"].simplified
    assert weighted_f["INFO"].aliases == ("wf",)
    assert 'aliases=("wf",)' in sources["weighted_f"]


def test_term_variables_come_from_the_term_fields(sources, small):
    assert "macro__weighted_f__beta_2 = average_class_metric(" in sources["mean_of_averages"]
    assert "def _term_class__recall(tp, fp, fn, tn):" in sources["mean_recall"]
    # Whatever a term symbol is called, the variables stay: rename every symbol and emit again.
    metric = small["mean_of_averages"]
    renamed = {t.symbol: sympy.Symbol(f"term{n}") for n, t in enumerate(metric.terms)}
    other = dataclasses.replace(
        metric,
        terms=tuple(dataclasses.replace(t, symbol=renamed[t.symbol]) for t in metric.terms),
        simplified=metric.simplified.xreplace(renamed),
        undefined=tuple(u.xreplace(renamed) for u in metric.undefined),
    )
    code = numpy_module.module_context(other).kernel
    assert code.value == numpy_module.module_context(metric).kernel.value
    assert "term0" not in code.value


def test_distinct_bindings_with_the_same_readable_name_stay_distinct(sources):
    """Issue 13: both terms were ``macro__weighted_f__beta_2_pi`` and the value was 0."""
    tp, fp, fn, tn = np.array([1, 10]), np.array([0, 9]), np.array([9, 0]), np.array([10, 1])  # [[1, 9], [0, 10]]

    def f_beta(beta):
        return np.mean((1 + beta ** 2) * tp / ((1 + beta ** 2) * tp + beta ** 2 * fn + fp))

    got = _run(sources["bindings_apart"])["bindings_apart"](tp, fp, fn, tn)
    assert got == pytest.approx(f_beta(2 * np.pi) - f_beta(2 / np.pi), rel=1e-12)
    assert got == pytest.approx(0.0964, abs=5e-5)


def test_level_may_be_the_enum_or_its_string(small):
    metric = small["precision"]
    as_text = dataclasses.replace(metric, level="class")
    as_enum = dataclasses.replace(metric, level=levels.Level.CLASS)
    assert numpy_module.emit_module(as_text) == numpy_module.emit_module(as_enum)


def test_generated_functions_compute_the_formulas(sources):
    counts = [np.array([3, 0, 2]), np.array([1, 0, 2]), np.array([0, 4, 1]), np.array([6, 6, 5])]  # tp fp fn tn
    precision = _run(sources["precision"])["precision"]
    assert np.allclose(precision(*counts, average="none"), [0.75, np.nan, 0.5], equal_nan=True)
    weighted_f = _run(sources["weighted_f"])["weighted_f"]
    assert np.allclose(weighted_f(*counts, beta=2.0, average="none"), [15 / 16, 0.0, 10 / 16], equal_nan=True)
    matrix = np.array([[2, 1], [1, 4]])
    assert _run(sources["half_error"])["half_error"](matrix) == pytest.approx(-0.375)
    assert _run(sources["mean_recall"])["mean_recall"](matrix) == pytest.approx((2 / 3 + 4 / 5) / 2)
    y, scores = np.array([0, 1, 1, 0]), np.array([0.2, 0.9, 0.6, 0.4])
    assert _run(sources["curve_auc"])["curve_auc"](y, scores, average="binary") == pytest.approx(1.0)
    probabilities = np.array([[0.5, 0.5], [0.0, 1.0]])
    assert _run(sources["squared"])["squared"](np.array([0, 1]), probabilities) == pytest.approx(0.25)


def test_only_runtime_helpers_are_imported(small, monkeypatch):
    shape = numpy_module.SHAPES["class"]
    broken = dataclasses.replace(shape, helpers=shape.helpers | {"not_a_helper"})
    monkeypatch.setattr(numpy_module, "SHAPES", {**numpy_module.SHAPES, "class": broken})
    with pytest.raises(errors.InternalError, match="not_a_helper"):
        numpy_module.emit_module(small["precision"])


# --- the whole catalog ---------------------------------------------------------------------------


def test_catalog_modules_have_no_leftovers(compiled_catalog):
    problems = {path: leftovers(text) for path, text in compiled_catalog.items() if path.endswith(".py")}
    assert {path: found for path, found in problems.items() if found} == {}


def test_a_case_of_xlogy_at_zero_states_only_its_weight():
    """``xlogy(indicator(TP != 3), 0)`` is undefined where ``TP != 3`` (spec fuzz, disagreement_11)."""
    from metricc.compiler.language import symbols

    assert numpy_module._case_text(sympy.KroneckerDelta(3, symbols.TP)) == "TP != 3"
    assert numpy_module._case_text(symbols.TP + sympy.KroneckerDelta(0, symbols.TN)) == "TP = 0 and TN != 0"
