"""Review a whole paper: its formulas, its numbers and its results tables (``metricc review``).

The pipeline, one line per stage::

    paper = read_paper(path)                                 # review_read: lines, sections, tables
    found = find(paper, samples, class_totals)               # review_find: equations, matrices, scores
    formulas, glossary = check_formulas(paper, found)        # review_check: identify each equation
    found = find(paper, samples, class_totals, glossary)     #   the paper's own labels read as it defines them
    numbers = check_numbers(paper, found)                    #   recompute, convention search, consistent
    render(report, "text" | "json" | ...)                    # review_render

>>> report = review_text('''Table 1. Confusion matrix (rows: actual class).
...
... \\tPredicted 1\\tPredicted 2
... Actual 1\\t9\\t1
... Actual 2\\t2\\t8
...
... On Table 1 the accuracy is 0.85 and the F1 is 0.95.
... ''', formulas=False)
>>> [(f.printed, f.status) for f in report.findings]
[('accuracy = 0.85', 'ok'), ('F1 = 0.95', 'wrong')]
>>> report.exit_code
1
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from metricc.audit.review_check import check_formulas, check_numbers, in_order
from metricc.audit.review_items import SEVERITIES, STATUSES, Finding
from metricc.audit.review_find import find
from metricc.audit.review_read import Paper, paper_from_text, read_paper

__all__ = ["Finding", "Report", "review_file", "review_text", "schema"]


@dataclass(frozen=True)
class Report:
    paper: Paper
    findings: tuple[Finding, ...]
    skipped_equations: int = 0

    @property
    def wrong(self) -> list[Finding]:
        return [f for f in self.findings if f.failed]

    @property
    def exit_code(self) -> int:
        """0 when nothing is wrong, 1 when something is."""
        return 1 if self.wrong else 0

    def summary(self) -> dict:
        counts = {status: sum(f.status == status for f in self.findings) for status in STATUSES}
        severities = {s: sum(f.severity == s and f.failed for f in self.findings) for s in SEVERITIES}
        kinds = {k: sum(f.kind == k for f in self.findings) for k in ("formula", "number", "consistency")}
        return {"paper": self.paper.name, "lines": len(self.paper.lines), "checked": kinds, "status": counts,
                "wrong": severities, "equations_without_a_metric": self.skipped_equations,
                "unreadable": [f"line {f.line}: {f.sentence}" for f in self.findings if f.status == "unreadable"]}

    def to_json(self) -> dict:
        return {"paper": self.paper.name, "summary": self.summary(), "findings": [_finding_json(f) for f in self.findings]}


def _finding_json(finding: Finding) -> dict:
    return {"kind": finding.kind, "status": finding.status, "severity": finding.severity,
            "location": {"section": finding.section, "name": finding.name, "line": finding.line},
            "printed": finding.printed, "computed": finding.computed, "explained_by": finding.explained_by,
            "sentence": finding.sentence, "metric": finding.metric,
            "matrices": [list(map(list, m)) for m in finding.matrices]}


def review_text(text: str, name: str = "<text>", *, samples: int | None = None, class_totals=None,
                formulas: bool = True, progress: bool = False) -> Report:
    """Review a paper's text (LaTeX, Markdown or text extracted from a PDF). ``samples`` /
    ``class_totals``: for results tables whose data set the paper does not size;
    ``formulas=False`` skips identify (the slow part: about a second a formula)."""
    return _review(paper_from_text(text, name), samples, class_totals, formulas, progress)


def review_file(path: str | Path, *, samples: int | None = None, class_totals=None,
                formulas: bool = True, progress: bool = False) -> Report:
    """:func:`review_text` of a file; InputError (exit 2) when it cannot be read."""
    return _review(read_paper(path), samples, class_totals, formulas, progress)


def _review(paper: Paper, samples, class_totals, formulas: bool, progress: bool) -> Report:
    found = find(paper, samples, class_totals)
    checked, glossary = check_formulas(paper, found, progress) if formulas else ([], {})
    if glossary:
        found = find(paper, samples, class_totals, glossary)
    numbers = check_numbers(paper, found, progress)
    return Report(paper, tuple(in_order(checked + numbers)), found.skipped_equations)


def schema() -> dict:
    """The JSON Schema of ``metricc review --format json``."""
    from importlib import resources

    return json.loads(resources.files("metricc.audit").joinpath("review.schema.json").read_text())
