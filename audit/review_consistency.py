"""Results tables without a matrix, for ``metricc review``: ``consistent`` on each column's
scores, with the class totals the paper states (both ways round) or its sample count, under
each averaging the unqualified names could mean."""

from __future__ import annotations

import re

from metricc.api.evaluate import metric
from metricc.core.errors import InputError
from metricc.audit.review_find import ScoreSet
from metricc.audit.review_items import Finding
from metricc.audit.review_read import Paper
from metricc.audit.review_tools import scores_consistent

__all__ = ["MAX_SAMPLES", "consistency"]

MAX_SAMPLES = 10_000_000  # a results table's data set: consistent's search is sized by it



def _score_texts(score_set: ScoreSet, average: str | None, percent: bool) -> tuple[list[str], list[str]]:
    usable, skipped = [], []
    for name, stated, printed, label in score_set.scores:
        info = metric(name)
        if info.needs_scores or info.per_instance or any(p.default is None for p in info.params):
            skipped.append(label)
            continue
        mode = stated or (average if info.per_class_counts else None)
        digits = re.search(r"-?\d+(?:\.\d+)?", printed)
        if digits is None:
            skipped.append(label)
            continue
        text = digits.group(0) + ("%" if percent or "%" in printed else "")
        usable.append(f"{name}{':' + mode if mode else ''}={text}")
    return usable, skipped


def consistency(paper: Paper, score_set: ScoreSet) -> Finding:
    """A results table without a matrix: could any confusion matrix give its scores (``consistent``)?"""
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
