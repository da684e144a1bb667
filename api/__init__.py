"""The user API: metrics from labels, scores or matrices, above :mod:`metricc.generated`.

Evaluate metrics (:func:`evaluate`, :func:`sweep`, :func:`normalized`, :func:`report`), look them up
(:func:`catalog`, :func:`metric` and the types they return), build their inputs (confusion
matrices, per-class counts, probabilistic matrices, relevance vectors) and choose them
(:func:`suggest`). The helpers generated modules import live in
:mod:`metricc.runtime.kernel` and are not part of this surface.

>>> import metricc.api as mc
>>> print(f'{mc.evaluate("mcc", matrix=[[5, 1], [2, 4]])["mcc"]:.4f}')
0.5071
"""

from metricc.api.accumulate import ConfusionAccumulator, MultilabelAccumulator
from metricc.api.accumulate_curves import ThresholdAccumulator
from metricc.runtime.confusion import (
    ClassCounts,
    class_labels,
    confusion_matrix,
    counts_from_matrix,
    multilabel_counts,
    orient,
    samplewise_counts,
)
from metricc.core.errors import InputError, MetriccError
from metricc.api.evaluate import catalog, evaluate, metric
from metricc.api.interpret import interpret
from metricc.api.intervals import Interval
from metricc.api.multioutput import multioutput_indicators
from metricc.api.normalize import normalized
from metricc.runtime.per_class import ClassValues
from metricc.runtime.probabilistic import probabilistic_confusion_matrix
from metricc.runtime.registry import Catalog, MetricInfo, ParamInfo
from metricc.api.streaming import StreamingMetric
from metricc.api.relevance import relevance_from_order, relevance_from_prevalence
from metricc.api.report import Report, report
from metricc.api.suggest import Suggestion, suggest
from metricc.api.sweep import ProductGrid, product_grid, sweep
from metricc.api.training import TrainingMetric

__all__ = [
    "Catalog",
    "ClassCounts",
    "ClassValues",
    "ConfusionAccumulator",
    "InputError",
    "Interval",
    "MetricInfo",
    "MetriccError",
    "MultilabelAccumulator",
    "ParamInfo",
    "Report",
    "StreamingMetric",
    "Suggestion",
    "ThresholdAccumulator",
    "TrainingMetric",
    "catalog",
    "class_labels",
    "confusion_matrix",
    "counts_from_matrix",
    "evaluate",
    "interpret",
    "metric",
    "multilabel_counts",
    "multioutput_indicators",
    "normalized",
    "orient",
    "probabilistic_confusion_matrix",
    "ProductGrid",
    "product_grid",
    "relevance_from_order",
    "relevance_from_prevalence",
    "report",
    "samplewise_counts",
    "suggest",
    "sweep",
]

