"""The whole compiler, one line per stage: load -> validate -> lower -> budget -> analyze -> check -> prove -> emit.

``compile_catalog(Path("specs"))`` returns every file of ``generated/`` (relative path ->
text), rendered in memory; :mod:`.emit.write` puts them on disk. ``metricc check`` runs the
stages up to the analysis (:func:`analyzed_metrics`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from metricc.compiler import emit
from metricc.compiler.analysis import analyze, budget, declared, prove
from metricc.compiler.language import ir, load, lower, validate

__all__ = ["STAGES", "analyzed_metrics", "compile_catalog", "compile_metrics"]


STAGES = ("load", "validate", "lower", "budget", "analyze", "declared", "prove", "emit")


def compile_catalog(spec_dir: Path, on_stage: Callable[[str], None] = lambda stage: None) -> dict[str, str]:
    """Every file of ``generated/`` (relative path -> text); ``on_stage`` hears the name of each
    of :data:`STAGES` as it starts (``metricc build`` draws a progress bar from it)."""
    on_stage("load")
    sources = load.load_catalog(spec_dir)
    errata = load.load_errata(spec_dir)
    on_stage("validate")
    specs = validate.validate_catalog(sources)
    on_stage("lower")
    metrics = lower.lower_catalog(specs)
    on_stage("budget")
    metrics = budget.check_catalog(metrics)
    on_stage("analyze")
    metrics = analyze.analyze_catalog(metrics)
    on_stage("declared")
    metrics = declared.check_declared(metrics)
    on_stage("prove")
    metrics = prove.prove_equivalences(metrics)
    on_stage("emit")
    return emit.emit_catalog(metrics, errata)


def analyzed_metrics(spec_dir: Path) -> dict[str, ir.Metric]:
    """Specs -> analyzed IR without the catalog-wide proofs: what ``metricc check`` runs."""
    specs = validate.validate_catalog(load.load_catalog(spec_dir))
    metrics = analyze.analyze_catalog(budget.check_catalog(lower.lower_catalog(specs)))
    return declared.check_declared(metrics)


def compile_metrics(spec_dir: Path) -> dict[str, ir.Metric]:
    """Specs -> analyzed IR with the equivalences proved: what the emitters receive."""
    return prove.prove_equivalences(analyzed_metrics(spec_dir))
