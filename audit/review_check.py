"""Checking what the paper states, for ``metricc review``: one :class:`Finding` per check.

The third stage (read -> find -> check -> render):

- a displayed equation: identify (:mod:`.review_tools`) says which catalog metric it defines;
  ``ok`` when the label agrees, ``wrong`` (a wrong formula) when the label names another
  metric or the formula is no metric the label could mean (with identify's sentence of what
  differs), ``unchecked`` when neither label nor formula is a catalog metric;
- a score printed for a printed matrix: recomputed. A name that leaves a choice open (``p`` of a
  2 x 2 matrix: which class is positive; ``precision`` of three classes: which averaging) is
  ``ok`` when one of its readings gives the number, and the reading is said; a number no reading
  gives is ``wrong`` or, when the convention search reproduces it, ``explained`` (a convention
  other than the one stated; still a failure). Two values of one worked chain that differ
  (``(22+52)/90 = 7/10``) and one score printed with two values for one matrix are
  contradictions;
- a results table without a matrix: :func:`consistent` on each column's scores, with the class
  totals the paper states (both ways round: which class is positive) or the sample count,
  under each averaging the unqualified names could mean.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from metricc.audit.claims import explain_claim
from metricc.audit.consistent_ambiguous import AVERAGINGS
from metricc.audit.conventions import RELATIVES, closeness, describe
from metricc.audit.review_find import Claim, Equation, Findings, Matrix
from metricc.audit.review_items import Finding
from metricc.audit.review_numbers import glossary_key
from metricc.audit.review_read import Paper
from metricc.audit.review_consistency import MAX_SAMPLES, consistency
from metricc.audit.review_tools import identify_formula
from metricc.core.errors import InputError
from metricc.api.evaluate import evaluate, metric
from metricc.api.progress import track
from metricc.runtime import averaging

__all__ = ["MAX_EQUATIONS", "MAX_NUMBERS", "MAX_SAMPLES", "MAX_TABLES", "NUMBER_CHECKS", "NumberCheck",
           "NumberContext", "check_formulas", "check_numbers", "in_order"]

MAX_EQUATIONS = 300
MAX_NUMBERS = 1_000
MAX_TABLES = 300
MAX_SAMPLES = 10_000_000  # a results table's data set: consistent's search is sized by it


def _bounded(paper: Paper, items, limit: int, what: str, out: list) -> tuple:
    """The first ``limit`` items; the rest are reported as not checked, never dropped silently."""
    items = tuple(items)
    if len(items) > limit:
        first = items[limit].line
        out.append(Finding("formula" if what == "equations" else "number", "unreadable", first, paper.section(first),
                           f"{what} {limit + 1}-{len(items)}", "", None,
                           f"{len(items) - limit} more {what} not checked: at most {limit} a paper"))
    return items[:limit]


def check_formulas(paper: Paper, findings: Findings, progress: bool = False) -> tuple[list[Finding], dict]:
    """Every displayed equation (at most MAX_EQUATIONS: identify takes about a second each),
    and the paper's glossary: each label whose definition identify names (``AvAcc`` ->
    class_accuracy macro; a per-class definition fixes no averaging)."""
    out, glossary = [], {}
    for equation in track(_bounded(paper, findings.equations, MAX_EQUATIONS, "equations", out),
                          "review: formulas", enabled=progress):
        finding, answer = _formula(paper, equation)
        out.append(finding)
        usable = [m for m in answer.matches if all(p.default is not None for p in metric(m.split(" ", 1)[0]).params)]
        if finding.status == "ok" and equation.label and usable:
            metric_id = usable[0].split(" ", 1)[0]
            average = usable[0].partition(" [")[2].partition("]")[0] if usable[0].startswith(metric_id + " [") else None
            meaning = (metric_id, None if averaging.positive_class(average) or averaging.per_class(average) else average)
            key = glossary_key(equation.label)
            glossary[key] = meaning if glossary.get(key, meaning) == meaning else None  # defined two ways: no reading
    return out, {key: meaning for key, meaning in glossary.items() if meaning}


@dataclass
class NumberContext:
    """What the number checks share: the paper, what was found in it, the printed scores to
    check (at most MAX_NUMBERS) and, by check name, what the earlier checks found."""

    paper: Paper
    findings: Findings
    claims: tuple
    progress: bool
    found: dict[str, list[Finding]] = field(default_factory=dict)


@dataclass(frozen=True)
class NumberCheck:
    """One check of the printed numbers: ``run(context)`` -> its findings, in ``NUMBER_CHECKS`` order."""

    name: str
    run: Callable[[NumberContext], list[Finding]]


def check_numbers(paper: Paper, findings: Findings, progress: bool = False) -> list[Finding]:
    """Every check of ``NUMBER_CHECKS`` in order: the printed matrices, the scores printed for
    them (at most MAX_NUMBERS; the convention search takes a tenth of a second for a number
    that differs, and a repeated one is checked once) and the results tables (at most MAX_TABLES)."""
    out: list[Finding] = []
    context = NumberContext(paper, findings, _bounded(paper, findings.claims, MAX_NUMBERS, "printed scores", out), progress)
    for check in NUMBER_CHECKS:
        context.found[check.name] = check.run(context)
        out += context.found[check.name]
    return out


def _unreadable_matrices(context: NumberContext) -> list[Finding]:
    return [Finding("number", "unreadable", m.line, context.paper.section(m.line), m.name, m.printed, None,
                    f"a confusion matrix that cannot be read: {m.problem}") for m in context.findings.matrices if m.problem]


def _recomputed(context: NumberContext) -> list[Finding]:
    seen: dict = {}
    return [_number(context.paper, claim, seen) for claim in track(context.claims, "review: numbers", enabled=context.progress)]


def _tables(context: NumberContext) -> list[Finding]:
    out: list[Finding] = []
    score_sets = _bounded(context.paper, context.findings.score_sets, MAX_TABLES, "score sets", out)
    return out + [consistency(context.paper, s) for s in track(score_sets, "review: score tables", enabled=context.progress)]


def in_order(findings) -> list[Finding]:
    return sorted(findings, key=lambda f: (f.line, ("formula", "number", "consistency").index(f.kind)))


# -------------------------------------------------------------------------------- formulas

def _formula(paper: Paper, equation: Equation):
    answer = identify_formula(equation.formula)
    return _formula_finding(paper, equation, answer), answer


def _formula_finding(paper: Paper, equation: Equation, answer) -> Finding:
    name = f"Eq. ({equation.number})" if equation.number else (equation.where or "unnumbered equation")
    base = dict(kind="formula", line=equation.line, section=paper.section(equation.line), name=name, printed=equation.printed)
    if answer.error:
        return Finding(status="unreadable", computed=None, sentence=f"identify cannot read it: {answer.error}", **base)
    computed = ", ".join(answer.matches) or None
    if answer.contradiction:  # ACC = TP/(TP+FN) = TN/(TN+FP): two places of one equation disagree
        return Finding(status="wrong", severity="contradiction", computed=computed, sentence=answer.contradiction, **base)
    if answer.matches and not answer.forced and answer.label_agrees is None:  # nothing settles the reading
        return Finding(status="unreadable", computed=computed,
                       sentence=f"a letter has several readings and nothing in the paper settles it: {computed}", **base)
    if answer.matches and answer.label_agrees is not False:
        label = f"{equation.label} = " if equation.label else ""
        named = answer.label_names.split(" ")[0] if answer.label_names else None
        match = next((m for m in answer.matches if m.split(" ")[0] == named), answer.matches[0])  # the reading the label settles
        return Finding(status="ok", computed=computed, metric=match.split(" ")[0], sentence=f"{label}{match}", **base)
    if answer.label_agrees is False:
        nearest = f"; {answer.nearest[0]}" if answer.nearest else ""
        return Finding(status="wrong", severity="wrong formula", computed=computed, metric=answer.label_names,
                       sentence=f"labelled {answer.label_names}, but it defines {computed or 'no catalog metric'}{nearest}", **base)
    if answer.label_names:
        label_metric = answer.label_names.split(" ")[0]
        differs = next((n for n in answer.nearest if n.startswith(label_metric + " ") or n.startswith(label_metric + ":")),
                       answer.nearest[0] if answer.nearest else None)
        return Finding(status="wrong", severity="wrong formula", computed=None, metric=answer.label_names,
                       sentence=f"labelled {answer.label_names}, but no catalog metric is this formula"
                                + (f"; nearest {differs}" if differs else ""), **base)
    nearest = f"; nearest {answer.nearest[0]}" if answer.nearest else ""
    return Finding(status="unchecked", computed=None, sentence=f"no catalog metric is this formula (parsed {answer.parsed}){nearest}",
                   **base)


# --------------------------------------------------------------------------------- numbers

def _readings(claim: Claim, matrix: Matrix) -> list[tuple[str, dict]]:
    """(metric, keyword arguments) the printed name may mean on this matrix, the stated
    reading first."""
    info = metric(claim.metric)
    classes = len(matrix.rows)
    average = claim.average
    names = [claim.metric]
    if average and not info.per_class_counts:  # Acc_M: a per-class relative that has the averaging
        related = sorted({m for group in RELATIVES if claim.metric in group for m in group} - {claim.metric},
                         key=lambda m: (closeness(claim.metric, m), m))
        names = [m for m in related if metric(m).per_class_counts and average in metric(m).averages][:1] or names
    readings = []
    for name in names:
        if not metric(name).per_class_counts:
            readings.append((name, {}))
        elif average:
            readings.append((name, {"average": average} if not averaging.positive_class(average) or classes == 2
                               else {"average": average, "pos_label": 1}))
        elif classes == 2 and averaging.POSITIVE_CLASS in metric(name).averages:
            readings += [(name, {"average": averaging.POSITIVE_CLASS, "pos_label": label}) for label in (0, 1)]
        else:
            readings += [(name, {"average": a}) for a in AVERAGINGS if a in metric(name).averages]
    return readings


def _value(name: str, matrix: Matrix, arguments: dict) -> float | None:
    try:
        with np.errstate(all="ignore"):
            value = np.asarray(evaluate(name, matrix=[list(r) for r in matrix.rows], **arguments)[name], dtype=float)
    except (InputError, ValueError, TypeError):
        return None
    return float(value) if value.ndim == 0 else None


def _agrees(value: float | None, claim: Claim) -> bool:
    if value is None or np.isnan(value):
        return False
    printed, tolerance = claim.value.value, claim.value.tolerance
    if abs(value - printed) <= tolerance + 1e-12:
        return True
    upper = metric(claim.metric).range[1]
    return printed > 1.5 and upper == 1.0 and abs(100 * value - printed) <= 100 * tolerance + 1e-9  # a percent table


def _reading_text(name: str, arguments: dict, claim: Claim) -> str:
    parts = [name] if name != claim.metric else []
    if "average" in arguments:
        parts.append(f"{arguments['average']} averaging" if not averaging.positive_class(arguments["average"])
                     else f"class {arguments.get('pos_label', 1)} positive")
    return ", ".join(parts)


def _number(paper: Paper, claim: Claim, seen: dict) -> Finding:
    """One printed score, checked once per (name, value, matrices) however often it repeats."""
    key = (claim.metric, claim.average, claim.value, claim.matrix, claim.nearby)
    if key not in seen:
        seen[key] = _number_check(paper, claim)
    return dataclasses.replace(seen[key], line=claim.line, section=paper.section(claim.line),
                               name=claim.where or claim.matrix.name, printed=f"{claim.label} = {claim.printed}")


def _number_check(paper: Paper, claim: Claim) -> Finding:
    base = dict(kind="number", line=claim.line, section=paper.section(claim.line),
                name=claim.where or claim.matrix.name, printed=f"{claim.label} = {claim.printed}")
    candidates = [claim.matrix, *[m for m in claim.nearby if m is not claim.matrix]]
    for matrix in candidates:
        readings = _readings(claim, matrix)
        for name, arguments in readings:
            value = _value(name, matrix, arguments)
            if _agrees(value, claim):
                notes = []
                if len(readings) > 1 or name != claim.metric:
                    notes.append(f"read as {_reading_text(name, arguments, claim)}")
                if matrix is not claim.matrix:
                    notes.append(f"about {matrix.name}, named in the same paragraph")
                if matrix.orientation.startswith("assumed"):
                    notes.append("rows read as the true classes (the table does not say)")
                sentence = f"{name} of {matrix.name} is {value:.6g}" + (f" ({'; '.join(notes)})" if notes else "")
                return Finding(status="ok", computed=f"{value:.6g}", metric=name, sentence=sentence, data=matrix.name,
                               matrices=(matrix.rows,), **base)
    matrix = claim.matrix
    name, arguments = _readings(claim, matrix)[0]
    value = _value(name, matrix, arguments)
    try:
        result = explain_claim(name, f"{claim.value.value!r}", tolerance=claim.value.tolerance,
                               matrix=[list(r) for r in matrix.rows], **arguments)
    except (InputError, ValueError) as error:
        return Finding(status="unreadable", computed=None, metric=name,
                       sentence=f"cannot recompute {name} on {matrix.name}: {getattr(error, 'message', error)}", **base)
    shown = "NaN (undefined)" if value is None or np.isnan(value) else f"{value:.6g}"
    if result.status == "explained":
        how = describe(result.explained_by)
        return Finding(status="explained", severity="wrong number", computed=shown, metric=name, explained_by=how,
                       data=matrix.name, matrices=(matrix.rows,),
                       sentence=f"{name} of {matrix.name} is {shown}; the printed value is reproduced {how}", **base)
    hint = ""
    if result.coincides_with:
        first = result.coincides_with[0]
        hint = f" ({first['metric']}" + (f" [{first['average']}]" if "average" in first else "") + " happens to give the printed value)"
    return Finding(status="wrong", severity="wrong number", computed=shown, metric=name, data=matrix.name,
                   matrices=(matrix.rows,), sentence=f"{name} of {matrix.name} is {shown}, not {claim.printed}{hint}", **base)


def _workings(paper: Paper, claims) -> list[Finding]:
    """Values of one worked chain that differ: ``\\frac{22+52}{90} = \\frac{7}{10}``."""
    out, seen = [], set()
    for claim in claims:
        for printed, value, slack in claim.workings:
            key = (claim.line, printed, claim.printed)
            if key in seen:
                continue
            seen.add(key)
            tolerance = claim.value.tolerance + slack + 1e-9
            if abs(value - claim.value.value) > tolerance and not abs(100 * value - claim.value.value) <= 100 * tolerance:
                out.append(Finding("number", "wrong", claim.line, paper.section(claim.line), claim.where or claim.matrix.name,
                                   f"{printed} = {claim.printed}", f"{value:.6g}",
                                   f"the worked value {printed} is {value:.6g}, but the same line gives {claim.printed}",
                                   severity="contradiction", metric=claim.metric))
    return out


def _contradictions(paper: Paper, claims, numbers) -> list[Finding]:
    """One score of one matrix printed with two values in two places."""
    out, first_seen = [], {}
    for claim, finding in zip(claims, numbers):
        if finding.status != "ok" or claim.average is None and metric(claim.metric).per_class_counts:
            continue
        key = (finding.data, finding.metric, claim.average)
        if key not in first_seen:
            first_seen[key] = claim
            continue
        other = first_seen[key]
        tolerance = max(other.value.tolerance, claim.value.tolerance) + 1e-9
        if abs(other.value.value - claim.value.value) > tolerance:
            out.append(Finding("number", "wrong", claim.line, paper.section(claim.line), claim.matrix.name,
                               f"{claim.label} = {claim.printed}", other.printed,
                               f"printed as {other.printed} at line {other.line}", severity="contradiction", metric=claim.metric))
    return out


# The checks of the printed numbers, in order; a new check is a function of the context and one
# entry here (a later check reads an earlier one's findings as ``context.found[name]``).
NUMBER_CHECKS: tuple[NumberCheck, ...] = (
    NumberCheck("unreadable matrices", _unreadable_matrices),
    NumberCheck("recomputed", _recomputed),
    NumberCheck("worked chains", lambda context: _workings(context.paper, context.claims)),
    NumberCheck("contradictions", lambda context: _contradictions(context.paper, context.claims, context.found["recomputed"])),
    NumberCheck("results tables", _tables),
)
