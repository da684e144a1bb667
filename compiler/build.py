"""The whole compiler as one tuple of stages: load -> validate -> lower -> budget -> analyze -> prove -> emit.

Each stage is a pure function of the :class:`Build` so far that fills its own field, and
:func:`run` runs the stages in order up to a named one, as sqlglot runs its optimizer rules:
``metricc build`` runs them all (:func:`compile_catalog`: every file of ``generated/``,
relative path -> text, rendered in memory; :mod:`.emit.write` puts them on disk), ``metricc
check`` up to ``analyze`` (:func:`analyzed_metrics`), the docs and tests up to ``prove``
(:func:`compile_metrics`). With a :class:`~.analysis.cache.Cache` the analysis of each metric,
the proofs and the emitted files are reused from earlier builds where their inputs are
unchanged, and with its :class:`~.analysis.record.Record` from the record committed beside the
specs (what a fresh clone reuses); the output is the same bytes either way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from metricc.compiler import emit
from metricc.compiler.analysis import affine, analyze, budget, declared, delta, parallel, prove
from metricc.compiler.analysis.cache import Cache, digest
from metricc.compiler.errors import InternalError
from metricc.compiler.language import ir, load, lower, validate

__all__ = ["STAGES", "Build", "Stage", "analyzed_metrics", "compile_catalog", "compile_metrics", "run"]


@dataclass(frozen=True)
class Build:
    """The compiler's work after the first ``done`` stages: each stage fills its field."""

    spec_dir: Path | None = None
    cache: Cache = field(default_factory=Cache)
    done: int = 0
    sources: Sequence = ()  # load: the parsed spec files
    errata: Sequence[Mapping[str, str]] = ()  # load: the errata beside them
    specs: Sequence = ()  # validate
    metrics: Mapping[str, ir.Metric] = field(default_factory=dict)  # lower, budget, analyze, prove
    files: Mapping[str, str] = field(default_factory=dict)  # emit: relative path -> text

    @classmethod
    def loaded(cls, sources: Sequence, errata: Sequence[Mapping[str, str]] = ()) -> "Build":
        """A build past ``load`` from specs read elsewhere (a few files of a folder)."""
        return cls(done=1, sources=tuple(sources), errata=tuple(errata))


def _load(b: Build) -> Build:
    return dataclasses.replace(b, sources=load.load_catalog(b.spec_dir), errata=load.load_errata(b.spec_dir))


def _validate(b: Build) -> Build:
    return dataclasses.replace(b, specs=validate.validate_catalog(list(b.sources)))


def _lower(b: Build) -> Build:
    return dataclasses.replace(b, metrics=lower.lower_catalog(b.specs))


def _budget(b: Build) -> Build:
    return dataclasses.replace(b, metrics=budget.check_catalog(b.metrics))


def _analyze(b: Build) -> Build:
    """analyze -> check the declared claims -> mark affine parameters -> derive the delta-method
    gradient, for the metrics whose lowered IR (their spec and every spec they reference,
    inlined) the cache does not know; all four are per metric."""
    keys = {m: f"analyzed:{m}:{digest(metric)}" for m, metric in b.metrics.items()}
    known = {m: b.cache.get(keys[m]) for m in b.metrics}
    known = {m: v for m, v in known.items() if isinstance(v, ir.Metric) and v.id == m}
    todo = {m: metric for m, metric in b.metrics.items() if m not in known}
    analyzed = dict(zip(todo, parallel.mapped(analyze.analyze_metric, todo.values())))
    checked = affine.mark_affine(declared.check_declared(analyzed)) if todo else {}
    fresh = dict(zip(checked, parallel.mapped(delta.derive_metric, checked.values())))
    for m, metric in fresh.items():
        b.cache[keys[m]] = metric
    return dataclasses.replace(b, metrics={m: known[m] if m in known else fresh[m] for m in b.metrics})


def _prove(b: Build) -> Build:
    return dataclasses.replace(b, metrics=prove.prove_equivalences(b.metrics, b.cache))


def _emit(b: Build) -> Build:
    return dataclasses.replace(b, files=emit.emit_catalog(b.metrics, b.errata, b.cache))


@dataclass(frozen=True)
class Stage:
    name: str
    run: Callable[[Build], Build]


STAGES: tuple[Stage, ...] = (
    Stage("load", _load),
    Stage("validate", _validate),
    Stage("lower", _lower),
    Stage("budget", _budget),
    Stage("analyze", _analyze),
    Stage("prove", _prove),
    Stage("emit", _emit),
)


def run(build: Build, until: str = STAGES[-1].name,
        on_stage: Callable[[str], None] = lambda stage: None) -> Build:
    """``build`` with the stages after its first ``build.done`` run, up to ``until`` included;
    ``on_stage`` hears the name of each as it starts (``metricc build`` draws a progress bar)."""
    names = [stage.name for stage in STAGES]
    if until not in names:
        raise InternalError(f"no compiler stage {until!r}; the stages are {', '.join(names)}")
    for stage in STAGES[build.done:names.index(until) + 1]:
        on_stage(stage.name)
        build = dataclasses.replace(stage.run(build), done=build.done + 1)
    return build


def compile_catalog(spec_dir: Path, cache: Cache | None = None,
                    on_stage: Callable[[str], None] = lambda stage: None) -> dict[str, str]:
    """Every file of ``generated/`` (relative path -> text): every stage."""
    cache = Cache() if cache is None else cache
    files = run(Build(spec_dir, cache), on_stage=on_stage).files
    cache.save()
    return dict(files)


def analyzed_metrics(spec_dir: Path) -> dict[str, ir.Metric]:
    """Specs -> analyzed IR without the catalog-wide proofs: what ``metricc check`` runs."""
    return dict(run(Build(spec_dir), until="analyze").metrics)


def compile_metrics(spec_dir: Path) -> dict[str, ir.Metric]:
    """Specs -> analyzed IR with the equivalences proved: what the emitters receive."""
    return dict(run(Build(spec_dir), until="prove").metrics)
