"""The catalog-wide equivalences the compiler must prove, as literal statements."""

from pathlib import Path

import pytest
import sympy

from metricc.compiler import build
from metricc.compiler.analysis import forms, prove
from metricc.compiler.language import averaging, symbols

SPECS = Path(__file__).resolve().parents[3] / "specs"


@pytest.fixture
def metrics(compiled_metrics):
    return compiled_metrics


def _copy_specs(folder, *names):
    for name in names:
        (folder / f"{name}.yaml").write_text((SPECS / f"{name}.yaml").read_text())


def _statements(metrics):
    return {
        (metric_id, eq.mode, eq.other, eq.other_mode, eq.scope)
        for metric_id, metric in metrics.items()
        for eq in metric.equivalences
    }


@pytest.mark.parametrize(
    "statement",
    [
        ("precision", "micro", "accuracy", None, "all"),
        ("recall", "micro", "accuracy", None, "all"),
        ("f1", "micro", "accuracy", None, "all"),
        ("f1", "micro", "precision", "micro", "all"),
        ("recall", "micro", "precision", "micro", "all"),
        ("recall", "weighted", "recall", "micro", "all"),
        ("recall", "macro", "balanced_accuracy", None, "all"),
        ("mcc_per_class", "binary", "mcc", None, "binary"),
        ("specificity", "macro", "balanced_accuracy", None, "binary"),
    ],
)
def test_required_equivalence_is_proved(metrics, statement):
    assert statement in _statements(metrics)


def test_equivalences_are_symmetric(metrics):
    statements = _statements(metrics)
    for left, mode, right, other_mode, scope in statements:
        assert (right, other_mode, left, mode, scope) in statements


@pytest.mark.parametrize(
    ("left", "right"),
    [
        (("f1", "macro"), ("f1_of_macro_averages", None)),  # the two macro F1s differ
        (("precision", "macro"), ("accuracy", None)),
        (("mcc_per_class", "macro"), ("mcc", None)),  # equal for C = 2 only
    ],
)
def test_different_metrics_are_not_claimed_equal_in_general(metrics, left, right):
    assert (left[0], left[1], right[0], right[1], "all") not in _statements(metrics)


def test_general_form_of_micro_precision_is_trace_over_n(metrics):
    form = prove.general_form(metrics["precision"], "micro")
    assert sympy.simplify(form - averaging.TRACE / symbols.N_TOTAL) == 0


def _bound_statements(metrics):
    return {
        (metric_id, eq.bindings, eq.mode, eq.other, eq.other_bindings, eq.other_mode, eq.scope)
        for metric_id, metric in metrics.items()
        for eq in metric.equivalences
    }


@pytest.mark.parametrize(
    "statement",
    [
        # Kozak et al. 2022, Section 4.2 and Table 3 footnotes: kappa = 1 is precision, 0 recall.
        ("preference_driven", (("kappa", "1", "class_vector"),), "macro", "precision", (), "macro", "all"),
        ("preference_driven", (("kappa", "0", "class_vector"),), "macro", "recall", (), "macro", "all"),
        ("preference_driven", (("kappa", "1", "class_vector"),), "none", "precision", (), "none", "all"),
        ("preference_driven", (("kappa", "0", "class_vector"),), "none", "recall", (), "none", "all"),
        ("preference_driven", (("kappa", "1", "class_vector"),), "weighted", "precision", (), "weighted", "all"),
        ("preference_driven", (("kappa", "0", "class_vector"),), "weighted", "recall", (), "weighted", "all"),
        ("preference_driven", (("kappa", "1", "class_vector"),), "binary", "precision", (), "binary", "all"),
        ("preference_driven", (("kappa", "0", "class_vector"),), "binary", "recall", (), "binary", "all"),
        ("preference_driven", (("kappa", "0", "class_vector"),), "weighted", "accuracy", (), None, "all"),
        ("preference_driven", (("kappa", "0", "class_vector"),), "macro", "balanced_accuracy", (), None, "all"),
        ("precision", (), "macro", "preference_driven", (("kappa", "1", "class_vector"),), "macro", "all"),
    ],
)
def test_parameter_endpoint_equivalence_is_proved(metrics, statement):
    assert statement in _bound_statements(metrics)


@pytest.mark.parametrize(
    "statement",
    [
        # The endpoints are not swapped (Kozak Section 4.2's Table 3 paragraph has them swapped).
        ("preference_driven", (("kappa", "0", "class_vector"),), "macro", "precision", (), "macro", "all"),
        ("preference_driven", (("kappa", "1", "class_vector"),), "macro", "recall", (), "macro", "all"),
        # Weighted precision is not accuracy (only weighted recall is).
        ("preference_driven", (("kappa", "1", "class_vector"),), "weighted", "accuracy", (), None, "all"),
        # A bound variant is compared with its own mode only, not across modes.
        ("preference_driven", (("kappa", "1", "class_vector"),), "macro", "precision", (), "weighted", "all"),
    ],
)
def test_false_endpoint_statements_are_not_claimed(metrics, statement):
    assert statement not in _bound_statements(metrics)


def test_endpoints_only_where_the_domain_attains_them(metrics):
    assert prove.domain_endpoints(metrics["preference_driven"].param("kappa")) == (0, 1)
    assert prove.domain_endpoints(metrics["f_beta"].param("beta")) == ()  # beta > 0: open
    defaults = (("beta", "1", "scalar"),)
    assert {eq.bindings for eq in metrics["f_beta"].equivalences} <= {(), defaults}


def test_equivalence_text_names_the_binding(metrics):
    texts = {eq.text("preference_driven") for eq in metrics["preference_driven"].equivalences}
    assert "preference_driven(kappa=1) [macro] = precision [macro] for every confusion matrix" in texts


def test_endpoint_without_a_catalog_counterpart_states_nothing(tmp_path):
    """kappa = 1 gives precision (stated); kappa = 0 gives recall squared, in no spec (silent)."""
    _copy_specs(tmp_path, "precision", "recall")
    (tmp_path / "mix.yaml").write_text(
        "id: mix\nname: Mix\ndescription: Test.\nreferences: [test]\n"
        "params:\n  kappa:\n    kind: class_vector\n    default: 0.5\n    domain: 0 <= kappa <= 1\n"
        "formula: kappa * precision + (1 - kappa) * recall**2\n"
        "averages: [none, macro]\ndefault_average: macro\nrange: [0, 1]\nhigher_is_better: true\n"
    )
    statements = {(eq.bindings, eq.mode, eq.other, eq.other_mode) for eq in build.compile_metrics(tmp_path)["mix"].equivalences}
    assert statements == {((("kappa", "1", "class_vector"),), "macro", "precision", "macro"), ((("kappa", "1", "class_vector"),), "none", "precision", "none")}


def test_a_statement_at_the_parameter_default_states_the_binding(metrics):
    """Proved at beta = 1 only, so it must not read as if it held for every beta."""
    texts = {eq.text("f_beta") for eq in metrics["f_beta"].equivalences}
    assert "f_beta(beta=1) [macro] = f1 [macro] for every confusion matrix" in texts
    assert not any(text.startswith("f_beta [macro] = f1 [macro]") for text in texts)
    assert "f_beta [micro] = accuracy for every confusion matrix" in texts  # for every beta


def test_documents_state_one_statement_per_variant_and_scope(metrics):
    """Not every transitive pair: each variant names the best-ranked variant it equals."""
    stated = [(eq.mode, eq.bindings, eq.scope) for eq in metrics["f_beta"].equivalences if eq.stated
              if eq.other != "f_beta"]
    assert 0 < len(stated) < len([eq for eq in metrics["f_beta"].equivalences if eq.other != "f_beta"])
    micro = [eq for eq in metrics["f_beta"].equivalences if eq.stated and eq.mode == "micro" and eq.scope == "all"
             and not eq.bindings]
    assert [(eq.other, eq.other_mode) for eq in micro] == [("accuracy", None)]


def test_adding_an_equal_spec_changes_only_its_partners(tmp_path):
    """A new metric equal to accuracy adds statements to its own file and accuracy's only."""
    _copy_specs(tmp_path, "accuracy", "precision", "recall", "f_beta", "f1")
    before = build.compile_metrics(tmp_path)
    (tmp_path / "hit_rate.yaml").write_text(
        "id: hit_rate\nname: Hit rate\ndescription: Test.\nreferences: [test]\nlevel: matrix\n"
        "formula: Sum(M[k, k], k) / n\nrange: [0, 1]\nhigher_is_better: true\n"
    )
    after = build.compile_metrics(tmp_path)
    changed = {m for m in before if [e for e in before[m].equivalences if e.stated] != [e for e in after[m].equivalences if e.stated]}
    assert changed <= {"accuracy"}


def test_a_matrix_formula_over_per_class_terms_gets_a_binary_form(tmp_path):
    """``Sum(recall[k], k) / C``: the per-class terms take their index only once C = 2."""
    _copy_specs(tmp_path, "recall", "balanced_accuracy")
    (tmp_path / "mean_recall.yaml").write_text(
        "id: mean_recall\nname: Mean recall\ndescription: Test.\nreferences: [test]\nlevel: matrix\n"
        "formula: Sum(recall[k], k) / C\nrange: [0, 1]\nhigher_is_better: true\n"
    )
    texts = {eq.text("mean_recall") for eq in build.compile_metrics(tmp_path)["mean_recall"].equivalences}
    assert "mean_recall = recall [macro] for two classes (C = 2)" in texts


def test_a_textbook_scott_pi_is_proved_equal_for_every_class_count(tmp_path):
    """Issue 27: written with the pooled shares (t[k] + p[k]) / 2n inside the class sums, the
    user's Scott's pi was proved equal only "for two classes (C = 2)". Class sums in normal
    form (summands expanded, factors free of k taken out, Sum(t[k]) = n) prove it for every C;
    Cohen's kappa, different for C > 2 only where t != p, is not claimed equal in general."""
    _copy_specs(tmp_path, "scott_pi", "cohen_kappa")
    (tmp_path / "textbook_pi.yaml").write_text(
        "id: textbook_pi\nname: Textbook pi\ndescription: Test.\nreferences: [test]\nlevel: matrix\n"
        "formula: (Sum(M[k, k], k) / n - Sum(((t[k] + p[k]) / (2 * n))**2, k)) / (1 - Sum(((t[k] + p[k]) / (2 * n))**2, k))\n"
        "range: [-1, 1]\nhigher_is_better: true\n"
    )
    texts = {eq.text("textbook_pi") for eq in build.compile_metrics(tmp_path)["textbook_pi"].equivalences}
    assert "textbook_pi = scott_pi for every confusion matrix" in texts, texts
    assert not any("cohen_kappa" in text for text in texts)


def test_class_sums_in_normal_form_pool_linear_summands():
    k, n, t, p, M, C = (symbols.index_symbol("j"), symbols.N_TOTAL, symbols.ROW_TOTAL, symbols.COLUMN_TOTAL,
                        symbols.M, symbols.N_CLASSES)
    total = sympy.Sum(3 * t[k] + (p[k] + M[k, k]) ** 2 / n + 2, (k, 0, C - 1))
    squares = sympy.Symbol("Sum(p[k]**2)", nonnegative=True)
    cross, diagonal = sympy.Symbol("Sum(M[k, k]*p[k])", nonnegative=True), sympy.Symbol("Sum(M[k, k]**2)", nonnegative=True)
    assert sympy.expand(forms.class_sum(total) - (3 * n + (squares + 2 * cross + diagonal) / n + 2 * C)) == 0
    ratio = sympy.Sum(M[k, k] / t[k], (k, 0, C - 1))
    assert forms.class_sum(ratio) == ratio  # not a polynomial summand: no form for every C


_TOWER = """
import sys
from pathlib import Path
from metricc.compiler.analysis import analyze, prove
from metricc.compiler.language import load, lower, validate
# The declared checks refuse the tower now (values beyond float64); the prover must not hang on it either.
specs = validate.validate_catalog(load.load_catalog(Path(sys.argv[1])))
metrics = prove.prove_equivalences(analyze.analyze_catalog(lower.lower_catalog(specs)))
print(len(metrics["tower"].equivalences))
"""


def test_a_formula_too_large_to_evaluate_is_not_proved_and_does_not_hang(tmp_path):
    """Issue 13: exp(exp(exp(exp(exp(TP))))) passed the checks and hung the prover in mpmath."""
    import subprocess
    import sys

    folder = tmp_path / "specs"
    folder.mkdir()
    (folder / "tower.yaml").write_text(
        'id: tower\nname: Tower\ndescription: Hostile.\nreferences: ["Hostile spec"]\n'
        "formula: exp(exp(exp(exp(exp(TP)))))\naverages: [none]\ndefault_average: none\n"
        "range: [-inf, inf]\nhigher_is_better: true\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-c", _TOWER, str(folder)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "0"
    assert not prove._bounded(sympy.exp(sympy.exp(sympy.exp(sympy.Symbol("TP")))), {sympy.Symbol("TP"): 60})
    assert prove._bounded(sympy.exp(-sympy.Symbol("TP")) + sympy.Symbol("TP") ** 3, {sympy.Symbol("TP"): 60})


def test_an_instance_mean_sympy_cannot_compare_is_not_proved():
    """Fuzz finding: max(exp(...), log(precision, 2)) raised "'zoo' is not comparable" inside
    xreplace (precision is 0 on a wrong instance)."""
    from metricc.compiler.language import symbols as s

    recall, precision = s.TP / (s.TP + s.FN), s.TP / (s.TP + s.FP)
    per_class = sympy.Max(sympy.exp(recall / (1 + recall)), sympy.log(precision) / sympy.log(2))
    assert averaging.instance_mean(per_class, 3, 1, 1) is None
