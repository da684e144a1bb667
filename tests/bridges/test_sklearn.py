"""``metricc.bridges.sklearn``: scorers in real scikit-learn model selection, on data sets it
ships (iris, breast cancer), against scikit-learn's own scorers. Skipped without scikit-learn."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

pytest.importorskip("sklearn")

from sklearn.datasets import load_breast_cancer, load_iris  # noqa: E402
from sklearn.dummy import DummyClassifier  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.metrics import make_scorer, matthews_corrcoef  # noqa: E402
from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.svm import LinearSVC  # noqa: E402

from metricc.bridges import sklearn as bridge  # noqa: E402
from metricc.core.errors import InputError  # noqa: E402

CV = StratifiedKFold(3, shuffle=True, random_state=0)


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


def _model():
    return make_pipeline(StandardScaler(), LogisticRegression())


@pytest.mark.parametrize(("ours", "theirs"), [
    (bridge.scorer("f1", average="macro"), "f1_macro"),
    (bridge.scorer("precision", average="weighted"), "precision_weighted"),
    (bridge.scorer("accuracy"), "accuracy"),
    (bridge.scorer("roc_auc", average="macro"), "roc_auc_ovr"),
    (bridge.scorer("roc_auc", average="weighted"), "roc_auc_ovr_weighted"),
    (bridge.scorer("log_loss"), "neg_log_loss"),
])
def test_cross_val_score_equals_scikit_learns_scorer(iris, ours, theirs):
    X, y = iris
    np.testing.assert_allclose(cross_val_score(_model(), X, y, cv=CV, scoring=ours),
                               cross_val_score(_model(), X, y, cv=CV, scoring=theirs), rtol=1e-10)


def test_lower_is_better_is_negated_and_grid_search_picks_the_best(iris):
    X, y = iris
    error = bridge.scorer("error_rate")
    assert error.greater_is_better is False
    assert (cross_val_score(_model(), X, y, cv=CV, scoring=error) <= 0).all()
    grid = {"logisticregression__C": [1e-3, 0.1, 10.0]}
    ours = GridSearchCV(_model(), grid, cv=CV, scoring=bridge.scorer("mcc")).fit(X, y)
    theirs = GridSearchCV(_model(), grid, cv=CV, scoring=make_scorer(matthews_corrcoef)).fit(X, y)
    assert ours.best_params_ == theirs.best_params_
    np.testing.assert_allclose(ours.cv_results_["mean_test_score"], theirs.cv_results_["mean_test_score"], rtol=1e-10)
    by_error = GridSearchCV(_model(), grid, cv=CV, scoring=error).fit(X, y)
    assert by_error.best_params_ == ours.best_params_


def test_undefined_folds_score_worst_not_nan(iris):
    """A model that predicts one class leaves precision undefined for the others: NaN would
    make the whole cross-validation NaN; the worst value (0, scikit-learn's default too) ranks it."""
    X, y = iris
    dummy = DummyClassifier(strategy="most_frequent")
    ours = cross_val_score(dummy, X, y, cv=CV, scoring=bridge.scorer("precision", average="macro"))
    with pytest.warns(Warning):  # scikit-learn warns about the undefined classes
        theirs = cross_val_score(dummy, X, y, cv=CV, scoring="precision_macro")
    assert not np.isnan(ours).any()
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    nan_policy = cross_val_score(dummy, X, y, cv=CV, scoring=bridge.scorer("precision", average="macro",
                                                                          zero_division=np.nan))
    assert np.isnan(nan_policy).all()  # what a hand-made wrapper returned before
    mcc = cross_val_score(dummy, X, y, cv=CV, scoring=bridge.scorer("mcc"))
    assert not np.isnan(mcc).any()


def test_binary_decision_function_and_parameters():
    X, y = load_breast_cancer(return_X_y=True)
    svm = make_pipeline(StandardScaler(), LinearSVC(C=0.01))
    np.testing.assert_allclose(cross_val_score(svm, X, y, cv=CV, scoring=bridge.scorer("roc_auc", average="binary")),
                               cross_val_score(svm, X, y, cv=CV, scoring="roc_auc"), rtol=1e-10)
    f2 = cross_val_score(_model(), X, y, cv=CV, scoring=bridge.scorer("f_beta", average="binary", beta=2))
    np.testing.assert_allclose(f2, cross_val_score(_model(), X, y, cv=CV, scoring=bridge.scorer("f_beta", average="binary", beta=2.0)))
    assert (f2 > 0.9).all()
    with pytest.raises(InputError, match="needs class probabilities: Pipeline has no predict_proba"):
        bridge.scorer("log_loss")(svm.fit(X, y), X, y)


def test_a_scorer_refuses_what_cannot_give_one_number():
    with pytest.raises(InputError, match="average: a scorer gives one number"):
        bridge.scorer("f1", average="none")
    with pytest.raises(InputError, match="mcc is a matrix-level metric"):
        bridge.scorer("mcc", average="macro")
    with pytest.raises(InputError, match="f1 has no parameter 'beta'"):
        bridge.scorer("f1", beta=2)
    with pytest.raises(InputError, match="unknown metric"):
        bridge.scorer("f2")


@pytest.mark.parametrize(("ours", "theirs"), [
    (bridge.scorer("f1", average="macro"), "f1_macro"),
    (bridge.scorer("recall", average="weighted"), "recall_weighted"),
    (bridge.scorer("accuracy"), "accuracy"),
    (bridge.scorer("balanced_accuracy"), "balanced_accuracy"),
])
def test_sample_weight_gives_scikit_learns_weighted_scores(iris, ours, theirs):
    from sklearn.metrics import get_scorer

    X, y = iris
    model = _model().fit(X[::2], y[::2])
    weights = np.random.default_rng(1).random(len(y)) * 3
    weights[:10] = 0.0
    got = ours(model, X, y, sample_weight=weights)
    assert got == pytest.approx(get_scorer(theirs)(model, X, y, sample_weight=weights), rel=1e-12)
    assert got != pytest.approx(ours(model, X, y), rel=1e-6)  # the weights change the score


def test_sample_weight_is_refused_where_it_cannot_apply(iris):
    X, y = iris
    model = _model().fit(X, y)
    with pytest.raises(InputError, match="^sample_weight: roc_auc does not weigh samples"):
        bridge.scorer("roc_auc", average="macro")(model, X, y, sample_weight=np.ones(len(y)))
    with pytest.raises(InputError, match="^sample_weight: "):
        bridge.scorer("accuracy")(model, X, y, sample_weight=np.ones(3))


def test_docstring_example():
    assert doctest.testmod(bridge).failed == 0


def test_a_label_column_is_one_label_per_sample():
    """Issue 25: y of shape (n, 1) is single-label data, not one-column indicator rows."""
    from sklearn.datasets import load_iris
    from sklearn.linear_model import LogisticRegression

    from metricc.bridges.sklearn import scorer

    X, y = load_iris(return_X_y=True)
    model = LogisticRegression(max_iter=500).fit(X, y)
    for metric in ("f1", "roc_auc"):
        score = scorer(metric, average="macro")
        assert score(model, X, y.reshape(-1, 1)) == score(model, X, y)
