"""Streaming metric objects: ``update`` with each batch, ``compute`` when needed, ``reset``,
``merge`` across workers (the shape of torchmetrics' metrics), so a training or evaluation
loop feeds batches instead of keeping every prediction.

Each object holds an accumulator (:mod:`.accumulate`, :mod:`.accumulate_curves`), never the
samples, and computes exactly what :func:`~metricc.api.evaluate.evaluate` computes on
all the batches at once.

>>> f1 = StreamingMetric("f1", average="macro")
>>> for y_true, y_pred in [([0, 1], [0, 1]), ([1, 2], [1, 1])]:
...     _ = f1.update(y_true, y_pred)
>>> print(f"{f1.compute():.4f}")
0.6000
>>> both = StreamingMetric(["accuracy", "mcc"]).update([0, 1, 1], [0, 1, 0])
>>> sorted(both.compute())
['accuracy', 'mcc']
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from metricc.api.accumulate import ConfusionAccumulator, MultilabelAccumulator
from metricc.api.accumulate_curves import ThresholdAccumulator
from metricc.core.errors import InputError
from metricc.api.evaluate import metric

__all__ = ["StreamingMetric"]


class StreamingMetric:
    """One metric id (``compute()`` returns its value) or a list of ids (a ``{id: value}`` dict).

    The kind of batch follows from the metrics: curve-level metrics take ``update(y_true,
    scores)`` (``labels``: the classes in score-column order, required), the others
    ``update(y_true, y_pred)`` (labels; indicator matrices with ``multilabel=True``).
    ``labels`` fixes the class set up front; without it the class set grows with the data.
    ``average``, ``params``, ``zero_division`` (and ``weights``, ``pos_label``) are those of
    ``evaluate``; ``bins`` bins the scores of curve-level metrics (see
    :class:`~metricc.api.accumulate_curves.ThresholdAccumulator`).
    """

    def __init__(self, metrics, *, labels=None, multilabel: bool = False, average: str | None = None,
                 params: Mapping[str, object] | None = None, zero_division=math.nan, bins=None, **options) -> None:
        self.single = isinstance(metrics, str)
        self.names = [metrics] if self.single else list(metrics)
        if not self.names:
            raise InputError("metrics", "name at least one metric")
        infos = [metric(name) for name in self.names]
        self.on_curves = any(info.thresholds for info in infos)
        if self.on_curves and not all(info.thresholds for info in infos):
            raise InputError("metrics", "curve-level metrics take scores and the others predicted labels: "
                                        "use one StreamingMetric for each")
        if any(info.needs_scores and not info.thresholds for info in infos):
            raise InputError("metrics", "score-level metrics (log loss, Brier score, AU1U...) need every score "
                                        "at once; stream roc_auc / average_precision, or use evaluate")
        self.labels, self.multilabel, self.bins = labels, multilabel, bins
        self.options = {"average": average, "zero_division": zero_division, **options}
        if params is not None:
            self.options["params"] = params
        self.reset()

    def _new_accumulator(self):
        if self.on_curves:
            if self.labels is None:
                raise InputError("labels", "give the classes in score-column order: labels=[...]")
            return ThresholdAccumulator(self.labels, bins=self.bins)
        if self.multilabel:
            return MultilabelAccumulator()
        return ConfusionAccumulator(self.labels)

    def update(self, y_true, y_pred_or_scores) -> StreamingMetric:
        """Add one batch; returns self."""
        self.accumulator.update(y_true, y_pred_or_scores)
        return self

    def compute(self):
        """The metric value(s) of every batch since the last ``reset``."""
        values = self.accumulator.compute(self.names, **self.options)
        return values[self.names[0]] if self.single else values

    def reset(self) -> StreamingMetric:
        """Forget every batch (start of an epoch)."""
        self.accumulator = self._new_accumulator()
        return self

    def merge(self, other: StreamingMetric) -> StreamingMetric:
        """Add the batches ``other`` has seen (another worker's object of the same metrics); returns self."""
        if not isinstance(other, StreamingMetric) or other.names != self.names:
            raise InputError("other", "expected a StreamingMetric of the same metrics")
        self.accumulator.merge(other.accumulator)
        return self

    def __repr__(self) -> str:
        return f"StreamingMetric({self.names[0] if self.single else self.names!r}, {self.accumulator!r})"
