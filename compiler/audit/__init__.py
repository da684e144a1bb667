"""Auditing published work against the catalog: recomputing printed numbers (claims files)."""

from metricc.compiler.audit.claims import ClaimResult, audit_file, explain_claim
from metricc.compiler.audit.consistent import Consistency, Score, consistent

__all__ = ["ClaimResult", "Consistency", "Score", "audit_file", "consistent", "explain_claim"]
