"""Information-theoretic metrics (CEN, RCI), ``xlogy`` and probabilistic confusion matrices.

Paper numbers: Branco et al. Table 3 (CEN and RCI of Cases 1-3, 3 decimals), Wang et al.
2013 Tables 1-3 -> Tables 5-7 (relative probabilistic confusion matrices, 3 decimals) and
Table 4 (the crisp matrix the three classifiers share). The rpCEN values printed in Wang et
al. Section 4 are not reproducible from the paper's Eq. 5-11 (docs/errata.yaml): we test the
ordering the paper draws from them and the values the equations give. Oracle: PyCM.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import pytest
import sympy
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from metricc.compiler.analysis import analyze
from metricc.compiler.emit import text
from metricc.compiler.language import symbols
from metricc.generated import CATALOG
from metricc.api import InputError, evaluate, probabilistic_confusion_matrix
from metricc.runtime import kernel
from metricc.runtime.confusion import confusion_matrix

DATA = Path(__file__).parent / "data"
WANG = yaml.safe_load((DATA / "wang2013.yaml").read_text())
BRANCO = yaml.safe_load((DATA / "branco2017.yaml").read_text())
CLASSIFIERS = ("M1", "M2", "M3")
cen, rci = CATALOG["cen"].function, CATALOG["rci"].function


# ---------------------------------------------------------------- paper numbers

@pytest.mark.parametrize("index, case", list(enumerate(("case1", "case2", "case3"))))
def test_branco_table3_cen_and_rci(index, case):
    matrix = BRANCO["cases"][case]["matrix"]
    assert round(float(cen(matrix)), 3) == BRANCO["table3"]["CEN"][index][1]
    assert round(float(rci(matrix)), 3) == BRANCO["table3"]["RCI"][index][1]


@pytest.mark.parametrize("index, name", list(enumerate(CLASSIFIERS)))
def test_wang_tables_1_to_3_give_tables_5_to_7(index, name):
    """Printed at 3 decimals and rounded so that each row sums to 1 (M1's first row is
    0.7134, 0.1992, 0.0874, printed 0.714, 0.199, 0.087): one unit of the third decimal."""
    data = WANG["classifiers"][name]
    printed = np.array(WANG[f"table{5 + index}"])
    np.testing.assert_allclose(printed.sum(axis=1), 1, atol=1e-12)
    relative = probabilistic_confusion_matrix(data["y_true"], data["scores"])
    np.testing.assert_allclose(relative, printed, atol=1e-3 + 1e-12)
    np.testing.assert_allclose(relative.sum(axis=1), 1, rtol=1e-12)


@pytest.mark.parametrize("name", CLASSIFIERS)
def test_wang_table4_is_the_crisp_matrix_of_each_classifier(name):
    data = WANG["classifiers"][name]
    assert np.argmax(data["scores"], axis=1).tolist() == data["y_pred"]  # Eq. 2
    assert confusion_matrix(data["y_true"], data["y_pred"], labels=[0, 1, 2]).tolist() == WANG["table4"]


def _rpcen() -> np.ndarray:
    scores = np.array([WANG["classifiers"][m]["scores"] for m in CLASSIFIERS])
    y_true = np.array([WANG["classifiers"][m]["y_true"] for m in CLASSIFIERS])
    return cen(probabilistic_confusion_matrix(y_true, scores))


def test_rpcen_orders_the_classifiers_as_wang_section4():
    """M1 < M3 < M2 (lower is better), while crisp CEN cannot tell them apart (Table 4)."""
    m1, m2, m3 = _rpcen()
    assert m1 < m3 < m2
    crisp = [float(cen(confusion_matrix(WANG["classifiers"][m]["y_true"], WANG["classifiers"][m]["y_pred"]))) for m in CLASSIFIERS]
    assert crisp == [float(cen(WANG["table4"]))] * 3


def test_rpcen_values_of_the_equations_and_the_erratum():
    """Eq. 5-11 give 0.4045, 0.6662, 0.5604, not the printed 0.0932, 0.3071, 0.2648."""
    values = _rpcen()
    np.testing.assert_allclose(values, [0.4045, 0.6662, 0.5604], atol=5e-5)
    assert not np.allclose(values, WANG["rpcen_printed"], atol=5e-3)
    errata = yaml.safe_load((Path(__file__).parents[3] / "docs" / "errata.yaml").read_text())
    entries = errata if isinstance(errata, list) else errata.get("errata", [])
    assert any("0.4045" in str(e.get("correct", "")) for e in entries)


def test_pcen_is_cen_of_the_absolute_matrix_and_equals_rpcen_for_balanced_classes():
    data = WANG["classifiers"]["M1"]
    absolute = probabilistic_confusion_matrix(data["y_true"], data["scores"], kind="absolute")
    np.testing.assert_allclose(absolute.sum(axis=1), [5, 3, 2])
    assert float(cen(absolute)) == pytest.approx(0.4333, abs=5e-5)
    rng = np.random.default_rng(3)
    scores = rng.dirichlet(np.ones(3), size=12)
    y_true = np.repeat([0, 1, 2], 4)
    relative, absolute = (probabilistic_confusion_matrix(y_true, scores, kind=k) for k in ("relative", "absolute"))
    assert float(cen(relative)) == pytest.approx(float(cen(absolute)), rel=1e-12)


# ---------------------------------------------------------------- against PyCM

def _pycm(matrix: np.ndarray):
    from pycm import ConfusionMatrix

    table = {i: {j: int(matrix[i, j]) for j in range(len(matrix))} for i in range(len(matrix))}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stats = ConfusionMatrix(matrix=table).overall_stat
    return stats["Overall CEN"], stats["RCI"]


def _cen_by_the_equations(matrix: np.ndarray) -> float:
    """Eq. 7-11 with loops; a class with t_j + p_j = 0 is skipped (it contributes 0)."""
    c = len(matrix)
    t, p, n = matrix.sum(axis=1), matrix.sum(axis=0), matrix.sum()
    total = 0.0
    for j in range(c):
        if t[j] + p[j] == 0:
            continue
        shares = [matrix[j, k] / (t[j] + p[j]) for k in range(c) if k != j]
        shares += [matrix[k, j] / (t[j] + p[j]) for k in range(c) if k != j]
        cen_j = -sum(s * math.log(s, 2 * (c - 1)) for s in shares if s > 0)
        total += (t[j] + p[j]) / (2 * n) * cen_j
    return total


matrices = st.integers(2, 5).flatmap(
    lambda c: hnp.arrays(np.int64, (c, c), elements=st.one_of(st.just(0), st.integers(0, 40)))
)


@settings(max_examples=40, deadline=None)
@given(matrix=matrices)
def test_cen_and_rci_equal_pycm(matrix):
    """PyCM has CEN of Wei et al. (its 'Overall CEN') and RCI as MI / H(true), the same as
    Branco's (H_d - H_o) / H_d. PyCM gives 'None' for CEN when a class is absent
    (t_j + p_j = 0; docs/differences.md): there we compare with Eq. 7-11 computed by loops."""
    if matrix.sum() == 0:
        assert math.isnan(cen(matrix)) and math.isnan(rci(matrix))
        return
    pycm_cen, pycm_rci = _pycm(matrix)
    absent = (matrix.sum(axis=0) + matrix.sum(axis=1) == 0).any()
    if absent:
        assert pycm_cen == "None"
        assert float(cen(matrix)) == pytest.approx(_cen_by_the_equations(matrix), rel=1e-9, abs=1e-12)
    else:
        assert float(cen(matrix)) == pytest.approx(pycm_cen, rel=1e-9, abs=1e-12)
    if pycm_rci == "None":
        assert math.isnan(rci(matrix))
    else:
        assert float(rci(matrix)) == pytest.approx(pycm_rci, rel=1e-9, abs=1e-12)


def test_an_absent_class_contributes_nothing():
    """Adding an empty class changes only the base 2(C - 1); RCI does not change at all."""
    matrix = np.array([[3, 1], [2, 4]])
    padded = np.zeros((3, 3), dtype=np.int64)
    padded[:2, :2] = matrix
    assert float(rci(padded)) == pytest.approx(float(rci(matrix)), rel=1e-12)
    assert float(cen(padded)) == pytest.approx(float(cen(matrix)) * math.log(2) / math.log(4), rel=1e-12)
    assert not math.isnan(cen(padded))


def test_rci_is_undefined_with_a_single_true_class():
    assert math.isnan(rci([[49, 0], [0, 0]]))
    assert rci([[49, 0], [0, 0]], zero_division=0) == 0.0
    assert rci([[4, 3], [0, 0]], zero_division=1) == 1.0


def test_cen_of_a_single_class_is_zero_without_a_warning():
    """C = 1: the sum over k != j is empty (Wei et al., Wang et al. Eq. 7), so CEN is +0."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = float(cen([[5]]))
        batch = cen([[[5]], [[0]]])
    assert value == 0.0 and math.copysign(1, value) == 1
    assert batch[0] == 0.0 and math.isnan(batch[1])  # an empty matrix stays undefined


def test_cen_exceeds_one_for_two_classes_within_the_declared_range():
    value = float(cen([[1, 2], [2, 2]]))
    assert 1 < value <= CATALOG["cen"].range[1]
    assert CATALOG["cen"].range[1] >= 2 / (math.e * math.log(2))


# ---------------------------------------------------------------- xlogy and excused denominators

def test_xlogy_convention_sympy_and_numpy():
    x = sympy.Symbol("x")
    assert symbols.xlogy(0, sympy.nan) == 0
    assert symbols.xlogy(3, 1) == 0
    assert symbols.xlogy(2, 0) == sympy.zoo
    assert isinstance(symbols.xlogy(x, 2), symbols.xlogy)
    out = kernel.xlogy(np.array([0.0, 0.0, 2.0]), np.array([0.0, np.nan, 0.5]))
    np.testing.assert_allclose(out, [0.0, 0.0, 2 * math.log(0.5)])


def test_excused_denominators():
    M, t, p, n = symbols.M, symbols.ROW_TOTAL, symbols.COLUMN_TOTAL, symbols.N_TOTAL
    i, j = symbols.index_symbol("i"), symbols.index_symbol("j")
    assert analyze.excuses(M[i, j], p[j]) and analyze.excuses(M[j, i], t[j] + p[j])
    assert analyze.excuses(t[i], n) and analyze.excuses(symbols.TP, symbols.TP + symbols.FP)
    assert not analyze.excuses(t[j], p[j])  # a class can be true and never predicted
    assert not analyze.excuses(M[i, j], p[j] - M[j, j])  # not a sum of non-negative terms
    guarded = sympy.Sum(symbols.xlogy(M[i, j], M[i, j] / p[j]), (i, 0, symbols.N_CLASSES - 1))
    assert analyze.denominators(guarded) == () and analyze.excused_denominators(guarded) == (p[j],)
    unguarded = sympy.Sum(symbols.xlogy(t[j], M[j, j] / p[j]), (j, 0, symbols.N_CLASSES - 1))
    # the weight is a strong zero (issue 30): undefined only where p[j] = 0 while t[j] != 0
    assert analyze.denominators(unguarded) == (sympy.KroneckerDelta(0, t[j]) + p[j],)


def test_derived_undefined_cases_and_latex(compiled_metrics):
    assert [str(u) for u in compiled_metrics["cen"].undefined] == ["n"]
    assert len(compiled_metrics["rci"].undefined) == 1 and compiled_metrics["rci"].undefined[0].has(sympy.Sum)
    x, y = sympy.symbols("x y")
    assert text.latex(symbols.xlogy(x, y)) == r"x \log\left(y\right)"
    assert text.plain(symbols.xlogy(x, y)) == "xlogy(x, y)"
    tex = (Path(__file__).parents[3] / "generated" / "docs" / "metrics" / "cen.tex").read_text()
    assert r"Convention: $0 \log y = 0$" in tex and "p_{j} + t_{j} = 0" in tex


# ---------------------------------------------------------------- probabilistic matrices

def test_batch_equals_loop_and_labels():
    rng = np.random.default_rng(0)
    scores = rng.dirichlet(np.ones(4), size=(3, 20))
    y_true = np.tile(np.arange(4), (3, 5))
    for kind in ("relative", "absolute"):
        batch = probabilistic_confusion_matrix(y_true, scores, kind=kind)
        loop = [probabilistic_confusion_matrix(y, s, kind=kind) for y, s in zip(y_true, scores)]
        np.testing.assert_allclose(batch, loop, rtol=1e-12)
    named = np.array(["a", "b", "c", "d"])[y_true[0]]
    np.testing.assert_allclose(
        probabilistic_confusion_matrix(named, scores[0], labels=["a", "b", "c", "d"]),
        probabilistic_confusion_matrix(y_true[0], scores[0]),
    )


@pytest.mark.parametrize("y_true, scores, kwargs, argument, message", [
    ([0, 1], [[0.5, 0.6], [0.5, 0.5]], {}, "scores", "row 0 sums to 1.1"),
    ([0, 1], [[1.5, -0.5], [0.5, 0.5]], {}, "scores", r"\[0, 1\]"),
    ([0, 1], [[np.nan, 1], [0.5, 0.5]], {}, "scores", "NaN"),
    ([0, 1, 1], [[0.5, 0.5], [0.5, 0.5]], {}, "y_true", "one label per score row"),
    ([0, 0], [[0.5, 0.5], [0.5, 0.5]], {}, "y_true", "class 1 has no samples"),
    ([0, 2], [[0.5, 0.5], [0.5, 0.5]], {}, "y_true", r"0\.\.1"),
    (["a", "a"], [[0.5, 0.5], [0.5, 0.5]], {}, "labels", "1 distinct labels for 2 score columns"),
    (["a", "c"], [[0.5, 0.5], [0.5, 0.5]], {"labels": ["a", "b"]}, "y_true", "'c' is not one of"),
    ([0, 1], [[0.5, 0.5], [0.5, 0.5]], {"labels": ["a"]}, "labels", "2 distinct labels"),
    ([0, 1], [[0.5, 0.5], [0.5, 0.5]], {"kind": "mean"}, "kind", "relative, absolute"),
    ([0, 1], [0.5, 0.5], {}, "scores", "expected shape"),
])
def test_input_errors(y_true, scores, kwargs, argument, message):
    with pytest.raises(InputError, match=message) as info:
        probabilistic_confusion_matrix(y_true, scores, **kwargs)
    assert info.value.argument == argument


def test_absolute_kind_allows_a_class_without_samples_and_cen_takes_it():
    matrix = probabilistic_confusion_matrix([0, 0, 2], [[0.8, 0.1, 0.1], [0.6, 0.4, 0.0], [0.0, 0.2, 0.8]], kind="absolute")
    assert matrix[1].tolist() == [0, 0, 0]
    assert 0 <= float(cen(matrix)) <= 1


@settings(max_examples=30, deadline=None)
@given(y=st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=30))
def test_one_hot_scores_give_the_crisp_matrix(y):
    """Section 3: a crisp result is a probabilistic one with probability 1 on the predicted
    class; its absolute matrix is the confusion matrix, so pCEN = CEN."""
    y_true, y_pred = (np.array(v) for v in zip(*y))
    scores = np.eye(4)[y_pred]
    crisp = confusion_matrix(y_true, y_pred, labels=[0, 1, 2, 3])
    absolute = probabilistic_confusion_matrix(y_true, scores, kind="absolute")
    np.testing.assert_array_equal(absolute, crisp)
    np.testing.assert_allclose(cen(absolute), cen(crisp), rtol=1e-12, equal_nan=True)


# ---------------------------------------------------------------- evaluate and the CLI

def test_evaluate_with_probabilistic_matrices():
    data = WANG["classifiers"]["M2"]
    values = evaluate(["cen", "f1"], y_true=data["y_true"], y_pred=data["y_pred"], scores=data["scores"],
                      probabilistic="relative", average="macro")
    assert values["cen"] == pytest.approx(0.6662, abs=5e-5)
    assert values["f1"] == pytest.approx(evaluate("f1", y_true=data["y_true"], y_pred=data["y_pred"], average="macro")["f1"])
    absolute = evaluate("cen", y_true=data["y_true"], scores=data["scores"], probabilistic="absolute")["cen"]
    assert absolute == pytest.approx(float(cen(probabilistic_confusion_matrix(data["y_true"], data["scores"], kind="absolute"))))
    named = evaluate("cen", y_true=np.array(["c1", "c2", "c3"])[data["y_true"]], scores=data["scores"], probabilistic="relative")
    assert named["cen"] == pytest.approx(values["cen"])


@pytest.mark.parametrize("kwargs, argument", [
    ({"metrics": "cen", "y_true": [0, 1], "probabilistic": "relative"}, "scores"),
    ({"metrics": "f1", "y_true": [0, 1], "scores": [[1, 0], [0, 1]], "probabilistic": "relative"}, "probabilistic"),
    ({"metrics": "cen", "y_true": [0, 1], "scores": [[1, 0], [0, 1]], "probabilistic": "mean"}, "kind"),
])
def test_evaluate_probabilistic_errors(kwargs, argument):
    with pytest.raises(InputError) as info:
        evaluate(**kwargs)
    assert info.value.argument == argument


def test_cli_eval_probabilistic(tmp_path, capsys):
    from metricc import cli

    data = WANG["classifiers"]["M3"]
    (tmp_path / "y.txt").write_text("\n".join(str(y) for y in data["y_true"]))
    (tmp_path / "s.csv").write_text("\n".join(",".join(str(v) for v in row) for row in data["scores"]))
    code = cli.main(["eval", "--metric", "cen", "--y-true", str(tmp_path / "y.txt"), "--scores", str(tmp_path / "s.csv"),
                     "--probabilistic", "relative", "--format", "json"])
    out = capsys.readouterr().out
    assert code == 0 and yaml.safe_load(out)["cen"] == pytest.approx(0.5604, abs=5e-5)
    assert cli.main(["eval", "--metric", "cen", "--matrix", "[[1, 2], [3, 4]]", "--probabilistic", "absolute"]) == 2
    assert "--probabilistic: needs --scores" in capsys.readouterr().err
