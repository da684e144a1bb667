"""Auditing published work against the catalog: recomputing printed numbers (claims files)."""
