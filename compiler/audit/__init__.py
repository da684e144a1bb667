"""Auditing published work against the catalog: recomputing printed numbers (claims files) and
identifying printed formulas (identify)."""

from metricc.compiler.audit.identify import Identification, Match, Nearest, identify  # noqa: E402

__all__ = ["Identification", "Match", "Nearest", "identify"]
