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
import re
from dataclasses import dataclass, field

import numpy as np

from metricc.audit.claims import explain_claim
from metricc.audit.conventions import RELATIVES, closeness, describe
from metricc.audit.review_find import Claim, Equation, Findings, Matrix, ScoreSet
from metricc.audit.review_numbers import glossary_key
from metricc.audit.review_read import Paper
from metricc.audit.review_tools import identify_formula, scores_consistent
from metricc.core.errors import InputError
from metricc.api.evaluate import evaluate, metric
from metricc.api.progress import track

__all__ = ["Finding", "MAX_EQUATIONS", "MAX_NUMBERS", "MAX_SAMPLES", "MAX_TABLES", "check_formulas", "check_numbers",
           "in_order"]

STATUSES = ("ok", "explained", "wrong", "unreadable", "unchecked")
MAX_EQUATIONS = 300
MAX_NUMBERS = 1_000
MAX_TABLES = 300
MAX_SAMPLES = 10_000_000  # a results table's data set: consistent's search is sized by it
SEVERITIES = ("wrong number", "wrong formula", "contradiction")


@dataclass(frozen=True)
class Finding:
    kind: str  # formula | number | consistency
    status: str  # ok | wrong | explained | unreadable | unchecked
    line: int
    section: str
    name: str  # the equation, table or figure as the paper names it ("Eq. (16)", "Figure 8")
    printed: str
    computed: str | None
    sentence: str
    severity: str | None = None
    explained_by: str | None = None
    metric: str | None = None
    matrices: tuple = field(default=())  # number: the matrix recomputed on; consistency: matrices giving the scores
    data: str = ""  # the printed matrix a number was recomputed on

    @property
    def failed(self) -> bool:
        return self.status in ("wrong", "explained")


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
            meaning = (metric_id, None if average in ("binary", "none") else average)
            key = glossary_key(equation.label)
            glossary[key] = meaning if glossary.get(key, meaning) == meaning else None  # defined two ways: no reading
    return out, {key: meaning for key, meaning in glossary.items() if meaning}


def check_numbers(paper: Paper, findings: Findings, progress: bool = False) -> list[Finding]:
    """The printed matrices, the scores printed for them (at most MAX_NUMBERS; the
    convention search takes a tenth of a second for a number that differs, and a repeated one
    is checked once) and the results tables (at most MAX_TABLES)."""
    out = []
    for matrix in findings.matrices:
        if matrix.problem:
            out.append(Finding("number", "unreadable", matrix.line, paper.section(matrix.line), matrix.name,
                               matrix.printed, None, f"a confusion matrix that cannot be read: {matrix.problem}"))
    claims = _bounded(paper, findings.claims, MAX_NUMBERS, "printed scores", out)
    seen: dict = {}
    numbers = [_number(paper, claim, seen) for claim in track(claims, "review: numbers", enabled=progress)]
    out += numbers
    out += _workings(paper, claims)
    out += _contradictions(paper, claims, numbers)
    for score_set in track(_bounded(paper, findings.score_sets, MAX_TABLES, "score sets", out),
                           "review: score tables", enabled=progress):
        out.append(_consistency(paper, score_set))
    return out


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
    if average and info.level != "class":  # Acc_M: a per-class relative that has the averaging
        related = sorted({m for group in RELATIVES if claim.metric in group for m in group} - {claim.metric},
                         key=lambda m: (closeness(claim.metric, m), m))
        names = [m for m in related if metric(m).level == "class" and average in metric(m).averages][:1] or names
    readings = []
    for name in names:
        level = metric(name).level
        if level != "class":
            readings.append((name, {}))
        elif average:
            readings.append((name, {"average": average} if average != "binary" or classes == 2 else {"average": "binary", "pos_label": 1}))
        elif classes == 2 and "binary" in metric(name).averages:
            readings += [(name, {"average": "binary", "pos_label": 0}), (name, {"average": "binary", "pos_label": 1})]
        else:
            readings += [(name, {"average": a}) for a in ("macro", "micro", "weighted") if a in metric(name).averages]
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
        parts.append(f"{arguments['average']} averaging" if arguments["average"] != "binary"
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
        if finding.status != "ok" or claim.average is None and metric(claim.metric).level == "class":
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


# ----------------------------------------------------------------------------- consistency

def _score_texts(score_set: ScoreSet, average: str | None, percent: bool) -> tuple[list[str], list[str]]:
    usable, skipped = [], []
    for name, stated, printed, label in score_set.scores:
        info = metric(name)
        if info.level not in ("class", "aggregate", "matrix") or info.per_instance or any(p.default is None for p in info.params):
            skipped.append(label)
            continue
        mode = stated or (average if info.level == "class" else None)
        digits = re.search(r"-?\d+(?:\.\d+)?", printed)
        if digits is None:
            skipped.append(label)
            continue
        text = digits.group(0) + ("%" if percent or "%" in printed else "")
        usable.append(f"{name}{':' + mode if mode else ''}={text}")
    return usable, skipped


def _consistency(paper: Paper, score_set: ScoreSet) -> Finding:
    base = dict(kind="consistency", line=score_set.line, section=paper.section(score_set.line), name=score_set.name,
                printed=", ".join(f"{label} = {printed}" for _, _, printed, label in score_set.scores))
    if score_set.class_totals is None and score_set.samples is None:
        return Finding(status="unreadable", computed=None, sentence="no class totals or sample count stated for this table; "
                       "give --class-totals or --samples", **base)
    size = sum(score_set.class_totals) if score_set.class_totals else score_set.samples
    if size > MAX_SAMPLES:
        return Finding(status="unreadable", computed=None, sentence=f"{size:,} samples (from {score_set.totals_from}); "
                       f"the consistency check takes at most {MAX_SAMPLES:,}", **base)
    values = [float(m.group(0)) for m in (re.search(r"\d+(?:\.\d+)?", p) for _, _, p, _ in score_set.scores) if m]
    percent = bool(values) and min(values) > 1.0
    classes = len(score_set.class_totals) if score_set.class_totals else (score_set.classes or 2)
    averages = ["binary"] if classes == 2 else ["macro", "weighted", "micro"]
    totals_options = [score_set.class_totals, tuple(reversed(score_set.class_totals))] if score_set.class_totals else [None]
    tried, last_error, answer = [], None, None
    for average in averages:
        scores, skipped = _score_texts(score_set, average, percent)
        if len(scores) < 2:
            return Finding(status="unchecked", computed=None, sentence="fewer than two scores of a confusion matrix "
                           f"(not checked: {', '.join(skipped) or 'none'})", **base)
        for totals in totals_options:
            try:
                answer = scores_consistent(scores, class_totals=list(totals) if totals else None,
                                           samples=None if totals else score_set.samples,
                                           classes=None if totals else score_set.classes)
            except InputError as error:
                last_error = error.message
                continue
            reading = (f"class totals {list(totals)} (class 1 positive)" if totals else f"{score_set.samples} samples") \
                + (f", unqualified scores {average}" if classes > 2 else "")
            tried.append(reading)
            if answer.status in ("consistent", "not_refuted"):
                example = f"; e.g. {list(answer.matrices[0])}" if answer.matrices else ""
                note = "".join(f"; not checked: {', '.join(names)}" for names in (skipped + list(answer.unchecked),) if names)
                if answer.status == "not_refuted":  # necessary conditions only: nothing is proved consistent
                    verdict, computed = f"not refuted with {reading} (necessary conditions only: {answer.method})", "not refuted"
                else:
                    verdict = f"consistent with {reading}: {answer.feasible_count} matrices ({answer.method}){example}"
                    computed = f"consistent ({answer.method})"
                return Finding(status="ok", computed=computed, matrices=answer.matrices,
                               sentence=f"{verdict}{note} (totals from {score_set.totals_from})",
                               **base)
    if answer is None:
        return Finding(status="unreadable", computed=None, sentence=f"consistent refused the scores: {last_error}", **base)
    conflicts = "; ".join(" + ".join(c) for c in answer.conflicts[:3])
    proved = [r for r in answer.readings if r[1] == "consistent"]
    if proved:  # inconsistent as stated, consistent under a reading a paper may have used
        reading, _, matrices = proved[0]
        return Finding(status="explained", computed=f"inconsistent as stated ({answer.method})", matrices=matrices,
                       explained_by=reading,
                       sentence=f"no confusion matrix gives these scores as stated ({' / '.join(tried)}); "
                                f"consistent if {reading} (totals from {score_set.totals_from})", **base)
    return Finding(status="wrong", severity="contradiction", computed=f"inconsistent ({answer.method})",
                   sentence=f"no confusion matrix gives these scores together ({' / '.join(tried)}); "
                            f"cannot hold together: {conflicts} (totals from {score_set.totals_from})", **base)
