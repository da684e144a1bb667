"""``metricc.api.sweep``: one call for a grid of parameter values equals a loop of calls.

Also the paper's sweep statements (Kozak et al. 2022, Section 4.2 and Table 3) where the
confusion matrix is given in the text, and the endpoint identities the compiler proves.
"""

from __future__ import annotations

import importlib
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from metricc.generated import CATALOG
from metricc.runtime.confusion import ClassCounts, counts_from_matrix
from metricc.core.errors import InputError
from metricc.api.sweep import product_grid, sweep

TABLE4 = np.array([[40, 7, 3], [8, 10, 2], [9, 1, 20]])  # Kozak et al. 2022, Table 4
sweep_module = importlib.import_module("metricc.api.sweep")  # the package attribute is the function
VECTOR_PARAMS = [(info, p.name) for info in CATALOG.values() for p in info.params if p.kind == "class_vector"]
VECTOR_CASES = [(info.id, name, mode) for info, name in VECTOR_PARAMS for mode in (info.averages or (None,)) if mode != "micro"]


def _matrices(rng, batch, c):
    matrix = rng.integers(0, 25, size=(*batch, c, c))
    return np.where(rng.random(matrix.shape) < 0.25, 0, matrix)


def _loop(info, param, mode, matrices, grid, **kwargs):
    """The reference: one generated-function call per matrix and grid vector."""
    if mode is not None:
        kwargs["average"] = mode
    batch, grid_shape = matrices.shape[:-2], grid.shape[:-1]
    out = {}
    for b in np.ndindex(batch):
        for g in np.ndindex(grid_shape):
            data = (matrices[b],) if info.level == "matrix" else counts_from_matrix(matrices[b])
            out[b + g] = np.asarray(info.function(*data, **{param: grid[g]}, **kwargs), dtype=float)
    tail = next(iter(out.values())).shape
    result = np.empty(batch + grid_shape + tail)
    for index, value in out.items():
        result[index] = value
    return result


def _accepts_zero(info, param) -> bool:
    """Whether the parameter's domain admits 0 (``weighted_accuracy``'s class weights are > 0)."""
    matrix = np.eye(2)
    data = (matrix,) if info.level == "matrix" else counts_from_matrix(matrix)
    try:
        info.function(*data, **{param: [0.0, 1.0]})
    except InputError:
        return False
    return True


def test_the_catalog_has_a_class_vector_parameter():
    assert ("preference_driven", "kappa") in [(info.id, name) for info, name in VECTOR_PARAMS]


@pytest.mark.parametrize(("metric_id", "param", "mode"), VECTOR_CASES)
def test_sweep_equals_loop_of_single_evaluations(metric_id, param, mode):
    info = CATALOG[metric_id]
    rng = np.random.default_rng(7)
    matrices = _matrices(rng, (3,), 4)
    grid = rng.choice([0.0 if _accepts_zero(info, param) else 0.75, 0.25, 0.5, 1.0], size=(2, 3, 4))
    kwargs = {"average": mode} if mode else {}
    expected = _loop(info, param, mode, matrices, grid)
    np.testing.assert_allclose(sweep(metric_id, matrix=matrices, param=param, grid=grid, **kwargs), expected, rtol=1e-12)
    if info.level != "matrix":
        counts = counts_from_matrix(matrices)
        np.testing.assert_allclose(sweep(metric_id, counts=tuple(counts), grid=grid, param=param, **kwargs), expected, rtol=1e-12)
        np.testing.assert_allclose(sweep(metric_id, counts, grid=grid, param=param, **kwargs), expected, rtol=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    data=st.data(),
    c=st.integers(2, 5),
    batch=st.sampled_from([(), (1,), (3,), (2, 2)]),
    grid_shape=st.sampled_from([(1,), (4,), (2, 3)]),
)
def test_sweep_equals_loop_property(data, c, batch, grid_shape):
    case = data.draw(st.sampled_from(VECTOR_CASES))
    info = CATALOG[case[0]]
    matrices = data.draw(hnp.arrays(np.int64, (*batch, c, c), elements=st.integers(0, 20)))
    grid = data.draw(hnp.arrays(np.float64, (*grid_shape, c), elements=st.floats(0, 1, exclude_min=not _accepts_zero(info, case[1]))))
    kwargs = {"average": case[2]} if case[2] else {}
    np.testing.assert_allclose(sweep(case[0], matrix=matrices, param=case[1], grid=grid, **kwargs),
                               _loop(info, case[1], case[2], matrices, grid), rtol=1e-12, equal_nan=True)


@pytest.mark.parametrize(
    ("batch", "grid_shape", "average", "expected"),
    [
        ((), (11,), "macro", (11,)),
        ((5,), (11, 11), "macro", (5, 11, 11)),
        ((2, 3), (4,), "weighted", (2, 3, 4)),
        ((2,), (3, 4), "none", (2, 3, 4, 3)),  # average="none" appends the class axis
        ((2,), (), "macro", (2,)),  # one vector of shape (C,): no grid axis
    ],
)
def test_shape_is_batch_then_grid(batch, grid_shape, average, expected):
    matrices = np.broadcast_to(TABLE4, (*batch, 3, 3))
    grid = np.full((*grid_shape, 3), 0.5)
    assert sweep("preference_driven", matrix=matrices, grid=grid, average=average).shape == expected


def test_product_grid_matches_the_papers_grids():
    car = product_grid(np.linspace(0, 1, 11), 4)
    assert car.shape == (11, 11, 11, 11, 4)
    assert product_grid(np.linspace(0, 1, 11), 4, flat=True).shape == (14641, 4)  # 11**4
    krkopt = product_grid([0.33, 0.66], 18, flat=True)
    assert krkopt.shape == (262144, 18)  # 2**18
    assert len({tuple(v) for v in krkopt[:: 997]}) == len(krkopt[:: 997])  # distinct vectors
    np.testing.assert_allclose(car[3, 0, 10, 7], [0.3, 0.0, 1.0, 0.7], rtol=1e-15)
    np.testing.assert_array_equal(product_grid([0, 1], 2, flat=True), [[0, 0], [0, 1], [1, 0], [1, 1]])


def test_chunking_does_not_change_the_result(monkeypatch):
    matrices = _matrices(np.random.default_rng(3), (4,), 3)
    grid = product_grid(np.linspace(0, 1, 5), 3)
    whole = sweep("preference_driven", matrix=matrices, grid=grid, average="none")
    calls = []
    function = CATALOG["preference_driven"].function
    monkeypatch.setattr(sweep_module, "CHUNK_ELEMENTS", 4 * 3 * 10)  # 10 vectors per call

    class Spy:
        def __getattr__(self, name):
            return getattr(CATALOG["preference_driven"], name)

        def function(self, *args, **kwargs):
            calls.append(kwargs["kappa"].shape)
            return function(*args, **kwargs)

    monkeypatch.setattr(sweep_module, "_metric", lambda name: Spy())
    chunked = sweep("preference_driven", matrix=matrices, grid=grid, average="none")
    np.testing.assert_array_equal(chunked, whole)
    assert len(calls) == 13 and max(s[0] for s in calls) == 10  # ceil(125 / 10), never the whole grid


def test_scalar_parameter_sweep_equals_loop():
    matrices = _matrices(np.random.default_rng(5), (2,), 3)
    betas = np.array([[0.5, 1.0, 2.0], [3.0, 4.0, 0.25]])
    result = sweep("f_beta", matrix=matrices, param="beta", grid=betas)
    assert result.shape == (2, 2, 3)
    for g in np.ndindex(betas.shape):
        np.testing.assert_allclose(result[(slice(None),) + g], CATALOG["f_beta"].function(*counts_from_matrix(matrices), beta=betas[g]))


def test_sweep_refuses_metrics_of_scores():
    """A sweep grids a parameter over confusion matrices; a score metric (power of the hinge) has none."""
    for metric_id in ("hinge_loss", "one_vs_all_hinge_loss"):
        with pytest.raises(InputError, match=f"metric: {metric_id} is a score-level metric"):
            sweep(metric_id, matrix=np.eye(2), param="power", grid=[1.0, 2.0])


# ---------------------------------------------------------------- proved identities, numerically

def _one_hot_instances(matrix):
    """Per-instance counts of a matrix's samples read as one-hot indicator rows (samples averaging)."""
    c = matrix.shape[-1]
    true, predicted = np.divmod(np.repeat(np.arange(c * c), matrix.ravel()), c)
    tp = (true == predicted).astype(np.int64)
    return tp, 1 - tp, 1 - tp, c - 2 + tp


def test_every_proved_class_vector_binding_holds_on_the_sweep(compiled_metrics):
    """Each statement ``m(param=v) [mode] = other [mode]`` checked on a one-vector sweep."""
    rng = np.random.default_rng(2022)
    checked = 0
    for metric_id, metric in compiled_metrics.items():
        for e in metric.equivalences:
            if not e.bindings or e.bindings[0][2] != "class_vector" or e.scope != "all":
                continue
            (name, value, _), = e.bindings
            for c in (2, 3, 5):
                matrices = _matrices(rng, (40,), c)
                left = sweep(metric_id, matrix=matrices, param=name, grid=np.full((1, c), float(value)), average=e.mode)[:, 0]
                other = CATALOG[e.other]
                kwargs = {"average": e.other_mode} if e.other_mode else {}
                if other.per_instance or e.other_mode == "samples":  # samples: one-hot rows, a matrix at a time
                    right = np.array([other.function(*_one_hot_instances(m), **kwargs) for m in matrices])
                else:
                    data = (matrices,) if other.level == "matrix" else counts_from_matrix(matrices)
                    right = other.function(*data, **kwargs)
                both = ~np.isnan(left) & ~np.isnan(right)
                assert both.sum() > 20
                np.testing.assert_allclose(left[both], np.asarray(right)[both], rtol=1e-12, err_msg=e.text(metric_id))
                checked += 1
    assert checked >= 8 * 3


def test_ones_give_macro_precision_and_zeros_macro_recall_on_a_grid():
    matrices = _matrices(np.random.default_rng(11), (6,), 4) + np.eye(4, dtype=int)  # every class defined
    values = sweep("preference_driven", matrix=matrices, grid=product_grid([0.0, 1.0], 4))
    counts = counts_from_matrix(matrices)
    np.testing.assert_allclose(values[:, 1, 1, 1, 1], CATALOG["precision"].function(*counts, average="macro"), rtol=1e-12)
    np.testing.assert_allclose(values[:, 0, 0, 0, 0], CATALOG["recall"].function(*counts, average="macro"), rtol=1e-12)
    # Every other vector lies between: the measure is a per-class convex combination.
    low = np.minimum(values[:, 0, 0, 0, 0], values[:, 1, 1, 1, 1])
    assert np.all(values.reshape(6, -1).min(axis=1) <= low + 1e-12)


# ---------------------------------------------------------------- the paper

def test_table4_default_vector_on_the_sweep():
    """Section 4.3: preference-driven_[0.5,0.2,0.3] = 0.656 for Table 4."""
    assert sweep("preference_driven", matrix=TABLE4, grid=[[0.5, 0.2, 0.3]])[0] == pytest.approx(0.656, abs=5e-4)


# Figure 1's matrices are an image; two of them are fully described in the text (Section
# 4.2): two balanced classes ("at equilibrium", Section 4.3), cm1 "the ideal classification",
# cm9 "all samples are assigned to only one class (in this case, the first one)". The values
# do not depend on the class size. Class 2 of cm9 is never predicted: its precision is 0/0,
# which Table 3 counts as 0 (its Precision column, 0.2500, is (0.5 + 0) / 2).
CM1 = np.array([[10, 0], [0, 10]])
CM9 = np.array([[10, 0], [10, 0]])
KAPPA_11 = product_grid(np.linspace(0, 1, 11), 2)  # Section 4.2: 121 vectors, step 0.1


def test_table3_rows_cm1_and_cm9():
    grid = [[0.3, 0.6], [0.9, 0.4], [0.5, 0.5], [1.0, 1.0], [0.0, 0.0]]  # p-d columns, then P and R (footnotes)
    np.testing.assert_allclose(sweep("preference_driven", matrix=CM1, grid=grid, zero_division=0), [1, 1, 1, 1, 1])
    np.testing.assert_allclose(sweep("preference_driven", matrix=CM9, grid=grid, zero_division=0),
                               [0.4250, 0.2750, 0.3750, 0.2500, 0.5000], atol=5e-5)
    f1 = CATALOG["f1_of_macro_averages"].function(*counts_from_matrix(CM9), zero_division=0)
    assert f1 == pytest.approx(0.3333, abs=5e-5)  # Table 3, F1 (Eq. 23)


def test_section42_solution_spaces_of_cm1_and_cm9():
    """Figure 4a: cm1 has the same value for every vector; Figure 4b: kappa_2 has no effect on cm9."""
    ideal = sweep("preference_driven", matrix=CM1, grid=KAPPA_11, zero_division=0)
    assert ideal.shape == (11, 11) and np.all(ideal == 1.0)
    one_class = sweep("preference_driven", matrix=CM9, grid=KAPPA_11, zero_division=0)
    np.testing.assert_allclose(one_class, one_class[:, :1] * np.ones((1, 11)), rtol=0, atol=1e-15)


def test_section42_f1_counterpart_of_cm9():
    """'for cm9, it is kappa = [0.67, 0.00]': the kappa_1 whose value equals F1, to two decimals."""
    kappa1 = np.linspace(0, 1, 1001)
    grid = np.stack([kappa1, np.zeros_like(kappa1)], axis=-1)
    values = sweep("preference_driven", matrix=CM9, grid=grid, zero_division=0)
    f1 = CATALOG["f1_of_macro_averages"].function(*counts_from_matrix(CM9), zero_division=0)
    assert round(float(kappa1[np.argmin(np.abs(values - f1))]), 2) == 0.67


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize(
    ("kwargs", "argument", "message"),
    [
        ({"grid": np.ones((4, 2))}, "grid", r"last axis holds one value per class \(C=3\), got shape \(4, 2\)"),
        ({"grid": 0.5}, "grid", "got a scalar"),
        ({"grid": [[0.5, 0.5, np.nan]]}, "grid", "NaN or infinity"),
        ({"grid": [["a", "b", "c"]]}, "grid", "expected numbers"),
        ({"grid": [[0.5, 0.2], [0.1, 0.1, 0.1]]}, "grid", "ragged"),
        ({"grid": [[0.5, 0.5, 0.5], [0.2, 1.5, 0.0]]}, "grid", r"grid\[1\] = \[0.2, 1.5, 0\] is outside the domain of 'kappa' \(0 <= kappa <= 1\)"),
        ({"grid": [[0.5] * 3], "param": "beta"}, "param", "preference_driven has no parameter 'beta' \\(its parameters: kappa\\)"),
        ({"grid": [[0.5] * 3], "params": {"kappa": [1, 1, 1]}}, "params", "swept parameter"),
        ({"grid": [[0.5] * 3], "params": {"beta": 2}}, "params", "no parameter 'beta'"),
        ({"grid": [[0.5] * 3], "average": "micro"}, "average", "micro"),
        ({"grid": [[0.5] * 3], "average": "macroo"}, "average", "not supported"),
    ],
)
def test_errors_name_the_argument(kwargs, argument, message):
    with pytest.raises(InputError, match=rf"^{argument}: .*{message}"):
        sweep("preference_driven", matrix=TABLE4, **kwargs)


def test_domain_error_points_into_a_large_grid():
    grid = np.array(product_grid(np.linspace(0, 1, 11), 3))  # a changeable copy: the made grid is read-only
    grid[7, 2, 9, 1] = -0.1
    with pytest.raises(InputError, match=r"^grid: grid\[7, 2, 9\] = \[0.7, -0.1, 0.9\] is outside"):
        sweep("preference_driven", matrix=np.stack([TABLE4] * 2), grid=grid)


def test_data_errors():
    with pytest.raises(InputError, match="^input: give exactly one"):
        sweep("preference_driven", grid=[[0.5] * 3])
    with pytest.raises(InputError, match="^input: give exactly one"):
        sweep("preference_driven", TABLE4, matrix=TABLE4, grid=[[0.5] * 3])
    with pytest.raises(InputError, match="^metric: unknown metric"):
        sweep("preference_drivn", matrix=TABLE4, grid=[[0.5] * 3])
    with pytest.raises(InputError, match="^param: f1 has 0 class-vector parameters"):
        sweep("f1", matrix=TABLE4, grid=[[0.5] * 3])
    with pytest.raises(InputError, match="^grid: grid\\[1\\] = -1 is outside the domain of 'beta'"):
        sweep("f_beta", matrix=TABLE4, param="beta", grid=[1.0, -1.0])


def test_product_grid_errors():
    with pytest.raises(InputError, match="^n_classes: "):
        product_grid([0, 1], 0)
    with pytest.raises(InputError, match="^values: "):
        product_grid([], 3)
    with pytest.raises(InputError, match="^n_classes: 11\\*\\*18 vectors"):
        product_grid(np.linspace(0, 1, 11), 18)


def test_class_counts_positional_is_counts():
    counts = counts_from_matrix(TABLE4)
    assert isinstance(counts, ClassCounts)
    np.testing.assert_allclose(sweep("preference_driven", counts, grid=[[0.5, 0.2, 0.3]]),
                               sweep("preference_driven", TABLE4, grid=[[0.5, 0.2, 0.3]]))


def test_section42_cm4_solution_space_with_the_errata_reconstruction():
    """Not a literal test of printed data: cm4 is an image. Erratum
    kozak-s42-cm4-precision-recall-swap reconstructs it (balanced, proportional to
    [[2, 0], [1, 1]]) from Table 3's recall and two of Section 4.2's values; the sweep then
    reproduces the paragraph's other statements over the paper's 121-vector grid."""
    values = sweep("preference_driven", matrix=[[10, 0], [5, 5]], grid=KAPPA_11)
    assert np.unravel_index(np.argmin(values), values.shape) == (10, 0)  # minimum at kappa = [1.0, 0.0]
    assert np.unravel_index(np.argmax(values), values.shape) == (0, 10)  # maximum at kappa = [0.0, 1.0]
    for (i, j), printed in {(1, 3): 0.8083, (1, 8): 0.9333, (4, 4): 0.7833, (9, 1): 0.6250, (9, 8): 0.8000,
                            (3, 6): 0.8500, (9, 4): 0.7000, (5, 5): 0.7917}.items():
        assert values[i, j] == pytest.approx(printed, abs=5e-5)


# ---------------------------------------------------------------- metricc eval --sweep

def _cli(capsys, *args):
    from metricc import cli

    code = cli.main(["eval", "--matrix", json.dumps(TABLE4.tolist()), *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_sweep_json_equals_the_runtime_sweep(capsys):
    code, out, _ = _cli(capsys, "--metric", "preference_driven", "--sweep", "kappa=0:1:3", "--format", "json")
    assert code == 0
    result = json.loads(out)
    grid = product_grid([0.0, 0.5, 1.0], 3, flat=True)
    assert result["param"] == "kappa" and np.allclose(result["grid"], grid)
    np.testing.assert_allclose(result["values"]["preference_driven"], sweep("preference_driven", TABLE4, grid=grid), rtol=1e-15)


def test_cli_sweep_text_and_scalar_parameter(capsys):
    code, out, _ = _cli(capsys, "--metric", "f_beta", "--sweep", "beta=1,2", "--average", "macro")
    lines = out.splitlines()
    assert code == 0 and lines[0] == "beta\tf_beta" and len(lines) == 3
    assert float(lines[2].split("\t")[1]) == pytest.approx(CATALOG["f_beta"].function(*counts_from_matrix(TABLE4), beta=2.0))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--sweep", "kappa=0:1"), "--sweep: '0:1': expected START:STOP:NUM"),
        (("--sweep", "kappa"), "--sweep: expected NAME=START:STOP:NUM"),
        (("--sweep", "kappa=0:2:3"), "--sweep: grid[2] = [0, 0, 2] is outside the domain of 'kappa'"),
        (("--sweep", "beta=1,2"), "--sweep: preference_driven has no parameter 'beta'"),
        (("--sweep", "kappa=0,1", "--average", "micro"), "--average: micro averaging pools the classes"),
    ],
)
def test_cli_sweep_errors_name_the_option(capsys, args, message):
    code, _, err = _cli(capsys, "--metric", "preference_driven", *args)
    assert code == 2 and f"metricc: error: {message}" in err


@pytest.mark.parametrize(("args", "message"), [
    # 10**9 values took 19 GB before the class-vector guard applied to scalar grids too
    (("--metric", "f_beta", "--sweep", "beta=0.1:1:1000000000"),
     "--sweep: 1000000000 values exceed the largest grid, 134217728 values (1 GiB of float64)"),
    (("--metric", "preference_driven", "--sweep", "kappa=0:1:2000"), "--sweep: 2000**3 vectors of 3 entries"),
    (("--metric", "f_beta", "--sweep", "beta=1,1e200"), "--sweep: grid[1]: 1e+200 is beyond the largest parameter magnitude"),
])
def test_cli_sweep_refuses_grids_beyond_the_limit_before_building_them(capsys, args, message):
    code, _, err = _cli(capsys, *args)
    assert code == 2 and f"metricc: error: {message}" in err


@pytest.mark.parametrize(("metric_id", "grid", "kwargs", "size"), [
    ("f_beta", np.linspace(0.1, 1, 200_000), {"param": "beta"}, "200000 grid values x 1000 inputs"),
    ("f_beta", np.linspace(0.1, 1, 50_000), {"param": "beta", "average": "none"}, "50000 grid values x 1000 inputs x 3 classes"),
    ("preference_driven", np.full((50_000, 3), 0.5), {}, "50000 grid values x 1000 inputs x 3 classes"),
])
def test_sweep_refuses_results_beyond_the_limit_before_computing(metric_id, grid, kwargs, size):
    matrices = np.broadcast_to(TABLE4, (1000, 3, 3))
    if metric_id == "preference_driven":
        kwargs["average"] = "none"
    with pytest.raises(InputError, match=rf"^grid: {size} would take 1\.[0-9] GiB, above the limit of 1 GiB"):
        sweep(metric_id, matrices, grid=grid, **kwargs)
