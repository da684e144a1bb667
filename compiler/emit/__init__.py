"""The back end: IR -> files, one :class:`~.target.Target` per output (:data:`.targets.TARGETS`):
numpy modules and the registry, the LaTeX catalog, the HTML website."""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence

from metricc.compiler.emit import targets
from metricc.compiler.emit.target import GENERATED, Catalog, emit_files
from metricc.compiler.language import ir

__all__ = ["emit_catalog"]


def emit_catalog(metrics: Mapping[str, ir.Metric], errata: Sequence[Mapping[str, str]] = (),
                 memo: MutableMapping | None = None) -> dict[str, str]:
    """Every file of ``generated/`` (relative path -> text), in path order; ``memo`` (a mapping,
    or the build cache) holds each metric's files by its final IR."""
    return emit_files(Catalog(metrics, errata), targets.of(GENERATED), memo)
