"""The back end: IR -> numpy modules, the registry and the LaTeX catalog (Jinja2 templates)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from metricc.compiler.emit import latex, numpy_module
from metricc.compiler.language import ir

__all__ = ["emit_catalog"]


def emit_catalog(metrics: Mapping[str, ir.Metric], errata: Sequence[Mapping[str, str]] = ()) -> dict[str, str]:
    """Every file of ``generated/`` (relative path -> text), in path order."""
    files = {f"{metric_id}.py": numpy_module.emit_module(metric) for metric_id, metric in metrics.items()}
    files["__init__.py"] = numpy_module.emit_registry(metrics)
    files.update(latex.emit_docs(metrics, errata))
    return dict(sorted(files.items()))
