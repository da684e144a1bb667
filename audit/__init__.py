"""Auditing published work against the catalog: recomputing printed numbers (claims files),
finding the convention behind a number that differs, deciding whether any confusion matrix gives
a set of scores, and identifying printed formulas."""

from metricc.audit.claims import ClaimResult, audit_file, explain_claim
from metricc.audit.consistent import Consistency, Score, consistent
from metricc.audit.identify import Identification, Match, Nearest, identify

__all__ = ["ClaimResult", "Consistency", "Identification", "Match", "Nearest", "Score", "audit_file", "consistent",
           "explain_claim", "identify"]
