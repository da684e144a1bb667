"""Deciding one score set for ``metricc consistent`` (:mod:`.consistent`), by the plan's method.

``decide(scores, plan)`` answers one set of :class:`~.consistent.Score` as read: an exact
search (the masked space, a streamed grid, the diagonals TP + TN that trace scores leave, the
margins search of more classes), else the interval conditions or the metrics' ranges, with
the smallest conflicting sets when inconsistent. The readings search calls it once per
reading; :func:`~.consistent.consistent` builds the plan and the answer.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, field

import numpy as np

from metricc.audit import consistent_grid as grid
from metricc.audit import consistent_margins as margins
from metricc.audit import consistent_space as space
from metricc.audit.consistent_intervals import trace_conditions
from metricc.api.evaluate import metric
from metricc.api.progress import track
from metricc.runtime.averaging import POSITIVE_CLASS

__all__ = ["Plan", "Outcome", "decide", "DIAGONAL_LIMIT", "MARGIN_CONFLICT_SEARCHES"]

MAX_MATRICES = space.MAX_MATRICES
TRACE_CELLS = 2_000_000  # the trace or one diagonal cell evaluated value by value (as TRACE_LIMIT)


@dataclass
class Plan:
    """How score sets of these totals are decided: ``method``, and for an exact method its
    batches (``space`` when small enough to keep each score's mask)."""

    method: str
    totals: list[int] | None
    samples: int
    classes: int
    batches: object = None
    space: space.Space | None = None
    size: int | None = None
    note: str = ""



@dataclass
class Outcome:
    status: str
    count: int | None = None
    matrices: list = field(default_factory=list)
    conflicts: list = field(default_factory=list)
    unchecked: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    method: str | None = None  # when not the plan's (a fallback)
    indices: list = field(default_factory=list)  # the conflicts as score positions

    @property
    def feasible(self) -> bool:
        return self.status != "inconsistent"


def _out_of_range(score: Score) -> bool:
    low, high = metric(score.metric).range or (-math.inf, math.inf)
    return score.value + score.tolerance < low - 1e-12 or score.value - score.tolerance > high + 1e-12


def _possible_traces(scores, totals) -> np.ndarray | None:
    """Traces TP + TN that the scores of the trace alone allow (a superset: interval slack),
    or None when no score is a function of the trace."""
    masks = [m for m in trace_conditions(scores, None, sum(totals), 2) if m is not None]
    return np.flatnonzero(np.logical_and.reduce(masks)) if masks else None


def _from_patterns(labels, patterns, positions=None) -> tuple[list, list, list]:
    """(conflicts as labels, as score positions, notes) of the match patterns of ``labels``
    (the scores at ``positions``, default all)."""
    found, stopped = space.conflicts(labels, patterns)
    positions = list(range(len(labels))) if positions is None else positions
    notes = [f"the search for the smallest conflicts stopped after {space.CONFLICT_BUDGET:,} steps"] if stopped else []
    return [[labels[i] for i in c] for c in found], [[positions[i] for i in c] for c in found], notes


def _intervals(scores, plan: Plan) -> Outcome:
    masks = trace_conditions(scores, plan.totals, plan.samples, plan.classes)
    checked = [i for i, mask in enumerate(masks) if mask is not None]
    unchecked = [scores[i].label for i, mask in enumerate(masks) if mask is None]
    if not checked:
        return Outcome("not_refuted", unchecked=unchecked)
    table = np.stack([masks[i] for i in checked], axis=1)
    if np.any(np.all(table, axis=1)):
        return Outcome("not_refuted", unchecked=unchecked)
    patterns: set[bytes] = set()
    for start in range(0, len(table), grid.CHUNK):
        patterns |= space.pattern_rows(table[start:start + grid.CHUNK])
    conflicts, indices, notes = _from_patterns([scores[i].label for i in checked], space.unpack(patterns, len(checked)),
                                               checked)
    return Outcome("inconsistent", conflicts=conflicts, unchecked=unchecked, notes=notes, indices=indices)


MARGIN_CONFLICT_SEARCHES = 10  # subsets searched for the smallest conflicts by the margins method


def _margins(scores: list, plan: Plan, explain: bool) -> Outcome:
    """The exact margins search, or the interval conditions (saying why) where it cannot answer."""
    unfit = [s.label for s in scores if not margins.applicable(s)]
    # a reading (explain=False) gets a fifth of the work: a dozen of them stay within one search's time
    found = None if unfit else margins.margins_search(scores, plan.totals, None if explain else margins.WORK_LIMIT // 5)
    if found is None:
        why = (f"{', '.join(unfit)} read{'s' if len(unfit) == 1 else ''} cells off the diagonal" if unfit else
               f"the exact margins search passed its bounds ({margins.WORK_LIMIT:,} partial assignments, "
               f"{margins.TABLE_LIMIT:,} table cells)")
        outcome = _intervals(scores, plan)
        outcome.method = "intervals"
        outcome.notes.append(f"{why}: necessary conditions only (intervals)")
        return outcome
    count, matrices = found
    if count:
        return Outcome("consistent", None, matrices, method="margins")
    if not explain:
        return Outcome("inconsistent", method="margins")
    conflicts, searched = [], 0
    labels = [s.label for s in scores]
    for size in range(1, len(scores)):
        for subset in itertools.combinations(range(len(scores)), size):
            if any(set(c) <= set(subset) for c in conflicts) or searched >= MARGIN_CONFLICT_SEARCHES:
                continue
            searched += 1
            if margins.margins_search([scores[i] for i in subset], plan.totals) == (0, []):
                conflicts.append(subset)
        if conflicts or searched >= MARGIN_CONFLICT_SEARCHES:
            break
    notes = []
    if not conflicts:
        conflicts = [tuple(range(len(scores)))]
        if searched >= MARGIN_CONFLICT_SEARCHES:
            notes.append(f"the smallest conflicts were searched in {MARGIN_CONFLICT_SEARCHES} subsets only")
    conflicts = [list(c) for c in conflicts[:MAX_MATRICES]]
    return Outcome("inconsistent", 0, conflicts=[[labels[i] for i in c] for c in conflicts], notes=notes,
                    method="margins", indices=conflicts)


DIAGONAL_LIMIT = 20_000_000  # two classes past the grid bound: candidate cells searched exactly
_ROW_COUNTS = re.compile(r"\b(TP|FP|FN|TN)\b")


def _diagonal_of(score, negatives: int, positives: int) -> int | None:
    """Which diagonal cell alone a binary score depends on: 1 (TP, class 1's row), 0 (TN), or
    None. A per-class formula of its class's TP and FN only reads that class's row, whose total
    is fixed; of FP and TN only, the other row."""
    info = metric(score.metric)
    if not info.per_class_counts or score.average != POSITIVE_CLASS or info.params:
        return None
    used = set(_ROW_COUNTS.findall(info.simplified))
    positive = 1 if score.pos_label is None else score.pos_label
    if used and used <= {"TP", "FN"}:
        return positive
    if used and used <= {"FP", "TN"}:
        return 1 - positive
    return None


def _cells(negatives: int, positives: int, tp: np.ndarray, tn: np.ndarray) -> grid.Batch:
    cells = np.empty((2, 2, len(tp)), dtype=np.int64)
    cells[0, 0], cells[0, 1] = tn, negatives - tn
    cells[1, 0], cells[1, 1] = positives - tp, tp
    return grid.Batch(cells)


CELL_SCAN_LIMIT = 200_000_000  # values of one diagonal cell scanned (in chunks) for the scores of that cell alone


def _allowed(scores, negatives: int, positives: int, which: int) -> np.ndarray | None:
    """Values of one diagonal cell (1: TP, 0: TN) that the scores of that cell alone allow,
    scanned in chunks (memory independent of the totals)."""
    own = [s for s in scores if _diagonal_of(s, negatives, positives) == which]
    if not own:
        return None
    total = positives if which else negatives
    kept = []
    for start in range(0, total + 1, grid.CHUNK):
        values = np.arange(start, min(total, start + grid.CHUNK - 1) + 1, dtype=np.int64)
        batch = _cells(negatives, positives, values, np.zeros_like(values)) if which else \
            _cells(negatives, positives, np.zeros_like(values), values)
        ok = np.logical_and.reduce([space.matches(s, batch) for s in own])
        kept.append(values[ok])
    return np.concatenate(kept)


def _restricted(scores: list, plan: Plan, progress: bool) -> Outcome | None:
    """Two classes whose grid is too large for ``exhaustive``: every matrix whose TP, TN and
    trace TP + TN the scores of one of them alone allow (recall fixes TP, specificity TN,
    accuracy the trace), exactly, when they leave at most ``DIAGONAL_LIMIT`` cells; else None."""
    if plan.classes != 2 or plan.totals is None or max(plan.totals) > CELL_SCAN_LIMIT:
        return None
    negatives, positives = plan.totals
    traces = _possible_traces(scores, plan.totals) if plan.samples <= TRACE_CELLS else None
    tps, tns = _allowed(scores, negatives, positives, 1), _allowed(scores, negatives, positives, 0)
    if max(plan.totals) > TRACE_CELLS and (tps is None or tns is None):
        return None  # a cell no score fixes would be enumerated whole: past the bound
    tps = np.arange(positives + 1) if tps is None else tps
    tns = np.arange(negatives + 1) if tns is None else tns
    by_diagonal = None if traces is None else int((np.minimum(traces, positives) - np.maximum(0, traces - negatives) + 1).sum())
    by_product = len(tps) * len(tns)
    if min(by_product, by_diagonal or by_product) > DIAGONAL_LIMIT:
        return None
    trace_ok = None
    if traces is not None:
        trace_ok = np.zeros(plan.samples + 1, dtype=bool)
        trace_ok[traces] = True
    if by_diagonal is not None and by_diagonal < by_product:
        batches = lambda: grid.binary_trace_batches(negatives, positives, traces)  # noqa: E731
        where = f"{by_diagonal:,} cells on {len(traces):,} diagonal{'s' if len(traces) != 1 else ''} TP + TN"
    else:
        def batches():
            rows = max(1, grid.CHUNK // max(1, len(tns)))
            for start in range(0, len(tps), rows):
                part = tps[start:start + rows]
                tp, tn = np.repeat(part, len(tns)), np.tile(tns, len(part))
                if trace_ok is not None:
                    keep = trace_ok[tp + tn]
                    tp, tn = tp[keep], tn[keep]
                yield _cells(negatives, positives, tp, tn)
        where = f"{len(tps):,} value{'s' if len(tps) != 1 else ''} of TP by {len(tns):,} of TN"
    count = 0
    matrices: list = []
    for batch in track(batches(), "consistency search", enabled=progress):
        for score in scores:
            batch = batch.take(np.flatnonzero(space.matches(score, batch)))
            if not len(batch):
                break
        count += len(batch)
        matrices.extend(batch.matrix[:MAX_MATRICES - len(matrices)].tolist())
    note = f"the (TP, TN) grid is over the exhaustive bound, but the scores leave {where}: searched exactly"
    if count:
        return Outcome("consistent", count, matrices, notes=[note], method="exhaustive")
    refuted = _intervals(scores, plan) if plan.samples <= TRACE_CELLS else Outcome("not_refuted")
    if refuted.status == "inconsistent":
        refuted.notes.append(note)
        refuted.method = "exhaustive"
        return refuted
    return Outcome("inconsistent", 0, conflicts=[[s.label for s in scores]], indices=[list(range(len(scores)))],
                   notes=[note, "the smallest conflicts were not searched (the whole grid is over its bound)"],
                   method="exhaustive")


def decide(scores: list, plan: Plan, progress: bool, explain: bool = True) -> Outcome:
    outside = [i for i, s in enumerate(scores) if _out_of_range(s)]
    if outside:
        return Outcome("inconsistent", conflicts=[[scores[i].label] for i in outside], indices=[[i] for i in outside],
                        notes=["a score outside its metric's range holds on no matrix"])
    if plan.method == "range":
        restricted = _restricted(scores, plan, progress) if plan.samples < 2**53 else None
        return restricted or Outcome("not_refuted", unchecked=[s.label for s in scores])
    if plan.method == "intervals":
        return _restricted(scores, plan, progress) or _intervals(scores, plan)
    if plan.method == "margins":
        return _margins(scores, plan, explain)
    labels = [s.label for s in scores]
    if plan.space is not None:
        count, matrices = plan.space.feasible(scores)
        if count:
            return Outcome("consistent", count, matrices)
        if not explain:
            return Outcome("inconsistent", 0)
        conflicts, indices, notes = _from_patterns(labels, plan.space.patterns(scores))
        return Outcome("inconsistent", 0, conflicts=conflicts, notes=notes, indices=indices)
    candidates = None
    if plan.classes == 2 and plan.totals is not None:
        traces = _possible_traces(scores, plan.totals)
        if traces is not None:
            candidates = lambda: grid.binary_trace_batches(plan.totals[0], plan.totals[1], traces)  # noqa: E731
    count, matrices, patterns = space.search(scores, plan.batches, candidates, progress)
    if count:
        return Outcome("consistent", count, matrices)
    conflicts, indices, notes = _from_patterns(labels, patterns)
    return Outcome("inconsistent", 0, conflicts=conflicts, notes=notes, indices=indices)
