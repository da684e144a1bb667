"""``metricc review FILE``: the whole paper at once: formulas, numbers and results tables.

Registered by :mod:`.app` (``add_command``); the review (sympy included) is imported when the
command runs. Exit 0 when nothing is wrong, 1 when something is, 2 when the file cannot be read.
The review is written as a document of :mod:`metricc.api.formats` (:class:`ReviewDocument`),
so ``--format`` offers every format of that table.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from metricc.api.formats import FORMATS, Table, render
from metricc.core.errors import InputError

__all__ = ["ReviewDocument", "add_command"]


def add_command(commands) -> None:
    parser = commands.add_parser(
        "review", help="review a paper's text: its metric formulas, printed numbers and results tables",
        description="Read a paper (LaTeX source, Markdown, or text extracted from a PDF) and check every "
                    "displayed equation that defines a metric (identify), every score printed for a printed "
                    "confusion matrix (recomputed; a difference explained by the convention search) and every "
                    "results table without a matrix (consistent). Exit 0 when nothing is wrong, 1 when "
                    "something is, 2 when the file cannot be read.")
    parser.add_argument("file", metavar="FILE", help="the paper's text (.tex, .md, .txt)")
    parser.add_argument("--format", choices=tuple(FORMATS), default="text")
    parser.add_argument("--output", "-o", metavar="PATH", help="write the report there (default: standard output)")
    sizes = parser.add_mutually_exclusive_group()
    sizes.add_argument("--samples", metavar="N", type=int,
                       help="samples behind the results tables whose size the paper does not state")
    sizes.add_argument("--class-totals", metavar="T0,T1,...", type=_totals,
                       help="samples per true class behind the results tables (class 1 positive)")
    parser.add_argument("--no-formulas", action="store_true",
                        help="skip identifying the displayed equations (the slow part, about a second each)")
    parser.add_argument("--quiet", action="store_true", help="no progress on standard error")
    parser.set_defaults(run=_run)


@dataclass(frozen=True)
class ReviewDocument:
    """A review (:class:`metricc.audit.review.Report`) as a document: the review's own text,
    Markdown and HTML page (:mod:`metricc.audit.review_render`), its JSON data, and one table of
    the findings (numbered in the paper's order) for the other formats."""

    report: object

    json_indent = 2
    json_ascii = False

    @property
    def title(self) -> str:
        return f"Review of {self.report.paper.name}"

    def data(self) -> dict:
        return self.report.to_json()

    def blocks(self, digits: int) -> list:
        rows = tuple((str(k), str(f.line), f.status, f.severity or "", f.kind, f.section, f.name, f.printed,
                      f.computed or "", f.sentence) for k, f in enumerate(self.report.findings, 1))
        return [Table(("finding", "line", "status", "severity", "kind", "section", "name", "printed", "computed",
                       "sentence"), rows, "Findings")]

    def own_layouts(self) -> dict:
        from metricc.audit.review_render import render as layout

        return {form: lambda digits, form=form: layout(self.report, form) for form in ("text", "markdown", "html")}


def _totals(text: str) -> list[int]:
    try:
        totals = [int(part) for part in text.split(",")]
    except ValueError:
        raise InputError("--class-totals", f"expected integers separated by commas, got {text!r}") from None
    if len(totals) < 2 or min(totals) < 0:
        raise InputError("--class-totals", f"expected two or more non-negative integers, got {text!r}")
    return totals


def _run(args) -> int:
    from metricc.audit.review import review_file

    if args.samples is not None and args.samples < 1:
        raise InputError("--samples", f"expected a positive number of samples, got {args.samples}")
    report = review_file(args.file, samples=args.samples, class_totals=args.class_totals,
                         formulas=not args.no_formulas, progress=not args.quiet)
    text = render(ReviewDocument(report), args.format)
    if args.output:
        try:
            Path(args.output).write_text(text + ("" if text.endswith("\n") else "\n"), encoding="utf-8")
        except OSError as error:
            raise InputError("--output", f"cannot write {args.output}: {error.strerror}") from None
        print(f"review of {args.file}: {len(report.wrong)} wrong; report written to {args.output}", file=sys.stderr)
    else:
        print(text)
    return report.exit_code
