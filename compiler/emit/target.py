"""The one protocol of the compiler's outputs: a :class:`Target` turns the final IR into files.

A target gives the files of one metric (:attr:`Target.metric_files`, a function of that
metric's IR, so a build reuses them from its cache while the IR is unchanged) and the files
about every metric (:attr:`Target.catalog_files`: a registry, a catalog document, an index).
Both read a :class:`Catalog`: the IR of every metric, the errata, and for the website what only
running the generated code can tell. :func:`emit_files` runs a tuple of targets; the tuple of
the compiler's own is :data:`metricc.compiler.emit.targets.TARGETS`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass, field

from metricc.compiler.analysis import parallel
from metricc.compiler.analysis.cache import digest, remembered
from metricc.compiler.errors import InternalError
from metricc.compiler.language import ir

__all__ = ["GENERATED", "SITE", "Catalog", "Target", "emit_files"]

GENERATED = "generated"  # written by `metricc build` into generated/
SITE = "site"  # written by `metricc docs --html`, after the build: its worked examples run generated/


@dataclass(frozen=True)
class Catalog:
    """What every target reads. ``examples`` (metric id -> worked example) and ``audits`` (one
    row per recomputed claim) come from running code: only the website reads them."""

    metrics: Mapping[str, ir.Metric]
    errata: Sequence[Mapping[str, str]] = ()
    examples: Mapping[str, Mapping] = field(default_factory=dict)
    audits: Sequence[Mapping[str, str]] = ()


@dataclass(frozen=True)
class Target:
    """One output of the compiler; paths are relative POSIX paths inside its ``output`` tree."""

    name: str
    output: str  # GENERATED or SITE: the tree its files go into
    metric_files: Callable[[ir.Metric, Catalog], Mapping[str, str]]
    catalog_files: Callable[[Catalog], Mapping[str, str]]


def _is_files(value) -> bool:
    return isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items())


def emit_files(catalog: Catalog, targets: Sequence[Target], memo: MutableMapping | None = None) -> dict[str, str]:
    """Every file of ``targets`` (relative path -> text), in path order.

    ``memo`` (a mapping, or the build cache) holds each metric's files per target by its final
    IR; the website, whose pages also show worked examples, is emitted without one.
    """
    memo = {} if memo is None else memo
    files: dict[str, str] = {}
    owners: dict[str, str] = {}

    def add(target: Target, emitted: Mapping[str, str]) -> None:
        for path, text in emitted.items():
            if path in owners:
                raise InternalError(f"targets {owners[path]} and {target.name} both write {path}")
            owners[path], files[path] = target.name, text

    keys = {metric_id: digest(metric) for metric_id, metric in catalog.metrics.items()}
    wanted = [(target, metric_id, f"emitted:{metric_id}:{target.name}:{keys[metric_id]}")
              for target in targets for metric_id in catalog.metrics]
    missing = [(target, metric_id) for target, metric_id, key in wanted if not _is_files(memo.get(key))]
    made = parallel.mapped(lambda job: dict(job[0].metric_files(catalog.metrics[job[1]], catalog)), missing)
    made = {(target.name, metric_id): emitted for (target, metric_id), emitted in zip(missing, made)}
    for target in targets:
        add(target, target.catalog_files(catalog))
    for target, metric_id, key in wanted:
        add(target, remembered(memo, key, _is_files, lambda: made[target.name, metric_id]))
    return dict(sorted(files.items()))
