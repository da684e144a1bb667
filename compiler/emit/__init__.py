"""The back end: IR -> numpy modules, the registry and the LaTeX catalog (Jinja2 templates)."""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence

from metricc.compiler.analysis.cache import digest
from metricc.compiler.emit import latex, numpy_module
from metricc.compiler.language import ir

__all__ = ["emit_catalog"]


def emit_catalog(metrics: Mapping[str, ir.Metric], errata: Sequence[Mapping[str, str]] = (),
                 memo: MutableMapping | None = None) -> dict[str, str]:
    """Every file of ``generated/`` (relative path -> text), in path order.

    ``memo`` (a mapping, or the build cache) holds each metric's module and document by its
    final IR: both are functions of that IR alone, so a rebuild reuses the unchanged ones.
    """
    memo = {} if memo is None else memo
    files = latex.emit_catalog_docs(metrics, errata)
    for metric_id, metric in metrics.items():
        key = f"emitted:{metric_id}:{digest(metric)}"
        texts = memo.get(key)
        if not (isinstance(texts, tuple) and len(texts) == 2 and all(isinstance(t, str) for t in texts)):
            texts = (numpy_module.emit_module(metric), latex.emit_metric_doc(metric, metrics))
            memo[key] = texts
        files[f"{metric_id}.py"], files[f"docs/metrics/{metric_id}.tex"] = texts
    files["__init__.py"] = numpy_module.emit_registry(metrics)
    return dict(sorted(files.items()))
