"""The whole compiler in one function: load -> validate -> lower -> analyze -> emit.

>>> from pathlib import Path

import yaml
>>> files = compile_catalog(Path(__file__).resolve().parent.parent / "specs")
>>> "precision.py" in files and "docs/metrics.tex" in files
True
"""

from __future__ import annotations

from pathlib import Path

import yaml

from metricc.compiler import analyze, emit_latex, emit_numpy, lower, prove, validate
from metricc.compiler.errors import SchemaError
from metricc.compiler.load import SourceSpec, load_catalog

__all__ = ["compile_catalog", "compile_metrics"]


def _validate_all(sources: list[SourceSpec]) -> list[SourceSpec]:
    """Validate every file, reporting the problems of all files together."""
    problems = []
    for source in sources:
        try:
            validate.validate(source)
        except SchemaError as error:
            problems.extend(error.diagnostics)
    if problems:
        raise SchemaError(problems)
    return sources


def compile_metrics(spec_dir: Path):
    """Specs -> analyzed IR, with equivalences proved across the catalog."""
    sources = _validate_all(load_catalog(spec_dir))
    metrics = lower.lower_catalog(sources)
    metrics = {metric_id: analyze.analyze_metric(metric) for metric_id, metric in metrics.items()}
    return prove.prove_equivalences(metrics)


def load_errata(spec_dir: Path) -> list[dict]:
    """``docs/errata.yaml`` beside the specs folder (the project layout), if present."""
    path = Path(spec_dir).parent / "docs" / "errata.yaml"
    if not path.is_file():
        return []
    return yaml.safe_load(path.read_text(encoding="utf-8")) or []


def compile_catalog(spec_dir: Path) -> dict[str, str]:
    """Every file of ``generated/`` (relative path -> text), rendered in memory."""
    metrics = compile_metrics(Path(spec_dir))
    files = {f"{metric_id}.py": emit_numpy.emit_module(metric) for metric_id, metric in metrics.items()}
    files["__init__.py"] = emit_numpy.emit_registry(metrics)
    files.update(emit_latex.emit_docs(metrics, load_errata(spec_dir)))
    return dict(sorted(files.items()))
