"""``report``: the per-class table a reader expects on the desk (scikit-learn's
``classification_report``, PyCM's ``stat``), computed from the catalog.

One call gives the class-level metrics per class (rows named by the class labels) with the
support, their micro, macro and weighted averages where the metric has that average, the
metrics with one value per matrix (accuracy, MCC, kappa, ...), and the confusion matrix with
the class names. :class:`Report` holds the numbers; it is a document of
:mod:`metricc.api.formats`, so it prints in each of its formats (``to(name)``): aligned text
(``str``), Markdown, CSV, JSON, a LaTeX ``tabular`` or a self-contained HTML page (the layouts:
:mod:`metricc.api.report_formats`), and as a pandas DataFrame (``to_frame``; pandas is
imported only there).

>>> r = report(y_true=["cat", "dog", "cat", "bird"], y_pred=["cat", "cat", "cat", "bird"])
>>> print(r.to_text(digits=2))
              precision  recall    f1  support
bird               1.00    1.00  1.00        1
cat                0.67    1.00  0.80        2
dog                 nan    0.00  0.00        1
micro avg          0.75    0.75  0.75        4
macro avg           nan    0.67  0.60        4
weighted avg        nan    0.75  0.65        4
<BLANKLINE>
accuracy           0.75
mcc                0.65
cohen_kappa        0.56
<BLANKLINE>
confusion matrix (rows: true class, columns: predicted class)
      bird  cat  dog
bird     1    0    0
cat      0    2    0
dog      0    1    0
>>> r.to_dict()["per_class"]["cat"]
{'precision': 0.6666666666666666, 'recall': 1.0, 'f1': 0.8, 'support': 2}
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from metricc.api import formats, report_formats
from metricc.runtime import confusion, inputs, per_class
from metricc.core.errors import InputError
from metricc.api.evaluate import evaluate, metric
from metricc.api.intervals import METHODS
from metricc.runtime import averaging
from metricc.runtime.terms import read_matrix

__all__ = ["AVERAGED", "DEFAULT_CLASS_METRICS", "DEFAULT_OVERALL_METRICS", "Report", "report"]

DEFAULT_CLASS_METRICS = ("precision", "recall", "f1")
DEFAULT_OVERALL_METRICS = ("accuracy", "mcc", "cohen_kappa")
AVERAGED = tuple(m.name for m in averaging.MODES.values() if m.reported)  # the rows under the classes


@dataclass(frozen=True)
class Report:
    """The numbers of a classification report; ``str(report)`` is the aligned text table.

    ``per_class[m]`` holds metric ``m``'s value per class (labels in ``labels`` order),
    ``averages[a][m]`` its ``a``-average (absent if ``m`` has no such average), ``overall``
    the one-per-matrix metrics, ``matrix`` the confusion matrix (rows: true classes).
    """

    labels: list
    class_metrics: list[str]
    per_class: dict[str, np.ndarray]
    support: np.ndarray
    averages: dict[str, dict[str, float]]
    overall: dict[str, float]
    matrix: np.ndarray = field(repr=False)
    # With interval=: the bounds of each value, keyed ("class", column), ("average", mode, column)
    # or ("overall", row); the method, the level, and the values the method does not apply to.
    intervals: dict = field(default_factory=dict, repr=False)
    interval: str | None = None
    confidence: float = 0.95
    no_interval: dict[str, str] = field(default_factory=dict, repr=False)

    title = "Classification report"  # a document of metricc.api.formats
    json_indent = 2
    json_ascii = True

    def data(self) -> dict:
        return report_formats.as_dict(self)

    def blocks(self, digits: int) -> list:
        return report_formats.blocks(self, digits)

    def own_layouts(self) -> dict:
        return {"text": self.to_text, "markdown": self.to_markdown, "csv": lambda digits: self.to_csv(),
                "latex": self.to_latex}

    def __str__(self) -> str:
        return self.to_text()

    def to_text(self, digits: int = 4) -> str:
        """Aligned plain text: the class table, the overall metrics, the confusion matrix."""
        return report_formats.text(self, digits)

    def to_markdown(self, digits: int = 4) -> str:
        """GitHub-flavoured Markdown tables."""
        return report_formats.markdown(self, digits)

    def to_csv(self) -> str:
        """Long form, one number per line: ``section,row,column,value`` (full precision)."""
        return report_formats.csv_text(self)

    def to_json(self, indent: int | None = 2) -> str:
        """JSON with label -> value mappings (NaN stays NaN, as in ``metricc eval``)."""
        return formats.json_text(self.data(), indent)

    def to_dict(self) -> dict:
        """The report as plain Python data (what :meth:`to_json` writes)."""
        return self.data()

    def to_latex(self, digits: int = 4) -> str:
        """Two LaTeX ``tabular`` environments (booktabs rules): the class table, the matrix."""
        return report_formats.latex(self, digits)

    def to_html(self, digits: int = 4, title: str = "Classification report") -> str:
        """A self-contained HTML page (inline style, no scripts, no network)."""
        return formats.html_page(self.blocks(digits), title)

    def to(self, format: str, digits: int = 4) -> str:
        """The report in one of :data:`~metricc.api.formats.FORMATS` by name (``"markdown"``)."""
        return formats.render(self, format, digits)

    def to_frame(self):
        """The class table as a pandas DataFrame: one row per class, then the averaged rows
        (index ``"micro avg"``, ...), one column per metric and ``support``."""
        try:
            import pandas
        except ImportError:
            raise ImportError('Report.to_frame() needs pandas: pip install "metricc[pandas]"') from None
        rows = report_formats.table_rows(self)
        columns = [*self.class_metrics, "support"]
        frame = pandas.DataFrame([values for _, values in rows], index=[name for name, _ in rows], columns=columns)
        if all(float(v).is_integer() for v in frame["support"]):
            frame["support"] = frame["support"].astype("int64")
        return frame


DEFAULT_SCORE_METRICS = ("roc_auc", "average_precision", "log_loss", "calibration_error")


def _split_metrics(metrics, scored: bool = False) -> tuple[list[str], list[str], list[str]]:
    """Requested ids -> (class-level: per-class columns, one-per-matrix: the overall rows,
    curve- and score-level: overall rows computed from ``scores``)."""
    if metrics is None:
        return (list(DEFAULT_CLASS_METRICS), list(DEFAULT_OVERALL_METRICS),
                list(DEFAULT_SCORE_METRICS) if scored else [])
    names = [metrics] if isinstance(metrics, str) else list(metrics) if isinstance(metrics, Sequence) else None
    if not names or not all(isinstance(name, str) for name in names):
        raise InputError("metrics", f"expected metric ids, got {metrics!r}")
    columns, overall, on_scores = [], [], []
    for name in names:
        info = metric(name)
        if info.needs_scores:
            if not scored:
                raise InputError("metrics", f"{info.id} is a {info.level}-level metric: it needs scores "
                                            "(scores=, --scores) beside the predicted labels")
            on_scores.append(name)
            continue
        if info.per_instance or averaging.per_instance(info.default_average):
            raise InputError("metrics", f"{info.id} averages over the instances of multi-label data; "
                                        "a report covers single-label data")
        (columns if info.per_class else overall).append(name)
    if len(set(names)) != len(names):
        raise InputError("metrics", "a metric is listed twice")
    return columns, overall, on_scores


def _header(name: str, params: dict) -> str:
    """A column or row name with the parameters given to its metric: ``f_beta(beta=2)``."""
    given = [f"{p.name}={params[p.name]!r}" for p in metric(name).params if p.name in params]
    return f"{name}({', '.join(given)})" if given else name


def _matrix_and_labels(y_true, y_pred, matrix, labels, orientation) -> tuple[np.ndarray, list]:
    if (matrix is None) == (y_true is None and y_pred is None):
        raise InputError("input", "give either matrix=, or y_true= with y_pred=")
    if matrix is not None:
        m = confusion.check_matrix(confusion.orient(matrix, orientation))
        if m.ndim != 2:
            raise InputError("matrix", f"a report covers one confusion matrix (C, C), got shape {m.shape}; "
                                       "report each matrix of the batch on its own")
        if labels is None:
            return m, list(range(m.shape[-1]))
        labels = per_class.label_list(confusion.check_labels(labels))
        if len(labels) != m.shape[-1]:
            raise InputError("labels", f"expected one label per class of the matrix ({m.shape[-1]}), got {len(labels)}")
        return m, labels
    if y_true is None or y_pred is None:
        raise InputError("y_pred" if y_pred is None else "y_true", "y_true and y_pred go together")
    y_true, y_pred = inputs.one_label_per_sample(y_true, "y_true"), inputs.one_label_per_sample(y_pred, "y_pred")
    if labels is None:
        labels = per_class.categorical_labels(y_true, y_pred)
    classes = confusion.class_labels(y_true, y_pred, labels)
    if np.ndim(y_true) != 1:
        raise InputError("y_true", "a report covers one set of labels (N,); report each row of a batch on its own")
    return confusion.confusion_matrix(y_true, y_pred, labels=classes), per_class.label_list(classes)


def report(
    metrics: str | Sequence[str] | None = None,
    *,
    y_true=None,
    y_pred=None,
    matrix=None,
    labels=None,
    orientation: str = "true-rows",
    params: Mapping[str, object] | None = None,
    zero_division=math.nan,
    scores=None,
    interval: str | None = None,
    confidence: float = 0.95,
    n_resamples: int = 2000,
    random_state=None,
) -> Report:
    """A classification report of labels (``y_true``, ``y_pred``: lists, arrays, pandas
    Series or categoricals) or of one confusion ``matrix``.

    ``metrics``: class-level ids become columns (default precision, recall, F1), the others
    rows of the overall section (default accuracy, MCC, Cohen's kappa); give both kinds in one
    list to choose both. ``labels`` orders (and names) the classes; categorical labels keep
    their category order. ``params`` and ``zero_division`` as for :func:`evaluate`; a metric
    given parameters is headed with them (``f_beta(beta=2)``).

    ``scores`` (with ``y_true``, read as :func:`evaluate` reads them, DataFrame columns by
    name) add curve- and score-level rows (default ROC AUC, average precision, log loss and
    calibration error). ``interval`` (a method of :func:`evaluate`) gives every value its
    confidence interval at level ``confidence``, shown in every format; a value the method
    does not apply to (a score metric needs the bootstrap) is shown alone and listed in
    ``no_interval`` with the reason.
    """
    if interval is not None and interval not in METHODS:
        raise InputError("interval", f"expected one of {', '.join(METHODS)}, got {interval!r}")
    columns, overall_ids, scored_ids = _split_metrics(metrics, scores is not None)
    if scores is not None and y_true is None:
        raise InputError("scores", "scores need the true labels y_true (and y_pred for the class table)")
    the_matrix, class_labels = _matrix_and_labels(y_true, y_pred, matrix, labels, orientation)
    params = _check_params(params, columns + overall_ids + scored_ids)
    headers = {name: _header(name, params) for name in columns + overall_ids + scored_ids}
    extra = {} if interval is None else {"interval": interval, "confidence": confidence, "n_resamples": n_resamples,
                                         "random_state": random_state}
    intervals: dict = {}
    no_interval: dict[str, str] = {}
    # Read once for every section's evaluate call, which then share the counts' context (pooled
    # counts, supports); intervals resample the matrix itself.
    read = the_matrix if extra or the_matrix is None else read_matrix(the_matrix, integer=True)

    def run(names: list[str], section: tuple, average: str | None = None, **data) -> dict:
        """``{header: value}``; with ``interval``, the bounds go to ``intervals[section + (header,)]``."""
        own = {p.name for name in names for p in metric(name).params}
        data = data or {"matrix": read, "labels": class_labels}
        call = dict(average=average, zero_division=zero_division, params={k: v for k, v in params.items() if k in own},
                    **data)
        try:
            found = evaluate(names, **call, **extra)
        except InputError as error:
            if not extra or error.argument != "interval":
                raise
            if len(names) > 1:  # one metric at a time: the method applies where it applies
                return {header: value for name in names for header, value in run([name], section, average, **data).items()}
            where = headers[names[0]] + (f" ({section[1]} avg)" if section[0] == "average" else "")
            no_interval[where] = error.message
            return {headers[names[0]]: evaluate(names, **call)[names[0]]}
        out = {}
        for name in names:
            value = found[name]
            if extra and value.note:  # evaluate applied the method where it applies: not to this one
                no_interval[headers[name] + (f" ({section[1]} avg)" if section[0] == "average" else "")] = value.note
                value = value.value
            elif extra:
                intervals[section + (headers[name],)] = (np.asarray(value.lower, dtype=float),
                                                         np.asarray(value.upper, dtype=float))
                value = value.value
            out[headers[name]] = value
        return out

    per_class_values = run(columns, ("class",), "none") if columns else {}
    averages: dict[str, dict[str, float]] = {}
    for mode in AVERAGED:
        having = [name for name in columns if mode in metric(name).averages]
        if having:
            averages[mode] = {name: float(v) for name, v in run(having, ("average", mode), mode).items()}
    overall = {name: float(v) for name, v in run(overall_ids, ("overall",)).items()} if overall_ids else {}
    if scored_ids:
        overall.update({name: float(v) for name, v in run(scored_ids, ("overall",), y_true=y_true, scores=scores,
                                                          labels=labels).items()})
    return Report(
        labels=class_labels,
        class_metrics=[headers[name] for name in columns],
        per_class={name: np.asarray(v, dtype=float) for name, v in per_class_values.items()},
        support=the_matrix.sum(axis=-1),
        averages=averages,
        overall=overall,
        matrix=the_matrix,
        intervals=intervals,
        interval=interval,
        confidence=confidence,
        no_interval=no_interval,
    )


def _check_params(params, names: list[str]) -> dict:
    """``params`` checked against the requested metrics (each evaluation gets its metrics' share)."""
    if params is None:
        return {}
    if not isinstance(params, Mapping):
        raise InputError("params", f"expected a mapping {{parameter: value}}, got {type(params).__name__}")
    declared = {p.name for name in names for p in metric(name).params}
    unknown = sorted(set(params) - declared)
    if unknown:
        raise InputError("params", f"no requested metric has a parameter '{unknown[0]}'")
    return dict(params)
