"""scikit-learn scorers for every metric of the catalog: ``cross_val_score``, ``GridSearchCV``,
``RandomizedSearchCV`` and anything else that takes ``scoring=``. Needs scikit-learn
(``pip install "metricc[sklearn]"``); this module imports none of it.

A scorer is called as ``scorer(estimator, X, y)`` and returns one number that model selection
maximises, so:

- **direction**: metrics with ``higher_is_better: false`` in their spec (error rate, log loss,
  Brier score...) are negated, as scikit-learn's ``neg_*`` scorers are; statistics with
  ``higher_is_better: null`` (prevalence, entropies, chi-squared) have no scorer (``InputError``);
- **what the estimator gives**: class-, aggregate- and matrix-level metrics read
  ``estimator.predict(X)``; curve- and score-level metrics read ``predict_proba(X)`` (curve-level
  metrics fall back to ``decision_function``), columns named by ``estimator.classes_``;
- **undefined values**: where a metric is undefined on a fold (macro precision of a model that
  never predicts one class), the scorer reports the *worst* value of the metric's range (0 for
  precision, -1 for MCC), not NaN. NaN makes ``cross_val_score`` return ``[nan nan nan]`` and
  ``GridSearchCV`` rank that model anywhere; the worst value ranks it last, never by accident
  first, and for precision, recall and F1 it is scikit-learn's own ``zero_division=0``. Metrics
  whose range is unbounded on the bad side keep NaN; ``zero_division=`` overrides the policy;
- **sample weights** (``fit_params``/``score_params`` routing ``sample_weight``): label-based
  metrics read the weighted confusion matrix (real-valued counts); curve-, score- and
  per-instance metrics refuse weights rather than ignore them.

>>> from sklearn.datasets import load_iris
>>> from sklearn.linear_model import LogisticRegression
>>> from sklearn.model_selection import cross_val_score
>>> X, y = load_iris(return_X_y=True)
>>> cross_val_score(LogisticRegression(max_iter=1000), X, y, cv=3, scoring=scorer("mcc")).round(3)
array([0.971, 0.942, 0.971])
>>> scorer("error_rate")
scorer('error_rate', greater_is_better=False)
"""

from __future__ import annotations

import math

import numpy as np

from metricc.runtime import averaging
from metricc.runtime.confusion import classes_and_matrix
from metricc.core.errors import InputError
from metricc.api.evaluate import evaluate, metric

__all__ = ["scorer", "Scorer"]


def scorer(metric_id: str, *, average: str | None = None, zero_division="worst", **params) -> Scorer:
    """A scikit-learn scorer for ``metric_id`` (id or alias) with ``average`` (default: the
    metric's own) and parameter values ``params`` (e.g. ``scorer("f_beta", beta=2)``)."""
    return Scorer(metric_id, average=average, zero_division=zero_division, params=params)


class Scorer:
    """``scorer(estimator, X, y) -> float``; see the module documentation for the policy."""

    def __init__(self, metric_id: str, *, average=None, zero_division="worst", params=None) -> None:
        self.info = metric(metric_id)
        self.metric_id, self.average, self.params = metric_id, average, dict(params or {})
        if self.info.higher_is_better is None:
            raise InputError("metric_id", f"{self.info.id} is a statistic with no better direction (higher_is_better: "
                                          "null in its spec): model selection cannot maximise it; score with a metric "
                                          "that has one")
        if averaging.per_class(average or self.info.default_average):
            raise InputError("average", f"a scorer gives one number; choose an averaging mode other than '{averaging.PER_CLASS}'"
                                        f" (one of {', '.join(a for a in self.info.averages if not averaging.per_class(a))})")
        if average is not None and not self.info.per_class:
            raise InputError("average", f"{self.info.id} is a {self.info.level}-level metric: it has no averaging")
        unknown = sorted(set(self.params) - {p.name for p in self.info.params})
        if unknown:
            raise InputError(unknown[0], f"{self.info.id} has no parameter '{unknown[0]}'")
        self.greater_is_better = self.info.higher_is_better
        self.zero_division = self._undefined_value(zero_division)

    def _undefined_value(self, zero_division):
        if not (isinstance(zero_division, str) and zero_division == "worst"):
            return zero_division
        worst = self.info.range[0] if self.info.higher_is_better else self.info.range[1]
        return worst if math.isfinite(worst) else math.nan

    def __call__(self, estimator, X, y, sample_weight=None) -> float:
        options = {"average": self.average, "zero_division": self.zero_division}
        if self.params:
            options["params"] = self.params
        if sample_weight is not None and (self.info.needs_scores or self.info.per_instance or _multilabel(y)):
            raise InputError("sample_weight", f"{self.info.id} does not weigh samples: weights apply to the confusion "
                                              "matrix of single-label predictions; score without weights")
        if self.info.needs_scores:
            value = evaluate(self.metric_id, y_true=y, scores=self._scores(estimator, X),
                             labels=list(estimator.classes_), **options)[self.metric_id]
        elif sample_weight is not None:  # weighted counts: a real-valued confusion matrix
            labels, matrix = classes_and_matrix(y, estimator.predict(X), sample_weight=sample_weight)
            value = evaluate(self.metric_id, matrix=matrix, labels=labels, **options)[self.metric_id]
        else:
            y_pred = estimator.predict(X)
            value = evaluate(self.metric_id, y_true=y, y_pred=y_pred, multilabel=_multilabel(y), **options)[self.metric_id]
        value = float(np.asarray(value))
        return value if self.greater_is_better else -value

    def _scores(self, estimator, X):
        if hasattr(estimator, "predict_proba"):
            return estimator.predict_proba(X)
        if self.info.thresholds and hasattr(estimator, "decision_function"):
            return estimator.decision_function(X)  # a ranking is enough for a threshold curve
        raise InputError("estimator", f"{self.info.id} needs class probabilities: {type(estimator).__name__} "
                                      "has no predict_proba" + ("" if not self.info.thresholds else " nor decision_function"))

    def __repr__(self) -> str:
        extra = "".join(f", {k}={v!r}" for k, v in (("average", self.average), *self.params.items()) if v is not None)
        return f"scorer({self.metric_id!r}{extra}, greater_is_better={self.greater_is_better})"


def _multilabel(y) -> bool:
    """Indicator rows (n, C > 1); a column (n, 1) is one label per sample (metricc.runtime.inputs)."""
    shape = np.shape(y)
    return len(shape) == 2 and shape[1] > 1
