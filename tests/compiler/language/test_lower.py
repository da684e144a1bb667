"""Tests for the lower stage: formula and catalog errors as golden fixtures, and the IR.

Each ``tests/compiler/language/specs_formula_invalid/CASE/`` folder holds one or more broken specs; the test
copies them into a temporary ``specs/`` folder together with a few valid specs of the real
catalog (``BASE``), compiles that folder with :func:`build.compile_metrics` from its parent
(so locations read ``specs/<id>.yaml``) and compares the rendered diagnostics with
``CASE.expected``, byte for byte. ``METRICC_UPDATE_GOLDEN=1`` rewrites the expected files
(review the diff: they are the specification of the messages).
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest
import sympy

from metricc.compiler import build, errors, names
from metricc.compiler.language import ir, load, lower, symbols, validate

REPO = Path(__file__).resolve().parents[3]
SPECS = REPO / "specs"
CASES_DIR = REPO / "tests" / "compiler" / "language" / "specs_formula_invalid"
CASES = sorted(p.name for p in CASES_DIR.iterdir() if p.is_dir())
UPDATE = os.environ.get("METRICC_UPDATE_GOLDEN") == "1"

# Valid specs every case is compiled with: class metrics with and without parameters, a
# metric without micro averaging (mcc_per_class) and a matrix-level one (accuracy).
BASE = ("accuracy", "f_beta", "mcc_per_class", "precision", "recall")

# Problems between specs; every other case is a FormulaError.
CATALOG_CASES = {
    "aliases_read_alike",
    "average_of_matrix_metric",
    "averaging_mode_not_listed",
    "duplicate_aliases",
    "generated_name_ids",
    "metric_cycle",
    "score_uses_a_class_metric",
    "metric_param_matrix_level_base",
    "python_keyword_id",
    "reserved_id",
}


def catalog(tmp_path: Path, *extra: Path) -> Path:
    """``tmp_path/specs`` holding the BASE specs and the given files; returns the folder."""
    folder = tmp_path / "specs"
    folder.mkdir()
    for name in BASE:
        shutil.copy(SPECS / f"{name}.yaml", folder)
    for path in extra:
        shutil.copy(path, folder)
    return folder


def compile_error(tmp_path: Path, monkeypatch, *extra: Path) -> errors.SpecError:
    catalog(tmp_path, *extra)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(errors.SpecError) as info:
        build.compile_metrics(Path("specs"))
    return info.value


@pytest.mark.parametrize("case", CASES)
def test_formula_error_fixture(case, tmp_path, monkeypatch):
    error = compile_error(tmp_path, monkeypatch, *sorted((CASES_DIR / case).glob("*.yaml")))
    rendered = error.render()
    expected_file = CASES_DIR / f"{case}.expected"
    if UPDATE:
        expected_file.write_text(rendered + "\n", encoding="utf-8")
    assert rendered == expected_file.read_text(encoding="utf-8").rstrip("\n")
    assert type(error) is (errors.CatalogError if case in CATALOG_CASES else errors.FormulaError)
    for diagnostic in error.diagnostics:  # every problem names file:line:col and a key
        assert diagnostic.location.file.startswith("specs/")
        assert diagnostic.location.line >= 1 and diagnostic.location.column >= 1
        assert diagnostic.key.startswith("$.")
        assert diagnostic.location.line_text


def test_every_case_has_expected_output():
    expected = sorted(p.stem for p in CASES_DIR.glob("*.expected"))
    assert expected == CASES
    assert len(CASES) >= 30
    assert CATALOG_CASES <= set(CASES)


def test_base_catalog_compiles(tmp_path):
    metrics = build.compile_metrics(catalog(tmp_path))
    assert sorted(metrics) == sorted(BASE)


# --- columns that need care -------------------------------------------------------------


def _error(tmp_path, monkeypatch, name: str, formula_line: str) -> errors.Diagnostic:
    text = (
        f"id: {name}\nname: X\ndescription: X.\nreferences: [X]\n{formula_line}\n"
        "averages: [macro]\ndefault_average: macro\nrange: [0, 1]\nhigher_is_better: true\n"
    )
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    sub = tmp_path / "run"
    sub.mkdir()
    (error,) = compile_error(sub, monkeypatch, path).diagnostics
    return error


@pytest.mark.parametrize(
    "formula_line, line, column",
    [
        ("formula: TP / (TP + FPP)", 5, 21),
        ('formula: "TP / (TP + FPP)"', 5, 22),
        ("formula: 'TP / (TP + é +)'", 5, 25),  # syntax error after a 2-byte character
        ("formula: 'ＴＰ / (ＴＰ + FPP)'", 5, 22),  # NFKC names; 3-byte characters
        ('formula: "\\nTP + FPP"', 5, 18),  # escaped newline: caret still on FPP
        ('formula: "  TP + FPP"', 5, 18),  # leading blanks are not an indentation error
        ("formula: >-\n  TP /\n  (TP + FPP)", 7, 9),  # folded block
        ("formula: |\n\n  TP /\n    (TP + FPP)", 8, 11),  # literal block, leading blank line
        ('formula: "TP \\t+ FPP"', 5, 18),  # escaped tab
    ],
)
def test_columns(tmp_path, monkeypatch, formula_line, line, column):
    diagnostic = _error(tmp_path, monkeypatch, "col", formula_line)
    assert (diagnostic.location.line, diagnostic.location.column) == (line, column), diagnostic.render()
    assert diagnostic.key == "$.formula"


def test_unknown_name_caret_sits_under_the_name(tmp_path, monkeypatch):
    diagnostic = _error(tmp_path, monkeypatch, "caret", "formula: 'TP / (TP + ＦＰ + FPQ)'")
    text, column = diagnostic.location.line_text, diagnostic.location.column
    assert text[column - 1 : column + 2] == "FPQ"


# --- the IR of the real catalog ------------------------------------------------------------


@pytest.fixture(scope="module")
def lowered():
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        return lower.lower_catalog([_validated(s) for s in load.load_catalog("specs")])
    finally:
        os.chdir(cwd)


def _validated(spec: load.SourceSpec) -> load.SourceSpec:
    return validate.validate(spec)


def test_every_spec_lowers(lowered):
    ids = sorted(p.stem for p in SPECS.glob("*.yaml"))
    assert sorted(lowered) == ids
    assert all(isinstance(m, ir.Metric) for m in lowered.values())
    assert all(m.source == f"specs/{m.id}.yaml" for m in lowered.values())


def test_class_references_are_inlined(lowered):
    counts = set(symbols.COUNTS)
    for metric in lowered.values():
        if metric.level == "class":
            assert metric.written.free_symbols <= counts | {p.symbol for p in metric.params}, metric.id
            assert not metric.terms
    tp, fp, fn = symbols.TP, symbols.FP, symbols.FN
    assert sympy.simplify(lowered["f1"].written - 2 * tp / (2 * tp + fp + fn)) == 0
    assert sympy.simplify(lowered["fnr"].written - fn / (tp + fn)) == 0


def test_aggregate_terms(lowered):
    metric = lowered["f1_of_macro_averages"]
    assert [(t.metric, t.mode, t.bindings) for t in metric.terms] == [("precision", "macro", ()), ("recall", "macro", ())]
    assert {str(s) for s in metric.written.free_symbols} == {"macro(precision)", "macro(recall)"}
    assert [t.label for t in metric.terms] == ["macro(precision)", "macro(recall)"]


def test_params_and_digest(lowered):
    (beta,) = lowered["f_beta"].params
    assert (beta.name, beta.kind, beta.default, beta.domain_text) == ("beta", "scalar", 1, "beta > 0")
    assert beta.domain == (sympy.Symbol("beta", real=True) > 0,)
    text = (SPECS / "f_beta.yaml").read_bytes()
    assert lowered["f_beta"].digest == hashlib.sha256(text).hexdigest()


def test_aliases_resolve_in_formulas(tmp_path):
    text = (
        "id: alias_user\nname: X\ndescription: X.\nreferences: [X]\n"
        "formula: 1 - ppv + 0 * sensitivity\naverages: [macro]\ndefault_average: macro\n"
        "range: [0, 1]\nhigher_is_better: true\n"
    )
    folder = catalog(tmp_path)
    (folder / "alias_user.yaml").write_text(text, encoding="utf-8")
    specs = [_validated(s) for s in load.load_catalog(folder)]
    metric = lower.lower_catalog(specs)["alias_user"]
    assert sympy.simplify(metric.written - symbols.FP / (symbols.TP + symbols.FP)) == 0


def test_lower_reports_every_failing_metric(tmp_path, monkeypatch):
    error = compile_error(
        tmp_path, monkeypatch, *sorted((CASES_DIR / "unknown_symbol").glob("*.yaml")),
        *sorted((CASES_DIR / "syntax_error").glob("*.yaml")),
    )
    assert [d.location.file for d in error.diagnostics] == ["specs/typo_count.yaml", "specs/unclosed.yaml"]


def test_python_clash_reasons():
    assert names.python_clash("lambda") == "is a Python keyword"
    assert names.python_clash("average") == "is a name the generated code uses itself"
    assert names.python_clash("finish") == "is a name the generated code uses itself"  # a runtime helper
    assert names.python_clash("a__b") is not None
    assert names.python_clash("beta") is None
