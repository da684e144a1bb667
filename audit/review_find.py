"""Finding what a paper states for ``metricc review``: equations, matrices, printed scores.

The second stage (read -> find -> check -> render). From a :class:`~.review_read.Paper` it
collects

- :class:`Equation`: every displayed equation (``$$...$$``, ``\\[...\\]``, ``equation`` and
  ``align`` environments, and formula cells of a table whose row names a metric) with its number
  (``\\tag{3}``, a trailing ``(3)``, or the environment's count) and its label;
- :class:`Matrix`: every confusion matrix printed: a square block of counts in a table (a
  total row and column dropped where they add up; rows are predicted classes when the row
  headers say "predicted" or the column headers "actual"/"true"), or inline
  (``[[9, 1], [2, 8]]``, ``\\begin{pmatrix}...``), named by the caption or the header above it;
- :class:`Claim`: every score printed in running text (a chain ``$r_\\mu = ... = \\frac{7}{10}$``,
  "an accuracy of 0.84") or a table cell under a metric's name, with the matrix it is about
  (the nearest preceding mention of the matrix's name in its section, or the table column it
  stands under), and the worked values of its chain (:attr:`Claim.workings`);
- :class:`ScoreSet`: the scores of one column or row of a results table that no printed
  matrix explains, with the class totals or sample count the paper states nearby.
"""

from __future__ import annotations

from metricc.audit.review_equations import equations as _equations, matrices as _matrices
from metricc.audit.review_items import Claim, Equation, Findings, Matrix, ScoreSet
from metricc.audit.review_read import Paper
from metricc.audit.review_scores import score_tables, text_claims

__all__ = ["Claim", "Equation", "Findings", "Matrix", "ScoreSet", "find"]


def find(paper: Paper, samples: int | None = None, class_totals=None, glossary: dict | None = None) -> Findings:
    """Everything the checking stage recomputes, in the order of the paper. ``glossary``: the
    paper's own labels for metrics (``AvAcc`` -> class_accuracy macro), read from its
    identified definitions; names the catalog does not know are looked up there first."""
    equations, skipped = _equations(paper)
    matrices = _matrices(paper)
    claims = text_claims(paper, matrices, glossary)
    table_claims, score_sets = score_tables(paper, matrices, samples, class_totals, glossary)
    claims = tuple(sorted(claims + table_claims, key=lambda c: c.line))
    return Findings(tuple(equations), tuple(matrices), claims, tuple(score_sets), skipped)
