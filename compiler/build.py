"""The whole compiler in one function: load -> validate -> lower -> analyze -> emit.

>>> from pathlib import Path
>>> files = compile_catalog(Path(__file__).resolve().parent.parent / "specs")
>>> "precision.py" in files and "docs/metrics.tex" in files
True
"""

from __future__ import annotations

from pathlib import Path

import yaml

from metricc.compiler.analysis import analyze, prove
from metricc.compiler.emit import latex, numpy_module
from metricc.compiler.language import lower, validate
from metricc.compiler.errors import Diagnostic, Location, SchemaError, YamlSyntaxError
from metricc.compiler.language.load import SourceSpec, load_catalog

__all__ = ["analyzed_metrics", "compile_catalog", "compile_metrics", "load_errata"]


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


def analyzed_metrics(spec_dir: Path) -> dict:
    """Specs -> analyzed IR (load, validate, lower, analyze): everything ``metricc check`` runs."""
    sources = _validate_all(load_catalog(spec_dir))
    metrics = lower.lower_catalog(sources)
    return {metric_id: analyze.analyze_metric(metric) for metric_id, metric in metrics.items()}


def compile_metrics(spec_dir: Path) -> dict:
    """Specs -> analyzed IR, with equivalences proved across the catalog."""
    return prove.prove_equivalences(analyzed_metrics(spec_dir))


def load_errata(spec_dir: Path) -> list[dict]:
    """``docs/errata.yaml`` beside the specs folder (the project layout), if present.

    A list of entries, each a mapping with the string fields ``latex.ERRATA_FIELDS``.
    """
    path = Path(spec_dir).parent / "docs" / "errata.yaml"
    if not path.is_file():
        return []
    shown = f"{Path(spec_dir).parent.name}/docs/errata.yaml" if Path(spec_dir).parent.name else "docs/errata.yaml"
    text = path.read_text(encoding="utf-8")
    try:
        entries = yaml.safe_load(text) or []
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        raise YamlSyntaxError(Diagnostic(Location(shown, line, column), "$", f"not valid YAML: {getattr(error, 'problem', error)}")) from None
    problems = []
    if not isinstance(entries, list):
        entries, problems = [], [Diagnostic(Location(shown, 1, 1), "$", "errata must be a list of entries")]
    for number, entry in enumerate(entries):
        missing = [f for f in latex.ERRATA_FIELDS if not isinstance(entry, dict) or not isinstance(entry.get(f), str)]
        if missing:
            problems.append(Diagnostic(Location(shown, 1, 1), f"$[{number}]", f"each erratum needs the text fields {', '.join(missing)}"))
    if problems:
        raise SchemaError(problems)
    return entries


def compile_catalog(spec_dir: Path) -> dict[str, str]:
    """Every file of ``generated/`` (relative path -> text), rendered in memory."""
    metrics = compile_metrics(Path(spec_dir))
    files = {f"{metric_id}.py": numpy_module.emit_module(metric) for metric_id, metric in metrics.items()}
    files["__init__.py"] = numpy_module.emit_registry(metrics)
    files.update(latex.emit_docs(metrics, load_errata(spec_dir)))
    return dict(sorted(files.items()))
