"""Could any confusion matrix produce these printed scores? (``metricc consistent``)

Given class totals (or the number of samples) and printed scores, decide whether at least
one integer confusion matrix gives every score within half a unit of its last printed digit.

- two classes: ``exhaustive`` -- every (TP, TN) of the totals, exactly, in numpy batches;
- more classes, few matrices: ``search`` -- every matrix with the totals, exactly;
- otherwise ``intervals`` -- sound necessary conditions (:mod:`.consistent_intervals`): an
  inconsistency they find is real, and they never call a consistent set inconsistent.

When the scores are inconsistent, ``conflicts`` are the smallest sets of scores that cannot
hold together. This recovers a paper's missing confusion matrix from its reported scores:

>>> result = consistent(["accuracy=0.842912", "balanced_accuracy=0.700056"], class_totals=[415, 107])
>>> result.consistent, result.method, result.matrices
(True, 'exhaustive', [[[391, 24], [58, 49]]])
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import asdict, dataclass, field

import numpy as np

from metricc.compiler.audit import consistent_grid as grid
from metricc.compiler.audit.claims import printed_value
from metricc.compiler.audit.consistent_intervals import trace_conditions
from metricc.runtime.errors import InputError
from metricc.runtime.evaluate import metric
from metricc.runtime import trusted_batch
from metricc.runtime.progress import track

__all__ = ["Score", "Consistency", "parse_score", "make_score", "consistent", "EXHAUSTIVE_LIMIT", "SEARCH_LIMIT"]

EXHAUSTIVE_LIMIT = 120_000_000  # two classes: a 10^4 x 10^4 (TP, TN) grid is searched exactly
SEARCH_LIMIT = 5_000_000  # more classes: matrices enumerated one by one
MAX_MATRICES = 10
_LEVELS = ("class", "aggregate", "matrix")


@dataclass(frozen=True)
class Score:
    """One printed score: ``f1:macro=0.494`` -> metric f1, average macro, 0.494 +- 0.0005."""

    metric: str
    average: str | None
    printed: str
    value: float
    tolerance: float

    @property
    def label(self) -> str:
        return self.metric + (f":{self.average}" if self.average else "")


@dataclass(frozen=True)
class Consistency:
    """The answer: ``matrices`` (rows = true class) are up to ten feasible ones."""

    consistent: bool
    method: str  # exhaustive | search | intervals
    feasible_count: int | None
    matrices: list = field(default_factory=list)
    conflicts: list = field(default_factory=list)
    unchecked: list = field(default_factory=list)  # scores the interval conditions cannot bound

    def to_json(self) -> dict:
        return asdict(self)


def parse_score(text: str) -> Score:
    """``ID[:AVERAGE]=PRINTED``; the metric must be computable from a confusion matrix."""
    name, sep, printed = str(text).partition("=")
    if not sep or not name.strip() or not printed.strip():
        raise InputError("score", f"expected ID[:AVERAGE]=PRINTED such as f1:macro=0.494, got {text!r}")
    metric_id, _, average = name.strip().partition(":")
    try:
        value, tolerance = printed_value(printed.strip())
    except ValueError as error:
        raise InputError("score", f"{text}: {error}") from None
    return make_score(metric_id, average or None, printed.strip(), value, tolerance)


def make_score(metric_id: str, average: str | None, printed: str, value: float, tolerance: float) -> Score:
    """A checked :class:`Score`: one number per confusion matrix (no per-class or per-sample values)."""
    info = metric(metric_id)
    if info.per_instance:
        raise InputError("score", f"{metric_id} averages over the samples of multi-label data, not a confusion matrix")
    if info.level not in _LEVELS:
        raise InputError("score", f"{metric_id} needs scores or labels, not a confusion matrix; "
                                  "give metrics of counts or matrices (e.g. accuracy, f1, mcc)")
    if average is not None and info.level != "class":
        raise InputError("score", f"{metric_id} has no averaging; write it without ':{average}'")
    if average in ("none", "samples"):
        raise InputError("score", f"{metric_id}:{average} is not one number per matrix; use binary, micro, macro or weighted")
    if average is not None and average not in info.averages:
        raise InputError("score", f"{metric_id} does not support {average!r} averaging; one of {', '.join(info.averages)}")
    if info.level == "class" and (average or info.default_average) in ("none", "samples"):
        raise InputError("score", f"{metric_id} averages per {info.default_average} by default; give :micro, :macro, ...")
    return Score(info.id, average, printed, value, tolerance)


def _values(score: Score, batch: grid.Batch) -> np.ndarray:
    info = metric(score.metric)
    if info.level == "matrix":
        return np.asarray(info.function(batch.terms), dtype=float)
    if info.level == "aggregate":
        return np.asarray(info.function(*batch.counts), dtype=float)
    average = score.average or info.default_average
    if average == "binary":  # per-class kernels are elementwise: compute the positive class only
        return np.asarray(info.function(*batch.class_counts(1), average="binary", pos_label=0), dtype=float)
    return np.asarray(info.function(*batch.counts, average=average, pos_label=1), dtype=float)


def _matches(score: Score, batch: grid.Batch) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.abs(_values(score, batch) - score.value) <= score.tolerance + 1e-12


@functools.lru_cache(maxsize=1024)
def _unusable(score: Score, classes: int) -> str | None:
    """Why ``score`` cannot be evaluated on a matrix of this size (a parameter without default)."""
    probe = grid.Batch.of_matrices(np.ones((1, classes, classes), dtype=np.int64))
    try:
        _values(score, probe)
    except InputError as error:
        return error.message
    return None


def _check_usable(scores: list[Score], classes: int) -> None:
    for score in scores:
        problem = _unusable(score, classes)
        if problem:
            raise InputError("score", f"{score.label}: {problem}")


def _search(scores: list[Score], batches, candidates=None, progress: bool = True) -> tuple[int, list, np.ndarray | None]:
    """Count feasible matrices, keeping the first ten; if none, the match patterns (bit i =
    score i holds) that occur anywhere, from which the conflicts are read. ``candidates``:
    a subset of the batches that holds every feasible matrix, searched first."""
    count, found = 0, []
    for batch in track((candidates or batches)(), "consistency search", enabled=progress):
        for score in scores:
            batch = batch.take(np.flatnonzero(_matches(score, batch)))
            if not len(batch):
                break
        count += len(batch)
        found.extend(batch.matrix[:MAX_MATRICES - len(found)].tolist())
    if count:
        return count, found, None
    few = len(scores) <= 16  # then a table of every pattern: a count per batch, not a sort
    seen, patterns = np.zeros(1 << len(scores) if few else 0, dtype=bool), set()
    for batch in track(batches(), "conflict search", enabled=progress):
        codes = np.zeros(len(batch), dtype=np.int64)
        for i, score in enumerate(scores):
            codes |= _matches(score, batch).astype(np.int64) << i
        if few:
            seen |= np.bincount(codes, minlength=len(seen)).astype(bool)
        else:
            patterns.update(np.unique(codes).tolist())
    return 0, [], np.flatnonzero(seen).astype(np.int64) if few else np.array(sorted(patterns), dtype=np.int64)


def _conflicts(labels: list[str], patterns: np.ndarray) -> list[list[str]]:
    """The smallest sets of scores that no occurring pattern satisfies together."""
    for size in range(1, len(labels) + 1):
        found = []
        for subset in itertools.combinations(range(len(labels)), size):
            bits = sum(1 << i for i in subset)
            if not np.any((patterns & bits) == bits):
                found.append([labels[i] for i in subset])
        if found:
            return found[:MAX_MATRICES]
    return []


def _intervals(scores, class_totals, samples, classes) -> Consistency:
    masks = trace_conditions(scores, class_totals, samples, classes)
    checked = [i for i, mask in enumerate(masks) if mask is not None]
    codes = np.zeros(samples + 1, dtype=np.int64)
    for bit, i in enumerate(checked):
        codes |= masks[i].astype(np.int64) << bit
    everything = (1 << len(checked)) - 1
    unchecked = [scores[i].label for i, mask in enumerate(masks) if mask is None]
    if np.any(codes == everything):
        return Consistency(True, "intervals", None, [], [], unchecked)
    conflicts = _conflicts([scores[i].label for i in checked], np.unique(codes))
    return Consistency(False, "intervals", None, [], conflicts, unchecked)


def _possible_traces(scores, totals) -> np.ndarray | None:
    """Traces TP + TN that the scores of the trace alone allow (a superset: interval slack),
    or None when no score is a function of the trace."""
    masks = [m for m, s in zip(trace_conditions(scores, None, sum(totals), 2), scores) if m is not None]
    if not masks:
        return None
    return np.flatnonzero(np.logical_and.reduce(masks))


def _totals(class_totals, samples, classes) -> tuple[list[int] | None, int, int]:
    if (class_totals is None) == (samples is None):
        raise InputError("class-totals", "give either the class totals (--class-totals) or the number of samples (--samples)")
    if class_totals is not None:
        totals = list(class_totals)
        if len(totals) < 2 or not all(isinstance(t, (int, np.integer)) and not isinstance(t, bool) and t >= 0 for t in totals):
            raise InputError("class-totals", f"expected two or more non-negative integers (samples per true class), got {class_totals!r}")
        if classes is not None and classes != len(totals):
            raise InputError("classes", f"{classes} classes but {len(totals)} class totals")
        if sum(totals) == 0:
            raise InputError("class-totals", "the totals add up to no samples")
        return [int(t) for t in totals], int(sum(totals)), len(totals)
    classes = 2 if classes is None else classes
    if not isinstance(samples, (int, np.integer)) or isinstance(samples, bool) or samples < 1:
        raise InputError("samples", f"expected a positive number of samples, got {samples!r}")
    if not isinstance(classes, (int, np.integer)) or isinstance(classes, bool) or classes < 2:
        raise InputError("classes", f"expected two or more classes, got {classes!r}")
    return None, int(samples), int(classes)


def consistent(scores, *, class_totals=None, samples=None, classes=None, progress: bool = True) -> Consistency:
    """Decide whether some confusion matrix gives every printed score (``Score`` or text); a
    long search shows a progress bar on stderr when it is a terminal (``progress=False``: none)."""
    scores = [s if isinstance(s, Score) else parse_score(s) for s in scores]
    if not scores:
        raise InputError("score", "give at least one score, e.g. --score accuracy=0.84")
    totals, n, classes = _totals(class_totals, samples, classes)
    _check_usable(scores, classes)
    labels = [s.label for s in scores]
    candidates = None
    if classes == 2 and totals is not None and (totals[0] + 1) * (totals[1] + 1) <= EXHAUSTIVE_LIMIT:
        method, batches = "exhaustive", lambda: grid.binary_batches(totals[0], totals[1])
        traces = _possible_traces(scores, totals)
        if traces is not None:
            candidates = lambda: grid.binary_trace_batches(totals[0], totals[1], traces)  # noqa: E731
    elif classes == 2 and totals is None and grid.binary_samples_size(n) <= EXHAUSTIVE_LIMIT:
        method = "exhaustive"
        batches = lambda: (b for p in range(n + 1) for b in grid.binary_batches(n - p, p))  # noqa: E731
    elif classes > 2 and grid.matrix_search_size(totals, n, classes) <= SEARCH_LIMIT:
        method, batches = "search", lambda: grid.matrix_batches(totals, n, classes)
    else:
        return _intervals(scores, totals, n, classes)
    count, matrices, patterns = _search(scores, batches, candidates, progress)
    if count:
        return Consistency(True, method, count, matrices, [], [])
    return Consistency(False, method, 0, [], _conflicts(labels, patterns), [])
