"""A metric object for training loops: counts kept where the tensors live, any catalog metric.

The habits of torchmetrics (``update`` with each batch, ``compute``, ``reset``, ``merge``,
synced across processes at ``compute``), for every metric of the catalog, on arrays of any Array API library (PyTorch on CPU or CUDA, JAX, CuPy,
array-api-strict, numpy). Each ``update`` counts the batch on its device
(:mod:`metricc.runtime.xp_counts`) and adds the counts to the state; nothing is copied to the
host. Score- and curve-level metrics (AUROC, calibration error...) read ``update(...,
scores=...)``: their state is the batches themselves, on the device
(:mod:`.training_scores`). The class set is fixed up front, as in torchmetrics, because growing it would mean
reading every batch's labels on the host.

``compute`` evaluates the metrics from the state (the ``(C, C)`` matrix, or ``(4, C)``
multi-label counts) where it lives, with the namespace-generic generated code
(:mod:`.evaluate_arrays`), and returns each value as an array of the input's namespace on
the input's device (float64 where the device holds it, else float32); a metric whose formula
needs what the Array API standard lacks is computed by numpy on a host copy of the counts, with
a warning. numpy input is evaluated as ``evaluate`` does.

>>> import numpy as np
>>> f1 = TrainingMetric("f1:macro", classes=3)
>>> for y_true, y_pred in [(np.array([0, 1]), np.array([0, 1])), (np.array([1, 2]), np.array([1, 1]))]:
...     _ = f1.update(y_true, y_pred)
>>> print(f"{f1.compute():.4f}")
0.6000
>>> f1.counts.tolist()
[[1, 0, 0], [0, 2, 0], [0, 1, 0]]
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from metricc.api.evaluate import evaluate, metric
from metricc.api.evaluate_arrays import values_of_counts
from metricc.api.training_scores import ScoreBatches, torch_distributed
from metricc.core.errors import InputError
from metricc.runtime import averaging, namespace, xp_counts
from metricc.runtime.confusion import ClassCounts

__all__ = ["TrainingMetric"]

# The options evaluating on the device reads; with any other (relevance=...) compute reads a host copy.
_ON_DEVICE = frozenset({"average", "params", "weights", "pos_label", "zero_division"})


class TrainingMetric:
    """One metric entry (``compute()`` returns its value) or a list (a ``{entry: value}`` dict).

    ``classes``: the number of classes ``C`` (labels ``0 .. C - 1``, as in torchmetrics) or the
    class labels themselves (numbers, sorted; a batch's labels are looked up in them on the
    device). ``multilabel=True``: batches are indicator matrices ``(N, C)`` and ``classes``
    names the columns in order (any names). Per-class values (``average="none"``) follow the
    order of ``labels``; outside numpy they are plain arrays of the input's namespace. Metric entries, ``average``, ``params``, ``zero_division`` are those of
    :func:`~metricc.api.evaluate.evaluate`. ``validate`` checks that every label is a class
    (one boolean read per batch); without it such samples are not counted.
    ``sync_on_compute``: under ``torch.distributed`` the counts of every process are summed
    (all-reduce) before computing, and the score batches gathered; the local state stays as it
    was, so updates go on.
    """

    def __init__(self, metrics, classes, *, multilabel: bool = False, average: str | None = None,
                 params: Mapping[str, object] | None = None, zero_division=math.nan, validate: bool = True,
                 sync_on_compute: bool = True, **options) -> None:
        self.single = isinstance(metrics, str)
        self.names = [m if isinstance(m, str) else ":".join(m) for m in ([metrics] if self.single else metrics)]
        if not self.names:
            raise InputError("metrics", "name at least one metric")
        self._check_levels(multilabel, average)
        self.scored = [n for n in self.names if metric(n.split(":")[0]).needs_scores]
        self.counted = [n for n in self.names if n not in self.scored]
        labels = list(range(classes)) if isinstance(classes, int) else list(np.asarray(classes).tolist())
        numeric = all(isinstance(v, (int, float)) for v in labels)
        if not labels or len(set(labels)) != len(labels) or not (numeric or multilabel):
            raise InputError("classes", f"expected a number of classes or distinct numeric labels, got {classes!r}")
        self.labels = labels if multilabel else sorted(labels)  # columns keep their order; labels are looked up sorted
        self.multilabel, self.validate, self.sync_on_compute = multilabel, validate, sync_on_compute
        self.options = {"average": average, "zero_division": zero_division, **options}
        if params is not None:
            self.options["params"] = params
        self.reset()

    def _check_levels(self, multilabel: bool, average: str | None) -> None:
        for name in self.names:
            info = metric(name.split(":")[0])
            if info.needs_scores:
                continue  # checked by the score path at compute, as evaluate checks it
            entry_average = name.split(":", 1)[1] if ":" in name else average
            if multilabel and (info.per_instance or averaging.per_instance(entry_average or info.default_average)):
                raise InputError("metrics", f"{info.id}: averaging over samples needs per-sample counts; "
                                            "use StreamingMetric(..., multilabel=True)")

    def reset(self) -> TrainingMetric:
        """Forget every batch (start of an epoch); the namespace and device are chosen again by the next batch."""
        self.counts = None
        self._classes = None
        self.score_batches = ScoreBatches()
        return self

    def update(self, y_true, y_pred=None, sample_weight=None, *, scores=None) -> TrainingMetric:
        """Count one batch on its device and add it to the state; returns self. ``sample_weight``
        ``(N,)``: each sample counts its weight (finite, non-negative); the counts become floating
        (float64 where the device holds it) from the first weighted batch on. ``scores`` ``(N, C)``
        (``(N,)`` for two classes): the batch's scores, kept for the score- and curve-level metrics."""
        y_true = namespace.as_array(y_true, "y_true")
        if self.scored:
            if scores is None:
                raise InputError("scores", f"{self.scored[0]} is computed from scores: pass update(y_true, ..., "
                                           "scores=...)")
            if sample_weight is not None:
                raise InputError("sample_weight", f"{self.scored[0]}: score-level metrics are not weighted here")
            self.score_batches.add(y_true, namespace.as_array(scores, "scores"), len(self.labels))
        if not self.counted:
            return self
        if y_pred is None:
            raise InputError("y_pred", f"{self.counted[0]} is computed from predicted labels: pass update(y_true, "
                                       "y_pred)")
        y_pred = namespace.as_array(y_pred, "y_pred")
        xp = namespace.array_namespace(y_true, y_pred)
        where = namespace.device(y_true)
        if self.counts is not None and namespace.array_namespace(self.counts) is not xp:
            raise InputError("y_true", "this batch is of another array library than the earlier ones; reset() first")
        if self.multilabel:
            if y_true.ndim != 2 or y_true.shape[1] != len(self.labels):
                raise InputError("y_true", f"expected indicators (N, {len(self.labels)}), got shape {tuple(y_true.shape)}")
            batch = xp_counts.multilabel_counts(y_true, y_pred, validate=self.validate, sample_weight=sample_weight)
        else:
            if self._classes is None:  # labels 0 .. C - 1 are their own codes (no lookup on the device)
                numbered = self.labels == list(range(len(self.labels)))
                self._classes = len(self.labels) if numbered else xp.asarray(self.labels, device=where)
            batch = xp_counts.confusion_counts(y_true, y_pred, self._classes, validate=self.validate,
                                               sample_weight=sample_weight)
        self.counts = _added(self.counts, batch)
        return self

    def merge(self, other: TrainingMetric) -> TrainingMetric:
        """Add the counts of ``other`` (the same metrics and classes, another worker); returns self."""
        if not isinstance(other, TrainingMetric) or (other.names, other.labels, other.multilabel) != (
                self.names, self.labels, self.multilabel):
            raise InputError("other", "expected a TrainingMetric of the same metrics and classes")
        if other.counts is not None:
            self.counts = _added(self.counts, other.counts)
        self.score_batches.merge(other.score_batches)
        return self

    def synced_counts(self):
        """The counts summed over every process of ``torch.distributed`` (its all-reduce), or the
        local counts when no process group is initialised; the local state is not changed."""
        counts = self._checked()
        distributed = torch_distributed()
        if distributed is None or not namespace.is_torch(counts):
            return counts
        total = counts.clone()
        distributed.all_reduce(total, op=distributed.ReduceOp.SUM)
        return total

    def _checked(self):
        if self.counts is None:
            raise InputError("update", "no data yet: call update() with at least one batch first")
        return self.counts

    def compute(self):
        """The metric value(s) of every batch since ``reset``, in the input's namespace and on its
        device (numpy input: what ``evaluate`` returns), computed there (see the module docstring)."""
        values = {}
        if self.counted:
            counts = self.synced_counts() if self.sync_on_compute else self._checked()
            if not namespace.is_numpy(namespace.array_namespace(counts)) and set(self.options) <= _ON_DEVICE:
                values = values_of_counts(self.counted, metric, labels=self.labels, **self.options,
                                          **({"counts": counts} if self.multilabel else {"matrix": counts}))
            else:
                values = self._on_host(counts)
        if self.scored:
            if not self.score_batches:
                raise InputError("update", "no data yet: call update() with at least one batch first")
            values.update(self.score_batches.values(self.scored, metric, self.labels, self.multilabel, self.options))
        return values[self.names[0]] if self.single else {name: values[name] for name in self.names}

    def _on_host(self, counts) -> dict:
        """``evaluate`` on a host copy of the counts (numpy input, or options only it reads), each
        value returned as an array of the counts' namespace on their device."""
        host = namespace.to_host(counts)
        if self.multilabel:
            values = evaluate(self.counted, counts=ClassCounts(*host), labels=self.labels, **self.options)
        else:
            values = evaluate(self.counted, matrix=host, labels=self.labels, **self.options)
        xp = namespace.array_namespace(counts)
        if namespace.is_numpy(xp):
            return values
        where = namespace.device(counts)
        dtype = namespace.value_dtype(xp, where)
        return {name: xp.asarray(np.asarray(value, dtype=np.float64), dtype=dtype, device=where)
                for name, value in values.items()}

    def __repr__(self) -> str:
        state = None if self.counts is None else f"{tuple(self.counts.shape)} {self.counts.dtype} on {namespace.device(self.counts)}"
        return f"TrainingMetric({self.names[0] if self.single else self.names!r}, classes={self.labels!r}, counts={state})"


def _added(total, batch):
    """``total + batch``, in the floating dtype where one of them is weighted (the standard
    defines no sum of an integer and a floating array)."""
    if total is None:
        return batch
    if total.dtype != batch.dtype:
        xp = namespace.array_namespace(total, batch)
        floating = total.dtype if xp.isdtype(total.dtype, "real floating") else batch.dtype
        total, batch = xp.astype(total, floating), xp.astype(batch, floating)
    return total + batch
