"""metricc: classification metrics compiled from declarative specs.

``import metricc`` is as light as ``import sklearn.metrics`` is heavy: it imports nothing. Each
public name is imported on first use (PEP 562), from the numpy-only runtime for the metrics
(``metricc.evaluate``, ``metricc.report``, ``metricc.confusion_matrix``, ``metricc.metric``,
``metricc.catalog`` and the rest of :mod:`metricc.runtime`), from the compiler's audit
package for the audit functions (``metricc.audit_file``, ``metricc.consistent``,
``metricc.identify``, ``metricc.explain_claim``); evaluating metrics never imports the
compiler, sympy or jinja2.

>>> import metricc
>>> metricc.evaluate("accuracy", y_true=[0, 1, 1], y_pred=[0, 1, 0])["accuracy"].round(4)
np.float64(0.6667)
>>> metricc.report(y_true=["a", "b"], y_pred=["a", "a"]).labels
['a', 'b']
"""

from __future__ import annotations

import importlib

# Public name -> the module that defines it; the runtime's own list is read from it on use.
_RUNTIME = "metricc.api"
_AUDIT = {name: "metricc.audit" for name in (
    "ClaimResult", "Consistency", "Identification", "Match", "Nearest", "Score", "audit_file", "consistent",
    "explain_claim", "identify")}
_RUNTIME_NAMES = (
    "Catalog", "ClassCounts", "ClassValues", "ConfusionAccumulator", "InputError", "Interval", "MetricInfo",
    "MetriccError", "MultilabelAccumulator", "ParamInfo", "ProductGrid", "Report", "StreamingMetric", "Suggestion",
    "ThresholdAccumulator", "TrainingMetric", "catalog", "class_labels", "confusion_matrix", "counts_from_matrix", "evaluate",
    "interpret", "metric", "multilabel_counts", "multioutput_indicators", "normalized", "orient", "plot",
    "probabilistic_confusion_matrix", "product_grid", "relevance_from_order", "relevance_from_prevalence", "report",
    "samplewise_counts", "suggest", "sweep",
)

__all__ = sorted(_RUNTIME_NAMES + tuple(_AUDIT))


def __getattr__(name: str):
    """Import a public name on first use and keep it (the next access is a plain attribute)."""
    if name == "plot":  # the figures (the extra metricc[plot]): matplotlib is imported on first use
        value = importlib.import_module("metricc.bridges.plot")
        globals()[name] = value
        return value
    if name in _RUNTIME_NAMES:
        module = _RUNTIME
    elif name in _AUDIT:
        module = _AUDIT[name]
    else:
        raise AttributeError(f"module 'metricc' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
