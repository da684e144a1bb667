"""The whole compiler, one line per stage: load -> validate -> lower -> budget -> analyze -> check -> prove -> emit.

``compile_catalog(Path("specs"))`` returns every file of ``generated/`` (relative path ->
text), rendered in memory; :mod:`.emit.write` puts them on disk. ``metricc check`` runs the
stages up to the analysis (:func:`analyzed_metrics`). With a :class:`~.analysis.cache.Cache`
the analysis of each metric and the proofs are reused from earlier builds where their inputs
are unchanged; the output is the same bytes either way.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from metricc.compiler import emit
from metricc.compiler.analysis import affine, analyze, budget, declared, delta, prove
from metricc.compiler.analysis.cache import Cache, digest
from metricc.compiler.language import ir, load, lower, validate

__all__ = ["STAGES", "analyzed_metrics", "compile_catalog", "compile_metrics"]


STAGES = ("load", "validate", "lower", "budget", "analyze", "prove", "emit")


def compile_catalog(spec_dir: Path, cache: Cache | None = None,
                    on_stage: Callable[[str], None] = lambda stage: None) -> dict[str, str]:
    """Every file of ``generated/`` (relative path -> text); ``on_stage`` hears the name of each
    of :data:`STAGES` as it starts (``metricc build`` draws a progress bar from it)."""
    cache = Cache() if cache is None else cache
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
    metrics = _analyzed(metrics, cache)
    on_stage("prove")
    metrics = prove.prove_equivalences(metrics, cache)
    on_stage("emit")
    files = emit.emit_catalog(metrics, errata, cache)
    cache.save()
    return files


def _analyzed(metrics: dict[str, ir.Metric], cache: Cache) -> dict[str, ir.Metric]:
    """analyze -> check the declared claims -> mark affine parameters -> derive the delta-method
    gradient, for the metrics whose lowered IR (their spec and every spec they reference,
    inlined) the cache does not know; all four stages are per metric."""
    keys = {m: f"analyzed:{m}:{digest(metric)}" for m, metric in metrics.items()}
    known = {m: cache.get(keys[m]) for m in metrics}
    known = {m: v for m, v in known.items() if isinstance(v, ir.Metric) and v.id == m}
    todo = {m: metric for m, metric in metrics.items() if m not in known}
    fresh = delta.derive_catalog(affine.mark_affine(declared.check_declared(analyze.analyze_catalog(todo)))) if todo else {}
    for m, metric in fresh.items():
        cache[keys[m]] = metric
    return {m: known[m] if m in known else fresh[m] for m in metrics}


def analyzed_metrics(spec_dir: Path) -> dict[str, ir.Metric]:
    """Specs -> analyzed IR without the catalog-wide proofs: what ``metricc check`` runs."""
    specs = validate.validate_catalog(load.load_catalog(spec_dir))
    metrics = analyze.analyze_catalog(budget.check_catalog(lower.lower_catalog(specs)))
    return delta.derive_catalog(affine.mark_affine(declared.check_declared(metrics)))


def compile_metrics(spec_dir: Path) -> dict[str, ir.Metric]:
    """Specs -> analyzed IR with the equivalences proved: what the emitters receive."""
    return prove.prove_equivalences(analyzed_metrics(spec_dir))
